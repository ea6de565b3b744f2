"""The WebSocket routes: one socket per table page (or API client) at ``/ws/tables/<id>/``."""

from typing import Any

from django.urls import path

import games.apis.common  # noqa: F401 (registers the <id:...> converter the API's URLs use)

from .consumers import TableConsumer

# Channels' URLRouter takes Django's path() with an ASGI application as the view.
websocket_urlpatterns: list[Any] = [
    path("ws/tables/<id:table_id>/", TableConsumer.as_asgi(), name="ws-table"),  # type: ignore[arg-type]
]
