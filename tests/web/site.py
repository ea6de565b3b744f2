"""A whole site in processes of its own, for the real-time browser test.

daphne serves ``tests.web.asgi`` (gamenook's ASGI application: HTTP and the
``live`` WebSockets, with static files), or uvicorn where a test module's
``site_server`` fixture says so (the streams' server, docs/deploy.md), and a
real Celery worker and beat run the timers: each move timer and each end of a
hold is an ETA job (``notifications.jobs.dispatch_at``) that the worker runs at
its instant, and beat runs the real-time sweep behind them. All three work on the test's own
database (pytest-django's transactional one) and on one Redis database,
``GAMENOOK_TEST_REDIS_DB`` (the broker and the channel layer), flushed at the end.
"""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import time
import urllib.request
import uuid
from collections.abc import Iterator
from contextlib import ExitStack, suppress
from dataclasses import dataclass
from pathlib import Path
from typing import IO, Any

import pytest
from django.db import connection

ROOT = Path(__file__).resolve().parents[2]
BIN = Path(sys.executable).parent
#: Each checkout on a shared machine picks its own (the end-to-end test's variable).
REDIS_DB = int(os.environ.get("GAMENOOK_TEST_REDIS_DB", "13"))
#: The seat hold of ruling 18, shortened from two minutes.
HOLD_SECONDS = 3


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def _redis_url() -> str:
    configured = os.environ.get("CELERY_BROKER_URL", "")
    base = configured if configured.startswith("redis://") else "redis://127.0.0.1:6379/0"
    return base.rsplit("/", 1)[0] + f"/{REDIS_DB}"


@dataclass
class Site:
    url: str
    procs: list[subprocess.Popen[bytes]]
    logs: list[IO[str]]

    def check(self) -> None:
        """Fail at once when a process of the site died."""
        for proc in self.procs:
            assert proc.poll() is None, f"{proc.args[0]} exited early"

    def tail(self) -> str:
        out = []
        for log in self.logs:
            log.flush()
            out.append(f"--- {log.name}\n{Path(log.name).read_text()[-3000:]}")
        return "\n".join(out)


def _wait_until_serving(site: Site, seconds: float = 30) -> None:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        site.check()
        with suppress(OSError), urllib.request.urlopen(site.url + "/login/", timeout=2) as answer:  # noqa: S310 (our own server)
            if answer.status == 200:
                return
        time.sleep(0.2)
    raise AssertionError("the server did not start serving\n" + site.tail())


def _server_command(server: str, port: int) -> list[str]:
    """The site's ASGI server: daphne, or uvicorn as the streams' process runs it."""
    if server == "uvicorn":
        return [str(BIN / "uvicorn"), "--host", "127.0.0.1", "--port", str(port),
                "--loop", "uvloop", "--http", "httptools", "--lifespan", "off",
                "tests.web.asgi:application"]  # fmt: skip
    return [str(BIN / "daphne"), "-b", "127.0.0.1", "-p", str(port), "tests.web.asgi:application"]


@pytest.fixture
def site(tmp_path: Path, site_server: str) -> Iterator[Site]:
    """daphne (or ``site_server``), a Celery worker and beat on the test database; skips
    without PostgreSQL/Redis."""
    if connection.vendor != "postgresql":
        pytest.skip("the site's processes share the test database: PostgreSQL only")
    import redis

    url = _redis_url()
    client = redis.Redis.from_url(url, socket_connect_timeout=2)
    try:
        client.ping()
    except redis.RedisError as exc:
        pytest.skip(f"no Redis at {url}: {exc}")
    db = connection.settings_dict
    port = _free_port()
    env = {
        **os.environ,
        "DJANGO_SETTINGS_MODULE": "gamenook.settings.test",
        "DATABASE_URL": f"postgres://{db['USER']}@{db['HOST']}:{db['PORT']}/{db['NAME']}",
        "GAMENOOK_TEST_BROKER_URL": url,
        # Redis's channel layer, as in production: what the worker changes (a timeout, a
        # hold's end, a bot's turn) is pushed to daphne's sockets as it commits, not
        # found by the recheck (left at its 10 s).
        "GAMENOOK_TEST_CHANNEL_LAYER_URL": url,
        "CELERY_TASK_DEFAULT_QUEUE": f"gamenook-rt-{uuid.uuid4().hex[:8]}",
        "CELERY_BEAT_SCHEDULE_FILENAME": str(tmp_path / "beat-schedule"),
        "GAMENOOK_SEAT_HOLD_SECONDS": str(HOLD_SECONDS),
        "GAMENOOK_REALTIME_SWEEP_SECONDS": "1",
        "GAMENOOK_TEST_GAME_SEED": "browser-realtime",
        "PYTHONUNBUFFERED": "1",
    }
    env.pop("GAMENOOK_LIVE_RECHECK_SECONDS", None)
    env.pop("DJANGO_ALLOW_ASYNC_UNSAFE", None)  # the browser fixture's switch is ours only
    commands = {
        site_server: _server_command(site_server, port),
        "worker": [str(BIN / "celery"), "-A", "gamenook", "worker", "--pool=solo",
                   "--without-mingle", "--without-gossip", "-l", "info"],
        "beat": [str(BIN / "celery"), "-A", "gamenook", "beat", "-l", "info"],
    }  # fmt: skip
    with ExitStack() as stack:
        logs = [stack.enter_context(open(tmp_path / f"{name}.log", "w")) for name in commands]  # noqa: PTH123, SIM115
        procs = [
            subprocess.Popen(command, cwd=ROOT, env=env, stdout=log, stderr=subprocess.STDOUT)
            for command, log in zip(commands.values(), logs, strict=True)
        ]
        site = Site(url=f"http://127.0.0.1:{port}", procs=procs, logs=logs)
        try:
            _wait_until_serving(site)
            yield site
        finally:
            # What the processes said: pytest shows it when the test fails.
            print(site.tail())  # noqa: T201
            for proc in procs:
                proc.terminate()
            for proc in procs:
                try:
                    proc.wait(timeout=15)
                except subprocess.TimeoutExpired:
                    proc.kill()
                    proc.wait(timeout=5)
            client.flushdb()  # this database number is the test's alone
            client.close()


@pytest.fixture
def site_page(browser: Any, site: Site) -> Iterator[Any]:
    """Open a page at ``site`` in a browser context of its own (``context=`` reuses one).

    ``clock_ahead_ms``: the context's clock is that far ahead of the server's.
    """
    contexts: list[Any] = []

    def open_page(
        context: Any = None, width: int = 1100, height: int = 900, clock_ahead_ms: int = 0
    ) -> Any:
        if context is None:
            context = browser.new_context(
                viewport={"width": width, "height": height}, base_url=site.url
            )
            context.set_default_timeout(15_000)
            contexts.append(context)
            if clock_ahead_ms:  # a browser whose clock is wrong: Date.now() runs ahead
                ahead = f"Date.now = () => now() + {clock_ahead_ms};"
                context.add_init_script(f"(() => {{ const now = Date.now; {ahead} }})()")
        page = context.new_page()
        errors: list[str] = []
        page.on("pageerror", lambda error: errors.append(str(error)))
        page.js_errors = errors
        return page

    yield open_page
    for context in contexts:
        context.close()
