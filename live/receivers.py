"""Listens to ``games.signals.table_changed``: tells the table's sockets, never what changed.

The message names the table's seq only. The sockets that receive it build
their views in their own process (``live.consumers.TableConsumer.table_changed``,
``live.fanout``): a view never travels through the channel layer, so one seat's
view cannot reach another's socket.
"""

from __future__ import annotations

import asyncio
import logging
import os
import threading
from collections.abc import Coroutine
from typing import Any

from asgiref.sync import async_to_sync
from channels.layers import InMemoryChannelLayer, get_channel_layer
from django.dispatch import receiver

from games.signals import table_changed

logger = logging.getLogger(__name__)


def group_name(table_id: int) -> str:
    """The channel-layer group of the sockets open at ``table_id``."""
    return f"table.{table_id}"


@receiver(table_changed, dispatch_uid="live.push")
def on_table_changed(
    sender: Any,  # noqa: ARG001 (a receiver is called with its sender)
    *,
    table_id: int,
    seq: int,
    watched: bool = True,
    **kwargs: Any,
) -> None:
    if not watched:
        return  # no socket was open on the table when it changed (games.signals)
    # Sent on commit: the change is there for whoever reads the table now. A failure
    # here must not fail the request or the job that made it; the sockets' recheck
    # (live.ticker) finds the change later.
    layer = get_channel_layer()
    if layer is None:
        return
    message = {"type": "table.changed", "seq": seq}
    try:
        if isinstance(layer, InMemoryChannelLayer):
            # Its consumers live on this process's event loop (make run's daphne).
            async_to_sync(layer.group_send)(group_name(table_id), message)
        else:
            publisher.send(layer.group_send(group_name(table_id), message))
    except Exception:
        logger.exception("the push of table %s at seq %s failed", table_id, seq)


class Publisher:
    """One event loop per process, in a thread of its own, for publishing from sync code.

    ``async_to_sync`` called from a web request or a Celery job (no event loop
    there) makes a new loop per call, and Redis's layer a new connection for it:
    that cost a move about 10 ms (docs/performance.md). This loop lives as long
    as the process (a forked child makes its own), and so does its connection.
    """

    TIMEOUT = 5.0

    def __init__(self) -> None:
        self.loop: asyncio.AbstractEventLoop | None = None
        self.pid = 0
        self.lock = threading.Lock()

    def _running_loop(self) -> asyncio.AbstractEventLoop:
        with self.lock:
            if self.loop is None or self.pid != os.getpid():
                loop = asyncio.new_event_loop()
                thread = threading.Thread(target=loop.run_forever, name="live-publish", daemon=True)
                thread.start()
                self.loop, self.pid = loop, os.getpid()
            return self.loop

    def send(self, coroutine: Coroutine[Any, Any, None]) -> None:
        """Run ``coroutine`` on the publishing loop and wait for it (at most ``TIMEOUT``)."""
        asyncio.run_coroutine_threadsafe(coroutine, self._running_loop()).result(self.TIMEOUT)


publisher = Publisher()
