"""The ASGI application of the real-time browser test: gamenook's own, with static files.

``gamenook.asgi.application`` (HTTP and the ``live`` WebSockets) as daphne
serves it in production, except that the HTTP side also serves the static
files (``ASGIStaticFilesHandler``, as pytest-django's ``live_server`` does for
WSGI), so the page gets its scripts without ``collectstatic``.
"""

from channels.routing import ProtocolTypeRouter
from django.contrib.staticfiles.handlers import ASGIStaticFilesHandler

from gamenook.asgi import application as site

application = ProtocolTypeRouter(
    {
        "http": ASGIStaticFilesHandler(site.application_mapping["http"]),
        "websocket": site.application_mapping["websocket"],
    }
)
