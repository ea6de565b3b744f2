"""flip.bots.reading: the history narrows the hidden cards, never past the truth.

Issue 9, section 3. At many moments of random tables (concessions, timeouts,
flips, reshuffles and penalties included) the cards really in every hand and
on the discard pile are always among the candidates the reading leaves, and
the reading leaves fewer than the view alone.
"""

from __future__ import annotations

import random
from collections.abc import Sequence

from flip import GameState, flip_memory, public_history, view
from flip.bots.hard import Sampler
from flip.bots.reading import read
from flip.sampling import placement_of
from tests.flip.random_tables import Mix, play_table


def matchable(cards: Sequence[int], slots: Sequence[frozenset[int]]) -> bool:
    """True when each slot can take one of ``cards``, each card used once."""
    owner: dict[int, int] = {}

    def augment(i: int, seen: set[int]) -> bool:
        for card in cards:
            if card in slots[i] and card not in seen:
                seen.add(card)
                if card not in owner or augment(owner[card], seen):
                    owner[card] = i
                    return True
        return False

    return len(cards) == len(slots) and all(augment(i, set()) for i in range(len(slots)))


def test_the_real_cards_are_always_among_the_candidates_left() -> None:
    rng = random.Random(4)
    totals = {"view": 0, "memory": 0, "history": 0}
    checked = 0

    def look(s: GameState) -> None:
        nonlocal checked
        if rng.random() > 0.2:
            return
        seat = s.current
        seen = view(s, seat)
        history = public_history(s, seat)
        assert history is not None
        reading = read(seen, history)
        assert reading is not None
        true = placement_of(s, seat)
        for other, slots in reading.hands.items():
            assert matchable(true.hands[other], slots), (other, s.actions)
        for card, slot in zip(true.discard, reading.discard, strict=True):
            assert card in slot
        plain = Sampler(seen)
        remembered = Sampler(seen, flip_memory(s, seat))
        for other, a, b in plain.other_slots:
            totals["view"] += sum(len(slot) for slot in plain.slots[a:b])
            totals["memory"] += sum(len(slot) for slot in remembered.slots[a:b])
            totals["history"] += sum(len(slot) for slot in reading.hands.get(other, ()))
        checked += 1

    for index in range(60):
        play_table(f"reading:{index}", levels=("easy", "normal"), mix=Mix(), check=look)
    assert checked > 500
    assert totals["history"] < totals["memory"] < totals["view"]
