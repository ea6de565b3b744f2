"""Opaque card handles: a seat names its own cards without learning which card is which.

A handle is a few bytes, in hexadecimal, of a keyed hash: keyed by the game's
secret seed and a context the game chooses (the round, and for Flip the
number of flips), so handles change when the game says they must and never
map to the physical card.
"""

from __future__ import annotations

import hashlib
from typing import Final

#: The bytes of one handle (12 hexadecimal characters).
HANDLE_BYTES: Final = 6


def handle_stream(seed: str, context: bytes, count: int, *, domain: bytes) -> bytes:
    """``count`` handles' bytes for ``context``: card ``i``'s handle is bytes
    ``i * HANDLE_BYTES`` to ``(i + 1) * HANDLE_BYTES``, in hexadecimal.

    SHAKE-128 of ``domain``, the seed's length, the seed and ``context``,
    joined by colons. The seed's length comes first so that no seed's input
    is a prefix of another's (seeds ``a:1`` and ``a`` with context ``1:...``
    never meet); a sponge hash is a sound keyed hash with the key in front
    (no length extension). One call makes a whole deck's handles for about
    the price of four hashes of one.

    >>> len(handle_stream("doc", b"1", 108, domain=b"doc handles"))
    648
    >>> handle_stream("a:1", b"2", 1, domain=b"d") != handle_stream("a", b"1:2", 1, domain=b"d")
    True
    """
    key = seed.encode()
    return hashlib.shake_128(b"%s:%d:%s:%s" % (domain, len(key), key, context)).digest(
        count * HANDLE_BYTES
    )


def handle_at(stream: bytes, index: int) -> str:
    """The handle of card ``index`` in ``stream``.

    >>> handle_at(bytes(range(12)), 1)
    '060708090a0b'
    """
    at = index * HANDLE_BYTES
    return stream[at : at + HANDLE_BYTES].hex()
