"""Who opens a socket, and from which page: the ASGI middleware in front of the consumers,
and whether the credential a socket was opened with still works.

A browser proves who it is with the session cookie (Channels' ``AuthMiddlewareStack``);
an API client with ``Authorization: Token <key>``, read by the API's own
``accounts.authentication.TokenAuthentication`` (the same parsing of the header, the
same sentences, the same lookup by digest, the same ``last_used_at``): the socket takes
exactly what HTTP takes. A header of another scheme (``Bearer``, ``Basic``) is left to
the session, as HTTP leaves it; a ``Token`` header that is wrong refuses the socket, as
the API answers 401 rather than falling back to the session.

A socket keeps its ``Credential`` (the token's id, or the session's key and auth hash)
and stops when it no longer authenticates: ``live.receivers`` tells the user's sockets
when a token is revoked, a session logged out, a password changed or the user
deactivated (``TableConsumer.credentials_changed``), the socket checks it again before
it acts (``still_works``), and the ticker checks every socket's at each heartbeat
(``working``), for a message the layer lost.
"""

from __future__ import annotations

import hashlib
from collections.abc import Collection
from dataclasses import dataclass
from importlib import import_module
from types import SimpleNamespace
from typing import Any, cast
from urllib.parse import ParseResult

from channels.auth import AuthMiddlewareStack
from channels.db import database_sync_to_async
from channels.security.websocket import AllowedHostsOriginValidator, OriginValidator
from django.contrib.auth import HASH_SESSION_KEY, get_user
from django.contrib.auth.models import AnonymousUser, User
from django.contrib.sessions.backends import db as db_sessions
from django.contrib.sessions.backends import signed_cookies
from django.contrib.sessions.backends.base import SessionBase
from django.http import HttpRequest
from django.utils import timezone
from django.utils.crypto import constant_time_compare
from rest_framework import exceptions
from rest_framework.request import Request

from accounts.authentication import TokenAuthentication

from . import conf

ASGIApp = Any  # an ASGI application: (scope, receive, send) -> awaitable


def _authorization(scope: dict[str, Any]) -> bytes | None:
    """The ``Authorization`` header as Django's ASGI request has it: repeated ones joined."""
    values = [bytes(value) for key, value in scope.get("headers", []) if key == b"authorization"]
    return b",".join(values) if values else None


def token_user(header: bytes) -> tuple[User, int] | None:
    """The user an ``Authorization`` header names, and the id of its token; None for
    another scheme (``Bearer``, ``Basic``...), which HTTP leaves to the session too.

    Raises ``AuthenticationFailed`` for a malformed header or a token that is
    not valid, with the API's sentences: it is the API's own check.
    """
    request = cast(Request, SimpleNamespace(headers={"authorization": header}))
    found = TokenAuthentication().authenticate(request)
    if found is None:
        return None
    user, token = found
    return user, token.pk


class TokenAuthMiddleware:
    """Sets ``scope["user"]`` from an API token when the handshake carries one.

    ``scope["auth"]`` says how the user was known (``"token"`` or ``"session"``),
    ``scope["token_id"]`` which token; ``scope["auth_error"]`` holds the refusal
    of a header that was wrong.
    """

    def __init__(self, inner: ASGIApp) -> None:
        self.inner = inner

    async def __call__(self, scope: dict[str, Any], receive: Any, send: Any) -> Any:
        scope = dict(scope, auth="session")
        header = _authorization(scope)
        if header is not None:
            try:
                found = await database_sync_to_async(token_user)(header)
            except exceptions.AuthenticationFailed as exc:
                scope.update(user=AnonymousUser(), auth="token", auth_error=exc)
            else:
                if found is not None:
                    scope.update(user=found[0], auth="token", token_id=found[1])
        return await self.inner(scope, receive, send)


def auth_stack(inner: ASGIApp) -> ASGIApp:
    """The session (cookie) first, then a token, which wins when both are there."""
    return AuthMiddlewareStack(TokenAuthMiddleware(inner))


class BrowserOriginValidator(OriginValidator):
    """Channels' origin check for browsers; a handshake without ``Origin`` passes.

    A browser always sends ``Origin`` with a WebSocket handshake, and is the only
    client that carries someone's cookie by itself: this check stops another
    site's page from opening a socket with it. An API client (curl, a bot, a
    script) sends no ``Origin`` and proves itself with its token; Channels' own
    ``AllowedHostsOriginValidator`` would refuse it.
    """

    def valid_origin(self, parsed_origin: ParseResult | None) -> bool:
        return parsed_origin is None or bool(super().valid_origin(parsed_origin))


def origin_validator(inner: ASGIApp) -> ASGIApp:
    """``BrowserOriginValidator`` over the hosts Channels would allow (``ALLOWED_HOSTS``)."""
    allowed = AllowedHostsOriginValidator(inner).allowed_origins
    return BrowserOriginValidator(inner, allowed)


# --- the credential a socket was opened with ------------------------------------------


class CredentialsEnded(exceptions.AuthenticationFailed):
    """The token or session a socket was opened with no longer authenticates its user."""

    default_detail = (
        "The token or session this socket was opened with stopped working (revoked, logged"
        " out, password changed or account deactivated): sign in and connect again."
    )


def session_tag(session_key: str) -> str:
    """How a message on the channel layer names a session: never its key, which is a
    credential, but a digest of it."""
    return hashlib.sha256(session_key.encode()).hexdigest()


@dataclass(frozen=True)
class Credential:
    """How a socket's user proved who they are: one API token, or one session."""

    user_id: int
    token_id: int | None = None
    session_key: str | None = None
    session_hash: str = ""  # the session's auth hash (Django's HASH_SESSION_KEY) when opened

    @classmethod
    def of(cls, scope: dict[str, Any], user: User) -> Credential:
        """The credential of a handshake whose ``user`` is known (in the database thread:
        the session may be read)."""
        if scope.get("auth") == "token":
            return cls(user.pk, token_id=int(scope["token_id"]))
        session: SessionBase = scope["session"]
        return cls(
            user.pk,
            session_key=session.session_key,
            session_hash=str(session.get(HASH_SESSION_KEY, "")),
        )

    def ended_by(self, event: dict[str, Any]) -> bool:
        """Whether a ``credentials.changed`` message names this very token or session."""
        if self.token_id is not None:
            return self.token_id in event.get("tokens", ())
        tag = event.get("session")
        return (
            tag is not None
            and self.session_key is not None
            and tag == session_tag(self.session_key)
        )


class _SessionSnapshot(dict[str, Any]):
    """A session's data for ``django.contrib.auth.get_user`` to judge, and nothing more.

    What ``get_user`` does to a session besides judging it (flush one that
    fails, give one verified by an old secret a new key) belongs to the next
    request that carries its cookie, not to a socket checking its own.
    """

    def flush(self) -> None:
        pass

    def cycle_key(self) -> None:
        pass


def _session_store() -> type[SessionBase]:
    store: type[SessionBase] = import_module(conf.session_engine()).SessionStore
    return store


def session_user(session_key: str) -> User | None:
    """The user the session ``session_key`` authenticates now, as the next HTTP request
    with its cookie would have it (Django's own ``get_user``); None if it ended."""
    data = _session_store()(session_key).load()
    user = get_user(cast(HttpRequest, SimpleNamespace(session=_SessionSnapshot(data))))
    return user if isinstance(user, User) else None


def still_works(credential: Credential) -> bool:
    """Whether ``credential`` still authenticates its user: the token is there and its
    user active; the session is there, its user active, its auth hash still theirs."""
    if credential.token_id is not None:
        return credential.token_id in _tokens_working([credential.token_id])
    if credential.session_key is None:
        return False
    user = session_user(credential.session_key)
    return user is not None and user.pk == credential.user_id


def working(credentials: Collection[Credential]) -> set[Credential]:
    """Those of ``credentials`` that still work, in at most three queries whatever their
    number (the ticker's check of every socket of a process).

    The tokens as ``still_works`` has them. A session is judged from what the
    socket kept of it (its key, its auth hash) against the session store and
    its user as they are now: the checks of Django's ``get_user`` but the
    session's own data, which stays as it was but for a new key.
    """
    tokens = _tokens_working([c.token_id for c in credentials if c.token_id is not None])
    sessions = [c for c in credentials if c.session_key is not None]
    present: set[str] = set()
    users: dict[int, User] = {}
    if sessions:
        present = _sessions_present({c.session_key for c in sessions if c.session_key})
        users = User.objects.in_bulk({c.user_id for c in sessions})
    found: set[Credential] = set()
    for credential in credentials:
        if credential.token_id is not None:
            works = credential.token_id in tokens
        else:
            works = credential.session_key in present and _hash_verifies(
                users.get(credential.user_id), credential.session_hash
            )
        if works:
            found.add(credential)
    return found


def _tokens_working(token_ids: Collection[int]) -> set[int]:
    """The ids among ``token_ids`` of tokens still there whose user is active: what
    ``TokenAuthentication.authenticate_credentials`` accepts, by id, in one query."""
    if not token_ids:
        return set()
    found = User.objects.filter(is_active=True, api_tokens__pk__in=token_ids).values_list(
        "api_tokens__pk", flat=True
    )
    return set(found)


def _sessions_present(keys: Collection[str]) -> set[str]:
    """The keys among ``keys`` of sessions the store still holds, unexpired."""
    store = _session_store()
    if issubclass(store, db_sessions.SessionStore):  # the database, with or without a cache
        model = store.get_model_class()
        alive = model.objects.filter(session_key__in=keys, expire_date__gt=timezone.now())
        return set(alive.values_list("session_key", flat=True))
    if issubclass(store, signed_cookies.SessionStore):
        return set(keys)  # the cookie is the session: the server holds nothing to end
    return {key for key in keys if store().exists(key)}


def _hash_verifies(user: User | None, session_hash: str) -> bool:
    """``get_user``'s check of a session's auth hash, with the user's active flag
    (``ModelBackend.get_user``) and the fallback secrets."""
    if user is None or not user.is_active or not session_hash:
        return False
    if constant_time_compare(session_hash, user.get_session_auth_hash()):
        return True
    return any(
        constant_time_compare(session_hash, fallback)
        for fallback in user.get_session_auth_fallback_hash()
    )
