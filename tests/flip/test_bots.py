"""Bots: Easy, Normal and Hard see only their seat's view and always move legally.

Issue 3. Timings and win rates are measured by ``python -m flip tournament``
and recorded in docs/bots.md; no test asserts them.
"""

from __future__ import annotations

import io
import json
import random
from collections.abc import Callable
from contextlib import redirect_stdout
from typing import Any

import pytest

from flip import (
    FACES,
    LEAVE,
    LIGHT,
    Action,
    Options,
    Recorder,
    RuleError,
    apply,
    flip_memory,
    new_game,
    public_history,
    view,
)
from flip.bots import LEVELS, Bot, make_bot
from flip.bots.base import FACE_BY_CODE
from flip.bots.hard import HardBot, Sampler, normal_policy
from flip.bots.normal import Context, play_score
from flip.bots.tournament import to_action
from flip.cards import CARDS_BY_FACE, COLOR_OF, COLORS, DARK, DECK_SIZE
from flip.cli import main
from flip.state import GameState

SMALL_HARD = 150  # a small search budget keeps the tests quick; the search is the same


def bot(level: str, seed: str | int) -> Bot:
    if level == "hard":
        return HardBot(seed, budget=SMALL_HARD)
    return make_bot(level, seed)


def assert_legal(seen: dict[str, Any], req: dict[str, Any]) -> None:
    """``req`` is one of the view's legal actions, in the API's request shape."""
    assert set(req) <= {"type", "card", "color"}
    matches = [
        entry
        for entry in seen["legal_actions"]
        if entry["type"] == req["type"] and entry.get("card") == req.get("card")
    ]
    assert len(matches) == 1, (req, seen["legal_actions"])
    colors = matches[0].get("colors")
    if colors is None:
        assert "color" not in req
    else:
        assert req.get("color") in colors


def play_out(levels: list[str], seed: str, limit: int = 2000) -> GameState:
    state, _ = new_game(Options(seats=len(levels)), seed)
    bots = [bot(level, f"{seed}:{i}") for i, level in enumerate(levels)]
    steps = 0
    while not state.over and steps < limit:
        seat = state.current
        seen = view(state, seat)
        req = bots[seat].choose(seen, flip_memory(state, seat))
        assert_legal(seen, req)
        apply(state, seat, to_action(state, seat, req), inplace=True)
        steps += 1
    return state


# ----------------------------------------------------------------------------
# The interface


def test_make_bot_levels() -> None:
    assert LEVELS == ("easy", "normal", "hard")
    for level in LEVELS:
        made = make_bot(level, 1)
        assert isinstance(made, Bot)
        assert made.level == level
    with pytest.raises(ValueError):
        make_bot("expert", 1)


@pytest.mark.parametrize("seats", range(2, 11))
def test_easy_and_normal_always_choose_a_legal_action(seats: int) -> None:
    for game in range(6):
        levels = [("easy", "normal")[(i + game) % 2] for i in range(seats)]
        state = play_out(levels, f"legal:{seats}:{game}")
        assert state.over


@pytest.mark.parametrize("seats", [2, 3, 4, 6, 10])
def test_hard_always_chooses_a_legal_action(seats: int) -> None:
    levels = ["hard", "normal", "easy"] * 4
    state = play_out(levels[:seats], f"hard:{seats}", limit=600)
    assert state.over or state.actions >= 600


def test_hard_at_full_budget_plays_legally() -> None:
    state, _ = new_game(Options(seats=4), "full")
    hard = make_bot("hard", "full")
    for _ in range(40):
        if state.over:
            break
        seat = state.current
        seen = view(state, seat)
        req = hard.choose(seen)
        assert_legal(seen, req)
        apply(state, seat, to_action(state, seat, req), inplace=True)


def test_bots_answer_a_colour_choice_and_a_drawn_card() -> None:
    # Play random games until both pending kinds have been met by every level.
    met: set[tuple[str, str]] = set()
    for game in range(40):
        state, _ = new_game(Options(seats=3), f"pending:{game}")
        rng = random.Random(game)
        while not state.over and len(met) < 6:
            seat = state.current
            seen = view(state, seat)
            if state.pending is not None:
                for level in LEVELS:
                    req = bot(level, game).choose(seen)
                    assert_legal(seen, req)
                    met.add((level, state.pending))
            req = make_bot("easy", rng.random().hex()).choose(seen)
            apply(state, seat, to_action(state, seat, req), inplace=True)
        if len(met) == 6:
            break
    assert len(met) == 6


# ----------------------------------------------------------------------------
# Determinism and fresh instances


def _choices(
    count: int, prefix: str, keep: Callable[[GameState, dict[str, Any]], bool]
) -> list[tuple[GameState, int]]:
    """(state, seat to act) where ``keep`` holds, from a few games of Easy play."""
    out: list[tuple[GameState, int]] = []
    game = 0
    while len(out) < count:
        state, _ = new_game(Options(seats=4), f"{prefix}:{game}")
        rng = random.Random(game)
        while not state.over:
            seat = state.current
            seen = view(state, seat)
            if keep(state, seen) and rng.random() < 0.3:
                out.append((state.copy(), seat))
            req = make_bot("easy", rng.getrandbits(32)).choose(seen)
            apply(state, seat, to_action(state, seat, req), inplace=True)
        game += 1
    return out[:count]


def positions(count: int) -> list[dict[str, Any]]:
    """Views with a real choice to make, from a few random games."""
    found = _choices(count, "pos", lambda _s, seen: len(seen["legal_actions"]) > 2)
    return [view(state, seat) for state, seat in found]


@pytest.mark.parametrize("level", LEVELS)
def test_same_seed_same_choice_from_fresh_instances(level: str) -> None:
    for index, seen in enumerate(positions(12)):
        first = bot(level, f"seed:{index}").choose(seen)
        again = bot(level, f"seed:{index}").choose(json.loads(json.dumps(seen)))
        assert first == again


def test_a_bot_does_not_change_the_view() -> None:
    for seen in positions(4):
        before = json.dumps(seen, sort_keys=True)
        for level in LEVELS:
            bot(level, 3).choose(seen)
        assert json.dumps(seen, sort_keys=True) == before


def test_tournament_games_are_reproducible() -> None:
    a = play_out(["hard", "normal", "easy"], "repro")
    b = play_out(["hard", "normal", "easy"], "repro")
    assert a.to_dict() == b.to_dict()


# ----------------------------------------------------------------------------
# A bot sees only what its seat sees


def _hide_differences(state: GameState, seat: int) -> GameState:
    """A state that differs from ``state`` only in what ``seat`` cannot see.

    Cards with the same inactive face but different active faces swap places
    between other hands, and between other hands and the hidden part of the
    draw pile; the hidden part of the draw pile is reordered.
    """
    other = state.side ^ 1
    side = state.side
    s = state.copy()
    places: list[tuple[list[int], int]] = []
    for i, hand in enumerate(s.hands):
        if i != seat:
            places.extend((hand, j) for j in range(len(hand)))
    places.extend((s.draw, j) for j in range(len(s.draw) - 1))  # not the visible top
    swaps = 0
    for a in range(len(places)):
        for b in range(a + 1, len(places)):
            pa, ia = places[a]
            pb, ib = places[b]
            if pa is pb:
                continue
            ca, cb = pa[ia], pb[ib]
            if FACES[other][ca] == FACES[other][cb] and FACES[side][ca] != FACES[side][cb]:
                pa[ia], pb[ib] = cb, ca
                swaps += 1
    assert swaps > 0
    hidden = s.draw[:-1]
    random.Random(7).shuffle(hidden)
    s.draw[:-1] = hidden
    assert s.hands != state.hands or s.draw != state.draw
    return s


def _levels(game: int, seats: int, told: bool) -> list[str | None] | None:
    """Which seats the table shows as bots of which level, or None (not told)."""
    if not told:
        return None
    rng = random.Random(f"levels:{game}")
    return [rng.choice([*LEVELS, None]) for _ in range(seats)]


@pytest.mark.parametrize("told", [False, True], ids=["levels-not-told", "levels-told"])
@pytest.mark.parametrize("level", LEVELS)
def test_choice_depends_only_on_the_seats_view(level: str, told: bool) -> None:
    checked = 0
    for game in range(12):
        state, _ = new_game(Options(seats=4), f"hidden:{game}")
        rng = random.Random(game)
        for _ in range(rng.randrange(0, 30)):
            if state.over:
                break
            seat = state.current
            req = make_bot("easy", rng.getrandbits(32)).choose(view(state, seat))
            apply(state, seat, to_action(state, seat, req), inplace=True)
        if state.over:
            continue
        seat = state.current
        twin = _hide_differences(state, seat)
        # The two states really differ in other hands' active faces...
        assert [sorted(FACES[state.side][c].code for c in h) for h in state.hands] != [
            sorted(FACES[twin.side][c].code for c in h) for h in twin.hands
        ] or state.draw != twin.draw
        # ...and the seat sees, and remembers, exactly the same thing in both.
        assert view(state, seat) == view(twin, seat)
        assert flip_memory(state, seat) == flip_memory(twin, seat)
        levels = _levels(game, 4, told)
        one = bot(level, f"h:{game}").choose(
            view(state, seat), flip_memory(state, seat), levels=levels
        )
        two = bot(level, f"h:{game}").choose(
            view(twin, seat), flip_memory(twin, seat), levels=levels
        )
        assert one == two
        checked += 1
    assert checked >= 8


def test_hard_determinisations_are_consistent_with_the_view() -> None:
    for index, seen in enumerate(positions(10)):
        sampler = Sampler(seen)
        state, cards = sampler.sample(random.Random(index), "s")
        assert sorted(c for h in state.hands for c in h) + sorted(state.draw + state.discard) != []
        everything = [c for h in state.hands for c in h] + state.draw + state.discard
        assert sorted(everything) == list(range(DECK_SIZE))
        # The sample shows the seat exactly what the real state showed it, handles aside.
        again = view(state, seen["seat"])
        for key in ("discard_pile", "side", "color", "direction", "to_act", "pending"):
            assert again[key] == seen[key]
        assert again["draw_pile"] == seen["draw_pile"]
        assert [p.get("faces") for p in again["players"]] == [
            p.get("faces") for p in seen["players"]
        ]
        assert [e["face"] for e in again["hand"]] == [e["face"] for e in seen["hand"]]
        assert set(cards) == {e["card"] for e in seen["hand"]}


def _after_flips(count: int) -> list[tuple[GameState, int]]:
    """(state, seat to act) with a real choice, after the round's first flip."""
    return _choices(
        count,
        "mem",
        lambda state, seen: state.last_flip is not None and len(seen["legal_actions"]) > 1,
    )


def test_hard_memory_narrows_the_hidden_cards_and_keeps_the_discard_pile_true() -> None:
    narrower = 0
    for index, (state, seat) in enumerate(_after_flips(20)):
        seen = view(state, seat)
        memory = flip_memory(state, seat)
        plain = Sampler(seen)
        sampler = Sampler(seen, memory)
        assert len(sampler.slots) == len(plain.slots)
        for a, b in zip(sampler.slots, plain.slots, strict=True):
            assert set(a) <= set(b)
        narrower += sum(map(len, sampler.slots)) < sum(map(len, plain.slots))
        # The remembered pile is the real one: its cards are never narrowed away.
        d0, _ = sampler.discard_slots
        if memory is not None and memory["discard_pile"] is not None:
            for k in range(len(memory["discard_pile"])):
                assert state.discard[k] in sampler.slots[d0 + k]
        # Determinisations stay consistent with the view.
        sample, cards = sampler.sample(random.Random(index), "m")
        again = view(sample, seat)
        assert [p.get("faces") for p in again["players"]] == [
            p.get("faces") for p in seen["players"]
        ]
        assert [e["face"] for e in again["hand"]] == [e["face"] for e in seen["hand"]]
        assert again["discard_pile"] == seen["discard_pile"]
        assert set(cards) == {e["card"] for e in seen["hand"]}
    assert narrower >= 15


def test_hard_with_memory_is_deterministic_and_legal() -> None:
    for index, (state, seat) in enumerate(_after_flips(8)):
        seen = view(state, seat)
        memory = flip_memory(state, seat)
        first = bot("hard", f"m:{index}").choose(seen, memory)
        assert_legal(seen, first)
        assert bot("hard", f"m:{index}").choose(json.loads(json.dumps(seen)), memory) == first


# ----------------------------------------------------------------------------
# Normal's rules of thumb on small positions


def _position(
    hand: list[str],
    others: list[list[str]],
    top: str,
    color: str | None = None,
    direction: int = 1,
) -> dict[str, Any]:
    """A light-side position, seat 0 to act; faces are active (light) codes, or "#card"."""
    taken: set[int] = set()

    def take(code: str) -> int:
        if code.startswith("#"):  # one exact card
            taken.add(int(code[1:]))
            return int(code[1:])
        for card in CARDS_BY_FACE[code]:
            if card not in taken:
                taken.add(card)
                return card
        raise ValueError(code)

    hands = [[take(code) for code in hand]] + [[take(code) for code in h] for h in others]
    discard = [take(top)]
    draw = [c for c in range(DECK_SIZE) if c not in taken]
    seats = len(hands)
    state = GameState(
        options=Options(seats=seats),
        seed="position",
        round=1,
        side=LIGHT,
        hands=hands,
        draw=draw,
        discard=discard,
        color=COLOR_OF[LIGHT][discard[0]]
        if color is None
        else ["red", "yellow", "green", "blue"].index(color),
        direction=direction,
        current=0,
        active=[True] * seats,
        scores=[0] * seats,
        left_points=[None] * seats,
    )
    return view(state, 0)


def _face(seen: dict[str, Any], req: dict[str, Any]) -> str:
    return next(e["face"] for e in seen["hand"] if e["card"] == req.get("card"))


SEVEN = ["sun-1", "sun-2", "sun-3", "leaf-4", "leaf-5", "wave-6", "wave-7"]


def test_normal_keeps_its_wild_when_nobody_is_close() -> None:
    seen = _position(["flame-3", "sun-7", "leaf-8", "wild"], [SEVEN, SEVEN[::-1]], "flame-5")
    for seed in range(10):
        assert _face(seen, make_bot("normal", seed).choose(seen)) == "flame-3"


def test_normal_plays_high_value_cards_when_an_opponent_is_close() -> None:
    seen = _position(["flame-2", "flame-9", "sun-7", "leaf-8"], [["wave-1"], SEVEN], "flame-5")
    for seed in range(10):
        assert _face(seen, make_bot("normal", seed).choose(seen)) == "flame-9"
    # With an opponent on one card, even the Wild (40 points) goes.
    seen = _position(["flame-3", "sun-7", "leaf-8", "wild"], [SEVEN, ["wave-1"]], "flame-5")
    for seed in range(10):
        assert _face(seen, make_bot("normal", seed).choose(seen)) == "wild"


def test_normal_chooses_the_colour_it_holds_most_of() -> None:
    seen = _position(["wild", "leaf-2", "leaf-8", "wave-3"], [SEVEN, SEVEN], "flame-5")
    for seed in range(10):
        req = make_bot("normal", seed).choose(seen)
        assert _face(seen, req) == "wild"
        assert req["color"] == "green"


def test_normal_aims_draw_and_skip_at_the_seat_closest_to_going_out() -> None:
    hand = ["flame-4", "flame-skip", "sun-7", "leaf-8"]
    # Next player (seat 1, clockwise) holds one card: skip them.
    seen = _position(hand, [["wave-1"], SEVEN], "flame-6")
    for seed in range(10):
        assert _face(seen, make_bot("normal", seed).choose(seen)) == "flame-skip"
    # The seat closest to going out is not next: keep the Skip.
    seen = _position(hand, [SEVEN, SEVEN[:3]], "flame-6")
    for seed in range(10):
        assert _face(seen, make_bot("normal", seed).choose(seen)) == "flame-4"
    # Same with a Draw One.
    seen = _position(
        ["flame-4", "flame-draw-one", "sun-7"], [["wave-1", "wave-2"], SEVEN], "flame-6"
    )
    for seed in range(10):
        assert _face(seen, make_bot("normal", seed).choose(seen)) == "flame-draw-one"


def test_normal_does_not_flip_a_wild_into_a_hand_about_to_go_out() -> None:
    # Seat 1 holds one card whose dark face is a Wild: a flip would hand it that Wild.
    wild_backed = next(c for c in range(DECK_SIZE) if FACES[DARK][c].is_wild)
    hand = ["flame-4", "flame-flip", "sun-7", "leaf-8"]
    seen = _position(hand, [[f"#{wild_backed}"], SEVEN], "flame-6")
    assert seen["players"][1]["faces"] == [FACES[DARK][wild_backed].code]
    for seed in range(10):
        assert _face(seen, make_bot("normal", seed).choose(seen)) != "flame-flip"


# ----------------------------------------------------------------------------
# The tournament command


def test_tournament_cli_prints_the_documented_summary() -> None:
    out = io.StringIO()
    with redirect_stdout(out):
        code = main(
            [
                "tournament",
                "--games",
                "3",
                "--players",
                "3",
                "--bots",
                "hard,normal,easy",
                "--seed",
                "cli",
            ]
        )
    assert code == 0
    summary = json.loads(out.getvalue())
    assert summary["games"] == 3
    assert summary["players"] == 3
    assert set(summary["levels"]) == {"hard", "normal", "easy"}
    for stats in summary["levels"].values():
        for key in (
            "win_rate",
            "win_rate_ci95",
            "mean_points_per_game",
            "decision_ms_mean",
            "decision_ms_p99",
        ):
            assert key in stats
        low, high = stats["win_rate_ci95"]
        assert 0.0 <= low <= stats["win_rate"] <= high <= 1.0


def test_tournament_cli_rejects_a_wrong_bot_list() -> None:
    with pytest.raises(SystemExit):
        main(["tournament", "--games", "1", "--players", "3", "--bots", "hard,normal"])
    with pytest.raises(SystemExit):
        main(["tournament", "--games", "1", "--players", "2", "--bots", "hard,expert"])


# ----------------------------------------------------------------------------
# Issue 9, section 1: a seat has left and Hard is to move


@pytest.mark.parametrize("level", LEVELS)
def test_every_level_plays_on_after_a_seat_concedes_at_three_seats(level: str) -> None:
    # Alice (seat 1) concedes at once; bob and the bot play the round out. Hard's
    # sampled states once lacked the leaver's points and raised in the ranking.
    for game in range(6):
        state, _ = new_game(Options(seats=3), f"conceded:{game}")
        state, _ = apply(state, 1, Action(LEAVE))
        players = {0: bot(level, f"c:{game}"), 2: bot("normal", f"c:{game}:2")}
        while not state.over:
            seat = state.current
            seen = view(state, seat)
            req = players[seat].choose(seen, flip_memory(state, seat))
            assert_legal(seen, req)
            apply(state, seat, to_action(state, seat, req), inplace=True)
        assert state.winner in (0, 2)


# ----------------------------------------------------------------------------
# Hard's rollouts play every seat as Normal does


def test_normal_reads_the_same_table_from_a_view_and_from_the_state() -> None:
    found = _choices(80, "context", lambda _s, seen: len(seen["legal_actions"]) > 1)
    for state, seat in found:
        a, b = Context(view(state, seat)), Context.of_state(state)
        for name in Context.__slots__:
            assert getattr(a, name) == getattr(b, name), name


def test_hard_rollouts_choose_what_normal_chooses() -> None:
    # Wherever Normal's rules of thumb prefer one play by more than its noise
    # (0.5), the rollout policy makes the very same play, colour included.
    found = _choices(120, "faithful", lambda _s, seen: len(seen["legal_actions"]) > 1)
    clear = 0
    for index, (state, seat) in enumerate(found):
        seen = view(state, seat)
        if state.pending is not None:
            continue
        ctx = Context(seen)
        hand = [(e["card"], FACE_BY_CODE[e["face"]]) for e in seen["hand"]]
        scores = sorted(
            (
                play_score(face, [f for h, f in hand if h != name], ctx)
                for name, face in hand
                if any(e.get("card") == name for e in seen["legal_actions"])
            ),
            reverse=True,
        )
        if len(scores) < 2 or scores[0] - scores[1] <= 0.5:
            continue
        clear += 1
        req = make_bot("normal", index).choose(seen)
        action = normal_policy(state, random.Random(index))
        assert FACES[state.side][action.card].code == _face(seen, req)
        if "color" in req:
            faces = [f for h, f in hand if h != req["card"]]
            entry = next(e for e in seen["legal_actions"] if e.get("card") == req["card"])
            colors = [COLORS.index(name) for name in entry["colors"]]
            counts = [sum(1.0 + f.points / 100 for f in faces if f.color == c) for c in colors]
            if counts.count(max(counts)) == 1:  # no tie for the rng to break
                assert COLORS[action.color] == req["color"]
    assert clear >= 40


# ----------------------------------------------------------------------------
# The history tells a bot nothing a person in its seat could not know


def _twin(record: dict[str, Any], upto: int, x: int, y: int) -> GameState | None:
    """The game of ``record`` up to action ``upto`` with cards ``x`` and ``y`` swapped.

    Every shuffle has the two cards trade places and every action that names
    one names the other; None when the rules refuse that game.
    """

    def swap(card: int) -> int:
        return y if card == x else x if card == y else card

    orders = iter([[swap(c) for c in s["order"]] for s in record["shuffles"]])
    state, _ = new_game(Options.from_dict(record["options"]), record["seed"], shuffles=orders)
    try:
        for entry in record["actions"][:upto]:
            action = Action.from_dict(entry)
            if action.card >= 0:
                action = Action(action.type, swap(action.card), action.color)
            state, _ = apply(state, entry["seat"], action, inplace=True, shuffles=orders)
    except RuleError:
        return None
    return state


@pytest.mark.parametrize("told", [False, True], ids=["levels-not-told", "levels-told"])
@pytest.mark.parametrize("level", LEVELS)
def test_states_the_history_cannot_tell_apart_get_the_same_choice(level: str, told: bool) -> None:
    checked = 0
    for game in range(30):
        state, events = new_game(Options(seats=3 + game % 3), f"twins:{game}")
        recorder = Recorder(state.options, state.seed, events)
        rng = random.Random(game)
        stop = rng.randrange(15, 60)
        for _ in range(stop):
            if state.over:
                break
            seat = state.current
            req = make_bot("normal", rng.getrandbits(32)).choose(view(state, seat))
            action = to_action(state, seat, req)
            state, events = apply(state, seat, action)
            recorder.add(seat, action, "bot", events)
        if state.over:
            continue
        me = state.current
        record = recorder.to_dict()
        upto = len(record["actions"])
        back = state.side ^ 1
        # A card in another hand and one the seat has never seen, alike on
        # the face it shows, different on the face its owner plays from.
        held = [c for i, h in enumerate(state.hands) if i != me for c in h]
        hidden = state.draw[:-1]
        twin = None
        for x in held:
            for y in hidden:
                if FACES[back][x] != FACES[back][y] or FACES[state.side][x] == FACES[state.side][y]:
                    continue
                twin = _twin(record, upto, x, y)
                if twin is not None and (
                    view(twin, me) == view(state, me)
                    and public_history(twin, me) == public_history(state, me)
                    and flip_memory(twin, me) == flip_memory(state, me)
                ):
                    break
                twin = None
            if twin is not None:
                break
        if twin is None:
            continue
        assert [sorted(h) for h in twin.hands] != [sorted(h) for h in state.hands]
        inputs = (view(state, me), flip_memory(state, me), public_history(state, me))
        twin_inputs = (view(twin, me), flip_memory(twin, me), public_history(twin, me))
        levels = _levels(game, state.seats, told)
        one = bot(level, f"t:{game}").choose(*inputs, levels=levels)
        two = bot(level, f"t:{game}").choose(*twin_inputs, levels=levels)
        assert one == two
        checked += 1
    assert checked >= 8
