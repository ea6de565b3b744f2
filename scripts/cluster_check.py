"""Several web processes, several workers, one beat: prove exactly once end to end.

    .venv/bin/python scripts/cluster_check.py [--database-url URL] [--broker URL]
        [--tables 200] [--seconds 180] [--hour 1]

What it does, with the production settings, everything on this machine:

1. (Re)creates the scratch database of ``--database-url`` (its name must
   contain "bench" or "cluster") and migrates it; refuses a ``--broker`` (a
   Redis database) that is not empty; starts an SMTP server (aiosmtpd) that
   keeps every message.
2. Starts what a deployment of several machines runs: two gunicorn
   processes (each its own port, two workers each), two Celery workers (each
   its own process group, prefork with two processes) and one beat, all on
   the one PostgreSQL and the one Redis. An "hour" of a turn deadline lasts
   ``--hour`` seconds, so a 12-hour turn runs out after 12 seconds and its
   reminder comes after 6; the sweep runs every second.
3. Over HTTP (the two web processes taken in turn): registers the players
   and opens ``--tables`` tables of 2 to 4 seats, people and bots, one in
   five with the policy "treated as having left", and starts them.
4. For ``--seconds``, a load client plays the people: at each turn a person
   plays at once (60 %), late, after the reminder (20 %), or not at all, so
   that the table times them out (20 %); every action carries
   ``expected_seq`` and an ``Idempotency-Key``, and a request that got no
   answer is sent again with the same key. Halfway, one Celery worker is
   killed with SIGKILL, its pool and all, as a machine dies.
5. Stops the client, lets the rest settle, stops the processes, and checks:
   no answer was a 5xx; every action the client was answered for is one move
   in the log, and there is no other player move; every table's log replays
   (``flip.replay``) to its snapshot; every timeout was applied once, never
   before the deadline, and to a turn that was still running, its "time ran
   out" mail written once; every reminder once, at or after the halfway
   point, of a turn that outlived it, and every turn that lasted long enough
   got one; every mail sent was received (SMTP itself has no exactly-once: a
   worker killed between the server's "OK" and the commit sends again, which
   is counted and shown). Exits 1 when a check fails.

``make cluster-check`` runs it; ``tests/test_cluster.py`` (marker
``cluster``, not run by default) runs a short one.
"""

from __future__ import annotations

import argparse
import email
import http.client
import json
import os
import platform
import random
import re
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
import uuid
from collections import Counter
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from email.message import Message
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

ROOT = Path(__file__).resolve().parent.parent
BIN = Path(sys.executable).parent
PASSWORD = "cluster-Passw0rd-not-common"
TURN_HOURS = 12


# ----------------------------------------------------------------------------
# Mail, processes, HTTP


class Inbox:
    """An aiosmtpd handler that keeps every message it receives."""

    def __init__(self) -> None:
        self.messages: list[Message] = []
        self.lock = threading.Lock()

    async def handle_DATA(self, _server: Any, _session: Any, envelope: Any) -> str:  # noqa: N802
        with self.lock:
            self.messages.append(email.message_from_bytes(envelope.content))
        return "250 OK"


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


class Api:
    """One connection per thread to one web process; JSON in, JSON out."""

    def __init__(self, port: int) -> None:
        self.port = port
        self.conn = http.client.HTTPConnection("127.0.0.1", port, timeout=60)

    def call(
        self,
        method: str,
        path: str,
        body: Any = None,
        token: str | None = None,
        headers: dict[str, str] | None = None,
    ) -> tuple[int, Any, dict[str, str]]:
        sent = {"Accept": "application/json", "Host": "127.0.0.1", **(headers or {})}
        if token:
            sent["Authorization"] = f"Token {token}"
        data = None
        if body is not None:
            data = json.dumps(body).encode()
            sent["Content-Type"] = "application/json"
        self.conn.request(method, path, body=data, headers=sent)
        response = self.conn.getresponse()
        raw = response.read()
        if response.will_close:
            self.conn.close()
        answer = json.loads(raw) if raw and response.status != 304 else None
        return response.status, answer, dict(response.getheaders())


def _expect(result: tuple[int, Any, dict[str, str]], wanted: tuple[int, ...], what: str) -> Any:
    status, body, _ = result
    if status not in wanted:
        raise RuntimeError(f"{what}: HTTP {status} {body!r}")
    return body


@dataclass
class Processes:
    procs: dict[str, subprocess.Popen[bytes]] = field(default_factory=dict)
    logs: dict[str, Path] = field(default_factory=dict)

    def start(self, name: str, command: list[str], env: dict[str, str], folder: Path) -> None:
        log = folder / f"{name}.log"
        self.logs[name] = log
        with log.open("wb") as out:
            self.procs[name] = subprocess.Popen(
                command,
                cwd=ROOT,
                env=env,
                stdout=out,
                stderr=subprocess.STDOUT,
                start_new_session=True,  # its own process group: killed with its children
            )

    def kill(self, name: str) -> None:
        os.killpg(self.procs[name].pid, signal.SIGKILL)
        self.procs[name].wait()

    def stop(self, *names: str) -> None:
        for name in names:
            proc = self.procs[name]
            if proc.poll() is None:
                os.killpg(proc.pid, signal.SIGTERM)
        for name in names:
            proc = self.procs[name]
            try:
                proc.wait(timeout=30)
            except subprocess.TimeoutExpired:
                os.killpg(proc.pid, signal.SIGKILL)
                proc.wait()

    def check_alive(self, *names: str) -> None:
        for name in names:
            if self.procs[name].poll() is not None:
                tail = self.logs[name].read_text(errors="replace")[-3000:]
                raise RuntimeError(f"{name} exited early:\n{tail}")


def _server_env(args: argparse.Namespace, smtp_port: int, folder: Path) -> dict[str, str]:
    env = dict(os.environ)
    env.update(
        DJANGO_SETTINGS_MODULE="gamenook.settings.production",
        DJANGO_SECRET_KEY="cluster-only-" + "x" * 50,
        DJANGO_ALLOWED_HOSTS="127.0.0.1,localhost",
        DJANGO_SECURE_SSL_REDIRECT="false",
        DJANGO_LOG_LEVEL="WARNING",
        DATABASE_URL=args.database_url,
        CELERY_BROKER_URL=args.broker,
        CELERY_TASK_DEFAULT_QUEUE=f"gamenook-cluster-{uuid.uuid4().hex[:8]}",
        CELERY_BEAT_SCHEDULE_FILENAME=str(folder / "beat-schedule"),
        EMAIL_URL=f"smtp://127.0.0.1:{smtp_port}",
        GAMENOOK_SECONDS_PER_HOUR=str(args.hour),
        GAMENOOK_SWEEP_SECONDS="1",
        GAMENOOK_BOT_SWEEP_SECONDS="5",
        GAMENOOK_BOT_GRACE_SECONDS="5",
        GAMENOOK_OUTBOX_GRACE_SECONDS="5",
        GAMENOOK_RUN_BOTS_INLINE="false",
        GAMENOOK_RATE_ACTIONS="100000000/minute",
        GAMENOOK_RATE_ACCOUNTS="100000000/minute",
        PYTHONUNBUFFERED="1",
    )
    return env


def _wait_for_http(port: int, procs: Processes, name: str) -> None:
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        procs.check_alive(name)
        try:
            if Api(port).call("GET", "/api/v1/schema/")[0] == 200:
                return
        except OSError:
            pass
        time.sleep(0.3)
    raise RuntimeError(f"{name} did not answer within 60 seconds")


# ----------------------------------------------------------------------------
# The load client


@dataclass
class Table:
    id: int
    tokens: dict[int, str]  # the people's seats: seat number -> token
    seq: int = 0
    etag: str = ""
    to_act: int | None = None
    over: bool = False
    plans: dict[str, float | None] = field(default_factory=dict)  # turn -> delay (None: never)


@dataclass
class Client:
    ports: list[int]
    seed: int
    statuses: Counter[int] = field(default_factory=Counter)
    server_errors: list[str] = field(default_factory=list)
    acted: set[str] = field(default_factory=set)  # Idempotency-Keys answered 201
    retried: int = 0
    plans: Counter[str] = field(default_factory=Counter)
    lock: threading.Lock = field(default_factory=threading.Lock)

    def note(self, status: int, what: str, body: Any) -> None:
        with self.lock:
            self.statuses[status] += 1
            if status >= 500:
                self.server_errors.append(f"{what}: {status} {str(body)[:200]}")

    def run(self, tables: list[Table], until: float, worker: int) -> None:
        rng = random.Random(self.seed * 1000 + worker)
        apis = [Api(port) for port in self.ports]
        turn = 0
        while time.monotonic() < until:
            started = time.monotonic()
            for table in tables:
                if table.over or time.monotonic() >= until:
                    continue
                turn += 1
                self._visit(apis[turn % len(apis)], table, rng)
            time.sleep(max(0.0, 1.0 - (time.monotonic() - started)))

    def _call(self, api: Api, *args: Any, **kwargs: Any) -> tuple[int, Any, dict[str, str]]:
        for attempt in range(5):
            try:
                return api.call(*args, **kwargs)
            except (ConnectionError, http.client.HTTPException, TimeoutError):
                api.conn.close()
                with self.lock:
                    self.retried += 1
                if attempt == 4:
                    raise
                time.sleep(0.2)
        raise AssertionError("unreachable")

    def _visit(self, api: Api, table: Table, rng: random.Random) -> None:
        # Anyone seated can see whose turn it is; ask as the first person.
        watcher = next(iter(table.tokens.values()))
        headers = {"If-None-Match": table.etag} if table.etag else {}
        status, view, answer_headers = self._call(
            api, "GET", f"/api/v1/tables/{table.id}/view/", token=watcher, headers=headers
        )
        self.note(status, "view", view)
        if status == 200:
            table.etag = answer_headers.get("ETag", "")
            table.seq = view["seq"]
            game = view["game"] or {}
            table.over = view["status"] != "active"
            table.to_act = game.get("to_act")
        elif status != 304:
            return
        seat = table.to_act
        if table.over or seat is None or seat not in table.tokens:
            return
        self._act(api, table, seat, rng)

    def _act(self, api: Api, table: Table, seat: int, rng: random.Random) -> None:
        token = table.tokens[seat]
        status, view, headers = self._call(
            api, "GET", f"/api/v1/tables/{table.id}/view/", token=token
        )
        self.note(status, "own view", view)
        if status != 200 or view["status"] != "active" or view["game"]["to_act"] != seat:
            return
        started_at = view["turn_started_at"]
        if started_at not in table.plans:  # a turn begins: how will this person play it?
            roll = rng.random()
            plan: float | None
            if roll < 0.6:
                plan, kind = rng.uniform(0.2, 2.0), "prompt"
            elif roll < 0.8:
                plan, kind = rng.uniform(7.0, 10.0), "late"
            else:
                plan, kind = None, "never"
            table.plans[started_at] = plan
            with self.lock:
                self.plans[kind] += 1
        plan = table.plans[started_at]
        begun = datetime.fromisoformat(started_at.replace("Z", "+00:00"))
        if plan is None or datetime.now(UTC) < begun + timedelta(seconds=plan):
            return
        legal = view["game"]["legal_actions"]
        pick = rng.choice(legal)
        body: dict[str, Any] = {"type": pick["type"], "expected_seq": view["seq"]}
        if "card" in pick:
            body["card"] = pick["card"]
        if pick.get("colors"):
            body["color"] = rng.choice(pick["colors"])
        key = uuid.uuid4().hex
        status, answer, _ = self._call(
            api,
            "POST",
            f"/api/v1/tables/{table.id}/actions/",
            body,
            token=token,
            headers={"Idempotency-Key": key},
        )
        self.note(status, "action", answer)
        if status == 201:
            with self.lock:
                self.acted.add(key)
        table.etag = ""


# ----------------------------------------------------------------------------
# Setting up


def _confirm_addresses(api: Api, inbox: Inbox, addresses: list[str]) -> None:
    """Follow each confirmation link the workers mailed: game mail goes to confirmed ones only."""
    waiting = {address.lower() for address in addresses}
    deadline = time.monotonic() + 120
    while waiting:
        if time.monotonic() > deadline:
            raise RuntimeError(f"no confirmation mail for {len(waiting)} addresses")
        with inbox.lock:
            messages = list(inbox.messages)
        for message in messages:
            to = str(message["To"]).strip().lower()
            found = re.search(r"/verify-email/([^/\s]+)/", _text(message))
            if to in waiting and found:
                _expect(
                    api.call("POST", "/api/v1/auth/verify-email/", {"token": found.group(1)}),
                    (200,),
                    "confirm an address",
                )
                waiting.discard(to)
        time.sleep(0.5)


def _setup(ports: list[int], tables: int, seed: int, inbox: Inbox) -> list[Table]:
    rng = random.Random(seed)
    people = max(4, tables // 5)
    api = Api(ports[0])
    tokens = []
    stamp = int(time.time())
    for i in range(people):
        name = f"cluster{stamp}p{i}"
        _expect(
            api.call(
                "POST",
                "/api/v1/auth/register/",
                {"username": name, "email": f"{name}@cluster.invalid", "password": PASSWORD},
            ),
            (201,),
            "register",
        )
        body = _expect(
            api.call("POST", "/api/v1/auth/token/", {"username": name, "password": PASSWORD}),
            (200,),
            "token",
        )
        tokens.append(body["token"])
    _confirm_addresses(api, inbox, [f"cluster{stamp}p{i}@cluster.invalid" for i in range(people)])
    out = []
    for i in range(tables):
        api = Api(ports[i % len(ports)])
        seats = 2 + i % 3
        host = tokens[i % people]
        policy = "leave" if i % 5 == 4 else "bot"
        created = _expect(
            api.call(
                "POST",
                "/api/v1/tables/",
                {"seat_count": seats, "turn_hours": TURN_HOURS, "timeout_policy": policy},
                token=host,
            ),
            (201,),
            "create table",
        )
        table = Table(id=int(created["id"]), tokens={0: host})
        for number in range(1, seats):
            if number == 1 and i % 2 == 0:
                guest = tokens[(i + 1 + rng.randrange(people - 1)) % people]
                if guest == host:
                    guest = tokens[(i + 1) % people]
                _expect(
                    api.call("POST", f"/api/v1/tables/{table.id}/join/", {}, token=guest),
                    (201,),
                    "join",
                )
                table.tokens[number] = guest
            else:
                level = "easy" if number % 2 else "normal"
                _expect(
                    api.call(
                        "POST", f"/api/v1/tables/{table.id}/bots/", {"level": level}, token=host
                    ),
                    (201,),
                    "add bot",
                )
        _expect(
            api.call("POST", f"/api/v1/tables/{table.id}/start/", {}, token=host),
            (200, 201),
            "start",
        )
        out.append(table)
    return out


# ----------------------------------------------------------------------------
# Checking


@dataclass
class Report:
    failures: list[str] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)

    def check(self, ok: bool, what: str) -> None:
        (self.notes if ok else self.failures).append(("ok: " if ok else "FAILED: ") + what)


def _check_tables(report: Report, hour: float) -> dict[str, int]:
    """Replay every table's log and check each timeout and reminder against it."""
    import flip
    from games.models import Move, Seat
    from games.models import Table as TableRow
    from notifications.models import OutboxMessage, Reminder

    deadline = timedelta(seconds=TURN_HOURS * hour)
    halfway = deadline / 2
    early = timedelta(seconds=0.5)  # the database and the workers read one clock
    # A reminder is due from halfway; the sweep runs every second, and a job the killed
    # worker held is handed out again by the next sweep.
    slack = timedelta(seconds=5)
    counts = Counter[str]()
    problems: list[str] = []
    lags: list[float] = []
    for row in TableRow.objects.exclude(state=None).order_by("pk"):
        moves = list(Move.objects.filter(table=row).order_by("seq"))
        assert row.state is not None and row.started_at is not None
        snapshot = flip.GameState.from_dict(row.state)
        humans = {
            s.number for s in Seat.objects.filter(table=row, user__isnull=False, bot_level="")
        }
        recorder = flip.Recorder(snapshot.options, snapshot.seed, moves[0].payload["events"])
        orders_seen: list[list[int]] = [
            list(e["order"]) for e in moves[0].payload["events"] if e["type"] == "shuffle"
        ]
        # Each move with the turn it was made in, replayed from the record's shuffles.
        turns: list[tuple[int, Any]] = []
        for move in moves[1:]:
            if move.seat is None or move.action not in flip.ACTION_TYPES:
                continue
            recorder.add(
                move.seat,
                flip.Action.from_dict(move.payload["action"]),
                move.source,
                move.payload["events"],
            )
            orders_seen.extend(
                list(e["order"]) for e in move.payload["events"] if e["type"] == "shuffle"
            )
        record = recorder.to_dict()
        replayed = flip.replay(record)
        if replayed != snapshot:
            problems.append(f"table {row.pk}: the log does not replay to the snapshot")
            continue
        counts["tables replayed"] += 1
        orders = iter(orders_seen)
        state, _ = flip.new_game(snapshot.options, snapshot.seed, shuffles=orders)
        turn_started: dict[int, datetime] = {state.turn: row.started_at}
        for move in moves[1:]:
            if move.seat is None or move.action not in flip.ACTION_TYPES:
                continue
            turns.append((state.turn, move))
            state, _ = flip.apply(
                state, move.seat, flip.Action.from_dict(move.payload["action"]), shuffles=orders
            )
            turn_started.setdefault(state.turn, move.created_at)
        # Turns: when each began and ended (the move that began the next one).
        ended: dict[int, datetime] = {}
        for turn, move in turns:
            ended[turn] = move.created_at
        # Timeouts: each a run of consecutive timeout moves, in a turn of its own.
        applied: dict[int, int] = Counter()
        previous: tuple[int, str] | None = None
        for turn, move in turns:
            # An application of the policy: timeout moves in a row within one turn (the
            # next seat's own timeout can follow at once, in the next turn).
            if move.source == "timeout" and previous != (turn, "timeout"):
                applied[turn] += 1
                begun = turn_started[turn]
                lag = (move.created_at - (begun + deadline)).total_seconds()
                lags.append(lag)
                if move.created_at < begun + deadline - early:
                    problems.append(f"table {row.pk} turn {turn}: timed out {-lag:.1f} s early")
            previous = (turn, move.source)
        counts["timeouts"] += sum(applied.values())
        for turn, times in applied.items():
            if times != 1:
                problems.append(f"table {row.pk} turn {turn}: timed out {times} times")
        for turn, move in turns:
            if move.source == "player" and applied.get(turn):
                first_timeout = next(m for t, m in turns if t == turn and m.source == "timeout")
                if move.seq > first_timeout.seq:
                    problems.append(f"table {row.pk} turn {turn}: a player moved after its timeout")
        timeout_mails = Counter(
            OutboxMessage.objects.filter(table=row, kind="timeout").values_list("turn", flat=True)
        )
        for turn in applied:
            seat = next(m.seat for t, m in turns if t == turn and m.source == "timeout")
            wanted = 1 if seat in humans else 0
            if timeout_mails.get(turn, 0) != wanted:
                problems.append(
                    f"table {row.pk} turn {turn}: {timeout_mails.get(turn, 0)} timeout mails"
                )
        counts["timeout mails"] += sum(timeout_mails.values())
        # Reminders: once, after halfway, for a turn that lasted that long; and every turn
        # that lasted well past halfway (a sweep or two, a killed worker) got one.
        reminded = {r.turn: r for r in Reminder.objects.filter(table=row)}
        counts["reminders"] += len(reminded)
        for turn, reminder in reminded.items():
            began = turn_started.get(turn)
            if began is None:
                problems.append(f"table {row.pk}: a reminder for turn {turn}, which never was")
                continue
            if reminder.sent_at < began + halfway - early:
                problems.append(f"table {row.pk} turn {turn}: reminded before halfway")
            if turn in ended and reminder.sent_at > ended[turn] + early:
                problems.append(f"table {row.pk} turn {turn}: reminded after the turn ended")
        for turn, begun in turn_started.items():
            end = ended.get(turn)  # None: the turn still running when the processes stopped
            if end is not None and end - begun > halfway + slack and turn not in reminded:
                problems.append(
                    f"table {row.pk} turn {turn}: lasted {(end - begun).total_seconds():.1f} s "
                    "and was never reminded"
                )
        reminder_mails = OutboxMessage.objects.filter(table=row, kind="reminder").count()
        human_reminders = sum(1 for r in reminded.values() if r.seat in humans)
        if reminder_mails > human_reminders:
            problems.append(f"table {row.pk}: {reminder_mails} reminder mails")
        counts["reminder mails"] += reminder_mails
        counts["moves"] += len(turns)
        counts["bot moves"] += sum(1 for _, m in turns if m.source == "bot")
        counts["finished tables"] += row.status == "finished"
    report.check(not problems, "every log replays; each timeout and reminder once, in time")
    for problem in problems[:20]:
        report.failures.append("  " + problem)
    if lags:
        lags.sort()
        report.notes.append(
            f"   timeouts applied after the deadline by {lags[len(lags) // 2]:.2f} s (median), "
            f"{lags[-1]:.2f} s at most"
        )
    return dict(counts)


def _text(message: Message) -> str:
    """The plain-text part of a message."""
    body = message.get_payload(0) if message.is_multipart() else message
    assert isinstance(body, Message)
    text = body.get_payload(decode=True)
    assert isinstance(text, bytes)
    return text.decode()


def _check_mail(report: Report, inbox: Inbox) -> dict[str, int]:
    from notifications.models import OutboxMessage

    def key(to: str, subject: str, text: str) -> tuple[str, str, str]:
        return to.strip().lower(), " ".join(subject.split()), text.strip().replace("\r\n", "\n")

    sent = Counter(
        key(m.to, m.subject, m.text)
        for m in OutboxMessage.objects.filter(status=OutboxMessage.Status.SENT)
    )
    received: Counter[tuple[str, str, str]] = Counter()
    for message in inbox.messages:
        received[key(str(message["To"]), str(message["Subject"]), _text(message))] += 1
    lost = sent - received
    again = received - sent
    report.check(not lost, f"every one of {sum(sent.values()):,} mails sent was received")
    pending = OutboxMessage.objects.filter(status=OutboxMessage.Status.PENDING).count()
    failed = OutboxMessage.objects.filter(status=OutboxMessage.Status.FAILED).count()
    report.check(failed == 0, f"no mail failed for good ({failed})")
    report.notes.append(
        f"   {sum(again.values())} mails received twice (SMTP re-sends after the kill), "
        f"{pending} still pending when the processes stopped"
    )
    return {"mails sent": sum(sent.values()), "mails received": len(inbox.messages)}


def _check_actions(report: Report, client: Client) -> None:
    from games.models import Move

    moves = Move.objects.filter(source="player").exclude(action="start").count()
    report.check(
        moves == len(client.acted),
        f"{len(client.acted):,} actions answered 201, {moves:,} player moves in the logs",
    )
    fives = sum(n for status, n in client.statuses.items() if status >= 500)
    report.check(fives == 0, f"no 5xx among {sum(client.statuses.values()):,} answers")
    for line in client.server_errors[:10]:
        report.failures.append("  " + line)


# ----------------------------------------------------------------------------


def _database(url: str) -> None:
    import psycopg

    parts = urlsplit(url)
    name = parts.path.lstrip("/")
    admin = url[: -len(name)] + "postgres"
    with psycopg.connect(admin, autocommit=True) as conn:
        conn.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
        conn.execute(f'CREATE DATABASE "{name}"')


def _settle(seconds: float) -> None:
    """Wait until no turn is overdue and no mail waits, or ``seconds`` pass."""
    from django.utils import timezone

    from games.models import Table as TableRow
    from notifications.models import OutboxMessage

    until = time.monotonic() + seconds
    while time.monotonic() < until:
        now = timezone.now()
        overdue = TableRow.objects.filter(
            status="active", deadline_at__lt=now - timedelta(seconds=2)
        ).exists()
        waiting = OutboxMessage.objects.filter(status="pending").exists()
        if not overdue and not waiting:
            return
        time.sleep(0.5)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument(
        "--database-url",
        default=os.environ.get(
            "CLUSTER_DATABASE_URL", "postgres://postgres@127.0.0.1:5432/gamenook_cluster"
        ),
        help="scratch database, dropped and created (env CLUSTER_DATABASE_URL)",
    )
    parser.add_argument(
        "--broker",
        default=os.environ.get("CLUSTER_BROKER_URL", "redis://127.0.0.1:6379/12"),
        help="an empty Redis database (env CLUSTER_BROKER_URL)",
    )
    parser.add_argument("--tables", type=int, default=200)
    parser.add_argument("--seconds", type=float, default=180.0, help="how long the client plays")
    parser.add_argument("--hour", type=int, default=1, help="seconds in an hour of a deadline")
    parser.add_argument("--clients", type=int, default=4, help="client threads")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--logs", default="", help="folder for the processes' logs")
    args = parser.parse_args(argv)
    name = urlsplit(args.database_url).path.lstrip("/")
    if "bench" not in name and "cluster" not in name:
        parser.error("the database's name must contain 'bench' or 'cluster': it is dropped")
    import redis

    broker = redis.Redis.from_url(args.broker)
    if broker.dbsize():
        parser.error(f"the broker {args.broker} is not empty: pass an unused Redis database")
    from aiosmtpd.controller import Controller

    folder = Path(args.logs or tempfile.mkdtemp(prefix="gamenook-cluster-"))
    folder.mkdir(parents=True, exist_ok=True)
    inbox, smtp_port = Inbox(), _free_port()
    controller = Controller(inbox, hostname="127.0.0.1", port=smtp_port)
    controller.start()
    env = _server_env(args, smtp_port, folder)
    os.environ.update(env)  # this process reads the same database for the checks
    sys.path.insert(0, str(ROOT))
    print(
        f"{datetime.now(UTC):%Y-%m-%d %H:%M} UTC; {os.cpu_count()} cores, "
        f"{platform.system()} {platform.machine()}, Python {platform.python_version()}; "
        f"load {' '.join(f'{x:.2f}' for x in os.getloadavg())}; logs in {folder}",
        flush=True,
    )
    _database(args.database_url)
    python, celery, gunicorn = sys.executable, str(BIN / "celery"), str(BIN / "gunicorn")
    subprocess.run(
        [python, "manage.py", "migrate", "--noinput", "-v", "0"], cwd=ROOT, env=env, check=True
    )
    import django

    django.setup()
    procs = Processes()
    ports = [_free_port(), _free_port()]
    web = ["web1", "web2"]
    workers = ["worker1", "worker2"]
    report = Report()
    try:
        for label, port in zip(web, ports, strict=True):
            procs.start(
                label,
                [
                    gunicorn,
                    "gamenook.wsgi:application",
                    "--bind",
                    f"127.0.0.1:{port}",
                    "--workers",
                    "2",
                    "--timeout",
                    "60",
                ],
                env,
                folder,
            )
        for label in workers:
            procs.start(
                label,
                [celery, "-A", "gamenook", "worker", "-n", f"{label}@%h", "--concurrency", "2"]
                + ["--without-mingle", "--without-gossip", "-l", "warning"],
                env,
                folder,
            )
        procs.start("beat", [celery, "-A", "gamenook", "beat", "-l", "warning"], env, folder)
        for label, port in zip(web, ports, strict=True):
            _wait_for_http(port, procs, label)
        started = time.monotonic()
        tables = _setup(ports, args.tables, args.seed, inbox)
        print(
            f"{len(tables)} tables open and started in {time.monotonic() - started:.1f} s; "
            f"playing for {args.seconds:.0f} s",
            flush=True,
        )
        client = Client(ports=ports, seed=args.seed)
        until = time.monotonic() + args.seconds
        threads = [
            threading.Thread(
                target=client.run, args=(tables[i :: args.clients], until, i), daemon=True
            )
            for i in range(args.clients)
        ]
        for thread in threads:
            thread.start()
        time.sleep(args.seconds / 2)
        procs.check_alive(*web, *workers, "beat")
        procs.kill("worker1")
        killed_at = datetime.now(UTC)
        print(f"{killed_at:%H:%M:%S} SIGKILL to worker1 and its pool", flush=True)
        for thread in threads:
            thread.join()
        procs.check_alive(*web, "worker2", "beat")
        print("client done; letting the last jobs finish", flush=True)
        _settle(30)
        procs.stop("beat")
        procs.stop("worker2")
        procs.stop(*web)
        _check_actions(report, client)
        counts = _check_tables(report, args.hour)
        counts.update(_check_mail(report, inbox))
    finally:
        procs.stop(*procs.procs)
        controller.stop()
        broker.flushdb()
    print(
        f"client: {sum(client.statuses.values()):,} answers "
        f"({', '.join(f'{n:,} x {s}' for s, n in sorted(client.statuses.items()))}), "
        f"{client.retried} requests sent again; turns planned: "
        f"{', '.join(f'{n} {k}' for k, n in sorted(client.plans.items()))}"
    )
    print("; ".join(f"{v:,} {k}" for k, v in counts.items()))
    for line in report.notes + report.failures:
        print(line)
    print("cluster check: " + ("FAILED" if report.failures else "passed"))
    return 1 if report.failures else 0


if __name__ == "__main__":
    sys.exit(main())
