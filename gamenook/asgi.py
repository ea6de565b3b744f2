"""ASGI entry point: HTTP (Django) and WebSockets (``live``) on one server.

``daphne gamenook.asgi:application`` (docs/deploy.md); ``make run`` serves it
through daphne's ``runserver``. ``/ws/tables/<id>/`` is a table's socket
(docs/api.md, "WebSockets"); every other WebSocket path is refused.
"""

import os
from http import HTTPStatus

from django.core.asgi import get_asgi_application

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "gamenook.settings.production")

# Django is set up before anything imports a model (the consumers do).
http_application = get_asgi_application()

from channels.routing import ProtocolTypeRouter, URLRouter  # noqa: E402

from live.auth import auth_stack, origin_validator  # noqa: E402
from live.routing import websocket_urlpatterns  # noqa: E402


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


_name_every_status()

application = ProtocolTypeRouter(
    {
        "http": http_application,
        "websocket": origin_validator(auth_stack(URLRouter(websocket_urlpatterns))),
    }
)
