"""Listens to ``games.signals.table_changed``: queues bot turns and e-mail after each commit."""

from __future__ import annotations

import logging
from typing import Any

from django.dispatch import receiver

from games.signals import table_changed

from . import jobs

logger = logging.getLogger(__name__)


@receiver(table_changed, dispatch_uid="notifications.table_followups")
def on_table_changed(
    sender: Any,  # noqa: ARG001 (a receiver is called with its sender)
    *,
    table_id: int,
    seq: int,
    new_turn: bool,
    finished: bool,
    followups_written: bool = False,
    **kwargs: Any,
) -> None:
    if followups_written:
        return  # the change's own transaction wrote them (a page of timeouts)
    # The change has committed already: only hand the follow-ups to a worker,
    # so the request that made the change neither waits for them nor fails
    # with them. A bot turn the broker loses is found again by sweep_bots.
    try:
        jobs.dispatch(jobs.FOLLOWUPS, (table_id, seq, int(new_turn), int(finished)))
    except Exception:
        logger.exception("follow-ups of table %s at seq %s could not be queued", table_id, seq)
