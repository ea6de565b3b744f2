"""Listens to ``games.signals.table_changed``: queues bot turns and e-mail after each commit."""

from __future__ import annotations

import logging
from typing import Any

from django.dispatch import receiver

from games.signals import table_changed

from . import services

logger = logging.getLogger(__name__)


@receiver(table_changed, dispatch_uid="notifications.table_followups")
def on_table_changed(
    sender: Any,
    *,
    table_id: int,
    seq: int,
    new_turn: bool,
    finished: bool,
    **kwargs: Any,
) -> None:
    # The change has committed already: a failure here must not fail the request
    # that made it. Whatever is lost is found again by the sweeps.
    try:
        services.table_followups(table_id=table_id, seq=seq, new_turn=new_turn, finished=finished)
    except Exception:
        logger.exception("follow-ups of table %s at seq %s failed", table_id, seq)
