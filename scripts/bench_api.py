"""API load benchmark: the action endpoint beside a one-INSERT DRF endpoint, same run.

    .venv/bin/python scripts/bench_api.py [--seconds 20] [--clients 16] [--tables 64]

What it does, all on loopback and bounded in time:

1. (Re)creates the database ``--database`` (``gamenook_bench``; environment
   ``BENCH_API_DATABASE``) on the PostgreSQL server of ``--server-url``
   (``BENCH_PG``) and migrates it.
2. Starts gunicorn (``gamenook.settings.production``, DEBUG off, persistent
   database connections) on 127.0.0.1 with ``--workers`` workers, with
   ``GAMENOOK_BENCH_ENDPOINTS=true``, ``GAMENOOK_RUN_BOTS_INLINE=false`` and
   throttle rates high enough never to bite. Follow-up jobs (the "your turn"
   e-mails of the outbox) are queued on ``--broker`` as in production.
3. Over HTTP: registers ``--users`` users, takes their tokens, and opens
   ``--tables`` two-seat tables (host creates, guest joins, host starts).
4. Actions: ``--clients`` threads, each owning its share of the tables, play
   random legal actions for ``--seconds``: GET the view of the seat to act
   (skipped when the previous answer already is that seat's view), then POST
   the action with ``expected_seq``. Only the POSTs are timed. A finished
   game is replaced by a new table (not timed).
5. Baseline: the same number of threads POST ``/api/v1/bench/ping/`` (token
   authentication, one INSERT) for ``--seconds``.
6. Prints both: requests per second, p50, p95, p99 latency in ms, and the
   ratio of the rates; stops gunicorn; drops the database unless --keep-db.

The client runs on the same machine as the server and takes CPU from it; both
phases pay that, the action phase more (it also parses views).
"""

from __future__ import annotations

import argparse
import http.client
import json
import os
import platform
import random
import signal
import socket
import subprocess
import sys
import threading
import time
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

ROOT = Path(__file__).resolve().parent.parent
PYTHON = ROOT / ".venv" / "bin" / "python"
GUNICORN = ROOT / ".venv" / "bin" / "gunicorn"
PASSWORD = "bench-Passw0rd-not-common"


# ----------------------------------------------------------------------------
# HTTP client


class Api:
    """One keep-alive-if-possible connection per thread; JSON in, JSON out."""

    def __init__(self, port: int, token: str | None = None) -> None:
        self.port = port
        self.token = token
        self.conn = http.client.HTTPConnection("127.0.0.1", port, timeout=30)

    def call(
        self, method: str, path: str, body: Any = None, token: str | None = None
    ) -> tuple[int, Any]:
        headers = {"Accept": "application/json", "Host": "127.0.0.1"}
        token = token or self.token
        if token:
            headers["Authorization"] = f"Token {token}"
        data = None
        if body is not None:
            data = json.dumps(body).encode()
            headers["Content-Type"] = "application/json"
        for attempt in range(3):
            try:
                self.conn.request(method, path, body=data, headers=headers)
                response = self.conn.getresponse()
                raw = response.read()
                if response.will_close:
                    self.conn.close()
                break
            except (ConnectionError, http.client.HTTPException, TimeoutError):
                self.conn.close()
                if attempt == 2:
                    raise
        return response.status, (json.loads(raw) if raw else None)


def _expect(status: int, body: Any, wanted: int, what: str) -> Any:
    if status != wanted:
        raise RuntimeError(f"{what}: HTTP {status} {body!r}")
    return body


# ----------------------------------------------------------------------------
# The database and the server


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def _database(server_url: str, name: str, *, drop_only: bool = False) -> str:
    import psycopg

    with psycopg.connect(f"{server_url}/postgres", autocommit=True) as conn:
        conn.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
        if not drop_only:
            conn.execute(f'CREATE DATABASE "{name}"')
    return f"{server_url}/{name}"


def _server_env(database_url: str, broker: str) -> dict[str, str]:
    env = dict(os.environ)
    env.update(
        DJANGO_SETTINGS_MODULE="gamenook.settings.production",
        DJANGO_SECRET_KEY="bench-only-" + "x" * 50,
        DJANGO_ALLOWED_HOSTS="127.0.0.1,localhost",
        DJANGO_SECURE_SSL_REDIRECT="false",
        DJANGO_LOG_LEVEL="WARNING",
        DATABASE_URL=database_url,
        CELERY_BROKER_URL=broker,
        GAMENOOK_BENCH_ENDPOINTS="true",
        GAMENOOK_RUN_BOTS_INLINE="false",
        GAMENOOK_RATE_ACTIONS="100000000/minute",
        GAMENOOK_RATE_ACCOUNTS="100000000/minute",
        GAMENOOK_RATE_READS="100000000/minute",
        EMAIL_URL="consolemail://",
    )
    return env


def _start_gunicorn(
    env: dict[str, str], port: int, args: argparse.Namespace
) -> subprocess.Popen[bytes]:
    command = [
        str(GUNICORN),
        "gamenook.wsgi:application",
        "--bind",
        f"127.0.0.1:{port}",
        "--workers",
        str(args.workers),
        "--worker-class",
        args.worker_class,
        "--threads",
        str(args.threads),
        "--backlog",
        "2048",
        "--log-level",
        "warning",
        "--timeout",
        "60",
    ]
    log = open(args.server_log, "wb")  # noqa: SIM115 (kept open for the server's life)
    server = subprocess.Popen(
        command, cwd=ROOT, env=env, stdout=log, stderr=subprocess.STDOUT, start_new_session=True
    )
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        if server.poll() is not None:
            raise RuntimeError(f"gunicorn exited early; see {args.server_log}")
        try:
            status, _ = Api(port).call("GET", "/api/v1/schema/")
            if status == 200:
                return server
        except OSError:
            pass
        time.sleep(0.3)
    _stop(server)
    raise RuntimeError("gunicorn did not answer within 30 seconds")


def _stop(server: subprocess.Popen[bytes]) -> None:
    if server.poll() is None:
        os.killpg(server.pid, signal.SIGTERM)
        try:
            server.wait(timeout=20)
        except subprocess.TimeoutExpired:
            os.killpg(server.pid, signal.SIGKILL)
            server.wait()


# ----------------------------------------------------------------------------
# Setting up players and tables over HTTP


@dataclass
class Game:
    table: int
    tokens: list[str]  # by seat number
    view: dict[str, Any] | None = None  # the last view we hold ...
    view_seat: int | None = None  # ... and whose it is


def _register(port: int, names: list[str]) -> list[str]:
    api = Api(port)
    tokens = []
    for name in names:
        _expect(
            *api.call(
                "POST",
                "/api/v1/auth/register/",
                {"username": name, "email": f"{name}@bench.invalid", "password": PASSWORD},
            ),
            201,
            "register",
        )
        body = _expect(
            *api.call("POST", "/api/v1/auth/token/", {"username": name, "password": PASSWORD}),
            200,
            "token",
        )
        tokens.append(body["token"])
    return tokens


def _open_table(api: Api, host: str, guest: str) -> Game:
    table = _expect(
        *api.call(
            "POST",
            "/api/v1/tables/",
            {"seat_count": 2, "scoring": "target", "target": 1000},
            token=host,
        ),
        201,
        "create table",
    )
    table_id = int(table["id"])
    _expect(*api.call("POST", f"/api/v1/tables/{table_id}/join/", {}, token=guest), 201, "join")
    started = api.call("POST", f"/api/v1/tables/{table_id}/start/", {}, token=host)
    if started[0] not in (200, 201):
        raise RuntimeError(f"start: HTTP {started[0]} {started[1]!r}")
    return Game(table=table_id, tokens=[host, guest])


def _parallel(count: int, work: Any) -> list[Any]:
    results: list[Any] = [None] * count
    errors: list[BaseException] = []

    def run(i: int) -> None:
        try:
            results[i] = work(i)
        except BaseException as error:  # noqa: BLE001 (re-raised below)
            errors.append(error)

    threads = [threading.Thread(target=run, args=(i,)) for i in range(count)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    if errors:
        raise errors[0]
    return results


# ----------------------------------------------------------------------------
# The two phases


@dataclass
class Phase:
    latencies: list[float] = field(default_factory=list)
    ok: int = 0
    errors: dict[str, int] = field(default_factory=dict)
    reads: int = 0
    new_tables: int = 0
    elapsed: float = 0.0
    lock: threading.Lock = field(default_factory=threading.Lock)

    def merge(self, other: Phase) -> None:
        with self.lock:
            self.latencies.extend(other.latencies)
            self.ok += other.ok
            self.reads += other.reads
            self.new_tables += other.new_tables
            for key, value in other.errors.items():
                self.errors[key] = self.errors.get(key, 0) + value


def _choose(view: dict[str, Any], rng: random.Random) -> dict[str, Any]:
    legal = view["game"]["legal_actions"]
    pick = rng.choice(legal)
    body: dict[str, Any] = {"type": pick["type"], "expected_seq": view["seq"]}
    if "card" in pick:
        body["card"] = pick["card"]
    if pick.get("colors"):
        body["color"] = rng.choice(pick["colors"])
    return body


def _play(
    port: int, games: list[Game], pairs: list[tuple[str, str]], until: float, seed: int
) -> Phase:
    api = Api(port)
    rng = random.Random(seed)
    out = Phase()
    i = 0
    while time.monotonic() < until and games:
        game = games[i % len(games)]
        i += 1
        view = game.view
        to_act = None if view is None else view["game"]["to_act"]
        if view is None or to_act is None or game.view_seat != to_act:
            seat = 0 if to_act is None else to_act
            status, view = api.call(
                "GET", f"/api/v1/tables/{game.table}/view/", token=game.tokens[seat]
            )
            out.reads += 1
            if status != 200:
                out.errors[f"view {status}"] = out.errors.get(f"view {status}", 0) + 1
                continue
            assert view is not None
            if view["game"]["over"]:
                host, guest = pairs[rng.randrange(len(pairs))]
                games[games.index(game)] = _open_table(api, host, guest)
                out.new_tables += 1
                continue
            to_act = view["game"]["to_act"]
            if to_act != seat:
                game.view, game.view_seat = view, seat
                continue
            game.view, game.view_seat = view, seat
        body = _choose(view, rng)
        started = time.perf_counter()
        status, answer = api.call(
            "POST", f"/api/v1/tables/{game.table}/actions/", body, token=game.tokens[to_act]
        )
        elapsed = time.perf_counter() - started
        if status == 201:
            out.ok += 1
            out.latencies.append(elapsed)
            game.view, game.view_seat = answer["view"], to_act
        else:
            key = f"action {status} {answer.get('code') if isinstance(answer, dict) else ''}"
            out.errors[key] = out.errors.get(key, 0) + 1
            game.view = None
    return out


def _ping(port: int, token: str, until: float) -> Phase:
    api = Api(port, token)
    out = Phase()
    while time.monotonic() < until:
        started = time.perf_counter()
        status, _ = api.call("POST", "/api/v1/bench/ping/", {})
        elapsed = time.perf_counter() - started
        if status == 201:
            out.ok += 1
            out.latencies.append(elapsed)
        else:
            out.errors[f"ping {status}"] = out.errors.get(f"ping {status}", 0) + 1
    return out


def _run_phase(clients: int, seconds: float, work: Any) -> Phase:
    total = Phase()
    until = time.monotonic() + seconds
    started = time.monotonic()
    _parallel(clients, lambda i: total.merge(work(i, until)))
    total.elapsed = time.monotonic() - started
    return total


def _percentile(sorted_values: list[float], p: float) -> float:
    if not sorted_values:
        return float("nan")
    rank = max(0, min(len(sorted_values) - 1, round(p / 100 * len(sorted_values) + 0.5) - 1))
    return sorted_values[rank]


def _figures(phase: Phase) -> dict[str, Any]:
    values = sorted(phase.latencies)
    return {
        "requests": phase.ok,
        "seconds": round(phase.elapsed, 2),
        "per_second": round(phase.ok / phase.elapsed, 1) if phase.elapsed else 0.0,
        "p50_ms": round(_percentile(values, 50) * 1000, 2),
        "p95_ms": round(_percentile(values, 95) * 1000, 2),
        "p99_ms": round(_percentile(values, 99) * 1000, 2),
        "errors": dict(phase.errors),
    }


# ----------------------------------------------------------------------------


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--seconds", type=float, default=20.0, help="length of each phase")
    parser.add_argument("--warmup", type=float, default=3.0, help="untimed run before each phase")
    parser.add_argument("--clients", type=int, default=16, help="concurrent client threads")
    parser.add_argument("--tables", type=int, default=64, help="two-seat tables played at once")
    parser.add_argument("--users", type=int, default=16, help="players (each sits at many tables)")
    parser.add_argument("--workers", type=int, default=4, help="gunicorn workers")
    parser.add_argument("--worker-class", default="sync", help="gunicorn worker class")
    parser.add_argument("--threads", type=int, default=1, help="threads per gunicorn worker")
    # Which servers and which databases: flags, else the environment, else these.
    parser.add_argument(
        "--server-url", default=os.environ.get("BENCH_PG", "postgres://postgres@127.0.0.1:5432")
    )
    parser.add_argument(
        "--database", default=os.environ.get("BENCH_API_DATABASE", "gamenook_bench")
    )
    parser.add_argument(
        "--broker", default=os.environ.get("BENCH_API_BROKER_URL", "redis://127.0.0.1:6379/15")
    )
    parser.add_argument("--server-log", default="/tmp/gamenook-bench-gunicorn.log")
    parser.add_argument("--keep-db", action="store_true", help="keep the database afterwards")
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args(argv)
    if args.users < 2 or args.users % 2:
        parser.error("--users must be an even number, at least 2")
    if args.tables < args.clients:
        parser.error("--tables must be at least --clients (each client owns its tables)")

    # The follow-up jobs pile up unworked in the broker; the run empties its
    # database afterwards, so it must be one nothing else uses.
    if not _broker_is_empty(args.broker):
        parser.error(f"the broker {args.broker} is not empty: pass an unused Redis database")
    print(f"database {args.database}: creating and migrating", file=sys.stderr)
    database_url = _database(args.server_url, args.database)
    env = _server_env(database_url, args.broker)
    subprocess.run(
        [str(PYTHON), "manage.py", "migrate", "--noinput", "-v", "0"], cwd=ROOT, env=env, check=True
    )
    port = _free_port()
    server = _start_gunicorn(env, port, args)
    try:
        print(f"gunicorn on 127.0.0.1:{port}; setting up players", file=sys.stderr)
        stamp = int(time.time())
        names = [f"bench{stamp}u{i}" for i in range(args.users)]
        share = (len(names) + args.clients - 1) // args.clients
        chunks = [names[i : i + share] for i in range(0, len(names), share)]
        tokens = [
            t for part in _parallel(len(chunks), lambda i: _register(port, chunks[i])) for t in part
        ]
        pairs = [(tokens[i], tokens[i + 1]) for i in range(0, len(tokens), 2)]
        pairs += [(guest, host) for host, guest in pairs]

        print(f"opening {args.tables} tables", file=sys.stderr)
        per_client: list[list[Game]] = [[] for _ in range(args.clients)]

        def open_some(c: int) -> None:
            api = Api(port)
            for t in range(c, args.tables, args.clients):
                host, guest = pairs[t % len(pairs)]
                per_client[c].append(_open_table(api, host, guest))

        _parallel(args.clients, open_some)

        def actions(i: int, until: float) -> Phase:
            return _play(port, per_client[i], pairs, until, args.seed * 1000 + i)

        def pings(i: int, until: float) -> Phase:
            return _ping(port, tokens[i % len(tokens)], until)

        print(f"actions: warm-up {args.warmup}s, then {args.seconds}s", file=sys.stderr)
        _run_phase(args.clients, args.warmup, actions)
        action_phase = _run_phase(args.clients, args.seconds, actions)
        print(f"ping: warm-up {args.warmup}s, then {args.seconds}s", file=sys.stderr)
        _run_phase(args.clients, args.warmup, pings)
        ping_phase = _run_phase(args.clients, args.seconds, pings)
    finally:
        _stop(server)
        if not args.keep_db:
            _database(args.server_url, args.database, drop_only=True)
        _purge_broker(args.broker)

    action = _figures(action_phase)
    action["view_reads"] = action_phase.reads
    action["tables_replaced"] = action_phase.new_tables
    ping = _figures(ping_phase)
    ratio = action["per_second"] / ping["per_second"] if ping["per_second"] else 0.0
    summary = {
        "date": datetime.now(UTC).strftime("%Y-%m-%d %H:%M UTC"),
        "machine": f"{os.cpu_count()} cores, {platform.system()} {platform.machine()}, "
        f"Python {platform.python_version()}",
        "server": f"gunicorn {args.worker_class}, {args.workers} workers x {args.threads} threads",
        "clients": args.clients,
        "tables": args.tables,
        "seconds": args.seconds,
        "action": action,
        "ping": ping,
        "ratio": round(ratio, 3),
    }
    print(json.dumps(summary, indent=2))
    print()
    print(f"{'endpoint':<36}{'req/s':>9}{'p50 ms':>9}{'p95 ms':>9}{'p99 ms':>9}")
    for label, figures in (
        ("POST /api/v1/tables/{id}/actions/", action),
        ("POST /api/v1/bench/ping/", ping),
    ):
        print(
            f"{label:<36}{figures['per_second']:>9.1f}{figures['p50_ms']:>9.2f}"
            f"{figures['p95_ms']:>9.2f}{figures['p99_ms']:>9.2f}"
        )
    print(f"ratio actions/ping: {ratio:.3f} (aim: at least 0.5)")
    return 0


def _redis(broker: str) -> Any:
    parts = urlsplit(broker)
    if parts.scheme != "redis":
        return None
    import redis

    db = int((parts.path or "/0").lstrip("/") or 0)
    return redis.Redis(host=parts.hostname or "127.0.0.1", port=parts.port or 6379, db=db)


def _broker_is_empty(broker: str) -> bool:
    client = _redis(broker)
    return client is None or client.dbsize() == 0


def _purge_broker(broker: str) -> None:
    """Drop the jobs this run queued (no worker is meant to take them)."""
    try:
        client = _redis(broker)
        if client is not None:
            client.flushdb()
    except Exception as error:  # noqa: BLE001 (cleanup is best effort)
        print(f"could not purge the broker {broker}: {error}", file=sys.stderr)


if __name__ == "__main__":
    sys.exit(main())
