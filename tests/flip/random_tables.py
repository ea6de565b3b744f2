"""Random tables for the bot tests: what a real table throws at its bots.

``play_table`` plays one game on random options (2 to 10 seats, single round
or a target, the two-seat Reverse option on or off) with a random bot level
in every seat, and mixes in what people do: concede at random moments (in
turn, out of turn, while a colour must be chosen, while a drawn card must be
played), time out (``flip.timeout_action`` plays the turn), and hand a seat
from one level to another in the middle of a round. Some tables lose
players until one remains. Most tables tell the bots which seats are bots of
which level, as a table tells everyone (``levels``), with some seats shown as
people. ``invariants`` lists what every real state holds.
"""

from __future__ import annotations

import random
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from flip import (
    PENDING_COLOR,
    PENDING_DRAWN,
    Action,
    GameState,
    Options,
    apply,
    flip_memory,
    legal_actions,
    new_game,
    timeout_action,
    view,
)
from flip.bots import LEVELS, Bot, make_bot
from flip.bots.hard import HardBot
from flip.bots.tournament import to_action
from flip.cards import COLOR_OF, DECK_SIZE, NO_COLOR, SIDE_COLORS
from flip.engine import LEAVE, playable_cards

View = dict[str, Any]


def assert_legal(seen: View, req: dict[str, Any]) -> None:
    """``req`` is one of the view's legal actions, in the API's request shape."""
    assert set(req) <= {"type", "card", "color"}, req
    matches = [
        entry
        for entry in seen["legal_actions"]
        if entry["type"] == req["type"] and entry.get("card") == req.get("card")
    ]
    assert len(matches) == 1, (req, seen["legal_actions"])
    colors = matches[0].get("colors")
    if colors is None:
        assert "color" not in req, req
    else:
        assert req.get("color") in colors, (req, colors)


def invariants(s: GameState) -> list[str]:
    """What is wrong with ``s`` as a state of a game in progress or over; [] when nothing."""
    wrong: list[str] = []
    n = s.seats

    def need(ok: bool, what: str) -> None:
        if not ok:
            wrong.append(what)

    cards = [c for h in s.hands for c in h] + s.draw + s.discard
    need(sorted(cards) == list(range(DECK_SIZE)), "every card is in exactly one place")
    for name in ("hands", "active", "scores", "left_points"):
        need(len(getattr(s, name)) == n, f"one entry of {name} per seat")
    for seat in range(n):
        if s.active[seat]:
            need(s.left_points[seat] is None, f"seat {seat} is in and has no leaver's points")
        else:
            points = s.left_points[seat]
            need(isinstance(points, int) and points >= 0, f"leaver {seat} has its points")
            need(not s.hands[seat], f"leaver {seat} holds nothing")
    need(sorted(s.left_order) == [i for i in range(n) if not s.active[i]], "left_order")
    need(len(set(s.left_order)) == len(s.left_order), "a seat leaves once")
    need(s.round >= 1 and 0 <= s.dealer < n, "round and dealer")
    need(s.direction in (1, -1) and s.side in (0, 1), "direction and side")
    need(len(set(s.passed)) == len(s.passed), "a seat passes once in a row")
    need(all(s.active[i] for i in s.passed), "only seats in the game pass")
    need(bool(s.discard), "the discard pile has a top card")
    need((s.last_flip is None) == (s.flips == 0), "a memory of the last flip iff a flip")
    if s.over:
        need(s.pending is None and s.drawn == -1, "nothing pending once over")
        need(len(s.ranking) == n, "a ranking once over")
        return wrong
    need(s.players_left >= 2, "two players or more while the game runs")
    need(0 <= s.current < n and s.active[s.current], "the seat to act is in the game")
    need(len(s.results) == s.round - 1, "one result per finished round")
    need(not s.ranking and s.winner is None, "no ranking while the game runs")
    top = s.discard[-1]
    top_color = COLOR_OF[s.side][top]
    if top_color != NO_COLOR:
        need(s.color == top_color, "the colour in play is the top card's")
    elif s.color == NO_COLOR:
        need(s.pending == PENDING_COLOR, "a Wild on top without a colour asks for one")
    else:
        need(s.color in SIDE_COLORS[s.side], "a chosen colour is of the side in play")
    if s.pending == PENDING_DRAWN:
        need(s.drawn in s.hands[s.current], "the drawn card is in the hand")
        need(s.drawn in playable_cards(s, s.hands[s.current]), "the drawn card can be played")
    else:
        need(s.drawn == -1, "no drawn card without a pending play")
    need(bool(legal_actions(s, s.current)), "the seat to act has something to do")
    need(GameState.from_dict(s.to_dict()) == s, "the state round-trips through JSON")
    return wrong


@dataclass
class Mix:
    """How often each disturbance happens, per action."""

    leave: float = 0.002  # a random seat concedes
    leave_pending: float = 0.05  # the seat to act concedes while something is pending
    timeout: float = 0.05  # the seat to act times out
    handover: float = 0.01  # the seat to act is handed to another level
    last_one: float = 0.1  # per table: concessions until one player remains


@dataclass
class Played:
    state: GameState
    decisions: dict[str, int] = field(default_factory=dict)
    told: dict[str, int] = field(default_factory=dict)  # decisions made knowing the levels
    leaves: dict[str, int] = field(default_factory=dict)
    timeouts: int = 0
    handovers: int = 0


def random_options(rng: random.Random) -> Options:
    scoring = rng.choice(["single", "single", "target"])
    return Options(
        seats=rng.randint(2, 10),
        two_seat_reverse_skips=rng.random() < 0.5,
        scoring=scoring,
        target=rng.choice([250, 500, 1000]),
    )


def _bot(level: str, seed: str, hard_budget: int | None) -> Bot:
    if level == "hard" and hard_budget is not None:
        return HardBot(seed, budget=hard_budget)
    return make_bot(level, seed)


def play_table(
    seed: str,
    *,
    mix: Mix | None = None,
    levels: tuple[str, ...] = LEVELS,
    hard_budget: int | None = None,
    max_actions: int = 20_000,
    check: Callable[[GameState], None] | None = None,
) -> Played:
    """Play one random table to its end; every bot answer is checked legal."""
    mix = mix or Mix()
    rng = random.Random(seed)
    options = random_options(rng)
    state, _ = new_game(options, f"table:{seed}")
    seat_levels = [rng.choice(levels) for _ in range(options.seats)]
    bots = [_bot(level, f"{seed}:{i}", hard_budget) for i, level in enumerate(seat_levels)]
    last_one = rng.random() < mix.last_one
    # What the table shows of its seats, from a generator of its own: the table's draws stay.
    shows = random.Random(f"{seed}:levels")
    told = shows.random() >= 0.25
    people = [shows.random() < 0.2 for _ in range(options.seats)]
    played = Played(state)
    for _ in range(max_actions):
        if state.over:
            break
        if check is not None:
            check(state)
        seat = state.current
        leave_rate = mix.leave * (25 if last_one else 1)
        if state.pending is not None and rng.random() < mix.leave_pending:
            _leave(state, seat, played, state.pending)
            continue
        if rng.random() < leave_rate:
            others = [i for i in range(options.seats) if state.active[i]]
            who = rng.choice(others)
            _leave(state, who, played, "in turn" if who == seat else "out of turn")
            continue
        if rng.random() < mix.handover:
            seat_levels[seat] = rng.choice(
                [lv for lv in levels if lv != seat_levels[seat]] or levels
            )
            bots[seat] = _bot(seat_levels[seat], f"{seed}:{seat}:{state.actions}", hard_budget)
            played.handovers += 1
        if rng.random() < mix.timeout:
            action = timeout_action(state)
            played.timeouts += 1
        else:
            seen = view(state, seat)
            shown = [None if p else lv for p, lv in zip(people, seat_levels, strict=True)]
            req = bots[seat].choose(seen, flip_memory(state, seat), levels=shown if told else None)
            assert_legal(seen, req)
            action = to_action(state, seat, req)
            level = seat_levels[seat]
            played.decisions[level] = played.decisions.get(level, 0) + 1
            if told:
                played.told[level] = played.told.get(level, 0) + 1
        apply(state, seat, action, inplace=True)
    else:
        raise AssertionError(f"table {seed} did not end in {max_actions} actions")
    played.state = state
    return played


def _leave(state: GameState, seat: int, played: Played, moment: str) -> None:
    apply(state, seat, Action(LEAVE), inplace=True)
    played.leaves[moment] = played.leaves.get(moment, 0) + 1
