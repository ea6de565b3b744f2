"""The daily digest (issue 38 §4): one e-mail a day at the hour chosen, in the player's zone.

It lists the tables where it is their turn, the least time left first, and
the games that ended since the last digest with the result and the replay's
link; nothing to say, no e-mail; never two for the same day.
"""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest
import time_machine
from django.contrib.auth.models import User

from games import services as games
from games.models import Table
from notifications import services
from notifications.digest import digest_send
from notifications.models import OutboxMessage, Preferences

from .conftest import Jobs, make_user, seat_to_act, started_table
from .test_exactly_once import in_threads, needs_postgres

DIGEST = OutboxMessage.Kind.DIGEST
NEW_YORK = "America/New_York"

pytestmark = pytest.mark.django_db(transaction=True)


def sweep(jobs: Jobs) -> None:
    """One tick of the periodic sweep, its jobs run here, then the mail they queued."""
    services.sweep(run=services.run_inline)
    jobs.drain()


def digests(user: User) -> list[OutboxMessage]:
    return list(OutboxMessage.objects.filter(user=user, kind=DIGEST).order_by("pk"))


def her_turn(table: Table, user: User, jobs: Jobs) -> None:
    for _ in range(50):
        jobs.drain()
        table.refresh_from_db()
        if seat_to_act(table).user == user:
            return
    raise AssertionError("the bots never gave the turn back")


def test_the_digest_comes_at_the_hour_chosen_in_new_york_across_the_clock_change(
    jobs: Jobs,
) -> None:
    # The United States moved their clocks forward on 2030-03-10 at 02:00 local time.
    alice = make_user()
    with time_machine.travel(datetime(2030, 3, 8, 12, 0, tzinfo=UTC), tick=False) as clock:
        services.preferences_update(alice, digest=True, digest_hour=8, time_zone=NEW_YORK)
        slow = started_table(alice, bots=1, turn_hours=72)
        her_turn(slow, alice, jobs)
        fast = started_table(alice, bots=1, turn_hours=24)
        her_turn(fast, alice, jobs)
        clock.move_to(datetime(2030, 3, 8, 12, 59, tzinfo=UTC))
        sweep(jobs)
        assert digests(alice) == []
        clock.move_to(datetime(2030, 3, 8, 13, 0, tzinfo=UTC))  # 08:00 EST
        sweep(jobs)
        (first,) = digests(alice)
        clock.move_to(datetime(2030, 3, 9, 13, 0, tzinfo=UTC))  # 08:00 EST
        sweep(jobs)
        assert len(digests(alice)) == 2
        # Sunday's eight o'clock is an hour earlier in UTC.
        prefs = Preferences.objects.get(user=alice)
        assert prefs.digest_due_at == datetime(2030, 3, 10, 12, 0, tzinfo=UTC)
        clock.move_to(datetime(2030, 3, 10, 11, 59, tzinfo=UTC))
        sweep(jobs)
        assert len(digests(alice)) == 2
        clock.move_to(datetime(2030, 3, 10, 12, 0, tzinfo=UTC))  # 08:00 EDT
        sweep(jobs)
        *_, third = digests(alice)
    assert len(digests(alice)) == 3
    first.refresh_from_db()
    assert first.status == OutboxMessage.Status.SENT
    assert first.subject == "Your Gamenook digest: your turn at 2 tables"
    # The least time left first, each deadline in her zone.
    assert first.text.index(f"- Table {fast.pk}: ") < first.text.index(f"- Table {slow.pk}: ")
    assert f"- Table {fast.pk}: 23 hours left, until 2030-03-09 07:00 (America/New_York)." in (
        first.text
    )
    assert f"http://127.0.0.1:8000/tables/{slow.pk}/" in first.html
    assert "This digest comes at 08:00 (America/New_York)" in first.text
    # Sunday's, after the change: the 72-hour turn ends at 08:00 EDT; the 24-hour one timed
    # out on Saturday (13:00 UTC, the sweep) and her new turn there has an hour left.
    assert f"- Table {slow.pk}: 1 day left, until 2030-03-11 08:00 (America/New_York)." in (
        third.text
    )
    assert f"- Table {fast.pk}: 1 hour left, until 2030-03-10 09:00 (America/New_York)." in (
        third.text
    )


def test_nothing_to_say_sends_no_digest_and_the_next_one_is_tomorrow(jobs: Jobs) -> None:
    alice = make_user()
    due = datetime(2030, 5, 6, 8, 0, tzinfo=UTC)
    with time_machine.travel(due - timedelta(hours=1), tick=False) as clock:
        services.preferences_update(alice, digest=True, digest_hour=8, time_zone="UTC")
        clock.move_to(due)
        sweep(jobs)
    assert digests(alice) == []
    prefs = Preferences.objects.get(user=alice)
    assert prefs.digest_sent_at == due
    assert prefs.digest_due_at == due + timedelta(days=1)


def test_a_game_that_ended_is_in_one_digest_with_its_result_and_replay(jobs: Jobs) -> None:
    alice, bob = make_user(), make_user()
    due = datetime(2030, 5, 6, 8, 0, tzinfo=UTC)
    with time_machine.travel(due - timedelta(hours=5), tick=False) as clock:
        services.preferences_update(alice, digest=True, digest_hour=8, time_zone="UTC")
        table = started_table(alice, bob, turn_hours=24)
        games.table_concede(table_id=table.pk, user=bob)
        table.refresh_from_db()
        assert table.status == Table.Status.FINISHED
        clock.move_to(due)
        sweep(jobs)
        (message,) = digests(alice)
        clock.move_to(due + timedelta(days=1))  # nothing new: no second mention, no e-mail
        sweep(jobs)
    assert digests(alice) == [message]
    assert message.subject == "Your Gamenook digest: 1 game ended"
    assert f"- Table {table.pk}: you placed 1; you won." in message.text
    assert f"http://127.0.0.1:8000/tables/{table.pk}/replay/" in message.text
    assert f"http://127.0.0.1:8000/tables/{table.pk}/replay/" in message.html


def test_no_digest_to_a_player_who_unsubscribed_from_all_mail(jobs: Jobs) -> None:
    alice = make_user()
    due = datetime(2030, 5, 6, 8, 0, tzinfo=UTC)
    with time_machine.travel(due - timedelta(hours=1), tick=False) as clock:
        services.preferences_update(alice, digest=True, digest_hour=8, time_zone="UTC")
        table = started_table(alice, bots=1, turn_hours=72)
        her_turn(table, alice, jobs)
        services.user_unsubscribe(alice)
        clock.move_to(due)
        sweep(jobs)
    assert digests(alice) == []
    assert Preferences.objects.get(user=alice).digest_due_at == due + timedelta(days=1)


@needs_postgres
def test_a_digest_is_never_sent_twice_for_the_same_day(jobs: Jobs) -> None:
    alice = make_user()
    due = datetime(2030, 5, 6, 8, 0, tzinfo=UTC)
    with time_machine.travel(due - timedelta(hours=1), tick=False) as clock:
        services.preferences_update(alice, digest=True, digest_hour=8, time_zone="UTC")
        table = started_table(alice, bots=1, turn_hours=72)
        her_turn(table, alice, jobs)
        clock.move_to(due + timedelta(minutes=1))
        results = in_threads(
            lambda: digest_send(user_id=alice.pk), lambda: digest_send(user_id=alice.pk)
        )
        # Later the same day: a sweep, or a job delivered again, finds nothing due.
        clock.move_to(due + timedelta(hours=10))
        sweep(jobs)
        assert digest_send(user_id=alice.pk) is False
    assert sorted(results) == [False, True]
    assert len(digests(alice)) == 1
