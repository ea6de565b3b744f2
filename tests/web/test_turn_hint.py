"""The line over the hand (``web.present.turn_hint``): what the view allows, in words.

Issue 36: "play a card marked playable, or draw" showed with no card marked, and "The
other cards: ..." with no other cards. The browser test of the whole page is in
``tests/web/test_table_layout.py``; these are the cases one by one.
"""

from __future__ import annotations

from typing import Any

import pytest

from web.present import turn_hint

BASE: dict[str, Any] = {
    "my_turn": True,
    "playable": [],
    "can_draw": False,
    "can_pass": False,
    "choosing": False,
    "must_play_drawn": False,
    "refusal": None,
}


@pytest.mark.parametrize(
    ("facts", "said"),
    [
        ({"playable": ["Red 3"], "can_draw": True}, "Play a card marked playable, or draw."),
        ({"playable": ["Red 3"]}, "Play a card marked playable."),
        ({"can_draw": True}, "No card in your hand can be played: draw a card."),
        ({"can_pass": True}, "Nothing to play and nothing to draw: pass."),
        (
            {"playable": ["Blue 7"], "must_play_drawn": True},
            "You drew Blue 7, which you can play: play it now.",
        ),
        ({"choosing": True}, "Choose the colour in play."),
        ({"my_turn": False, "refusal": "It is not your turn."}, "It is not your turn."),
        ({"my_turn": False}, ""),
    ],
)
def test_the_hint_says_what_the_view_allows(facts: dict[str, Any], said: str) -> None:
    assert turn_hint(**{**BASE, **facts}) == said


def test_with_nothing_playable_the_hint_never_mentions_playable_cards_or_other_cards() -> None:
    for can_draw, can_pass in ((True, False), (False, True), (False, False)):
        text = turn_hint(
            **{**BASE, "can_draw": can_draw, "can_pass": can_pass, "refusal": "No match."}
        )
        assert "playable" not in text and "other cards" not in text, text
