"""The outbox: templates, headers, retries with backoff, preferences and the unsubscribe link."""

from __future__ import annotations

import re
import smtplib
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest
import time_machine
from celery.exceptions import Retry
from django.core import mail
from django.core.mail import EmailMultiAlternatives
from django.test import Client, override_settings
from django.urls import get_script_prefix, reverse, set_script_prefix

from games.models import Move, Seat, Table
from games.selectors import facts_of
from notifications import services, tasks
from notifications.models import OutboxMessage, Preferences
from notifications.outbox import Mail, outbox_enqueue_many

from .conftest import Jobs, make_user, play_turn, seat_to_act, started_table

T0 = datetime(2024, 3, 1, 9, 0, tzinfo=UTC)  # in the past: jobs may run on the real clock
QUIET = timedelta(minutes=10)  # GAMENOOK_YOUR_TURN_QUIET_SECONDS

pytestmark = pytest.mark.django_db(transaction=True)


def your_turn_message(jobs: Jobs) -> OutboxMessage:
    """A "your turn" message written at T0, its player away since the turn began (ruling 19)."""
    with time_machine.travel(T0 - QUIET, tick=False):
        started_table(make_user(), make_user(), turn_hours=24)
        jobs.run(services.FOLLOWUPS)
    with time_machine.travel(T0, tick=False):
        services.sweep(run=services.run_inline)
    return OutboxMessage.objects.get(kind=OutboxMessage.Kind.YOUR_TURN)


def test_a_message_has_plain_text_html_a_table_link_and_one_click_unsubscribe(
    jobs: Jobs,
) -> None:
    message = your_turn_message(jobs)
    jobs.drain()
    (sent,) = mail.outbox
    assert message.table is not None
    link = f"http://127.0.0.1:8000/tables/{message.table.pk}/"  # the web client's table page
    assert sent.to == [message.user.email]
    assert sent.subject == f"Your turn at table {message.table.pk}"
    assert link in sent.body and "2024-03-02 08:50 UTC" in sent.body  # 24 h from T0 - QUIET
    assert "23 hours 50 minutes left" in sent.body
    assert isinstance(sent, EmailMultiAlternatives)
    html, mimetype = sent.alternatives[0]
    assert mimetype == "text/html" and link in str(html)
    unsubscribe = services.unsubscribe_url(message.user)
    assert sent.extra_headers["List-Unsubscribe"] == f"<{unsubscribe}>"
    assert sent.extra_headers["List-Unsubscribe-Post"] == "List-Unsubscribe=One-Click"
    assert unsubscribe in sent.body
    message.refresh_from_db()
    assert (message.status, message.attempts) == (OutboxMessage.Status.SENT, 1)


def test_smtp_failures_are_retried_with_backoff_until_the_server_is_back(
    jobs: Jobs, monkeypatch: pytest.MonkeyPatch
) -> None:
    message = your_turn_message(jobs)
    jobs.clear()
    failures = [smtplib.SMTPServerDisconnected("down"), ConnectionRefusedError("refused")]

    def send(self: EmailMultiAlternatives, fail_silently: bool = False) -> int:
        if failures:
            raise failures.pop(0)
        mail.outbox.append(self)
        return 1

    monkeypatch.setattr(EmailMultiAlternatives, "send", send)
    with time_machine.travel(T0, tick=False) as clock:
        assert services.outbox_send(message_id=message.pk) == services.SendOutcome(False, 10.0)
        # An early copy of the job does not send before the backoff is over.
        assert services.outbox_send(message_id=message.pk) == services.SendOutcome(False)
        clock.shift(timedelta(seconds=10))
        with pytest.raises(Retry):  # the task asks Celery to try again later
            tasks.send_outbox_message(message.pk)
        message.refresh_from_db()
        assert (message.status, message.attempts) == (OutboxMessage.Status.PENDING, 2)
        assert message.next_attempt_at == T0 + timedelta(seconds=30)
        assert "refused" in message.last_error
        clock.shift(timedelta(seconds=20))
        assert services.outbox_send(message_id=message.pk).sent
    message.refresh_from_db()
    assert (message.status, message.attempts) == (OutboxMessage.Status.SENT, 3)
    assert len(mail.outbox) == 1


def test_the_sweep_requeues_a_message_whose_job_was_lost(jobs: Jobs) -> None:
    message = your_turn_message(jobs)
    jobs.clear()  # the broker lost the sending job
    with time_machine.travel(T0 + timedelta(seconds=59), tick=False):
        assert services.sweep(run=services.run_inline).emails == 0
    with time_machine.travel(T0 + timedelta(seconds=60), tick=False):
        assert services.sweep(run=services.run_inline).emails == 1
    message.refresh_from_db()
    assert message.status == OutboxMessage.Status.SENT and len(mail.outbox) == 1


@override_settings(GAMENOOK_EMAIL_MAX_ATTEMPTS=2)
def test_a_message_fails_for_good_after_the_last_attempt(
    jobs: Jobs, monkeypatch: pytest.MonkeyPatch
) -> None:
    message = your_turn_message(jobs)

    def send(self: Any, fail_silently: bool = False) -> int:
        raise smtplib.SMTPDataError(451, b"try later")

    monkeypatch.setattr(EmailMultiAlternatives, "send", send)
    with time_machine.travel(T0, tick=False) as clock:
        assert services.outbox_send(message_id=message.pk).retry_in == 10.0
        clock.shift(timedelta(seconds=10))
        assert services.outbox_send(message_id=message.pk) == services.SendOutcome(False)
    message.refresh_from_db()
    assert (message.status, message.attempts) == (OutboxMessage.Status.FAILED, 2)
    assert services.outbox_retry(message_id=message.pk)
    message.refresh_from_db()
    assert (message.status, message.attempts) == (OutboxMessage.Status.PENDING, 0)


def test_preferences_default_on_and_can_be_changed() -> None:
    user = make_user()
    assert services.preferences_get(user) == {
        "your_turn": True,
        "reminder": True,
        "last_call": True,
        "timeout": True,
        "game_over": True,
        "unsubscribed_all": False,
        "your_turn_push": True,
        "reminder_push": True,
        "last_call_push": True,
        "game_over_push": True,
        "last_call_when": "tenth",
        "digest": False,
        "digest_hour": 8,
        "time_zone": "UTC",
    }
    assert services.preferences_update(user, your_turn=False)["your_turn"] is False
    with pytest.raises(ValueError):
        services.preferences_update(user, shouting=True)
    # A value a preference cannot take is refused, and nothing changes.
    for bad in (
        {"your_turn": "yes"},
        {"last_call_when": "soon"},
        {"digest_hour": 24},
        {"digest_hour": True},
        {"time_zone": "Mars/Olympus"},
        {"time_zone": "/etc/passwd"},
        {"time_zone": "../../etc/localtime"},
    ):
        with pytest.raises(ValueError):
            services.preferences_update(user, reminder=False, **bad)
        assert services.preferences_get(user)["reminder"] is True
    services.user_unsubscribe(user)
    assert services.preferences_get(user)["unsubscribed_all"] is True
    # Turning one kind back on lifts the unsubscribe from everything.
    assert services.preferences_update(user, reminder=True)["unsubscribed_all"] is False


def test_no_your_turn_mail_for_a_player_who_opted_out(jobs: Jobs) -> None:
    alice, bob = make_user(), make_user()
    for user in (alice, bob):
        services.preferences_update(user, your_turn=False)
    with time_machine.travel(T0, tick=False):
        table = started_table(alice, bob)
        play_turn(table)
    jobs.drain()
    assert not OutboxMessage.objects.exists() and not mail.outbox


def test_a_message_queued_before_the_user_opted_out_is_cancelled(jobs: Jobs) -> None:
    message = your_turn_message(jobs)
    services.user_unsubscribe(message.user)
    jobs.drain()
    message.refresh_from_db()
    assert message.status == OutboxMessage.Status.CANCELLED and not mail.outbox


def test_the_unsubscribe_link_asks_on_get_and_unsubscribes_on_one_click_post(
    client: Client,
) -> None:
    user = make_user()
    url = services.unsubscribe_url(user).removeprefix("http://127.0.0.1:8000")
    response = client.get(url)
    assert response.status_code == 200 and b"<form" in response.content
    assert not Preferences.objects.filter(user=user, unsubscribed_all=True).exists()

    response = client.post(
        url,
        data="List-Unsubscribe=One-Click",
        content_type="application/x-www-form-urlencoded",
    )
    assert response.status_code == 200
    assert Preferences.objects.get(user=user).unsubscribed_all


def test_a_forged_unsubscribe_token_is_refused(client: Client) -> None:
    user = make_user()
    token = services.unsubscribe_token(user)
    forged = token[:-2] + ("AA" if not token.endswith("AA") else "BB")
    assert client.post(f"/notifications/unsubscribe/{forged}/").status_code == 404
    assert services.user_for_unsubscribe_token(forged) is None
    assert services.user_for_unsubscribe_token(token) == user


def test_the_game_over_mail_shows_the_ranking_and_scores(jobs: Jobs) -> None:
    alice, bob = make_user("alice"), make_user("bob")
    with time_machine.travel(T0, tick=False):
        table = started_table(alice, bob, bots=1, turn_hours=12)
        for _ in range(500):
            jobs.drain()
            table.refresh_from_db()
            if table.status != Table.Status.ACTIVE:
                break
            if seat_to_act(table).user in (alice, bob):
                play_turn(table)
        jobs.drain()
    assert table.status == Table.Status.FINISHED
    # The person whose own move ended the game saw the end in its answer: not mailed
    # (issue 38). The other person is, and the bot's name is in the ranking.
    last = Move.objects.filter(table=table).order_by("-seq").first()
    assert last is not None
    ender = Seat.objects.get(table=table, number=last.seat).user_id
    reader = bob if ender == alice.pk and last.source == Move.Source.PLAYER else alice
    message = OutboxMessage.objects.get(kind=OutboxMessage.Kind.GAME_OVER, user=reader)
    assert message.status == OutboxMessage.Status.SENT
    assert "Ranking:" in message.text and "1. " in message.text
    assert "alice" in message.text and "bob" in message.text and "Bot 1 (easy)" in message.text
    assert "<th>Score</th>" in message.html and "alice" in message.html
    # Issue 39: the game was rated in its follow-up, before the mail was written.
    assert re.search(r"Your rating: \d+\? \((\+|-)\d+\)\.", message.text), message.text


def test_a_page_of_mail_skips_a_message_written_before_and_writes_the_rest(jobs: Jobs) -> None:
    first, second = make_user(), make_user()
    table = started_table(first, second, turn_hours=24)
    facts = facts_of(Table.objects.get(pk=table.pk))
    context = {"deadline_at": facts.deadline_at, "hours": facts.turn_hours}
    mails = [
        Mail(user=user, kind=OutboxMessage.Kind.YOUR_TURN, table=facts, turn=99, context=context)
        for user in (first, second)
    ]
    (before,) = outbox_enqueue_many(mails[:1])
    written = outbox_enqueue_many(mails)
    # The page's one INSERT failed on the first message; the second went in alone.
    assert [message.user_id for message in written] == [second.pk]
    assert written[0].pk is not None and written[0].pk != before.pk
    rows = OutboxMessage.objects.filter(table_id=table.pk, turn=99).order_by("pk")
    assert [(row.pk, row.user_id) for row in rows] == [
        (before.pk, first.pk),
        (written[0].pk, second.pk),
    ]
    assert rows[1].text == written[0].text and f"table {table.pk}" in rows[1].subject


def test_the_unsubscribe_link_is_the_path_reverse_gives_under_any_script_prefix() -> None:
    user = make_user()
    token = services.unsubscribe_token(user)

    def reversed_now() -> str:
        return "http://127.0.0.1:8000" + reverse("notifications:unsubscribe", args=[token])

    assert services.unsubscribe_url(user) == reversed_now()
    before = get_script_prefix()
    set_script_prefix("/games/")  # served under a sub-path: the path around the token moves
    try:
        assert services.unsubscribe_url(user) == reversed_now()
        assert "/games/notifications/unsubscribe/" in services.unsubscribe_url(user)
    finally:
        set_script_prefix(before)
    assert services.unsubscribe_url(user) == reversed_now()
