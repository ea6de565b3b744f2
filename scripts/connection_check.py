"""A burst of concurrent requests at daphne (and gunicorn): how many PostgreSQL connections?

    .venv/bin/python scripts/connection_check.py [--database-url URL] [--redis URL]
        [--concurrency 80] [--requests 2000] [--seconds 30] [--gunicorn-workers 2]

With the production settings, everything on this machine (loopback only):

1. (Re)creates the scratch database of ``--database-url`` (its name must
   contain "bench" or "connections": it is dropped), migrates it, and makes
   one user with an API token.
2. Starts daphne (``gamenook.asgi:application``, as docs/deploy.md runs it)
   and, unless ``--gunicorn-workers 0``, gunicorn with that many sync workers.
3. Asks each process's settings for the most connections it may hold: the
   pool's ``max_size`` in an ASGI process, one per worker under gunicorn
   (docs/deploy.md, "Connections"). No pool in the ASGI process means no
   bound.
4. Fires, at each server in turn, ``--concurrency`` clients at once, each on
   its own keep-alive connection, sending ``GET /api/v1/me/`` (a token lookup
   and a read), until ``--requests`` answers or ``--seconds`` have passed,
   while a sampler counts every few milliseconds the server's connections in
   ``pg_stat_activity`` (by ``application_name``, which the settings set per
   process), and a second longer for what it keeps afterwards.
5. Prints the maximum seen against the bound, and the answers by status.
   Exits 1 when a count went over its bound, when a process has none, or when
   an answer was a 5xx.

``make connection-check`` runs it; ``tests/gamenook/test_connections.py``
runs a short burst.
"""

from __future__ import annotations

import argparse
import http.client
import json
import os
import socket
import subprocess
import sys
import tempfile
import threading
import time
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

ROOT = Path(__file__).resolve().parent.parent
BIN = Path(sys.executable).parent
#: How often the sampler reads pg_stat_activity.
SAMPLE_SECONDS = 0.005
#: How long it goes on counting after a burst: what the server keeps.
AFTER_SECONDS = 1.5


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def _server_env(args: argparse.Namespace) -> dict[str, str]:
    env = dict(os.environ)
    env.update(
        DJANGO_SETTINGS_MODULE="gamenook.settings.production",
        DJANGO_SECRET_KEY="connections-only-" + "x" * 50,
        DJANGO_ALLOWED_HOSTS="127.0.0.1,localhost",
        DJANGO_LOG_LEVEL="WARNING",
        DATABASE_URL=args.database_url,
        CELERY_BROKER_URL=args.redis,
        CHANNEL_LAYER_URL=args.redis,
        CACHE_URL=args.redis,  # the rate limits' counters (the production settings' CACHES)
        GAMENOOK_RATE_ACTIONS="100000000/minute",
        GAMENOOK_RATE_ACCOUNTS="100000000/minute",
        PYTHONUNBUFFERED="1",
    )
    return env


def _database(url: str) -> None:
    import psycopg

    name = urlsplit(url).path.lstrip("/")
    admin = url[: -len(name)] + "postgres"
    with psycopg.connect(admin, autocommit=True) as conn:
        conn.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
        conn.execute(f'CREATE DATABASE "{name}"')


def _drop(url: str) -> None:
    import psycopg

    name = urlsplit(url).path.lstrip("/")
    admin = url[: -len(name)] + "postgres"
    with psycopg.connect(admin, autocommit=True) as conn:
        conn.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')


_MAKE_TOKEN = """
from django.contrib.auth.models import User
from accounts import services
user = User.objects.create_user("burst", "burst@example.invalid", "burst-Passw0rd-not-common")
print(services.token_create(user=user, name="burst")[1])
"""

# What the settings of a process of each kind say: the ASGI one loads them through
# gamenook.asgi, as daphne does, so it sees what daphne sees.
_SETTINGS = """
import json, sys
sys.argv[0] = sys.argv[2]  # the server's own name, which its application_name takes
if sys.argv[1] == "asgi":
    import gamenook.asgi
else:
    import django
    django.setup()
from django.db import connection
options = connection.settings_dict["OPTIONS"]
print(json.dumps([options.get("application_name"), options.get("pool")]))
"""


def _bound(
    kind: str, program: str, workers: int, env: dict[str, str]
) -> tuple[str | None, int | None]:
    """(the application_name, the most connections) of a process of ``kind`` by its settings.

    An ASGI process holds at most its pool's ``max_size`` (none without a pool: a
    connection per thread, and daphne's threads are not bounded). A gunicorn sync
    worker serves one request at a time on one thread: one connection each.
    """
    done = subprocess.run(
        [sys.executable, "-c", _SETTINGS, kind, str(BIN / program)],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        check=True,
    )
    name, pool = json.loads(done.stdout.strip().splitlines()[-1])
    if kind == "wsgi":
        return name, workers
    return name, pool.get("max_size") if isinstance(pool, dict) else None


@dataclass
class Server:
    kind: str  # "asgi" or "wsgi"
    label: str
    port: int
    proc: subprocess.Popen[bytes]
    log: Path
    application_name: str | None = None
    bound: int | None = None


@dataclass
class Burst:
    statuses: Counter[int] = field(default_factory=Counter)
    errors: Counter[str] = field(default_factory=Counter)
    sent: int = 0
    lock: threading.Lock = field(default_factory=threading.Lock)


class Sampler(threading.Thread):
    """Counts the server's connections to the scratch database until stopped."""

    def __init__(self, url: str, application_name: str | None) -> None:
        super().__init__(daemon=True)
        self.url = url
        self.application_name = application_name
        self.most = 0
        self.last = 0
        self.samples = 0
        self.stopping = threading.Event()

    def count(self, conn: Any) -> int:
        # Without an application_name (the code before the bound), every other backend
        # on the scratch database is the server's: nothing else connects to it meanwhile.
        if self.application_name:
            query = (
                "SELECT count(*) FROM pg_stat_activity WHERE datname = current_database()"
                " AND pid <> pg_backend_pid() AND application_name = %s"
            )
            row = conn.execute(query, (self.application_name,)).fetchone()
        else:
            query = (
                "SELECT count(*) FROM pg_stat_activity WHERE datname = current_database()"
                " AND pid <> pg_backend_pid()"
            )
            row = conn.execute(query).fetchone()
        return int(row[0])

    def run(self) -> None:
        import psycopg

        with psycopg.connect(self.url, autocommit=True, application_name="connection-check") as c:
            while not self.stopping.is_set():
                self.last = self.count(c)
                self.most = max(self.most, self.last)
                self.samples += 1
                time.sleep(SAMPLE_SECONDS)


def _wait_for_http(server: Server) -> None:
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        if server.proc.poll() is not None:
            raise RuntimeError(f"{server.label} exited:\n{server.log.read_text()[-3000:]}")
        try:
            conn = http.client.HTTPConnection("127.0.0.1", server.port, timeout=5)
            conn.request("GET", "/api/v1/schema/", headers={"X-Forwarded-Proto": "https"})
            if conn.getresponse().status == 200:  # noqa: PLR2004
                return
        except OSError:
            pass
        time.sleep(0.3)
    raise RuntimeError(f"{server.label} did not answer within 60 seconds")


def _client(
    port: int, token: str, burst: Burst, start: threading.Barrier, until: float, limit: int
) -> None:
    headers = {
        "Authorization": f"Token {token}",
        "Accept": "application/json",
        "Host": "127.0.0.1",
        # The proxy in front says the client came over HTTPS (SECURE_PROXY_SSL_HEADER).
        "X-Forwarded-Proto": "https",
    }
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=60)
    start.wait()
    while time.monotonic() < until:
        with burst.lock:
            if burst.sent >= limit:
                return
            burst.sent += 1
        try:
            conn.request("GET", "/api/v1/me/", headers=headers)
            response = conn.getresponse()
            response.read()
            status = response.status
            if response.will_close:
                conn.close()
        except (OSError, http.client.HTTPException) as exc:
            conn.close()
            with burst.lock:
                burst.errors[type(exc).__name__] += 1
            continue
        with burst.lock:
            burst.statuses[status] += 1


def _fire(args: argparse.Namespace, server: Server, token: str) -> tuple[Burst, Sampler, float]:
    sampler = Sampler(args.database_url, server.application_name)
    sampler.start()
    burst = Burst()
    start = threading.Barrier(args.concurrency + 1)
    began = time.monotonic()
    until = began + args.seconds
    clients = [
        threading.Thread(
            target=_client,
            args=(server.port, token, burst, start, until, args.requests),
            daemon=True,
        )
        for _ in range(args.concurrency)
    ]
    for thread in clients:
        thread.start()
    start.wait()
    for thread in clients:
        thread.join(args.seconds + 70)
    took = time.monotonic() - began
    time.sleep(AFTER_SECONDS)
    sampler.stopping.set()
    sampler.join(10)
    return burst, sampler, took


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument(
        "--database-url",
        default=os.environ.get(
            "CONNECTIONS_DATABASE_URL", "postgres://postgres@127.0.0.1:5432/gamenook_connections"
        ),
        help="scratch database, dropped, created and dropped again (env CONNECTIONS_DATABASE_URL)",
    )
    parser.add_argument(
        "--redis",
        default=os.environ.get("CONNECTIONS_REDIS_URL", "redis://127.0.0.1:6379/11"),
        help="a Redis database for the broker, the channel layer and the cache",
    )
    parser.add_argument("--concurrency", type=int, default=80, help="clients at once")
    parser.add_argument("--requests", type=int, default=2000, help="requests per server, at most")
    parser.add_argument("--seconds", type=float, default=30.0, help="per server, at most")
    parser.add_argument("--gunicorn-workers", type=int, default=2, help="0: daphne alone")
    parser.add_argument("--logs", default="", help="folder for the servers' logs")
    args = parser.parse_args(argv)
    name = urlsplit(args.database_url).path.lstrip("/")
    if "bench" not in name and "connections" not in name:
        parser.error("the database's name must contain 'bench' or 'connections': it is dropped")
    folder = Path(args.logs or tempfile.mkdtemp(prefix="gamenook-connections-"))
    folder.mkdir(parents=True, exist_ok=True)
    env = _server_env(args)
    python = sys.executable
    _database(args.database_url)
    servers: list[Server] = []
    failed: list[str] = []
    try:
        subprocess.run(
            [python, "manage.py", "migrate", "--noinput", "-v", "0"], cwd=ROOT, env=env, check=True
        )
        token = (
            subprocess.run(
                [python, "manage.py", "shell", "-c", _MAKE_TOKEN],
                cwd=ROOT,
                env=env,
                capture_output=True,
                text=True,
                check=True,
            )
            .stdout.strip()
            .splitlines()[-1]
        )
        commands = [
            (
                "asgi",
                "daphne",
                [
                    str(BIN / "daphne"),
                    "-b",
                    "127.0.0.1",
                    "-p",
                    "{port}",
                    "gamenook.asgi:application",
                ],
            )
        ]
        if args.gunicorn_workers:
            commands.append(
                (
                    "wsgi",
                    "gunicorn",
                    [
                        str(BIN / "gunicorn"),
                        "gamenook.wsgi:application",
                        "--bind",
                        "127.0.0.1:{port}",
                        "--workers",
                        str(args.gunicorn_workers),
                    ],
                )
            )
        for kind, label, command in commands:
            port = _free_port()
            log = folder / f"{label}.log"
            with log.open("wb") as out:
                proc = subprocess.Popen(
                    [part.format(port=port) for part in command],
                    cwd=ROOT,
                    env=env,
                    stdout=out,
                    stderr=subprocess.STDOUT,
                    start_new_session=True,
                )
            server = Server(kind, label, port, proc, log)
            servers.append(server)
            server.application_name, server.bound = _bound(kind, label, args.gunicorn_workers, env)
            _wait_for_http(server)
        for server in servers:
            burst, sampler, took = _fire(args, server, token)
            answers = sum(burst.statuses.values())
            bound = "none" if server.bound is None else str(server.bound)
            print(
                f"{server.label}: {answers} answers in {took:.1f} s from {args.concurrency} clients"
                f" at once ({', '.join(f'{n} x {s}' for s, n in sorted(burst.statuses.items()))}"
                + (f"; failed: {dict(burst.errors)}" if burst.errors else "")
                + f"); connections (application_name {server.application_name!r}): at most"
                f" {sampler.most} seen in {sampler.samples} samples, {sampler.last} kept"
                f" {AFTER_SECONDS} s after; bound {bound}",
                flush=True,
            )
            if not sampler.most:
                failed.append(f"{server.label}: no connection seen: the count is wrong")
            elif server.bound is None:
                failed.append(f"{server.label}: its settings bound no connections")
            elif sampler.most > server.bound:
                failed.append(f"{server.label}: {sampler.most} connections over {server.bound}")
            fives = sum(n for status, n in burst.statuses.items() if status >= 500)  # noqa: PLR2004
            if fives or burst.errors:
                failed.append(f"{server.label}: {fives} 5xx, {sum(burst.errors.values())} failed")
    finally:
        for server in servers:
            if server.proc.poll() is None:
                os.killpg(server.proc.pid, 15)
        for server in servers:
            try:
                server.proc.wait(timeout=20)
            except subprocess.TimeoutExpired:
                os.killpg(server.proc.pid, 9)
                server.proc.wait()
        _drop(args.database_url)
    for line in failed:
        print("FAILED:", line)
    print("connection check:", "failed" if failed else "passed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
