"""Who opens a socket, and from which page: the ASGI middleware in front of the consumers.

A browser proves who it is with the session cookie (Channels' ``AuthMiddlewareStack``);
an API client with ``Authorization: Token <key>`` (or ``Bearer <key>``), checked by the
API's own ``accounts.authentication.TokenAuthentication`` (the same lookup by digest,
the same ``last_used_at``). A header that is there but wrong refuses the socket, as the
API answers 401 rather than falling back to the session.
"""

from __future__ import annotations

from typing import Any
from urllib.parse import ParseResult

from channels.auth import AuthMiddlewareStack
from channels.db import database_sync_to_async
from channels.security.websocket import AllowedHostsOriginValidator, OriginValidator
from django.contrib.auth.models import AnonymousUser, User
from rest_framework import exceptions

from accounts.authentication import TokenAuthentication

#: The schemes of ``Authorization`` read here; any other is left to the session.
KEYWORDS = ("token", "bearer")

ASGIApp = Any  # an ASGI application: (scope, receive, send) -> awaitable


def _header(scope: dict[str, Any], name: bytes) -> str | None:
    for key, value in scope.get("headers", []):
        if key == name:
            return bytes(value).decode("latin1")
    return None


def token_user(header: str) -> User | None:
    """The user an ``Authorization`` header names; None for another scheme (Basic...).

    Raises ``AuthenticationFailed`` for a malformed header or a token that is
    not valid, with the API's sentences.
    """
    parts = header.split()
    if not parts or parts[0].lower() not in KEYWORDS:
        return None
    if len(parts) != 2:  # noqa: PLR2004 (a scheme and a key)
        raise exceptions.AuthenticationFailed("Invalid token header.")
    user, _token = TokenAuthentication().authenticate_credentials(parts[1])
    return user


class TokenAuthMiddleware:
    """Sets ``scope["user"]`` from an API token when the handshake carries one.

    ``scope["auth"]`` says how the user was known (``"token"`` or ``"session"``);
    ``scope["auth_error"]`` holds the refusal of a header that was wrong.
    """

    def __init__(self, inner: ASGIApp) -> None:
        self.inner = inner

    async def __call__(self, scope: dict[str, Any], receive: Any, send: Any) -> Any:
        scope = dict(scope, auth="session")
        header = _header(scope, b"authorization")
        if header is not None:
            try:
                user = await database_sync_to_async(token_user)(header)
            except exceptions.AuthenticationFailed as exc:
                scope.update(user=AnonymousUser(), auth="token", auth_error=exc)
            else:
                if user is not None:
                    scope.update(user=user, auth="token")
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
