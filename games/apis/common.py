"""What the API views share: strict input parsing and the throttles."""

from __future__ import annotations

from typing import Any

from django.contrib.auth.models import User
from rest_framework import exceptions, serializers
from rest_framework.request import Request
from rest_framework.settings import api_settings
from rest_framework.throttling import SimpleRateThrottle
from rest_framework.views import APIView

from games.errors import ServiceError


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


def parse_input(
    serializer_class: type[serializers.Serializer[Any]], data: Any, *, partial: bool = False
) -> dict[str, Any]:
    """Validate ``data`` with ``serializer_class``; refuse any field it does not declare.

    A field a client may not set (a seat, the sequence number, the status...)
    is never silently dropped: the whole request is refused and nothing changes.
    """
    if data is None:
        data = {}
    if not isinstance(data, dict):
        raise InvalidBody()
    serializer = serializer_class(data=data, partial=partial)
    accepted = {name for name, field in serializer.fields.items() if not field.read_only}
    unknown = sorted(str(key) for key in data if key not in accepted)
    if unknown:
        raise UnknownField(
            f"Unknown field: {', '.join(unknown)}.",
            fields={key: ["This field is not accepted here."] for key in unknown},
        )
    serializer.is_valid(raise_exception=True)
    return dict(serializer.validated_data)


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
