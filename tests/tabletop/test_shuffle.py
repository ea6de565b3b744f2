"""``tabletop.shuffle.shuffled``: its fast path and its word-by-word path give one order."""

from __future__ import annotations

import operator
from collections import Counter

import pytest

from tabletop import shuffle


def test_the_word_by_word_path_gives_the_fast_paths_orders(monkeypatch: pytest.MonkeyPatch) -> None:
    # Every count a deck or a reshuffled discard pile of either game can have, and more.
    decks = [(list(range(n)), f"seed{n}", n) for n in (*range(2, 121), 300)]
    fast = [shuffle.shuffled(d, seed, k, domain=b"test") for d, seed, k in decks]
    # Every word taken for one to pass over: the loop that reads word by word runs, and
    # with no word really passed over it must land on the same orders.
    monkeypatch.setattr(shuffle, "lt", lambda word, limit: True)
    monkeypatch.setattr(shuffle, "_may_pass_over", lambda raw, count: True)
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


def test_a_word_that_may_be_passed_over_is_never_missed_by_the_byte_search() -> None:
    # For a deck of 108, any word below 108 (every limit is) holds three zero bytes.
    for word in (0, 1, 107, 255):
        raw = b"\x11" * 20 + word.to_bytes(4, "little") + b"\x22" * 20
        assert shuffle._may_pass_over(raw, 108)
    assert not shuffle._may_pass_over(b"\x00\x01" * 20, 108)  # no word below 2**24
    assert shuffle._may_pass_over(b"\x11" * 40, 300)  # a bigger deck: compared word by word


def test_more_words_read_for_a_count_never_read_before() -> None:
    # The word-by-word path reads more words when it passes over more than the spares.
    words = shuffle._words(b"key", 1237)
    assert len(words) == 1237
    assert words[:116] == shuffle._words(b"key", 116)
