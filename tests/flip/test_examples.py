"""Every worked example of the specification, reproduced through the engine."""

from __future__ import annotations

import pytest

from flip import (
    DARK,
    DRAW,
    FACES,
    LIGHT,
    PLAY,
    Action,
    GameState,
    Options,
    RuleError,
    apply,
    legal_actions,
    view,
)
from flip.cards import CODE_OF, POINTS_OF
from flip.views import result_view
from tests.flip.stacking import card, choose, faces, pick, play, position, refused, top_first


def playable_faces(state: GameState, seat: int) -> set[str]:
    return {CODE_OF[state.side][a.card] for a in legal_actions(state, seat) if a.type == PLAY}


# --- Which cards can you play? ------------------------------------------------


def test_example_which_cards_can_you_play() -> None:
    hand = ["flame-3", "flame-5", "sun-9", "leaf-reverse", "wave-2", "wild"]
    state = position([hand, ["wave-9"]], ["sun-5"], color="yellow")
    assert playable_faces(state, 0) == {"flame-5", "sun-9", "wild"}
    marks = {entry["face"]: entry for entry in view(state, 0)["hand"]}
    assert [e["face"] for e in view(state, 0)["hand"]] == hand
    for code in ("flame-3", "leaf-reverse", "wave-2"):
        assert marks[code]["playable"] is False
        assert marks[code]["refusal"] == "card_does_not_match"
        assert refused(state, 0, play(state.hands[0][hand.index(code)])) == "card_does_not_match"
    for code in ("flame-5", "sun-9", "wild"):
        assert marks[code]["playable"] is True
    # You may not draw while any of them is in your hand.
    assert refused(state, 0, Action(DRAW)) == "must_play_when_able"
    # You choose which: each of the three is accepted.
    for code, color in (("flame-5", None), ("sun-9", None), ("wild", "green")):
        after, _ = apply(state, 0, play(state.hands[0][hand.index(code)], color))
        assert after.discard[-1] == state.hands[0][hand.index(code)]


# --- Plays the table will not accept ----------------------------------------------


def test_example_plays_the_table_will_not_accept() -> None:
    state = position([["sun-9", "leaf-2", "wild-draw-two"], ["wave-9"]], ["sun-5"])
    sun9, _leaf2, wd2 = state.hands[0]
    assert state.color == 1  # yellow
    # The Wild Draw 2 is refused: Yellow 9 is a card of the colour in play.
    assert refused(state, 0, play(wd2, "red")) == "restricted_wild_blocked"
    # Drawing is refused too: Yellow 9 is playable.
    assert refused(state, 0, Action(DRAW)) == "must_play_when_able"
    # Yellow 9 is the only card that may be played.
    assert [a for a in legal_actions(state, 0) if a.type == PLAY] == [play(sun9)]
    after, events = apply(state, 0, play(sun9))
    assert after.discard[-1] == sun9
    assert after.current == 1
    assert [e["type"] for e in events] == ["play"]


def test_example_plays_the_table_will_not_accept_refusal_changes_nothing() -> None:
    state = position([["sun-9", "leaf-2", "wild-draw-two"], ["wave-9"]], ["sun-5"])
    snapshot = state.to_dict()
    for action in (play(state.hands[0][2], "blue"), Action(DRAW)):
        with pytest.raises(RuleError):
            apply(state, 0, action)
    # No card drawn, no turn lost, the same turn number (the timer keeps running).
    assert state.to_dict() == snapshot


# --- Wild Draw Color: allowed and blocked ---------------------------------------------


def _wild_draw_color_table() -> GameState:
    # Three players on the dark side; A is seat 0, the next player seat 1 and B seat 2.
    return position(
        [
            ["gem-2", "bolt-4", "wild-draw-color"],
            ["star-9"],
            ["moon-3", "gem-2", "wild-draw-color"],
        ],
        ["moon-6"],
        ["moon-5", "star-1", "dark-wild", "gem-6", "gem-7", "moon-8"],
        side=DARK,
    )


def test_example_wild_draw_color_allowed() -> None:
    state = _wild_draw_color_table()
    assert state.color == 4  # magenta
    wdc = state.hands[0][2]
    assert view(state, 0)["hand"][2] == {
        "card": view(state, 0)["hand"][2]["card"],
        "face": "wild-draw-color",
        "playable": True,
    }
    expected_drawn = top_first(state.draw)[:4]
    after, events = apply(state, 0, play(wdc, "cyan"))
    assert faces(expected_drawn, DARK) == ["moon-5", "star-1", "dark-wild", "gem-6"]
    (draw,) = [e for e in events if e["type"] == "draw"]
    assert draw["seat"] == 1
    assert faces(draw["cards"], DARK) == ["moon-5", "star-1", "dark-wild", "gem-6"]
    # They keep all four and lose their turn.
    assert sorted(after.hands[1]) == sorted(state.hands[1] + expected_drawn)
    assert {"type": "turn_lost", "seat": 1} in events
    assert after.current == 2
    assert after.color == 5  # cyan
    assert faces(top_first(after.draw)[:2], DARK) == ["gem-7", "moon-8"]


def test_example_wild_draw_color_blocked() -> None:
    state = _wild_draw_color_table()
    state.current = 2
    moon3, _gem2, wdc = state.hands[2]
    assert refused(state, 2, play(wdc, "cyan")) == "restricted_wild_blocked"
    assert refused(state, 2, Action(DRAW)) == "must_play_when_able"
    assert [a for a in legal_actions(state, 2) if a.type == PLAY] == [play(moon3)]
    after, _ = apply(state, 2, play(moon3))
    # B still holds the Wild Draw Color for a later turn.
    assert wdc in after.hands[2]
    assert after.discard[-1] == moon3


# --- What a flip does to the piles ------------------------------------------------


def _flip_table(bottom: str) -> GameState:
    # Three cards in the discard pile, the bottom one showing ``bottom`` on the
    # dark side; the draw pile holds exactly A, B and C, A on top.
    return position(
        [
            ["flame-flip", "flame-1"],
            ["gem-7", "star-3", "bolt-5", "dark-wild", "moon-8"],
            ["wave-9"],
        ],
        [bottom, "leaf-6", "flame-6"],
        ["sun-1", "sun-2", "sun-3"],
        rest="none",
    )


def test_example_what_a_flip_does_to_the_piles() -> None:
    state = _flip_table("gem-3")
    assert state.color == 0  # red
    flip_card = state.hands[0][0]
    a, b, c = top_first(state.draw)
    old_discard = state.discard[:]
    after, events = apply(state, 0, play(flip_card))
    # The discard pile is reversed: the Flip at the bottom, the old bottom on top.
    assert after.discard == [flip_card, *old_discard[::-1]]
    assert CODE_OF[DARK][after.discard[-1]] == "gem-3"
    # The draw pile is reversed too: C, B, A come next.
    assert top_first(after.draw) == [c, b, a]
    assert after.side == DARK
    assert after.color == 5  # cyan
    assert after.current == 1
    assert after.pending is None
    # Your turn is over and nothing was drawn.
    assert [e["type"] for e in events] == ["play", "flip"]
    assert all(len(h) == n for h, n in zip(after.hands, (1, 5, 1), strict=True))
    # The next player must play a Cyan card, a 3, or a Wild, by dark faces.
    assert playable_faces(after, 1) == {"gem-7", "star-3", "dark-wild"}
    assert view(after, 1)["top"] == "gem-3"
    assert view(after, 1)["color"] == "cyan"


def test_example_what_a_flip_does_to_the_piles_wild_on_top() -> None:
    state = _flip_table("dark-wild")
    after, _ = apply(state, 0, play(state.hands[0][0]))
    # The next player chooses the colour before playing.
    assert after.pending == "choose_color"
    assert after.current == 1
    assert refused(after, 1, play(after.hands[1][0])) == "color_must_be_chosen_first"
    chosen, _ = apply(after, 1, choose("orange"))
    assert chosen.current == 1
    assert chosen.color == 6
    assert playable_faces(chosen, 1) == {"bolt-5", "dark-wild"}


# --- The same hand, read again after a flip -------------------------------------------


def _same_hand_table(bottom: str) -> GameState:
    return position(
        [
            ["sun-flip", "flame-1"],
            ["sun-9/bolt-4", "leaf-2/moon-3", "wave-2/wild-draw-color"],
        ],
        [bottom, "sun-5"],
    )


def test_example_the_same_hand_read_again_on_the_light_side() -> None:
    state = _same_hand_table("sun-draw-one/gem-6")
    state.current = 1
    assert [e["face"] for e in view(state, 1)["hand"]] == ["sun-9", "leaf-2", "wave-2"]
    assert playable_faces(state, 1) == {"sun-9"}


@pytest.mark.parametrize(
    ("bottom", "top_face", "color", "playable"),
    [
        ("sun-draw-one/gem-6", "gem-6", "cyan", {"wild-draw-color"}),
        ("moon-8", "moon-8", "magenta", {"moon-3"}),
    ],
)
def test_example_the_same_hand_read_again_after_a_flip(
    bottom: str, top_face: str, color: str, playable: set[str]
) -> None:
    state = _same_hand_table(bottom)
    after, _ = apply(state, 0, play(state.hands[0][0]))
    seat_view = view(after, 1)
    assert [e["face"] for e in seat_view["hand"]] == ["moon-3", "bolt-4", "wild-draw-color"]
    assert seat_view["top"] == top_face
    assert seat_view["color"] == color
    assert playable_faces(after, 1) == playable
    if color == "magenta":
        wdc = next(c for c in after.hands[1] if CODE_OF[DARK][c] == "wild-draw-color")
        assert refused(after, 1, play(wdc, "cyan")) == "restricted_wild_blocked"
        assert refused(after, 1, Action(DRAW)) == "must_play_when_able"


# --- Counting up a finished round -------------------------------------------------


def _counting_table(side: int) -> GameState:
    players_2_and_3 = [["moon-skip-everyone", "bolt-4", "wild-draw-color"], ["gem-flip"]]
    if side == DARK:
        return position([["gem-5"], *players_2_and_3], ["gem-2"], side=DARK)
    return position([["flame-flip"], *players_2_and_3], ["flame-2"], side=LIGHT)


def test_example_counting_up_a_finished_round() -> None:
    state = _counting_table(DARK)
    after, events = apply(state, 0, play(state.hands[0][0]))
    (result,) = after.results
    assert result["winner"] == 0
    assert result["points"] == 114
    assert result["side"] == DARK
    shown = result_view(result)
    assert shown["hands"] == [
        {"seat": 0, "cards": [], "points": 0},
        {
            "seat": 1,
            "cards": [
                {"face": "moon-skip-everyone", "points": 30},
                {"face": "bolt-4", "points": 4},
                {"face": "wild-draw-color", "points": 60},
            ],
            "points": 94,
        },
        {"seat": 2, "cards": [{"face": "gem-flip", "points": 20}], "points": 20},
    ]
    assert after.scores == [114, 0, 0]
    assert after.over and after.winner == 0
    assert events[-1]["type"] == "game_over"


def test_example_counting_up_a_finished_round_won_by_a_flip_on_the_light_side() -> None:
    state = _counting_table(LIGHT)
    leftovers = state.hands[1] + state.hands[2]
    # The same physical cards as in the dark example.
    assert sorted(faces(leftovers, DARK)) == sorted(
        ["moon-skip-everyone", "bolt-4", "wild-draw-color", "gem-flip"]
    )
    after, events = apply(state, 0, play(state.hands[0][0]))
    expected = sum(POINTS_OF[LIGHT][c] for c in leftovers)
    assert expected == sum(FACES[LIGHT][c].points for c in leftovers) != 114
    (result,) = after.results
    assert result["side"] == LIGHT
    assert result["points"] == expected
    # The winning Flip does not flip the table.
    assert after.side == LIGHT
    assert "flip" not in [e["type"] for e in events]
    shown = result_view(result)
    assert [c["face"] for c in shown["hands"][1]["cards"]] == faces(
        sorted(state.hands[1], key=lambda c: FACES[LIGHT][c].sort_key), LIGHT
    )


def test_example_counting_up_uses_the_pairing_cards() -> None:
    # A sanity check of the helper: the dark codes picked the cards by dark face.
    cards = pick(["moon-skip-everyone", "bolt-4", "wild-draw-color", "gem-flip"], set())
    assert faces(cards, DARK) == ["moon-skip-everyone", "bolt-4", "wild-draw-color", "gem-flip"]
    assert card("bolt-4") == cards[1]
    assert Options(seats=3).scoring == "single"
