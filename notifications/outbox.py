"""E-mail through an outbox: a row per message, written in the transaction that decided it.

A sending job (``jobs.SEND``) sends one message while its row is locked and
marks it sent in the same transaction; a failure pushes the next attempt back
exponentially and the task retries after that countdown. The sweep re-queues
any pending message whose job was lost.
"""

from __future__ import annotations

import logging
import smtplib
from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from typing import Any

from django.contrib.auth.models import User
from django.core.mail import EmailMultiAlternatives
from django.db import IntegrityError, transaction
from django.template import Context, Engine
from django.utils import timezone

from games import rows as games_rows
from games.selectors import TableFacts

from . import conf, jobs
from .models import OutboxMessage
from .preferences import preferences_of, unsubscribe_url, wants, wants_given

logger = logging.getLogger(__name__)


def table_url(table_id: int) -> str:
    return conf.table_url_template().format(table_id=table_id)


def _render(name: str, context: dict[str, Any]) -> str:
    """``render_to_string`` without a locale or a time zone: the same text, a quarter cheaper.

    The messages print numbers as they are and their dates in UTC, as the
    text says, so looking up the active language and time zone for every
    value they print (what ``render_to_string`` does) changes nothing but
    the cost; ``test_outbox`` checks that both give the same text. The
    template comes from Django's cached loader, compiled once per process.
    """
    template = Engine.get_default().get_template(name)
    return template.render(Context(context, use_l10n=False, use_tz=False))


def replay_url(table_id: int) -> str:
    """The link to a finished game's replay (the game-over mail)."""
    return conf.replay_url_template().format(table_id=table_id)


def _compose(kind: str, user: User, table: TableFacts, context: dict[str, Any]) -> dict[str, Any]:
    """Subject, plain text, HTML and headers of one message, from the templates."""
    unsubscribe = unsubscribe_url(user)
    context = {
        "user": user,
        "table": table,
        "table_url": table_url(table.id),
        "replay_url": replay_url(table.id),
        "unsubscribe_url": unsubscribe,
        "site_url": conf.site_url(),
        **context,
    }
    base = f"notifications/email/{kind}"
    subject = " ".join(_render(f"{base}_subject.txt", context).split())
    return {
        "subject": subject,
        "text": _render(f"{base}.txt", context),
        "html": _render(f"{base}.html", context),
        # RFC 8058: mail clients offer a one-click unsubscribe that POSTs to the link.
        "headers": {
            "List-Unsubscribe": f"<{unsubscribe}>",
            "List-Unsubscribe-Post": "List-Unsubscribe=One-Click",
        },
    }


@dataclass(frozen=True)
class Mail:
    """One message to write (``outbox_enqueue_many``): to whom, what kind, about which turn."""

    user: User
    kind: str
    table: TableFacts
    turn: int
    context: dict[str, Any] = field(default_factory=dict)


def _message(mail: Mail, now: datetime) -> OutboxMessage:
    """The outbox row of ``mail``, composed, not saved."""
    return OutboxMessage(
        user=mail.user,
        to=mail.user.email,
        kind=mail.kind,
        table_id=mail.table.id,
        turn=mail.turn,
        next_attempt_at=now,
        **_compose(mail.kind, mail.user, mail.table, mail.context),
    )


def _insert_once(message: OutboxMessage) -> OutboxMessage | None:
    """Save ``message`` unless its (kind, table, turn, user) exists; None when it did."""
    try:
        with transaction.atomic():
            message.save()
    except IntegrityError:
        return None  # the same decision was taken before: its message exists
    return message


def outbox_enqueue(
    *,
    user: User,
    kind: str,
    table: TableFacts,
    turn: int,
    context: dict[str, Any] | None = None,
) -> OutboxMessage | None:
    """Write a message to the outbox, once per (kind, table, turn, user), and queue it.

    Returns None when the user does not want this kind of mail, or when the
    message already exists. Call it inside the transaction that made the
    decision: the message then exists exactly when the decision committed,
    and the sending job is queued only after the commit.
    """
    if not wants(user, kind):
        return None
    mail = Mail(user=user, kind=kind, table=table, turn=turn, context=context or {})
    message = _insert_once(_message(mail, timezone.now()))
    if message is not None:
        jobs.dispatch_on_commit(jobs.SEND, (message.pk,))
    return message


#: The page's INSERT, written once per process (``games.rows``).
_OUTBOX_INSERT = games_rows.Insert(OutboxMessage)


def outbox_enqueue_many(mails: Sequence[Mail]) -> list[OutboxMessage]:
    """``outbox_enqueue`` for many messages: one query, one INSERT, one sending job.

    The preferences of every recipient are read in one query, the messages
    composed and inserted together, and one job (``jobs.SEND_MANY``) sends
    them after the commit. Each message is still written once per (kind,
    table, turn, user): should one exist already, the insert is done again a
    message at a time, skipping it. Call it inside the transaction that made
    the decisions. Returns the messages written.
    """
    preferences = preferences_of({mail.user.pk for mail in mails})
    now = timezone.now()
    rows = [
        _message(mail, now)
        for mail in mails
        if wants_given(mail.user, preferences.get(mail.user.pk), mail.kind)
    ]
    if not rows:
        return []
    try:
        with transaction.atomic():
            # One array a column, bound on the server: no mail's text quoted into the SQL.
            _OUTBOX_INSERT.run(rows, bound=True)
            written = rows
    except IntegrityError:
        for row in rows:
            row.pk = None
        written = [message for message in map(_insert_once, rows) if message is not None]
    if written:
        jobs.dispatch_on_commit(jobs.SEND_MANY, tuple(message.pk for message in written))
    return written


#: Mail about the account itself: sent to the address it names, whatever the switches.
ACCOUNT_KINDS = (OutboxMessage.Kind.VERIFY_EMAIL, OutboxMessage.Kind.PASSWORD_RESET)


def account_mail_enqueue(
    *, user: User, kind: str, to: str, subject: str, text: str
) -> OutboxMessage:
    """Queue a message ``accounts`` composed (a confirmation link, a password reset link).

    It goes to ``to`` even while that address is unverified (confirming it is
    the point) and whatever the user's switches say. Call it inside the
    transaction that decided it; the sending job is queued after the commit.
    """
    if kind not in ACCOUNT_KINDS:
        raise ValueError(f"not an account message: {kind}")
    message = OutboxMessage.objects.create(
        user=user,
        to=to,
        kind=kind,
        subject=subject,
        text=text,
        next_attempt_at=timezone.now(),
    )
    jobs.dispatch_on_commit(jobs.SEND, (message.pk,))
    return message


def _still_wanted(message: OutboxMessage) -> bool:
    """Whether a pending message should still go out now (the user may have changed things)."""
    if message.kind in ACCOUNT_KINDS:
        return message.user.is_active
    # Game mail: wanted, and still to the (confirmed) address it was written for.
    same_address = message.to.lower() == message.user.email.lower()
    return same_address and wants(message.user, message.kind)


@dataclass(frozen=True)
class SendOutcome:
    """What one sending attempt did; ``retry_in`` (seconds) when it should be tried again."""

    sent: bool
    retry_in: float | None = None


def _backoff(attempts: int) -> float:
    return float(min(conf.email_backoff_cap(), 10 * 2 ** max(0, attempts - 1)))


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
        if not _still_wanted(message):
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
            if message.attempts >= conf.email_max_attempts():
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
        jobs.dispatch(jobs.SEND, (message_id,))
    return bool(updated)
