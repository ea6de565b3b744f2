"""Memory, recorded: snapshot sizes, move-log growth, a web worker's memory after 5,000 actions.

    .venv/bin/python scripts/memory.py [--games 20] [--actions 5000]
        [--server-url postgres://postgres@127.0.0.1:5432] [--database gamenook_memory]
        [--broker redis://127.0.0.1:6379/11] [--skip-server]

Three parts, each printed with the commit and the load:

1. **Snapshots** (flip alone, no database): ``--games`` random legal games of
   2, 4 and 10 seats played to 1000 points, every action chosen at random
   among ``flip.legal_actions`` (seeded, so each run plays the same games).
   The snapshot's size is ``Table.state`` as the service writes it: the JSON
   of ``GameState.to_dict()`` that Django sends to PostgreSQL. Measured after
   the deal, in the middle of the first round (its middle action) and at the
   end of the game. Also the JSON of each move-log entry (the action and the
   events it caused, ``Move.payload``), and the moves and bytes per game.
2. **The database** (unless ``--skip-server``): the same games' moves written
   to a scratch database through the service (``games.services``), then
   PostgreSQL's own figures: ``pg_column_size`` of the snapshots and of the
   payloads (jsonb, after compression), and the move table's size per row
   with its indexes.
3. **A web worker** (unless ``--skip-server``): gunicorn (production
   settings, one sync worker) on that database; a client plays random legal
   actions over HTTP on 16 two-seat tables to 1000 points (a finished table
   is replaced) and reads the worker's resident memory (``VmRSS``) from
   /proc after every 1,000 actions up to ``--actions``.
"""

from __future__ import annotations

import argparse
import hashlib
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
import time
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
PASSWORD = "memory-Passw0rd-not-common"


def _load() -> str:
    return " ".join(f"{x:.2f}" for x in os.getloadavg())


def _size(value: Any) -> int:
    # What Django's JSONField sends: json.dumps with the default separators.
    return len(json.dumps(value).encode())


def _spread(values: list[int]) -> str:
    return f"{statistics.median(values):>8,.0f} {min(values):>8,} {max(values):>8,}"


# ----------------------------------------------------------------------------
# 1. flip alone


def play(seats: int, seed: str) -> dict[str, Any]:
    """One random game to 1000 points: snapshot sizes and move payloads along the way."""
    import flip

    rng = random.Random(seed)
    options = flip.Options(seats=seats, scoring="target", target=1000)
    # A seed as long as the service's (secrets.token_hex(16)), the same one run after run.
    state, events = flip.new_game(options, hashlib.sha256(seed.encode()).hexdigest()[:32])
    dealt = _size(state.to_dict())
    first_round: list[int] = []
    payloads = [_size({"action": {"type": "start"}, "events": events})]
    while not state.over:
        seat = state.current
        action = rng.choice(flip.legal_actions(state, seat))
        round_number = state.round
        state, events = flip.apply(state, seat, action, inplace=True)
        payloads.append(_size({"action": action.to_dict(), "events": events}))
        if round_number == 1 and state.round == 1:
            first_round.append(_size(state.to_dict()))
    return {
        "dealt": dealt,
        "mid": first_round[len(first_round) // 2] if first_round else dealt,
        "end": _size(state.to_dict()),
        "rounds": state.round,
        "moves": len(payloads),
        "payload": payloads,
    }


def snapshots(games: int) -> None:
    print(f"\n1. snapshots and move log, flip alone: {games} random games per size, to 1000 points")
    print(
        f"{'seats':>5} | {'snapshot bytes (median min max)':^26} after the deal | "
        f"mid-round 1 | end of the game | rounds | moves per game | "
        f"payload bytes per move | log bytes per game"
    )
    for seats in (2, 4, 10):
        results = [play(seats, f"memory:{seats}:{i}") for i in range(games)]
        per_move = [p for r in results for p in r["payload"]]
        per_game = [sum(r["payload"]) for r in results]
        print(
            f"{seats:>5} | dealt {_spread([r['dealt'] for r in results])} | "
            f"mid {_spread([r['mid'] for r in results])} | "
            f"end {_spread([r['end'] for r in results])} | "
            f"rounds {statistics.median(r['rounds'] for r in results):.0f} | "
            f"moves {_spread([r['moves'] for r in results])} | "
            f"per move {_spread(per_move)} | per game {_spread(per_game)}"
        )


# ----------------------------------------------------------------------------
# 2 and 3. The database and a web worker


def _database(server_url: str, name: str, *, drop_only: bool = False) -> str:
    import psycopg

    with psycopg.connect(f"{server_url}/postgres", autocommit=True) as conn:
        conn.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
        if not drop_only:
            conn.execute(f'CREATE DATABASE "{name}"')
    return f"{server_url}/{name}"


def _env(database_url: str, broker: str) -> dict[str, str]:
    env = dict(os.environ)
    env.update(
        DJANGO_SETTINGS_MODULE="gamenook.settings.production",
        DJANGO_SECRET_KEY="memory-only-" + "x" * 50,
        DJANGO_ALLOWED_HOSTS="127.0.0.1,localhost",
        DJANGO_SECURE_SSL_REDIRECT="false",
        DJANGO_LOG_LEVEL="WARNING",
        DATABASE_URL=database_url,
        CELERY_BROKER_URL=broker,
        CELERY_TASK_DEFAULT_QUEUE="gamenook-memory",
        GAMENOOK_RUN_BOTS_INLINE="false",
        GAMENOOK_RATE_ACTIONS="100000000/minute",
        GAMENOOK_RATE_ACCOUNTS="100000000/minute",
        EMAIL_URL="consolemail://",
    )
    return env


def stored(games: int) -> None:
    """The same kind of games written through the service; PostgreSQL's sizes."""
    from django.contrib.auth.models import User
    from django.db import connection

    import flip
    from games import services
    from games.models import Move, Table

    print(f"\n2. in PostgreSQL: {games} games per size written through games.services")
    players = [User.objects.create_user(f"memory{i}", f"m{i}@example.com") for i in range(10)]
    for seats in (2, 4, 10):
        ids = []
        for i in range(games):
            table = services.table_create(
                host=players[0], seat_count=seats, scoring="target", target=1000
            )
            for player in players[1:seats]:
                services.table_join(table_id=table.pk, user=player)
            services.table_start(table_id=table.pk, user=players[0])
            rng = random.Random(f"stored:{seats}:{i}")
            while True:
                row = Table.objects.get(pk=table.pk)
                assert row.state is not None
                state = flip.GameState.from_dict(row.state)
                if state.over:
                    break
                action = rng.choice(flip.legal_actions(state, state.current))
                data = {
                    "type": action.type,
                    "card": flip.handle(state, action.card) if action.card >= 0 else None,
                    "color": flip.COLORS[action.color] if action.color >= 0 else None,
                }
                services.table_apply_action(
                    table_id=table.pk, user=players[state.current], data=data, expected_seq=None
                )
            ids.append(table.pk)
        with connection.cursor() as cursor:
            cursor.execute(
                "SELECT percentile_cont(0.5) WITHIN GROUP (ORDER BY pg_column_size(state)),"
                " percentile_cont(0.5) WITHIN GROUP (ORDER BY octet_length(state::text))"
                " FROM games_table WHERE id = ANY(%s)",
                [ids],
            )
            snapshot_stored, snapshot_text = cursor.fetchone()
            cursor.execute(
                "SELECT count(*), avg(pg_column_size(payload)), avg(octet_length(payload::text)),"
                " sum(pg_column_size(m.*)) FROM games_move m WHERE table_id = ANY(%s)",
                [ids],
            )
            moves, payload_stored, payload_text, rows_bytes = cursor.fetchone()
        print(
            f"{seats:>3} seats: finished snapshot {snapshot_stored:,.0f} bytes stored (jsonb) for "
            f"{snapshot_text:,.0f} bytes of JSON text; {moves / games:,.0f} moves per game, "
            f"payload {payload_stored:,.0f} bytes stored per move ({payload_text:,.0f} as text), "
            f"{rows_bytes / games / 1024:,.0f} KiB of move rows per game"
        )
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT pg_total_relation_size('games_move'), pg_relation_size('games_move'),"
            " (SELECT count(*) FROM games_move)"
        )
        total, heap, count = cursor.fetchone()
    print(
        f"games_move: {count:,} rows, {total / count:,.0f} bytes per row with its indexes "
        f"and TOAST ({heap / count:,.0f} in the heap); {Move.objects.count():,} moves"
    )


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


class Api:
    def __init__(self, port: int) -> None:
        self.conn = http.client.HTTPConnection("127.0.0.1", port, timeout=60)

    def call(self, method: str, path: str, body: Any = None, token: str = "") -> Any:
        headers = {"Accept": "application/json", "Host": "127.0.0.1"}
        if token:
            headers["Authorization"] = f"Token {token}"
        data = None
        if body is not None:
            data = json.dumps(body).encode()
            headers["Content-Type"] = "application/json"
        self.conn.request(method, path, body=data, headers=headers)
        response = self.conn.getresponse()
        raw = response.read()
        if response.status >= 400:
            raise RuntimeError(f"{method} {path}: HTTP {response.status} {raw[:300]!r}")
        return json.loads(raw) if raw else None


def _rss_kib(pid: int) -> int:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1])
    raise RuntimeError(f"no VmRSS for {pid}")


def _children(pid: int) -> list[int]:
    path = Path(f"/proc/{pid}/task/{pid}/children")
    return [int(p) for p in path.read_text().split()] if path.exists() else []


def web_worker(env: dict[str, str], actions: int, seed: int) -> None:
    port = _free_port()
    print(f"\n3. a gunicorn worker (one sync worker, production settings) over {actions:,} actions")
    server = subprocess.Popen(
        [
            str(Path(sys.executable).with_name("gunicorn")),
            "gamenook.wsgi:application",
            "--bind",
            f"127.0.0.1:{port}",
            "--workers",
            "1",
            "--log-level",
            "warning",
        ],
        cwd=ROOT,
        env=env,
        start_new_session=True,
    )
    try:
        deadline = time.monotonic() + 60
        while True:
            try:
                Api(port).call("GET", "/api/v1/schema/")
                break
            except (OSError, RuntimeError):
                if time.monotonic() > deadline:
                    raise
                time.sleep(0.3)
        (worker,) = _children(server.pid)
        api = Api(port)
        tokens = []
        for i in range(2):
            name = f"memory-web{i}"
            api.call(
                "POST",
                "/api/v1/auth/register/",
                {"username": name, "email": f"{name}@example.com", "password": PASSWORD},
            )
            tokens.append(
                api.call("POST", "/api/v1/auth/token/", {"username": name, "password": PASSWORD})[
                    "token"
                ]
            )

        def open_table() -> int:
            made = api.call(
                "POST",
                "/api/v1/tables/",
                {"seat_count": 2, "scoring": "target", "target": 1000},
                token=tokens[0],
            )
            api.call("POST", f"/api/v1/tables/{made['id']}/join/", {}, token=tokens[1])
            api.call("POST", f"/api/v1/tables/{made['id']}/start/", {}, token=tokens[0])
            return int(made["id"])

        rng = random.Random(seed)
        tables = [open_table() for _ in range(16)]
        # Warm-up: every code path of an action has run (imports, templates, the first
        # connection) before the first reading, which is "0 actions".
        warmup, done, games = 200, 0, 0
        readings: list[tuple[int, int]] = []
        marks = list(range(0, actions + 1, 1000))
        while done <= actions + warmup:
            counted = done - warmup
            if counted in marks and (not readings or readings[-1][0] != counted):
                readings.append((counted, _rss_kib(worker)))
            index = done % len(tables)
            view = api.call("GET", f"/api/v1/tables/{tables[index]}/view/", token=tokens[0])
            if view["status"] != "active":
                tables[index] = open_table()
                games += 1
                continue
            seat = view["game"]["to_act"]
            own = view if seat == 0 else None
            if own is None:
                own = api.call("GET", f"/api/v1/tables/{tables[index]}/view/", token=tokens[1])
            pick = rng.choice(own["game"]["legal_actions"])
            body: dict[str, Any] = {"type": pick["type"], "expected_seq": own["seq"]}
            if "card" in pick:
                body["card"] = pick["card"]
            if pick.get("colors"):
                body["color"] = rng.choice(pick["colors"])
            api.call("POST", f"/api/v1/tables/{tables[index]}/actions/", body, token=tokens[seat])
            done += 1
        first = readings[0][1]
        print("actions   VmRSS MiB   since 0")
        for count, kib in readings:
            print(f"{count:>7,} {kib / 1024:>11.1f} {(kib - first) / 1024:>+9.1f}")
        print(f"({games} games finished and replaced on the way)")
    finally:
        os.killpg(server.pid, signal.SIGTERM)
        server.wait(timeout=30)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--games", type=int, default=20, help="games per size")
    parser.add_argument("--stored-games", type=int, default=2, help="games per size, part 2")
    parser.add_argument("--actions", type=int, default=5000, help="actions, part 3")
    parser.add_argument(
        "--server-url",
        default=os.environ.get("MEMORY_SERVER_URL", "postgres://postgres@127.0.0.1:5432"),
    )
    parser.add_argument("--database", default=os.environ.get("MEMORY_DATABASE", "gamenook_memory"))
    parser.add_argument(
        "--broker", default=os.environ.get("MEMORY_BROKER_URL", "redis://127.0.0.1:6379/11")
    )
    parser.add_argument("--skip-server", action="store_true", help="flip alone (part 1)")
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args(argv)
    commit = subprocess.run(
        ["git", "log", "-1", "--format=%h %s"], cwd=ROOT, capture_output=True, text=True
    ).stdout.strip()
    print(
        f"{datetime.now(UTC):%Y-%m-%d %H:%M} UTC, commit {commit}; {os.cpu_count()} cores, "
        f"{platform.system()} {platform.machine()}, Python {platform.python_version()}; "
        f"load {_load()}"
    )
    snapshots(args.games)
    if args.skip_server:
        return 0
    import redis

    if redis.Redis.from_url(args.broker).dbsize():
        parser.error(f"the broker {args.broker} is not empty: pass an unused Redis database")
    database_url = _database(args.server_url, args.database)
    env = _env(database_url, args.broker)
    os.environ.update(env)
    try:
        subprocess.run(
            [sys.executable, "manage.py", "migrate", "--noinput", "-v", "0"],
            cwd=ROOT,
            env=env,
            check=True,
        )
        import django

        django.setup()
        stored(args.stored_games)
        from django.db import connections

        connections.close_all()
        web_worker(env, args.actions, args.seed)
    finally:
        from django.db import connections

        connections.close_all()
        _database(args.server_url, args.database, drop_only=True)
        redis.Redis.from_url(args.broker).flushdb()
    print(f"load after: {_load()}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
