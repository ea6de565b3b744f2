"""Account mail in the outbox is sealed, hidden from the admin, and removed once done (issue 35 §1).

The attack this stops (played end to end in ``tests/test_admin_secrets.py``):
a staff user allowed only to view outbox messages asked for a password reset
for the superuser's address, read the link in the message's text in the
admin, and took the account over.
"""

from __future__ import annotations

import importlib
import logging
import re
import smtplib
from collections.abc import Iterator
from typing import Any

import pytest
from cryptography.fernet import InvalidToken
from django.apps import apps
from django.contrib.auth.models import User
from django.core import mail
from django.core.cache import cache
from django.core.mail import EmailMultiAlternatives
from django.test import Client, override_settings

from games.models import Table
from games.selectors import facts_of
from notifications import outbox, services
from notifications.admin import ACCOUNT_BODY_HIDDEN
from notifications.models import OutboxMessage
from tests.factories import make_user, start_table
from tests.test_admin_secrets import ask_password_reset

pytestmark = pytest.mark.django_db

ROOT_EMAIL = "root@example.com"
LINK = re.compile(r"https?://\S+")


@pytest.fixture(autouse=True)
def _fresh_cache() -> Iterator[None]:
    # The reset's once-a-minute limit and the API's rate limits live in the cache.
    cache.clear()
    yield
    cache.clear()


def _enqueue(user: User, kind: str, secret: str) -> OutboxMessage:
    return services.account_mail_enqueue(
        user=user,
        kind=kind,
        to=user.email,
        subject=f"{kind} for {user.username}",
        text=f"Follow https://gamenook.example/{kind}/{secret}/ to go on.\n",
    )


def _sent_to(address: str) -> list[Any]:
    return [message for message in mail.outbox if message.to == [address]]


def _game_mail() -> tuple[User, Table]:
    """A "your turn" message to alice, written as the service writes it."""
    alice, bob = make_user("alice"), make_user("bob")
    table = start_table(alice, bob)
    message = outbox.outbox_enqueue(
        user=alice, kind=OutboxMessage.Kind.YOUR_TURN, table=facts_of(table), turn=99
    )
    assert message is not None
    return alice, table


# ----------------------------------------------------------------------------
# Logs (the attacker's scenario end to end: tests/test_admin_secrets.py)


def test_nothing_logs_an_account_mail_body(
    caplog: pytest.LogCaptureFixture,
    monkeypatch: pytest.MonkeyPatch,
    django_capture_on_commit_callbacks: Any,
) -> None:
    alice = make_user("alice")
    with caplog.at_level(logging.DEBUG):
        ask_password_reset(alice.email, monkeypatch, django_capture_on_commit_callbacks)
        message = OutboxMessage.objects.get(user=alice)
        services.outbox_send(message_id=message.pk)
    (sent,) = _sent_to(alice.email)
    link = LINK.search(sent.body)
    assert link is not None
    assert link.group(0) not in caplog.text


# ----------------------------------------------------------------------------
# Sealed at rest, opened only to send


@pytest.mark.parametrize("kind", outbox.ACCOUNT_KINDS)
def test_every_account_kind_is_stored_sealed_and_sent_in_clear(kind: str) -> None:
    user = make_user()
    message = _enqueue(user, kind, "s3cret-token")

    message.refresh_from_db()
    assert "s3cret-token" not in message.text and "gamenook.example" not in message.text
    assert "s3cret-token" in outbox.account_text_unseal(message.text)

    assert services.outbox_send(message_id=message.pk).sent
    (sent,) = _sent_to(user.email)
    assert sent.body == f"Follow https://gamenook.example/{kind}/s3cret-token/ to go on.\n"


def test_a_sealed_text_opens_under_no_other_secret_key() -> None:
    sealed = outbox.account_text_seal("a link")
    other_key = override_settings(SECRET_KEY="another key entirely, 50 characters long or more!!")
    with other_key, pytest.raises(InvalidToken):
        outbox.account_text_unseal(sealed)


def test_a_rotated_key_in_the_fallbacks_still_opens_mail_sealed_before(
    settings: Any,
) -> None:
    old_key = settings.SECRET_KEY
    message = _enqueue(make_user(), OutboxMessage.Kind.VERIFY_EMAIL, "before-rotation")
    settings.SECRET_KEY = "the new key, rotated in, 50 characters long or more!"
    settings.SECRET_KEY_FALLBACKS = [old_key]

    assert services.outbox_send(message_id=message.pk).sent
    assert "before-rotation" in mail.outbox[-1].body


def test_mail_no_key_opens_fails_for_good_and_keeps_nothing(settings: Any) -> None:
    user = make_user()
    message = _enqueue(user, OutboxMessage.Kind.PASSWORD_RESET, "lost-key")
    settings.SECRET_KEY = "a new key, the old one thrown away, 50 characters or more"

    assert services.outbox_send(message_id=message.pk) == services.SendOutcome(sent=False)

    message.refresh_from_db()
    assert message.status == OutboxMessage.Status.FAILED and not mail.outbox
    assert "SECRET_KEY" in message.last_error
    assert message.text == outbox.ACCOUNT_TEXT_REMOVED


# ----------------------------------------------------------------------------
# Removed once sent, failed for good or cancelled


@pytest.mark.parametrize("kind", outbox.ACCOUNT_KINDS)
def test_an_account_message_cancelled_keeps_no_link(kind: str) -> None:
    user = make_user()
    message = _enqueue(user, kind, "cancelled-token")
    user.is_active = False
    user.save()

    assert not services.outbox_send(message_id=message.pk).sent

    message.refresh_from_db()
    assert message.status == OutboxMessage.Status.CANCELLED and not mail.outbox
    assert (message.text, message.html, message.headers) == (outbox.ACCOUNT_TEXT_REMOVED, "", {})


@pytest.mark.parametrize("kind", outbox.ACCOUNT_KINDS)
@override_settings(GAMENOOK_EMAIL_MAX_ATTEMPTS=2)
def test_an_account_message_failed_for_good_keeps_no_link_and_is_not_sent_again(
    kind: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    def refuse(self: Any, fail_silently: bool = False) -> int:
        raise smtplib.SMTPDataError(554, b"no")

    monkeypatch.setattr(EmailMultiAlternatives, "send", refuse)
    message = _enqueue(make_user(), kind, "failed-token")

    assert services.outbox_send(message_id=message.pk).retry_in == 10.0
    message.refresh_from_db()
    # Between attempts it stays sealed, ready for the next one.
    assert message.status == OutboxMessage.Status.PENDING
    assert "failed-token" in outbox.account_text_unseal(message.text)
    OutboxMessage.objects.filter(pk=message.pk).update(next_attempt_at=None)
    assert services.outbox_send(message_id=message.pk) == services.SendOutcome(sent=False)

    message.refresh_from_db()
    assert message.status == OutboxMessage.Status.FAILED
    assert message.text == outbox.ACCOUNT_TEXT_REMOVED
    assert not services.outbox_retry(message_id=message.pk)  # nothing left to send
    message.refresh_from_db()
    assert message.status == OutboxMessage.Status.FAILED


def test_game_mail_is_kept_readable_after_sending() -> None:
    alice, table = _game_mail()
    message = OutboxMessage.objects.get(user=alice, table=table, turn=99)

    assert services.outbox_send(message_id=message.pk).sent

    message.refresh_from_db()
    assert message.text == mail.outbox[-1].body and message.html and message.headers


# ----------------------------------------------------------------------------
# The admin: never an account message's body; game mail without the unsubscribe token


def test_the_admin_shows_no_account_message_body_even_to_a_superuser(admin_client: Client) -> None:
    user = make_user()
    pending = _enqueue(user, OutboxMessage.Kind.PASSWORD_RESET, "admin-token")
    pending.refresh_from_db()

    page = admin_client.get(f"/admin/notifications/outboxmessage/{pending.pk}/change/")

    body = page.content.decode()
    assert page.status_code == 200 and ACCOUNT_BODY_HIDDEN in body
    assert "admin-token" not in body and pending.text not in body  # nor the sealed text


def test_the_admin_shows_game_mail_with_the_unsubscribe_token_masked(
    admin_client: Client,
) -> None:
    alice, table = _game_mail()
    message = OutboxMessage.objects.get(user=alice, table=table, turn=99)

    body = admin_client.get(f"/admin/notifications/outboxmessage/{message.pk}/change/")
    text = body.content.decode()

    assert f"/tables/{table.pk}/" in text  # the message itself is there
    assert services.unsubscribe_token(alice) not in text
    assert "unsubscribe token]" in text


def test_send_again_refuses_account_mail_and_says_why(admin_client: Client) -> None:
    user = make_user()
    account = _enqueue(user, OutboxMessage.Kind.VERIFY_EMAIL, "again-token")
    OutboxMessage.objects.filter(pk=account.pk).update(status=OutboxMessage.Status.CANCELLED)

    response = admin_client.post(
        "/admin/notifications/outboxmessage/",
        {"action": "send_again", "_selected_action": [account.pk]},
        follow=True,
    )

    account.refresh_from_db()
    assert account.status == OutboxMessage.Status.CANCELLED
    assert "not sent again" in response.content.decode()
    assert "asks for a new one" in response.content.decode()


# ----------------------------------------------------------------------------
# Rows written before: the migration seals them or removes their text


def test_the_migration_seals_pending_account_mail_and_removes_the_rest() -> None:
    migration = importlib.import_module("notifications.migrations.0003_account_mail_sealed")
    user = make_user()
    clear = "Follow https://gamenook.example/reset/old-token/ to go on.\n"
    rows = {
        status: OutboxMessage.objects.create(
            user=user, to=user.email, kind=kind, subject="s", text=clear, status=status
        )
        for status, kind in [
            (OutboxMessage.Status.PENDING, "password_reset"),
            (OutboxMessage.Status.SENT, "verify_email"),
            (OutboxMessage.Status.FAILED, "password_reset"),
        ]
    }
    game = OutboxMessage.objects.create(
        user=user, to=user.email, kind="your_turn", subject="s", text=clear, status="sent"
    )

    migration.seal_and_remove(apps, None)
    migration.seal_and_remove(apps, None)  # run twice, as after unapplying: sealed once

    pending, sent, failed = (OutboxMessage.objects.get(pk=rows[s].pk) for s in rows)
    assert "old-token" not in pending.text
    assert outbox.account_text_unseal(pending.text) == clear
    assert sent.text == failed.text == migration.REMOVED
    assert "old-token" not in migration.REMOVED
    game.refresh_from_db()
    assert game.text == clear
