"""The selectors the web client reads the rules through: faces in words, sentences."""

from __future__ import annotations

import pytest

import flip
from flip.cards import CODE_OF
from games import selectors


@pytest.mark.parametrize(
    ("code", "side", "color", "symbol", "name", "points"),
    [
        ("flame-4", "light", "red", "flame", "Red 4", 4),
        ("sun-draw-one", "light", "yellow", "sun", "Yellow Draw One", 10),
        ("leaf-reverse", "light", "green", "leaf", "Green Reverse", 20),
        ("wave-skip", "light", "blue", "wave", "Blue Skip", 20),
        ("wild", "light", None, None, "Wild", 40),
        ("wild-draw-two", "light", None, None, "Wild Draw 2", 50),
        ("moon-3", "dark", "magenta", "moon", "Magenta 3", 3),
        ("gem-draw-five", "dark", "cyan", "gem", "Cyan Draw Five", 20),
        ("bolt-skip-everyone", "dark", "orange", "bolt", "Orange Skip Everyone", 30),
        ("star-flip", "dark", "purple", "star", "Purple Flip", 20),
        ("dark-wild", "dark", None, None, "Dark Wild", 40),
        ("wild-draw-color", "dark", None, None, "Wild Draw Color", 60),
    ],
)
def test_the_cards_every_face_in_words_with_its_colour_and_symbol(
    code: str, side: str, color: str | None, symbol: str | None, name: str, points: int
) -> None:
    words = selectors.face_words(code)
    assert (words["side"], words["color"], words["symbol"]) == (side, color, symbol)
    assert (words["name"], words["points"]) == (name, points)


def test_every_face_of_the_deck_has_its_own_name() -> None:
    codes = {code for side in CODE_OF for code in side}
    names = {selectors.face_words(code)["name"] for code in codes}
    assert len(names) == len(codes)


def test_refusal_sentences_are_the_rules_own() -> None:
    for code, sentence in flip.MESSAGES.items():
        assert selectors.refusal_sentence(code) == sentence


def test_each_colour_has_its_symbol() -> None:
    assert [selectors.color_symbol(c) for c in ("red", "yellow", "green", "blue")] == [
        "flame",
        "sun",
        "leaf",
        "wave",
    ]
    assert [selectors.color_symbol(c) for c in ("magenta", "cyan", "orange", "purple")] == [
        "moon",
        "gem",
        "bolt",
        "star",
    ]
