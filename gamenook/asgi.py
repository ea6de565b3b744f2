"""ASGI entry point: HTTP (Django) and WebSockets (``live``) on one server.

``daphne gamenook.asgi:application`` (docs/deploy.md); ``make run`` serves it
through daphne's ``runserver``. ``/ws/tables/<id>/`` is a table's socket
(docs/api.md, "WebSockets"); every other WebSocket path is refused.
"""

import os

from django.core.asgi import get_asgi_application

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "gamenook.settings.production")

# Django is set up before anything imports a model (the consumers do).
http_application = get_asgi_application()

from channels.routing import ProtocolTypeRouter, URLRouter  # noqa: E402

from live.auth import auth_stack, origin_validator  # noqa: E402
from live.routing import websocket_urlpatterns  # noqa: E402

application = ProtocolTypeRouter(
    {
        "http": http_application,
        "websocket": origin_validator(auth_stack(URLRouter(websocket_urlpatterns))),
    }
)
