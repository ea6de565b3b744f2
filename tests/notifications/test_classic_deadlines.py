"""Classic Wild Cards tables with time travel: deadlines and their policies, the halfway
reminder, ruling 24's timeout move (a waiting penalty taken), jump-in windows that last the
deadline, bots jumping in through the follow-ups, and real-time timers, strikes and holds."""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest
import time_machine
from django.contrib.auth.models import User

import wildcards
from games import selectors
from games import services as games
from games.models import Move, Seat, Table
from notifications import followups, services, turns
from notifications import jobs as jobs_module
from notifications.models import OutboxMessage, Reminder
from tabletop import realtime
from tests.factories import legal_request

from .conftest import Jobs, make_user, seat_to_act, started_table

T0 = datetime(2030, 3, 1, 9, 0, tzinfo=UTC)

pytestmark = pytest.mark.django_db(transaction=True)

ALL_RULES: dict[str, Any] = {
    "stacking": True,
    "seven_zero": True,
    "jump_in": True,
    "draw_until_playable": True,
}


def classic_table(*players: User, bots: int = 0, **table: Any) -> Table:
    host, *others = players
    return started_table(
        host,
        *others,
        bots=bots,
        game="wildcards",
        options={**ALL_RULES, **table.pop("rules", {})},
        **table,
    )


def state_of(table: Table) -> wildcards.GameState:
    table.refresh_from_db()
    assert table.state is not None
    return wildcards.GameState.from_dict(table.state)


def sweep() -> services.SweepResult:
    return services.sweep(run=services.run_inline)


def play_turn(table: Table) -> None:
    """The person to act finishes their turn, each action the first their view offers."""
    rules = selectors.ruleset_of(table)
    turn = state_of(table).turn
    while table.status == Table.Status.ACTIVE:
        state = state_of(table)
        if state.turn != turn:
            return
        seat = seat_to_act(table)
        assert seat.user is not None
        games.table_apply_action(
            table_id=table.pk,
            user=seat.user,
            data=legal_request(rules.view(state, seat.number)),
            expected_seq=None,
        )


def play_until(table: Table, jobs: Jobs, wanted: Callable[[wildcards.GameState], bool]) -> None:
    """Play people's turns (and let bots play theirs) until ``wanted(state)`` holds."""
    for _ in range(400):
        jobs.drain()
        state = state_of(table)
        assert not state.over, "the game ended first"
        if wanted(state):
            return
        play_turn(table)
    raise AssertionError("never came")


# ----------------------------------------------------------------------------
# Turn by turn


def test_the_halfway_reminder_of_a_classic_turn(jobs: Jobs) -> None:
    alice, bob = make_user(), make_user()
    for user in (alice, bob):
        # Without "your turn" the reminder is the turn's one message (issue 38).
        services.preferences_update(user, your_turn=False)
    with time_machine.travel(T0, tick=False) as clock:
        table = classic_table(alice, bob, turn_hours=12)
        jobs.drain()
        player = seat_to_act(table).user
        clock.shift(timedelta(hours=6) - timedelta(seconds=1))
        assert sweep().reminders == 0
        clock.shift(timedelta(seconds=1))
        assert sweep().reminders == 1
        jobs.drain()
    assert Reminder.objects.filter(table=table, turn=table.turn).count() == 1
    message = OutboxMessage.objects.get(kind=OutboxMessage.Kind.REMINDER)
    assert message.user == player and message.status == OutboxMessage.Status.SENT


def test_the_bot_policy_plays_the_turn_to_its_end_by_ruling_24(jobs: Jobs) -> None:
    players = [make_user() for _ in range(3)]
    with time_machine.travel(T0, tick=False) as clock:
        table = classic_table(*players, turn_hours=24, timeout_policy="bot")
        jobs.drain()
        seat = seat_to_act(table)
        state = state_of(table)
        expected = wildcards.timeout_action(state)
        seq, turn = table.seq, state.turn

        clock.shift(timedelta(hours=24))
        assert sweep().timeouts == 1
        jobs.drain()

    moves = list(Move.objects.filter(table=table, seq__gt=seq).order_by("seq"))
    assert moves and {m.source for m in moves} == {Move.Source.TIMEOUT}
    assert {m.seat for m in moves} == {seat.number}
    assert moves[0].payload["action"] == expected.to_dict()
    # The turn was played to its end (colour, play or draw, the drawn card): the next
    # seat's turn, or the game over.
    after = state_of(table)
    assert after.over or after.turn > turn
    seat.refresh_from_db()
    assert seat.left_at is None and seat.strikes == 0
    message = OutboxMessage.objects.get(kind=OutboxMessage.Kind.TIMEOUT)
    assert message.user == seat.user and "played the turn for you" in message.text
    # The mail says in words what was done, from the seat's own events.
    assert "\n- It " in message.text


def test_the_leave_policy_at_a_classic_table(jobs: Jobs) -> None:
    players = [make_user() for _ in range(3)]
    with time_machine.travel(T0, tick=False) as clock:
        table = classic_table(*players, turn_hours=12, timeout_policy="leave")
        jobs.drain()
        seat = seat_to_act(table)
        seq = table.seq
        clock.shift(timedelta(hours=12))
        assert sweep().timeouts == 1
        jobs.drain()
    move = Move.objects.get(table=table, seq=seq + 1)
    assert (move.action, move.source, move.seat) == ("leave", Move.Source.TIMEOUT, seat.number)
    assert state_of(table).active[seat.number] is False
    seat.refresh_from_db()
    assert seat.left_at is not None
    message = OutboxMessage.objects.get(kind=OutboxMessage.Kind.TIMEOUT)
    assert "treated as having left" in message.text


def test_a_waiting_penalty_is_taken_on_timeout_even_when_it_could_be_answered(
    jobs: Jobs,
) -> None:
    players = [make_user() for _ in range(3)]
    with time_machine.travel(T0, tick=False) as clock:
        table = classic_table(*players, turn_hours=12, timeout_policy="bot")
        play_until(table, jobs, lambda s: s.pending == wildcards.PENDING_PENALTY)
        state = state_of(table)
        victim, count = state.current, state.penalty
        table.refresh_from_db()
        seq = table.seq
        clock.move_to(table.deadline_at)
        assert sweep().timeouts == 1
        jobs.drain()

    first = Move.objects.filter(table=table, seq__gt=seq).order_by("seq").first()
    assert first is not None
    assert (first.seat, first.action, first.source) == (
        victim,
        wildcards.TAKE_PENALTY,
        Move.Source.TIMEOUT,
    )
    drawn = [e for e in first.payload["events"] if e["type"] == "draw"]
    assert drawn and drawn[0]["reason"] == "penalty" and len(drawn[0]["cards"]) <= count
    message = OutboxMessage.objects.get(kind=OutboxMessage.Kind.TIMEOUT)
    assert f"It took {len(drawn[0]['cards'])} card" in message.text


def test_describe_timeout_tells_classic_events_in_words() -> None:
    seen = [
        {"type": "penalty", "seat": 1, "count": 4},
        {"type": "draw", "seat": 1, "reason": "penalty", "count": 4, "faces": ["red-1"] * 4},
        {"type": "play", "seat": 2, "face": "blue-7", "target": 0},
        {"type": "swap", "seats": [2, 0], "counts": [5, 6]},
        {"type": "play", "seat": 0, "face": "green-0"},
        {"type": "rotate", "direction": "clockwise", "counts": [5, 5, 5]},
        {"type": "draw", "seat": 0, "reason": "draw", "count": 3, "faces": ["a", "b", "c"]},
    ]
    assert turns.describe_timeout(seen[:2], 1) == ["took 4 cards"]
    assert turns.describe_timeout(seen[2:4], 2) == ["played blue-7", "swapped hands with seat 0"]
    assert turns.describe_timeout(seen[2:4], 0) == []  # the target did nothing itself
    assert turns.describe_timeout(seen[4:], 0) == [
        "played green-0",
        "moved every hand on to the next player",
        "drew 3 cards",
    ]


def test_the_jump_in_window_lasts_the_whole_deadline_and_the_timeout_closes_it(
    jobs: Jobs,
) -> None:
    """R16: turn by turn, a seat holding the twin may jump in for the whole deadline of the
    player to act; their timeout move closes the window (and never jumps in itself, R21)."""
    from wildcards.cards import TWIN_OF

    players = [make_user() for _ in range(3)]
    with time_machine.travel(T0, tick=False) as clock:
        table = classic_table(*players, turn_hours=12, timeout_policy="bot")
        play_until(
            table,
            jobs,
            lambda s: (
                s.window
                and s.pending is None
                and TWIN_OF[s.discard[-1]] >= 0
                and TWIN_OF[s.discard[-1]] not in s.discard
            ),
        )
        state = state_of(table)
        twin = TWIN_OF[state.discard[-1]]
        jumper = (state.current + 1) % 3
        holder = (
            next(i for i, h in enumerate(state.hands) if twin in h)
            if any(twin in h for h in state.hands)
            else None
        )
        # Give the twin to the jumper (a card of theirs goes where the twin was).
        given = next(c for c in state.hands[jumper] if c != twin)
        if holder is None:
            state.draw[state.draw.index(twin)] = given
        else:
            state.hands[holder][state.hands[holder].index(twin)] = given
        state.hands[jumper][state.hands[jumper].index(given)] = twin
        table.refresh_from_db()
        table.state = state.to_dict()
        table.save(update_fields=["state"])
        rules = selectors.ruleset_of(table)

        clock.move_to(table.deadline_at - timedelta(seconds=1))
        offered = rules.view(state_of(table), jumper)["legal_actions"]
        assert offered and offered[0]["jump_in"] is True
        seq = table.seq
        clock.move_to(table.deadline_at)
        assert sweep().timeouts == 1
        jobs.drain()

    moves = Move.objects.filter(table=table, seq__gt=seq).order_by("seq")
    assert moves.first() is not None and moves.first().source == Move.Source.TIMEOUT
    assert not any(
        e.get("jump_in")
        for m in moves.filter(source=Move.Source.TIMEOUT)
        for e in m.payload["events"]
    )
    after = state_of(table)
    if not after.over and jumper != after.current:
        assert after.window is False or after.discard[-1] != twin


@pytest.mark.parametrize("timer", [None, "relaxed"])
def test_a_bot_holding_the_twin_jumps_in_through_the_followups(
    jobs: Jobs, timer: str | None
) -> None:
    """R21: the follow-ups of a person's move queue a bot job when a bot may jump in,
    even though a person is to act; the bot then plays its twin out of turn. At a
    real-time table the bot waits a human-like moment first (``BOT_JUMP_IN_DELAY``)."""
    from wildcards.cards import KIND_OF, NUMBER_OF, TWIN_OF

    alice, bob = make_user(), make_user()
    with time_machine.travel(T0, tick=False) as clock:
        table = classic_table(
            alice, bob, bots=1, turn_hours=24, move_timer=timer, rules={"seven_zero": False}
        )
        # Alice to act with a plain number card she may play; its twin goes to the bot.
        bot = Seat.objects.get(table=table, bot_level__gt="")
        for _ in range(400):
            jobs.drain()
            state = state_of(table)
            assert not state.over
            seat = seat_to_act(table)
            following = (seat.number + state.direction) % 3
            if seat.user == alice and state.pending is None and following != bot.number:
                plays = [
                    a
                    for a in wildcards.legal_actions(state, seat.number)
                    if a.type == "play"
                    and KIND_OF[a.card] == 0
                    and NUMBER_OF[a.card] > 0
                    and TWIN_OF[a.card] not in state.discard
                ]
                if plays:
                    break
            play_turn(table)
        else:
            raise AssertionError("no plain play for alice came")
        card = plays[0].card
        twin = TWIN_OF[card]
        holder = next((h for h in state.hands if twin in h), state.draw)
        given = next(c for c in state.hands[bot.number] if c != twin)
        holder[holder.index(twin)] = given
        state.hands[bot.number][state.hands[bot.number].index(given)] = twin
        table.refresh_from_db()
        table.state = state.to_dict()
        table.save(update_fields=["state"])
        seq = table.seq
        jobs.clear()

        games.table_apply_action(
            table_id=table.pk,
            user=alice,
            data={"type": "play", "card": wildcards.handle(state_of(table), card)},
            expected_seq=None,
        )
        jobs.run(services.FOLLOWUPS)
        if timer is None:
            assert services.BOT_TURN in jobs.names()
        else:
            assert services.BOT_TURN not in jobs.names()
            due = T0 + followups.BOT_JUMP_IN_DELAY
            assert (due, services.BOT_TURN, (table.pk, seq + 1)) in jobs.timed
            clock.move_to(due)
            jobs.run_due()
        jobs.drain()

    jumped = [
        m
        for m in Move.objects.filter(table=table, seq__gt=seq + 1, seat=bot.number)
        if any(e.get("jump_in") for e in m.payload["events"])
    ]
    assert jumped and jumped[0].seq == seq + 2 and jumped[0].source == Move.Source.BOT


# ----------------------------------------------------------------------------
# Real time


def run_out(table: Table, clock: Any, jobs: Jobs) -> None:
    table.refresh_from_db()
    assert table.deadline_at is not None
    clock.move_to(table.deadline_at)
    jobs.run_due()
    table.refresh_from_db()


def until_turn_of(table: Table, seat: Seat, jobs: Jobs) -> None:
    for _ in range(300):
        jobs.drain()
        table.refresh_from_db()
        if table.status != Table.Status.ACTIVE or seat_to_act(table).number == seat.number:
            return
        play_turn(table)
    raise AssertionError("the seat never came to act")


def test_a_classic_move_timer_plays_ruling_24s_move_and_counts_a_strike(jobs: Jobs) -> None:
    alice, bob = make_user(), make_user()
    with time_machine.travel(T0, tick=False) as clock:
        table = classic_table(alice, bob, move_timer="fast")
        assert table.deadline_at == T0 + timedelta(seconds=15)
        assert table.remind_at is None
        seat = seat_to_act(table)
        expected = wildcards.timeout_action(state_of(table))
        seq = table.seq
        run_out(table, clock, jobs)
    first = Move.objects.filter(table=table, seq__gt=seq).order_by("seq").first()
    assert first is not None and first.source == Move.Source.TIMEOUT
    assert first.payload["action"] == expected.to_dict()
    seat.refresh_from_db()
    assert seat.strikes == 1 and not seat.struck_out
    assert not OutboxMessage.objects.filter(kind=OutboxMessage.Kind.TIMEOUT).exists()


def test_the_third_strike_hands_a_classic_seat_to_a_bot(jobs: Jobs) -> None:
    alice, bob = make_user(), make_user()
    with time_machine.travel(T0, tick=False) as clock:
        table = classic_table(alice, bob, move_timer="fast")
        slow = seat_to_act(table)
        for strike in range(1, realtime.STRIKES_FOR_BOT + 1):
            until_turn_of(table, slow, jobs)
            if table.status != Table.Status.ACTIVE:
                pytest.skip("the game ended before the third strike")
            run_out(table, clock, jobs)
            slow.refresh_from_db()
            assert slow.strikes == strike
        jobs.drain()
    slow.refresh_from_db()
    assert slow.struck_out and slow.bot_plays and slow.user is not None
    handed = Move.objects.get(table=table, action="replace_with_bot")
    assert handed.payload["events"] == [
        {
            "type": "replaced_by_bot",
            "seat": slow.number,
            "level": selectors.ruleset_of(table).stand_in_level,
        }
    ]
    # The bot plays the seat from now on: its moves follow the hand-over.
    assert (
        Move.objects.filter(
            table=table, seat=slow.number, source=Move.Source.BOT, seq__gt=handed.seq
        ).exists()
        or state_of(table).over
        or seat_to_act(table).number != slow.number
    )


def test_a_held_classic_seat_takes_no_strike(jobs: Jobs) -> None:
    alice, bob = make_user(), make_user()
    with time_machine.travel(T0, tick=False) as clock:
        table = classic_table(alice, bob, move_timer="fast")
        held = seat_to_act(table)
        assert held.user is not None
        games.presence_open(table_id=table.pk, user=held.user, channel="dropped")
        games.presence_close(channel="dropped")
        for _ in range(realtime.STRIKES_FOR_BOT):
            until_turn_of(table, held, jobs)
            if table.status != Table.Status.ACTIVE:
                break
            held.refresh_from_db()
            if table.deadline_at is None or held.held_until is None:
                break
            if table.deadline_at >= held.held_until:
                break
            run_out(table, clock, jobs)
            held.refresh_from_db()
            assert held.strikes == 0 and not held.struck_out
        assert not Move.objects.filter(table=table, action="replace_with_bot").exists()
        assert Move.objects.filter(table=table, source=Move.Source.TIMEOUT).exists()


def test_the_timeout_job_of_a_real_time_classic_table_is_queued_for_its_instant(
    jobs: Jobs,
) -> None:
    alice, bob = make_user(), make_user()
    with time_machine.travel(T0, tick=False):
        table = classic_table(alice, bob, move_timer="relaxed")
    assert (T0 + timedelta(seconds=45), jobs_module.TIMEOUT, (table.pk, table.turn)) in jobs.timed


def test_a_bot_holding_the_twin_jumps_in_on_the_card_a_timeout_played(jobs: Jobs) -> None:
    """R21 after a timeout: the sweep's page decides the follow-ups itself
    (``timeout_followups``); a bot that may jump in on the card the timeout played is
    asked, though a person is to act next."""
    from wildcards.cards import KIND_OF, NUMBER_OF, TWIN_OF

    alice, bob = make_user(), make_user()
    with time_machine.travel(T0, tick=False) as clock:
        table = classic_table(alice, bob, bots=1, turn_hours=12, rules={"seven_zero": False})
        bot = Seat.objects.get(table=table, bot_level__gt="")

        def ready(s: wildcards.GameState) -> bool:
            action = wildcards.timeout_action(s)
            following = (s.current + s.direction) % 3
            return (
                bot.number not in (s.current, following)
                and s.pending is None
                and action.type == "play"
                and KIND_OF[action.card] == 0
                and NUMBER_OF[action.card] > 0
                and TWIN_OF[action.card] not in s.discard
            )

        play_until(table, jobs, ready)
        state = state_of(table)
        twin = TWIN_OF[wildcards.timeout_action(state).card]
        holder = next((h for h in state.hands if twin in h), state.draw)
        given = next(c for c in state.hands[bot.number] if c != twin)
        holder[holder.index(twin)] = given
        state.hands[bot.number][state.hands[bot.number].index(given)] = twin
        table.refresh_from_db()
        table.state = state.to_dict()
        table.save(update_fields=["state"])
        seq = table.seq
        jobs.clear()
        clock.move_to(table.deadline_at)
        assert sweep().timeouts == 1
        assert services.BOT_TURNS in jobs.names() or services.BOT_TURN in jobs.names()
        jobs.drain()

    jumped = [
        m
        for m in Move.objects.filter(table=table, seq__gt=seq, seat=bot.number)
        if any(e.get("jump_in") for e in m.payload["events"])
    ]
    assert jumped and jumped[0].source == Move.Source.BOT


# ----------------------------------------------------------------------------
# Whole games through the API, with the clock


@pytest.mark.parametrize("timer", [None, "fast"])
def test_a_whole_classic_game_with_every_house_rule_through_the_api_and_the_clock(
    jobs: Jobs, timer: str | None
) -> None:
    """Issue 37's "done when", the API's half: people act through the API (jump-ins
    whenever offered), bots through their jobs, and now and then a person lets the
    deadline or the move timer run out; the game ends and its record replays."""
    import random

    from tests.games.conftest import client_for

    alice, bob = make_user(), make_user()
    rng = random.Random(37)
    with time_machine.travel(T0, tick=False) as clock:
        host = client_for(alice)
        body: dict[str, Any] = {
            "game": "wildcards",
            "seat_count": 3,
            "options": {**ALL_RULES, "scoring": "single"},
        }
        body.update(
            {"mode": "real_time", "move_timer": timer}
            if timer
            else {"turn_hours": 12, "timeout_policy": "bot"}
        )
        created = host.post("/api/v1/tables/", body, format="json")
        assert created.status_code == 201, created.content
        table_id = created.json()["id"]
        clients = {0: host, 1: client_for(bob)}
        assert clients[1].post(f"/api/v1/tables/{table_id}/join/").status_code == 201
        host.post(f"/api/v1/tables/{table_id}/bots/", {"level": "easy"}, format="json")
        assert host.post(f"/api/v1/tables/{table_id}/start/").status_code == 200
        seen = Counter[str]()
        for _ in range(2000):
            jobs.drain()
            table = Table.objects.get(pk=table_id)
            if table.status != Table.Status.ACTIVE:
                break
            views = {
                n: c.get(f"/api/v1/tables/{table_id}/view/").json() for n, c in clients.items()
            }
            game = views[0]["game"]
            to_act = game["to_act"]
            # A seat struck out three times keeps its view but a bot plays it (R17).
            playing = {
                n: v["game"]["legal_actions"]
                for n, v in views.items()
                if not v["seats"][n]["replaced"]
            }
            jumpers = [n for n, legal in playing.items() if n != to_act and legal]
            if not jumpers and not playing.get(to_act):
                # A bot's turn (its job ran above) or a struck-out seat: let time pass.
                clock.move_to(table.deadline_at)
                jobs.run_due() if timer else sweep()
                seen["waited"] += 1
                continue
            if not jumpers and rng.random() < 0.1:
                clock.move_to(table.deadline_at)
                jobs.run_due() if timer else sweep()
                seen["timeouts"] += 1
                continue
            seat = jumpers[0] if jumpers else to_act
            request = legal_request(views[seat]["game"], rng.randrange(100))
            answer = clients[seat].post(
                f"/api/v1/tables/{table_id}/actions/",
                {**request, "expected_seq": views[seat]["seq"]},
                format="json",
            )
            assert answer.status_code == 201, (request, answer.content)
            seen["actions"] += 1
            seen["jump-ins"] += bool(jumpers)
        else:
            raise AssertionError("the game did not end")

    table = Table.objects.get(pk=table_id)
    assert table.status == Table.Status.FINISHED
    record = host.get(f"/api/v1/tables/{table_id}/record/").json()
    assert wildcards.replay(record).to_dict() == state_of(table).to_dict()
    sources = set(Move.objects.filter(table_id=table_id).values_list("source", flat=True))
    assert {Move.Source.PLAYER, Move.Source.BOT, Move.Source.TIMEOUT} <= sources, (sources, seen)
    # The game-over mail went to both people, with the classic game's ranking, but to the
    # one whose own move ended the game: its answer showed them the end (issue 38).
    over = OutboxMessage.objects.filter(kind=OutboxMessage.Kind.GAME_OVER)
    last = Move.objects.filter(table_id=table_id).order_by("-seq").first()
    assert last is not None
    ender = Seat.objects.get(table_id=table_id, number=last.seat).user
    told = {alice.username, bob.username}
    if last.source == Move.Source.PLAYER and ender is not None:
        told.discard(ender.username)
    assert sorted(m.user.username for m in over) == sorted(told)
    assert all("Ranking:\n1. " in m.text for m in over)
