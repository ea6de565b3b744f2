"""The sweep: the source of truth for deadlines, reminders, unsent mail and lost bot turns.

Queued jobs only make things faster; whatever a broker loses, the next sweep
hands out again. Every job re-checks under the table's row lock, so handing
one out twice, or racing a player, is harmless.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from django.utils import timezone

from games import away as games_away
from games import selectors as games_selectors
from games import services as games
from ratings import conf as ratings_conf
from ratings import services as ratings

from . import away, conf, digest, jobs, push, turns, webhooks
from .models import OutboxMessage


@dataclass
class SweepResult:
    timeouts: int = 0
    reminders: int = 0
    emails: int = 0
    bots: int = 0
    holds: int = 0
    connections: int = 0
    idempotency_keys: int = 0
    your_turn: int = 0
    tables_seen: int = 0
    last_calls: int = 0
    digests: int = 0
    pushes: int = 0
    aways: int = 0
    ratings: int = 0
    webhooks: int = 0


def sweep(
    *, now: datetime | None = None, run: jobs.Dispatch | None = None, batch: int | None = None
) -> SweepResult:
    """Hand every overdue deadline, reminder, last call, e-mail, "your turn" notice and
    daily digest to a job.

    The last calls (issue 38) whose moment came by each player's choice go out
    a turn a job (``jobs.LAST_CALL``), read through the deadline index from
    now to the largest lead (``turns.last_calls_due``); the digests due
    (``digest.digests_due``, the partial index ``prefs_digest_due``) a page of
    ``GAMENOOK_TIMEOUT_PAGE`` users a job (``jobs.DIGESTS``).

    The notices whose quiet delay is over (ruling 19) are read through the
    partial index ``turn_notice_due`` and go out in pages of
    ``GAMENOOK_TIMEOUT_PAGE`` users (``jobs.YOUR_TURNS``); the ``TableSeen``
    rows older than the delay are deleted (one indexed DELETE).

    Pending e-mail, pushes and webhook deliveries whose attempt is overdue are
    queued again (``_outboxes``); for a webhook retry further off than a job's
    countdown may wait (``webhooks.COUNTDOWN_MAX``) that is its only path.

    It also deletes the ``Idempotency-Key`` records older than a day
    (``games.services.idempotency_keys_purge``): one indexed row read when
    there are none.

    Reads active tables through the partial indexes on ``deadline_at`` and
    ``remind_at``, so its cost grows with what is due, not with the number
    of tables. Overdue turns go out in pages of ``GAMENOOK_TIMEOUT_PAGE``
    tables, a job each (``jobs.TIMEOUTS``), which several workers can apply
    at once. ``run`` receives each job (default: queue it for a worker;
    ``run_inline`` does it here).

    >>> sweep(run=run_inline)  # doctest: +SKIP
    SweepResult(timeouts=0, reminders=0, emails=0, bots=0)
    """
    now = now or timezone.now()
    run = run or jobs.dispatch
    batch = batch or conf.sweep_batch()
    size = conf.timeout_page()
    result = SweepResult()
    for read in games_selectors.tables_due_for_timeout(now=now, batch=batch):
        for start in range(0, len(read), size):
            page = read[start : start + size]
            run(jobs.TIMEOUTS, jobs.flat(page))
            result.timeouts += len(page)
    # A reminder after the deadline is pointless: the timeout is on its way.
    for page in games_selectors.tables_due_for_reminder(now=now, batch=batch):
        for table_id, turn in page:
            run(jobs.REMIND, (table_id, turn))
            result.reminders += 1
    # Issue 38: the last calls whose moment came (each player's own), read through the
    # deadline index from now to the largest lead (7.2 hours).
    for page in turns.last_calls_due(now=now, batch=batch):
        for table_id, turn in page:
            run(jobs.LAST_CALL, (table_id, turn))
            result.last_calls += 1
    _outboxes(now=now, run=run, batch=batch, result=result)
    # Ruling 19: the "your turn" notices whose quiet delay is over, a page a job.
    for users in away.turn_notices_due(now=now, batch=size):
        run(jobs.YOUR_TURNS, tuple(users))
        result.your_turn += len(users)
    # Issue 38: the daily digests due (the partial index ``prefs_digest_due``), a page a job.
    for users in digest.digests_due(now=now, batch=size):
        run(jobs.DIGESTS, tuple(users))
        result.digests += len(users)
    result.tables_seen = away.tables_seen_purge(now=now)
    # Ruling 20: times away whose start or end has come (a few rows: the open ones due).
    result.aways = games_away.aways_due(now=now)
    result.idempotency_keys = games.idempotency_keys_purge(now=now, batch=batch)
    # Issue 39: a finished game whose follow-up did not rate it (a lost job), through
    # the partial index ``table_finished``.
    for table_id in ratings.tables_to_rate(
        finished_after=now - ratings_conf.RATE_WINDOW, finished_before=now - conf.outbox_grace()
    ):
        run(jobs.RATE, (table_id,))
        result.ratings += 1
    return result


def _outboxes(*, now: datetime, run: jobs.Dispatch, batch: int, result: SweepResult) -> None:
    """Re-queue every pending e-mail, push and webhook delivery whose job was lost."""
    before = now - conf.outbox_grace()
    overdue = (
        OutboxMessage.objects.filter(
            status=OutboxMessage.Status.PENDING, next_attempt_at__lte=before
        )
        .order_by("next_attempt_at")
        .values_list("pk", flat=True)
    )
    for message_id in overdue.iterator(chunk_size=batch):
        run(jobs.SEND, (message_id,))
        result.emails += 1
    # Web pushes likewise (notifications.push): a pending one whose job was lost.
    for message_id in push.pushes_overdue(before=before, batch=batch):
        run(jobs.PUSH, (message_id,))
        result.pushes += 1
    # Webhook deliveries (issue 40) whose retry is due: a retry further off than a job's
    # countdown may wait is handed out only here, through ``webhook_pending_next_attempt``.
    for delivery_id in webhooks.webhooks_overdue(before=before, batch=batch):
        run(jobs.WEBHOOK, (delivery_id,))
        result.webhooks += 1


def sweep_bots(*, now: datetime | None = None, run: jobs.Dispatch | None = None) -> SweepResult:
    """Hand out every bot turn left waiting (its queued job was lost).

    A table counts as waiting when a bot is to act (``Table.to_act``) and it
    has not changed for ``GAMENOOK_BOT_GRACE_SECONDS``. It runs less often
    than ``sweep``.
    """
    now = now or timezone.now()
    run = run or jobs.dispatch
    result = SweepResult()
    for table_id, seq in games_selectors.tables_waiting_for_bot(
        unchanged_since=now - conf.bot_grace()
    ):
        run(jobs.BOT_TURN, (table_id, seq))
        result.bots += 1
    return result


def sweep_realtime(*, now: datetime | None = None, run: jobs.Dispatch | None = None) -> SweepResult:
    """The safety net of real-time tables, every ``GAMENOOK_REALTIME_SWEEP_SECONDS``.

    A move timer's own job (queued for its instant, ``jobs.dispatch_at``)
    normally applies it; this hands out every timer overdue by more than
    ``GAMENOOK_REALTIME_GRACE_SECONDS`` (its job was lost: a broker restart,
    a worker killed while holding it), every hold whose two minutes are over,
    and closes connections whose heartbeat stopped (their server died), which
    starts their holds. Each job re-checks under the row lock, so one handed
    out twice acts once.
    """
    now = now or timezone.now()
    run = run or jobs.dispatch
    result = SweepResult()
    result.connections = games.presence_close_stale(before=now - conf.presence_stale())
    for page in games_selectors.realtime_tables_due(
        now=now - conf.realtime_grace(), batch=conf.sweep_batch()
    ):
        for table_id, turn in page:
            run(jobs.TIMEOUT, (table_id, turn))
            result.timeouts += 1
    for table_id, number in games_selectors.holds_ended(now=now):
        run(jobs.HOLD, (table_id, number))
        result.holds += 1
    return result
