"""What one process does for all its open sockets at once, every few seconds.

- The heartbeat: ``games.services.presence_touch`` with every open socket's
  channel, one call per ``GAMENOOK_LIVE_HEARTBEAT_SECONDS``, so a record whose
  process died stops being touched and the games layer can tell.
- The recheck: the version (seq, status, presence, seats taken) of every table a socket
  shows, one query per ``GAMENOOK_LIVE_RECHECK_SECONDS``; a socket whose view is
  older than its table is told to rebuild it. The push (``live.receivers``) is
  the main path; this catches a message the layer lost, and with the in-memory
  layer of ``make run`` the changes another process (the Celery worker) made.
  Tables in the lobby, whose changes are not signalled, are read more often
  (``GAMENOOK_LIVE_LOBBY_RECHECK_SECONDS``).
- The credentials, with the heartbeat: whether the token or session each socket
  was opened with still works, in at most three queries (``live.auth.working``);
  a socket whose credential failed is told to check its own and close. The
  message ``live.receivers`` sends when credentials change is the main path;
  this catches one the layer lost.

One ticker per process and event loop; it runs while a socket is open.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections import Counter
from dataclasses import dataclass

from channels.db import database_sync_to_async
from channels.layers import get_channel_layer

from games import selectors, services

from . import conf
from .auth import Credential, working

logger = logging.getLogger(__name__)

LOBBY = "lobby"  # games.models.Table.Status.LOBBY (live reads no model)

#: What a socket shows of its table: (seq, status, presence version, seats taken).
Version = tuple[int, str, int, int]


@dataclass
class _Socket:
    table_id: int
    credential: Credential | None = None
    shown: Version | None = None


class Ticker:
    def __init__(self) -> None:
        self.sockets: dict[str, _Socket] = {}
        self.tables: Counter[int] = Counter()  # open sockets by table: at_table without a scan
        # The sockets the lobby recheck reads every second (a lobby's, or not shown yet):
        # that recheck walks these, not every socket of the process.
        self.lobby: set[str] = set()
        self.task: asyncio.Task[None] | None = None
        self.last_beat = self.last_recheck = time.monotonic()

    def add(self, channel: str, table_id: int, credential: Credential | None = None) -> None:
        self._forget(channel)
        self.sockets[channel] = _Socket(table_id, credential)
        self.tables[table_id] += 1
        self.lobby.add(channel)
        loop = asyncio.get_running_loop()
        if self.task is None or self.task.done() or self.task.get_loop() is not loop:
            self.last_beat = self.last_recheck = time.monotonic()
            self.task = loop.create_task(self._run())

    def shown(self, channel: str, version: Version) -> None:
        """The socket ``channel`` has just sent the view of this version."""
        socket = self.sockets.get(channel)
        if socket is not None:
            socket.shown = version
            if version[1] == LOBBY:
                self.lobby.add(channel)
            else:
                self.lobby.discard(channel)

    def at_table(self, table_id: int) -> int:
        """How many of this process's sockets are open at ``table_id``."""
        return self.tables[table_id]

    def _forget(self, channel: str) -> None:
        """Forget ``channel``'s socket (nothing if it is not held)."""
        socket = self.sockets.pop(channel, None)
        self.lobby.discard(channel)
        if socket is not None:
            self.tables[socket.table_id] -= 1
            if not self.tables[socket.table_id]:
                del self.tables[socket.table_id]

    def clear(self) -> None:
        """Forget every socket (a test that failed half-way leaves none to the next)."""
        self.sockets.clear()
        self.tables.clear()
        self.lobby.clear()

    def remove(self, channel: str) -> None:
        self._forget(channel)
        if not self.sockets and self.task is not None:
            self.task.cancel()
            self.task = None

    async def _run(self) -> None:
        while True:
            await asyncio.sleep(conf.lobby_recheck_seconds())
            try:
                await self.tick()
            except Exception:  # the next tick tries again; a socket must not die of it
                logger.exception("the live ticker failed")

    async def tick(self, *, beat: bool | None = None, everything: bool | None = None) -> None:
        """Recheck the sockets' tables (the lobbies' at every tick, the rest when due);
        touch the presence records and check the credentials when a beat is due."""
        now = time.monotonic()
        if beat is None:
            beat = now - self.last_beat >= conf.heartbeat_seconds()
        if beat:
            self.last_beat = now
            await database_sync_to_async(services.presence_touch)(channels=list(self.sockets))
        if everything is None:
            everything = now - self.last_recheck >= conf.recheck_seconds()
        if everything:
            self.last_recheck = now
        await self.recheck(lobbies_only=not everything)
        if beat:
            await self.check_credentials()

    async def recheck(self, *, lobbies_only: bool = False) -> int:
        """Tell each socket whose table moved past its view; how many were told.

        Lobby changes (a seat taken or given up) send no ``table_changed``: the
        sockets at a lobby learn of them here, every ``GAMENOOK_LIVE_LOBBY_RECHECK_SECONDS``.
        """
        if lobbies_only:
            sockets = [(channel, self.sockets[channel]) for channel in self.lobby]
        else:
            sockets = list(self.sockets.items())
        ids = sorted({socket.table_id for _, socket in sockets})
        if not ids:
            return 0
        versions = await database_sync_to_async(selectors.tables_versions)(ids)
        layer = get_channel_layer()
        told = 0
        for channel, socket in sockets:
            version = versions.get(socket.table_id)
            if socket.shown is not None and version == socket.shown:
                continue
            seq = version[0] if version is not None else 0
            if layer is not None:
                message = {"type": "table.changed", "seq": seq, "recheck": True}
                await layer.send(channel, message)
                told += 1
        return told

    async def check_credentials(self) -> int:
        """Tell each socket whose credential stopped working to check it and close;
        how many were told."""
        held = {
            channel: socket.credential
            for channel, socket in self.sockets.items()
            if socket.credential is not None
        }
        if not held:
            return 0
        fine = await database_sync_to_async(working)(set(held.values()))
        layer = get_channel_layer()
        told = 0
        for channel, credential in held.items():
            if credential not in fine and layer is not None:
                await layer.send(channel, {"type": "credentials.changed", "recheck": True})
                told += 1
        return told


ticker = Ticker()
