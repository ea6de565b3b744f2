"""Seeded shuffles: every order equally likely, the same order for the same seed.

A game's randomness is an input: each shuffle draws from a generator keyed by
the game's secret seed and the shuffle's number, and its result is written
into the game's events, so a record replays without any generator.
"""

from __future__ import annotations

import hashlib
import struct
from collections.abc import Callable, Sequence
from operator import lt
from typing import Any, Final, TypeVar

T = TypeVar("T")

#: How many 32-bit words there are; the words a shuffle reads beyond one per position.
_WORDS: Final = 2**32
_SPARE_WORDS: Final = 8
_ONE_BYTE: Final = 256
_THREE_ZEROS: Final = bytes(3)
#: Compiled by mypyc (``scripts/compile_flip.py``), the word-by-word loop of ``shuffled`` is
#: native code, faster than anything else here; interpreted, the byte search and the
#: written-out swaps are faster than that loop.
_COMPILED: Final = __file__.endswith((".so", ".pyd"))


def shuffled(items: Sequence[T], seed: str, number: int, *, domain: bytes) -> list[T]:
    """``items`` in a uniformly random order, from ``seed``, the shuffle's ``number``
    and the game's ``domain`` (so two games never share a stream).

    Fisher and Yates's shuffle: from the last position down to the second,
    each position takes the item at a position drawn uniformly from itself
    and those below. The draws read 32-bit words, in turn, of a SHAKE-128
    output keyed by the domain, the seed and the shuffle's number. A word
    below ``2**32 % (i + 1)`` would make some positions likelier than others
    and is passed over for the next (fewer than one shuffle of a deck in a
    million passes one over), so every order is equally likely.

    >>> a = shuffled([1, 2, 3, 4, 5], "doc", 0, domain=b"doc shuffle")
    >>> a == shuffled([1, 2, 3, 4, 5], "doc", 0, domain=b"doc shuffle")
    True
    >>> sorted(a)
    [1, 2, 3, 4, 5]
    """
    order = list(items)
    key = b"%s:%s:%d" % (domain, seed.encode(), number)
    count = len(order)
    if count < 2:  # noqa: PLR2004 (nothing to swap)
        return order
    raw = _digest(key, count + _SPARE_WORDS)
    unpack = _UNPACKERS[count + _SPARE_WORDS]
    if not _COMPILED and not (
        _may_pass_over(raw, count) and any(map(lt, unpack(raw), _limits(count)))
    ):
        # No word passed over (all but about one shuffle of a deck in a million): word k
        # is position n-1-k's, the swaps written out for this count read them off raw.
        swaps = _SWAPS.get(count)
        if swaps is None:
            swaps = _SWAPS[count] = _written_out(count)
        swaps(order, raw)
        return order
    words = unpack(raw)
    at = 0
    for i in range(count - 1, 0, -1):
        while True:
            if at == len(words):  # more passed over than the spare words
                words = _words(key, 2 * len(words))
            word = words[at]
            at += 1
            if word >= _WORDS % (i + 1):
                break
        j = word % (i + 1)
        order[i], order[j] = order[j], order[i]
    return order


#: For a count of items, for positions n-1 down to 1: the word below which a draw is
#: passed over.
_LIMITS: dict[int, tuple[int, ...]] = {}
#: For a count of items, ``_written_out(count)``.
_SWAPS: dict[int, Callable[[list[Any], bytes], None]] = {}


def _limits(count: int) -> tuple[int, ...]:
    limits = _LIMITS.get(count)
    if limits is None:
        limits = _LIMITS[count] = tuple(_WORDS % (i + 1) for i in range(count - 1, 0, -1))
    return limits


def _written_out(count: int) -> Callable[[list[Any], bytes], None]:
    """The swaps of a shuffle of ``count`` items in which no word is passed over, as
    straight-line code made once for the count (the way ``dataclasses`` writes an
    ``__init__``): the first ``count - 1`` words of ``raw`` unpacked into locals, then
    ``j = w<k> % (i + 1)`` and the swap of positions ``i`` and ``j``, for ``i`` from
    ``count - 1`` down to 1, ``k`` being ``count - 1 - i``.

    The interpreter runs it in two fifths of the time of the word-by-word loop of
    ``shuffled`` (no iterator, no limit test, no subscript a step): 5.7 against 14.3
    microseconds a deck of 108, unpacking included. Its source holds nothing but
    integers made from ``count``; the tests check it against that loop.

    >>> order = ["a", "b", "c"]
    >>> raw = struct.pack("<2I", 4, 1)  # 2 swaps with 4 % 3 = 1, then 1 with 1 % 2 = 1
    >>> _written_out(3)(order, raw)
    >>> order
    ['a', 'c', 'b']
    """
    names = [f"w{k}" for k in range(int(count) - 1)]
    lines = ["def swaps(o, raw):", f"    {', '.join(names)}, = unpack(raw)"]
    for k, i in enumerate(range(int(count) - 1, 0, -1)):
        lines.append(f"    j = w{k} % {i + 1}\n    o[{i}], o[j] = o[j], o[{i}]")
    namespace: dict[str, Any] = {"unpack": struct.Struct(f"<{int(count) - 1}I").unpack_from}
    exec("\n".join(lines), namespace)  # noqa: S102 (nothing but integers made from count)
    swaps: Callable[[list[Any], bytes], None] = namespace["swaps"]
    return swaps


def _words(key: bytes, count: int) -> tuple[int, ...]:
    """The first ``count`` 32-bit words (little-endian) of SHAKE-128's output for ``key``."""
    raw = _digest(key, count)
    words: tuple[int, ...] = _UNPACKERS[count](raw)
    return words


def _digest(key: bytes, count: int) -> bytes:
    """The bytes of ``_words`` (and their unpacker made ready)."""
    if count not in _UNPACKERS:
        _UNPACKERS[count] = struct.Struct(f"<{count}I").unpack
    return hashlib.shake_128(key).digest(4 * count)


def _may_pass_over(raw: bytes, count: int) -> bool:
    """False when no word of ``raw`` can be below its limit, found in one C call.

    A limit is below ``count``; with at most 256 items, a word below it has its
    three high bytes zero, so without three zero bytes in a row anywhere in the
    output (all but about one shuffle of a deck in 36,000) no word is passed over
    and the words need not be compared one by one.
    """
    return count > _ONE_BYTE or _THREE_ZEROS in raw


_UNPACKERS: dict[int, Callable[[bytes], tuple[int, ...]]] = {}
