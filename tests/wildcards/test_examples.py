"""Every worked example of the classic text (seeds/001), reproduced exactly."""

from __future__ import annotations

import pytest

from wildcards import (
    CODE_OF,
    DRAW,
    PENDING_DRAWN,
    PENDING_PENALTY,
    Action,
    GameState,
    RuleError,
    apply,
    legal_actions,
    view,
)
from wildcards.cards import parse_face

from .tables import card, faces, play, table


def _plays(state: GameState, seat: int) -> list[str]:
    return sorted({CODE_OF[a.card] for a in legal_actions(state, seat) if a.type == "play"})


def test_example_sample_hand_sorted() -> None:
    """Example "A sample hand and how it is shown": Red, Yellow, Green, Blue, Wilds last."""
    dealt = ["wild", "wave-5", "sun-skip", "flame-7", "leaf-5", "sun-0", "flame-3"]
    state = table([dealt, ["leaf-2"]], "leaf-9", current=1)
    shown = [entry["face"] for entry in view(state, 0)["hand"]]
    expected = ["flame-3", "flame-7", "sun-0", "sun-skip", "leaf-5", "wave-5", "wild"]
    assert shown == [parse_face(f) for f in expected]
    assert faces(state, 0) == shown


def test_example_which_cards_can_you_play() -> None:
    """Example "Which cards can you play?": four playable cards, and no draw."""
    hand = ["flame-2", "flame-7", "sun-9", "leaf-5", "wave-3", "wave-skip", "wild"]
    state = table([hand, ["sun-2"]], "wave-7")
    assert _plays(state, 0) == sorted(["red-7", "blue-3", "blue-skip", "wild"])
    assert all(a.type == "play" for a in legal_actions(state, 0))
    with pytest.raises(RuleError) as refused:
        apply(state, 0, Action(DRAW))
    assert refused.value.code == "must_play_playable"
    shown = {e["face"]: e["playable"] for e in view(state, 0)["hand"]}
    assert shown == {
        "red-2": False,
        "red-7": True,
        "yellow-9": False,
        "green-5": False,
        "blue-3": True,
        "blue-skip": True,
        "wild": True,
    }


def test_example_plays_the_table_will_not_accept() -> None:
    """Example "Plays the table will not accept": Green 9 and a draw refused, Red 8 played."""
    state = table([["flame-8", "sun-1", "leaf-9", "wave-2"], ["sun-2"]], "flame-4")
    before = state.to_dict()
    with pytest.raises(RuleError) as refused:
        play(state, 0, "leaf-9")
    assert refused.value.code == "no_match"
    with pytest.raises(RuleError) as refused:
        apply(state, 0, Action(DRAW))
    assert refused.value.code == "must_play_playable"
    assert state.to_dict() == before  # a refused move changes nothing
    assert _plays(state, 0) == ["red-8"]
    after, _ = play(state, 0, "flame-8")
    assert CODE_OF[after.discard[-1]] == "red-8"


@pytest.mark.parametrize(
    ("drawn", "held", "playable"),
    [
        ("flame-9", ["green-1", "blue-2", "blue-8"], True),  # case A
        ("sun-3", ["yellow-3", "green-1", "blue-2", "blue-8"], False),  # case B
    ],
)
def test_example_drawing_when_you_have_nothing_to_play(
    drawn: str, held: list[str], playable: bool
) -> None:
    """Example "Drawing when you have nothing to play", both cases."""
    state = table([["leaf-1", "wave-2", "wave-8"], ["sun-2"]], "flame-5", draw_top=[drawn])
    assert legal_actions(state, 0) == [Action(DRAW)]
    state, _ = apply(state, 0, Action(DRAW))
    if playable:
        assert state.pending == PENDING_DRAWN and state.current == 0
        assert [CODE_OF[a.card] for a in legal_actions(state, 0)] == ["red-9"]
        with pytest.raises(RuleError) as refused:
            play(state, 0, "leaf-1")
        assert refused.value.code == "must_play_drawn_card"
        state, _ = play(state, 0, "flame-9")
        assert faces(state, 0) == held
    else:
        assert faces(state, 0) == held
        assert state.current == 1 and state.pending is None


def test_example_wild_draw4_allowed_and_blocked() -> None:
    """Example "Wild Draw 4: allowed and blocked", three players, no stacking."""
    # Hand A holds no Yellow: the Wild Draw 4 goes, the next player draws four and is skipped.
    state = table([["flame-2", "wave-4", "wild-draw4"], ["leaf-1"], ["leaf-2"]], "sun-3", fill_to=0)
    assert "wild-draw4" in _plays(state, 0)
    after, events = play(state, 0, "wild-draw4", color="red")
    assert after.color == 0 and len(after.hands[1]) == 5
    assert after.current == 2
    assert {"type": "turn_lost", "seat": 1} in events
    # Hand B holds Yellow 8: refused without penalty, no draw, Yellow 8 the only play.
    state = table([["flame-2", "sun-8", "wild-draw4"], ["leaf-1"], ["leaf-2"]], "sun-3")
    before = state.to_dict()
    with pytest.raises(RuleError) as refused:
        play(state, 0, "wild-draw4", color="red")
    assert refused.value.code == "wild_draw4_blocked"
    with pytest.raises(RuleError) as refused:
        apply(state, 0, Action(DRAW))
    assert refused.value.code == "must_play_playable"
    assert state.to_dict() == before
    assert _plays(state, 0) == ["yellow-8"]
    refusals = {e["face"]: e.get("refusal") for e in view(state, 0)["hand"]}
    assert refusals["wild-draw4"] == "wild_draw4_blocked"


def test_example_counting_up_a_finished_round() -> None:
    """Example "Counting up a finished round": 34 + 70 + 8 = 112 to Player 1."""
    hands = [
        ["flame-8"],
        ["flame-5", "leaf-skip", "wave-9"],
        ["sun-0", "wave-draw2", "wild"],
        ["leaf-1", "leaf-7"],
    ]
    state = table(hands, "flame-2")
    state, events = play(state, 0, "flame-8")
    result = state.results[-1]
    assert [h["points"] for h in result["hands"][1:]] == [34, 70, 8]
    assert result["winner"] == 0 and result["points"] == 112
    assert state.scores == [112, 0, 0, 0]
    assert state.over and state.winner == 0
    assert events[-1]["type"] == "game_over"


def test_example_a_stack_of_draw2_cards() -> None:
    """Example "A stack of Draw 2 cards", four players, stacking on."""
    hands = [
        ["sun-draw2", "leaf-4", "wave-7"],
        ["flame-1", "leaf-draw2", "wave-2"],
        ["flame-6", "sun-1", "wave-8"],
        ["flame-3"],
    ]
    state = table(hands, "sun-5", fill_to=7, stacking=True)
    state, _ = play(state, 0, "sun-draw2")
    assert state.pending == PENDING_PENALTY and state.penalty == 2 and state.current == 1
    assert _plays(state, 1) == ["green-draw2"]
    assert Action("take_penalty") in legal_actions(state, 1)
    for face in ("flame-1", "wave-2"):
        with pytest.raises(RuleError) as refused:
            play(state, 1, face)
        assert refused.value.code == "penalty_waiting"
    for kind in ("draw", "pass"):
        with pytest.raises(RuleError) as refused:
            apply(state, 1, Action(kind))
        assert refused.value.code == "penalty_waiting"
    state, _ = play(state, 1, "leaf-draw2")
    assert state.color == 2 and state.penalty == 4 and state.current == 2
    assert legal_actions(state, 2) == [Action("take_penalty")]
    state, _ = apply(state, 2, Action("take_penalty"))
    assert len(state.hands[2]) == 11
    assert state.penalty == 0 and state.pending is None
    assert state.current == 3 and state.color == 2
    assert card(state, 1, "flame-1") >= 0
