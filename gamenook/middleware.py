"""Headers every answer carries: a Content-Security-Policy, a Permissions-Policy, and
``Cache-Control: private`` on what belongs to one user (docs/deploy.md, "Security").

The pages load scripts, styles and images from the site itself only, and run no
inline script, style or event handler (the templates keep none): an injected
``<script>`` or ``style=""`` does nothing, and no other site may frame a page.
The table pages' socket is the site's own host over ``ws:`` or ``wss:``.
"""

from __future__ import annotations

import base64
import functools
import hashlib
import re
from collections.abc import Awaitable, Callable
from typing import Any

from asgiref.sync import iscoroutinefunction, markcoroutinefunction
from django.conf import settings
from django.core.exceptions import DisallowedHost
from django.http import HttpRequest, HttpResponseBase
from django.template.loader import get_template
from django.utils.cache import patch_cache_control

#: The policy, but for ``connect-src``, which names the request's own host (below).
POLICY = (
    "default-src 'self'",
    "script-src 'self'",
    "style-src 'self'",
    "img-src 'self' data:",
    "font-src 'self'",
    "object-src 'none'",
    "base-uri 'self'",
    "form-action 'self'",
    "frame-ancestors 'none'",
)

#: Browser features no page uses, refused to the pages and anything they would embed.
PERMISSIONS_POLICY = ", ".join(
    f"{feature}=()"
    for feature in (
        "accelerometer",
        "autoplay",
        "camera",
        "display-capture",
        "encrypted-media",
        "geolocation",
        "gyroscope",
        "magnetometer",
        "microphone",
        "midi",
        "payment",
        "picture-in-picture",
        "publickey-credentials-get",
        "screen-wake-lock",
        "usb",
        "xr-spatial-tracking",
    )
)

#: Paths whose answers hold an account's own data or a credential (a token, a reset
#: link's form): never stored by a browser or any cache, even without a session.
ACCOUNT_PATHS = (
    "/api/v1/me",
    "/api/v1/auth/",
    "/account/",
    "/accounts/",
    "/login/",
    "/signup/",
    "/password-reset/",
)


def content_security_policy(request: HttpRequest, styles: tuple[str, ...] = ()) -> str:
    """The policy for ``request``: ``connect-src`` is the site and its WebSockets.

    ``styles`` are hashes (``'sha256-...'``) of inline ``<style>`` blocks to allow
    besides: a page of a package's whose template has one (the API's docs).
    """
    try:
        host = request.get_host()
    except DisallowedHost:  # the answer is Django's 400: nothing to connect to
        sockets = ""
    else:
        sockets = f" {'wss' if request.is_secure() else 'ws'}://{host}"
    style = " ".join(("style-src 'self'", *styles))
    policy = [style if rule.startswith("style-src ") else rule for rule in POLICY]
    return "; ".join((*policy, f"connect-src 'self'{sockets}"))


@functools.cache
def template_styles(name: str) -> tuple[str, ...]:
    """CSP hashes of the ``<style>`` blocks template ``name`` writes as they stand.

    Only blocks without template tags in them: what the browser receives is what
    is hashed here.
    """
    source = get_template(name).template.source  # type: ignore[attr-defined]
    blocks = re.findall(r"<style[^>]*>(.*?)</style>", source, flags=re.DOTALL)
    return tuple(
        "'sha256-" + base64.b64encode(hashlib.sha256(block.encode()).digest()).decode() + "'"
        for block in blocks
        if "{{" not in block and "{%" not in block
    )


def _authenticated(request: HttpRequest) -> bool:
    """Whether the request carries credentials: a token, or a session cookie.

    Not ``request.user``: it is lazy, and reading it here, on the event loop of an
    ASGI server, would query the session (Django refuses that: a 500 for any URL no
    view of which had read the user, as schemathesis found). A cookie that names no
    session makes an answer private that need not be: harmless.
    """
    return "HTTP_AUTHORIZATION" in request.META or settings.SESSION_COOKIE_NAME in request.COOKIES


def secure_headers(request: HttpRequest, response: HttpResponseBase) -> None:
    """Add this module's headers to ``response``, leaving any a view set itself."""
    # Django's technical pages (DEBUG only) style and script themselves inline.
    if not (settings.DEBUG and response.status_code >= 400):  # noqa: PLR2004
        response.headers.setdefault("Content-Security-Policy", content_security_policy(request))
    response.headers.setdefault("Permissions-Policy", PERMISSIONS_POLICY)
    if request.path.startswith(ACCOUNT_PATHS):
        patch_cache_control(response, private=True, no_store=True)
    elif _authenticated(request) and "Cache-Control" not in response.headers:
        # Someone's own view or page: a browser may keep it and ask again (the table
        # views answer 304 to their ETag), a shared cache never.
        response.headers["Cache-Control"] = "private, no-cache"


class SecurityHeadersMiddleware:
    """``secure_headers`` on every answer; sync or async as the stack around it is."""

    sync_capable = True
    async_capable = True

    def __init__(self, get_response: Callable[[HttpRequest], Any]) -> None:
        self.get_response = get_response
        self.is_async = iscoroutinefunction(get_response)
        if self.is_async:
            markcoroutinefunction(self)

    def __call__(self, request: HttpRequest) -> Any:
        if self.is_async:
            return self._acall(request)
        response = self.get_response(request)
        secure_headers(request, response)
        return response

    async def _acall(self, request: HttpRequest) -> HttpResponseBase:
        answer: Awaitable[HttpResponseBase] = self.get_response(request)
        response = await answer
        secure_headers(request, response)
        return response
