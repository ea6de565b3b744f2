"""End to end against real parts: Redis, a Celery worker and beat, an SMTP server.

The worker and beat run as separate processes on the test database, with a
one-second "hour": a 12-hour deadline lasts 12 seconds, its reminder comes at
6 seconds. Each run uses its own Redis database number and queue name.
"""

from __future__ import annotations

import email
import os
import socket
import subprocess
import sys
import time
import uuid
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from email.message import Message
from pathlib import Path
from typing import Any

import pytest
from django.db import connection
from django.test import override_settings

from games.models import Move, Table

from .conftest import make_user, seat_to_act, started_table

ROOT = Path(__file__).resolve().parents[2]
CELERY = str(Path(sys.executable).with_name("celery"))
# bench-api uses 15; parallel checkouts on one machine each pick their own.
E2E_REDIS_DB = int(os.environ.get("GAMENOOK_TEST_REDIS_DB", "13"))

pytestmark = [pytest.mark.e2e, pytest.mark.django_db(transaction=True)]


def _redis_url() -> str:
    configured = os.environ.get("CELERY_BROKER_URL", "")
    base = configured if configured.startswith("redis://") else "redis://127.0.0.1:6379/0"
    return base.rsplit("/", 1)[0] + f"/{E2E_REDIS_DB}"


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


class Inbox:
    """An aiosmtpd handler that keeps every message it receives."""

    def __init__(self) -> None:
        self.messages: list[Message] = []

    async def handle_DATA(self, server: Any, session: Any, envelope: Any) -> str:
        self.messages.append(email.message_from_bytes(envelope.content))
        return "250 OK"


@pytest.fixture
def smtp() -> Iterator[tuple[Inbox, int]]:
    from aiosmtpd.controller import Controller

    inbox, port = Inbox(), _free_port()
    controller = Controller(inbox, hostname="127.0.0.1", port=port)
    controller.start()
    try:
        yield inbox, port
    finally:
        controller.stop()


@pytest.fixture
def redis_broker() -> Iterator[str]:
    import redis

    url = _redis_url()
    client = redis.Redis.from_url(url, socket_connect_timeout=2)
    try:
        client.ping()
    except redis.RedisError as exc:
        pytest.skip(f"no Redis at {url}: {exc}")
    yield url
    client.flushdb()  # this database number is the test's alone
    client.close()


def wait_for(what: str, check: Callable[[], Any], seconds: float, procs: list[Any]) -> Any:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        value = check()
        if value:
            return value
        for proc in procs:
            assert proc.poll() is None, f"{proc.args[2]} exited early"
        time.sleep(0.25)
    raise AssertionError(f"timed out waiting for {what}")


def _env(redis_broker: str, tmp_path: Path, **extra: str) -> dict[str, str]:
    db = connection.settings_dict
    return {
        **os.environ,
        "DJANGO_SETTINGS_MODULE": "gamenook.settings.test",
        "DATABASE_URL": f"postgres://{db['USER']}@{db['HOST']}:{db['PORT']}/{db['NAME']}",
        "GAMENOOK_TEST_BROKER_URL": redis_broker,
        "CELERY_TASK_DEFAULT_QUEUE": f"gamenook-e2e-{uuid.uuid4().hex[:8]}",
        "CELERY_BEAT_SCHEDULE_FILENAME": str(tmp_path / "beat-schedule"),
        "GAMENOOK_SWEEP_SECONDS": "1",
        "GAMENOOK_OUTBOX_GRACE_SECONDS": "1",
        **extra,
    }


@contextmanager
def worker_and_beat(env: dict[str, str], tmp_path: Path) -> Iterator[list[Any]]:
    """A Celery worker and beat on ``env``; their logs are printed when the block fails."""
    logs = [open(tmp_path / f"{name}.log", "w") for name in ("worker", "beat")]  # noqa: SIM115
    procs = [
        subprocess.Popen(
            [CELERY, "-A", "gamenook", *args],
            cwd=ROOT,
            env=env,
            stdout=log,
            stderr=subprocess.STDOUT,
        )
        for log, args in zip(
            logs,
            [
                ["worker", "--pool=solo", "--without-mingle", "--without-gossip", "-l", "info"],
                ["beat", "-l", "info"],
            ],
            strict=True,
        )
    ]
    try:
        yield procs
    except AssertionError:
        for log in logs:
            log.flush()
            print(Path(log.name).read_text()[-4000:])  # noqa: T201
        raise
    finally:
        for proc in procs:
            proc.terminate()
        for proc in procs:
            try:
                proc.wait(timeout=15)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait(timeout=5)
        for log in logs:
            log.close()


@pytest.mark.skipif(connection.vendor != "postgresql", reason="the worker needs PostgreSQL")
def test_worker_and_beat_send_the_reminder_by_smtp_and_apply_the_timeout(
    smtp: tuple[Inbox, int], redis_broker: str, tmp_path: Path
) -> None:
    inbox, port = smtp
    env = _env(
        redis_broker,
        tmp_path,
        GAMENOOK_TEST_EMAIL_URL=f"smtp://127.0.0.1:{port}",
        GAMENOOK_SECONDS_PER_HOUR="1",
        # Ruling 19: the reminder goes to a player away for the quiet delay; with
        # one-second hours, two seconds of it are over well before the halfway instant.
        GAMENOOK_YOUR_TURN_QUIET_SECONDS="2",
    )
    with override_settings(GAMENOOK_SECONDS_PER_HOUR=1):
        # Policy "leave": after the reminder told her of the turn, a timeout that only
        # played the plain move would be no second message (one a turn, issue 38); one
        # that makes her leave the game is news, and is mailed.
        table = started_table(make_user(), make_user(), turn_hours=12, timeout_policy="leave")
    player = seat_to_act(table).user
    assert player is not None
    turn = table.turn

    with worker_and_beat(env, tmp_path) as procs:

        def reminder_mail() -> Message | None:
            return next((m for m in inbox.messages if "Half your time" in m["Subject"]), None)

        reminder = wait_for("the reminder mail", reminder_mail, 40, procs)
        assert reminder["To"] == player.email
        assert reminder["List-Unsubscribe-Post"] == "List-Unsubscribe=One-Click"
        assert "".join(reminder["List-Unsubscribe"].split()).startswith("<http")

        def timed_out() -> bool:
            return Move.objects.filter(table=table, source=Move.Source.TIMEOUT).exists()

        wait_for("the timeout", timed_out, 30, procs)
        wait_for(
            "the timeout mail",
            lambda: any("ran out" in m["Subject"] for m in inbox.messages),
            30,
            procs,
        )
    table.refresh_from_db()
    assert table.turn > turn or table.status == Table.Status.FINISHED
    reminders = [m for m in inbox.messages if "Half your time" in m["Subject"]]
    assert len(reminders) == 1


CONCEDE = """
import sys
import django
django.setup()
from django.contrib.auth.models import User
from games import services
services.table_concede(table_id=int(sys.argv[1]), user=User.objects.get(pk=int(sys.argv[2])))
"""


@pytest.mark.skipif(connection.vendor != "postgresql", reason="the worker needs PostgreSQL")
@pytest.mark.parametrize("level", ["easy", "normal", "hard"])
def test_bots_play_a_table_to_its_end_in_the_worker_after_the_human_concedes(
    redis_broker: str, tmp_path: Path, level: str
) -> None:
    """Issue 9: a seat that left never stalls the bots; no turn waits for a deadline."""
    human = make_user()
    # Deadlines of 72 real hours: if any bot turn were left to a deadline, the game
    # would not end within the test's wait.
    table = started_table(human, bots=3, level=level, turn_hours=72)
    env = _env(redis_broker, tmp_path)
    with worker_and_beat(env, tmp_path) as procs:
        # The concession comes from another process on the same broker, as from a web
        # process: its follow-ups reach the worker, which plays every bot turn after it.
        subprocess.run(
            [sys.executable, "-c", CONCEDE, str(table.pk), str(human.pk)],
            cwd=ROOT,
            env=env,
            check=True,
            timeout=60,
        )

        def finished() -> bool:
            table.refresh_from_db()
            return table.status == Table.Status.FINISHED

        wait_for("the bots to finish the game", finished, 90, procs)
    assert not Move.objects.filter(table=table, source=Move.Source.TIMEOUT).exists()
    assert table.bot_errors == 0
    assert Move.objects.filter(table=table, source=Move.Source.BOT).exists()
