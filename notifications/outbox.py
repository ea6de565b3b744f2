"""E-mail through an outbox: a row per message, written in the transaction that decided it.

A sending job (``jobs.SEND``) sends one message while its row is locked and
marks it sent in the same transaction; a failure pushes the next attempt back
exponentially and the task retries after that countdown. The sweep re-queues
any pending message whose job was lost.

Account mail (``ACCOUNT_KINDS``: links that confirm an address or reset a
password, notices about the account) is kept sealed at rest, readable only
by ``outbox_send``, and its text is removed once it was sent, failed for
good or was cancelled: whoever reads the table (the admin, a backup) finds
no link that grants access.
"""

from __future__ import annotations

import base64
import functools
import html
import logging
import smtplib
from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any

import jinja2
from cryptography.fernet import Fernet, InvalidToken, MultiFernet
from django.contrib.auth.models import User
from django.core import signing
from django.core.mail import EmailMultiAlternatives
from django.db import IntegrityError, transaction
from django.template.defaultfilters import pluralize
from django.utils import timezone
from django.utils.crypto import salted_hmac
from jinja2.nodes import EvalContext
from markupsafe import Markup

from games import rows as games_rows
from games.selectors import TableFacts

from . import conf, jobs
from .models import OutboxMessage
from .preferences import preferences_of, unsubscribe_url, wants, wants_given

logger = logging.getLogger(__name__)


def table_url(table_id: int) -> str:
    return conf.table_url_template().format(table_id=table_id)


#: The e-mail templates, Jinja2's, named as Django's were (``notifications/email/...``).
TEMPLATE_DIR = Path(__file__).resolve().parent / "jinja2"


@jinja2.pass_eval_context
def _escape(eval_ctx: EvalContext, value: object) -> object:
    """A value printed into HTML, escaped as Django's templates escape it.

    MarkupSafe writes ``'`` and ``"`` as ``&#39;`` and ``&#34;``, Django
    (``html.escape``) as ``&#x27;`` and ``&quot;``: escaping here, before
    Jinja2 would, keeps every message the bytes it was under Django's
    templates. Plain text (``.txt``) is left as it is.
    """
    if not eval_ctx.autoescape or hasattr(value, "__html__"):
        return value
    return Markup(html.escape(str(value)))  # noqa: S704 (escaped on this line)


def _pluralize(value: object) -> str:
    """Django's ``pluralize``: "s" unless the value is 1; nothing for a missing value."""
    if isinstance(value, jinja2.Undefined):
        value = str(value)  # "", as Django printed it; StrictUndefined raises here
    return str(pluralize(value))


def _minute(value: object) -> str:
    """Django's ``date:"Y-m-d H:i"`` without its locale look-ups; nothing for a missing value.

    Printed in the value's own time zone, as Django's filter printed it with
    ``use_tz`` off: the deadlines come from the database in UTC.
    """
    if isinstance(value, jinja2.Undefined):
        value = str(value)
    if value is None or value == "":
        return ""
    if not isinstance(value, datetime):
        raise TypeError(f"not a datetime: {value!r}")
    return f"{value.year:04d}-{value.month:02d}-{value.day:02d} {value.hour:02d}:{value.minute:02d}"


class _Missing(jinja2.ChainableUndefined):
    """A variable a context left out: prints nothing, as in Django's templates.

    Its attributes, items and calls are missing too (``{{ user.get_username() }}``
    without a ``user``), where Django's templates printed nothing either.
    """

    __slots__ = ()

    # Undefined types its __call__ as raising (NoReturn); this one returns itself on purpose.
    def __call__(self, *args: object, **kwargs: object) -> _Missing:  # type: ignore[override]
        return self


@functools.cache
def mail_environment(undefined: type[jinja2.Undefined] = _Missing) -> jinja2.Environment:
    """The Jinja2 environment of the e-mail templates, built once per process.

    Everything in it is chosen so that a message is the bytes Django's
    templates wrote: HTML (``.html``) is escaped as Django escapes it
    (``_escape``), plain text and subjects are not escaped; the newlines
    after tags and at the end of a file are kept. A variable the context
    leaves out prints nothing, as it did under Django (``_Missing``): a
    message goes out rather than the job failing. The tests build it with
    ``undefined=jinja2.StrictUndefined`` instead, so that a misspelled name
    raises there. Templates are compiled on first use and reloaded when
    their files change only with ``DEBUG`` on.
    """
    environment = jinja2.Environment(
        loader=jinja2.FileSystemLoader(TEMPLATE_DIR),
        autoescape=jinja2.select_autoescape(enabled_extensions=("html",), default=False),
        keep_trailing_newline=True,
        trim_blocks=False,
        lstrip_blocks=False,
        undefined=undefined,
        finalize=_escape,
        auto_reload=conf.reload_templates(),
    )
    environment.filters["pluralize"] = _pluralize
    environment.filters["minute"] = _minute
    # The templates use none of Jinja2's globals (range, dict, lipsum, ...), which every
    # render copies into its context through a ChainMap: about 5 us a template without them.
    environment.globals.clear()
    return environment


def _render(name: str, context: dict[str, Any]) -> str:
    """Render the e-mail template ``name`` (under ``TEMPLATE_DIR``) with ``context``.

    The templates are Jinja2's (``mail_environment``): about three times
    cheaper to render than Django's were, for the same bytes.
    ``tests/notifications/test_email_golden.py`` holds every message to the
    copy that Django's templates wrote before the move.
    """
    return mail_environment().get_template(name).render(context)


def replay_url(table_id: int) -> str:
    """The link to a finished game's replay (the game-over mail)."""
    return conf.replay_url_template().format(table_id=table_id)


def _compose(
    kind: str, user: User, table: TableFacts | None, context: dict[str, Any]
) -> dict[str, Any]:
    """Subject, plain text, HTML and headers of one message, from the templates.

    ``table`` is None for a message about no one table (the daily digest).
    """
    unsubscribe = unsubscribe_url(user)
    about: dict[str, Any] = {}
    if table is not None:
        about = {
            "table": table,
            "table_url": table_url(table.id),
            "replay_url": replay_url(table.id),
        }
    context = {
        "user": user,
        **about,
        "unsubscribe_url": unsubscribe,
        "site_url": conf.site_url(),
        # Every footer links the account page's preferences (notifications may not import web).
        "account_url": conf.account_url(),
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


def outbox_enqueue_digest(*, user: User, context: dict[str, Any]) -> OutboxMessage | None:
    """Write the daily digest (about no one table) to the outbox and queue it.

    None when the user does not want it (``Preferences.digest``, a confirmed
    address, not unsubscribed). Nothing here makes it once a day:
    ``digest.digest_send`` decides it under the preferences' row lock and
    moves the next one's instant in the same transaction. Call it inside
    that transaction; the sending job is queued after the commit.
    """
    if not wants(user, OutboxMessage.Kind.DIGEST):
        return None
    message = OutboxMessage.objects.create(
        user=user,
        to=user.email,
        kind=OutboxMessage.Kind.DIGEST,
        next_attempt_at=timezone.now(),
        **_compose(OutboxMessage.Kind.DIGEST, user, None, context),
    )
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
            # One JSON parameter, bound on the server: no mail's text quoted into the SQL.
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
ACCOUNT_KINDS = (
    OutboxMessage.Kind.VERIFY_EMAIL,
    OutboxMessage.Kind.PASSWORD_RESET,
    OutboxMessage.Kind.EMAIL_IN_USE,
    OutboxMessage.Kind.EMAIL_CHANGED,
    OutboxMessage.Kind.PASSWORD_CHANGED,
)

#: What an account message's text becomes once it was sent, failed for good or was cancelled.
ACCOUNT_TEXT_REMOVED = "Removed after sending: account mail may hold a link that grants access."
#: The fields of a message that hold what it says (``account_text_remove`` clears them).
BODY_FIELDS = ("text", "html", "headers")
_SEAL_SALT = "gamenook.notifications.outbox.account-mail"


def _sealer() -> MultiFernet:
    """Fernet keys derived from ``SECRET_KEY``, then from each of ``SECRET_KEY_FALLBACKS``.

    Sealing uses the first; unsealing tries each, so a key rotated into the
    fallbacks still opens the mail sealed before, as it still checks a reset
    link made before. Django's signer is where both settings are read.
    """
    signer = signing.Signer()
    return MultiFernet(
        [
            Fernet(
                base64.urlsafe_b64encode(
                    salted_hmac(_SEAL_SALT, "", secret=key, algorithm="sha256").digest()
                )
            )
            for key in [signer.key, *signer.fallback_keys]
        ]
    )


def account_text_seal(text: str) -> str:
    """``text`` encrypted and authenticated (Fernet) under a key only the secret key gives."""
    return _sealer().encrypt(text.encode()).decode("ascii")


def account_text_unseal(sealed: str) -> str:
    """What ``account_text_seal`` sealed; ``cryptography.fernet.InvalidToken`` otherwise."""
    return _sealer().decrypt(sealed.encode("ascii")).decode()


def account_text_remove(message: OutboxMessage) -> list[str]:
    """Clear an account message's text, HTML and headers (not saved); the fields changed.

    Once the message is done, nothing it held is needed again; a game message is kept.
    """
    if message.kind not in ACCOUNT_KINDS:
        return []
    message.text, message.html, message.headers = ACCOUNT_TEXT_REMOVED, "", {}
    return list(BODY_FIELDS)


def account_mail_enqueue(
    *, user: User, kind: str, to: str, subject: str, text: str
) -> OutboxMessage:
    """Queue a message ``accounts`` composed (a confirmation link, a password reset link).

    It goes to ``to`` even while that address is unverified (confirming it is
    the point) and whatever the user's switches say. Its text is stored sealed
    (``account_text_seal``): only ``outbox_send`` reads it. Call it inside the
    transaction that decided it; the sending job is queued after the commit.
    """
    if kind not in ACCOUNT_KINDS:
        raise ValueError(f"not an account message: {kind}")
    message = OutboxMessage.objects.create(
        user=user,
        to=to,
        kind=kind,
        subject=subject,
        text=account_text_seal(text),
        next_attempt_at=timezone.now(),
    )
    jobs.dispatch_on_commit(jobs.SEND, (message.pk,))
    return message


def _still_wanted(message: OutboxMessage) -> bool:
    """Whether a pending message should still go out now (the user may have changed things)."""
    if message.kind in ACCOUNT_KINDS:
        return message.user.is_active
    if message.kind == OutboxMessage.Kind.WEBHOOK_DISABLED:
        # About a bot the user runs: sent whatever the game-mail switches say.
        return message.user.is_active and message.to.lower() == message.user.email.lower()
    # Game mail: wanted, and still to the (confirmed) address it was written for.
    same_address = message.to.lower() == message.user.email.lower()
    return same_address and wants(message.user, message.kind)


def _email(message: OutboxMessage) -> EmailMultiAlternatives:
    """The e-mail of ``message``; an account message's parts are unsealed here and nowhere else."""
    sealed = message.kind in ACCOUNT_KINDS
    text = account_text_unseal(message.text) if sealed else message.text
    email = EmailMultiAlternatives(
        subject=message.subject,
        body=text,
        to=[message.to],
        headers=dict(message.headers),
    )
    if message.html:
        email.attach_alternative(
            account_text_unseal(message.html) if sealed else message.html, "text/html"
        )
    return email


def _email_or_close(message: OutboxMessage) -> EmailMultiAlternatives | None:
    """The e-mail to send for ``message`` (locked), or None once it was closed instead.

    Closed: cancelled when its user no longer wants it, failed when its sealed
    text no longer opens.
    """
    if not _still_wanted(message):
        message.status = OutboxMessage.Status.CANCELLED
        message.save(update_fields=["status", *account_text_remove(message)])
        return None
    try:
        return _email(message)
    except InvalidToken:
        _unreadable(message)
        return None


def _unreadable(message: OutboxMessage) -> None:
    """Fail for good an account message that no key opens (``SECRET_KEY`` changed)."""
    message.status = OutboxMessage.Status.FAILED
    message.next_attempt_at = None
    message.last_error = (
        "Its sealed text no longer opens: SECRET_KEY changed, and the key it was sealed "
        "with is not in SECRET_KEY_FALLBACKS. The user asks for a new link."
    )
    message.save(
        update_fields=["status", "next_attempt_at", "last_error", *account_text_remove(message)]
    )
    logger.warning("outbox message %s: its sealed text no longer opens", message.pk)


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
    user has since opted out is cancelled instead of sent. An account
    message's text is unsealed here only, to send it, and removed once it is
    sent, failed for good or cancelled (``account_text_remove``).

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
        email = _email_or_close(message)
        if email is None:
            return SendOutcome(sent=False)
        try:
            email.send()
        except (smtplib.SMTPException, OSError) as exc:
            error = exc
            message.attempts += 1
            message.last_error = f"{type(exc).__name__}: {exc}"[:2000]
            removed: list[str] = []
            if message.attempts >= conf.email_max_attempts():
                message.status = OutboxMessage.Status.FAILED
                message.next_attempt_at = None
                removed = account_text_remove(message)
            else:
                message.next_attempt_at = now + timedelta(seconds=_backoff(message.attempts))
            message.save(
                update_fields=["attempts", "last_error", "status", "next_attempt_at", *removed]
            )
        else:
            message.status = OutboxMessage.Status.SENT
            message.sent_at = timezone.now()
            message.attempts += 1
            message.next_attempt_at = None
            message.save(
                update_fields=[
                    "status",
                    "sent_at",
                    "attempts",
                    "next_attempt_at",
                    *account_text_remove(message),
                ]
            )
            return SendOutcome(sent=True)
    logger.warning("sending outbox message %s failed: %s", message_id, error)
    if message.status == OutboxMessage.Status.FAILED:
        return SendOutcome(sent=False)
    return SendOutcome(sent=False, retry_in=_backoff(message.attempts))


def outbox_retry(*, message_id: int) -> bool:
    """Put a failed or cancelled message back in the queue (the admin's "send again").

    Not an account message: its text was removed when it failed or was
    cancelled (the user asks for a new link). False when nothing was queued.
    """
    updated = (
        OutboxMessage.objects.filter(
            pk=message_id,
            status__in=[OutboxMessage.Status.FAILED, OutboxMessage.Status.CANCELLED],
        )
        .exclude(kind__in=ACCOUNT_KINDS)
        .update(status=OutboxMessage.Status.PENDING, attempts=0, next_attempt_at=timezone.now())
    )
    if updated:
        jobs.dispatch(jobs.SEND, (message_id,))
    return bool(updated)
