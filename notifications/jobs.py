"""Jobs: what a worker is asked to do, by name, with ids for arguments.

A job's name is the name of its Celery task (``notifications.tasks``
registers one task per job, ``JOBS`` there is the one registry). Queueing
goes by name through the Celery app, so nothing here imports the tasks and
the services that queue jobs form no import cycle with the tasks that run
them.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Iterable, Sequence
from datetime import datetime

from celery import current_app
from django.db import transaction

from .queue import pusher

logger = logging.getLogger(__name__)

#: A job handed to a worker: its name and its arguments (ids only).
Dispatch = Callable[[str, tuple[int, ...]], None]

TIMEOUT = "notifications.tasks.apply_timeout"
REMIND = "notifications.tasks.send_reminder"
BOT_TURN = "notifications.tasks.run_bot_turn"
SEND = "notifications.tasks.send_outbox_message"
#: (table id, seat number): a real-time seat's two-minute hold is over.
HOLD = "notifications.tasks.end_hold"
FOLLOWUPS = "notifications.tasks.table_followups"
# Jobs that carry a page: one message to the broker for many tables or e-mails
# (a publish costs about as much as the work it hands out, see docs/performance.md).
#: (table id, turn, table id, turn, ...): the sweep's page of overdue turns.
TIMEOUTS = "notifications.tasks.apply_timeouts"
#: (table id, seq, table id, seq, ...): bot turns due after a page of timeouts.
BOT_TURNS = "notifications.tasks.run_bot_turns"
#: (message id, ...): the e-mails a page of timeouts wrote.
SEND_MANY = "notifications.tasks.send_outbox_messages"
#: (user id, ...): "your turn" notices due (ruling 19, ``away.turn_notice_decide``).
YOUR_TURNS = "notifications.tasks.send_your_turns"
#: (table id, turn): a turn's last call may be due (``turns.table_last_call``).
LAST_CALL = "notifications.tasks.send_last_call"
#: (user id, ...): daily digests due (``digest.digest_send``).
DIGESTS = "notifications.tasks.send_digests"
#: (push message id,): one web push to one device (``push.push_send``).
PUSH = "notifications.tasks.send_push_message"
#: (table id,): rate a finished game whose follow-up did not (``followups.rate_game``).
RATE = "notifications.tasks.rate_game"
#: (webhook delivery id,): post one event to a bot's webhook (``webhooks.webhook_send``).
WEBHOOK = "notifications.tasks.send_webhook"


def flat(pairs: Iterable[tuple[int, int]]) -> tuple[int, ...]:
    """A job's arguments for ``pairs``: ``[(1, 7), (2, 3)]`` -> ``(1, 7, 2, 3)``."""
    return tuple(number for pair in pairs for number in pair)


def pairs(args: Sequence[int]) -> list[tuple[int, int]]:
    """The pairs a job's flat arguments carry (the inverse of ``flat``)."""
    if len(args) % 2:
        raise ValueError(f"a page job takes pairs of ids, got {len(args)} numbers")
    return [(args[i], args[i + 1]) for i in range(0, len(args), 2)]


def publish(name: str, args: tuple[int, ...], eta: datetime | None = None) -> None:
    """Hand job ``name`` to the broker; a broker that cannot take it is logged, not raised.

    With ``eta`` a worker holds the job and runs it at that instant (Celery's
    ETA), which is how a real-time move timer fires on time. Whatever is not
    queued is found again by the sweep, so a broker that is down must not fail
    the request or transaction that asked.
    """
    try:
        # A job for now on a plain Redis broker: one LPUSH of Celery's own message.
        fast = None if eta is not None else pusher(current_app)
        if fast is not None:
            fast.push(name, args)
        else:
            current_app.send_task(name, args=args, eta=eta)
    except Exception:
        logger.exception("could not queue %s%r; the sweep will hand it out", name, args)


def dispatch(name: str, args: tuple[int, ...]) -> None:
    """Queue job ``name`` for a worker now."""
    publish(name, args)


def dispatch_at(name: str, args: tuple[int, ...], eta: datetime) -> None:
    """Queue job ``name`` to run at ``eta`` (a move timer, the end of a hold)."""
    publish(name, args, eta)


def dispatch_on_commit(name: str, args: tuple[int, ...]) -> None:
    """Queue job ``name`` once the current transaction commits (never if it rolls back)."""
    transaction.on_commit(lambda: dispatch(name, args), robust=True)
