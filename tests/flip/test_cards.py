"""The cards: the fixed pairing, each side's counts, points and sort order."""

from __future__ import annotations

import csv
import itertools
from collections import Counter
from importlib import resources
from pathlib import Path

import pytest

from flip import DARK, FACES, LIGHT, Options, apply, view
from flip.cards import CARDS_BY_FACE, CODE_OF, DECK_SIZE, parse_face, sorted_hand
from tests.flip.stacking import card, faces, play, stacked_game

# The team's shared folder sits beside the repository (also in CI's fresh clone).
_REPO = Path(__file__).resolve().parents[2]
SHARED_DECK = next(
    (
        candidate
        for candidate in (
            _REPO.parent / "shared" / "data" / "flip-deck.csv",
            Path("/work/shared/data/flip-deck.csv"),
        )
        if candidate.exists()
    ),
    _REPO.parent / "shared" / "data" / "flip-deck.csv",
)

LIGHT_SYMBOLS = ("flame", "sun", "leaf", "wave")
DARK_SYMBOLS = ("moon", "gem", "bolt", "star")
LIGHT_ACTIONS = ("draw-one", "reverse", "skip", "flip")
DARK_ACTIONS = ("draw-five", "reverse", "skip-everyone", "flip")


def _rows(text: str) -> list[tuple[str, str, str]]:
    return [(r["card"], r["light"], r["dark"]) for r in csv.DictReader(text.splitlines())]


def test_the_cards_shipped_pairing_equals_the_reference_table() -> None:
    if not SHARED_DECK.exists():
        pytest.skip(f"the reference table {SHARED_DECK} is not on this machine")
    shipped = resources.files("flip").joinpath("data/flip-deck.csv").read_text(encoding="utf-8")
    assert _rows(shipped) == _rows(SHARED_DECK.read_text(encoding="utf-8"))


def test_the_cards_engine_faces_are_the_shipped_table() -> None:
    shipped = resources.files("flip").joinpath("data/flip-deck.csv").read_text(encoding="utf-8")
    rows = _rows(shipped)
    assert [int(r[0]) for r in rows] == list(range(DECK_SIZE))
    assert [r[1] for r in rows] == [f.code for f in FACES[LIGHT]]
    assert [r[2] for r in rows] == [f.code for f in FACES[DARK]]


def _expected_side(symbols: tuple[str, ...], actions: tuple[str, ...], wilds: tuple[str, ...]):
    expected: Counter[str] = Counter()
    for symbol in symbols:
        for number in range(1, 10):
            expected[f"{symbol}-{number}"] = 2
        for action in actions:
            expected[f"{symbol}-{action}"] = 2
    for wild in wilds:
        expected[wild] = 4
    return expected


def test_the_cards_light_side_counts_match_the_list() -> None:
    counts = Counter(f.code for f in FACES[LIGHT])
    expected = _expected_side(LIGHT_SYMBOLS, LIGHT_ACTIONS, ("wild", "wild-draw-two"))
    assert counts == expected
    assert sum(counts.values()) == 112
    # 18 number cards per colour, 8 of each action, 4 of each wild.
    for symbol in LIGHT_SYMBOLS:
        assert sum(counts[f"{symbol}-{n}"] for n in range(1, 10)) == 18
    for action in LIGHT_ACTIONS:
        assert sum(counts[f"{s}-{action}"] for s in LIGHT_SYMBOLS) == 8


def test_the_cards_dark_side_counts_match_the_list() -> None:
    counts = Counter(f.code for f in FACES[DARK])
    expected = _expected_side(DARK_SYMBOLS, DARK_ACTIONS, ("dark-wild", "wild-draw-color"))
    assert counts == expected
    assert sum(counts.values()) == 112
    for symbol in DARK_SYMBOLS:
        assert sum(counts[f"{symbol}-{n}"] for n in range(1, 10)) == 18
    for action in DARK_ACTIONS:
        assert sum(counts[f"{s}-{action}"] for s in DARK_SYMBOLS) == 8


def test_the_cards_every_card_has_one_light_and_one_dark_face() -> None:
    for c in range(DECK_SIZE):
        assert FACES[LIGHT][c].side == LIGHT
        assert FACES[DARK][c].side == DARK
    # The two sets never share a colour or a symbol.
    light_colors = {f.color for f in FACES[LIGHT]}
    dark_colors = {f.color for f in FACES[DARK]}
    assert light_colors & dark_colors == {-1}


@pytest.mark.parametrize(
    ("code", "points"),
    [
        *[(f"flame-{n}", n) for n in range(1, 10)],
        *[(f"star-{n}", n) for n in range(1, 10)],
        ("sun-draw-one", 10),
        ("gem-draw-five", 20),
        ("leaf-reverse", 20),
        ("bolt-reverse", 20),
        ("wave-skip", 20),
        ("moon-skip-everyone", 30),
        ("flame-flip", 20),
        ("star-flip", 20),
        ("wild", 40),
        ("dark-wild", 40),
        ("wild-draw-two", 50),
        ("wild-draw-color", 60),
    ],
)
def test_scoring_table_points_per_face(code: str, points: int) -> None:
    assert parse_face(code).points == points
    for side in (LIGHT, DARK):
        for c in CARDS_BY_FACE[code]:
            if CODE_OF[side][c] == code:
                assert FACES[side][c].points == points


def _ruling_13_order(
    symbols: tuple[str, ...], actions: tuple[str, ...], wilds: tuple[str, ...]
) -> list[str]:
    out: list[str] = []
    for symbol in symbols:
        out.extend(f"{symbol}-{n}" for n in range(1, 10))
        out.extend(f"{symbol}-{a}" for a in actions)
    out.extend(wilds)
    return out


def _dedupe(codes: list[str]) -> list[str]:
    return list(dict.fromkeys(codes))


def test_your_hand_sorted_order_light_side_ruling_13() -> None:
    ordered = faces(sorted_hand(list(range(DECK_SIZE)), LIGHT), LIGHT)
    expected = _ruling_13_order(LIGHT_SYMBOLS, LIGHT_ACTIONS, ("wild", "wild-draw-two"))
    assert _dedupe(ordered) == expected


def test_your_hand_sorted_order_dark_side_ruling_13() -> None:
    ordered = faces(sorted_hand(list(range(DECK_SIZE)), DARK), DARK)
    expected = _ruling_13_order(DARK_SYMBOLS, DARK_ACTIONS, ("dark-wild", "wild-draw-color"))
    assert _dedupe(ordered) == expected


def _assignments(light_hand: list[str]) -> list[tuple[int, ...]]:
    """Every choice of distinct physical cards that shows ``light_hand``."""
    candidates = [CARDS_BY_FACE[code] for code in light_hand]
    return [combo for combo in itertools.product(*candidates) if len(set(combo)) == len(light_hand)]


SAMPLE_LIGHT = [
    "flame-4",
    "flame-flip",
    "sun-9",
    "sun-draw-one",
    "leaf-reverse",
    "wave-skip",
    "wild",
]
SAMPLE_DARK = [
    "moon-skip-everyone",
    "gem-6",
    "gem-flip",
    "bolt-4",
    "bolt-8",
    "star-1",
    "star-3",
]


def _dark_sorted(cards: tuple[int, ...]) -> list[str]:
    return faces(sorted_hand(list(cards), DARK), DARK)


def test_example_a_sample_hand_on_each_side_can_be_dealt_from_the_pairing() -> None:
    matches = [combo for combo in _assignments(SAMPLE_LIGHT) if _dark_sorted(combo) == SAMPLE_DARK]
    assert matches, "the pairing cannot deal the sample hand"
    # The light hand as given is already sorted (ruling 13).
    assert faces(sorted_hand(list(matches[0]), LIGHT), LIGHT) == SAMPLE_LIGHT


def test_example_a_sample_hand_on_each_side_shown_through_a_flip_in_a_game() -> None:
    (combo,) = [c for c in _assignments(SAMPLE_LIGHT) if _dark_sorted(c) == SAMPLE_DARK]
    # Seat 0 (the dealer) is dealt the sample hand; seat 1, who goes first,
    # flips the table with a Red Flip on the Red 5 starter.
    flipper = next(c for c in CARDS_BY_FACE["flame-flip"] if c not in combo)
    state, _ = stacked_game(
        [list(combo), [flipper, "sun-1", "sun-2"]],
        "flame-5",
        options=Options(seats=2),
    )
    assert [entry["face"] for entry in view(state, 0)["hand"]] == SAMPLE_LIGHT
    # While the table is light, the other seat sees the dark faces, sorted.
    assert view(state, 1)["players"][0]["faces"] == SAMPLE_DARK
    state, _ = apply(state, 1, play(flipper))
    assert state.side == DARK
    assert [entry["face"] for entry in view(state, 0)["hand"]] == SAMPLE_DARK
    # The views swap: the other seat now sees the faces seat 0 was playing from.
    assert view(state, 1)["players"][0]["faces"] == SAMPLE_LIGHT


def test_example_the_same_hand_read_again_after_a_flip_pairing() -> None:
    light = ["sun-9", "leaf-2", "wave-2"]
    darks = {tuple(_dark_sorted(combo)) for combo in _assignments(light)}
    assert ("moon-3", "bolt-4", "wild-draw-color") in darks
    hand = [card("sun-9/bolt-4"), card("leaf-2/moon-3"), card("wave-2/wild-draw-color")]
    assert _dark_sorted(tuple(hand)) == ["moon-3", "bolt-4", "wild-draw-color"]
