"""Celery tasks and ``JOBS``, the one registry of jobs: name -> what the job runs.

Each task takes ids and calls one service function. The jobs that change a
table or send mail are written to be harmless when run twice, so they are
acknowledged only once done (``acks_late``) and given back to the broker if
the worker dies mid-task (``reject_on_worker_lost``). The sweeps are not: a
lost sweep is replaced by the next tick of beat. Services queue jobs by name
(``notifications.jobs``), never by importing this module, so there is no
import cycle between the two.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from celery import Task, shared_task

from . import jobs
from .away import turn_notices_decide
from .digest import digests_send
from .followups import rate_game as _rate_game
from .followups import table_followups as _followups
from .outbox import outbox_send
from .push import push_send
from .sweep import sweep as _sweep
from .sweep import sweep_bots as _sweep_bots
from .sweep import sweep_realtime as _sweep_realtime
from .turns import (
    bot_turn_run,
    bot_turns_run,
    seat_hold_end,
    table_apply_timeout,
    table_last_call,
    table_remind,
    tables_apply_timeouts,
)
from .webhooks import webhook_send

_REDELIVER: dict[str, Any] = {"acks_late": True, "reject_on_worker_lost": True}


@shared_task(name="notifications.tasks.sweep", ignore_result=True)
def sweep() -> dict[str, int]:
    """Hand out every overdue deadline, reminder and unsent e-mail."""
    return vars(_sweep())


@shared_task(name="notifications.tasks.sweep_bots", ignore_result=True)
def sweep_bots() -> dict[str, int]:
    """Hand out every bot turn left waiting."""
    return vars(_sweep_bots())


@shared_task(name="notifications.tasks.sweep_realtime", ignore_result=True)
def sweep_realtime() -> dict[str, int]:
    """Real-time tables: move timers and holds whose job was lost, dead connections."""
    return vars(_sweep_realtime())


@shared_task(name=jobs.HOLD, **_REDELIVER)
def end_hold(table_id: int, seat: int) -> bool:
    return seat_hold_end(table_id=table_id, number=seat)


@shared_task(name=jobs.TIMEOUT, **_REDELIVER)
def apply_timeout(table_id: int, turn: int) -> bool:
    return table_apply_timeout(table_id=table_id, turn=turn)


@shared_task(name=jobs.TIMEOUTS, **_REDELIVER)
def apply_timeouts(*due: int) -> int:
    """A page of timeouts: (table id, turn, table id, turn, ...), in one transaction."""
    return tables_apply_timeouts(due=jobs.pairs(due))


@shared_task(name=jobs.REMIND, **_REDELIVER)
def send_reminder(table_id: int, turn: int) -> bool:
    return table_remind(table_id=table_id, turn=turn)


@shared_task(name=jobs.FOLLOWUPS, **_REDELIVER)
def table_followups(table_id: int, seq: int, new_turn: int, finished: int) -> None:
    _followups(table_id=table_id, seq=seq, new_turn=bool(new_turn), finished=bool(finished))


@shared_task(name=jobs.YOUR_TURNS, **_REDELIVER)
def send_your_turns(*user_ids: int) -> int:
    """Decide the "your turn" notices of these users, each its own transaction."""
    return turn_notices_decide(user_ids=user_ids)


@shared_task(name=jobs.LAST_CALL, **_REDELIVER)
def send_last_call(table_id: int, turn: int) -> bool:
    return table_last_call(table_id=table_id, turn=turn)


@shared_task(name=jobs.DIGESTS, **_REDELIVER)
def send_digests(*user_ids: int) -> int:
    """Decide the daily digests of these users, each its own transaction."""
    return digests_send(user_ids=user_ids)


@shared_task(name=jobs.BOT_TURN, **_REDELIVER)
def run_bot_turn(table_id: int, seq: int) -> bool:
    return bot_turn_run(table_id=table_id, seq=seq)


@shared_task(name=jobs.BOT_TURNS, **_REDELIVER)
def run_bot_turns(*due: int) -> int:
    """Bot turns (table id, seq, table id, seq, ...), one after another."""
    return bot_turns_run(due=jobs.pairs(due))


@shared_task(
    bind=True,
    name=jobs.SEND,
    # The service counts attempts and gives up after GAMENOOK_EMAIL_MAX_ATTEMPTS;
    # Celery's own limit would stop the retries before that.
    max_retries=None,
    **_REDELIVER,
)
def send_outbox_message(self: Task[..., bool], message_id: int) -> bool:
    """Send one outbox message; on an SMTP failure retry after an exponential backoff."""
    outcome = outbox_send(message_id=message_id)
    if outcome.retry_in is not None:
        raise self.retry(countdown=outcome.retry_in)
    return outcome.sent


@shared_task(name=jobs.SEND_MANY, **_REDELIVER)
def send_outbox_messages(*message_ids: int) -> int:
    """Send several outbox messages, one after another; a failed one retries on its own.

    A message the SMTP server refused is given its own sending job after the
    backoff, exactly as ``send_outbox_message`` retries it.
    """
    sent = 0
    for message_id in message_ids:
        outcome = outbox_send(message_id=message_id)
        sent += outcome.sent
        if outcome.retry_in is not None:
            send_outbox_message.apply_async((message_id,), countdown=outcome.retry_in)
    return sent


@shared_task(
    bind=True,
    name=jobs.PUSH,
    # The service counts attempts and gives up after GAMENOOK_PUSH_MAX_ATTEMPTS.
    max_retries=None,
    **_REDELIVER,
)
def send_push_message(self: Task[..., bool], message_id: int) -> bool:
    """Send one web push; on a failure (not a device gone) retry after an exponential backoff."""
    outcome = push_send(message_id=message_id)
    if outcome.retry_in is not None:
        raise self.retry(countdown=outcome.retry_in)
    return outcome.sent


@shared_task(
    bind=True,
    name=jobs.WEBHOOK,
    # The service decides when to give up: after a day of failures it disables the endpoint.
    max_retries=None,
    **_REDELIVER,
)
def send_webhook(self: Task[..., bool], delivery_id: int) -> bool:
    """Post one webhook delivery; a failure soon retried here, a later retry left to the sweep."""
    outcome = webhook_send(delivery_id=delivery_id)
    if outcome.retry_in is not None:
        raise self.retry(countdown=outcome.retry_in)
    return outcome.sent


@shared_task(name=jobs.RATE, **_REDELIVER)
def rate_game(table_id: int) -> None:
    """Rate a finished game left unrated (the sweep's safety net, issue 39)."""
    _rate_game(table_id)


def _push_once(message_id: int) -> bool:
    # As _send_once: the sweep re-queues a push that failed here.
    return push_send(message_id=message_id).sent


def _webhook_once(delivery_id: int) -> bool:
    # As _send_once: the sweep re-queues a delivery that failed here.
    return webhook_send(delivery_id=delivery_id).sent


def _send_once(message_id: int) -> bool:
    # Here and now there is nobody to retry later: the sweep re-queues the message.
    return outbox_send(message_id=message_id).sent


def _send_many_once(*message_ids: int) -> int:
    return sum(_send_once(message_id) for message_id in message_ids)


#: Every job by name (the name of its task), and what running it here and now does.
JOBS: dict[str, Callable[..., object]] = {
    jobs.TIMEOUT: apply_timeout.run,
    jobs.TIMEOUTS: apply_timeouts.run,
    jobs.REMIND: send_reminder.run,
    jobs.FOLLOWUPS: table_followups.run,
    jobs.YOUR_TURNS: send_your_turns.run,
    jobs.LAST_CALL: send_last_call.run,
    jobs.DIGESTS: send_digests.run,
    jobs.BOT_TURN: run_bot_turn.run,
    jobs.BOT_TURNS: run_bot_turns.run,
    jobs.HOLD: end_hold.run,
    jobs.SEND: _send_once,
    jobs.SEND_MANY: _send_many_once,
    jobs.PUSH: _push_once,
    jobs.WEBHOOK: _webhook_once,
    jobs.RATE: rate_game.run,
}


def run_inline(name: str, args: tuple[int, ...]) -> None:
    """Run job ``name`` here and now (tests, the benchmark, a sweep without a worker)."""
    JOBS[name](*args)
