"""Deadlines, reminders, bot turns and e-mail: the bodies of the Celery tasks.

Every function here takes ids, re-reads the rows under the table's row lock
and does nothing when the world has moved on, so running one twice, or two
at once, is harmless. The tasks in ``notifications.tasks`` only call these;
tests and the benchmark call them directly.

Exactly once, in short:

- a timeout: ``games.services.table_timeout`` re-checks the turn and the
  deadline under the row lock, and its e-mail is written in the same
  transaction;
- a reminder: ``games.services.table_claim_reminder`` re-checks under the row
  lock and clears ``remind_at``; the ``Reminder`` row (unique on table and
  turn) and its e-mail are written in the same transaction;
- a bot turn: the task carries the table's sequence number and acts only if
  it is still current, under the row lock;
- an e-mail: an outbox row, unique per (kind, table, turn, user), sent while
  its row is locked and marked sent in the same transaction.
"""

from __future__ import annotations

import logging
import smtplib
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any

from django.conf import settings
from django.contrib.auth.models import User
from django.core import signing
from django.core.mail import EmailMultiAlternatives
from django.db import IntegrityError, transaction
from django.db.models import Exists, IntegerField, OuterRef, Q
from django.db.models.fields.json import KT
from django.db.models.functions import Cast
from django.template.loader import render_to_string
from django.urls import reverse
from django.utils import timezone

import flip
from games.models import Seat, Table
from games.selectors import seat_to_act
from games.services import (
    MoveResult,
    table_claim_reminder,
    table_run_bot_turn,
    table_timeout,
)

from .models import OutboxMessage, Preferences, Reminder

logger = logging.getLogger(__name__)

Kind = OutboxMessage.Kind

#: A job handed to a worker: its name and its arguments (ids only).
Dispatch = Callable[[str, tuple[int, ...]], None]

TIMEOUT = "timeout"
REMIND = "remind"
BOT_TURN = "bot_turn"
SEND = "send"
FOLLOWUPS = "followups"


def dispatch(name: str, args: tuple[int, ...]) -> None:
    """Queue job ``name`` for a worker; a broker error is logged, never raised.

    The sweep rebuilds whatever could not be queued, so a broker that is down
    must not fail the request or transaction that asked.
    """
    from . import tasks

    tasks.publish(name, args)


def run_inline(name: str, args: tuple[int, ...]) -> None:
    """Run job ``name`` here and now (tests, the benchmark, a sweep without a worker)."""
    JOBS[name](*args)


def _on_commit_dispatch(name: str, args: tuple[int, ...]) -> None:
    transaction.on_commit(lambda: dispatch(name, args), robust=True)


# ----------------------------------------------------------------------------
# Preferences and unsubscribing

PREFERENCE_FIELDS = ("your_turn", "reminder", "timeout", "game_over", "unsubscribed_all")
PREFERENCES_DEFAULT = {name: name != "unsubscribed_all" for name in PREFERENCE_FIELDS}
_UNSUBSCRIBE_SALT = "notifications.unsubscribe"


def _preferences(user: User) -> Preferences:
    prefs, _ = Preferences.objects.get_or_create(user=user)
    return prefs


def preferences_get(user: User) -> dict[str, bool]:
    """The user's e-mail switches, every one on until they change it.

    >>> preferences_get(user)  # doctest: +SKIP
    {'your_turn': True, 'reminder': True, 'timeout': True, 'game_over': True,
     'unsubscribed_all': False}
    """
    prefs = _preferences(user)
    return {name: bool(getattr(prefs, name)) for name in PREFERENCE_FIELDS}


def preferences_update(user: User, **changes: bool) -> dict[str, bool]:
    """Change some of the user's switches; unknown names raise ``ValueError``.

    Turning any kind of mail on again also lifts an earlier "unsubscribe from
    everything", unless that very call sets ``unsubscribed_all`` itself.
    """
    unknown = set(changes) - set(PREFERENCE_FIELDS)
    if unknown:
        raise ValueError(f"unknown preference: {', '.join(sorted(unknown))}")
    with transaction.atomic():
        _preferences(user)
        prefs = Preferences.objects.select_for_update().get(user=user)
        for name, value in changes.items():
            setattr(prefs, name, bool(value))
        if "unsubscribed_all" not in changes and any(changes.values()):
            prefs.unsubscribed_all = False
        prefs.save()
    return preferences_get(user)


def unsubscribe_token(user: User) -> str:
    """A token that unsubscribes ``user`` from all mail: their id, signed with the secret key.

    The same for every message to the user, so any link they ever got keeps working.
    """
    return signing.Signer(salt=_UNSUBSCRIBE_SALT).sign(str(user.pk))


def unsubscribe_url(user: User) -> str:
    path = reverse("notifications:unsubscribe", args=[unsubscribe_token(user)])
    return settings.SITE_URL.rstrip("/") + path


def user_for_unsubscribe_token(token: str) -> User | None:
    """The user a token was made for, or None when it is forged or the user is gone."""
    try:
        pk = signing.Signer(salt=_UNSUBSCRIBE_SALT).unsign(token)
    except signing.BadSignature:
        return None
    if not pk.isdigit():
        return None
    return User.objects.filter(pk=int(pk)).first()


def user_unsubscribe(user: User) -> None:
    """Stop every e-mail to ``user`` (the one-click unsubscribe)."""
    preferences_update(user, unsubscribed_all=True)


def _wants(user: User, kind: str) -> bool:
    return bool(user.is_active and user.email) and _preferences(user).wants(kind)


# ----------------------------------------------------------------------------
# Composing and queueing e-mail


def table_url(table_id: int) -> str:
    return str(settings.GAMENOOK_TABLE_URL).format(table_id=table_id)


def _seat_name(seat: Seat) -> str:
    if seat.user is not None:
        return seat.user.get_username()
    return f"Bot ({seat.get_bot_level_display().lower()})"


def _compose(kind: str, user: User, table: Table, context: dict[str, Any]) -> dict[str, Any]:
    """Subject, plain text, HTML and headers of one message, from the templates."""
    unsubscribe = unsubscribe_url(user)
    context = {
        "user": user,
        "table": table,
        "table_url": table_url(table.pk),
        "unsubscribe_url": unsubscribe,
        "site_url": settings.SITE_URL,
        **context,
    }
    base = f"notifications/email/{kind}"
    subject = " ".join(render_to_string(f"{base}_subject.txt", context).split())
    return {
        "subject": subject,
        "text": render_to_string(f"{base}.txt", context),
        "html": render_to_string(f"{base}.html", context),
        # RFC 8058: mail clients offer a one-click unsubscribe that POSTs to the link.
        "headers": {
            "List-Unsubscribe": f"<{unsubscribe}>",
            "List-Unsubscribe-Post": "List-Unsubscribe=One-Click",
        },
    }


def outbox_enqueue(
    *,
    user: User,
    kind: str,
    table: Table,
    turn: int,
    context: dict[str, Any] | None = None,
) -> OutboxMessage | None:
    """Write a message to the outbox, once per (kind, table, turn, user), and queue it.

    Returns None when the user does not want this kind of mail, or when the
    message already exists. Call it inside the transaction that made the
    decision: the message then exists exactly when the decision committed,
    and the sending task is queued only after the commit.
    """
    if not _wants(user, kind):
        return None
    content = _compose(kind, user, table, context or {})
    try:
        with transaction.atomic():
            message = OutboxMessage.objects.create(
                user=user,
                to=user.email,
                kind=kind,
                table=table,
                turn=turn,
                next_attempt_at=timezone.now(),
                **content,
            )
    except IntegrityError:
        return None  # the same decision was taken before: its message exists
    _on_commit_dispatch(SEND, (message.pk,))
    return message


@dataclass(frozen=True)
class SendOutcome:
    """What one sending attempt did; ``retry_in`` (seconds) when it should be tried again."""

    sent: bool
    retry_in: float | None = None


def _backoff(attempts: int) -> float:
    cap = float(getattr(settings, "GAMENOOK_EMAIL_BACKOFF_MAX_SECONDS", 3600))
    return float(min(cap, 10 * 2 ** max(0, attempts - 1)))


# A retry that arrives a little before its instant (clocks of two workers) still sends.
_EARLY_TOLERANCE = timedelta(seconds=5)


def outbox_send(*, message_id: int) -> SendOutcome:
    """Send one pending outbox message over SMTP; mark it sent or note the failure.

    The message row is locked (``SKIP LOCKED``: a copy of this job already
    sending it makes this one return at once) for the whole attempt and
    marked sent in the same transaction. After a failure the message stays
    pending with ``next_attempt_at`` pushed back exponentially, until
    ``GAMENOOK_EMAIL_MAX_ATTEMPTS`` failures mark it failed. A message whose
    user has since opted out is cancelled instead of sent.

    SMTP gives no exactly-once delivery: a worker killed after the server
    accepted the message but before the commit sends it again when the job
    is redelivered. Everything else sends it once.
    """
    error: Exception | None = None
    now = timezone.now()
    with transaction.atomic():
        message = (
            OutboxMessage.objects.select_for_update(skip_locked=True)
            .select_related("user")
            .filter(pk=message_id, status=OutboxMessage.Status.PENDING)
            .first()
        )
        if message is None:
            return SendOutcome(sent=False)
        if message.next_attempt_at is not None and message.next_attempt_at > now + _EARLY_TOLERANCE:
            return SendOutcome(sent=False)  # an early copy; the scheduled retry will come
        if not _wants(message.user, message.kind):
            message.status = OutboxMessage.Status.CANCELLED
            message.save(update_fields=["status"])
            return SendOutcome(sent=False)
        email = EmailMultiAlternatives(
            subject=message.subject,
            body=message.text,
            to=[message.to],
            headers=dict(message.headers),
        )
        if message.html:
            email.attach_alternative(message.html, "text/html")
        try:
            email.send()
        except (smtplib.SMTPException, OSError) as exc:
            error = exc
            message.attempts += 1
            message.last_error = f"{type(exc).__name__}: {exc}"[:2000]
            max_attempts = int(getattr(settings, "GAMENOOK_EMAIL_MAX_ATTEMPTS", 48))
            if message.attempts >= max_attempts:
                message.status = OutboxMessage.Status.FAILED
                message.next_attempt_at = None
            else:
                message.next_attempt_at = now + timedelta(seconds=_backoff(message.attempts))
            message.save(update_fields=["attempts", "last_error", "status", "next_attempt_at"])
        else:
            message.status = OutboxMessage.Status.SENT
            message.sent_at = timezone.now()
            message.attempts += 1
            message.next_attempt_at = None
            message.save(update_fields=["status", "sent_at", "attempts", "next_attempt_at"])
            return SendOutcome(sent=True)
    logger.warning("sending outbox message %s failed: %s", message_id, error)
    if message.status == OutboxMessage.Status.FAILED:
        return SendOutcome(sent=False)
    return SendOutcome(sent=False, retry_in=_backoff(message.attempts))


def outbox_retry(*, message_id: int) -> bool:
    """Put a failed or cancelled message back in the queue (the admin's "send again")."""
    updated = OutboxMessage.objects.filter(
        pk=message_id,
        status__in=[OutboxMessage.Status.FAILED, OutboxMessage.Status.CANCELLED],
    ).update(status=OutboxMessage.Status.PENDING, attempts=0, next_attempt_at=timezone.now())
    if updated:
        dispatch(SEND, (message_id,))
    return bool(updated)


# ----------------------------------------------------------------------------
# What the table does by itself


def _describe_timeout(result: MoveResult, seat: int) -> list[str]:
    """What the table did for ``seat``, in words, from the events as that seat sees them."""
    lines: list[str] = []
    for move in result.moves:
        for event in flip.events_view(move.payload["events"], seat):
            if event.get("seat") != seat:
                continue
            if event["type"] == "play":
                line = f"played {event['face']}"
                if event.get("color"):
                    line += f" and chose {event.get('color')}"
                lines.append(line)
            elif event["type"] == "choose_color":
                lines.append(f"chose {event['color']}")
            elif event["type"] == "draw" and event["reason"] == "draw":
                lines.append(f"drew {event['count']} card{'s' if event['count'] != 1 else ''}")
            elif event["type"] == "pass":
                lines.append("passed")
            elif event["type"] == "leave":
                lines.append("left the game: your cards went under the draw pile")
    return lines


def table_apply_timeout(*, table_id: int, turn: int) -> bool:
    """Apply the missed-deadline policy to turn ``turn``, once; True when it acted.

    A bot whose turn is overdue (its queued turn was lost) simply plays it.
    The player who ran out of time is told what the table did, in the same
    transaction as the timeout itself.
    """
    table = Table.objects.filter(pk=table_id).first()
    if table is None or table.turn != turn or table.status != Table.Status.ACTIVE:
        return False
    seat = seat_to_act(table)
    if seat is not None and seat.is_bot:
        try:
            return bot_turn_run(table_id=table_id, seq=table.seq)
        except Exception:
            logger.exception("bot turn of table %s failed; applying the timeout", table_id)
    with transaction.atomic():
        result = table_timeout(table_id=table_id, turn=turn)
        if result is None:
            return False
        number = result.moves[0].seat
        assert number is not None  # a timeout move is always a seat's
        seat = Seat.objects.select_related("user").get(table_id=table_id, number=number)
        if seat.user is not None:
            outbox_enqueue(
                user=seat.user,
                kind=Kind.TIMEOUT,
                table=result.table,
                turn=turn,
                context={
                    "policy": result.table.timeout_policy,
                    "left": result.table.timeout_policy == Table.TimeoutPolicy.LEAVE,
                    "what": _describe_timeout(result, number),
                    "game_over": result.state.over,
                },
            )
    return True


def table_remind(*, table_id: int, turn: int) -> bool:
    """Send turn ``turn``'s halfway reminder, once; True when it was handled now.

    The ``Reminder`` row is written even when nobody is mailed (a bot's turn,
    a player who opted out), so the turn counts as reminded either way.
    """
    with transaction.atomic():
        table = table_claim_reminder(table_id=table_id, turn=turn)
        if table is None:
            return False
        seat = seat_to_act(table)
        try:
            with transaction.atomic():
                Reminder.objects.create(
                    table=table, turn=turn, seat=None if seat is None else seat.number
                )
        except IntegrityError:
            return False
        if seat is not None and seat.user is not None and seat.left_at is None:
            outbox_enqueue(
                user=seat.user,
                kind=Kind.REMINDER,
                table=table,
                turn=turn,
                context={"deadline_at": table.deadline_at, "hours": table.turn_hours},
            )
    return True


def bot_turn_run(*, table_id: int, seq: int) -> bool:
    """Let the bot to act make one action if the table is still at ``seq``; True if it did.

    The sequence number makes a job act once: a copy delivered again finds
    the table has moved on. The next bot turn is queued by the commit.
    """
    with transaction.atomic():
        current = (
            Table.objects.select_for_update().filter(pk=table_id).values_list("seq", flat=True)
        ).first()
        if current != seq:
            return False
        return table_run_bot_turn(table_id=table_id) is not None


JOBS: dict[str, Callable[..., object]] = {
    TIMEOUT: lambda table_id, turn: table_apply_timeout(table_id=table_id, turn=turn),
    REMIND: lambda table_id, turn: table_remind(table_id=table_id, turn=turn),
    BOT_TURN: lambda table_id, seq: bot_turn_run(table_id=table_id, seq=seq),
    SEND: lambda message_id: outbox_send(message_id=message_id),
    FOLLOWUPS: lambda table_id, seq, new_turn, finished: table_followups(
        table_id=table_id, seq=seq, new_turn=bool(new_turn), finished=bool(finished)
    ),
}


# ----------------------------------------------------------------------------
# After each committed change (games.signals.table_changed)


def table_followups(*, table_id: int, seq: int, new_turn: bool, finished: bool) -> None:
    """Queue what a committed change calls for: a bot turn, "your turn", "game over".

    Runs in a worker (job ``followups``, queued on commit by the receiver),
    so the request that made the change does not wait for e-mail to be
    composed."""
    table = Table.objects.filter(pk=table_id).first()
    if table is None or table.seq != seq:
        return  # a later change has committed; its own follow-ups take over
    if finished:
        if table.status == Table.Status.FINISHED:
            _game_over_mail(table)
        return
    if table.status != Table.Status.ACTIVE or table.state is None:
        return
    seat = seat_to_act(table)
    if seat is None or seat.left_at is not None:
        return
    if seat.is_bot:
        dispatch(BOT_TURN, (table_id, seq))
    elif new_turn and seat.user is not None:
        with transaction.atomic():
            outbox_enqueue(
                user=seat.user,
                kind=Kind.YOUR_TURN,
                table=table,
                turn=table.turn,
                context={"deadline_at": table.deadline_at, "hours": table.turn_hours},
            )


def _game_over_mail(table: Table) -> None:
    assert table.state is not None
    state = flip.GameState.from_dict(table.state)
    seats = list(Seat.objects.select_related("user").filter(table_id=table.pk))
    names = {seat.number: _seat_name(seat) for seat in seats}
    with transaction.atomic():
        for seat in seats:
            if seat.user is None:
                continue
            view = flip.view(state, seat.number)
            ranking = [
                {**entry, "name": names.get(entry["seat"], f"Seat {entry['seat']}")}
                for entry in view["ranking"]
            ]
            mine = next((e for e in ranking if e["seat"] == seat.number), None)
            outbox_enqueue(
                user=seat.user,
                kind=Kind.GAME_OVER,
                table=table,
                turn=table.turn,
                context={"ranking": ranking, "mine": mine, "rounds": len(view["rounds"])},
            )


# ----------------------------------------------------------------------------
# The sweep: the source of truth


@dataclass
class SweepResult:
    timeouts: int = 0
    reminders: int = 0
    emails: int = 0
    bots: int = 0


def _keyset(queryset: Any, field: str, batch: int) -> Iterator[list[tuple[int, int, datetime]]]:
    """Rows (id, turn, instant) ordered by (instant, id), ``batch`` at a time.

    Keyset pagination keeps every query an index range scan, whether or not
    the jobs handed out change the rows meanwhile.
    """
    rows = queryset.order_by(field, "pk").values_list("pk", "turn", field)
    last: tuple[datetime, int] | None = None
    while True:
        page = rows
        if last is not None:
            page = rows.filter(
                Q(**{f"{field}__gt": last[0]}) | Q(**{field: last[0], "pk__gt": last[1]})
            )
        chunk = list(page[:batch])
        if not chunk:
            return
        yield chunk
        last = (chunk[-1][2], chunk[-1][0])
        if len(chunk) < batch:
            return


def sweep(
    *, now: datetime | None = None, run: Dispatch | None = None, batch: int | None = None
) -> SweepResult:
    """Hand every overdue deadline, reminder and e-mail to a job; returns how many.

    Reads active tables through the partial indexes on ``deadline_at`` and
    ``remind_at``, so its cost grows with what is due, not with the number
    of tables. ``run`` receives each job (default: queue it for a worker;
    ``run_inline`` does it here). Jobs re-check everything under the row
    lock, so handing one out twice, or racing a player, is harmless.

    >>> sweep(run=run_inline)  # doctest: +SKIP
    SweepResult(timeouts=0, reminders=0, emails=0, bots=0)
    """
    now = now or timezone.now()
    run = run or dispatch
    batch = batch or int(getattr(settings, "GAMENOOK_SWEEP_BATCH", 1000))
    result = SweepResult()
    active = Table.objects.filter(status=Table.Status.ACTIVE)
    for chunk in _keyset(active.filter(deadline_at__lte=now), "deadline_at", batch):
        for table_id, turn, _ in chunk:
            run(TIMEOUT, (table_id, turn))
            result.timeouts += 1
    # A reminder after the deadline is pointless: the timeout is on its way.
    due = active.filter(remind_at__lte=now, deadline_at__gt=now)
    for chunk in _keyset(due, "remind_at", batch):
        for table_id, turn, _ in chunk:
            run(REMIND, (table_id, turn))
            result.reminders += 1
    grace = timedelta(seconds=float(getattr(settings, "GAMENOOK_OUTBOX_GRACE_SECONDS", 60)))
    overdue = (
        OutboxMessage.objects.filter(
            status=OutboxMessage.Status.PENDING, next_attempt_at__lte=now - grace
        )
        .order_by("next_attempt_at")
        .values_list("pk", flat=True)
    )
    for message_id in overdue.iterator(chunk_size=batch):
        run(SEND, (message_id,))
        result.emails += 1
    return result


def sweep_bots(*, now: datetime | None = None, run: Dispatch | None = None) -> SweepResult:
    """Hand out every bot turn left waiting (its queued job was lost).

    Which seat is to act lives in the snapshot, so this reads every active
    table; it runs less often than ``sweep``. A table counts as waiting when
    it has not changed for ``GAMENOOK_BOT_GRACE_SECONDS``.
    """
    now = now or timezone.now()
    run = run or dispatch
    grace = timedelta(seconds=float(getattr(settings, "GAMENOOK_BOT_GRACE_SECONDS", 30)))
    bot_to_act = Seat.objects.filter(
        table=OuterRef("pk"), number=OuterRef("current"), left_at__isnull=True
    ).exclude(bot_level="")
    waiting = (
        Table.objects.filter(status=Table.Status.ACTIVE, updated_at__lte=now - grace)
        .annotate(current=Cast(KT("state__current"), IntegerField()))
        .filter(Exists(bot_to_act))
        .values_list("pk", "seq")
    )
    result = SweepResult()
    for table_id, seq in waiting.iterator(chunk_size=1000):
        run(BOT_TURN, (table_id, seq))
        result.bots += 1
    return result
