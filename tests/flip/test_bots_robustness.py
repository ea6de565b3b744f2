"""Issue 9, section 2: bots never stall a table.

Every level plays random tables to their end, never raises, and always
answers one of its view's legal actions, on tables that mix 2 to 10 seats,
single rounds and every target, the two-seat Reverse option on and off,
concessions at random moments (in turn, out of turn, during a colour choice,
while a drawn card must be played), timeouts, seats handed from one level to
another in the middle of a round, and players leaving until one remains
(``tests/flip/random_tables.py``), most of them told which seats are bots of
which level, some seats shown as people. CI plays a few hundred tables on fixed
seeds with Hard on a small search budget (the same search, fewer samples);
``pytest -m slow`` plays thousands, Hard at its full budget.
"""

from __future__ import annotations

from collections import Counter

import pytest

from flip import GameState
from flip.bots import LEVELS
from tests.flip.random_tables import invariants, play_table

CI_TABLES = 250
SLOW_TABLES = 3000
CI_HARD_BUDGET = 300


def _check(state: GameState) -> None:
    assert invariants(state) == []


def _play_many(count: int, prefix: str, hard_budget: int | None) -> Counter[str]:
    seen: Counter[str] = Counter()
    for index in range(count):
        played = play_table(f"{prefix}:{index}", hard_budget=hard_budget, check=_check)
        state = played.state
        assert state.over
        assert invariants(state) == []
        o = state.options
        seen[f"seats={o.seats}"] += 1
        seen[f"scoring={o.scoring if o.scoring == 'single' else o.target}"] += 1
        seen[f"reverse_skips={o.two_seat_reverse_skips}"] += 1
        seen["ended by concessions"] += state.players_left == 1
        seen["timeouts"] += played.timeouts
        seen["handovers"] += played.handovers
        for moment, n in played.leaves.items():
            seen[f"leave {moment}"] += n
        for level, n in played.decisions.items():
            seen[f"decisions {level}"] += n
        for level, n in played.told.items():
            seen[f"decisions {level}, levels told"] += n
    return seen


def _assert_mixed(seen: Counter[str]) -> None:
    for seats in range(2, 11):
        assert seen[f"seats={seats}"] > 0, seats
    for scoring in ("single", "250", "500", "1000"):
        assert seen[f"scoring={scoring}"] > 0, scoring
    assert seen["reverse_skips=True"] > 0 and seen["reverse_skips=False"] > 0
    for moment in ("in turn", "out of turn", "choose_color", "play_drawn"):
        assert seen[f"leave {moment}"] > 0, moment
    assert seen["ended by concessions"] > 0
    assert seen["timeouts"] > 0 and seen["handovers"] > 0
    for level in LEVELS:
        assert seen[f"decisions {level}"] > 0, level
        assert seen[f"decisions {level}, levels told"] > 0, level
    assert seen["decisions hard"] > seen["decisions hard, levels told"]  # and some not told


def test_every_level_plays_random_tables_to_the_end() -> None:
    seen = _play_many(CI_TABLES, "robust", CI_HARD_BUDGET)
    _assert_mixed(seen)


@pytest.mark.slow
def test_every_level_plays_thousands_of_random_tables_to_the_end() -> None:
    seen = _play_many(SLOW_TABLES, "robust-slow", None)
    _assert_mixed(seen)
