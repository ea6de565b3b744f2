"""The classic bots: what Normal and Hard choose, and that no bot ever stalls a table.

Bots are driven through the ruleset, as the service drives them
(``games.services.table_run_bot_turn``): ``RULESET.bot_request`` for every
seat that may jump in, then for the seat to act; ``parse_request``, ``check``,
``apply``. Every request must be legal and every game must end.
"""

from __future__ import annotations

import itertools
import random
from collections import Counter
from types import MappingProxyType
from typing import Any

import pytest

from tabletop.stats import wilson
from tests.wildcards.tables import table
from wildcards import CODE_OF, Action, GameState, Options, apply, legal_actions, new_game, view
from wildcards.bots import LEVELS, choose, hard, normal
from wildcards.bots.tournament import tournament
from wildcards.cli import main
from wildcards.ruleset import RULESET

HOUSE_RULES = ("stacking", "seven_zero", "jump_in", "draw_until_playable")
#: Every combination of the four house rules with each scoring: 32 tables.
COMBINATIONS = [
    {**dict(zip(HOUSE_RULES, flags, strict=True)), "scoring": scoring}
    for flags in itertools.product((False, True), repeat=4)
    for scoring in ("single", "target")
]
MAX_ACTIONS = 20_000


def play_through_ruleset(
    options: Options, seed: str, levels: list[str], *, leaves: bool
) -> tuple[GameState, Counter[str]]:
    """One game of bots at every seat through the ruleset; seats may leave at random,
    in or out of turn. Returns the final state and what happened."""
    rng = random.Random(seed)
    state, _ = RULESET.new_game(options, seed)
    seen: Counter[str] = Counter()
    for step in range(MAX_ACTIONS):
        if state.over:
            return state, seen
        if leaves and state.players_left > 1 and rng.random() < 0.01:  # noqa: PLR2004
            seat = rng.choice([i for i in range(state.seats) if state.active[i]])
            seen["leave_in_turn" if seat == state.current else "leave_out_of_turn"] += 1
            state, _ = RULESET.apply(state, seat, RULESET.leave_action())
            continue
        jumped = False
        for seat in range(state.seats):
            if seat == state.current or not RULESET.legal_actions(state, seat):
                continue
            request = RULESET.bot_request(
                state, seat, level=levels[seat], seed=f"{seed}:{step}", levels=levels
            )
            if request is None:
                seen["no_jump"] += 1
                continue
            action = RULESET.parse_request(state, seat, dict(request))
            RULESET.check(state, seat, action)  # raises if the bot asked for anything illegal
            state, _ = RULESET.apply(state, seat, action)
            seen["jump_in"] += 1
            jumped = True
            break
        if jumped:
            continue
        seat = state.current
        request = RULESET.bot_request(
            state, seat, level=levels[seat], seed=f"{seed}:{step}", levels=levels
        )
        assert request is not None, f"the {levels[seat]} bot did not act on its turn"
        action = RULESET.parse_request(state, seat, dict(request))
        RULESET.check(state, seat, action)
        state, _ = RULESET.apply(state, seat, action)
        seen[action.type] += 1
    raise AssertionError(f"game {seed} did not end in {MAX_ACTIONS} actions")


def _options(index: int, combination: dict[str, Any]) -> Options:
    # Seat counts 2..10 cycle across the combinations; the lowest target keeps games short.
    return Options(seats=2 + index % 9, target=50, **combination)


@pytest.mark.parametrize("index", range(len(COMBINATIONS)))
def test_bots_never_stall_a_table_under_any_options(index: int) -> None:
    options = _options(index, COMBINATIONS[index])
    levels = [LEVELS[(index + i) % 3] for i in range(options.seats)]
    state, seen = play_through_ruleset(options, f"stall{index}", levels, leaves=True)
    assert state.over
    if options.jump_in:
        assert seen["jump_in"] + seen["no_jump"] > 0 or sum(seen.values()) < 40  # noqa: PLR2004


@pytest.mark.slow
@pytest.mark.parametrize("seats", range(2, 11))
def test_bots_never_stall_a_table_many_games(seats: int) -> None:
    for index, combination in enumerate(COMBINATIONS):
        options = Options(seats=seats, target=50, **combination)
        for level in LEVELS:
            state, _ = play_through_ruleset(
                options, f"slow{seats}:{index}:{level}", [level] * seats, leaves=index % 2 == 0
            )
            assert state.over


def test_every_level_answers_its_turn_and_never_out_of_turn_without_a_jump_in() -> None:
    state, _ = new_game(Options(seats=4, jump_in=True, stacking=True, seven_zero=True), "turns")
    rng = random.Random(1)
    for _ in range(200):
        if state.over:
            break
        for seat in range(4):
            seen = view(state, seat)
            for level in LEVELS:
                answer = choose(seen, level, random.Random(seat))
                if seat == state.current:
                    assert answer is not None
                elif not seen["legal_actions"]:
                    assert answer is None
        state, _ = apply(state, state.current, rng.choice(legal_actions(state, state.current)))


def _request(level: str, state: GameState, seat: int = 0) -> dict[str, Any]:
    answer = choose(view(state, seat), level, random.Random(0))
    assert answer is not None
    return answer


def _face(state: GameState, seat: int, request: dict[str, Any]) -> str:
    return next(e["face"] for e in view(state, seat)["hand"] if e["card"] == request["card"])


@pytest.mark.parametrize("level", ["normal", "hard"])
def test_holds_the_wild_when_a_coloured_card_follows(level: str) -> None:
    state = table([["red-3", "wild", "blue-4"], ["green-1"] * 1, ["green-2"]], "red-7", fill_to=3)
    answer = _request(level, state)
    assert _face(state, 0, answer) == "red-3"


def test_normal_names_the_colour_it_holds_most() -> None:
    state = table([["wild", "blue-4", "blue-5", "red-1"], ["green-1"], ["green-2"]], "green-7")
    answer = _request("normal", state)
    assert _face(state, 0, answer) == "wild" and answer["color"] == "blue"


@pytest.mark.parametrize(("shown", "named"), [("blue", "blue"), ("red", "red")])
def test_normal_names_the_colour_fewest_others_can_follow_between_equals(
    shown: str, named: str
) -> None:
    """Red and blue held alike: the Wild names the one the discard pile shows most of,
    whatever the generator (a tie broken at random fails this)."""
    below = [f"{shown}-{n}" for n in range(1, 8)]
    state = table(
        [["wild", "red-1", "blue-2"], ["green-1"], ["green-2"]], "green-7", below_top=below
    )
    for seed in range(8):
        answer = choose(view(state, 0), "normal", random.Random(seed))
        assert answer is not None and answer["color"] == named


def test_normal_answers_a_waiting_penalty_rather_than_take_it() -> None:
    state = table(
        [["yellow-draw2", "red-4", "blue-9"], ["green-1"], ["green-2"]],
        "green-draw2",
        stacking=True,
    )
    state.pending, state.penalty = "penalty", 2
    answer = _request("normal", state)
    assert answer["type"] == "play" and _face(state, 0, answer) == "yellow-draw2"


def test_normal_swaps_a_seven_with_the_player_holding_fewest_cards() -> None:
    state = table(
        [["red-7", "red-1", "blue-2", "blue-3", "green-5"], ["green-1"], ["green-2"] * 1],
        "red-9",
        seven_zero=True,
        fill_to=0,
    )
    state.hands[1] += state.draw[-5:]
    del state.draw[-5:]
    answer = _request("normal", state)
    assert _face(state, 0, answer) == "red-7" and answer["target"] == 2  # noqa: PLR2004


def test_normal_skips_a_next_player_about_to_go_out() -> None:
    state = table([["red-skip", "red-4", "red-8"], ["green-1"], ["green-2", "blue-1"]], "red-7")
    answer = _request("normal", state)
    assert _face(state, 0, answer) == "red-skip"


def test_normal_jumps_in_with_the_identical_card() -> None:
    state = table(
        [["green-1", "blue-2"], ["red-5", "yellow-1", "blue-6"], ["green-2"]],
        "red-5",
        jump_in=True,
        current=2,
        fill_to=2,
    )
    seen = view(state, 1)
    assert seen["legal_actions"] and seen["legal_actions"][0].get("jump_in")
    answer = choose(seen, "normal", random.Random(0))
    assert answer is not None and _face(state, 1, answer) == "red-5"


def test_hard_determinisations_agree_with_the_view() -> None:
    """Every sample Hard makes from a view holds the same public facts and gives the
    seat the same legal actions (by face) as the real state."""
    rng = random.Random(7)
    for index, combination in enumerate(COMBINATIONS[::3]):
        state, _ = new_game(_options(index, combination), f"det{index}")
        for _ in range(60):
            if state.over:
                break
            seat = state.current
            sample_table = hard.Table(view(state, seat))
            assert sample_table.consistent
            sample = sample_table.sample(rng)
            assert sorted(len(h) for h in sample.hands) == sorted(len(h) for h in state.hands)
            assert (sample.color, sample.current, sample.pending, sample.penalty) == (
                state.color,
                state.current,
                state.pending,
                state.penalty,
            )
            assert Counter(_shape(a) for a in legal_actions(sample, seat)) == Counter(
                _shape(a) for a in legal_actions(state, seat)
            )
            state, _ = apply(state, seat, rng.choice(legal_actions(state, seat)))


def _shape(action: Action) -> tuple[str, str | None, int, int]:
    return (
        action.type,
        CODE_OF[action.card] if action.card >= 0 else None,
        action.color,
        action.target,
    )


def test_hard_rollout_policy_takes_only_legal_actions() -> None:
    rng = random.Random(3)
    for index, combination in enumerate(COMBINATIONS):
        state, _ = new_game(_options(index, combination), f"roll{index}")
        for _ in range(300):
            if state.over:
                break
            action = hard.normal_action(state, rng)
            assert action in legal_actions(state, state.current), (index, action)
            state, _ = apply(state, state.current, action)


def test_normal_and_its_rollout_twin_agree() -> None:
    """Hard's rollouts expect every seat to play as Normal does: the state-reading
    policy picks the card the view-reading bot picks (colour and target aside), but
    for the chance that the next seat follows, which rollouts leave out."""
    unfollowed = MappingProxyType({**normal.RACE, "follow": 0, "follow_two": 0, "follow_last": 0})
    rng = random.Random(5)
    agree = total = 0
    state, _ = new_game(Options(seats=4), "twin")
    for _ in range(400):
        if state.over:
            state, _ = new_game(Options(seats=4), f"twin{total}")
        seat = state.current
        plays = [a for a in legal_actions(state, seat) if a.type == "play"]
        if len({a.card for a in plays}) > 1 and state.pending is None:
            request = normal.NormalBot(random.Random(0), unfollowed).choose(view(state, seat))
            assert request is not None
            mine = _face(state, seat, request)
            twin = hard.normal_action(state, random.Random(0))
            agree += CODE_OF[twin.card] == mine
            total += 1
        state, _ = apply(state, seat, rng.choice(legal_actions(state, seat)))
    assert total > 20 and agree / total > 0.9  # noqa: PLR2004 (ties are broken apart)


def test_hard_leaves_normals_choice_only_for_a_clearly_better_one() -> None:
    """Normal's choice (index 0) stands unless another beats it on the same
    determinisations by more than the margin in standard errors."""
    normal_choice = [0.5, 0.2, 0.9, 0.4, 0.6, 0.3]
    noisy = [0.9, 0.0, 0.8, 0.6, 0.5, 0.5]  # better on average, but not clearly
    clear = [v + 0.1 + 0.01 * i for i, v in enumerate(normal_choice)]
    assert hard.pick([normal_choice, noisy], margin=2.0) == 0
    assert hard.pick([normal_choice, noisy, clear], margin=2.0) == 2  # noqa: PLR2004
    assert hard.pick([normal_choice, noisy], margin=0.0) == 1


def test_tournament_rotates_seats_and_counts_every_game() -> None:
    result = tournament(8, ["normal", "easy", "easy", "easy"], "unit")
    levels = result["levels"]
    assert result["rotated_evenly"]
    assert levels["normal"]["wins"] + levels["easy"]["wins"] + result["blocked_games"] == 8  # noqa: PLR2004
    low, high = levels["easy"]["win_rate_ci95"]
    assert low <= levels["easy"]["win_rate"] <= high
    assert wilson(0, 0) == (0.0, 0.0)


def test_tournament_command_prints_win_rates(capsys: pytest.CaptureFixture[str]) -> None:
    code = main(
        ["tournament", "--players", "3", "--games", "3", "--levels", "hard,normal,easy"]
        + ["--jump-in", "--stacking"]
    )
    out = capsys.readouterr().out
    assert code == 0
    for level in ("hard", "normal", "easy"):
        assert level in out
    assert "95%" in out
