"""A turn and the card effects of each side, with two seats and with more."""

from __future__ import annotations

import pytest

from flip import DARK, LIGHT, Action, GameState, Options, apply, legal_actions
from flip.cards import CODE_OF, COLOR_OF
from flip.engine import DRAW, PASS, PLAY
from tests.flip.stacking import all_cards, card, faces, play, position, refused, top_first


def others(symbol: str, seats: int) -> list[list[str | int]]:
    """One distinct number card of ``symbol`` for each seat after seat 0."""
    return [[f"{symbol}-{k + 1}"] for k in range(seats - 1)]


def take(state: GameState, code: str) -> int:
    """Take a card showing ``code`` (either side) out of the draw pile."""
    for c in state.draw:
        if code in (CODE_OF[LIGHT][c], CODE_OF[DARK][c]):
            state.draw.remove(c)
            return c
    raise AssertionError(f"no {code} in the draw pile")


def _types(events: list[dict]) -> list[str]:
    return [e["type"] for e in events]


# --- Light side -------------------------------------------------------------------


@pytest.mark.parametrize(("seats", "next_seat"), [(2, 1), (3, 1), (5, 1)])
def test_the_light_side_number_card_no_effect(seats: int, next_seat: int) -> None:
    hands = [["flame-3", "sun-1"]] + others("wave", seats)
    state = position(hands, ["flame-7"])
    after, events = apply(state, 0, play(state.hands[0][0]))
    assert after.current == next_seat
    assert after.color == 0
    assert after.turn == state.turn + 1
    assert _types(events) == ["play"]


@pytest.mark.parametrize(("seats", "next_turn"), [(2, 0), (3, 2), (4, 2)])
def test_the_light_side_draw_one(seats: int, next_turn: int) -> None:
    hands = [["flame-draw-one", "sun-1"]] + others("wave", seats)
    state = position(hands, ["flame-7"], ["leaf-8", "leaf-9"])
    after, events = apply(state, 0, play(state.hands[0][0]))
    assert faces(after.hands[1], LIGHT) == ["wave-1", "leaf-8"]
    assert after.current == next_turn
    assert _types(events) == ["play", "draw", "turn_lost"]
    assert events[1]["reason"] == "penalty"
    assert events[2] == {"type": "turn_lost", "seat": 1}


@pytest.mark.parametrize(("seats", "next_turn"), [(3, 2), (4, 3), (6, 5)])
def test_the_light_side_reverse_three_or_more(seats: int, next_turn: int) -> None:
    hands = [["sun-reverse", "sun-1"]] + others("wave", seats)
    state = position(hands, ["sun-7"])
    after, events = apply(state, 0, play(state.hands[0][0]))
    assert after.direction == -1
    assert after.current == next_turn
    assert {"type": "reverse", "direction": -1} in events
    # Reversing again turns it back.
    second = take(after, "sun-reverse")
    after.hands[next_turn].append(second)
    again, _ = apply(after, next_turn, play(second))
    assert again.direction == 1
    assert again.current == (next_turn + 1) % seats


def test_the_light_side_reverse_two_players_acts_as_skip() -> None:
    state = position([["sun-reverse", "sun-1"], ["wave-1"]], ["sun-7"])
    after, events = apply(state, 0, play(state.hands[0][0]))
    # You take another turn straight away; the direction ring does not turn.
    assert after.current == 0
    assert after.direction == 1
    assert after.turn == state.turn + 1
    assert {"type": "turn_lost", "seat": 1} in events


def test_the_light_side_reverse_two_players_option_off() -> None:
    options = Options(seats=2, two_seat_reverse_skips=False)
    state = position([["sun-reverse", "sun-1"], ["wave-1"]], ["sun-7"], options=options)
    after, events = apply(state, 0, play(state.hands[0][0]))
    assert after.current == 1
    assert after.direction == -1
    assert _types(events) == ["play", "reverse"]


@pytest.mark.parametrize(("option", "current", "direction"), [(True, 0, 1), (False, 2, -1)])
def test_two_players_counts_the_players_still_in(
    option: bool, current: int, direction: int
) -> None:
    # A table of three that has lost seat 1 plays the two-player rule.
    options = Options(seats=3, two_seat_reverse_skips=option)
    state = position(
        [["leaf-reverse", "sun-1"], [], ["wave-1"]],
        ["leaf-7"],
        options=options,
        active=[True, False, True],
    )
    after, _ = apply(state, 0, play(state.hands[0][0]))
    assert after.current == current
    assert after.direction == direction


def test_two_players_skip_and_skip_everyone_after_a_player_left() -> None:
    state = position(
        [["leaf-skip", "sun-1"], [], ["wave-1"]],
        ["leaf-7"],
        options=Options(seats=3),
        active=[True, False, True],
    )
    after, _ = apply(state, 0, play(state.hands[0][0]))
    assert after.current == 0


@pytest.mark.parametrize(("seats", "next_turn"), [(2, 0), (3, 2), (4, 2)])
def test_the_light_side_skip(seats: int, next_turn: int) -> None:
    hands = [["wave-skip", "sun-1"]] + others("leaf", seats)
    state = position(hands, ["wave-7"])
    after, events = apply(state, 0, play(state.hands[0][0]))
    assert after.current == next_turn
    assert _types(events) == ["play", "turn_lost"]
    assert after.direction == 1
    assert [len(h) for h in after.hands] == [1] + [1] * (seats - 1)


def test_the_light_side_skip_matches_a_skip_of_another_colour() -> None:
    state = position([["wave-skip", "sun-1"], ["leaf-1"], ["leaf-2"]], ["flame-skip"])
    assert [a.card for a in legal_actions(state, 0)] == [state.hands[0][0]]
    after, _ = apply(state, 0, play(state.hands[0][0]))
    assert after.color == 3
    assert after.current == 2


@pytest.mark.parametrize("seats", [2, 3])
def test_the_light_side_wild_choose_a_light_colour(seats: int) -> None:
    hands = [["wild", "sun-1"]] + others("leaf", seats)
    state = position(hands, ["wave-7"])
    wild = state.hands[0][0]
    assert {a.color for a in legal_actions(state, 0) if a.card == wild} == {0, 1, 2, 3}
    after, events = apply(state, 0, play(wild, "green"))
    assert after.color == 2
    assert after.current == 1
    assert events == [{"type": "play", "seat": 0, "card": wild, "side": LIGHT, "color": "green"}]
    assert refused(state, 0, play(wild, "cyan")) == "color_not_in_side"
    assert refused(state, 0, play(wild)) == "color_required"


@pytest.mark.parametrize(("seats", "next_turn"), [(2, 0), (3, 2)])
def test_the_light_side_wild_draw_2(seats: int, next_turn: int) -> None:
    hands = [["wild-draw-two", "sun-1"]] + others("leaf", seats)
    state = position(hands, ["wave-7"], ["flame-8", "flame-9", "leaf-3"])
    after, events = apply(state, 0, play(state.hands[0][0], "red"))
    assert faces(after.hands[1], LIGHT) == ["leaf-1", "flame-8", "flame-9"]
    assert after.color == 0
    assert after.current == next_turn
    assert _types(events) == ["play", "draw", "turn_lost"]


def test_the_restricted_wilds_what_does_not_block_them() -> None:
    # A Wild, a card matching by number in another colour, the other face of a
    # card, and another restricted Wild do not block a Wild Draw 2.
    hand = ["wild-draw-two", "wild", "flame-5", "wild-draw-two", "wave-2/wild-draw-color"]
    state = position([hand, ["wave-1"]], ["sun-5"])
    assert CODE_OF[DARK][state.hands[0][4]] == "wild-draw-color"
    plays = {(a.card, a.color) for a in legal_actions(state, 0) if a.type == PLAY}
    wd2s = [c for c in state.hands[0] if CODE_OF[LIGHT][c] == "wild-draw-two"]
    for wd2 in wd2s:
        assert {(wd2, color) for color in range(4)} <= plays
    # Only the exact colour in play blocks it: a yellow card does.
    state.hands[0].append(take(state, "sun-1"))
    assert refused(state, 0, play(wd2s[0], "red")) == "restricted_wild_blocked"


def test_the_restricted_wilds_plain_wild_is_never_restricted() -> None:
    state = position([["wild", "sun-1"], ["wave-1"]], ["sun-5"])
    assert any(a.card == state.hands[0][0] for a in legal_actions(state, 0))
    dark = position([["dark-wild", "moon-1"], ["bolt-1"]], ["moon-5"], side=DARK)
    after, _ = apply(dark, 0, play(dark.hands[0][0], "orange"))
    assert after.color == 6


# --- Dark side --------------------------------------------------------------------


@pytest.mark.parametrize(("seats", "next_turn"), [(2, 0), (3, 2), (4, 2)])
def test_the_dark_side_draw_five(seats: int, next_turn: int) -> None:
    hands = [["gem-draw-five", "gem-1"]] + others("star", seats)
    draw = ["moon-1", "moon-2", "moon-3", "moon-4", "moon-5", "moon-6"]
    state = position(hands, ["gem-7"], draw, side=DARK)
    after, events = apply(state, 0, play(state.hands[0][0]))
    assert faces(after.hands[1], DARK) == ["star-1", *draw[:5]]
    assert faces(top_first(after.draw)[:1], DARK) == ["moon-6"]
    assert after.current == next_turn
    assert _types(events) == ["play", "draw", "turn_lost"]
    assert after.side == DARK


@pytest.mark.parametrize(
    ("seats", "option", "current", "direction"),
    [
        (2, True, 0, 1),
        (2, False, 1, -1),
        (3, True, 2, -1),
        (4, False, 3, -1),
    ],
)
def test_the_dark_side_reverse_exactly_as_on_the_light_side(
    seats: int, option: bool, current: int, direction: int
) -> None:
    hands = [["bolt-reverse", "gem-1"]] + others("star", seats)
    options = Options(seats=seats, two_seat_reverse_skips=option)
    state = position(hands, ["bolt-7"], side=DARK, options=options)
    after, _ = apply(state, 0, play(state.hands[0][0]))
    assert after.current == current
    assert after.direction == direction


@pytest.mark.parametrize("seats", [2, 3, 6])
def test_the_dark_side_skip_everyone_you_play_again(seats: int) -> None:
    hands = [["star-skip-everyone", "gem-1"]] + others("moon", seats)
    state = position(hands, ["star-7"], side=DARK)
    after, events = apply(state, 0, play(state.hands[0][0]))
    assert after.current == 0
    assert after.turn == state.turn + 1  # a new turn for the same player
    assert after.direction == 1
    assert _types(events) == ["play"]
    assert [len(h) for h in after.hands] == [1] + [1] * (seats - 1)


def test_the_dark_side_skip_everyone_matches_another_skip_everyone() -> None:
    state = position(
        [["moon-skip-everyone", "gem-1"], ["star-1"]], ["bolt-skip-everyone"], side=DARK
    )
    assert [a.card for a in legal_actions(state, 0)] == [state.hands[0][0]]


@pytest.mark.parametrize("seats", [2, 3])
def test_the_dark_side_dark_wild(seats: int) -> None:
    hands = [["dark-wild", "gem-1"]] + others("moon", seats)
    state = position(hands, ["star-7"], side=DARK)
    wild = state.hands[0][0]
    assert {a.color for a in legal_actions(state, 0) if a.card == wild} == {4, 5, 6, 7}
    after, _ = apply(state, 0, play(wild, "purple"))
    assert after.color == 7
    assert after.current == 1
    assert refused(state, 0, play(wild, "red")) == "color_not_in_side"


@pytest.mark.parametrize(("seats", "next_turn"), [(2, 0), (3, 2)])
def test_the_dark_side_wild_draw_color_stops_on_the_chosen_colour(
    seats: int, next_turn: int
) -> None:
    hands = [["wild-draw-color", "gem-1"]] + others("moon", seats)
    # Wilds do not stop the drawing, whatever their name.
    draw = ["dark-wild", "wild-draw-color", "star-2", "gem-4", "bolt-4", "bolt-5"]
    state = position(hands, ["star-7"], draw, side=DARK)
    after, events = apply(state, 0, play(state.hands[0][0], "orange"))
    assert faces(after.hands[1], DARK) == ["moon-1", *draw[:5]]
    assert faces(top_first(after.draw)[:1], DARK) == ["bolt-5"]
    assert after.color == 6
    assert after.current == next_turn
    assert _types(events) == ["play", "draw", "turn_lost"]


def test_the_dark_side_wild_draw_color_first_card_of_the_colour_stops_it() -> None:
    state = position(
        [["wild-draw-color", "gem-1"], ["moon-1"], ["moon-2"]],
        ["star-7"],
        ["bolt-4", "bolt-5"],
        side=DARK,
    )
    after, _ = apply(state, 0, play(state.hands[0][0], "orange"))
    assert faces(after.hands[1], DARK) == ["moon-1", "bolt-4"]


def test_when_the_draw_pile_runs_out_wild_draw_color_stops_when_the_piles_are_empty() -> None:
    state = position(
        [["wild-draw-color", "gem-1"], ["moon-1"], ["moon-2"]],
        ["star-3", "star-7"],  # bottom to top
        ["bolt-4", "star-5"],
        side=DARK,
        rest="none",
    )
    order = [card("star-7"), card("star-3")]
    after, events = apply(state, 0, play(state.hands[0][0], "cyan"), shuffles=iter([order]))
    # Two cards from the draw pile, then the discard pile but its top (the
    # Wild Draw Color) is reshuffled for two more, then nothing is left.
    assert _types(events) == ["play", "shuffle", "draw", "turn_lost"]
    assert events[1]["reason"] == "reshuffle"
    assert faces(after.hands[1], DARK) == ["moon-1", "bolt-4", "star-5", "star-7", "star-3"]
    assert [CODE_OF[DARK][c] for c in after.discard] == ["wild-draw-color"]
    assert after.draw == []
    assert after.current == 2
    assert after.side == DARK


def test_when_the_draw_pile_runs_out_a_short_draw_draws_fewer() -> None:
    state = position(
        [["gem-draw-five", "gem-1"], ["moon-1"], ["moon-2"]],
        ["gem-7"],
        ["bolt-4", "star-5"],
        side=DARK,
        rest="none",
    )
    after, events = apply(state, 0, play(state.hands[0][0]))
    # The discard pile holds the starter under the Draw Five: one more card.
    assert faces(after.hands[1], DARK) == ["moon-1", "bolt-4", "star-5", "gem-7"]
    assert after.current == 2
    assert _types(events) == ["play", "shuffle", "draw", "turn_lost"]


def test_when_the_draw_pile_runs_out_the_discard_pile_but_its_top_is_reshuffled() -> None:
    state = position(
        [["flame-9"], ["leaf-2"]],
        ["flame-1", "flame-2", "flame-3", "sun-5"],  # bottom to top
        [],
        rest="none",
    )
    top = state.discard[-1]
    rest = state.discard[:-1]
    order = [rest[1], rest[2], rest[0]]  # top first
    after, events = apply(state, 0, Action(DRAW), shuffles=iter([order]))
    assert events[0] == {"type": "shuffle", "reason": "reshuffle", "round": 1, "order": order}
    assert after.discard == [top]
    assert after.hands[0][-1] == order[0]
    assert top_first(after.draw) == order[1:]
    assert after.side == LIGHT
    assert after.shuffles == state.shuffles + 1


def test_when_the_draw_pile_runs_out_side_unchanged_on_the_dark_side() -> None:
    state = position([["moon-1"], ["star-2"]], ["bolt-3", "gem-5"], [], side=DARK, rest="none")
    after, events = apply(state, 0, Action(DRAW))
    assert after.side == DARK
    assert _types(events)[:2] == ["shuffle", "draw"]
    assert after.hands[0][-1] == card("bolt-3")


def test_when_the_draw_pile_runs_out_mid_penalty() -> None:
    state = position(
        [["flame-draw-one", "wild-draw-two", "sun-1"], ["moon-1"]],
        ["leaf-1", "leaf-2", "leaf-3", "flame-7"],
        ["wave-9"],
        rest="none",
    )
    wd2 = state.hands[0][1]
    state.discard.append(state.hands[0].pop(0))  # a Draw One was played before
    state.color = 0
    order = [
        card("leaf-3"),
        card("flame-7"),
        card("leaf-1"),
        card("leaf-2"),
        card("flame-draw-one"),
    ]
    after, events = apply(state, 0, play(wd2, "blue"), shuffles=iter([order]))
    # One card from the draw pile, then the discard pile but its top is reshuffled.
    assert _types(events) == ["play", "draw", "turn_lost"][:1] + ["shuffle", "draw", "turn_lost"]
    assert faces(after.hands[1], LIGHT)[1:] == ["wave-9", "leaf-3"]
    assert after.discard == [wd2]
    assert top_first(after.draw) == order[1:]
    assert all_cards(after) == sorted(all_cards(state))


# --- A turn -----------------------------------------------------------------------


def test_a_turn_drawn_playable_card_must_be_played() -> None:
    state = position([["flame-1", "leaf-2"], ["wave-1"], ["wave-2"]], ["sun-7"], ["sun-8"])
    after, events = apply(state, 0, Action(DRAW))
    sun8 = card("sun-8")
    assert after.pending == "play_drawn"
    assert after.drawn == sun8
    assert after.current == 0
    assert after.turn == state.turn  # the same turn goes on (ruling 5)
    assert legal_actions(after, 0) == [play(sun8)]
    # You cannot swap it for another card, keep it and pass, or draw again.
    for action in (play(after.hands[0][0]), Action(PASS), Action(DRAW)):
        assert refused(after, 0, action) == "must_play_drawn_card"
    played, _ = apply(after, 0, play(sun8))
    assert played.discard[-1] == sun8
    assert played.pending is None
    assert played.drawn == -1
    assert played.current == 1


def test_a_turn_drawn_wild_gets_its_colour_from_the_player() -> None:
    state = position([["flame-1"], ["wave-1"]], ["sun-7"], ["wild"])
    after, _ = apply(state, 0, Action(DRAW))
    wild = after.drawn
    assert {a.color for a in legal_actions(after, 0)} == {0, 1, 2, 3}
    assert refused(after, 0, play(wild)) == "color_required"
    played, _ = apply(after, 0, play(wild, "blue"))
    assert played.color == 3


def test_a_turn_drawn_flip_that_can_be_played_must_be_played() -> None:
    state = position([["flame-1"], ["wave-1"]], ["sun-7"], ["sun-flip"])
    after, _ = apply(state, 0, Action(DRAW))
    assert after.pending == "play_drawn"
    played, events = apply(after, 0, play(after.drawn))
    assert played.side == DARK
    assert "flip" in _types(events)


def test_a_turn_drawn_restricted_wild_playable_when_no_card_of_the_colour() -> None:
    state = position([["flame-1"], ["wave-1"]], ["sun-7"], ["wild-draw-two"])
    after, _ = apply(state, 0, Action(DRAW))
    assert after.pending == "play_drawn"


def test_a_turn_drawn_unplayable_card_ends_the_turn() -> None:
    state = position([["flame-1", "leaf-2"], ["wave-1"], ["wave-2"]], ["sun-7"], ["flame-8"])
    after, events = apply(state, 0, Action(DRAW))
    assert after.pending is None
    assert card("flame-8") in after.hands[0]
    assert after.current == 1
    assert events == [
        {"type": "draw", "seat": 0, "cards": [card("flame-8")], "side": LIGHT, "reason": "draw"}
    ]


def test_a_turn_you_may_not_draw_while_holding_a_playable_card() -> None:
    state = position([["flame-1", "sun-2"], ["wave-1"]], ["sun-7"], ["flame-8"])
    assert refused(state, 0, Action(DRAW)) == "must_play_when_able"
    assert refused(state, 0, Action(PASS)) == "must_play_when_able"
    assert Action(DRAW) not in legal_actions(state, 0)


def test_a_turn_pass_only_when_nothing_to_play_or_draw() -> None:
    state = position([["flame-1"], ["wave-1"], ["wave-2"]], ["sun-7"], ["flame-8"])
    assert legal_actions(state, 0) == [Action(DRAW)]
    assert refused(state, 0, Action(PASS)) == "must_draw_first"
    # Only the discard pile's other cards can still be drawn: drawing is required.
    empty = position([["flame-1"], ["wave-1"], ["wave-2"]], ["leaf-1", "sun-7"], [], rest="none")
    assert legal_actions(empty, 0) == [Action(DRAW)]
    assert refused(empty, 0, Action(PASS)) == "must_draw_first"
    # Nothing at all to draw: pass.
    bare = position([["flame-1"], ["wave-1"], ["wave-2"]], ["sun-7"], [], rest="none")
    assert legal_actions(bare, 0) == [Action(PASS)]
    assert refused(bare, 0, Action(DRAW)) == "nothing_to_draw"
    after, events = apply(bare, 0, Action(PASS))
    assert events == [{"type": "pass", "seat": 0}]
    assert after.current == 1
    assert after.hands == bare.hands


def test_a_turn_a_player_who_can_play_must_play_even_with_nothing_to_draw() -> None:
    bare = position([["sun-1"], ["wave-1"]], ["sun-7"], [], rest="none")
    assert refused(bare, 0, Action(PASS)) == "must_play_when_able"
    assert legal_actions(bare, 0) == [play(bare.hands[0][0])]


def test_a_card_is_playable_by_colour_number_action_or_wild() -> None:
    hand = ["sun-2", "flame-7", "flame-skip", "leaf-reverse", "wild", "wave-1"]
    state = position([hand, ["wave-3"]], ["sun-reverse"])
    playable = {CODE_OF[LIGHT][a.card] for a in legal_actions(state, 0)}
    assert playable == {"sun-2", "leaf-reverse", "wild"}
    state2 = position([hand, ["wave-3"]], ["leaf-7"], color="yellow")
    # After a Wild, the chosen colour is in play and the top's number still matches.
    playable2 = {CODE_OF[LIGHT][a.card] for a in legal_actions(state2, 0)}
    assert playable2 == {"sun-2", "flame-7", "wild"}


def test_only_the_faces_of_the_side_in_play_matter() -> None:
    # gem-5 on the dark side; a card whose light face is sun-5 plays nothing here.
    state = position([["sun-5/gem-8", "moon-4"], ["star-1"]], ["bolt-5"], side=DARK)
    assert CODE_OF[LIGHT][state.hands[0][0]] == "sun-5"
    assert legal_actions(state, 0) == [Action(DRAW)]
    assert COLOR_OF[DARK][state.discard[-1]] == 6
