"""``Idempotency-Key``: a write repeated with the same key is answered, not applied, again.

The first request with a key records it as running (committed at once, so a
concurrent twin sees it), runs, and stores its status and exact body. Later
requests from the same user with that key get:

- the stored answer, byte for byte, when the request is the same (method,
  path and body);
- 422 ``idempotency_key_reused`` when the body or endpoint differs;
- 409 ``idempotency_key_in_use`` while the first one is still running.

A key left running for longer than ``ABANDONED_AFTER`` belongs to a request
whose process died mid-way; the next request with it takes it over (its
``expected_seq``, if any, still guards against applying a move twice).

A record is kept ``GAMENOOK_IDEMPOTENCY_KEEP_SECONDS`` (a day), then the sweep
deletes it (``games.services.idempotency_keys_purge``); a key older than that
is new again, whether or not the sweep has come by yet.

A request that ends in a server error keeps nothing, so it can be retried.
Authentication and throttling come first: their refusals are not stored.
"""

from __future__ import annotations

import functools
import hashlib
from collections.abc import Callable
from datetime import timedelta
from http import HTTPStatus
from typing import Any, TypeVar, cast

from django.db import IntegrityError, transaction
from django.db.models import Q
from django.http import HttpResponse
from django.utils import timezone
from rest_framework.renderers import JSONRenderer
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from games import conf
from games.errors import Conflict, ServiceError
from games.models import IdempotencyKey

HEADER = "Idempotency-Key"
MAX_KEY_LENGTH = 255
ABANDONED_AFTER = timedelta(minutes=2)

Handler = TypeVar("Handler", bound=Callable[..., Any])


class KeyReused(ServiceError):
    status = 422
    code = "idempotency_key_reused"
    message = "This Idempotency-Key was already used for a different request."


class KeyInUse(Conflict):
    code = "idempotency_key_in_use"
    message = "A request with this Idempotency-Key is still being processed; retry shortly."


class KeyInvalid(ServiceError):
    status = 400
    code = "invalid_idempotency_key"
    message = f"The Idempotency-Key header must be 1 to {MAX_KEY_LENGTH} printable characters."


def fingerprint(request: Request) -> str:
    """What makes two requests "the same": method, path with query, and the raw body."""
    digest = hashlib.sha256()
    digest.update(request.method.encode() if request.method else b"")
    digest.update(b"\0" + request.get_full_path().encode() + b"\0")
    # The raw bytes, read before DRF parses them: malformed JSON has a fingerprint too.
    digest.update(request._request.body)
    return digest.hexdigest()


def idempotency_key_begin(*, user: Any, key: str, fingerprint: str) -> IdempotencyKey | None:
    """Claim ``key`` for a new request, or return the finished record to replay.

    Raises ``KeyReused`` or ``KeyInUse`` as described in the module docstring.
    """
    for _attempt in range(2):
        try:
            with transaction.atomic():
                IdempotencyKey.objects.create(user=user, key=key, fingerprint=fingerprint)
            return None
        except IntegrityError:
            pass
        now = timezone.now()
        gone = IdempotencyKey.objects.filter(user=user, key=key).filter(
            Q(state=IdempotencyKey.State.RUNNING, created_at__lt=now - ABANDONED_AFTER)
            | Q(created_at__lt=now - conf.idempotency_keep())
        )
        if not gone.delete()[0]:
            break
    existing = IdempotencyKey.objects.filter(user=user, key=key).first()
    if existing is None:  # the first request failed and let go of the key just now
        raise KeyInUse()
    if existing.fingerprint != fingerprint:
        raise KeyReused()
    if existing.state != IdempotencyKey.State.DONE:
        raise KeyInUse()
    return existing


def idempotency_key_finish(*, user: Any, key: str, status: int, body: str) -> None:
    IdempotencyKey.objects.filter(user=user, key=key).update(
        state=IdempotencyKey.State.DONE, response_status=status, response_body=body
    )


def idempotency_key_release(*, user: Any, key: str) -> None:
    IdempotencyKey.objects.filter(user=user, key=key, state=IdempotencyKey.State.RUNNING).delete()


def _replay(record: IdempotencyKey) -> HttpResponse:
    body = record.response_body
    content = body if isinstance(body, str) else JSONRenderer().render(body)
    response = HttpResponse(
        content, status=record.response_status or 200, content_type="application/json"
    )
    response["Idempotent-Replayed"] = "true"
    return response


def idempotent(handler: Handler) -> Handler:
    """Decorate an API view's write method to honour the ``Idempotency-Key`` header."""

    @functools.wraps(handler)
    def wrapper(view: APIView, request: Request, *args: Any, **kwargs: Any) -> Any:
        key = request.headers.get(HEADER)
        if key is None:
            return handler(view, request, *args, **kwargs)
        # A control character (NUL above all, which PostgreSQL cannot store) is no key.
        if not 0 < len(key) <= MAX_KEY_LENGTH or not key.isprintable():
            raise KeyInvalid()
        user = request.user
        record = idempotency_key_begin(user=user, key=key, fingerprint=fingerprint(request))
        if record is not None:
            return _replay(record)
        try:
            try:
                response = handler(view, request, *args, **kwargs)
            except Exception as exc:
                # The handler's refusal is an answer like any other: store it too.
                response = view.handle_exception(exc)
        except BaseException:
            idempotency_key_release(user=user, key=key)
            raise
        if response.status_code >= HTTPStatus.INTERNAL_SERVER_ERROR:
            idempotency_key_release(user=user, key=key)
            return response
        data = response.data if isinstance(response, Response) else None
        content = JSONRenderer().render(data).decode() if data is not None else ""
        idempotency_key_finish(user=user, key=key, status=response.status_code, body=content)
        if data is not None:
            # Answer with the very bytes a replay will send.
            fresh = HttpResponse(
                content, status=response.status_code, content_type="application/json"
            )
            for name, value in response.items():
                if name.lower() != "content-type":
                    fresh[name] = value
            return fresh
        return response

    return cast(Handler, wrapper)
