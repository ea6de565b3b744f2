"""Listens to ``games.signals.table_changed``: tells the table's sockets, never what changed.

The message names the table's seq only. Each socket rebuilds its own view
(``live.consumers.TableConsumer.table_changed``): a view never travels through
the channel layer, so one seat's view cannot reach another's socket.
"""

from __future__ import annotations

import logging
from typing import Any

from asgiref.sync import async_to_sync
from channels.layers import get_channel_layer
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
    **kwargs: Any,
) -> None:
    # Sent on commit: the change is there for whoever reads the table now. A failure
    # here must not fail the request or the job that made it; the sockets' recheck
    # (live.ticker) finds the change later.
    layer = get_channel_layer()
    if layer is None:
        return
    try:
        async_to_sync(layer.group_send)(group_name(table_id), {"type": "table.changed", "seq": seq})
    except Exception:
        logger.exception("the push of table %s at seq %s failed", table_id, seq)
