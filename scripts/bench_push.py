"""What the WebSocket push costs: a move with and without it, and its fan-out to N sockets.

    .venv/bin/python scripts/bench_push.py [--channel-layer redis://127.0.0.1:6379/7]
        [--sockets 20] [--moves 40] [--rounds 3]

On a scratch PostgreSQL database (``--database-url``, its name must contain
"bench"; created, migrated and dropped by Django's test-database machinery) and
Redis's channel layer (``--channel-layer``, a Redis database it flushes), in
this one process, with the sockets driven by Channels' communicator over the
whole ASGI application (no network), it times, alternating in each round:

- ``move`` (the anchor): one legal move through ``games.services`` with
  ``live``'s receiver disconnected: what a move costs without the push;
- ``move + publish``: the same with the receiver, which publishes "table N
  changed" to Redis on commit: what the push adds to the request that moves
  (a connection row is counted at the table, as a socket on another process
  would be: ``live`` pushes only to a table with one, ``games.signals``);
- ``move + publish, a loop a call``: the same publishing through
  ``async_to_sync`` (a new event loop, so a new Redis connection, per move), as
  the receiver first did: the cost ``live.receivers.Publisher`` removes;
- ``move + N views``: the same with ``--sockets`` sockets open at the table
  (two seats and watchers), until every one of them has received its new view:
  the publish, the one read of the table the process's sockets share, and each
  seat's view, built once (``live.fanout``).

Prints min, median and max in milliseconds per move, per kind and round, the
views built a second that the last kind implies, and the load average.
"""

from __future__ import annotations

import argparse
import os
import platform
import statistics
import sys
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument(
        "--database-url", default="postgres://postgres@127.0.0.1:5432/gamenook_push_bench"
    )
    parser.add_argument("--channel-layer", default="redis://127.0.0.1:6379/7")
    parser.add_argument("--sockets", type=int, default=20)
    parser.add_argument("--moves", type=int, default=40, help="per kind and round")
    parser.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args()
    if "bench" not in args.database_url.rsplit("/", 1)[-1]:
        parser.error("the database's name must contain 'bench'")
    os.environ["DATABASE_URL"] = args.database_url
    os.environ["GAMENOOK_TEST_CHANNEL_LAYER_URL"] = args.channel_layer
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "gamenook.settings.test")
    import django

    django.setup()
    from django.conf import settings
    from django.db import connection

    settings.GAMENOOK_RUN_BOTS_INLINE = False
    old_name = connection.settings_dict["NAME"]
    connection.creation.create_test_db(verbosity=0, autoclobber=True, keepdb=False)
    # Connections kept across Channels' database calls, as in production (CONN_MAX_AGE).
    connection.settings_dict["CONN_MAX_AGE"] = None
    connection.close()
    try:
        run(args.sockets, args.moves, args.rounds)
    finally:
        connection.close()
        connection.settings_dict["CONN_MAX_AGE"] = 0
        connection.creation.destroy_test_db(old_name, verbosity=0)
    return 0


class Game:
    """Two people at a table, moving in turn for ever (a new table when a game ends)."""

    def __init__(self, watchers: int) -> None:
        from accounts import services as accounts
        from tests.factories import make_user

        self.users = [make_user(), make_user()]
        self.keys = [accounts.token_create(user=u, name="bench")[1] for u in self.users]
        watchers_users = [make_user() for _ in range(watchers)]
        self.watcher_keys = [accounts.token_create(user=u, name="b")[1] for u in watchers_users]
        self.table_id = 0
        self.new_table()

    def new_table(self) -> None:
        from games import services

        host, guest = self.users
        table = services.table_create(host=host, seat_count=2, allow_watchers=True)
        services.table_join(table_id=table.pk, user=guest)
        services.table_start(table_id=table.pk, user=host)
        self.table_id = table.pk

    def watch(self, on: bool) -> None:
        """Count a connection at the table (as a socket on another process would be), or none.

        ``live`` pushes only to a table with a connection counted (``games.signals``,
        ``watched``): without one the publishing kind would publish nothing.
        """
        from django.utils import timezone

        from games.models import Connection

        Connection.objects.filter(channel=_COUNTED).delete()
        if on:
            Connection.objects.create(
                table_id=self.table_id, user=self.users[0], channel=_COUNTED, seen_at=timezone.now()
            )

    def move(self) -> int:
        """One legal move (the first the view lists); the table's seq after it."""
        from games import selectors, services

        table = selectors.table_get(self.table_id)
        if table.status != "active":
            raise GameOver
        seat = table.to_act
        assert seat is not None
        view = selectors.table_view(table, seat)
        assert view is not None
        choice = view["legal_actions"][0]
        data: dict[str, Any] = {"type": choice["type"]}
        if "card" in choice:
            data["card"] = choice["card"]
        if "colors" in choice:
            data["color"] = choice["colors"][0]
        result = services.table_apply_action(
            table_id=self.table_id, user=self.users[seat], data=data, expected_seq=None
        )
        return result.table.seq


class GameOver(Exception):
    pass


_COUNTED = "bench.counted"


def _stats(times: list[float]) -> str:
    ms = [t * 1000 for t in times]
    return f"min {min(ms):7.2f}  median {statistics.median(ms):7.2f}  max {max(ms):7.2f} ms"


def run(sockets: int, moves: int, rounds: int) -> None:
    from asgiref.sync import async_to_sync
    from channels import layers
    from channels.db import database_sync_to_async
    from channels.testing import WebsocketCommunicator

    from gamenook.asgi import application
    from games.signals import table_changed
    from live.receivers import on_table_changed

    game = Game(watchers=max(0, sockets - 2))
    print(f"python {platform.python_version()}, {platform.machine()}, {os.cpu_count()} cores")
    print(f"{sockets} sockets at a two-seat table, {moves} moves per kind and round")

    def timed_moves(count: int, *, watched: bool = False) -> list[float]:
        game.watch(watched)
        out = []
        for _ in range(count):
            start = time.perf_counter()
            try:
                game.move()
            except GameOver:
                game.new_table()
                game.watch(watched)
                continue
            out.append(time.perf_counter() - start)
        game.watch(False)
        return out

    async def fan_out(count: int) -> list[float]:
        keys = [*game.keys, *game.watcher_keys][:sockets]
        comms = [
            WebsocketCommunicator(
                application,
                f"/ws/tables/{game.table_id}/",
                headers=[(b"authorization", f"Token {key}".encode())],
            )
            for key in keys
        ]
        for comm in comms:
            connected, _ = await comm.connect(timeout=30)
            assert connected
        for comm in comms:  # the first views, and those of the others connecting
            while not await comm.receive_nothing(timeout=0.5):
                await comm.receive_from(timeout=30)
        out = []
        try:
            for _ in range(count):
                start = time.perf_counter()
                try:
                    seq = await database_sync_to_async(game.move)()
                except GameOver:
                    break  # the sockets are at the finished table: this round ends here
                for comm in comms:
                    while True:
                        frame = await comm.receive_json_from(timeout=30)
                        if frame["type"] == "view" and frame["view"]["seq"] >= seq:
                            break
                out.append(time.perf_counter() - start)
        finally:
            for comm in comms:
                await comm.disconnect()
        return out

    for number in range(1, rounds + 1):
        table_changed.disconnect(on_table_changed, dispatch_uid="live.push")
        try:
            alone = timed_moves(moves)
        finally:
            table_changed.connect(on_table_changed, dispatch_uid="live.push")
        published = timed_moves(moves, watched=True)
        table_changed.disconnect(on_table_changed, dispatch_uid="live.push")
        table_changed.connect(_publish_per_call, dispatch_uid="bench.per-call")
        try:
            per_call = timed_moves(moves, watched=True)
        finally:
            table_changed.disconnect(_publish_per_call, dispatch_uid="bench.per-call")
            table_changed.connect(on_table_changed, dispatch_uid="live.push")
        if game.table_id and _finished(game.table_id):
            game.new_table()
        spread = async_to_sync(fan_out)(moves)
        layers.channel_layers.backends.clear()  # Redis's layer is bound to that loop
        if not spread:
            game.new_table()
            spread = async_to_sync(fan_out)(moves)
            layers.channel_layers.backends.clear()
        print(f"round {number}")
        print(f"  move (anchor)        {_stats(alone)}")
        print(f"  move + publish       {_stats(published)}")
        print(f"  ... a loop a call    {_stats(per_call)}")
        print(f"  move + {sockets:3d} views    {_stats(spread)}")
        per_view = (statistics.median(spread) - statistics.median(alone)) / sockets
        print(
            f"  one socket's view, from the medians: {per_view * 1000:.2f} ms "
            f"({1 / per_view:.0f} views a second in this process)"
        )
    print("load average: " + " ".join(f"{x:.2f}" for x in os.getloadavg()))


def _publish_per_call(sender: Any, *, table_id: int, seq: int, **kwargs: Any) -> None:  # noqa: ARG001
    from asgiref.sync import async_to_sync
    from channels.layers import get_channel_layer

    from live.receivers import group_name

    layer = get_channel_layer()
    assert layer is not None
    message = {"type": "table.changed", "seq": seq}
    async_to_sync(layer.group_send)(group_name(table_id), message)


def _finished(table_id: int) -> bool:
    from games import selectors

    return selectors.table_get(table_id).status != "active"


if __name__ == "__main__":
    sys.exit(main())
