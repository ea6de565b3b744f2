"""The handles' memo of a seed, round and exchange count: a module of its own, below
the state (which holds one) and the views (which fill it), so neither imports the other.
"""

from __future__ import annotations

from typing import Final

from tabletop.handles import HANDLE_BYTES, handle_stream

from .cards import CODE_OF, DECK_SIZE
from .types import FaceCode, Handle, OptionsDict

HANDLE_DOMAIN: Final = b"wildcards handles"
#: Where each card's handle lies in the hexadecimal of a stream (two digits a byte).
_CUTS: Final = tuple(
    slice(2 * HANDLE_BYTES * i, 2 * HANDLE_BYTES * (i + 1)) for i in range(DECK_SIZE)
)


class HandleMemo:
    """What views remember for one seed, round and exchange count
    (``GameState.handle_memo``): the handles, the options as shown, and the
    discard pile's faces shown last (the pile only grows on top between
    reshuffles, so a view adds the new faces only)."""

    __slots__ = (
        "discard",
        "discard_faces",
        "discard_len",
        "exchanges",
        "names",
        "options",
        "round",
        "seed",
    )

    def __init__(self, round_: int, exchanges: int, seed: str, options: OptionsDict) -> None:
        self.round = round_
        self.exchanges = exchanges
        self.seed = seed
        stream = handle_stream(
            seed, b"%d:%d" % (round_, exchanges), DECK_SIZE, domain=HANDLE_DOMAIN
        )
        # Card i's handle is its bytes of the stream in hexadecimal (tabletop.handles.
        # handle_at): cut from the whole stream's hexadecimal in one C call.
        self.names: tuple[Handle, ...] = tuple(map(stream.hex().__getitem__, _CUTS))
        self.options = options
        self.discard: list[int] | None = None
        self.discard_len = 0
        self.discard_faces: list[FaceCode] = []

    def discard_pile(self, discard: list[int]) -> list[FaceCode]:
        """The faces of ``discard``, bottom to top (a new list).

        The engine only ever appends to a discard pile in place (a reshuffle or
        a deal puts a new list in its place), so the same list, no shorter than
        it was, has only grown on top: the faces shown last are reused.
        """
        faces = self.discard_faces
        shown = self.discard_len
        count = len(discard)
        if self.discard is discard and count - 1 <= shown <= count:
            # The commonest by far, a view after every action: one card played since, or none.
            if shown < count:
                faces.append(CODE_OF[discard[-1]])
                self.discard_len = count
            return faces[:]
        if self.discard is not discard or shown > count:
            self.discard = discard
            faces.clear()
            shown = 0
        for c in discard[shown:]:
            faces.append(CODE_OF[c])
        self.discard_len = count
        return faces[:]
