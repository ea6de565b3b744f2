"""The NDJSON streams under load (issue 40, "Measured"): CPU at rest and per move, latency.

    .venv/bin/python scripts/bench_streams.py [--database-url URL] [--broker URL]
        [--channel-layer URL] [--tables 250] [--seats 4] [--rest 60] [--moves 300]
        [--blocks 4] [--gap 0.2] [--warmup 1] [--keepalive S] [--profile FILE]
        [--server uvicorn|daphne]

What it does, with the production settings, everything on this machine:

1. (Re)creates the scratch database of ``--database-url`` (its name must
   contain "bench") and migrates it; refuses a ``--broker`` or
   ``--channel-layer`` (Redis databases) that is not empty. Makes
   ``--tables`` x ``--seats`` users, a token each, and starts ``--tables``
   turn-by-turn Flip tables of ``--seats`` people (no bots: no Celery worker
   is needed; the jobs the moves queue stay in the broker, emptied at the end).
2. Starts ONE web process serving ``gamenook.asgi`` (PostgreSQL through the
   ASGI pool, Redis's publish-and-subscribe channel layer): ``--server``
   uvicorn on uvloop and httptools, as the streams' process runs in
   production (docs/deploy.md), or daphne.
3. Opens, from this process's asyncio client (aiohttp), one table stream per
   seat (``GET /api/v1/tables/{id}/stream``, 1,000 by default) and one events
   stream per user (``GET /api/v1/stream/events``, 1,000), and waits for
   every first line.
4. At rest: the web process's CPU (utime + stime from /proc/<pid>/stat)
   over ``--rest`` seconds, in % of one core, with the keep-alive lines the
   client received meanwhile.
5. Moves: ``--moves`` moves through the API (``POST .../actions/``, one at a
   time, ``--gap`` seconds apart, round robin over the tables), each the
   first legal action the acting seat's stream offered. In ``--blocks``
   alternated blocks: streams open / every stream closed (the like-for-like
   anchor: the same moves on the same process with nothing open). Latency of a
   move to a stream: the instant the stream's line of that version (a table
   stream's ``change``, the next player's ``turn`` event) arrived, minus
   ``time.time()`` taken in the client right before the request was sent. The
   commit happens between the two, so this is an upper bound of commit-to-line
   (it includes the request's own way to the server and its work before the
   commit). Printed too: the line's arrival minus the answer's (negative: the
   line came first). CPU per move: the process's CPU over the block / its moves.
   Each block's first ``--warmup`` moves are made and not counted (the first
   request after a pause waits on its connections, streams or not).

Nothing is asserted: the figures are printed (docs/performance.md, "Streams").
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import platform
import resource
import statistics
import subprocess
import sys
import tempfile
import time
import uuid
from collections import defaultdict
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "scripts"))

from bench_realtime import (  # noqa: E402
    _percentile,
    _redis_emptied,
    _redis_empty,
    _setup_django,
    _wait_for_port,
    server_arguments,
)
from cluster_check import Processes, _database, _free_port  # noqa: E402


def _settings(args: argparse.Namespace, folder: Path) -> str:
    """The settings module the server runs: production's, with ``--keepalive`` if given."""
    if args.keepalive is None:
        return "gamenook.settings.production"
    (folder / "bench_streams_settings.py").write_text(
        "from gamenook.settings.production import *  # noqa: F403\n"
        f"GAMENOOK_STREAM_KEEPALIVE_SECONDS = {float(args.keepalive)!r}\n"
    )
    return "bench_streams_settings"


def _env(args: argparse.Namespace, folder: Path) -> dict[str, str]:
    env = dict(os.environ)
    env.update(
        DJANGO_SETTINGS_MODULE=_settings(args, folder),
        PYTHONPATH=os.pathsep.join(filter(None, [str(folder), os.environ.get("PYTHONPATH")])),
        DJANGO_SECRET_KEY="bench-only-" + "x" * 50,
        DJANGO_ALLOWED_HOSTS="127.0.0.1,localhost",
        DJANGO_SECURE_SSL_REDIRECT="false",
        DJANGO_LOG_LEVEL="WARNING",
        DATABASE_URL=args.database_url,
        CELERY_BROKER_URL=args.broker,
        CHANNEL_LAYER_URL=args.channel_layer,
        CELERY_TASK_DEFAULT_QUEUE=f"gamenook-streams-{uuid.uuid4().hex[:8]}",
        CELERY_BEAT_SCHEDULE_FILENAME=str(folder / "beat-schedule"),
        EMAIL_URL="dummymail://",
        GAMENOOK_RUN_BOTS_INLINE="false",
        GAMENOOK_RATE_ACTIONS="100000000/minute",
        GAMENOOK_RATE_ACCOUNTS="100000000/minute",
        PYTHONUNBUFFERED="1",
    )
    return env


def _cpu(pid: int) -> float:
    """The process's user + system CPU so far, in seconds."""
    return sum(_cpu_parts(pid))


def _cpu_parts(pid: int) -> tuple[float, float]:
    """The process's user and system CPU so far, in seconds."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    ticks = os.sysconf("SC_CLK_TCK")
    return int(fields[11]) / ticks, int(fields[12]) / ticks


def _setup(tables: int, seats: int) -> list[list[tuple[int, str]]]:
    """``tables`` started tables of ``seats`` people: per table, (user id, token) by seat."""
    from django.contrib.auth.hashers import make_password
    from django.contrib.auth.models import User

    from accounts import services as accounts
    from games import services

    password = make_password(None)
    users = User.objects.bulk_create(
        User(username=f"streamer{i}", email=f"streamer{i}@example.com", password=password)
        for i in range(tables * seats)
    )
    out: list[list[tuple[int, str]]] = []
    for t in range(tables):
        people = users[t * seats : (t + 1) * seats]
        table = services.table_create(host=people[0], seat_count=seats)
        for user in people[1:]:
            services.table_join(table_id=table.pk, user=user)
        services.table_start(table_id=table.pk, user=people[0])
        out.append(
            [(user.pk, accounts.token_create(user=user, name="bench")[1]) for user in people]
        )
    return out


# --- the client -----------------------------------------------------------------------


@dataclass
class Seen:
    """What the streams brought, with the instants (time.time()) the lines arrived."""

    keepalives: int = 0
    lines: int = 0
    first: int = 0  # streams whose first line came
    ended: int = 0
    #: (table id, seat) -> the latest view its table stream sent
    views: dict[tuple[int, int], dict[str, Any]] = field(default_factory=dict)
    #: (table id, version) -> the arrival instants of its change lines
    changes: dict[tuple[int, int], list[float]] = field(default_factory=lambda: defaultdict(list))
    #: (table id, seq) -> the arrival instants of its turn events
    turns: dict[tuple[int, int], list[float]] = field(default_factory=lambda: defaultdict(list))
    errors: list[str] = field(default_factory=list)


async def _read(response: Any, table_seat: tuple[int, int] | None, seen: Seen) -> None:
    first = True
    while True:
        raw = await response.content.readline()
        now = time.time()
        if not raw:
            seen.ended += 1
            return
        if not raw.strip():
            seen.keepalives += 1
            continue
        seen.lines += 1
        if first:
            seen.first += 1
            first = False
        line = json.loads(raw)
        kind = line.get("type")
        if table_seat is not None and kind in ("view", "change"):
            seen.views[table_seat] = line["view"]
            if kind == "change":
                seen.changes[(table_seat[0], line["version"])].append(now)
        elif kind == "turn":
            seen.turns[(line["table"], line["seq"])].append(now)
        elif kind == "end":
            seen.errors.append(f"an end line: {line}")


async def _open(
    session: Any, url: str, token: str, table_seat: tuple[int, int] | None, seen: Seen
) -> asyncio.Task[None]:
    response = await session.get(url, headers={"Authorization": f"Token {token}"})
    if response.status != 200:
        raise RuntimeError(f"{url}: {response.status} {await response.text()}")
    return asyncio.ensure_future(_read(response, table_seat, seen))


async def _open_all(
    session: Any, base: str, tables: list[list[tuple[int, str]]], ids: list[int], seen: Seen
) -> list[asyncio.Task[None]]:
    gate = asyncio.Semaphore(50)

    async def one(url: str, token: str, table_seat: tuple[int, int] | None) -> asyncio.Task[None]:
        async with gate:
            return await _open(session, url, token, table_seat, seen)

    jobs = []
    for table_id, seats in zip(ids, tables, strict=True):
        for number, (_user, token) in enumerate(seats):
            jobs.append(one(f"{base}/api/v1/tables/{table_id}/stream", token, (table_id, number)))
            jobs.append(one(f"{base}/api/v1/stream/events", token, None))
    tasks = list(await asyncio.gather(*jobs))
    until = time.monotonic() + 120
    while seen.first < len(tasks) and time.monotonic() < until:
        await asyncio.sleep(0.2)
    if seen.first < len(tasks):
        raise RuntimeError(f"only {seen.first} of {len(tasks)} streams sent a first line")
    return tasks


@dataclass
class Block:
    streams: bool
    moves: int = 0
    cpu: float = 0.0
    wall: float = 0.0
    answer: list[float] = field(default_factory=list)  # send -> answer, s
    to_line: list[float] = field(default_factory=list)  # send -> a stream's line, s
    after_answer: list[float] = field(default_factory=list)  # answer -> a stream's line, s
    turn_lines: list[float] = field(default_factory=list)  # send -> the turn event, s
    # (table, seq, the lines' arrivals): the move's row was written just before its
    # commit, so a line's arrival minus the row's ``created_at`` bounds commit -> line
    # from above without the request's way to the server (the same machine's clock).
    arrivals: list[tuple[int, int, list[float]]] = field(default_factory=list)
    written_to_line: list[float] = field(default_factory=list)  # move written -> line, s
    missing: int = 0

    def reset(self) -> None:
        """Forget what was counted so far (the warm-up moves)."""
        self.moves, self.cpu, self.wall, self.missing = 0, 0.0, 0.0, 0
        for values in (self.answer, self.to_line, self.after_answer, self.turn_lines):
            values.clear()
        self.arrivals.clear()

    def written(self) -> None:
        """Fill ``written_to_line`` from the moves' rows (one query, after the block)."""
        from games.models import Move

        keys = {(table, seq): at for table, seq, at in self.arrivals}
        rows = Move.objects.filter(
            table_id__in={table for table, _ in keys}, seq__in={seq for _, seq in keys}
        ).values_list("table_id", "seq", "created_at")
        for table, seq, created in rows:
            for at in keys.get((table, seq), ()):
                self.written_to_line.append(at - created.timestamp())


def _action(view: dict[str, Any]) -> dict[str, Any] | None:
    legal = (view.get("game") or {}).get("legal_actions") or []
    if not legal:
        return None
    choice = legal[0]
    action: dict[str, Any] = {"type": choice["type"], "expected_seq": view["seq"]}
    if "card" in choice:
        action["card"] = choice["card"]
    if "colors" in choice:
        action["color"] = choice["colors"][0]
    return action


async def _api_views(
    session: Any, base: str, tables: list[list[tuple[int, str]]], ids: list[int], indices: range
) -> dict[tuple[int, int], dict[str, Any]]:
    """Every seat's view of the tables ``indices`` from the API (for a block without
    streams, read before its CPU is measured: each table gets one move a block at most)."""
    views: dict[tuple[int, int], dict[str, Any]] = {}
    for index in indices:
        table_id = ids[index % len(ids)]
        for number, (_user, token) in enumerate(tables[index % len(ids)]):
            url = f"{base}/api/v1/tables/{table_id}/view/"
            async with session.get(url, headers={"Authorization": f"Token {token}"}) as got:
                views[(table_id, number)] = await got.json()
    return views


def _acting(
    views: dict[tuple[int, int], dict[str, Any]], table_id: int, seats: int
) -> tuple[int, dict[str, Any]]:
    """The acting seat and its view."""
    for number in range(seats):
        view = views[(table_id, number)]
        if _action(view) is not None:
            return number, view
    raise RuntimeError(f"nobody may act at table {table_id}")


@dataclass
class Ctx:
    """The run's fixed parts: the client session, the server, its tables."""

    session: Any
    base: str
    pid: int
    tables: list[list[tuple[int, str]]]
    ids: list[int]
    gap: float
    warmup: int


async def _moves(ctx: Ctx, block: Block, count: int, start: int, seen: Seen | None) -> None:
    session, base, pid, tables, ids, gap = (
        ctx.session,
        ctx.base,
        ctx.pid,
        ctx.tables,
        ctx.ids,
        ctx.gap,
    )
    streams_at_table = len(tables[0])
    if count > len(ids):
        raise SystemExit("--moves / --blocks must not exceed --tables (one move a table a block)")
    views = (
        seen.views
        if seen is not None
        else await _api_views(session, base, tables, ids, range(start, start + count))
    )
    cpu0, wall0 = _cpu(pid), time.monotonic()
    for k in range(count):
        if k == ctx.warmup:  # the block's first moves warm up (connections): not counted
            block.reset()
            cpu0, wall0 = _cpu(pid), time.monotonic()
        index = (start + k) % len(ids)
        table_id, seats = ids[index], tables[index]
        seat, view = _acting(views, table_id, len(seats))
        token = seats[seat][1]
        body = _action(view)
        url = f"{base}/api/v1/tables/{table_id}/actions/"
        sent = time.time()
        async with session.post(
            url, json=body, headers={"Authorization": f"Token {token}"}
        ) as answer:
            got = await answer.json()
            answered = time.time()
            if answer.status != 201:
                raise RuntimeError(f"move refused: {answer.status} {got}")
        block.moves += 1
        block.answer.append(answered - sent)
        version = got["seq"]
        if seen is not None:
            until = time.monotonic() + 10
            while (
                len(seen.changes.get((table_id, version), ())) < streams_at_table
                and time.monotonic() < until
            ):
                await asyncio.sleep(0.002)
            arrivals = seen.changes.get((table_id, version), [])
            block.missing += streams_at_table - len(arrivals)
            block.to_line += [at - sent for at in arrivals]
            block.after_answer += [at - answered for at in arrivals]
            block.arrivals.append((table_id, version, list(arrivals)))
            block.turn_lines += [at - sent for at in seen.turns.get((table_id, version), [])]
        await asyncio.sleep(gap)
    block.cpu += _cpu(pid) - cpu0
    block.wall += time.monotonic() - wall0
    if seen is not None:
        await asyncio.to_thread(block.written)


def _ms(values: list[float]) -> str:
    if not values:
        return "none"
    return (
        f"median {1000 * statistics.median(values):.1f} ms, p99 "
        f"{1000 * _percentile(values, 0.99):.1f} ms, max {1000 * max(values):.1f} ms"
        f" ({len(values)} lines)"
    )


async def _run(args: argparse.Namespace, port: int, pid: int, tables: Any, ids: list[int]) -> None:
    import aiohttp

    base = f"http://127.0.0.1:{port}"
    timeout = aiohttp.ClientTimeout(total=None, sock_read=None)
    connector = aiohttp.TCPConnector(limit=0, force_close=False)
    async with aiohttp.ClientSession(timeout=timeout, connector=connector) as session:
        ctx = Ctx(session, base, pid, tables, ids, args.gap, args.warmup)
        blocks: list[Block] = []
        start = 0
        per_block = max(1, args.moves // args.blocks) + args.warmup
        rest_reported = False
        rest_rate = 0.0  # the server's CPU seconds a second at rest with the streams open
        for b in range(args.blocks):
            streams = b % 2 == 0
            block = Block(streams)
            seen: Seen | None = None
            tasks: list[asyncio.Task[None]] = []
            if streams:
                seen = Seen()
                opened = time.monotonic()
                tasks = await _open_all(session, base, tables, ids, seen)
                print(f"block {b}: {len(tasks)} streams open in {time.monotonic() - opened:.1f} s")
                await asyncio.sleep(3)  # the openings' work settles
                if not rest_reported:
                    rest_reported = True
                    keep0, parts0, wall0 = seen.keepalives, _cpu_parts(pid), time.monotonic()
                    load0 = os.getloadavg()[0]
                    await asyncio.sleep(args.rest)
                    wall = time.monotonic() - wall0
                    user, system = (b - a for a, b in zip(parts0, _cpu_parts(pid), strict=True))
                    cpu = user + system
                    keep = seen.keepalives - keep0
                    rest_rate = cpu / wall
                    print(
                        f"at rest with {len(tasks)} streams: {args.server} CPU "
                        f"{100 * cpu / wall:.2f} % of a core over {wall:.0f} s "
                        f"(user {100 * user / wall:.2f} %, system {100 * system / wall:.2f} %); "
                        f"keep-alive lines {keep} ({keep / wall:.0f}/s); "
                        f"load before {load0:.2f}, after {os.getloadavg()[0]:.2f}"
                    )
            await _moves(ctx, block, per_block, start, seen)
            start += per_block
            blocks.append(block)
            if seen is not None:
                if seen.errors:
                    print("unexpected:", seen.errors[:5])
                for task in tasks:
                    task.cancel()
                await asyncio.gather(*tasks, return_exceptions=True)
                # The closed connections' streams end on the server meanwhile.
                await asyncio.sleep(3)
            busy = block.wall - block.moves * args.gap
            print(
                f"block {b} ({'streams open' if streams else 'no stream'}): {block.moves} moves, "
                f"{args.server} CPU {1000 * block.cpu / block.moves:.1f} ms a move "
                f"({100 * block.cpu / block.wall:.1f} % of a core over {block.wall:.0f} s, "
                f"{busy:.0f} s of it not sleeping); answer {_ms(block.answer)}"
            )
            if streams:
                print(f"  send -> table stream line: {_ms(block.to_line)}; missing {block.missing}")
                print(f"  answer -> table stream line: {_ms(block.after_answer)}")
                print(f"  move written -> table stream line: {_ms(block.written_to_line)}")
                print(f"  send -> turn event line: {_ms(block.turn_lines)}")
        with_streams = [b for b in blocks if b.streams]
        without = [b for b in blocks if not b.streams]
        if with_streams and without:
            lines = [v for b in with_streams for v in b.to_line]
            written = [v for b in with_streams for v in b.written_to_line]
            turns = [v for b in with_streams for v in b.turn_lines]
            moves_with = sum(b.moves for b in with_streams)
            cpu_with = sum(b.cpu for b in with_streams) / moves_with
            # What the open streams cost anyway over the blocks' time (keep-alives): not the moves'.
            resting = rest_rate * sum(b.wall for b in with_streams) / moves_with
            cpu_without = sum(b.cpu for b in without) / sum(b.moves for b in without)
            print(
                f"SUMMARY: send -> table stream line {_ms(lines)}; send -> turn event {_ms(turns)}"
            )
            print(f"SUMMARY: move written (just before its commit) -> line {_ms(written)}")
            print(
                f"SUMMARY: {args.server} CPU a move {1000 * cpu_with:.1f} ms "
                "with the streams open, "
                f"{1000 * cpu_without:.1f} ms with none (anchor), "
                f"+{1000 * (cpu_with - cpu_without):.1f} ms for the streams "
                f"({1000 * (cpu_with - resting - cpu_without):.1f} ms net of their CPU at rest)"
            )


def _server_command(server: str, port: int) -> list[str]:
    """The web process's command line: daphne, or uvicorn on uvloop and httptools."""
    if server == "uvicorn":
        return [
            *(str(Path(sys.executable)), "-m", "uvicorn"),
            *("--host", "127.0.0.1", "--port", str(port), "--loop", "uvloop"),
            *("--http", "httptools", "--no-access-log", "--lifespan", "off"),
            "gamenook.asgi:application",
        ]
    daphne = str(Path(sys.executable).parent / "daphne")
    return [daphne, "-b", "127.0.0.1", "-p", str(port), "gamenook.asgi:application"]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    server_arguments(parser, "streams", broker_db=10)
    parser.add_argument("--tables", type=int, default=250)
    parser.add_argument("--seats", type=int, default=4)
    parser.add_argument("--rest", type=float, default=60, help="seconds at rest")
    parser.add_argument("--moves", type=int, default=300, help="moves with the streams open")
    parser.add_argument("--blocks", type=int, default=4, help="alternated blocks (open, none)")
    parser.add_argument("--gap", type=float, default=0.2, help="seconds between moves")
    parser.add_argument(
        "--warmup", type=int, default=1, help="moves a block first makes and does not count"
    )
    parser.add_argument("--profile", default="", help="write the server's cProfile stats here")
    parser.add_argument(
        "--server", choices=["uvicorn", "daphne"], default="uvicorn", help="the web process"
    )
    parser.add_argument(
        "--keepalive", type=float, default=None, help="GAMENOOK_STREAM_KEEPALIVE_SECONDS"
    )
    args = parser.parse_args(argv)
    if "bench" not in urlsplit(args.database_url).path:
        raise SystemExit("--database-url must name a scratch database containing 'bench'")
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    wanted = min(hard, 65536)
    if soft < wanted:
        resource.setrlimit(resource.RLIMIT_NOFILE, (wanted, hard))  # the server inherits it
    _redis_empty(args.broker)
    _redis_empty(args.channel_layer)
    _database(args.database_url)
    folder = Path(tempfile.mkdtemp(prefix="bench-streams-"))
    env = _env(args, folder)
    sys.path.insert(0, str(folder))  # the settings module, for this process too
    python = str(Path(sys.executable))
    subprocess.run([python, "manage.py", "migrate", "-v0"], cwd=ROOT, env=env, check=True)
    _setup_django(env)
    made = time.monotonic()
    tables = _setup(args.tables, args.seats)
    from games.models import Table

    ids = list(Table.objects.order_by("pk").values_list("pk", flat=True))
    print(f"{len(ids)} tables of {args.seats} made in {time.monotonic() - made:.0f} s")
    commit = subprocess.run(
        ["git", "rev-parse", "HEAD"], cwd=ROOT, capture_output=True, text=True, check=False
    ).stdout.strip()
    port = _free_port()
    procs = Processes()
    command = _server_command(args.server, port)
    if args.profile:  # the server under cProfile: its stats written when it stops
        script = command[1:] if command[1] == "-m" else command  # python -m uvicorn ...
        command = [python, "-m", "cProfile", "-o", args.profile, *script]
    procs.start(args.server, command, env, folder)
    try:
        _wait_for_port(port, procs, args.server)
        print(
            f"machine: {platform.node()} {os.cpu_count()} cores, python {platform.python_version()}"
        )
        print(f"commit {commit} (and the working tree), {time.strftime('%Y-%m-%d %H:%M %Z')}")
        asyncio.run(_run(args, port, procs.procs[args.server].pid, tables, ids))
        procs.check_alive(args.server)
    finally:
        procs.stop(args.server)
        _redis_emptied(args.broker)
        _redis_emptied(args.channel_layer)
    print(f"{args.server}'s log: {folder / (args.server + '.log')}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
