"""The round's public record as the engine keeps it: one small integer per entry.

``GameState.history`` holds it (reset by every deal) and a snapshot stores it
as three URL-safe characters an entry (``encode``, ``decode``);
``flip.history`` reads it back for one seat. An entry packs what happened
(its kind), to whom, with which card and colour.

Its own module because the state stores the record, the engine writes it and
``flip.history`` reads it: they all import it, and it imports none of them.
"""

from __future__ import annotations

from typing import Final

# Record entries: what happened, to whom, with which card and colour.
STARTER: Final = 0
PLAY: Final = 1
DRAW: Final = 2  # a turn's draw: the hand held nothing playable
PENALTY: Final = 3  # one card of a penalty
CHOOSE: Final = 4
PASS: Final = 5
LEAVE: Final = 6
LEFT: Final = 7  # one card of a leaving hand, right after its LEAVE
RESHUFFLE: Final = 8

# Three URL-safe characters per entry: 18 bits hold kind, seat, card, colour.
_DIGITS: Final = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz-_"
_VALUE: Final = {ch: i for i, ch in enumerate(_DIGITS)}
_WIDTH: Final = 3


def entry(kind: int, seat: int = 0, card: int = 0, color: int = 0) -> int:
    """One entry of a round's record: what happened, to whom, with which card and colour.

    >>> entries([entry(PLAY, 2, 17, 3)])
    [(1, 2, 17, 3)]
    """
    return ((kind * 16 + seat) * 128 + card) * 8 + (color if color >= 0 else 0)


def encode(record: list[int]) -> str:
    """The record as stored in a snapshot: three URL-safe characters an entry.

    >>> record = [entry(STARTER, 0, 5), entry(RESHUFFLE)]
    >>> encode(record), decode(encode(record)) == record
    ('00eW00', True)
    """
    digits = _DIGITS
    return "".join(digits[v >> 12] + digits[(v >> 6) & 63] + digits[v & 63] for v in record)


def decode(text: str) -> list[int]:
    """The record ``encode`` wrote; ``ValueError`` for anything else."""
    if len(text) % _WIDTH:
        raise ValueError("a round's record has three characters an entry")
    value = _VALUE
    try:
        return [
            (value[text[i]] << 12) | (value[text[i + 1]] << 6) | value[text[i + 2]]
            for i in range(0, len(text), _WIDTH)
        ]
    except KeyError:
        raise ValueError("a round's record holds a character it never writes") from None


def entries(record: list[int]) -> list[tuple[int, int, int, int]]:
    """The record's entries as (kind, seat, card, colour)."""
    return [(v >> 14, (v >> 10) & 15, (v >> 3) & 127, v & 7) for v in record]
