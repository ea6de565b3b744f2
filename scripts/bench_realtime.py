"""Real-time tables under load: timer lateness, pushes a second, server CPU.

    .venv/bin/python scripts/bench_realtime.py [--database-url URL] [--broker URL]
        [--channel-layer URL] [--tables 200] [--seconds 120] [--timer fast]
        [--lapse 0.25] [--workers 2] [--daphnes 1] [--arrival 10]

What it does, with the production settings, everything on this machine:

1. (Re)creates the scratch database of ``--database-url`` (its name must
   contain "bench") and migrates it; refuses a ``--broker`` or
   ``--channel-layer`` (Redis databases) that is not empty.
2. Starts the server side: ``--daphnes`` daphne processes (HTTP and
   WebSockets, ``gamenook.asgi``; the humans' sockets spread over them as a
   balancer would), ``--workers`` Celery workers (prefork, two processes
   each) and one beat (the real-time sweep every 5 seconds).
3. Opens ``--tables`` real-time tables of 2 to 4 seats, each with one
   scripted human and bots (Easy and Normal), and starts them.
4. The humans connect over the first ``--arrival`` seconds. For
   ``--seconds`` each holds a WebSocket to its table (its
   presence), receives its view after every change and, when it is to act,
   either plays the first legal action over the socket after 1 to 4 seconds
   or lets the move timer run out (``--lapse`` of its turns). A human replaced
   after three strikes, or whose game ended, opens a new table and goes on.
5. Stops (and empties the two Redis databases, as it found them), then
   reads the log: every lapsed turn's timeout move against the instant its
   timer ran out (lateness), and prints the lateness p50, p99 and max, the
   frames pushed a second, and the CPU the server processes used.

Nothing is asserted: the figures are printed (docs/performance.md records them).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import platform
import random
import socket
import statistics
import subprocess
import sys
import tempfile
import time
import uuid
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "scripts"))

from cluster_check import Processes, _database, _free_port  # noqa: E402


def _redis(url: str) -> Any:
    import redis

    return redis.Redis.from_url(url)  # as cluster_check.py: redis-py reads the URL


def _redis_empty(url: str) -> None:
    if _redis(url).dbsize():
        raise SystemExit(f"{url} is not empty: give an empty Redis database")


def _redis_emptied(url: str) -> None:
    """Leave ``url`` as the run found it (empty), so the next run may use it."""
    try:
        _redis(url).flushdb()
    except Exception as error:  # noqa: BLE001 (cleanup is best effort)
        print(f"could not empty {url}: {error}", file=sys.stderr)


def _env(args: argparse.Namespace, folder: Path) -> dict[str, str]:
    env = dict(os.environ)
    env.update(
        DJANGO_SETTINGS_MODULE="gamenook.settings.production",
        DJANGO_SECRET_KEY="bench-only-" + "x" * 50,
        DJANGO_ALLOWED_HOSTS="127.0.0.1,localhost",
        DJANGO_SECURE_SSL_REDIRECT="false",
        DJANGO_LOG_LEVEL="WARNING",
        DATABASE_URL=args.database_url,
        CELERY_BROKER_URL=args.broker,
        CHANNEL_LAYER_URL=args.channel_layer,
        CELERY_TASK_DEFAULT_QUEUE=f"gamenook-rt-{uuid.uuid4().hex[:8]}",
        CELERY_BEAT_SCHEDULE_FILENAME=str(folder / "beat-schedule"),
        EMAIL_URL="dummymail://",
        GAMENOOK_RUN_BOTS_INLINE="false",
        GAMENOOK_RATE_ACTIONS="100000000/minute",
        GAMENOOK_RATE_ACCOUNTS="100000000/minute",
        PYTHONUNBUFFERED="1",
    )
    return env


# ----------------------------------------------------------------------------
# The humans


@dataclass
class Stats:
    frames: int = 0
    actions: int = 0
    errors: int = 0
    refused: int = 0
    #: (table id, the instant the timer of a turn it let lapse ran out)
    lapsed: list[tuple[int, datetime]] = field(default_factory=list)
    tables: int = 0
    reconnects: int = 0


def _parse_time(text: str) -> datetime:
    return datetime.fromisoformat(text.replace("Z", "+00:00"))


async def _human(
    number: int,
    token: str,
    first_table: int | None,
    open_table: Any,
    port: int,
    until: float,
    args: argparse.Namespace,
    stats: Stats,
) -> None:
    from websockets.asyncio.client import connect
    from websockets.exceptions import InvalidHandshake

    rng = random.Random(number)
    headers = {"Authorization": f"Token {token}", "Origin": f"http://127.0.0.1:{port}"}
    table_id = first_table
    # People arrive over the first seconds, not at one instant.
    await asyncio.sleep(rng.uniform(0, args.arrival))
    while time.monotonic() < until:
        if table_id is None:
            table_id = await asyncio.to_thread(open_table, rng)
            stats.tables += 1
        url = f"ws://127.0.0.1:{port}/ws/tables/{table_id}/"
        try:
            socket = await connect(url, additional_headers=headers, max_size=2**22, open_timeout=30)
        except (OSError, InvalidHandshake, TimeoutError):
            # As the web client does: try again a moment later.
            stats.reconnects += 1
            await asyncio.sleep(rng.uniform(0.5, 2.0))
            continue
        table_id = await _play(socket, table_id, rng, until, args, stats)


async def _play(
    socket: Any,
    table_id: int,
    rng: random.Random,
    until: float,
    args: argparse.Namespace,
    stats: Stats,
) -> int | None:
    """Play at ``table_id`` until it ends or the run does.

    Returns the table to go on at: the same after a dropped socket, None for a new one.
    """
    from websockets.exceptions import ConnectionClosed

    async with socket:
        decided: set[int] = set()  # the turns already played or let lapse
        while time.monotonic() < until:
            try:
                raw = await asyncio.wait_for(socket.recv(), timeout=until - time.monotonic())
            except TimeoutError:
                return None
            except ConnectionClosed:
                stats.reconnects += 1
                return table_id  # the same table again
            frame = json.loads(raw)
            stats.frames += 1
            if frame.get("type") == "error":
                stats.refused += 1
                continue
            if frame.get("type") != "view":
                continue
            view = frame["view"]
            game = view.get("game")
            if view["status"] != "active" or game is None or game.get("seat") is None:
                return None  # over, or this human was replaced and only watches now
            legal = game.get("legal_actions") or []
            turn = game.get("turn")
            if not legal or turn in decided:
                continue
            decided.add(turn)
            if rng.random() < args.lapse:
                stats.lapsed.append((table_id, _parse_time(view["deadline_at"])))
                continue
            await asyncio.sleep(rng.uniform(1.0, 4.0))
            choice = legal[0]
            action: dict[str, Any] = {"type": choice["type"]}
            if "card" in choice:
                action["card"] = choice["card"]
            if "colors" in choice:
                action["color"] = choice["colors"][0]
            try:
                await socket.send(
                    json.dumps({"type": "action", "action": action, "expected_seq": view["seq"]})
                )
            except ConnectionClosed:
                stats.reconnects += 1
                return table_id
            stats.actions += 1
    return None


def _setup_django(env: dict[str, str]) -> None:
    os.environ.update(env)
    import django

    django.setup()


def _humans_and_tables(count: int, args: argparse.Namespace) -> tuple[list[str], Any]:
    """``count`` users with API tokens, and a function opening a started table for one."""
    from django.contrib.auth.models import User

    from accounts import services as accounts
    from games import services

    users, tokens = [], []
    for i in range(count):
        user = User.objects.create_user(f"human{i}", f"human{i}@example.com", "not-a-secret-1")
        users.append(user)
        tokens.append(accounts.token_create(user=user, name="bench")[1])
    by_token = dict(zip(tokens, users, strict=True))

    def opener(token: str) -> Any:
        def open_table(rng: random.Random) -> int:
            from django.db import close_old_connections

            close_old_connections()
            user = by_token[token]
            bots = rng.randint(1, 3)
            table = services.table_create(host=user, seat_count=1 + bots, move_timer=args.timer)
            for _ in range(bots):
                level = rng.choice(["easy", "normal"])
                services.table_add_bot(table_id=table.pk, user=user, level=level)
            services.table_start(table_id=table.pk, user=user)
            return table.pk

        return open_table

    return tokens, opener


def _lateness(stats: Stats) -> list[float]:
    """Seconds from each lapsed timer's instant to its timeout move in the log."""
    from games.models import Move

    late: list[float] = []
    by_table: dict[int, list[datetime]] = {}
    for table_id, _ in stats.lapsed:
        if table_id not in by_table:
            by_table[table_id] = sorted(
                Move.objects.filter(table_id=table_id, source="timeout").values_list(
                    "created_at", flat=True
                )
            )
    for table_id, deadline in stats.lapsed:
        after = [at for at in by_table[table_id] if at >= deadline]
        if after:
            late.append((after[0] - deadline).total_seconds())
    return late


def _cpu_seconds(pids: list[int]) -> float:
    """User and system CPU of these process groups, their children included, so far."""
    ticks = os.sysconf("SC_CLK_TCK")
    total = 0
    for proc in Path("/proc").iterdir():
        if not proc.name.isdigit():
            continue
        try:
            fields = (proc / "stat").read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        # fields[2] is the process group; 11, 12: utime, stime (after the state, field 3)
        if int(fields[2]) in pids:
            total += int(fields[11]) + int(fields[12])
    return total / ticks


def _wait_for_port(port: int, procs: Processes, name: str) -> None:
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        procs.check_alive(name)
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=1):
                return
        except OSError:
            time.sleep(0.3)
    raise RuntimeError(f"{name} did not listen within 60 seconds")


def _percentile(values: list[float], fraction: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(fraction * len(ordered)))]


def server_arguments(parser: argparse.ArgumentParser, name: str, broker_db: int) -> None:
    """The scratch services a benchmark's server runs on: its database (``name``), and two
    Redis databases, ``broker_db`` for the broker and the next one for the channel layer."""
    parser.add_argument(
        "--database-url",
        default=os.environ.get(
            "BENCH_DATABASE_URL", f"postgres://postgres@127.0.0.1:5432/gamenook_bench_{name}"
        ),
    )
    parser.add_argument(
        "--broker",
        default=os.environ.get("BENCH_BROKER_URL", f"redis://127.0.0.1:6379/{broker_db}"),
    )
    parser.add_argument(
        "--channel-layer",
        default=os.environ.get(
            "BENCH_CHANNEL_LAYER_URL", f"redis://127.0.0.1:6379/{broker_db + 1}"
        ),
    )


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    server_arguments(parser, "realtime", broker_db=8)
    parser.add_argument("--tables", type=int, default=200)
    parser.add_argument("--seconds", type=float, default=120)
    parser.add_argument("--timer", choices=["relaxed", "normal", "fast"], default="fast")
    parser.add_argument("--lapse", type=float, default=0.25, help="share of turns let lapse")
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--daphnes", type=int, default=1, help="daphne processes (ASGI)")
    parser.add_argument(
        "--arrival", type=float, default=10, help="seconds over which the humans connect"
    )
    args = parser.parse_args(argv)
    if "bench" not in urlsplit(args.database_url).path:
        raise SystemExit("--database-url must name a scratch database containing 'bench'")
    _redis_empty(args.broker)
    _redis_empty(args.channel_layer)
    _database(args.database_url)
    folder = Path(tempfile.mkdtemp(prefix="bench-realtime-"))
    env = _env(args, folder)
    python = str(Path(sys.executable))
    subprocess.run([python, "manage.py", "migrate", "-v0"], cwd=ROOT, env=env, check=True)
    _setup_django(env)
    tokens, opener = _humans_and_tables(args.tables, args)
    # Every human's first table, opened before the clock starts.
    first = [opener(token)(random.Random(i)) for i, token in enumerate(tokens)]

    ports = [_free_port() for _ in range(args.daphnes)]
    procs = Processes()
    bin_dir = Path(sys.executable).parent
    for i, port in enumerate(ports):
        procs.start(
            f"daphne{i}",
            [
                str(bin_dir / "daphne"),
                "-b",
                "127.0.0.1",
                "-p",
                str(port),
                "gamenook.asgi:application",
            ],
            env,
            folder,
        )
    for i in range(args.workers):
        procs.start(
            f"worker{i}",
            [
                str(bin_dir / "celery"),
                "-A",
                "gamenook",
                "worker",
                "-c",
                "2",
                "-l",
                "warning",
                "-n",
                f"rt{i}@%h",
                "--without-mingle",
                "--without-gossip",
            ],
            env,
            folder,
        )
    procs.start(
        "beat", [str(bin_dir / "celery"), "-A", "gamenook", "beat", "-l", "warning"], env, folder
    )
    names = list(procs.procs)
    for i, port in enumerate(ports):
        _wait_for_port(port, procs, f"daphne{i}")
    time.sleep(2)  # the workers connect to the broker meanwhile
    procs.check_alive(*names)

    stats = Stats()
    pids = [proc.pid for proc in procs.procs.values()]
    load_before = os.getloadavg()
    cpu_before, wall_before = _cpu_seconds(pids), time.monotonic()
    until = time.monotonic() + args.seconds

    async def everyone() -> None:
        await asyncio.gather(
            *(
                # Each human's socket goes to one of the daphne processes, as a balancer would.
                _human(i, token, first[i], opener(token), ports[i % len(ports)], until, args, stats)
                for i, token in enumerate(tokens)
            ),
            return_exceptions=False,
        )

    try:
        asyncio.run(everyone())
        wall = time.monotonic() - wall_before
        cpu = _cpu_seconds(pids) - cpu_before
        load_after = os.getloadavg()
        ended = datetime.now(UTC)
        time.sleep(3)  # the timers due at the very end still fire
        procs.check_alive(*names)
    finally:
        procs.stop(*names)
        # The queues and the channel layer's keys: this run's alone (both were empty).
        _redis_emptied(args.broker)
        _redis_emptied(args.channel_layer)
    # Only timers whose instant came a second or more before the end are owed a timeout.
    stats.lapsed = [(t, at) for t, at in stats.lapsed if (ended - at).total_seconds() >= 1]
    late = _lateness(stats)
    print(f"machine: {platform.node()} {os.cpu_count()} cores, python {platform.python_version()}")
    print(f"load average before: {load_before[0]:.2f}, after: {load_after[0]:.2f}")
    print(
        f"tables: {args.tables} at once ({stats.tables} more opened), timer {args.timer}, "
        f"{args.seconds:.0f} s, {args.workers} workers x 2 processes, {args.daphnes} daphne"
    )
    print(
        f"human actions over the socket: {stats.actions}; refused: {stats.refused}; "
        f"reconnects: {stats.reconnects}"
    )
    if late:
        print(
            f"timer lateness over {len(late)} lapsed turns (s): min {min(late):.3f}, "
            f"p50 {statistics.median(late):.3f}, p99 {_percentile(late, 0.99):.3f}, "
            f"max {max(late):.3f}"
        )
        print(f"lapsed turns with no timeout in the log: {len(stats.lapsed) - len(late)}")
    print(f"frames pushed a second: {stats.frames / wall:.1f} ({stats.frames} in {wall:.0f} s)")
    print(
        f"server CPU (daphne, workers, beat): {cpu:.1f} s in {wall:.0f} s = {cpu / wall:.2f} cores"
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
