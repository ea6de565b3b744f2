"""Time travel over the 12, 24 and 72-hour deadlines: reminders, timeouts and bot turns."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest
import time_machine
from django.core import mail

import flip
from games.models import Move, Seat, Table
from notifications import services
from notifications.models import OutboxMessage, Reminder

from .conftest import Jobs, make_user, play_turn, seat_to_act, started_table

T0 = datetime(2030, 3, 1, 9, 0, tzinfo=UTC)

pytestmark = pytest.mark.django_db(transaction=True)


def sweep() -> services.SweepResult:
    """One sweep, each job run here and now (a worker would run the same functions)."""
    return services.sweep(run=services.run_inline)


@pytest.mark.parametrize("hours", [12, 24, 72])
def test_reminder_is_sent_exactly_at_half_time(hours: int, jobs: Jobs) -> None:
    alice, bob = make_user(), make_user()
    for user in (alice, bob):
        # The reminder is the turn's first message only without "your turn" (issue 38:
        # one message per table and turn; test_last_call.py has the rule itself).
        services.preferences_update(user, your_turn=False)
    with time_machine.travel(T0, tick=False) as clock:
        table = started_table(alice, bob, turn_hours=hours)
        jobs.drain()
        turn = table.turn
        player = seat_to_act(table).user
        assert table.remind_at == T0 + timedelta(hours=hours / 2)

        clock.shift(timedelta(hours=hours / 2) - timedelta(seconds=1))
        assert sweep().reminders == 0

        clock.shift(timedelta(seconds=1))
        assert sweep().reminders == 1
        jobs.drain()

    assert Reminder.objects.filter(table=table, turn=turn).count() == 1
    message = OutboxMessage.objects.get(kind=OutboxMessage.Kind.REMINDER)
    assert message.user == player
    assert message.status == OutboxMessage.Status.SENT
    assert [m.subject for m in mail.outbox if "Half" in m.subject] == [
        f"Half your time is gone at table {table.pk}"
    ]


@pytest.mark.parametrize("hours", [12, 24, 72])
def test_bot_policy_plays_the_plain_move_at_the_deadline_and_keeps_the_seat(
    hours: int, jobs: Jobs
) -> None:
    alice, bob = make_user(), make_user()
    for user in (alice, bob):
        # The timeout is the turn's first message: a turn told of already is not mailed
        # again when the table plays its plain move (one message a turn, issue 38).
        services.preferences_update(user, your_turn=False, reminder=False, last_call=False)
    with time_machine.travel(T0, tick=False) as clock:
        table = started_table(alice, bob, turn_hours=hours, timeout_policy="bot")
        jobs.drain()
        seat = seat_to_act(table)
        assert table.state is not None
        state = flip.GameState.from_dict(table.state)
        expected_first = flip.timeout_action(state)
        seq, turn = table.seq, table.turn

        clock.shift(timedelta(hours=hours) - timedelta(seconds=1))
        assert sweep().timeouts == 0
        clock.shift(timedelta(seconds=1))
        assert sweep().timeouts == 1
        jobs.drain()

        table.refresh_from_db()
        moves = list(Move.objects.filter(table=table, seq__gt=seq).order_by("seq"))
        assert moves and {m.source for m in moves} == {Move.Source.TIMEOUT}
        assert moves[0].payload["action"] == expected_first.to_dict()
        assert {m.seat for m in moves} == {seat.number}
        seat.refresh_from_db()
        assert seat.left_at is None and seat.user is not None
        assert table.turn > turn
        # The next turn has its own deadline and reminder, counted from now.
        if table.status == Table.Status.ACTIVE:
            assert table.deadline_at == T0 + timedelta(hours=hours) + timedelta(hours=hours)
            assert table.remind_at == T0 + timedelta(hours=hours) + timedelta(hours=hours / 2)
            # The earliest last call: a tenth of the turn's time before its deadline.
            assert table.last_call_at == table.deadline_at - timedelta(hours=hours / 10)

    message = OutboxMessage.objects.get(kind=OutboxMessage.Kind.TIMEOUT)
    assert message.user == seat.user
    assert "played the turn for you" in message.text


@pytest.mark.parametrize("hours", [12, 24, 72])
def test_leave_policy_removes_the_player_at_the_deadline(hours: int, jobs: Jobs) -> None:
    players = [make_user() for _ in range(3)]
    with time_machine.travel(T0, tick=False) as clock:
        table = started_table(*players, turn_hours=hours, timeout_policy="leave")
        jobs.drain()
        seat = seat_to_act(table)
        seq = table.seq

        clock.shift(timedelta(hours=hours))
        assert sweep().timeouts == 1
        jobs.drain()

    table.refresh_from_db()
    move = Move.objects.get(table=table, seq=seq + 1)
    assert (move.action, move.source, move.seat) == ("leave", Move.Source.TIMEOUT, seat.number)
    seat.refresh_from_db()
    assert seat.left_at is not None
    assert table.state is not None and table.state["active"][seat.number] is False
    assert table.status == Table.Status.ACTIVE
    assert table.deadline_at == T0 + 2 * timedelta(hours=hours)
    message = OutboxMessage.objects.get(kind=OutboxMessage.Kind.TIMEOUT)
    assert message.user == seat.user
    assert "treated as having left" in message.text


def test_a_turn_that_ends_before_its_reminder_gets_none(jobs: Jobs) -> None:
    alice, bob = make_user(), make_user()
    with time_machine.travel(T0, tick=False) as clock:
        table = started_table(alice, bob, turn_hours=12)
        jobs.drain()
        first_turn = table.turn
        clock.shift(timedelta(hours=6) - timedelta(minutes=1))
        play_turn(table)
        jobs.drain()
        table.refresh_from_db()
        second_turn = table.turn

        clock.shift(timedelta(minutes=2))  # past the first turn's halfway point
        assert sweep().reminders == 0
        assert not Reminder.objects.filter(table=table, turn=first_turn).exists()

        # The new turn has a reminder of its own, at its own halfway point.
        clock.shift(timedelta(hours=6) - timedelta(minutes=2))
        assert sweep().reminders == 1
        jobs.drain()
    assert list(Reminder.objects.values_list("turn", flat=True)) == [second_turn]
    assert OutboxMessage.objects.filter(kind=OutboxMessage.Kind.REMINDER).count() == 1


def test_no_reminder_is_left_to_send_once_the_deadline_has_passed(jobs: Jobs) -> None:
    alice, bob = make_user(), make_user()
    with time_machine.travel(T0, tick=False) as clock:
        table = started_table(alice, bob, turn_hours=12)
        clock.shift(timedelta(hours=12))
        result = sweep()
    assert (result.timeouts, result.reminders) == (1, 0)
    assert not Reminder.objects.filter(table=table).exists()


def test_bots_take_their_turns_at_once_without_a_sweep(jobs: Jobs) -> None:
    alice = make_user()
    with time_machine.travel(T0, tick=False):
        table = started_table(alice, bots=2, turn_hours=24)
        for _ in range(20):
            jobs.drain()
            if seat_to_act(table).user == alice or table.status != Table.Status.ACTIVE:
                break
        assert seat_to_act(table).user == alice
        before = table.seq
        play_turn(table)
        # The commit hands the follow-ups to a worker; they queue the bot's turn.
        assert jobs.names() == [services.FOLLOWUPS]
        jobs.run(services.FOLLOWUPS)
        assert jobs and set(jobs.names()) == {services.BOT_TURN}
        jobs.drain()
        table.refresh_from_db()
    bot_moves = Move.objects.filter(table=table, seq__gt=before, source=Move.Source.BOT)
    if table.status == Table.Status.ACTIVE:
        assert seat_to_act(table).user == alice
        assert bot_moves.exists()


def test_your_turn_mail_goes_to_the_human_whose_turn_starts_once_they_are_away(
    jobs: Jobs,
) -> None:
    alice, bob = make_user(), make_user()
    with time_machine.travel(T0, tick=False) as clock:
        table = started_table(alice, bob, turn_hours=24)
        jobs.drain()
        first = seat_to_act(table)
        assert not OutboxMessage.objects.exists()  # ruling 19: not at once
        clock.shift(timedelta(minutes=10))  # away for the quiet delay
        services.sweep(run=services.run_inline)
        jobs.drain()
        play_turn(table)
        jobs.drain()
        second = seat_to_act(table)
        clock.shift(timedelta(minutes=10))
        services.sweep(run=services.run_inline)
        jobs.drain()
    sent = OutboxMessage.objects.filter(kind=OutboxMessage.Kind.YOUR_TURN).order_by("pk")
    assert [(m.user, m.turn) for m in sent][:2] == [(first.user, 1), (second.user, table.turn)]
    assert all(m.status == OutboxMessage.Status.SENT for m in sent)


def test_the_sweep_catches_a_bot_turn_whose_job_was_lost(jobs: Jobs) -> None:
    alice = make_user()
    with time_machine.travel(T0, tick=False) as clock:
        table = started_table(alice, bots=1, turn_hours=24)
        jobs.drain()
        while seat_to_act(table).user == alice:  # a two-seat Skip gives another turn
            play_turn(table)
        jobs.clear()  # the broker lost the bot's job
        assert seat_to_act(table).is_bot
        assert services.sweep_bots(run=services.run_inline).bots == 0  # within the grace
        clock.shift(timedelta(seconds=31))
        assert services.sweep_bots(run=services.run_inline).bots == 1
    table.refresh_from_db()
    assert Move.objects.filter(table=table, source=Move.Source.BOT).exists()


def test_a_bot_whose_deadline_passes_plays_its_own_turn(jobs: Jobs) -> None:
    alice = make_user()
    with time_machine.travel(T0, tick=False) as clock:
        table = started_table(alice, bots=1, turn_hours=12, timeout_policy="leave")
        jobs.drain()
        while seat_to_act(table).user == alice:  # a two-seat Skip gives another turn
            play_turn(table)
        jobs.clear()
        bot = seat_to_act(table)
        assert bot.is_bot
        clock.shift(timedelta(hours=12))
        assert sweep().timeouts == 1
    bot.refresh_from_db()
    assert bot.left_at is None
    assert not Move.objects.filter(table=table, source=Move.Source.TIMEOUT).exists()
    assert Seat.objects.filter(table=table, left_at__isnull=False).count() == 0
