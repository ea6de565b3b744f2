"""ASGI entry point: HTTP (Django) and WebSockets (``live``) on one server.

``daphne gamenook.asgi:application`` (docs/deploy.md); ``make run`` serves it
through daphne's ``runserver``. ``/ws/tables/<id>/`` is a table's socket
(docs/api.md, "WebSockets"); every other WebSocket path is refused with a 404.
Under daphne, a request body over ``DATA_UPLOAD_MAX_MEMORY_SIZE`` is refused
with a 413 before it is read (docs/deploy.md, "Security").
"""

import json
import os
from http import HTTPStatus
from typing import Any

from django.core.asgi import get_asgi_application

from gamenook.settings.base import ASGI_FLAG

ASGIApp = Any  # an ASGI application: (scope, receive, send) -> awaitable

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "gamenook.settings.production")


def _load_as_asgi() -> ASGIApp:
    """Django's ASGI application, its settings loaded as an ASGI process's.

    The flag tells the settings this process serves ASGI, so its database
    connections are pooled, none kept per thread (docs/deploy.md, "Connections").
    It is there only while they load: no process started from this one inherits it.
    """
    before = os.environ.get(ASGI_FLAG)
    os.environ[ASGI_FLAG] = "1"
    try:
        # Django is set up before anything imports a model (the consumers do).
        return get_asgi_application()
    finally:
        if before is None:
            del os.environ[ASGI_FLAG]
        else:
            os.environ[ASGI_FLAG] = before


http_application = _load_as_asgi()

from channels.routing import ProtocolTypeRouter, URLRouter  # noqa: E402
from django.conf import settings  # noqa: E402

from games.apis.errors import error_body  # noqa: E402
from live.auth import auth_stack, origin_validator  # noqa: E402
from live.routing import websocket_urlpatterns  # noqa: E402

#: The ASGI extension by which an application answers a WebSocket handshake with HTTP.
DENIAL = "websocket.http.response"
#: The close code of a refused unknown path, where the server cannot answer a status.
NO_SUCH_SOCKET = 4404


def _name_every_status() -> None:
    """Give daphne (Twisted) the reason phrase of every HTTP status Python knows.

    Twisted's table lacks some the API answers (422, for a refused move), and
    would send "422 Unknown Status"; Django under WSGI sends Python's phrases.
    """
    try:
        from twisted.web import http as twisted_http
    except ImportError:  # another ASGI server: it names them itself
        return
    for code in HTTPStatus:
        twisted_http.RESPONSES.setdefault(code.value, code.phrase.encode())


def _too_large(path: bytes) -> bytes:
    """The whole 413 answer: the API's error shape under /api/, a sentence elsewhere."""
    if path.startswith(b"/api/"):
        detail = "The request body is larger than the server accepts."
        body = json.dumps(error_body("request_too_large", detail)).encode()
        kind = b"application/json"
    else:
        body, kind = b"The request body is larger than the server accepts.\n", b"text/plain"
    return (
        b"HTTP/1.1 413 Content Too Large\r\nContent-Type: " + kind + b"\r\n"
        b"Content-Length: " + str(len(body)).encode() + b"\r\nConnection: close\r\n\r\n" + body
    )


def _bound_request_bodies() -> None:
    """Make daphne refuse a body over ``DATA_UPLOAD_MAX_MEMORY_SIZE`` as it arrives.

    Twisted reads a request's whole body (to a temporary file past 100 kB) before
    daphne calls the application, and daphne then queues all of it in memory as
    the request's messages: a 200 MB body was held whole before Django's 413. Here
    a declared ``Content-Length`` over the limit is answered 413 when the headers
    end, and a chunked body when its running total passes the limit; the
    connection is closed at once and nothing reaches the application. (The API's
    own 413 still answers bodies under this bound but over its own limit.) Nor
    does Twisted parse form bodies any more (see ``bounded_request_received``).
    """
    try:
        from daphne.http_protocol import WebRequest  # type: ignore[import-untyped]
    except ImportError:  # another ASGI server: bound bodies at the proxy
        return
    if getattr(WebRequest, "gamenook_bounded", False):
        return
    got_length = WebRequest.gotLength
    handle_content_chunk = WebRequest.handleContentChunk
    request_received = WebRequest.requestReceived

    def limit() -> int | None:
        value = settings.DATA_UPLOAD_MAX_MEMORY_SIZE
        return None if value is None else int(value)

    def refuse(request: Any) -> None:
        request.gamenook_refused = True
        channel = request.channel
        # The headers are read; the path is the channel's until the body is whole.
        channel.transport.write(_too_large(getattr(channel, "_path", b"")))
        channel.loseConnection()

    def bounded_got_length(self: Any, length: int | None) -> None:
        self.gamenook_received = 0
        most = limit()
        if length is not None and most is not None and length > most:
            # No "100 Continue" after the refusal: Twisted sends it once this returns.
            self.requestHeaders.removeHeader(b"Expect")
            refuse(self)
            return
        got_length(self, length)

    def bounded_content_chunk(self: Any, data: bytes) -> None:
        if getattr(self, "gamenook_refused", False):
            return
        self.gamenook_received = getattr(self, "gamenook_received", 0) + len(data)
        most = limit()
        if most is not None and self.gamenook_received > most:
            refuse(self)
            return
        handle_content_chunk(self, data)

    def bounded_request_received(self: Any, command: bytes, path: bytes, version: bytes) -> None:
        # What the client had sent before the connection closed can end the body.
        if getattr(self, "gamenook_refused", False):
            return
        # Twisted would parse a form or multipart body into request.args, which daphne
        # never reads, and answer one it cannot parse with a bare 400 of its own: the
        # body goes to Django as it came, which answers in the API's shape under /api/.
        self._parsePOSTFormSubmission = False
        request_received(self, command, path, version)

    WebRequest.gotLength = bounded_got_length
    WebRequest.handleContentChunk = bounded_content_chunk
    WebRequest.requestReceived = bounded_request_received
    WebRequest.gamenook_bounded = True


def _deny_handshakes_with_a_status() -> None:
    """Let daphne answer a WebSocket handshake with an HTTP status (ASGI's denial extension).

    Daphne answers a handshake the application closes with 403, whatever the
    reason, and does not offer the extension: with it, an unknown path gets 404.
    """
    try:
        from autobahn.websocket.types import ConnectionDeny
        from daphne.server import Server  # type: ignore[import-untyped]
        from daphne.ws_protocol import WebSocketProtocol  # type: ignore[import-untyped]
    except ImportError:  # another ASGI server: it offers the extension or not, itself
        return
    if getattr(WebSocketProtocol, "gamenook_denial", False):
        return
    create_application = Server.create_application
    handle_reply = WebSocketProtocol.handle_reply

    def offering(self: Any, protocol: Any, scope: dict[str, Any]) -> Any:
        if scope.get("type") == "websocket":
            scope = {**scope, "extensions": {**scope.get("extensions", {}), DENIAL: {}}}
        return create_application(self, protocol, scope)

    def denying(self: Any, message: dict[str, Any]) -> None:
        kind = message.get("type")
        if kind == f"{DENIAL}.start" and self.state == self.STATE_CONNECTING:
            self.gamenook_status = int(message["status"])
        elif kind == f"{DENIAL}.body" and hasattr(self, "gamenook_status"):
            if message.get("more_body") or not hasattr(self, "handshake_deferred"):
                return
            status = self.gamenook_status
            try:
                phrase = HTTPStatus(status).phrase
            except ValueError:
                phrase = "Refused"
            # As daphne's own refusal (serverReject), with the application's status.
            denial = ConnectionDeny(code=status, reason=phrase)  # type: ignore[no-untyped-call]
            self.handshake_deferred.errback(denial)
            del self.handshake_deferred
            self.server.protocol_disconnected(self)
        else:
            handle_reply(self, message)

    Server.create_application = offering
    WebSocketProtocol.handle_reply = denying
    WebSocketProtocol.gamenook_denial = True


class KnownSocketsOnly:
    """Refuses the handshake of a WebSocket path no route serves, with a 404.

    Channels' ``URLRouter`` raises ``ValueError`` for such a path, which daphne
    answered with a 500 and a traceback in its log. This answers before the
    origin check, the session and the token (no database work for a wrong path):
    HTTP's 404 where the server offers ASGI's denial extension (daphne does once
    ``_deny_handshakes_with_a_status`` ran), else a close before the handshake
    completes (code ``NO_SUCH_SOCKET``), which a server turns into a refusal.
    """

    def __init__(self, inner: ASGIApp, routes: list[Any]) -> None:
        self.inner = inner
        self.routes = routes

    def serves(self, scope: dict[str, Any]) -> bool:
        """Whether a route matches the scope's path (as ``URLRouter`` matches it)."""
        path = str(scope.get("path", ""))
        root = str(scope.get("root_path", ""))
        if root:
            if not path.startswith(root):
                return False
            path = path[len(root) :]
        path = path.lstrip("/")
        return any(route.pattern.match(path) for route in self.routes)

    async def __call__(self, scope: dict[str, Any], receive: Any, send: Any) -> Any:
        if scope["type"] != "websocket" or self.serves(scope):
            return await self.inner(scope, receive, send)
        message = await receive()
        if message["type"] != "websocket.connect":
            return None
        if DENIAL in scope.get("extensions", {}):
            headers = [(b"content-type", b"text/plain")]
            await send({"type": f"{DENIAL}.start", "status": 404, "headers": headers})
            await send({"type": f"{DENIAL}.body", "body": b"No such socket.\n"})
        else:
            await send({"type": "websocket.close", "code": NO_SUCH_SOCKET})
        return None


_name_every_status()
_bound_request_bodies()
_deny_handshakes_with_a_status()

_sockets = URLRouter(websocket_urlpatterns)

application = ProtocolTypeRouter(
    {
        "http": http_application,
        "websocket": KnownSocketsOnly(origin_validator(auth_stack(_sockets)), _sockets.routes),
    }
)
