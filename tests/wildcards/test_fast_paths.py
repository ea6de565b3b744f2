"""The engine's fast paths give exactly what the general ones give.

``advance_silently`` is ``advance`` without its events; a view of the seat to act
reads its hand off the matching table instead of asking ``card_refusal`` card by
card, and its legal actions with ``_plays_view`` instead of ``_legal_view``; a view
is a copy of a template with its values replaced; ``GameState.blank`` is the
constructor without its keywords; ``ranking`` has ``shared_ranks`` written out;
``tabletop.deal`` slices each hand off the pile; ``tabletop.shuffled`` runs written-out
swaps when interpreted and its plain loop when compiled. Each is checked here against the
path it stands in for, over random games of every option (and the shuffle against orders
pinned here, which this file meets both in the pure run and in ``make test-compiled``).
"""

from __future__ import annotations

import hashlib
import itertools
import random
from typing import Any

import pytest

import wildcards as wc
from tabletop.deal import deal
from tabletop.ranking import shared_ranks
from tabletop.seats import in_game_order, next_in_game
from tabletop.shuffle import shuffled
from wildcards.cards import DRAW2, KIND_OF, REVERSE, SKIP, WILD_DRAW4, hand_points
from wildcards.engine import advance_silently, new_game_silently, ranking
from wildcards.views import _hand, _legal_view, _plays_view, view

from .random_games import COMBINATIONS


def _random_game(options: wc.Options, seed: str) -> list[tuple[wc.GameState, int, wc.Action]]:
    """Every (state before, seat, action) of one random game, jump-ins and leaves included."""
    rng = random.Random(seed)
    state, _ = wc.new_game(options, seed)
    steps = []
    while not state.over:
        seat = state.current
        if options.jump_in and rng.random() < 0.5:  # noqa: PLR2004
            jumpers = [s for s in range(state.seats) if s != seat and wc.legal_actions(state, s)]
            seat = rng.choice(jumpers) if jumpers else seat
        if rng.random() < 0.005:  # noqa: PLR2004
            seat = rng.choice([s for s in range(state.seats) if state.active[s]])
            action = wc.Action(wc.LEAVE)
        else:
            action = rng.choice(wc.legal_actions(state, seat))
        steps.append((state.copy(), seat, action))
        wc.advance(state, seat, action)
    return steps


@pytest.mark.parametrize("combination", COMBINATIONS, ids=lambda c: "-".join(map(str, c.values())))
def test_a_silent_move_leaves_the_state_an_evented_move_leaves(combination: dict[str, Any]) -> None:
    for seats in (2, 4, 7):
        options = wc.Options(seats=seats, target=150, **combination)
        loud, _ = wc.new_game(options, f"silent:{seats}")
        quiet = new_game_silently(options, f"silent:{seats}")
        assert quiet == loud
        for _, seat, action in _random_game(options, f"silent:{seats}"):
            wc.advance(loud, seat, action)
            advance_silently(quiet, seat, action)
            assert quiet == loud
            assert quiet.to_dict() == loud.to_dict()
        assert quiet.over


@pytest.mark.parametrize(
    "combination", COMBINATIONS[::3], ids=lambda c: "-".join(map(str, c.values()))
)
def test_the_hand_of_the_seat_to_act_is_shown_as_the_general_path_shows_it(
    combination: dict[str, Any],
) -> None:
    options = wc.Options(seats=4, **combination)
    seen = 0
    for state, _, _ in _random_game(options, "hand"):
        seat = state.current
        shown = view(state, seat)["hand"]
        legal = wc.legal_actions(state, seat)
        names = tuple(wc.handle(state, c) for c in wc.DECK)
        assert shown == _hand(state, seat, state.hands[seat], names, legal)
        seen += any(entry.get("refusal") == "wild_draw4_blocked" for entry in shown)
    assert seen  # some position shows a blocked Wild Draw 4


def _containers(value: object) -> list[object]:
    if isinstance(value, dict):
        return [value, *(c for v in value.values() for c in _containers(v))]
    if isinstance(value, list):
        return [value, *(c for v in value for c in _containers(v))]
    return []


@pytest.mark.parametrize("stacking", [False, True])
def test_the_seat_after_a_skip_reverse_or_draw_card_is_the_rotations(stacking: bool) -> None:
    # advance_silently finds the next seats without a call while they are in the game;
    # here they are found by tabletop.seats, with seats leaving often, at 2 to 7 seats.
    checked = 0
    for seats in (2, 3, 4, 5, 7):
        options = wc.Options(seats=seats, stacking=stacking)
        for game in range(40):
            rng = random.Random(f"rotation:{seats}:{game}")
            state, _ = wc.new_game(options, f"rotation:{seats}:{game}")
            while not state.over:
                seat = state.current
                if state.players_left > 2 and rng.random() < 0.02:  # noqa: PLR2004
                    gone = rng.choice([s for s in range(seats) if state.active[s] and s != seat])
                    wc.advance(state, gone, wc.Action(wc.LEAVE))
                    continue
                action = rng.choice(wc.legal_actions(state, seat))
                before = state.copy()
                wc.advance(state, seat, action)
                kind = KIND_OF[action.card] if action.type == wc.PLAY else None
                if kind not in (SKIP, REVERSE, DRAW2, WILD_DRAW4) or not before.hands[seat][1:]:
                    continue
                active, step = before.active, before.direction
                if kind == REVERSE and before.players_left > 2:  # noqa: PLR2004
                    assert state.current == next_in_game(active, seat, -step)
                elif kind in (DRAW2, WILD_DRAW4) and stacking:  # the victim answers
                    assert state.current == next_in_game(active, seat, step)
                else:  # the next seat loses its turn
                    victim = next_in_game(active, seat, step)
                    assert state.current == next_in_game(active, victim, step)
                checked += not all(active)
    assert checked > 200  # noqa: PLR2004 (plays checked with a seat gone)


def test_two_views_share_no_list_or_dict() -> None:
    state, _ = wc.new_game(wc.Options(seats=3), "shared")
    for _ in range(40):
        first = [view(state, seat) for seat in (0, 1, 2, None)]
        again = [view(state, seat) for seat in (0, 1, 2, None)]
        assert first == again
        ids = [id(c) for v in first + again for c in _containers(v)]
        assert len(ids) == len(set(ids))
        wc.advance(state, state.current, wc.legal_actions(state, state.current)[0])
        if state.over:
            break


@pytest.mark.parametrize("combination", COMBINATIONS, ids=lambda c: "-".join(map(str, c.values())))
def test_the_legal_actions_of_the_seat_to_act_are_shown_as_the_general_path_shows_them(
    combination: dict[str, Any],
) -> None:
    options = wc.Options(seats=4, **combination)
    seen = set()
    for state, _, _ in _random_game(options, "plays"):
        seat = state.current
        legal = wc.legal_actions(state, seat)
        names = tuple(wc.handle(state, c) for c in wc.DECK)
        expected = _legal_view(legal, names, False) if legal else []
        assert view(state, seat)["legal_actions"] == expected
        if state.pending is None and not options.seven_zero:
            assert _plays_view(legal, names) == expected
            seen.update(entry["type"] + str("colors" in entry) for entry in expected)
    if not options.seven_zero:
        assert {"playFalse", "playTrue", "drawFalse"} <= seen


def _reference_ranking(s: wc.GameState) -> list[dict[str, Any]]:
    """R27 with tabletop.ranking.shared_ranks and comprehensions (ranking before it was
    written out)."""
    last = s.results[-1] if s.results else None
    in_hand = (
        {h["seat"]: h["points"] for h in last["hands"]}
        if last is not None and last["round"] == s.round
        else {}
    )
    keys = []
    points = []
    for seat in range(s.seats):
        held = in_hand.get(seat)
        if held is None:
            given_up = s.left_points[seat]
            held = hand_points(s.hands[seat]) if given_up is None else given_up
        points.append(held)
        keys.append(((not s.active[seat], seat != s.winner, -s.scores[seat], held), seat))
    keys.sort()
    return [
        {
            "seat": seat,
            "rank": rank,
            "score": s.scores[seat],
            "left": not s.active[seat],
            "points_in_hand": points[seat],
        }
        for seat, rank in shared_ranks(keys)
    ]


def test_the_ranking_is_the_shared_ranks_ranking() -> None:
    shared = left = 0
    for seats, index in itertools.product((2, 3, 4, 7, 10), range(30)):
        options = wc.Options(seats=seats, scoring="target", target=50, jump_in=index % 2 == 0)
        # The state before the last move, and that move to finish the game.
        last_state, seat, action = _random_game(options, f"ranking:{seats}:{index}")[-1]
        finished = last_state.copy()
        wc.advance(finished, seat, action)
        assert finished.over
        assert finished.ranking == _reference_ranking(finished)
        # Mid-game rankings too (no result of this round yet, or leavers' points).
        midway = ranking(last_state)
        assert midway == _reference_ranking(last_state)
        for entries in (finished.ranking, midway):
            ranks = [entry["rank"] for entry in entries]
            shared += len(set(ranks)) < len(ranks)
            left += any(entry["left"] for entry in entries)
    assert shared  # some game ended with equals sharing a rank
    assert left  # some game had a seat leave


def _reference_deal(
    pile: list[int], active: list[bool], dealer: int, cards_each: int
) -> list[list[int]]:
    """One card at a time from the top, round the table from the seat after the dealer."""
    hands: list[list[int]] = [[] for _ in active]
    order = in_game_order(active, next_in_game(active, dealer))
    for _ in range(cards_each):
        for seat in order:
            hands[seat].append(pile.pop())
    return hands


def test_a_deal_gives_the_hands_of_one_card_at_a_time() -> None:
    rng = random.Random("deal")
    for _ in range(500):
        seats = rng.randrange(2, 11)
        active = [rng.random() < 0.8 for _ in range(seats)]  # noqa: PLR2004
        if active.count(True) < 2:  # noqa: PLR2004
            active = [True] * seats
        dealer = rng.randrange(seats)
        cards_each = rng.randrange(0, 9)
        pile = rng.sample(range(200), rng.randrange(cards_each * active.count(True), 200))
        fast, slow = pile[:], pile[:]
        assert deal(fast, active, dealer, cards_each) == _reference_deal(
            slow, active, dealer, cards_each
        )
        assert fast == slow


def test_a_blank_state_is_the_constructors_state() -> None:
    for seats in range(2, 11):
        options = wc.Options(seats=seats, first_dealer=seats - 1)
        blank = wc.GameState.blank(options, "blank")
        built = wc.GameState(
            options=options,
            seed="blank",
            dealer=seats - 1,
            active=[True] * seats,
            scores=[0] * seats,
            left_points=[None] * seats,
        )
        assert blank == built
        assert repr(blank) == repr(built)
        assert blank.to_dict() == built.to_dict()
        assert (blank.handle_memo, blank.legal_memo) == (None, None)


@pytest.mark.parametrize(
    "combination", COMBINATIONS[::5], ids=lambda c: "-".join(map(str, c.values()))
)
def test_the_discard_pile_shown_is_the_discard_pile(combination: dict[str, Any]) -> None:
    # One state played in place, so that the handles' memo sees its pile grow by a card
    # or none between views (its fast path), and new piles after reshuffles and deals.
    options = wc.Options(seats=3, target=200, **combination)
    state, _ = wc.new_game(options, "discard")
    rng = random.Random("discard")
    while not state.over:
        for seat in (state.current, None):
            if rng.random() < 0.7:  # noqa: PLR2004 (not every step: some grow by two)
                shown = view(state, seat)["discard_pile"]
                assert shown == [wc.CODE_OF[c] for c in state.discard]
        seat = state.current
        wc.advance(state, seat, rng.choice(wc.legal_actions(state, seat)))


def test_every_count_shuffles_to_the_same_orders_compiled_or_interpreted() -> None:
    # The digest of the orders the interpreted path gave for every count a deck or a
    # reshuffled discard pile can have: the compiled build (which takes the plain loop)
    # must land on the very same orders, or a seed would deal another game there.
    orders = [shuffled(range(n), "pinned", n, domain=b"wildcards shuffle") for n in range(2, 121)]
    digest = hashlib.sha256(repr(orders).encode()).hexdigest()
    assert digest == "e3ccde45188c7325567bd635b91243eb2b4689b51d9b702cb977d389cecafd11"
