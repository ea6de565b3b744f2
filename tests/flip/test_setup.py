"""Setup: the deal, the starter card table, and every new round."""

from __future__ import annotations

import struct

import pytest

import tabletop.shuffle
from flip import DARK, LIGHT, Action, GameState, Options, RuleError, apply, new_game
from flip.cards import CODE_OF, DECK_SIZE, KIND_OF
from flip.engine import DRAW, shuffled
from tests.flip.build import pure_only
from tests.flip.stacking import (
    all_cards,
    card,
    choose,
    deal_order,
    faces,
    play,
    position,
    stacked_game,
    top_first,
)


@pytest.mark.parametrize(
    ("players", "draw_pile"),
    [(2, 97), (3, 90), (4, 83), (5, 76), (6, 69), (7, 62), (8, 55), (9, 48), (10, 41)],
)
def test_setup_deal_counts(players: int, draw_pile: int) -> None:
    state, events = stacked_game([[] for _ in range(players)], "flame-5")
    assert [len(hand) for hand in state.hands] == [7] * players
    assert len(state.discard) == 1
    assert len(state.draw) == draw_pile
    assert all_cards(state) == list(range(DECK_SIZE))
    assert state.side == LIGHT
    assert state.round == 1
    assert state.dealer == 0
    assert [e["type"] for e in events] == ["shuffle", "round_start", "starter"]


@pytest.mark.parametrize("players", range(2, 11))
def test_setup_deal_counts_with_the_seeded_shuffle(players: int) -> None:
    state, events = new_game(Options(seats=players), seed=f"deal-{players}")
    assert all_cards(state) == list(range(DECK_SIZE))
    dealt = [len(hand) for hand in state.hands]
    # A Draw One starter makes the first player draw one card.
    first = 1 % players
    extra = 1 if KIND_OF[LIGHT][state.discard[0]] == "draw-one" else 0
    assert dealt == [7 + (extra if seat == first else 0) for seat in range(players)]
    assert len(state.draw) == 112 - 7 * players - 1 - extra
    assert events[0]["type"] == "shuffle"
    assert events[0]["reason"] == "deal"


PINNED = [6, 5, 9, 3, 8, 7, 1, 2, 4, 0]


def test_setup_the_deck_is_shuffled_every_order_equally_likely() -> None:
    # "The deck is shuffled": all 24 orders of four cards over 48,000 seeded shuffles. A
    # fair shuffle puts each near 2,000; the chi-squared of 23 degrees of freedom stays
    # under 49.7 but once in 1,000 (the seeds are fixed, so the result is too).
    # Off-by-one draws (a position swapping only below itself) never leave a card in place.
    counts: dict[tuple[int, ...], int] = {}
    for number in range(48_000):
        order = tuple(shuffled([0, 1, 2, 3], "uniform", number))
        counts[order] = counts.get(order, 0) + 1
    assert len(counts) == 24
    chi2 = sum((n - 2_000) ** 2 / 2_000 for n in counts.values())
    assert chi2 < 49.7


def test_setup_shuffles_are_the_seed_s_and_the_number_s() -> None:
    deck = list(range(DECK_SIZE))
    order = shuffled(deck, "seed", 0)
    assert sorted(order) == deck
    assert deck == list(range(DECK_SIZE))  # the cards passed in are not touched
    assert shuffled(deck, "seed", 0) == order
    assert shuffled(deck, "seed", 1) != order
    assert shuffled(deck, "seed:", 0) != order
    # Pinned: the same seed deals the same game on every machine and release.
    assert shuffled(list(range(10)), "pinned", 0) == PINNED
    assert shuffled([], "seed", 0) == []
    assert shuffled([7], "seed", 0) == [7]


@pure_only  # replaces the stream of a module's function (tabletop.shuffle, as flip uses it)
def test_setup_shuffle_passes_over_the_words_that_would_favour_some_positions(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # Three cards: position 2 draws from 0-2, and 2**32 % 3 == 1, so the word 0 would
    # give position 0 one chance in 2**32 more than the others; it is passed over. The
    # stream is read further (a longer output of the same hash) when the spare words
    # run out.
    stream = [0] * 20 + [5, 7]
    asked: list[int] = []

    def digest(key: bytes, count: int) -> bytes:
        # The SHAKE-128 output the words are read from: the stream, little-endian.
        asked.append(count)
        if count not in tabletop.shuffle._UNPACKERS:
            tabletop.shuffle._UNPACKERS[count] = struct.Struct(f"<{count}I").unpack
        return struct.pack(f"<{count}I", *stream[:count])

    monkeypatch.setattr(tabletop.shuffle, "_digest", digest)
    # Position 2 takes 5 % 3 == 2 (stays), position 1 takes 7 % 2 == 1 (stays).
    assert shuffled([10, 11, 12], "seed", 0) == [10, 11, 12]
    assert asked == [3 + 8, 22]


def _number_order() -> list[int]:
    """A deck order, top first, whose 22nd card (a 3-seat starter) is a number."""
    numbers = [c for c in range(DECK_SIZE) if KIND_OF[LIGHT][c] == "number"]
    others = [c for c in range(DECK_SIZE) if KIND_OF[LIGHT][c] != "number"]
    order = others[:21] + numbers + others[21:]
    assert len(order) == DECK_SIZE and KIND_OF[LIGHT][order[21]] == "number"
    return order


def test_setup_deal_one_card_at_a_time_from_the_seat_after_the_dealer() -> None:
    order = _number_order()
    state, _ = new_game(Options(seats=3), "deal-order", shuffles=iter([order]))
    # Ruling 15: seat 1 (after dealer seat 0) gets the first card, then seat 2,
    # then the dealer, seven times round; the next card is the starter.
    assert sorted(state.hands[1]) == sorted(order[0:21:3])
    assert sorted(state.hands[2]) == sorted(order[1:21:3])
    assert sorted(state.hands[0]) == sorted(order[2:21:3])
    assert state.hands[1] == order[0:21:3]
    assert state.discard == [order[21]]
    assert top_first(state.draw) == order[22:]
    assert state.current == 1


def test_setup_deal_order_helper_agrees_with_ruling_15() -> None:
    order = deal_order([["flame-1"], ["sun-1"], ["leaf-1"]], "wave-5", ["wave-6"])
    assert order[0] == card("sun-1")  # seat 1 first
    assert order[1] == card("leaf-1")  # then seat 2
    assert order[2] == card("flame-1")  # the dealer last
    assert CODE_OF[LIGHT][order[21]] == "wave-5"
    assert CODE_OF[LIGHT][order[22]] == "wave-6"


# --- The starter card table -------------------------------------------------------


def test_starter_table_number_card() -> None:
    state, events = stacked_game([[], [], []], "leaf-7")
    assert state.current == 1
    assert state.direction == 1
    assert state.color == 2  # green
    assert state.pending is None
    assert events[-1] == {"type": "starter", "card": state.discard[0]}


@pytest.mark.parametrize(("players", "first_turn"), [(2, 0), (3, 2), (5, 2)])
def test_starter_table_draw_one(players: int, first_turn: int) -> None:
    state, events = stacked_game([[] for _ in range(players)], "sun-draw-one", ["wave-8"])
    # The first player (seat 1) draws one card and loses their turn.
    assert len(state.hands[1]) == 8
    assert card("wave-8") in state.hands[1]
    assert state.current == first_turn
    assert state.color == 1
    draw_events = [e for e in events if e["type"] == "draw"]
    assert draw_events == [
        {"type": "draw", "seat": 1, "cards": [card("wave-8")], "side": LIGHT, "reason": "penalty"}
    ]


@pytest.mark.parametrize(("players", "first_turn"), [(2, 0), (3, 2), (4, 2)])
def test_starter_table_skip(players: int, first_turn: int) -> None:
    state, _ = stacked_game([[] for _ in range(players)], "wave-skip")
    assert state.current == first_turn
    assert state.direction == 1
    assert [len(h) for h in state.hands] == [7] * players


@pytest.mark.parametrize("players", [3, 4, 7])
def test_starter_table_reverse_three_or_more_players(players: int) -> None:
    hands: list[list[str | int]] = [["leaf-9"]] + [[] for _ in range(players - 1)]
    state, _ = stacked_game(hands, "leaf-reverse")
    assert state.direction == -1
    assert state.current == 0  # the dealer goes first
    # ... and play then goes on counterclockwise, to the seat before the dealer.
    after, _ = apply(state, 0, play(card("leaf-9")))
    assert after.current == players - 1
    assert after.direction == -1


def test_starter_table_reverse_two_players_option_on() -> None:
    state, _ = stacked_game([[], []], "leaf-reverse", options=Options(seats=2))
    # It works like a Skip: the first player (seat 1) is skipped, the dealer goes first.
    assert state.current == 0
    assert state.direction == 1


def test_starter_table_reverse_two_players_option_off() -> None:
    options = Options(seats=2, two_seat_reverse_skips=False)
    state, _ = stacked_game([[], []], "leaf-reverse", options=options)
    # It turns play around and the dealer goes first.
    assert state.current == 0
    assert state.direction == -1


def test_starter_table_reverse_two_players_counts_players_still_in() -> None:
    # Round 2 of a three-seat target game that has lost seat 2: the starter
    # Reverse is read with the two-player rule (option on: as a Skip).
    state = position(
        [["flame-9"], ["sun-1", "sun-2"], []],
        ["flame-2"],
        options=Options(seats=3, scoring="target", target=500),
        active=[True, True, False],
    )
    order = deal_order([[], [], []], "wave-reverse", dealer=1, active=[True, True, False])
    after, events = apply(state, 0, play(state.hands[0][0]), shuffles=iter([order]))
    assert after.round == 2
    assert after.dealer == 1
    assert CODE_OF[LIGHT][after.discard[0]] == "wave-reverse"
    assert after.current == 1  # the dealer goes first
    assert after.direction == 1
    assert [len(h) for h in after.hands] == [7, 7, 0]


def test_starter_table_wild_first_player_chooses_then_plays() -> None:
    state, _ = stacked_game([[], ["flame-1", "sun-2"], []], "wild")
    assert state.current == 1
    assert state.pending == "choose_color"
    assert state.color == -1
    before = state.copy()
    with pytest.raises(RuleError) as info:
        apply(state, 1, play(state.hands[1][0]))
    assert info.value.code == "color_must_be_chosen_first"
    with pytest.raises(RuleError) as info:
        apply(state, 1, Action(DRAW))
    assert info.value.code == "color_must_be_chosen_first"
    with pytest.raises(RuleError) as info:
        apply(state, 1, choose("magenta"))
    assert info.value.code == "color_not_in_side"
    assert state == before
    chosen, events = apply(state, 1, choose("yellow"))
    assert events == [{"type": "choose_color", "seat": 1, "color": "yellow"}]
    assert chosen.current == 1  # then takes the first turn
    assert chosen.pending is None
    assert chosen.color == 1
    sun2 = card("sun-2")
    after, _ = apply(chosen, 1, play(sun2))
    assert after.discard[-1] == sun2
    assert after.current == 2


@pytest.mark.parametrize("bad_starter", ["wild-draw-two", "flame-flip", "wave-flip"])
def test_starter_table_wild_draw_2_or_flip_goes_back_and_is_reshuffled(bad_starter: str) -> None:
    order = deal_order([[], [], []], bad_starter)
    pile = order[21:]  # the starter goes back on the draw pile, which is reshuffled
    bad = order[21]
    new_starter = card("leaf-4")
    reshuffled = [new_starter] + [c for c in pile if c != new_starter]
    state, events = new_game(Options(seats=3), "starter", shuffles=iter([order, reshuffled]))
    kinds = [e["type"] for e in events]
    assert kinds == ["shuffle", "round_start", "starter_returned", "shuffle", "starter"]
    assert events[2] == {"type": "starter_returned", "card": bad}
    assert events[3]["reason"] == "starter"
    assert sorted(events[3]["order"]) == sorted(pile)
    assert state.discard == [new_starter]
    assert bad in state.draw
    assert top_first(state.draw) == reshuffled[1:]
    assert state.color == 2
    assert state.current == 1
    assert all_cards(state) == list(range(DECK_SIZE))


def test_starter_table_turned_again_until_it_can_start() -> None:
    order = deal_order([[], []], "wild-draw-two")
    pile = order[14:]
    flip_card = next(c for c in pile if KIND_OF[LIGHT][c] == "flip")
    second = [flip_card] + [c for c in pile if c != flip_card]
    start = card("wave-3")
    third = [start] + [c for c in pile if c != start]
    state, events = new_game(Options(seats=2), "again", shuffles=iter([order, second, third]))
    assert [e["reason"] for e in events if e["type"] == "shuffle"] == ["deal", "starter", "starter"]
    assert state.discard == [start]
    assert state.shuffles == 3


def test_starter_table_seeded_games_never_start_with_wild_draw_2_or_flip() -> None:
    for index in range(300):
        state, events = new_game(Options(seats=2), f"starter-{index}")
        assert KIND_OF[LIGHT][state.discard[0]] not in ("wild-draw-two", "flip")
        returned = [e for e in events if e["type"] == "starter_returned"]
        reshuffles = [e for e in events if e["type"] == "shuffle" and e["reason"] == "starter"]
        assert len(returned) == len(reshuffles)


# --- Every new round ----------------------------------------------------------------


def _win_with(state: GameState, seat: int, order: list[int]) -> tuple[GameState, list[dict]]:
    return apply(state, seat, play(state.hands[seat][0]), shuffles=iter([order]))


def test_setup_dealer_moves_each_round_and_next_round_dealt_at_once() -> None:
    options = Options(seats=3, scoring="target", target=500)
    state = position(
        [["star-5"], ["bolt-1", "bolt-2"], ["moon-3"]],
        ["star-2"],
        side=DARK,
        options=options,
        direction=-1,
    )
    order = deal_order([[], [], ["flame-2"]], "flame-8", dealer=1)
    after, events = _win_with(state, 0, order)
    kinds = [e["type"] for e in events]
    assert kinds == ["play", "round_end", "shuffle", "round_start", "starter"]
    assert after.round == 2
    assert after.dealer == 1
    assert after.side == LIGHT  # every round starts on the light side
    assert after.direction == 1
    assert after.current == 2  # the player after the new dealer
    assert card("flame-2") in after.hands[2]
    assert after.pending is None and not after.over
    assert [len(h) for h in after.hands] == [7, 7, 7]
    assert after.scores[0] == 1 + 2 + 3
    assert events[3] == {"type": "round_start", "round": 2, "dealer": 1}
    # A round later, the deal moves on again and wraps round.
    again = position(
        [["flame-1", "flame-3"], ["sun-4", "sun-3"], ["sun-5"]],
        ["sun-6"],
        options=options,
        dealer=1,
        round=2,
        current=2,
        scores=after.scores[:],
    )
    order3 = deal_order([[], [], []], "wave-9", dealer=2)
    third, _ = _win_with(again, 2, order3)
    assert third.round == 3
    assert third.dealer == 2
    assert third.current == 0
    assert third.scores == [6, 0, 1 + 3 + 4 + 3]


def test_setup_dealer_passes_over_seats_that_left() -> None:
    options = Options(seats=4, scoring="target", target=500)
    state = position(
        [["flame-9"], [], ["sun-1"], ["sun-2"]],
        ["flame-2"],
        options=options,
        active=[True, False, True, True],
    )
    active = [True, False, True, True]
    order = deal_order([[], [], [], []], "leaf-5", dealer=2, active=active)
    after, _ = _win_with(state, 0, order)
    assert after.dealer == 2
    assert after.current == 3
    assert [len(h) for h in after.hands] == [7, 0, 7, 7]
    assert all_cards(after) == list(range(DECK_SIZE))


def test_setup_starts_every_round_on_the_light_side_with_seeded_shuffles() -> None:
    state = position(
        [["moon-skip-everyone"], ["bolt-1"]],
        ["moon-4"],
        side=DARK,
        options=Options(seats=2, scoring="target", target=250),
        flips=3,
    )
    after, events = apply(state, 0, play(state.hands[0][0]))
    assert after.round == 2
    assert after.side == LIGHT
    assert after.flips == 0
    assert faces(after.discard, LIGHT)[0] == CODE_OF[LIGHT][after.discard[0]]
    assert [e["reason"] for e in events if e["type"] == "shuffle"][0] == "deal"
    assert all_cards(after) == list(range(DECK_SIZE))
