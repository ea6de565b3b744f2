"""Card handles: the opaque names a seat's own cards go by, and what views remember of them.

A handle is six bytes, in hexadecimal, of a keyed hash (``tabletop.handles``)
of the round and the number of flips, keyed by the game's secret seed. It
never maps to the physical card, and it changes at every flip, so a player
can never follow one card across a flip and learn both its faces.

This module knows nothing of the state: the state holds a ``HandleMemo``
(``GameState.handle_memo``) and ``flip.views`` makes and reads it.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Final, cast

from tabletop.handles import HANDLE_BYTES, handle_at, handle_stream

from .cards import CODE_OF, DECK_SIZE
from .types import Card, FaceCode, Handle, OptionsDict

#: Flip's own handles: no other game's handles are ever the same.
DOMAIN: Final = b"flip handles"

# ``Handle`` is a ``str``; calling ``str`` on one is a C call that returns it,
# cheaper than the NewType's own call.
_as_handle: Final = cast("Callable[[str], Handle]", str)


def deck_stream(
    seed: str, round_: int, flips: int, card: bytes = b"", count: int = DECK_SIZE
) -> bytes:
    """``count`` handles' bytes for one round and number of flips: the deck's cards in order.

    The hash's context is the round and the number of flips; with ``card``,
    that too (the one handle of a number that is no card, ``count`` 1). One
    call makes the whole deck's handles for about the price of four hashes
    of one: in four-seat play a round and flip lasts some fifteen views,
    which need some twenty-five handles between them.
    """
    return handle_stream(seed, b"%d:%d:%s" % (round_, flips, card), count, domain=DOMAIN)


class HandleMemo:
    """What views remember for one round, number of flips and seed (``GameState.handle_memo``).

    ``names``: the handles computed so far, by card; ``stream``: the handles'
    bytes for the whole deck, from one keyed hash (``deck_stream``);
    ``options``, the state's options the memo was made for (compared by
    identity only) and ``options_view``, their view.
    """

    __slots__ = (
        "discard",
        "discard_faces",
        "flips",
        "names",
        "options",
        "options_view",
        "round",
        "seed",
        "side",
        "stream",
    )

    def __init__(
        self,
        round_: int,
        flips: int,
        seed: str,
        side: int,
        options: object,
        options_view: OptionsDict,
    ) -> None:
        self.round = round_
        self.flips = flips
        self.seed = seed
        self.side = side
        self.names: dict[int, Handle] = {}
        self.stream = deck_stream(seed, round_, flips)
        #: The discard pile last shown and its faces: the pile only grows on
        #: top between flips and reshuffles, so a view adds the new faces only.
        self.discard: list[Card] = []
        self.discard_faces: list[FaceCode] = []
        self.options = options
        self.options_view = options_view

    def discard_pile(self, discard: list[Card]) -> list[FaceCode]:
        """The faces of ``discard`` on the memo's side, bottom to top (a new list)."""
        known = self.discard
        if discard[: len(known)] != known:  # not the pile shown last, grown
            known.clear()
            self.discard_faces.clear()
        if len(known) < len(discard):
            added = discard[len(known) :]
            known += added
            codes = CODE_OF[self.side]
            self.discard_faces += [codes[c] for c in added]
        return self.discard_faces[:]


def new_handle(memo: HandleMemo, card: int) -> Handle:
    """The handle of ``card`` for ``memo``'s round and flips, computed and remembered."""
    if 0 <= card < DECK_SIZE:
        name = memo.names[card] = _as_handle(handle_at(memo.stream, card))
    else:  # no card of the deck: a handle that no card has
        stream = deck_stream(memo.seed, memo.round, memo.flips, b"%d" % card, 1)
        name = memo.names[card] = _as_handle(handle_at(stream, 0))
    return name


__all__ = ["DOMAIN", "HANDLE_BYTES", "HandleMemo", "deck_stream", "new_handle"]
