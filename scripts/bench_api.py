"""API load benchmark: the action endpoint beside a one-INSERT DRF endpoint, same run.

    .venv/bin/python scripts/bench_api.py [--seconds 10] [--rounds 3] [--clients 16] [--tables 64]

What it does, all on loopback and bounded in time:

1. (Re)creates the database ``--database`` (``gamenook_bench``; environment
   ``BENCH_API_DATABASE``) on the PostgreSQL server of ``--server-url``
   (``BENCH_PG``) and migrates it.
2. Starts gunicorn (``gamenook.settings.production``, DEBUG off, persistent
   database connections) on 127.0.0.1 with ``--workers`` workers, with
   ``GAMENOOK_BENCH_ENDPOINTS=true``, ``GAMENOOK_RUN_BOTS_INLINE=false`` and
   throttle rates high enough never to bite. Follow-up jobs (the "your turn"
   e-mails of the outbox) are queued on ``--broker`` (``BENCH_API_BROKER_URL``)
   as in production.
3. Over HTTP: registers ``--users`` users, takes their tokens, and opens
   ``--tables`` two-seat tables (host creates, guest joins, host starts), and
   one more per client for the bare transaction.
4. Three phases, alternated ``--rounds`` times, each ``--seconds`` long with
   ``--clients`` threads (each phase has an untimed warm-up first):

   - actions: each thread, owning its share of the tables, plays random legal
     actions: GET the view of the seat to act (skipped when the previous
     answer already is that seat's view: the answer to an action carries the
     acting seat's new view), then POST the action with ``expected_seq``.
     Only the POSTs are timed; the GETs are counted. A finished game is
     replaced by a new table (not timed).
   - ping: ``POST /api/v1/bench/ping/`` (token authentication, one INSERT).
   - bare transaction: ``POST /api/v1/bench/transaction/{id}/`` (token
     authentication and an action's transaction alone: lock, INSERT, UPDATE
     of a real snapshot), each thread at its own table: the limit.
5. Prints per round and phase requests per second, p50, p95, p99 latency in
   ms, and the ratios to the ping of the same round; then min, median and max
   of each ratio over the rounds, ending with ``ratio actions/ping: R`` (the
   median); stops gunicorn; drops the database unless --keep-db.

The client runs on the same machine as the server and takes CPU from it; every
phase pays that, the action phase more (it also parses views).
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
import statistics
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
        self,
        method: str,
        path: str,
        body: Any = None,
        token: str | None = None,
        extra: dict[str, str] | None = None,
    ) -> tuple[int, Any]:
        headers = {"Accept": "application/json", "Host": "127.0.0.1", **(extra or {})}
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
        # The real-time push (live.receivers) on the same Redis database, never the
        # production default's.
        CHANNEL_LAYER_URL=broker,
        GAMENOOK_BENCH_ENDPOINTS="true",
        GAMENOOK_RUN_BOTS_INLINE="false",
        GAMENOOK_RATE_ACTIONS="100000000/minute",
        GAMENOOK_RATE_ACCOUNTS="100000000/minute",
        GAMENOOK_RATE_READS="100000000/minute",
        EMAIL_URL="consolemail://",
        # Connections held for the whole run. The CPU meter reads each PostgreSQL
        # backend's CPU from /proc; a backend that closes mid-phase (production's
        # CONN_MAX_AGE of 60 s) takes its CPU in that phase with it.
        CONN_MAX_AGE="86400",
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


def _start_daphne(
    env: dict[str, str], port: int, args: argparse.Namespace
) -> subprocess.Popen[bytes]:
    """One daphne (``--views socket``): the WebSockets, on the same settings and Redis."""
    command = [str(ROOT / ".venv" / "bin" / "daphne"), "-b", "127.0.0.1", "-p", str(port)]
    log = open(args.server_log + ".daphne", "wb")  # noqa: SIM115 (kept open for its life)
    daphne = subprocess.Popen(
        [*command, "gamenook.asgi:application"],
        cwd=ROOT,
        env=env,
        stdout=log,
        stderr=subprocess.STDOUT,
        start_new_session=True,
    )
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        if daphne.poll() is not None:
            raise RuntimeError(f"daphne exited early; see {args.server_log}.daphne")
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=1):
                return daphne
        except OSError:
            time.sleep(0.3)
    _stop(daphne)
    raise RuntimeError("daphne did not listen within 60 seconds")


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
    sockets: list[Any] = field(default_factory=list)  # --views socket: one per seat
    socket_ids: list[str] = field(default_factory=list)  # ... and each one's hello
    seq: int = 0  # the table's seq after our last action


class Sockets:
    """``--views socket``: each seat's view learnt from the table's WebSocket, never by GET.

    One socket per seat at each table (``/ws/tables/{id}/``, the seat's token),
    opened when the table is; a seat's view is the newest ``view`` frame its
    socket has brought, waited for until it shows at least the table's last
    known seq. An action names the acting seat's socket (``X-Gamenook-Socket``,
    from its hello frame), so that socket is not sent the view the answer
    carried; with ``named=False`` it is, and the frames are read and dropped the
    next time that seat needs one.
    """

    def __init__(self, port: int, *, named: bool = True) -> None:
        self.port = port
        self.named = named

    def open(self, game: Game) -> None:
        from websockets.sync.client import connect

        for token in game.tokens:
            conn = connect(
                f"ws://127.0.0.1:{self.port}/ws/tables/{game.table}/",
                additional_headers={"Authorization": f"Token {token}"},
                max_size=2**22,
                open_timeout=30,
                legacy=True,  # held open across the run, not in a with block
            )
            hello = json.loads(conn.recv(timeout=30))
            if hello.get("type") != "hello":
                raise RuntimeError(f"a socket's first frame was not its hello: {hello!r}")
            game.sockets.append(conn)
            game.socket_ids.append(hello["socket"])

    @staticmethod
    def close(game: Game) -> None:
        for conn in game.sockets:
            conn.close()
        game.sockets, game.socket_ids = [], []

    def header(self, game: Game, seat: int) -> dict[str, str] | None:
        """The header that names ``seat``'s socket in its action, if actions name it."""
        if not self.named or not game.socket_ids:
            return None
        return {"X-Gamenook-Socket": game.socket_ids[seat]}

    @staticmethod
    def view(game: Game, seat: int, out: Phase) -> dict[str, Any] | None:
        """The newest view of ``seat`` its socket brought, at least at ``game.seq``."""
        conn = game.sockets[seat]
        newest: dict[str, Any] | None = None
        deadline = time.monotonic() + 30
        while True:
            waiting = newest is None or newest["seq"] < game.seq
            try:
                raw = conn.recv(timeout=max(0.0, deadline - time.monotonic()) if waiting else 0)
            except TimeoutError:
                if waiting:
                    out.errors["socket timeout"] = out.errors.get("socket timeout", 0) + 1
                    return None
                return newest
            frame = json.loads(raw)
            out.frames += 1
            if frame.get("type") == "view":
                newest = frame["view"]


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
    frames: int = 0  # --views socket: the frames the sockets brought
    new_tables: int = 0
    ended: int = 0  # server processes (PostgreSQL backends) that ended during the phase
    elapsed: float = 0.0
    server_cpu: float = float("nan")  # seconds: gunicorn's workers and their backends
    client_cpu: float = float("nan")  # seconds: this process
    cpu_by_kind: dict[str, float] = field(default_factory=dict)  # server CPU by process kind
    lock: threading.Lock = field(default_factory=threading.Lock)

    def merge(self, other: Phase) -> None:
        with self.lock:
            self.latencies.extend(other.latencies)
            self.ok += other.ok
            self.reads += other.reads
            self.frames += other.frames
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
    port: int,
    games: list[Game],
    pairs: list[tuple[str, str]],
    until: float,
    seed: int,
    sockets: Sockets | None = None,
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
            if sockets is not None and game.sockets:
                view = sockets.view(game, seat, out)
                if view is None:
                    continue
            else:
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
                fresh = _open_table(api, host, guest)
                if sockets is not None:
                    sockets.close(game)
                    sockets.open(fresh)
                games[games.index(game)] = fresh
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
            "POST",
            f"/api/v1/tables/{game.table}/actions/",
            body,
            token=game.tokens[to_act],
            extra=None if sockets is None else sockets.header(game, to_act),
        )
        elapsed = time.perf_counter() - started
        if status == 201:
            out.ok += 1
            out.latencies.append(elapsed)
            game.view, game.view_seat = answer["view"], to_act
            game.seq = answer["view"]["seq"]
        else:
            key = f"action {status} {answer.get('code') if isinstance(answer, dict) else ''}"
            out.errors[key] = out.errors.get(key, 0) + 1
            game.view = None
    return out


def _ping(port: int, token: str, until: float, path: str = "/api/v1/bench/ping/") -> Phase:
    api = Api(port, token)
    out = Phase()
    while time.monotonic() < until:
        started = time.perf_counter()
        status, _ = api.call("POST", path, {})
        elapsed = time.perf_counter() - started
        if status == 201:
            out.ok += 1
            out.latencies.append(elapsed)
        else:
            out.errors[f"{path} {status}"] = out.errors.get(f"{path} {status}", 0) + 1
    return out


class CpuMeter:
    """CPU seconds the server side spent: gunicorn's workers and the bench database's backends.

    Read from /proc (Linux), so the figure per request does not depend on
    what else the machine runs, unlike requests a second. The client (this
    process) is measured apart; Redis is not counted (it serves others too).
    """

    def __init__(
        self, server_pid: int, server_url: str, database: str, others: tuple[int, ...] = ()
    ) -> None:
        self.server_pid = server_pid
        self.others = others  # more server processes (daphne)
        self.kinds: dict[int, str] = {}
        self.server_url = server_url
        self.database = database
        self.tick = os.sysconf("SC_CLK_TCK") if hasattr(os, "sysconf") else 100

    def _pids(self) -> tuple[list[int], list[int]]:
        import psycopg

        path = Path(f"/proc/{self.server_pid}/task/{self.server_pid}/children")
        workers = [int(p) for p in path.read_text().split()] if path.exists() else []
        with psycopg.connect(f"{self.server_url}/postgres", autocommit=True) as conn:
            rows = conn.execute(
                "SELECT pid FROM pg_stat_activity WHERE datname = %s", (self.database,)
            ).fetchall()
        return [*workers, *self.others], [int(row[0]) for row in rows]

    def _cpu(self, pid: int) -> float:
        try:
            fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
        except OSError:
            return 0.0
        return (int(fields[11]) + int(fields[12])) / self.tick  # utime + stime

    def read(self) -> dict[int, float]:
        if not Path("/proc/self/stat").exists():
            return {}
        workers, backends = self._pids()
        self.kinds.update({pid: "postgres" for pid in backends})
        self.kinds.update({pid: "daphne" if pid in self.others else "gunicorn" for pid in workers})
        return {pid: self._cpu(pid) for pid in (*workers, *backends)}

    def by_kind(self, spent: dict[int, float]) -> dict[str, float]:
        """CPU seconds by kind of process: gunicorn, daphne, postgres."""
        out: dict[str, float] = {}
        for pid, cpu in spent.items():
            kind = self.kinds.get(pid, "other")
            out[kind] = out.get(kind, 0.0) + cpu
        return out


def _run_phase(clients: int, seconds: float, work: Any, meter: CpuMeter | None = None) -> Phase:
    total = Phase()
    until = time.monotonic() + seconds
    before = meter.read() if meter else {}
    client_before = time.process_time()
    started = time.monotonic()
    _parallel(clients, lambda i: total.merge(work(i, until)))
    total.elapsed = time.monotonic() - started
    total.client_cpu = time.process_time() - client_before
    if meter:
        after = meter.read()
        # A process that began during the phase counts from zero.
        spent = {pid: cpu - before.get(pid, 0.0) for pid, cpu in after.items()}
        # One that ended took its CPU in this phase with it: the phase's figure is short.
        total.ended = len(before.keys() - after.keys())
        total.server_cpu = sum(spent.values())
        total.cpu_by_kind = meter.by_kind(spent)
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
        "server_processes_ended": phase.ended,
        # CPU milliseconds per counted request (a POST; an action's view reads included).
        "server_cpu_ms": round(phase.server_cpu / phase.ok * 1000, 3) if phase.ok else None,
        "client_cpu_ms": round(phase.client_cpu / phase.ok * 1000, 3) if phase.ok else None,
        "server_cpu_ms_by_process": {
            kind: round(cpu / phase.ok * 1000, 3) for kind, cpu in phase.cpu_by_kind.items()
        }
        if phase.ok
        else {},
    }


def _spread(values: list[float]) -> str:
    return f"min {min(values):.3f}, median {statistics.median(values):.3f}, max {max(values):.3f}"


# ----------------------------------------------------------------------------


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--seconds", type=float, default=10.0, help="length of each phase")
    parser.add_argument("--rounds", type=int, default=3, help="times the phases alternate")
    parser.add_argument("--warmup", type=float, default=3.0, help="untimed run of each phase")
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
    parser.add_argument(
        "--views",
        choices=["get", "socket", "socket-unnamed"],
        default="get",
        help="how a client learns the view of the seat to act: GET it (the default), or "
        "from the seat's WebSocket (a daphne process beside gunicorn, its CPU counted); "
        "socket: an action names the acting seat's socket (X-Gamenook-Socket), which is "
        "then not pushed the view its answer carried; socket-unnamed: it does not",
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
    daphne: subprocess.Popen[bytes] | None = None
    sockets: Sockets | None = None
    try:
        if args.views != "get":
            ws_port = _free_port()
            daphne = _start_daphne(env, ws_port, args)
            sockets = Sockets(ws_port, named=args.views == "socket")
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
        if sockets is not None:
            print("opening each seat's socket", file=sys.stderr)
            _parallel(args.clients, lambda c: [sockets.open(game) for game in per_client[c]])

        # The bare transaction's tables: one per client, never played.
        bare_tables = _parallel(
            args.clients,
            lambda c: _open_table(Api(port), *pairs[c % len(pairs)]),
        )

        def actions(i: int, until: float) -> Phase:
            return _play(port, per_client[i], pairs, until, args.seed * 1000 + i, sockets)

        def pings(i: int, until: float) -> Phase:
            return _ping(port, tokens[i % len(tokens)], until)

        def bare(i: int, until: float) -> Phase:
            game = bare_tables[i]
            path = f"/api/v1/bench/transaction/{game.table}/"
            return _ping(port, game.tokens[0], until, path)

        phases = {"actions": actions, "ping": pings, "bare": bare}
        meter = CpuMeter(
            server.pid, args.server_url, args.database, () if daphne is None else (daphne.pid,)
        )
        for name, work in phases.items():
            print(f"{name}: warm-up {args.warmup}s", file=sys.stderr)
            _run_phase(args.clients, args.warmup, work)
        rounds: list[dict[str, Phase]] = []
        for number in range(1, args.rounds + 1):
            measured = {}
            for name, work in phases.items():
                print(f"round {number}: {name} {args.seconds}s", file=sys.stderr)
                measured[name] = _run_phase(args.clients, args.seconds, work, meter)
            rounds.append(measured)
    finally:
        _stop(server)
        if daphne is not None:
            _stop(daphne)
        if not args.keep_db:
            _database(args.server_url, args.database, drop_only=True)
        _purge_broker(args.broker)
    return _report(args, rounds)


_LABELS = {
    "actions": "POST /api/v1/tables/{id}/actions/",
    "game": "  with the view reads (GET + POST)",
    "ping": "POST /api/v1/bench/ping/",
    "bare": "POST /api/v1/bench/transaction/{id}/",
}


def _report(args: argparse.Namespace, rounds: list[dict[str, Phase]]) -> int:
    summary_rounds = []
    ratios: dict[str, list[float]] = {"actions": [], "game": [], "bare": []}
    # The same ratios from server CPU per request: what the rates would be on a machine
    # the server had to itself (gunicorn and PostgreSQL are CPU-bound here).
    by_cpu: dict[str, list[float]] = {"actions": [], "bare": []}
    for measured in rounds:
        figures = {name: _figures(phase) for name, phase in measured.items()}
        action_phase = measured["actions"]
        figures["actions"]["view_reads"] = action_phase.reads
        figures["actions"]["socket_frames"] = action_phase.frames
        figures["actions"]["tables_replaced"] = action_phase.new_tables
        game_rate = (action_phase.ok + action_phase.reads) / action_phase.elapsed
        figures["actions"]["game_requests_per_second"] = round(game_rate, 1)
        ping = figures["ping"]["per_second"] or float("nan")
        ratios["actions"].append(figures["actions"]["per_second"] / ping)
        ratios["game"].append(game_rate / ping)
        ratios["bare"].append(figures["bare"]["per_second"] / ping)
        ping_cpu = figures["ping"]["server_cpu_ms"]
        for name in by_cpu:
            cpu = figures[name]["server_cpu_ms"]
            by_cpu[name].append(ping_cpu / cpu if ping_cpu and cpu else float("nan"))
        summary_rounds.append(figures)
    summary = {
        "date": datetime.now(UTC).strftime("%Y-%m-%d %H:%M UTC"),
        "machine": f"{os.cpu_count()} cores, {platform.system()} {platform.machine()}, "
        f"Python {platform.python_version()}",
        "load": " ".join(f"{x:.2f}" for x in os.getloadavg()),
        "server": f"gunicorn {args.worker_class}, {args.workers} workers x {args.threads} threads"
        + (", one daphne" if args.views != "get" else ""),
        "views": args.views,
        "clients": args.clients,
        "tables": args.tables,
        "seconds": args.seconds,
        "rounds": summary_rounds,
        "ratios": {name: [round(r, 3) for r in values] for name, values in ratios.items()},
        "ratios_by_server_cpu": {
            name: [round(r, 3) for r in values] for name, values in by_cpu.items()
        },
    }
    print(json.dumps(summary, indent=2))
    for number, figures in enumerate(summary_rounds, 1):
        print(f"\nround {number}")
        print(
            f"{'endpoint':<40}{'req/s':>9}{'p50 ms':>9}{'p95 ms':>9}{'p99 ms':>9}{'/ping':>8}"
            f"{'cpu ms':>9}"
        )
        ping = figures["ping"]["per_second"] or float("nan")
        for name in ("actions", "game", "ping", "bare"):
            if name == "game":
                rate = figures["actions"]["game_requests_per_second"]
                print(f"{_LABELS[name]:<40}{rate:>9.1f}{'':>27}{rate / ping:>8.3f}")
                continue
            one = figures[name]
            cpu = one["server_cpu_ms"]
            print(
                f"{_LABELS[name]:<40}{one['per_second']:>9.1f}{one['p50_ms']:>9.2f}"
                f"{one['p95_ms']:>9.2f}{one['p99_ms']:>9.2f}{one['per_second'] / ping:>8.3f}"
                f"{cpu if cpu is not None else float('nan'):>9.2f}"
            )
        for name in ("actions", "ping"):
            split = ", ".join(
                f"{kind} {ms:.2f}"
                for kind, ms in sorted(figures[name]["server_cpu_ms_by_process"].items())
            )
            print(f"  {name} cpu ms by process: {split}; client {figures[name]['client_cpu_ms']}")
    ended = sum(f[name]["server_processes_ended"] for f in summary_rounds for name in f)
    if ended:
        print(f"\n{ended} server processes ended during phases: those phases' CPU is undercounted")
    print()
    print(f"load average at the end: {summary['load']}")
    print(f"bare transaction/ping (the limit): {_spread(ratios['bare'])}")
    print(f"game requests (view reads counted)/ping: {_spread(ratios['game'])}")
    print(f"actions/ping: {_spread(ratios['actions'])}")
    print("by server CPU per request (gunicorn and PostgreSQL; an action's view reads included):")
    print(f"  actions/ping: {_spread(by_cpu['actions'])}")
    print(f"  bare transaction/ping: {_spread(by_cpu['bare'])}")
    how = {
        "get": "GET",
        "socket": "from the seats' WebSockets, each action naming its socket",
        "socket-unnamed": "from the seats' WebSockets, no action naming its socket",
    }[args.views]
    print(f"views learnt {how}")
    print(f"ratio actions/ping: {statistics.median(ratios['actions']):.3f} (aim: at least 0.5)")
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
