"""Celery tasks: each takes ids and calls one function of ``notifications.services``.

The jobs that change a table or send mail are written to be harmless when
run twice, so they are acknowledged only once done (``acks_late``) and given
back to the broker if the worker dies mid-task (``reject_on_worker_lost``).
The sweeps are not: a lost sweep is replaced by the next tick of beat.
"""

from __future__ import annotations

import logging
from typing import Any

from celery import Task, shared_task

from . import services

logger = logging.getLogger(__name__)

_REDELIVER = {"acks_late": True, "reject_on_worker_lost": True}


@shared_task(name="notifications.tasks.sweep", ignore_result=True)
def sweep() -> dict[str, int]:
    """Hand out every overdue deadline, reminder and unsent e-mail."""
    return vars(services.sweep())


@shared_task(name="notifications.tasks.sweep_bots", ignore_result=True)
def sweep_bots() -> dict[str, int]:
    """Hand out every bot turn left waiting."""
    return vars(services.sweep_bots())


@shared_task(name="notifications.tasks.apply_timeout", **_REDELIVER)
def apply_timeout(table_id: int, turn: int) -> bool:
    return services.table_apply_timeout(table_id=table_id, turn=turn)


@shared_task(name="notifications.tasks.send_reminder", **_REDELIVER)
def send_reminder(table_id: int, turn: int) -> bool:
    return services.table_remind(table_id=table_id, turn=turn)


@shared_task(name="notifications.tasks.table_followups", **_REDELIVER)
def table_followups(table_id: int, seq: int, new_turn: int, finished: int) -> None:
    services.table_followups(
        table_id=table_id, seq=seq, new_turn=bool(new_turn), finished=bool(finished)
    )


@shared_task(name="notifications.tasks.run_bot_turn", **_REDELIVER)
def run_bot_turn(table_id: int, seq: int) -> bool:
    return services.bot_turn_run(table_id=table_id, seq=seq)


@shared_task(
    bind=True,
    name="notifications.tasks.send_outbox_message",
    # The service counts attempts and gives up after GAMENOOK_EMAIL_MAX_ATTEMPTS;
    # Celery's own limit would stop the retries before that.
    max_retries=None,
    **_REDELIVER,
)
def send_outbox_message(self: Task, message_id: int) -> bool:
    """Send one outbox message; on an SMTP failure retry after an exponential backoff."""
    outcome = services.outbox_send(message_id=message_id)
    if outcome.retry_in is not None:
        raise self.retry(countdown=outcome.retry_in)
    return outcome.sent


TASKS: dict[str, Any] = {
    services.TIMEOUT: apply_timeout,
    services.REMIND: send_reminder,
    services.BOT_TURN: run_bot_turn,
    services.SEND: send_outbox_message,
    services.FOLLOWUPS: table_followups,
}


def publish(name: str, args: tuple[int, ...]) -> None:
    """Queue job ``name``; a broker that cannot take it is logged, not raised.

    Whatever is not queued is found again by the sweep.
    """
    try:
        TASKS[name].apply_async(args=args)
    except Exception:
        logger.exception("could not queue %s%r; the sweep will hand it out", name, args)
