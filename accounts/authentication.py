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


#: Issue 40: the URL names a ``play`` token (every token of a bot account) may reach.
#: Anything else is refused with 403 ``token_scope``: an endpoint added later is closed to
#: bots until it is named here (tests/accounts/test_bots.py walks every URL to check).
PLAY_ALLOWED: frozenset[str] = frozenset(
    {
        # The tables: list and open, one table, sit down, leave, start, the seat's view,
        # actions, conceding, the log and the record (games.urls).
        "tables",
        "table",
        "table-join",
        "table-leave",
        "table-start",
        "table-view",
        "table-actions",
        "table-concede",
        "table-log",
        "table-record",
        # Invitations: a table's (the host invites), one's own, declining or withdrawing one.
        "invitations",
        "invitation-decline",
        "invitation-withdraw",
        "table-invitations",
        # The event stream and a table's stream (NDJSON).
        "stream-events",
        "table-stream",
        # The account itself, to read only (PLAY_READ_ONLY), and the bot's own webhook.
        "me",
        "me-webhook",
        "me-webhook-rotate",
        # Public reads: players, head to head, leaderboards, a game's rating changes.
        "player",
        "player-history",
        "player-versus",
        "leaderboard",
        "table-ratings",
        # The OpenAPI schema.
        "schema",
    }
)
#: Of those, the ones a ``play`` token may only read (GET, HEAD, OPTIONS).
PLAY_READ_ONLY: frozenset[str] = frozenset({"me"})
_READS = frozenset({"GET", "HEAD", "OPTIONS"})


class TokenScope(exceptions.PermissionDenied):
    default_code = "token_scope"
    default_detail = (
        "This token may only play: the tables, invitations, the event streams, its own "
        "webhook and public reads. Use an account token or the web site for the rest."
    )


def scope_allows(scope: str, url_name: str | None, method: str) -> bool:
    """True when a token of ``scope`` may call ``method`` on the URL named ``url_name``.

    An ``account`` token may call anything; a ``play`` token only the names
    of ``PLAY_ALLOWED`` (reads only for ``PLAY_READ_ONLY``). A URL with no
    name is refused to a ``play`` token.
    """
    if scope != ApiToken.Scope.PLAY:
        return True
    if url_name is None or url_name not in PLAY_ALLOWED:
        return False
    return url_name not in PLAY_READ_ONLY or method.upper() in _READS


def _url_name(request: Request) -> str | None:
    """The name of the URL ``request`` resolved to (without its namespace), if any."""
    match = getattr(request._request, "resolver_match", None)
    return None if match is None else match.url_name


class TokenAuthentication(authentication.TokenAuthentication):
    """``Authorization: Token <key>``, looked up by the key's SHA-256.

    A ``play`` token is refused (403 ``token_scope``) on every URL but
    ``PLAY_ALLOWED``'s. The check needs the URL a request resolved to, so it
    runs on DRF's requests only: the WebSocket handshake (``live.auth``) calls
    this class with no URL, for the table sockets, which a ``play`` token may open.
    """

    def authenticate(self, request: Request) -> tuple[User, ApiToken] | None:
        found: tuple[User, ApiToken] | None = super().authenticate(request)
        if found is not None and isinstance(request, Request):
            token = found[1]
            if not scope_allows(token.scope, _url_name(request), request.method or ""):
                raise TokenScope()
        return found

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
