"""Real-time tables with time travel: move timers, strikes, the seat held for two minutes.

The specification's "Time limits" and "If you disconnect", and PRODUCT.md
rulings 17 and 18. A worker holding a job queued for an instant is played by
``Jobs.run_due``; the races run on PostgreSQL with real row locks.
"""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest
import time_machine
from django.test import override_settings

import flip
from games import selectors
from games import services as games
from games.errors import Conflict, StaleSequence
from games.models import Connection, Move, Seat, Table
from notifications import jobs as jobs_module
from notifications import services, turns
from notifications.models import OutboxMessage, Reminder
from tabletop import realtime

from .conftest import Jobs, make_user, play_turn, seat_to_act, started_table
from .test_exactly_once import in_threads, kill_inside, needs_postgres

T0 = datetime(2030, 3, 1, 9, 0, tzinfo=UTC)
ROOT = Path(__file__).resolve().parents[2]

pytestmark = pytest.mark.django_db(transaction=True)


def fast_table(*players: Any, timer: str = "fast", **options: Any) -> Table:
    host, *others = players
    return started_table(host, *others, move_timer=timer, **options)


def to_act(table: Table) -> Seat:
    return seat_to_act(table)


def run_out(table: Table, clock: Any, jobs: Jobs) -> None:
    """Let the move timer of the turn now running run out; the held job applies it."""
    table.refresh_from_db()
    assert table.deadline_at is not None
    clock.move_to(table.deadline_at)
    jobs.run_due()
    table.refresh_from_db()


def until_turn_of(table: Table, seat: Seat, jobs: Jobs) -> None:
    """Play the other humans' turns (first legal action) until ``seat`` is to act."""
    for _ in range(200):
        jobs.drain()
        if to_act(table).number == seat.number or table.status != Table.Status.ACTIVE:
            return
        play_turn(table)
    raise AssertionError("the seat never came to act")


# ----------------------------------------------------------------------------
# Time limits


@pytest.mark.parametrize(("timer", "seconds"), [("relaxed", 45), ("normal", 30), ("fast", 15)])
def test_time_limits_each_move_timer_runs_its_seconds_with_no_reminder(
    timer: str, seconds: int, jobs: Jobs
) -> None:
    alice, bob = make_user(), make_user()
    with time_machine.travel(T0, tick=False):
        table = fast_table(alice, bob, timer=timer)
    assert table.move_seconds == seconds
    assert table.turn_started_at == T0
    assert table.deadline_at == T0 + timedelta(seconds=seconds)
    assert table.remind_at is None
    # The move timer is held by a worker for its very instant.
    assert (table.deadline_at, jobs_module.TIMEOUT, (table.pk, table.turn)) in jobs.timed


def test_time_limits_a_timer_before_its_instant_changes_nothing(jobs: Jobs) -> None:
    alice, bob = make_user(), make_user()
    with time_machine.travel(T0, tick=False) as clock:
        table = fast_table(alice, bob)
        seq = table.seq
        clock.shift(timedelta(seconds=14.9))
        assert services.table_apply_timeout(table_id=table.pk, turn=table.turn) is False
        assert services.sweep_realtime(run=services.run_inline).timeouts == 0
    table.refresh_from_db()
    assert table.seq == seq


def test_ruling_17_a_timed_out_move_is_ruling_4s_and_counts_one_strike(jobs: Jobs) -> None:
    alice, bob = make_user(), make_user()
    with time_machine.travel(T0, tick=False) as clock:
        table = fast_table(alice, bob)
        seat = to_act(table)
        assert table.state is not None
        expected = flip.timeout_action(flip.GameState.from_dict(table.state))
        seq, turn = table.seq, table.turn

        run_out(table, clock, jobs)

    moves = list(Move.objects.filter(table=table, seq__gt=seq).order_by("seq"))
    assert moves and {m.source for m in moves} == {Move.Source.TIMEOUT}
    assert moves[0].payload["action"] == expected.to_dict()
    assert table.turn > turn
    seat.refresh_from_db()
    assert seat.strikes == 1 and seat.user is not None and not seat.is_bot
    # The next turn has its own timer, for its own instant (ruling 6 as ruling 17 says).
    assert table.deadline_at == T0 + timedelta(seconds=30)
    assert (table.deadline_at, jobs_module.TIMEOUT, (table.pk, table.turn)) in jobs.timed


def test_ruling_17_strikes_need_not_be_in_a_row_and_the_third_gives_the_seat_to_a_bot(
    jobs: Jobs,
) -> None:
    alice, bob = make_user(), make_user()
    with time_machine.travel(T0, tick=False) as clock:
        table = fast_table(alice, bob)
        slow = to_act(table)
        assert slow.user is not None
        player = slow.user
        for strike in (1, 2, 3):
            until_turn_of(table, slow, jobs)
            run_out(table, clock, jobs)
            slow.refresh_from_db()
            assert slow.strikes == strike
            if strike == 1:
                # A turn played in time in between: strikes still add up.
                until_turn_of(table, slow, jobs)
                play_turn(table)
        jobs.drain()

    slow.refresh_from_db()
    # The player stays the seat's (ruling 18, revised); a Normal bot plays it for them.
    assert (slow.user, slow.previous_user, slow.bot_level) == (player, None, "")
    assert slow.struck_out and slow.bot_plays
    handed = Move.objects.get(table=table, action="replace_with_bot")
    assert handed.source == Move.Source.TIMEOUT
    assert handed.payload["events"] == [
        {"type": "replaced_by_bot", "seat": slow.number, "level": "normal"}
    ]
    # The player keeps their seat's view, and is refused a move: the bot plays it.
    assert selectors.viewer_seat(table, player) == slow.number
    with pytest.raises(Conflict) as refused:
        games.table_apply_action(
            table_id=table.pk, user=player, data={"type": "draw"}, expected_seq=None
        )
    assert refused.value.code == "struck_out"
    # The bot plays the seat's turns from now on.
    bot_moves = Move.objects.filter(table=table, seat=slow.number, source=Move.Source.BOT)
    with time_machine.travel(T0 + timedelta(minutes=10), tick=False):
        for _ in range(20):
            jobs.drain()
            table.refresh_from_db()
            if table.status != Table.Status.ACTIVE or bot_moves.exists():
                break
            play_turn(table)
    assert bot_moves.exists() or table.status != Table.Status.ACTIVE


def test_time_limits_no_reminder_and_no_turn_mail_at_a_real_time_table(jobs: Jobs) -> None:
    alice, bob = make_user(), make_user()
    with time_machine.travel(T0, tick=False) as clock:
        table = fast_table(alice, bob)
        clock.shift(timedelta(seconds=8))
        assert services.sweep(run=services.run_inline).reminders == 0
        run_out(table, clock, jobs)
        play_turn(table)
        jobs.drain()
    assert not Reminder.objects.exists()
    kinds = set(OutboxMessage.objects.values_list("kind", flat=True))
    assert kinds.isdisjoint({"your_turn", "reminder", "timeout"})


def test_ruling_17_a_bot_seat_at_a_real_time_table_is_never_struck(jobs: Jobs) -> None:
    alice = make_user()
    with time_machine.travel(T0, tick=False):
        table = fast_table(alice, bots=2, level="easy")
        for _ in range(50):
            jobs.drain()
            table.refresh_from_db()
            if table.status != Table.Status.ACTIVE:
                break
            play_turn(table)
    assert not Seat.objects.filter(table=table, strikes__gt=0).exists()


# ----------------------------------------------------------------------------
# If you disconnect


def test_ruling_18_a_connection_opened_again_stays_one_row(jobs: Jobs) -> None:
    """A channel named twice (a handshake retried) is one connection, seen at the last."""
    alice, bob = make_user(), make_user()
    with time_machine.travel(T0, tick=False) as clock:
        table = fast_table(alice, bob)
        games.presence_open(table_id=table.pk, user=alice, channel="a1")
        clock.shift(timedelta(seconds=5))
        games.presence_open(table_id=table.pk, user=alice, channel="a1")
    row = Connection.objects.get(channel="a1")
    assert (row.table_id, row.user_id) == (table.pk, alice.pk)
    assert (row.opened_at, row.seen_at) == (T0, T0 + timedelta(seconds=5))
    assert Connection.objects.filter(table=table).count() == 1


def test_ruling_18_presence_follows_the_connections(jobs: Jobs) -> None:
    alice, bob = make_user(), make_user()
    with time_machine.travel(T0, tick=False):
        table = fast_table(alice, bob)
        games.presence_open(table_id=table.pk, user=alice, channel="a1")
        games.presence_open(table_id=table.pk, user=alice, channel="a2")
        seats = {s["username"]: s for s in selectors.table_seats(table)}
        assert (seats[alice.username]["connected"], seats[bob.username]["connected"]) == (
            True,
            False,
        )
        games.presence_close(channel="a1")
        mine = Seat.objects.get(table=table, user=alice)
        assert mine.held_until is None  # another connection is still open
        games.presence_close(channel="a2")
        games.presence_close(channel="a2")  # twice changes nothing
    mine.refresh_from_db()
    assert mine.held_until == T0 + timedelta(seconds=realtime.HOLD_SECONDS)
    seats = {s["username"]: s for s in selectors.table_seats(table)}
    assert seats[alice.username]["connected"] is False
    assert seats[alice.username]["held_until"] == mine.held_until
    assert (mine.held_until, jobs_module.HOLD, (table.pk, mine.number)) in jobs.timed


def test_ruling_18_the_seat_is_held_two_minutes_then_a_normal_bot_plays_it(
    jobs: Jobs, monkeypatch: pytest.MonkeyPatch
) -> None:
    # A deal where the timed-out move passes the turn: one that kept it (a Skip, a Draw
    # One at two seats) would start the held seat's next timer at once, and that timer
    # would run out, a second strike, before the hold does.
    monkeypatch.setattr("games.services.new_game_seed", lambda: "held seat")
    alice, bob = make_user(), make_user()
    with time_machine.travel(T0, tick=False) as clock:
        table = fast_table(alice, bob, timer="relaxed")
        away = to_act(table)
        assert away.user is not None
        games.presence_open(table_id=table.pk, user=away.user, channel="c")
        games.presence_close(channel="c")

        # The timer keeps running while the seat is held: the turn times out, the plain
        # move and no strike (ruling 18, revised).
        clock.move_to(T0 + timedelta(seconds=45))
        jobs.run_due()
        away.refresh_from_db()
        assert (away.strikes, away.away) == (0, False)
        assert to_act(table).number != away.number  # the deal's promise above

        clock.move_to(T0 + timedelta(seconds=100))
        until_turn_of(table, away, jobs)
        seq = Table.objects.get(pk=table.pk).seq
        clock.move_to(T0 + timedelta(seconds=realtime.HOLD_SECONDS - 1))
        assert games.seat_hold_expire(table_id=table.pk, number=away.number) is False
        clock.move_to(T0 + timedelta(seconds=realtime.HOLD_SECONDS))
        jobs.run_due()  # the hold's own job, at its instant, then the bot's turn
        away.refresh_from_db()
        assert away.away and away.held_until is None and away.user is not None
    assert Move.objects.filter(
        table=table, seq__gt=seq, seat=away.number, source=Move.Source.BOT
    ).exists()
    facts = {s["number"]: s for s in selectors.table_seats(table)}[away.number]
    assert (facts["away"], facts["strikes"], facts["replaced"]) == (True, 0, False)


def test_ruling_18_the_player_has_the_seat_back_from_the_next_decision(jobs: Jobs) -> None:
    alice, bob = make_user(), make_user()
    with time_machine.travel(T0, tick=False) as clock:
        table = fast_table(alice, bob)
        games.presence_open(table_id=table.pk, user=alice, channel="a")
        games.presence_close(channel="a")
        mine = Seat.objects.get(table=table, user=alice)
        clock.shift(timedelta(seconds=realtime.HOLD_SECONDS))
        assert games.seat_hold_expire(table_id=table.pk, number=mine.number) is True

        games.presence_open(table_id=table.pk, user=alice, channel="a-again")
        seq = Table.objects.get(pk=table.pk).seq
        mine.refresh_from_db()
        assert not mine.away and mine.held_until is None
        until_turn_of(table, mine, jobs)
        jobs.drain()
    # Alice's turn waits for her: no bot moved for her seat after she returned.
    assert to_act(table).number == mine.number
    assert not Move.objects.filter(table=table, seq__gt=seq, seat=mine.number).exists()


def test_ruling_18_a_disconnect_changes_no_card(jobs: Jobs) -> None:
    alice, bob = make_user(), make_user()
    with time_machine.travel(T0, tick=False) as clock:
        table = fast_table(alice, bob)
        before = Table.objects.get(pk=table.pk)
        games.presence_open(table_id=table.pk, user=alice, channel="a")
        games.presence_close(channel="a")
        clock.shift(timedelta(seconds=5))
    after = Table.objects.get(pk=table.pk)
    assert (after.state, after.seq) == (before.state, before.seq)
    assert after.presence_version > before.presence_version


def test_ruling_18_a_hold_at_a_turn_by_turn_table_never_starts(jobs: Jobs) -> None:
    alice, bob = make_user(), make_user()
    table = started_table(alice, bob, turn_hours=12)
    games.presence_open(table_id=table.pk, user=alice, channel="a")
    games.presence_close(channel="a")
    assert Seat.objects.get(table=table, user=alice).held_until is None
    assert all(s["connected"] is None for s in selectors.table_seats(table))


# ----------------------------------------------------------------------------
# The safety net: the real-time sweep


def test_the_realtime_sweep_hands_out_a_lost_timer_a_lost_hold_and_dead_connections(
    jobs: Jobs,
) -> None:
    alice, bob = make_user(), make_user()
    with time_machine.travel(T0, tick=False) as clock:
        table = fast_table(alice, bob)
        games.presence_open(table_id=table.pk, user=alice, channel="dies")
        games.presence_open(table_id=table.pk, user=bob, channel="lives")
        jobs.timed.clear()  # the broker lost every held job
        clock.shift(timedelta(seconds=15))
        games.presence_touch(channels=["lives"])
        # Within the grace the timer's own job still has it.
        assert services.sweep_realtime(run=services.run_inline).timeouts == 0
        clock.shift(timedelta(seconds=80))
        result = services.sweep_realtime(run=services.run_inline)
        assert result.timeouts == 1
        assert result.connections == 1  # alice's heartbeat stopped 95 s ago
        assert Connection.objects.filter(channel="lives").exists()
        jobs.timed.clear()
        clock.shift(timedelta(seconds=realtime.HOLD_SECONDS))
        result = services.sweep_realtime(run=services.run_inline)
        assert result.holds == 1
    assert Seat.objects.get(table=table, user=alice).away
    assert not Seat.objects.get(table=table, user=bob).away


# ----------------------------------------------------------------------------
# Exactly once: the cases the turn-by-turn deadlines are tested with


@needs_postgres
@pytest.mark.parametrize("repeat", range(5))
def test_a_timer_racing_a_players_move_at_its_instant_acts_at_most_once(
    repeat: int, jobs: Jobs
) -> None:
    alice, bob = make_user(), make_user()
    with time_machine.travel(T0, tick=False) as clock:
        table = fast_table(alice, bob)
        seat = to_act(table)
        assert seat.user is not None and table.state is not None
        state = flip.GameState.from_dict(table.state)
        action = flip.legal_actions(state, seat.number)[0]
        data = {
            "type": action.type,
            "card": flip.handle(state, action.card) if action.card >= 0 else None,
            "color": flip.COLORS[action.color] if action.color >= 0 else None,
        }
        clock.move_to(table.deadline_at)
        user, seq, turn = seat.user, table.seq, table.turn
        timed_out, moved = in_threads(
            lambda: services.table_apply_timeout(table_id=table.pk, turn=turn),
            lambda: games.table_apply_action(
                table_id=table.pk, user=user, data=data, expected_seq=seq
            ),
        )
    seat.refresh_from_db()
    if timed_out is True:
        assert seat.strikes == 1
        assert isinstance(moved, games.MoveResult | StaleSequence)
    else:
        assert timed_out is False and isinstance(moved, games.MoveResult)
        assert seat.strikes == 0
        assert not Move.objects.filter(table=table, source=Move.Source.TIMEOUT).exists()


@needs_postgres
@pytest.mark.parametrize("repeat", range(3))
def test_two_workers_with_the_same_timer_strike_once(repeat: int, jobs: Jobs) -> None:
    alice, bob = make_user(), make_user()
    with time_machine.travel(T0, tick=False) as clock:
        table = fast_table(alice, bob)
        seat = to_act(table)
        clock.move_to(table.deadline_at)
        turn, seq = table.turn, table.seq
        results = in_threads(
            lambda: services.table_apply_timeout(table_id=table.pk, turn=turn),
            lambda: services.table_apply_timeout(table_id=table.pk, turn=turn),
            lambda: services.sweep_realtime(
                now=T0 + timedelta(seconds=60), run=services.run_inline
            ),
        )
    assert sorted(r for r in results[:2]) == [False, True] or results[:2] == [False, False]
    seat.refresh_from_db()
    assert seat.strikes == 1
    seqs = list(
        Move.objects.filter(table=table, source=Move.Source.TIMEOUT).values_list("seq", flat=True)
    )
    assert seqs == list(range(seq + 1, seq + 1 + len(seqs)))


KILLED_WORKER = """
import sys, time
import django
django.setup()
from notifications import services, turns
real = turns._timeout_mail
def stall(*args, **kwargs):
    found = real(*args, **kwargs)
    print("inside", flush=True)
    time.sleep(60)
    return found
turns._timeout_mail = stall
services.table_apply_timeout(table_id=int(sys.argv[1]), turn=int(sys.argv[2]))
"""


@needs_postgres
def test_a_worker_killed_in_the_middle_of_a_timer_loses_nothing_and_strikes_once(
    jobs: Jobs,
) -> None:
    alice, bob = make_user(), make_user()
    table = fast_table(alice, bob)
    # The worker process runs on the real clock: put the timer's instant behind it.
    Table.objects.filter(pk=table.pk).update(deadline_at=datetime.now(UTC) - timedelta(seconds=5))
    seat = to_act(table)
    # The timeout and the strike are written, not committed, when the worker dies.
    kill_inside(KILLED_WORKER, table.pk, table.turn)
    seat.refresh_from_db()
    assert seat.strikes == 0
    assert not Move.objects.filter(table=table, source=Move.Source.TIMEOUT).exists()

    now = datetime.now(UTC)
    assert services.sweep_realtime(now=now, run=services.run_inline).timeouts == 1
    assert services.sweep_realtime(now=now, run=services.run_inline).timeouts == 0
    seat.refresh_from_db()
    assert seat.strikes == 1


@override_settings(GAMENOOK_SEAT_HOLD_SECONDS=3)
def test_the_hold_is_a_setting(jobs: Jobs) -> None:
    alice, bob = make_user(), make_user()
    with time_machine.travel(T0, tick=False):
        table = fast_table(alice, bob)
        games.presence_open(table_id=table.pk, user=alice, channel="a")
        games.presence_close(channel="a")
    assert Seat.objects.get(table=table, user=alice).held_until == T0 + timedelta(seconds=3)


def test_the_timeout_job_is_harmless_at_a_table_with_no_turn_left(jobs: Jobs) -> None:
    alice, bob = make_user(), make_user()
    with time_machine.travel(T0, tick=False) as clock:
        table = fast_table(alice, bob)
        turn = table.turn
        games.table_concede(table_id=table.pk, user=bob)
        clock.shift(timedelta(seconds=60))
        assert turns.table_apply_timeout(table_id=table.pk, turn=turn) is False


def test_ruling_18_a_player_who_acts_while_away_is_back_in_one_change(jobs: Jobs) -> None:
    alice, bob = make_user(), make_user()
    with time_machine.travel(T0, tick=False) as clock:
        table = fast_table(alice, bob, timer="relaxed")
        mine = to_act(table)
        assert mine.user is not None
        games.presence_open(table_id=table.pk, user=mine.user, channel="c")
        games.presence_close(channel="c")
        clock.shift(timedelta(seconds=realtime.HOLD_SECONDS))
        table.refresh_from_db()
        Table.objects.filter(pk=table.pk).update(deadline_at=T0 + timedelta(minutes=5))
        assert games.seat_hold_expire(table_id=table.pk, number=mine.number) is True
        before = Table.objects.get(pk=table.pk)
        jobs.clear()  # the bot's turn queued for the away seat is not run
        play_turn(table)
    mine.refresh_from_db()
    assert not mine.away and mine.held_until is None
    after = Table.objects.get(pk=table.pk)
    assert after.presence_version == before.presence_version + 1
    # The move and the return are one change: one follow-ups job per move, no extra.
    moves = Move.objects.filter(table=table, seq__gt=before.seq).count()
    assert jobs.names().count(jobs_module.FOLLOWUPS) == moves
