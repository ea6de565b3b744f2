"""``tabletop.shuffle.shuffled``: its fast path and its word-by-word path give one order."""

from __future__ import annotations

import operator
from collections import Counter

import pytest

from tabletop import shuffle


def test_the_word_by_word_path_gives_the_fast_paths_orders(monkeypatch: pytest.MonkeyPatch) -> None:
    decks = [(list(range(n)), f"seed{n}", n) for n in (2, 3, 19, 108, 112)]
    fast = [shuffle.shuffled(d, seed, k, domain=b"test") for d, seed, k in decks]
    # Every word taken for one to pass over: the loop that reads word by word runs, and
    # with no word really passed over it must land on the same orders.
    monkeypatch.setattr(shuffle, "lt", lambda word, limit: True)
    slow = [shuffle.shuffled(d, seed, k, domain=b"test") for d, seed, k in decks]
    assert slow == fast
    monkeypatch.setattr(shuffle, "lt", operator.lt)
    assert [shuffle.shuffled(d, seed, k, domain=b"test") for d, seed, k in decks] == fast


def test_every_position_is_as_likely_for_every_card() -> None:
    # 3 cards, 6,000 shuffles: each of the 6 orders about 1,000 times.
    counts = Counter(
        tuple(shuffle.shuffled([0, 1, 2], "u", k, domain=b"test")) for k in range(6000)
    )
    assert len(counts) == 6
    assert all(850 < n < 1150 for n in counts.values()), counts


def test_nothing_or_one_card_comes_back_as_it_was() -> None:
    assert shuffle.shuffled([], "s", 0, domain=b"d") == []
    assert shuffle.shuffled([7], "s", 0, domain=b"d") == [7]
