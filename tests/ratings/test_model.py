"""The rating model's arithmetic (ratings.model), and its docstring examples."""

from __future__ import annotations

import doctest

from ratings import model
from ratings.model import MU, SIGMA, Entry, rate, weight


def test_the_docstring_examples_hold() -> None:
    assert doctest.testmod(model).failed == 0


def test_tied_seats_share_their_update() -> None:
    after = rate([Entry(MU, SIGMA, 1, 1.0), Entry(MU, SIGMA, 2, 1.0), Entry(MU, SIGMA, 2, 1.0)])
    assert after[1] == after[2]
    assert after[0][0] > MU > after[1][0]


def test_a_lighter_weight_moves_a_rating_less_in_both_directions() -> None:
    full = rate([Entry(MU, SIGMA, 1, 1.0), Entry(MU, SIGMA, 2, 1.0)])
    half = rate([Entry(MU, SIGMA, 1, 0.5), Entry(MU, SIGMA, 2, 0.5)])
    assert MU < half[0][0] < full[0][0]
    assert full[1][0] < half[1][0] < MU
    assert full[0][1] < half[0][1] < SIGMA


def test_a_timeout_is_the_player_s_own_turn_and_a_stand_in_counts_a_quarter() -> None:
    assert weight(turns=20, stand_in_turns=0, stand_in_weight=0.25) == 1.0
    assert weight(turns=20, stand_in_turns=20, stand_in_weight=0.25) == 0.25
    assert weight(turns=8, stand_in_turns=4, stand_in_weight=0.25) == 0.625


def test_the_figure_shown_is_conservative() -> None:
    assert model.shown(MU, SIGMA) == 1000
    assert model.shown(30.0, 2.0) > model.shown(30.0, 4.0)
