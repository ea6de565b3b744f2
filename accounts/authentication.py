"""How a request proves who it is: an API token (hashed) or a session.

Both keep DRF's behaviour (header ``Authorization: Token <key>``, 401 with
``WWW-Authenticate: Token``); what changes is where the token is looked up,
and that a CSRF refusal has its own code.
"""

from __future__ import annotations

from datetime import timedelta

from django.contrib.auth.models import User
from django.db import connection
from django.utils import timezone
from rest_framework import authentication, exceptions
from rest_framework.request import Request

from games import rows

from .models import ApiToken, token_digest

#: ``last_used_at`` is written at most this often per token: not a write per request.
LAST_USED_RESOLUTION = timedelta(minutes=5)


_TOKEN, _USER = rows.Columns(ApiToken), rows.Columns(User)
_TOKEN_SQL: dict[str, str] = {}


def _token_with_user(digest: str) -> ApiToken | None:
    """``ApiToken.objects.select_related("user").get(digest=digest)``, None if there is none.

    Every request with a token makes this lookup: the statement is written once
    per process (``games.rows``), not compiled by the ORM each time.
    """
    vendor = connection.vendor
    sql = _TOKEN_SQL.get(vendor)
    if sql is None:
        token, user = rows.quote(_TOKEN.table), rows.quote(_USER.table)
        column = rows.column_of
        user_id = f"{token}.{column(ApiToken._meta.get_field('user'))}"
        digest_column = f"{token}.{column(ApiToken._meta.get_field('digest'))}"
        sql = _TOKEN_SQL[vendor] = (
            f"SELECT {_TOKEN.sql()}, {_USER.sql()} FROM {token}"  # noqa: S608 (names only)
            f" INNER JOIN {user} ON ({user_id} = {user}.{column(User._meta.pk)})"
            f" WHERE {digest_column} = %s"
        )
    found = rows.fetch(sql, [digest])
    if not found:
        return None  # the digest is unique: one row at most
    row = found[0]
    token_row: ApiToken = _TOKEN.load(row)
    rows.cache_related(token_row, "user", _USER.load(row, _TOKEN.width))
    return token_row


class TokenAuthentication(authentication.TokenAuthentication):
    """``Authorization: Token <key>``, looked up by the key's SHA-256."""

    def authenticate_credentials(self, key: str) -> tuple[User, ApiToken]:
        token = _token_with_user(token_digest(key))
        if token is None:
            raise exceptions.AuthenticationFailed("Invalid token.")
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
