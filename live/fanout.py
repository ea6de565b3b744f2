"""One read of a changed table per process, shared by the sockets open at it there.

A change reaches each socket of a table as its own "table N changed" message
(``live.receivers``; Redis's layer hands a process each message once, and
Channels copies it to each of the process's sockets in the table's group).
After a player's action the message carries the table and its seats: the
process unpacks them once (``Reads.from_rows``) and reads nothing. Otherwise
each socket used to read the table, its seats and their presence and build its
view alone: with 20 sockets open, 20 reads and 20 views for one change
(docs/performance.md, "WebSockets"). Now the sockets of one process share:

- **one read** of the table with its seats (``games.selectors.table_with_seats``),
  begun once every socket the process holds at the table has heard of the change,
  or after ``GATHER_SECONDS`` if one has not;
- **one view per seat** built from it: a seat's own for the socket of its player,
  the watcher view once for every watcher.

What keeps it exact: a socket uses a read only if the read began after the socket
was told of the change (the change committed before the message was sent, so
such a read shows it); otherwise it starts a read of its own. Who may see what is
decided per socket, afresh, from the shared read (``TableConsumer._seat``), and
a view is shared only between sockets whose users get the same seat's view:
the body of ``GET .../view/`` depends on the table and the seat, not on who asks.
"""

from __future__ import annotations

import asyncio
import contextlib
from dataclasses import dataclass, field
from typing import Any, NamedTuple

from channels.db import database_sync_to_async
from rest_framework.renderers import JSONRenderer

from games import selectors
from games.apis.tables import seats_answer, view_answer

from .ticker import Version

#: The longest a read waits for the other sockets of its process to hear of a change.
GATHER_SECONDS = 0.05


_RENDERER = JSONRenderer()  # the API's own rendering of a body


def render(frame: dict[str, Any]) -> str:
    """A frame's text, as the API renders a body."""
    return bytes(_RENDERER.render(frame)).decode()


class View(NamedTuple):
    body: dict[str, Any]
    etag: str
    text: str  # the frame ``{"type": "view", "etag": ..., "view": body}``


@dataclass
class Shared:
    """A table as read once, and the views built from it.

    Used from Channels' database thread; were two threads to use one at once, a
    view would be built twice, never a wrong one.
    """

    table: Any
    seats: list[Any]
    state: Any
    views: dict[int | None, View] = field(default_factory=dict)
    seats_out: list[dict[str, Any]] | None = None  # the views' common ``seats``, built once

    @classmethod
    def load(cls, table_id: int) -> Shared:
        table, seats = selectors.table_with_seats(table_id)
        return cls(table, seats, selectors.table_state(table))

    @classmethod
    def unpack(cls, packed: dict[str, Any]) -> Shared | None:
        """The table as ``pack_rows`` sent it; None if another version of the code packed it."""
        table, seats = selectors.unpack_rows(packed)
        if table is None:
            return None
        return cls(table, seats, selectors.table_state(table))

    @property
    def version(self) -> Version:
        """As ``games.selectors.tables_versions`` has it: every seat row counts."""
        table = self.table
        return table.seq, table.status, table.presence_version, len(self.seats)

    def view(self, seat: int | None) -> View:
        """The view endpoint's body and ETag for ``seat`` (None: a watcher), and the
        socket's frame of them, built once."""
        built = self.views.get(seat)
        if built is None:
            if self.seats_out is None:  # a real-time table's presence: one query, not one a seat
                self.seats_out = seats_answer(self.table, self.seats)
            body, etag = view_answer(self.table, seat, self.seats, self.state, self.seats_out)
            text = render({"type": "view", "etag": etag, "view": body})
            built = self.views[seat] = View(body, etag, text)
        return built


@dataclass
class _Read:
    expected: int
    joined: int = 1
    started: float | None = None  # the loop's time when the read began; None while gathering
    everyone: asyncio.Event = field(default_factory=asyncio.Event)
    task: asyncio.Task[Shared] | None = None


class Reads:
    """The reads of one process's event loop, at most one gathering per table."""

    def __init__(self) -> None:
        self.loop: asyncio.AbstractEventLoop | None = None
        self.reads: dict[int, _Read] = {}
        self.given: dict[int, tuple[Any, Shared]] = {}  # by table: the last rows a change brought

    def _current(self) -> dict[int, _Read]:
        loop = asyncio.get_running_loop()
        if self.loop is not loop:  # a new loop (a test's scenario): nothing of the old one
            self.loop, self.reads, self.given = loop, {}, {}
        return self.reads

    def from_rows(self, table_id: int, packed: dict[str, Any]) -> Shared | None:
        """The table as a change's message carried it (``pack_rows``), unpacked once per
        process for all its sockets told of that change; None: read it instead."""
        self._current()
        key = (packed.get("format"), packed.get("table"), packed.get("seats"))
        kept = self.given.get(table_id)
        if kept is not None and kept[0] == key:
            return kept[1]
        shared = Shared.unpack(packed)
        if shared is not None:
            self.given[table_id] = (key, shared)
        return shared

    async def shared(self, table_id: int, *, told_at: float, sockets: int) -> Shared:
        """The table as read after ``told_at``, shared with the process's other sockets.

        ``sockets``: how many of this process's sockets at the table are told of
        the change (1: read at once, or join a read still gathering).
        """
        reads = self._current()
        read = reads.get(table_id)
        if read is not None and read.started is None:
            self._join(read)
        elif read is None or read.started is None or read.started < told_at:
            read = reads[table_id] = _Read(expected=sockets)
            if read.joined >= read.expected:
                read.everyone.set()
            read.task = asyncio.get_running_loop().create_task(self._read(table_id, read))
        assert read.task is not None  # noqa: S101 (set when the read was made)
        # Shielded: a socket closing while it waits must not cancel the others' read.
        return await asyncio.shield(read.task)

    def skip(self, table_id: int) -> None:
        """A socket told of the change will not read: the others need not wait for it."""
        read = self._current().get(table_id)
        if read is not None and read.started is None:
            self._join(read)

    def forget(self, table_id: int) -> None:
        """No socket of this process is at ``table_id`` any more."""
        self._current().pop(table_id, None)
        self.given.pop(table_id, None)

    @staticmethod
    def _join(read: _Read) -> None:
        read.joined += 1
        if read.joined >= read.expected:
            read.everyone.set()

    async def _read(self, table_id: int, read: _Read) -> Shared:
        # A socket told of the change that does not come in time reads for itself.
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(read.everyone.wait(), GATHER_SECONDS)
        read.started = asyncio.get_running_loop().time()
        return await database_sync_to_async(Shared.load)(table_id)


reads = Reads()
