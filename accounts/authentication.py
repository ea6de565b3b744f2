"""How a request proves who it is: an API token (hashed) or a session.

Both keep DRF's behaviour (header ``Authorization: Token <key>``, 401 with
``WWW-Authenticate: Token``); what changes is where the token is looked up,
and that a CSRF refusal has its own code.
"""

from __future__ import annotations

from datetime import timedelta

from django.contrib.auth.models import User
from django.utils import timezone
from rest_framework import authentication, exceptions
from rest_framework.request import Request

from .models import ApiToken, token_digest

#: ``last_used_at`` is written at most this often per token: not a write per request.
LAST_USED_RESOLUTION = timedelta(minutes=5)


class TokenAuthentication(authentication.TokenAuthentication):
    """``Authorization: Token <key>``, looked up by the key's SHA-256."""

    def authenticate_credentials(self, key: str) -> tuple[User, ApiToken]:
        try:
            # get(), not first(): the digest is unique, and the model's ordering (by user,
            # then date) would cost an ORDER BY to compile on every request.
            token = ApiToken.objects.select_related("user").get(digest=token_digest(key))
        except ApiToken.DoesNotExist:
            raise exceptions.AuthenticationFailed("Invalid token.") from None
        if not token.user.is_active:
            raise exceptions.AuthenticationFailed("User inactive or deleted.")
        now = timezone.now()
        if token.last_used_at is None or now - token.last_used_at > LAST_USED_RESOLUTION:
            ApiToken.objects.filter(pk=token.pk).update(last_used_at=now)
            token.last_used_at = now
        return token.user, token


class CsrfFailed(exceptions.PermissionDenied):
    default_code = "csrf_failed"


class SessionAuthentication(authentication.SessionAuthentication):
    """DRF's session authentication; a write without the CSRF token is 403 ``csrf_failed``."""

    def enforce_csrf(self, request: Request) -> None:
        try:
            super().enforce_csrf(request)
        except exceptions.PermissionDenied as exc:
            raise CsrfFailed(exc.detail) from None
