"""The last call (issue 38 §2) and one message per table and turn.

A player away from a turn-by-turn table gets a last call when a tenth of the
turn's time is left, or in its last hour, as they chose (off too), once. A
turn's "your turn", halfway reminder and last call are one message: whichever
the player wants comes first while they are away goes out, the later ones are
recorded as handled and not sent.
"""

from __future__ import annotations

from collections.abc import Iterator
from datetime import UTC, datetime, timedelta

import pytest
import time_machine
from django.contrib.auth.models import User
from django.core.cache import cache
from django.test import Client, override_settings
from django.utils import timezone

from games import selectors as games_selectors
from games.models import Table
from notifications import services
from notifications.models import LastCall, OutboxMessage, Reminder, TurnNotice
from notifications.turns import table_last_call, table_remind

from .conftest import Jobs, make_user, seat_to_act, started_table
from .push_service import Device, PushService, vapid_pair
from .test_exactly_once import in_threads, needs_postgres
from .test_push import subscribe

T0 = datetime(2030, 5, 6, 9, 0, tzinfo=UTC)
PUBLIC, PRIVATE = vapid_pair()
Kind = OutboxMessage.Kind
TURN_KINDS = (Kind.YOUR_TURN, Kind.REMINDER, Kind.LAST_CALL)

pytestmark = pytest.mark.django_db(transaction=True)


@pytest.fixture(autouse=True)
def _fresh_cache() -> Iterator[None]:
    # The page's record is rate-limited through the cache, which outlives a test.
    cache.clear()
    yield
    cache.clear()


def sweep(jobs: Jobs) -> None:
    """One tick of the periodic sweep, its jobs run here, then the mail they queued."""
    services.sweep(run=services.run_inline)
    jobs.drain()


def her_turn(table: Table, user: User, jobs: Jobs) -> None:
    """Let the bots play until it is ``user``'s turn (the clock stands still meanwhile)."""
    for _ in range(50):
        jobs.drain()
        table.refresh_from_db()
        if seat_to_act(table).user == user:
            return
    raise AssertionError("the bots never gave the turn back")


def mail(user: User, *kinds: str) -> list[OutboxMessage]:
    return list(OutboxMessage.objects.filter(user=user, kind__in=kinds).order_by("pk"))


def her_table(user: User, jobs: Jobs, *, turn_hours: int = 24) -> Table:
    """A table of ``user`` and a bot where her turn began at the clock's instant."""
    table = started_table(user, bots=1, turn_hours=turn_hours)
    her_turn(table, user, jobs)
    assert table.turn_started_at is not None
    return table


def only_the_last_call(user: User, when: str = "tenth") -> None:
    services.preferences_update(user, your_turn=False, reminder=False, last_call_when=when)


def test_the_last_call_comes_when_a_tenth_of_the_turn_is_left_to_a_player_away(
    jobs: Jobs,
) -> None:
    alice = make_user()
    only_the_last_call(alice)
    with time_machine.travel(T0, tick=False) as clock:
        table = her_table(alice, jobs)
        started = table.turn_started_at
        assert started is not None
        clock.move_to(started + timedelta(hours=21, minutes=35))
        sweep(jobs)
        assert mail(alice, *TURN_KINDS) == []
        assert not LastCall.objects.filter(table=table).exists()
        clock.move_to(started + timedelta(hours=21, minutes=36))  # 2.4 of 24 hours left
        sweep(jobs)
        (message,) = mail(alice, *TURN_KINDS)
        clock.shift(timedelta(minutes=30))
        sweep(jobs)
    assert mail(alice, *TURN_KINDS) == [message]
    message.refresh_from_db()
    assert message.kind == Kind.LAST_CALL
    assert message.status == OutboxMessage.Status.SENT
    assert message.subject == f"Last call at table {table.pk}: 2 hours 24 minutes left"
    assert "2 hours 24 minutes left of your 24 hours" in message.text
    assert f"http://127.0.0.1:8000/tables/{table.pk}/" in message.text
    assert f"http://127.0.0.1:8000/tables/{table.pk}/" in message.html
    assert LastCall.objects.filter(table=table, turn=table.turn).count() == 1


def test_the_last_call_in_the_last_hour_comes_an_hour_before_the_deadline(jobs: Jobs) -> None:
    alice = make_user()
    only_the_last_call(alice, "hour")
    with time_machine.travel(T0, tick=False) as clock:
        table = her_table(alice, jobs, turn_hours=72)
        started = table.turn_started_at
        assert started is not None
        clock.move_to(started + timedelta(hours=64, minutes=48))  # a tenth left: not hers
        sweep(jobs)
        clock.move_to(started + timedelta(hours=70, minutes=59))
        sweep(jobs)
        assert mail(alice, *TURN_KINDS) == []
        assert not LastCall.objects.filter(table=table).exists()  # not handled: not yet
        clock.move_to(started + timedelta(hours=71))
        sweep(jobs)
    (message,) = mail(alice, *TURN_KINDS)
    assert message.subject == f"Last call at table {table.pk}: 1 hour left"


def test_a_player_who_turned_the_last_call_off_gets_none_and_the_turn_counts_as_handled(
    jobs: Jobs,
) -> None:
    alice = make_user()
    only_the_last_call(alice, "off")
    with time_machine.travel(T0, tick=False) as clock:
        table = her_table(alice, jobs, turn_hours=12)
        started = table.turn_started_at
        assert started is not None
        clock.move_to(started + timedelta(hours=11))
        sweep(jobs)
        # Handled once: the sweep's range no longer finds the turn.
        assert LastCall.objects.filter(table=table, turn=table.turn).count() == 1
        assert list(games_selectors.tables_due_for_last_call(now=timezone.now(), batch=10)) == []
        clock.move_to(started + timedelta(hours=11, minutes=59))
        sweep(jobs)
    assert mail(alice, *TURN_KINDS) == []


def test_no_last_call_to_a_player_who_has_the_table_open(jobs: Jobs) -> None:
    alice = make_user()
    only_the_last_call(alice)
    page = Client()
    with time_machine.travel(T0, tick=False) as clock:
        page.force_login(alice)  # a session of 2030
        table = her_table(alice, jobs)
        started = table.turn_started_at
        assert started is not None
        clock.move_to(started + timedelta(hours=21, minutes=30))
        assert page.get(f"/tables/{table.pk}/live/").status_code == 200
        clock.move_to(started + timedelta(hours=21, minutes=36))
        sweep(jobs)
        # Recorded as handled, not put off: she saw the time left on the page.
        assert LastCall.objects.filter(table=table, turn=table.turn).count() == 1
        clock.move_to(started + timedelta(hours=23))
        sweep(jobs)
    assert mail(alice, *TURN_KINDS) == []


def test_no_last_call_for_a_turn_your_turn_was_mailed_for_nor_a_reminder(jobs: Jobs) -> None:
    alice = make_user()  # every switch as it comes: "your turn" on
    with time_machine.travel(T0, tick=False) as clock:
        table = her_table(alice, jobs)
        started = table.turn_started_at
        assert started is not None
        clock.move_to(started + timedelta(minutes=11))
        sweep(jobs)
        (told,) = mail(alice, *TURN_KINDS)
        assert told.kind == Kind.YOUR_TURN
        clock.move_to(started + timedelta(hours=12, minutes=1))  # halfway
        sweep(jobs)
        clock.move_to(started + timedelta(hours=21, minutes=37))  # a tenth left
        sweep(jobs)
    # Both moments were handled; the turn had its one message already.
    assert Reminder.objects.filter(table=table, turn=table.turn).exists()
    assert LastCall.objects.filter(table=table, turn=table.turn).exists()
    assert mail(alice, *TURN_KINDS) == [told]


def test_a_player_at_the_table_when_her_turn_began_who_then_left_gets_the_reminder_alone(
    jobs: Jobs,
) -> None:
    alice = make_user()
    services.preferences_update(alice, your_turn=False)
    page = Client()
    with time_machine.travel(T0, tick=False) as clock:
        page.force_login(alice)  # a session of 2030
        table = her_table(alice, jobs)
        started = table.turn_started_at
        assert started is not None
        assert page.get(f"/tables/{table.pk}/live/").status_code == 200  # there, then gone
        clock.move_to(started + timedelta(minutes=11))
        sweep(jobs)
        assert mail(alice, *TURN_KINDS) == []
        clock.move_to(started + timedelta(hours=12, minutes=1))
        sweep(jobs)
        (reminder,) = mail(alice, *TURN_KINDS)
        clock.move_to(started + timedelta(hours=21, minutes=37))
        sweep(jobs)
    assert reminder.kind == Kind.REMINDER
    assert LastCall.objects.filter(table=table, turn=table.turn).exists()
    assert mail(alice, *TURN_KINDS) == [reminder]


def test_a_new_turn_gets_its_own_last_call(jobs: Jobs) -> None:
    """Told is per turn: the last call of turn 1 does not silence that of a later turn."""
    alice = make_user()
    only_the_last_call(alice)
    with time_machine.travel(T0, tick=False) as clock:
        table = her_table(alice, jobs, turn_hours=12)
        started = table.turn_started_at
        assert started is not None
        clock.move_to(started + timedelta(hours=10, minutes=49))
        sweep(jobs)
        assert len(mail(alice, Kind.LAST_CALL)) == 1
        clock.move_to(started + timedelta(hours=12, minutes=1))  # the deadline: a timeout
        sweep(jobs)
        her_turn(table, alice, jobs)
        again = table.turn_started_at
        assert again is not None and again > started
        clock.move_to(again + timedelta(hours=10, minutes=49))
        sweep(jobs)
    calls = mail(alice, Kind.LAST_CALL)
    assert len(calls) == 2
    assert calls[0].turn != calls[1].turn


@needs_postgres
def test_two_sweeps_at_once_send_one_last_call(jobs: Jobs) -> None:
    alice = make_user()
    only_the_last_call(alice)
    with time_machine.travel(T0, tick=False) as clock:
        table = her_table(alice, jobs)
        started = table.turn_started_at
        assert started is not None
        clock.move_to(started + timedelta(hours=21, minutes=40))
        results = in_threads(
            lambda: services.sweep(run=services.run_inline),
            lambda: services.sweep(run=services.run_inline),
        )
        jobs.drain()
        # A sweep later, and a job delivered again, find it handled.
        sweep(jobs)
        assert table_last_call(table_id=table.pk, turn=table.turn) is False
    assert not any(isinstance(result, Exception) for result in results), results
    assert len(mail(alice, *TURN_KINDS)) == 1
    assert LastCall.objects.filter(table=table).count() == 1


@needs_postgres
def test_a_reminder_racing_the_your_turn_decision_makes_one_message(jobs: Jobs) -> None:
    """Both due at once (the sweep was down): the notice row's lock lets one through."""
    alice = make_user()
    with time_machine.travel(T0, tick=False) as clock:
        table = her_table(alice, jobs)
        started = table.turn_started_at
        assert started is not None
        clock.move_to(started + timedelta(hours=12, minutes=1))
        results = in_threads(
            lambda: table_remind(table_id=table.pk, turn=table.turn),
            lambda: services.turn_notice_decide(user_id=alice.pk),
        )
        jobs.drain()
    assert not any(isinstance(result, Exception) for result in results), results
    assert len(mail(alice, *TURN_KINDS)) == 1


def test_the_last_call_by_push_and_e_mail_is_one_message_and_reaches_the_device(
    jobs: Jobs,
) -> None:
    """E-mail and push of the same moment count as one: the turn is told, nothing after."""
    alice = make_user()
    services.preferences_update(
        alice, your_turn=False, your_turn_push=False, reminder=False, reminder_push=False
    )
    device = Device()
    service = PushService().start()
    try:
        with override_settings(
            GAMENOOK_VAPID_PUBLIC_KEY=PUBLIC,
            GAMENOOK_VAPID_PRIVATE_KEY=PRIVATE,
            GAMENOOK_VAPID_SUBJECT="mailto:push-test@example.com",
            GAMENOOK_PUSH_ALLOW_HTTP_LOOPBACK=True,
        ):
            subscribe(alice, service.endpoint("alice-phone"), device)
            with time_machine.travel(T0, tick=False) as clock:
                table = her_table(alice, jobs)
                started = table.turn_started_at
                assert started is not None
                clock.move_to(started + timedelta(hours=21, minutes=36))
                sweep(jobs)
                clock.move_to(started + timedelta(hours=23))
                sweep(jobs)
    finally:
        service.stop()
    (message,) = mail(alice, *TURN_KINDS)
    assert message.kind == Kind.LAST_CALL
    (posted,) = service.posted
    assert device.decrypt(posted) == {
        "title": f"Last call at table {table.pk}: 2 hours 24 minutes left",
        "body": "Move before 2030-05-07 09:00 UTC, or the table will let a bot play this turn "
        "for you.",
        "url": f"http://127.0.0.1:8000/tables/{table.pk}/",
        "tag": f"table-{table.pk}",
        "kind": "last_call",
    }
    assert TurnNotice.objects.get(user=alice).told == {str(table.pk): table.turn}
