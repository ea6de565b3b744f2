"""Hard plays each seat as the table shows it: an Easy bot as Easy, a Normal bot as Normal.

Which seats are bots, and of which level, is public (the API serves every
seat's ``bot_level`` to everyone at the table), so ``choose`` may be handed it
as ``levels``. Only Hard reads it; without it Hard plays as it always did.
"""

from __future__ import annotations

import json
import random
from collections.abc import Callable, Sequence
from fractions import Fraction
from typing import Any

import pytest

from flip import Action, GameState, Options, apply, flip_memory, new_game, public_history, view
from flip.bots import EasyBot, HardBot, make_bot
from flip.bots.hard import easy_policy, normal_policy
from flip.bots.tournament import to_action
from flip.engine import CHOOSE_COLOR, PLAY
from flip.state import PENDING_DRAWN
from tests.flip.random_tables import assert_legal

SMALL_HARD = 150


class Script(random.Random):
    """A generator whose every draw is scripted: ``picks[k]`` answers the k-th draw.

    Draws past the script answer 0. It records the size of every draw asked,
    and refuses any other kind of randomness, so a run under it says exactly
    which outcome a sequence of uniform draws leads to.
    """

    def __init__(self, picks: Sequence[int]) -> None:
        super().__init__(0)
        self.picks = list(picks)
        self.asked: list[int] = []

    def randrange(self, start: int, stop: int | None = None, step: int = 1) -> int:
        assert stop is None and step == 1, "only randrange(n) is scripted"
        k = len(self.asked)
        self.asked.append(start)
        pick = self.picks[k] if k < len(self.picks) else 0
        assert 0 <= pick < start
        return pick

    def choice(self, seq: Sequence[Any]) -> Any:  # type: ignore[override]
        return seq[self.randrange(len(seq))]

    def random(self) -> float:
        raise AssertionError("only uniform integer draws are scripted")

    def getrandbits(self, k: int) -> int:
        raise AssertionError("only uniform integer draws are scripted")


def outcomes(run: Callable[[random.Random], Action]) -> dict[Action, Fraction]:
    """Every action ``run`` can return, with its probability, over every scripted draw."""
    dist: dict[Action, Fraction] = {}
    todo: list[list[int]] = [[]]
    while todo:
        picks = todo.pop()
        rng = Script(picks)
        action = run(rng)
        if len(rng.asked) > len(picks):  # a draw past the script: branch on it
            todo.extend([*picks, v] for v in range(rng.asked[len(picks)]))
            continue
        p = Fraction(1)
        for n in rng.asked:
            p /= n
        dist[action] = dist.get(action, Fraction(0)) + p
    assert sum(dist.values()) == 1
    return dist


def _easy_choice(state: GameState, seat: int) -> Callable[[random.Random], Action]:
    seen = view(state, seat)

    def run(rng: random.Random) -> Action:
        bot = EasyBot(0)
        bot.rng = rng
        return to_action(state, seat, bot.choose(seen))

    return run


def test_easy_policy_chooses_what_easy_chooses_with_the_same_chances() -> None:
    states = wilds = colour_choices = drawn = 0
    for game in range(240):
        state, _ = new_game(Options(seats=2 + game % 5), f"easy-model:{game}")
        rng = random.Random(game)
        while not state.over:
            seat = state.current
            expected = outcomes(_easy_choice(state, seat))
            got = outcomes(lambda r, s=state: easy_policy(s, r))
            assert got == expected, (state.to_dict(), got, expected)
            states += 1
            wilds += any(a.type == PLAY and a.color >= 0 for a in expected) and len(expected) > 4
            colour_choices += any(a.type == CHOOSE_COLOR for a in expected)
            drawn += state.pending == PENDING_DRAWN
            req = make_bot("easy", rng.getrandbits(32)).choose(view(state, seat))
            apply(state, seat, to_action(state, seat, req), inplace=True)
    # The cases where the entries and the actions differ were met, many times.
    assert states > 10_000 and wilds > 500 and colour_choices > 15 and drawn > 500


def _table(count: int, prefix: str) -> list[tuple[GameState, int, list[str | None]]]:
    """(state, seat to act, a public level per seat) with a real choice, from random games."""
    out: list[tuple[GameState, int, list[str | None]]] = []
    game = 0
    while len(out) < count:
        rng = random.Random(f"{prefix}:{game}")
        seats = rng.randint(2, 6)
        levels: list[str | None] = [
            rng.choice(["easy", "normal", "hard", None]) for _ in range(seats)
        ]
        state, _ = new_game(Options(seats=seats), f"{prefix}:{game}")
        while not state.over:
            seat = state.current
            seen = view(state, seat)
            if len(seen["legal_actions"]) > 1 and rng.random() < 0.1:
                out.append((state.copy(), seat, levels))
            req = make_bot("easy", rng.getrandbits(32)).choose(seen)
            apply(state, seat, to_action(state, seat, req), inplace=True)
        game += 1
    return out[:count]


def test_hard_with_levels_is_deterministic_and_legal() -> None:
    for index, (state, seat, levels) in enumerate(_table(16, "det")):
        inputs = (view(state, seat), flip_memory(state, seat), public_history(state, seat))
        first = HardBot(f"d:{index}", budget=SMALL_HARD).choose(*inputs, levels=levels)
        assert_legal(inputs[0], first)
        again = json.loads(json.dumps(inputs))
        assert (
            HardBot(f"d:{index}", budget=SMALL_HARD).choose(*again, levels=tuple(levels)) == first
        )


def test_a_table_of_people_and_hard_bots_tells_hard_nothing_new() -> None:
    # Nobody Hard can play exactly: the same search, the same head start, the same choice.
    for index, (state, seat, levels) in enumerate(_table(12, "people")):
        inputs = (view(state, seat), flip_memory(state, seat), public_history(state, seat))
        told = [None if i % 2 else "hard" for i in range(len(levels))]
        alone = HardBot(f"p:{index}", budget=SMALL_HARD).choose(*inputs)
        assert HardBot(f"p:{index}", budget=SMALL_HARD).choose(*inputs, levels=told) == alone


def test_hard_hedges_only_while_a_seat_in_the_round_is_not_a_bot_it_plays_exactly() -> None:
    state, _ = new_game(Options(seats=4), "hedge")
    seen = view(state, state.current)
    me = seen["seat"]
    hard = HardBot("h")

    def exact(levels: list[str | None]) -> bool:
        return hard._models(seen, levels)[1]  # noqa: SLF001 (the hedge is the rule under test)

    others = [i for i in range(4) if i != me]
    assert exact(["normal"] * 4)
    assert exact([None if i == me else "easy" if i % 2 else "normal" for i in range(4)])
    for who in (None, "hard"):
        for seat in others:
            levels: list[str | None] = ["easy"] * 4
            levels[seat] = who
            assert not exact(levels)
    # A person who has left the round is no longer anyone to hedge against.
    gone = others[0]
    apply(state, gone, Action("leave"), inplace=True)
    seen = view(state, state.current)
    levels = ["normal"] * 4
    levels[gone] = None
    assert hard._models(seen, levels)[1]  # noqa: SLF001


def test_hard_rollouts_play_each_seat_as_the_table_shows_it() -> None:
    levels: list[str | None] = ["hard", "easy", "normal", None]
    state, _ = new_game(Options(seats=4), "models")
    policy, _ = HardBot("m")._models(view(state, 0), levels)  # noqa: SLF001
    by_level: dict[str | None, Callable[[GameState, random.Random], Action]] = {
        "hard": normal_policy,  # the seat searching: Normal's play, the cheapest good model
        "easy": easy_policy,
        "normal": normal_policy,
        None: normal_policy,
    }
    rng = random.Random(1)
    met = set()
    while not state.over:
        seat = state.current
        key = rng.getrandbits(32)
        assert policy(state, random.Random(key)) == by_level[levels[seat]](
            state, random.Random(key)
        )
        met.add(seat)
        apply(state, seat, policy(state, rng), inplace=True)
    assert met == {0, 1, 2, 3}


@pytest.mark.parametrize(
    "levels",
    [["easy", "normal"], ["easy", "normal", "hard", None, "easy"], ["easy", "expert", None, None]],
)
def test_hard_refuses_levels_that_do_not_describe_the_table(levels: list[str | None]) -> None:
    state, _ = new_game(Options(seats=4), "refuse")
    with pytest.raises(ValueError, match="levels|level"):
        HardBot("r", budget=SMALL_HARD).choose(view(state, state.current), levels=levels)
