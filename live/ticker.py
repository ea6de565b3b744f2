"""What one process does for all its open sockets at once, every few seconds.

- The heartbeat: ``games.services.presence_touch`` with every open socket's
  channel, one call per ``GAMENOOK_LIVE_HEARTBEAT_SECONDS``, so a record whose
  process died stops being touched and the games layer can tell.
- The recheck: the version (seq, status, seats taken) of every table a socket
  shows, one query per ``GAMENOOK_LIVE_RECHECK_SECONDS``; a socket whose view is
  older than its table is told to rebuild it. The push (``live.receivers``) is
  the main path; this catches a message the layer lost, and with the in-memory
  layer of ``make run`` the changes another process (the Celery worker) made.

One ticker per process and event loop; it runs while a socket is open.
"""

from __future__ import annotations

import asyncio
import logging
import time
from dataclasses import dataclass

from channels.db import database_sync_to_async
from channels.layers import get_channel_layer

from games import selectors, services

from . import conf

logger = logging.getLogger(__name__)

#: What a socket shows of its table: (seq, status, seats taken).
Version = tuple[int, str, int]


@dataclass
class _Socket:
    table_id: int
    shown: Version | None = None


class Ticker:
    def __init__(self) -> None:
        self.sockets: dict[str, _Socket] = {}
        self.task: asyncio.Task[None] | None = None
        self.last_beat = time.monotonic()

    def add(self, channel: str, table_id: int) -> None:
        self.sockets[channel] = _Socket(table_id)
        loop = asyncio.get_running_loop()
        if self.task is None or self.task.done() or self.task.get_loop() is not loop:
            self.last_beat = time.monotonic()
            self.task = loop.create_task(self._run())

    def shown(self, channel: str, version: Version) -> None:
        """The socket ``channel`` has just sent the view of this version."""
        socket = self.sockets.get(channel)
        if socket is not None:
            socket.shown = version

    def remove(self, channel: str) -> None:
        self.sockets.pop(channel, None)
        if not self.sockets and self.task is not None:
            self.task.cancel()
            self.task = None

    async def _run(self) -> None:
        while True:
            await asyncio.sleep(min(conf.recheck_seconds(), conf.heartbeat_seconds()))
            try:
                await self.tick()
            except Exception:  # the next tick tries again; a socket must not die of it
                logger.exception("the live ticker failed")

    async def tick(self, *, beat: bool | None = None) -> None:
        """Recheck every socket's table; touch the presence records when a beat is due."""
        now = time.monotonic()
        if beat is None:
            beat = now - self.last_beat >= conf.heartbeat_seconds()
        if beat:
            self.last_beat = now
            await database_sync_to_async(services.presence_touch)(channels=list(self.sockets))
        await self.recheck()

    async def recheck(self) -> int:
        """Tell each socket whose table moved past its view; how many were told."""
        ids = sorted({socket.table_id for socket in self.sockets.values()})
        if not ids:
            return 0
        versions = await database_sync_to_async(selectors.tables_versions)(ids)
        layer = get_channel_layer()
        told = 0
        for channel, socket in list(self.sockets.items()):
            version = versions.get(socket.table_id)
            if socket.shown is not None and version == socket.shown:
                continue
            seq = version[0] if version is not None else 0
            if layer is not None:
                await layer.send(channel, {"type": "table.changed", "seq": seq})
                told += 1
        return told


ticker = Ticker()
