"""Listens to ``games.signals``: queues bot turns, e-mail and real-time timers after each commit.

And to a socket's close at a table, which says the player had the table open (``away``).
"""

from __future__ import annotations

import logging
from datetime import datetime
from typing import Any

from django.db.models.signals import post_delete
from django.dispatch import receiver

from games.signals import seat_held, table_changed

from . import away, jobs

logger = logging.getLogger(__name__)


@receiver(table_changed, dispatch_uid="notifications.table_followups")
def on_table_changed(
    sender: Any,  # noqa: ARG001 (a receiver is called with its sender)
    *,
    table_id: int,
    seq: int,
    turn: int,
    new_turn: bool,
    finished: bool,
    followups_written: bool = False,
    timer_at: datetime | None = None,
    **kwargs: Any,
) -> None:
    if timer_at is not None:
        # A real-time move timer: a worker holds the job and applies it at its instant.
        jobs.dispatch_at(jobs.TIMEOUT, (table_id, turn), timer_at)
    if followups_written:
        return  # the change's own transaction wrote them (a page of timeouts)
    # The change has committed already: only hand the follow-ups to a worker,
    # so the request that made the change neither waits for them nor fails
    # with them. A bot turn the broker loses is found again by sweep_bots.
    try:
        jobs.dispatch(jobs.FOLLOWUPS, (table_id, seq, int(new_turn), int(finished)))
    except Exception:
        logger.exception("follow-ups of table %s at seq %s could not be queued", table_id, seq)


@receiver(seat_held, dispatch_uid="notifications.seat_held")
def on_seat_held(
    sender: Any,  # noqa: ARG001 (a receiver is called with its sender)
    *,
    table_id: int,
    seat: int,
    until: datetime,
    **kwargs: Any,
) -> None:
    """A real-time seat is held: its hold ends at ``until`` (the sweep is the safety net)."""
    jobs.dispatch_at(jobs.HOLD, (table_id, seat), until)


# A socket at a table closed (games.services.presence_close deletes its row): the
# player had the table open until now (ruling 19). By the model's label, as
# notifications reads games' models through its selectors only.
post_delete.connect(
    away.connection_closed, sender="games.Connection", dispatch_uid="notifications.seen_on_close"
)
