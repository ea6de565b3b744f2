"""What the API views share: strict input parsing and the throttles."""

from __future__ import annotations

import threading
from collections.abc import Mapping
from typing import Any, TypeVar

from django.contrib.auth.models import User
from django.urls import register_converter
from rest_framework import exceptions, serializers
from rest_framework.request import Request
from rest_framework.settings import api_settings
from rest_framework.throttling import SimpleRateThrottle
from rest_framework.views import APIView

from games.errors import ServiceError

_S = TypeVar("_S", bound=serializers.Serializer[Any])


def request_user(request: Request) -> User:
    """The signed-in user of a view that requires one (``IsAuthenticated`` has run)."""
    user = request.user
    if not isinstance(user, User):
        raise exceptions.NotAuthenticated()
    return user


class UnknownField(ServiceError):
    status = 400
    code = "unknown_field"
    message = "The request carries a field this endpoint does not accept."


class InvalidBody(ServiceError):
    status = 400
    code = "invalid"
    message = "The request body must be a JSON object."


#: How many unknown fields a refusal names; the rest are counted, not listed.
NAMED_UNKNOWN = 5


def unknown_fields(fields: Mapping[str, Any], data: dict[Any, Any], prefix: str = "") -> list[str]:
    """The keys of ``data`` (and of its nested objects) that ``fields`` do not accept."""
    unknown = []
    for key, value in data.items():
        field = fields.get(key) if isinstance(key, str) else None
        path = f"{prefix}{key}"
        if field is None or field.read_only:
            unknown.append(path)
        elif isinstance(field, serializers.Serializer) and isinstance(value, dict):
            unknown.extend(unknown_fields(field.fields, value, f"{path}."))
    return unknown


def parse_input(
    serializer_class: type[serializers.Serializer[Any]], data: Any, *, partial: bool = False
) -> dict[str, Any]:
    """Validate ``data`` with ``serializer_class``; refuse any field it does not declare.

    A field a client may not set (a seat, the sequence number, the status...)
    is never silently dropped: the whole request is refused and nothing changes.
    A body that is not an object, ``null`` included, is refused too (an
    empty body counts as ``{}``). A refusal names the first few unknown
    fields and counts the rest.
    """
    if not isinstance(data, dict):
        raise InvalidBody()
    serializer = _with_kept_fields(serializer_class(data=data, partial=partial))
    unknown = unknown_fields(serializer.fields, data)
    if unknown:
        named = sorted(unknown)[:NAMED_UNKNOWN]
        more = len(unknown) - len(named)
        listed = ", ".join(_cut(name) for name in named)
        raise UnknownField(
            f"Unknown field: {listed}" + (f" and {more} more." if more else "."),
            fields={_cut(name): ["This field is not accepted here."] for name in named},
        )
    serializer.is_valid(raise_exception=True)
    return dict(serializer.validated_data)


_kept = threading.local()


def _with_kept_fields(serializer: _S) -> _S:
    """``serializer`` with its class's fields built once per thread, not once per request.

    DRF gives every serializer a deep copy of its class's declared fields,
    which re-runs each field's ``__init__``: two thirds of parsing an action's
    four fields (docs/performance.md, "API load"). The input serializers here
    never change their fields per request, so the first instance's fields are
    kept (one set per class and thread) and handed to each new instance, every
    field pointed at it as its parent, which is what a field reads the root's
    ``partial`` and ``context`` through. A field keeps no state of its own
    between two validations.
    """
    kept: dict[type[Any], Any] = _kept.__dict__.setdefault("fields", {})
    fields = kept.get(type(serializer))
    if fields is None:
        kept[type(serializer)] = serializer.fields
        return serializer
    fields.serializer = serializer
    for field in fields.values():
        field.parent = serializer
    serializer.__dict__["fields"] = fields  # the cached_property's own slot
    return serializer


def parse_query(
    serializer_class: type[serializers.Serializer[Any]], params: Mapping[str, str]
) -> dict[str, Any]:
    """Validate query parameters; a parameter given with an empty value is refused.

    DRF reads ``?status=`` as "not given" and applies the default, which
    answers a question the client did not ask.
    """
    serializer = _with_kept_fields(serializer_class(data=params))
    names: list[str] = list(serializer.fields.keys())
    empty = sorted(name for name in names if name in params and not params[name].strip())
    if empty:
        raise serializers.ValidationError(
            {name: ["This parameter may not be empty."] for name in empty}
        )
    serializer.is_valid(raise_exception=True)
    return dict(serializer.validated_data)


def _cut(name: str, limit: int = 40) -> str:
    return name if len(name) <= limit else name[: limit - 1] + "…"


class IdConverter:
    """A path segment naming a row: digits, at most the largest ``bigint`` (else no match).

    Django's ``int`` converter takes any number of digits, and a query with an
    id past 64 bits fails in the database driver (a 500) instead of finding nothing.
    """

    regex = "[0-9]{1,19}"
    MAX = 2**63 - 1

    def to_python(self, value: str) -> int:
        number = int(value)
        if number > self.MAX:
            raise ValueError("larger than any row id")
        return number

    def to_url(self, value: int) -> str:
        return str(value)


# <id:...> in URL patterns: a row id the database can hold; a larger number is no URL
# of ours (404). Registered here, where every API module's import passes first.
register_converter(IdConverter, "id")


class _ScopedThrottle(SimpleRateThrottle):
    """Counts per user (per address before login) in one scope.

    The rate is read from the settings at each request, not at import, so a
    deployment's (or a test's) ``DEFAULT_THROTTLE_RATES`` always applies.
    """

    def get_rate(self) -> str | None:
        rates: dict[str, Any] = api_settings.DEFAULT_THROTTLE_RATES
        return rates.get(self.scope or "")

    def get_cache_key(self, request: Request, view: APIView) -> str | None:  # noqa: ARG002
        if request.user and request.user.is_authenticated:
            ident = f"user-{request.user.pk}"
        else:
            ident = f"addr-{self.get_ident(request)}"
        return self.cache_format % {"scope": self.scope, "ident": ident}


class ActionThrottle(_ScopedThrottle):
    """Every write at a table: lobby changes and game actions."""

    scope = "actions"


class AccountThrottle(_ScopedThrottle):
    """Registering, obtaining a token and /me."""

    scope = "accounts"
