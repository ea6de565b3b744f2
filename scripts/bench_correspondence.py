"""The correspondence benchmark of issue 38 ("Measured"), in accelerated time.

    .venv/bin/python scripts/bench_correspondence.py [--tables 200] [--seed 38]
        [--people-per-table 2|3] [--days 60] [--sweep-minutes 1] [--every-minute]
        [--parallel] [--no-push] [--json FILE]
        [--db-url postgres://postgres@127.0.0.1:5432/gamenook_bench_correspondence]

A discrete-event simulation over the real service: users, tables, moves,
deadlines, reminders, last calls, "your turn" notices, e-mails and web pushes
are the service's own code and rows, in PostgreSQL. Only people and the clock
are simulated.

**How time is accelerated.** Nothing waits for the wall clock: the clock is
virtual (``time_machine``, as the tests in ``tests/notifications`` travel in
time, not ticking) and jumps from one instant to the next. The table's own
hour stays an hour (``GAMENOOK_SECONDS_PER_HOUR=3600``, set explicitly): a
turn is 24 virtual hours, and the run takes as long as the work it does, not
as the weeks it simulates. A person answers at their own instant; the deadline
sweep (``notifications.sweep.sweep``; ``sweep_bots`` every five minutes) runs
on a grid of ``--sweep-minutes`` (one virtual minute), as beat runs it: it
applies the deadlines and the halfway reminders, the last calls, the "your
turn" notices whose quiet delay is over (ruling 19), the digests and the
starts and ends of times away. A sweep that would find nothing is skipped:
the clock jumps to the first instant of the grid at or after the earliest
instant some work falls due (``next_due``, read from the same rows), and
sweeps at least every ``--idle-minutes`` (60) anyway. ``--every-minute``
sweeps at every instant of the grid instead; both gave the same figures on 3
tables over 3 days (the skipping was ten times faster).

**The follow-ups run as in production.** ``notifications.jobs.publish`` is
captured (the tests' ``Jobs`` way) and every job runs here, inline, at its
virtual instant, in the order it was queued (``notifications.tasks.run_inline``):
follow-ups, bot turns, autopilot and forced moves, e-mails (Django's in-memory
backend) and web pushes (encrypted and posted by pywebpush with VAPID to a
push service of this script's own on 127.0.0.1, which answers 201). Bots play
through the jobs (``GAMENOOK_RUN_BOTS_INLINE`` off), as with Celery.

**The tables.** ``--tables`` turn-by-turn tables of Wild Cards Flip, four
seats, 24-hour turns, missed deadline: "bot plays the turn" (the plain move
of ruling 4). On each table 2 or 3 scripted people (drawn per table, or
``--people-per-table``) in the first seats, Normal bots in the others. Each
person sits at one table only. People are users with a confirmed address and
one push device each; their preferences are the defaults (every kind by
e-mail and by push, the last call at a tenth of the turn). Nobody ever has a
table's page open (no socket, no polling): by ruling 19 they count as away
for mail, so every notice they may get, they get.

**The people.** When it becomes a person's turn, they answer after a delay
drawn from a log-normal distribution, median 2 hours, sigma 1.5 (so about 5%
of turns past the 24-hour deadline, where the table's timeout plays), the
same delay for the same (table, seat, turn) in both configurations (seeded by
``--seed``). They play their whole turn then, through
``games.services.table_apply_action``, from their seat's view
(``games.selectors.table_view``): a card at random among the playable ones,
else the first legal action (draw, pass); a colour at random. One person in
ten (chosen with the seed) is away for 7 days from a random instant in the
first 3 days: an answer due in that week is never given.

**Two configurations, the same seeds, people, deals and delays.**

- A, baseline: nobody uses the autopilot or forced moves; the away people
  simply do not answer (their turns wait for the deadline).
- B, with both: the away people mark themselves away for that week in
  advance (``games.away.away_set``, Normal level; the sweep begins and ends
  it), and every person has forced moves on
  (``games.away.play_settings_update(forced_moves=True)``).

Each configuration runs in a process of its own, on a database cloned from
one migrated template (``<name>_a``, ``<name>_b``), so that table and seat ids,
hence the deals (seeded per table here) and the bots' seeds, are the same in
both. The database of ``--db-url`` (its name must contain "bench") is
created, and dropped with its clones at the end.

**What it prints** (and writes as JSON with ``--json``), per configuration:
the median and p90 hours a game took (start to finish) and how many
finished within ``--days``; the turns, by who ended them (people, forced moves,
autopilot, timeouts, bots); and the messages: per person, the e-mails
(``OutboxMessage`` of kinds your_turn, reminder, last_call, timeout, game_over)
and the pushes (``PushMessage``); per (person, table, turn), the messages
(one kind counts once, whichever channels carried it) and the raw rows (each
e-mail and each push), their maximum and how many keys had more than one, with
the kinds that made them, and the same for the turn notices alone (your_turn,
reminder, last_call: the timeout and the end of the game are news of their
own). Then the ratio of the medians B/A (issue 38's target: at most 0.70) and
whether "no more than one message per table per turn" held. No target is
asserted. CPU seconds (this process, each configuration's process, and its
PostgreSQL backend) are printed with the commit, the date and the load average.
"""

from __future__ import annotations

import argparse
import base64
import heapq
import json
import math
import os
import platform
import random
import resource
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from collections import Counter, defaultdict
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit, urlunsplit

ROOT = Path(__file__).resolve().parent.parent
DEFAULT_DB_URL = "postgres://postgres@127.0.0.1:5432/gamenook_bench_correspondence"
CONFIGS = ("A", "B")
#: The virtual instant every run starts at (a Monday morning, UTC).
T0 = datetime(2030, 3, 4, 8, 0, tzinfo=UTC)
SEATS = 4
TURN_HOURS = 24
#: The people's delays: log-normal, median 2 hours, sigma 1.5.
DELAY_MEDIAN_HOURS = 2.0
DELAY_SIGMA = 1.5
AWAY_DAYS = 7
AWAY_START_WITHIN_DAYS = 3
AWAY_SHARE = 10  # one person in ten
#: The e-mails counted as messages about a table's turn.
TURN_KINDS = ("your_turn", "reminder", "last_call", "timeout", "game_over")
#: The messages that tell a person of their turn (issue 38: one per table and turn, whichever
#: comes first while they are away); the timeout and the end of the game are news of their own.
NOTICE_KINDS = ("your_turn", "reminder", "last_call")
#: Who ends a turn: a person, their forced moves, their autopilot, the timeout, a bot's seat.
TURN_HANDS = ("people", "forced", "autopilot", "timeout", "bots")
#: ``sweep_bots`` runs every five minutes in production (GAMENOOK_BOT_SWEEP_SECONDS).
BOT_SWEEP_EVERY = timedelta(minutes=5)


# ----------------------------------------------------------------------------
# The plan: who sits where, who is away when, how long each answer takes. No Django.


@dataclass(frozen=True)
class Person:
    name: str
    table: int  # index of the table in the plan
    seat: int
    #: The week away, as offsets from T0, or None.
    away: tuple[timedelta, timedelta] | None


@dataclass(frozen=True)
class Plan:
    seed: int
    tables: int
    people: tuple[tuple[Person, ...], ...]  # per table, by seat

    def everyone(self) -> list[Person]:
        return [person for table in self.people for person in table]


def make_plan(*, tables: int, seed: int, people_per_table: int | None) -> Plan:
    """Who sits where and who is away when: the same for both configurations.

    >>> plan = make_plan(tables=20, seed=1, people_per_table=None)
    >>> sorted({len(t) for t in plan.people}), sum(p.away is not None for p in plan.everyone())
    ([2, 3], 5)
    """
    rng = random.Random(f"plan:{seed}")
    people: list[tuple[Person, ...]] = []
    for index in range(tables):
        count = people_per_table or rng.choice((2, 3))
        people.append(
            tuple(Person(f"t{index:03d}s{seat}", index, seat, None) for seat in range(count))
        )
    everyone = [person for table in people for person in table]
    away_count = round(len(everyone) / AWAY_SHARE)
    chosen = {p.name for p in rng.sample(everyone, away_count)}
    planned: list[tuple[Person, ...]] = []
    for table in people:
        row = []
        for person in table:
            if person.name in chosen:
                start = timedelta(seconds=rng.uniform(0, AWAY_START_WITHIN_DAYS * 86400))
                start = timedelta(minutes=int(start.total_seconds() // 60))
                person = Person(
                    person.name, person.table, person.seat, (start, start + timedelta(AWAY_DAYS))
                )
            row.append(person)
        planned.append(tuple(row))
    return Plan(seed=seed, tables=tables, people=tuple(planned))


def answer_delay(seed: int, table: int, seat: int, turn: int) -> timedelta:
    """How long the person at (``table``, ``seat``) takes to answer turn ``turn``.

    Log-normal, median ``DELAY_MEDIAN_HOURS``, sigma ``DELAY_SIGMA``; one draw
    per (seed, table, seat, turn), so both configurations see the same delay
    for the same turn of the same game.

    >>> answer_delay(1, 0, 0, 5) == answer_delay(1, 0, 0, 5) != answer_delay(1, 0, 0, 6)
    True
    """
    rng = random.Random(f"delay:{seed}:{table}:{seat}:{turn}")
    hours = rng.lognormvariate(math.log(DELAY_MEDIAN_HOURS), DELAY_SIGMA)
    return timedelta(seconds=round(hours * 3600))


def percentile(values: list[float], p: float) -> float:
    """The ``p``-th percentile (0-100) of ``values``, linear between the closest ranks.

    >>> percentile([1.0, 2.0, 3.0, 4.0], 50), percentile([1.0, 2.0, 3.0, 4.0], 90)
    (2.5, 3.7)
    """
    ordered = sorted(values)
    if not ordered:
        return math.nan
    rank = (len(ordered) - 1) * p / 100
    low, high = math.floor(rank), math.ceil(rank)
    return round(ordered[low] + (ordered[high] - ordered[low]) * (rank - low), 6)


# ----------------------------------------------------------------------------
# A push service of our own: it answers 201 to every push, as a real one does.


class PushService:
    """An HTTP server in a thread that accepts every push (201) and counts them."""

    def __init__(self) -> None:
        self.received = 0
        service = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:  # noqa: N802 (http.server's name)
                self.rfile.read(int(self.headers.get("Content-Length") or 0))
                service.received += 1
                self.send_response(201)
                self.send_header("Content-Length", "0")
                self.end_headers()

            def log_message(self, format: str, *args: Any) -> None:  # noqa: A002
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)
        self.thread.start()

    def endpoint(self, name: str) -> str:
        host, port = self.server.server_address[:2]
        return f"http://{host!s}:{port}/push/{name}"

    def stop(self) -> None:
        self.server.shutdown()
        self.server.server_close()


def _b64url(raw: bytes) -> str:
    return base64.urlsafe_b64encode(raw).rstrip(b"=").decode("ascii")


def _p256_point(private_key: Any) -> bytes:
    from cryptography.hazmat.primitives import serialization

    return bytes(
        private_key.public_key().public_bytes(
            serialization.Encoding.X962, serialization.PublicFormat.UncompressedPoint
        )
    )


def vapid_keys() -> tuple[str, str]:
    """A VAPID pair as the settings take it: (public point, private scalar), base64url."""
    from cryptography.hazmat.primitives.asymmetric import ec

    key = ec.generate_private_key(ec.SECP256R1())
    scalar = key.private_numbers().private_value.to_bytes(32, "big")
    return _b64url(_p256_point(key)), _b64url(scalar)


def device_keys() -> tuple[str, str]:
    """A browser's subscription keys (p256dh, auth), made as a browser makes them."""
    from cryptography.hazmat.primitives.asymmetric import ec

    return _b64url(_p256_point(ec.generate_private_key(ec.SECP256R1()))), _b64url(os.urandom(16))


# ----------------------------------------------------------------------------
# The simulation (needs Django set up and a database)


class Jobs:
    """The jobs the service hands to the broker, captured and run here, in order.

    As ``tests/notifications/conftest.py``'s ``Jobs``: a job for now waits in
    ``ready`` until ``drain`` runs it (``run_inline``, the task's own code); a
    job queued for an instant waits until the clock reaches it.
    """

    def __init__(self) -> None:
        self.ready: list[tuple[str, tuple[int, ...]]] = []
        self.timed: list[tuple[datetime, str, tuple[int, ...]]] = []
        self.ran: Counter[str] = Counter()

    def publish(self, name: str, args: tuple[int, ...], eta: datetime | None = None) -> None:
        if eta is None:
            self.ready.append((name, args))
        else:
            self.timed.append((eta, name, args))

    def add(self, name: str, args: tuple[int, ...]) -> None:
        """A ``notifications.jobs.Dispatch``: what the sweep hands out."""
        self.ready.append((name, args))

    def drain(self) -> int:
        from django.utils import timezone

        from notifications.tasks import run_inline

        now = timezone.now()
        due = sorted(job for job in self.timed if job[0] <= now)
        if due:
            self.timed = [job for job in self.timed if job[0] > now]
            self.ready.extend((name, args) for _, name, args in due)
        done = 0
        while self.ready:
            name, args = self.ready.pop(0)
            run_inline(name, args)
            self.ran[name.rsplit(".", 1)[-1]] += 1
            done += 1
        return done


@contextmanager
def captured_jobs() -> Iterator[Jobs]:
    """``notifications.jobs.publish`` replaced by a ``Jobs`` for the block."""
    from notifications import jobs as jobs_module

    jobs = Jobs()
    original = jobs_module.publish
    jobs_module.publish = jobs.publish
    try:
        yield jobs
    finally:
        jobs_module.publish = original


@contextmanager
def turn_ends_heard() -> Iterator[list[tuple[int, int]]]:
    """(table id, seq) of every committed change that ended a turn (``table_changed``).

    Each such commit is one seat's moves made by one hand (a person, the
    timeout, a bot, the autopilot, the forced moves): its last move's source
    says who ended the turn.
    """
    from games.signals import table_changed

    heard: list[tuple[int, int]] = []

    def listen(*, table_id: int, seq: int, new_turn: bool, finished: bool, **_: Any) -> None:
        if new_turn or finished:
            heard.append((table_id, seq))

    table_changed.connect(listen, dispatch_uid="bench_correspondence.turn_ends")
    try:
        yield heard
    finally:
        table_changed.disconnect(dispatch_uid="bench_correspondence.turn_ends")


@contextmanager
def known_deals(seed: int) -> Iterator[None]:
    """Each table deals the game of its index in the plan (``games.services.new_game_seed``)."""
    from games import services

    original = services.new_game_seed
    counter = iter(range(10**9))
    services.new_game_seed = lambda: f"bench-correspondence:{seed}:{next(counter)}"
    try:
        yield
    finally:
        services.new_game_seed = original


def _pick(view: dict[str, Any], rng: random.Random) -> dict[str, Any]:
    """A person's choice among their seat's legal actions: a card to play if any, else the
    first legal action (draw, pass, a colour); a colour, a target at random."""
    legal = view["legal_actions"]
    plays = [a for a in legal if a["type"] == "play"]
    choice = rng.choice(plays) if plays else legal[0]
    request: dict[str, Any] = {"type": choice["type"]}
    if "card" in choice:
        request["card"] = choice["card"]
    if choice.get("colors"):
        request["color"] = rng.choice(choice["colors"])
    if choice.get("targets"):
        request["target"] = rng.choice(choice["targets"])
    return request


@dataclass
class Sim:
    """One configuration's run: what it created and what it counted."""

    config: str
    plan: Plan
    users: dict[str, Any] = field(default_factory=dict)  # person name -> User
    table_ids: list[int] = field(default_factory=list)  # by plan index
    index_of: dict[int, int] = field(default_factory=dict)  # table id -> plan index
    scheduled: set[tuple[int, int]] = field(default_factory=set)  # (table id, turn)
    answers: list[tuple[datetime, int, int, int]] = field(default_factory=list)  # heap
    answered: int = 0
    skipped_away: int = 0
    sweeps: int = 0


def _setup(sim: Sim, push: PushService | None, now: datetime) -> None:
    """The people (confirmed address, a push device), their settings, the tables started."""
    from django.contrib.auth.models import User

    from games import away, services
    from notifications import services as notifications

    for person in sim.plan.everyone():
        name = f"{sim.config.lower()}-{person.name}"
        user = User.objects.create_user(name, f"{name}@example.com", "bench")
        notifications.email_verified_set(user, user.email)
        if push is not None and notifications.push_enabled():
            p256dh, auth = device_keys()
            notifications.push_subscription_save(
                user=user, endpoint=push.endpoint(name), p256dh=p256dh, auth=auth, name="bench"
            )
        if sim.config == "B":
            away.play_settings_update(user=user, forced_moves=True)
            if person.away is not None:
                away.away_set(
                    user=user,
                    starts_at=now + person.away[0],
                    ends_at=now + person.away[1],
                    level="normal",
                    now=now,
                )
        sim.users[person.name] = user
    for index, people in enumerate(sim.plan.people):
        host = sim.users[people[0].name]
        table = services.table_create(
            host=host, seat_count=SEATS, turn_hours=TURN_HOURS, timeout_policy="bot"
        )
        for person in people[1:]:
            services.table_join(table_id=table.pk, user=sim.users[person.name])
        for _ in range(SEATS - len(people)):
            services.table_add_bot(table_id=table.pk, user=host, level="normal")
        services.table_start(table_id=table.pk, user=host)
        sim.table_ids.append(table.pk)
        sim.index_of[table.pk] = index


def _schedule(sim: Sim) -> int:
    """Schedule the answer of every person whose turn began since the last look; how many
    tables still run."""
    from games.models import Table

    rows = Table.objects.filter(pk__in=sim.table_ids, status=Table.Status.ACTIVE).values_list(
        "pk", "turn", "to_act", "turn_started_at"
    )
    running = 0
    for table_id, turn, to_act, started in rows:
        running += 1
        if (table_id, turn) in sim.scheduled or to_act is None or started is None:
            continue
        index = sim.index_of[table_id]
        if to_act >= len(sim.plan.people[index]):
            continue  # a bot's seat
        sim.scheduled.add((table_id, turn))
        at = started + answer_delay(sim.plan.seed, index, to_act, turn)
        heapq.heappush(sim.answers, (at, table_id, turn, to_act))
    return running


def _answer(sim: Sim, table_id: int, turn: int, seat: int, now: datetime) -> bool:
    """The person at ``seat`` plays turn ``turn`` to its end, if it is still theirs and they
    are not away; True when they moved."""
    from games import selectors, services
    from games.models import Table

    index = sim.index_of[table_id]
    person = sim.plan.people[index][seat]
    if person.away is not None and T0 + person.away[0] <= now < T0 + person.away[1]:
        table = Table.objects.only("turn", "to_act", "status").get(pk=table_id)
        if table.status == Table.Status.ACTIVE and table.turn == turn and table.to_act == seat:
            sim.skipped_away += 1
        return False
    rng = random.Random(f"pick:{sim.plan.seed}:{index}:{seat}:{turn}")
    moved = False
    for _ in range(10):  # a turn is a few actions at most (a draw, the drawn card, a colour)
        table = Table.objects.get(pk=table_id)
        if table.status != Table.Status.ACTIVE or table.turn != turn or table.to_act != seat:
            break
        view = selectors.table_view(table, seat)
        if not view or not view["legal_actions"]:
            break
        services.table_apply_action(
            table_id=table_id,
            user=sim.users[person.name],
            data=_pick(view, rng),
            expected_seq=None,
        )
        moved = True
    return moved


def next_due(sim: Sim) -> datetime | None:
    """The earliest instant at which the sweep may find work for this run's tables and
    people, read from the rows it reads them from; None when nothing is pending.

    Each instant is one the sweep acts at or after: a deadline, a halfway
    reminder, the earliest last call (``games.selectors.last_call_lead``, for a
    person's turn not yet called), a "your turn" notice, an e-mail or push left
    pending, a digest, the start or end of a time away. An instant too early
    only costs a sweep that finds nothing; a kind of work missing here is still
    found by the sweep that ``--idle-minutes`` forces.
    """
    from django.conf import settings
    from django.db.models import Exists, OuterRef, Subquery

    from games.models import Away, Seat, Table
    from games.selectors import last_call_lead
    from notifications.models import (
        LastCall,
        OutboxMessage,
        Preferences,
        PushMessage,
        TurnNotice,
    )

    person_to_act = Seat.objects.filter(
        table=OuterRef("pk"),
        number=OuterRef("to_act"),
        user__isnull=False,
        left_at__isnull=True,
        away=False,
        struck_out=False,
        autopilot="",
    )
    called = LastCall.objects.filter(table=OuterRef("pk"), turn=OuterRef("turn"))
    users = [user.pk for user in sim.users.values()]

    def first(rows: Any, column: str) -> Subquery:
        """The least ``column`` of ``rows`` (a subquery PostgreSQL runs once per query)."""
        return Subquery(
            rows.filter(**{f"{column}__isnull": False}).order_by(column).values(column)[:1]
        )

    mine = {"user_id__in": users}
    open_away = Away.objects.filter(ended_at__isnull=True, **mine)
    # One query: each running table's instants, and the least of each other kind alongside.
    rows = (
        Table.objects.filter(pk__in=sim.table_ids, status=Table.Status.ACTIVE)
        .annotate(
            person=Exists(person_to_act),
            called=Exists(called),
            notice=first(TurnNotice.objects.filter(**mine), "due_at"),
            digest=first(Preferences.objects.filter(**mine), "digest_due_at"),
            away_starts=first(open_away.filter(began_at__isnull=True), "starts_at"),
            away_ends=first(open_away.filter(began_at__isnull=False), "ends_at"),
            mail=first(OutboxMessage.objects.filter(status="pending", **mine), "next_attempt_at"),
            push=first(PushMessage.objects.filter(status="pending", **mine), "next_attempt_at"),
        )
        .values_list(
            "deadline_at",
            "remind_at",
            "turn_hours",
            "person",
            "called",
            "notice",
            "digest",
            "away_starts",
            "away_ends",
            "mail",
            "push",
        )
    )
    grace = timedelta(seconds=float(settings.GAMENOOK_OUTBOX_GRACE_SECONDS))
    instants: list[datetime] = []
    for deadline, remind, hours, person, was_called, *others in rows:
        instants += [i for i in (deadline, remind) if i is not None]
        if deadline is not None and person and not was_called:
            instants.append(deadline - last_call_lead(hours))
        notice, digest, away_starts, away_ends, mail, push = others
        instants += [i for i in (notice, digest, away_starts, away_ends) if i is not None]
        instants += [i + grace for i in (mail, push) if i is not None]
    return min(instants, default=None)


def simulate(  # noqa: PLR0913, PLR0915 (the run's knobs; one loop of events)
    *,
    config: str,
    plan: Plan,
    days: float = 60,
    sweep_minutes: float = 1,
    idle_minutes: float = 60,
    every_step: bool = False,
    push: bool = True,
    progress: Callable[[str], None] | None = None,
) -> dict[str, Any]:
    """Run configuration ``config`` ("A" or "B") of ``plan`` for at most ``days`` virtual
    days, or until every game is over; its figures (``figures``).

    The sweep runs on a grid of ``sweep_minutes`` from T0, as beat runs it: at
    every step with ``every_step``, else only at the steps at or after an
    instant ``next_due`` names (and at least every ``idle_minutes``), which
    does the same work without the sweeps that find nothing.
    """
    import time_machine
    from django.conf import settings
    from django.test import override_settings

    from notifications.sweep import sweep, sweep_bots

    if config not in CONFIGS:
        raise ValueError(f"config is one of {CONFIGS}")
    overrides: dict[str, Any] = {
        "GAMENOOK_RUN_BOTS_INLINE": False,  # bot turns go through the jobs, as with Celery
        "GAMENOOK_SECONDS_PER_HOUR": 3600,
        "GAMENOOK_PUSH_ALLOW_HTTP_LOOPBACK": True,  # our push service is on 127.0.0.1
        "GAMENOOK_MAX_RUNNING_TABLES": max(50, plan.tables),
        "GAMENOOK_MAX_BOT_SEATS": max(20, SEATS * plan.tables),
    }
    if push and not (settings.GAMENOOK_VAPID_PUBLIC_KEY and settings.GAMENOOK_VAPID_PRIVATE_KEY):
        public, private = vapid_keys()
        overrides |= {"GAMENOOK_VAPID_PUBLIC_KEY": public, "GAMENOOK_VAPID_PRIVATE_KEY": private}
    sim = Sim(config=config, plan=plan)
    service = PushService() if push else None
    step = timedelta(minutes=sweep_minutes)
    quiet = timedelta(seconds=float(settings.GAMENOOK_YOUR_TURN_QUIET_SECONDS))
    idle = max(step, timedelta(minutes=idle_minutes))
    horizon = T0 + timedelta(days=days)
    started_cpu = time.process_time()

    def grid_after(instant: datetime) -> datetime:
        """The first sweep instant of the grid strictly after ``instant``."""
        return T0 + step * (math.floor((instant - T0) / step) + 1)

    def grid_at_or_after(instant: datetime) -> datetime:
        return T0 + step * math.ceil((instant - T0) / step)

    try:
        with (
            override_settings(**overrides),
            time_machine.travel(T0, tick=False) as clock,
            captured_jobs() as jobs,
            turn_ends_heard() as turn_ends,
            known_deals(plan.seed),
        ):
            _setup(sim, service, T0)
            jobs.drain()
            running = _schedule(sim)
            now, last_sweep, last_bot_sweep = T0, T0, T0
            next_report = T0 + timedelta(days=1)
            due = None if every_step else next_due(sim)
            while running and now < horizon:
                tick = grid_after(now)
                if not every_step:
                    # The first grid instant at or after ``due``, at the latest ``idle``
                    # after the last sweep; never now again.
                    wanted = grid_at_or_after(last_sweep + idle)
                    if due is not None:
                        wanted = min(wanted, grid_at_or_after(due))
                    tick = max(tick, wanted)
                if tick > horizon:
                    now = horizon
                    clock.move_to(now)
                    break
                if sim.answers and sim.answers[0][0] <= tick:
                    at, table_id, turn, seat = heapq.heappop(sim.answers)
                    now = max(at, now)
                    clock.move_to(now)
                    if _answer(sim, table_id, turn, seat, now):
                        sim.answered += 1
                    jobs.drain()
                    running = _schedule(sim)
                    if not every_step:
                        # What an answer adds to do, the soonest: the next person's "your
                        # turn" notice (a new turn's deadline, reminder and last call come
                        # hours later). Read again after the next sweep.
                        soon = now + quiet
                        due = soon if due is None else min(due, soon)
                    continue
                now = tick
                clock.move_to(now)
                sweep(now=now, run=jobs.add)
                sim.sweeps += 1
                last_sweep = now
                if now - last_bot_sweep >= BOT_SWEEP_EVERY:
                    sweep_bots(now=now, run=jobs.add)
                    last_bot_sweep = now
                if jobs.drain():
                    running = _schedule(sim)
                due = None if every_step else next_due(sim)
                if progress is not None and now >= next_report:
                    progress(
                        f"{config}: day {(now - T0).days}, {running} of {plan.tables} running, "
                        f"{sim.sweeps} sweeps, {time.process_time() - started_cpu:.0f} s CPU"
                    )
                    next_report += timedelta(days=1)
            ended = now
    finally:
        if service is not None:
            service.stop()
    result = figures(sim, turn_ends)
    result["simulated_days"] = round((ended - T0) / timedelta(days=1), 3)
    result["jobs_run"] = dict(sorted(jobs.ran.items()))
    result["sweeps"] = sim.sweeps
    result["answers"] = sim.answered
    result["answers_not_given_away"] = sim.skipped_away
    result["pushes_received_by_push_service"] = 0 if service is None else service.received
    result["cpu_seconds_simulation"] = round(time.process_time() - started_cpu, 1)
    return result


def figures(sim: Sim, turn_ends: list[tuple[int, int]]) -> dict[str, Any]:
    """What a run measured, read from the service's own rows (tables, moves, outbox, pushes)."""
    from games.models import Move, Table
    from notifications.models import OutboxMessage, PushMessage

    tables = Table.objects.filter(pk__in=sim.table_ids)
    hours = [
        (finished - started) / timedelta(hours=1)
        for started, finished in tables.filter(status=Table.Status.FINISHED).values_list(
            "started_at", "finished_at"
        )
        if started is not None and finished is not None
    ]
    # Who ended each turn: the source of the commit's last move.
    moves = {
        (table_id, seq): (seat, source, action)
        for table_id, seq, seat, source, action in Move.objects.filter(
            table_id__in=sim.table_ids
        ).values_list("table_id", "seq", "seat", "source", "action")
    }
    turns: Counter[str] = Counter()
    for key in turn_ends:
        seat, source, action = moves[key]
        if action == "start":
            continue
        people = len(sim.plan.people[sim.index_of[key[0]]])
        if seat is not None and seat >= people:
            turns["bots"] += 1
        else:
            turns[{"player": "people"}.get(source, source)] += 1
    moves_by_source = Counter(source for _, source, action in moves.values() if action != "start")
    user_ids = {user.pk: name for name, user in sim.users.items()}
    mails = list(
        OutboxMessage.objects.filter(user_id__in=user_ids, kind__in=TURN_KINDS).values_list(
            "user_id", "kind", "table_id", "turn"
        )
    )
    pushes = list(
        PushMessage.objects.filter(user_id__in=user_ids).values_list(
            "user_id", "kind", "table_id", "turn"
        )
    )
    return {
        "config": sim.config,
        "tables": sim.plan.tables,
        "people": len(user_ids),
        "away_people": sum(p.away is not None for p in sim.plan.everyone()),
        "games_finished": len(hours),
        "game_hours_median": round(statistics.median(hours), 2) if hours else None,
        "game_hours_p90": percentile(hours, 90) if hours else None,
        "game_hours_mean": round(statistics.fmean(hours), 2) if hours else None,
        "turns": {kind: turns.get(kind, 0) for kind in TURN_HANDS} | dict(turns),
        "moves_by_source": dict(sorted(moves_by_source.items())),
        "messages": message_figures(user_ids, mails, pushes),
    }


def message_figures(
    user_ids: dict[int, str],
    mails: Sequence[tuple[int, str, int | None, int | None]],
    pushes: Sequence[tuple[int, str, int | None, int | None]],
) -> dict[str, Any]:
    """Messages per person, and per (person, table, turn): counted once per kind however
    many channels carried it, and raw (each e-mail and each push).

    >>> figures = message_figures(
    ...     {1: "ann", 2: "bob"},
    ...     [(1, "your_turn", 7, 3), (1, "timeout", 7, 3), (2, "game_over", 7, 9)],
    ...     [(1, "your_turn", 7, 3), (2, "game_over", 7, 9)],
    ... )
    >>> figures["per_turn_max"], figures["per_turn_raw_max"], figures["turns_over_one"]
    (2, 3, 1)
    >>> figures["over_one_by_kinds"], figures["notices_per_turn_max"]
    ({'timeout+your_turn': 1}, 1)
    """
    emails = Counter(user for user, *_ in mails)
    pushed = Counter(user for user, *_ in pushes)
    kinds: defaultdict[tuple[int, int | None, int | None], set[str]] = defaultdict(set)
    raw: Counter[tuple[int, int | None, int | None]] = Counter()
    for user, kind, table, turn in [*mails, *pushes]:
        kinds[(user, table, turn)].add(kind)
        raw[(user, table, turn)] += 1
    per_turn = {key: len(found) for key, found in kinds.items()}
    notices = {key: len(found & set(NOTICE_KINDS)) for key, found in kinds.items()}
    over = [key for key, n in per_turn.items() if n > 1]
    emails_each = [emails.get(user, 0) for user in user_ids]
    pushes_each = [pushed.get(user, 0) for user in user_ids]
    return {
        "emails": len(mails),
        "pushes": len(pushes),
        "emails_by_kind": dict(sorted(Counter(kind for _, kind, *_ in mails).items())),
        "pushes_by_kind": dict(sorted(Counter(kind for _, kind, *_ in pushes).items())),
        "emails_per_person": _spread(emails_each),
        "pushes_per_person": _spread(pushes_each),
        "per_turn_keys": len(per_turn),
        "per_turn_max": max(per_turn.values(), default=0),
        "per_turn_raw_max": max(raw.values(), default=0),
        "turns_over_one": len(over),
        "turns_raw_over_one": sum(1 for n in raw.values() if n > 1),
        "notices_per_turn_max": max(notices.values(), default=0),
        "notices_over_one": sum(1 for n in notices.values() if n > 1),
        "over_one_by_kinds": dict(
            sorted(Counter("+".join(sorted(kinds[key])) for key in over).items())
        ),
    }


def _spread(values: list[int]) -> dict[str, float]:
    if not values:
        return {"mean": 0.0, "median": 0.0, "max": 0.0}
    return {
        "mean": round(statistics.fmean(values), 2),
        "median": float(statistics.median(values)),
        "max": float(max(values)),
    }


# ----------------------------------------------------------------------------
# Report


def summary(results: dict[str, dict[str, Any]]) -> dict[str, Any]:
    """The comparison of A and B: the ratio of the medians and the two targets."""
    a, b = results.get("A"), results.get("B")
    out: dict[str, Any] = {}
    if a and b and a["game_hours_median"] and b["game_hours_median"]:
        ratio = b["game_hours_median"] / a["game_hours_median"]
        out["median_ratio_b_over_a"] = round(ratio, 3)
        out["p90_ratio_b_over_a"] = round(b["game_hours_p90"] / a["game_hours_p90"], 3)
        out["games_target_held"] = ratio <= 0.70  # noqa: PLR2004 (issue 38: 30% shorter)
    for name, result in results.items():
        out[f"message_target_held_{name}"] = result["messages"]["per_turn_max"] <= 1
        notices = result["messages"].get("notices_per_turn_max")
        out[f"notice_target_held_{name}"] = None if notices is None else notices <= 1
    return out


def report(results: dict[str, dict[str, Any]], meta: dict[str, Any]) -> str:
    lines = [
        f"bench_correspondence: {meta['command']}",
        f"commit {meta['commit']}, {meta['machine']}, {meta['date']}, load {meta['load']}",
    ]
    for name, r in results.items():
        m = r["messages"]
        lines += [
            "",
            f"[{name}] {r['tables']} tables, {r['people']} people ({r['away_people']} away a week),"
            f" {r['simulated_days']} days simulated, {r['sweeps']} sweeps",
            f"  games finished {r['games_finished']}/{r['tables']}:"
            f" median {r['game_hours_median']} h, p90 {r['game_hours_p90']} h,"
            f" mean {r['game_hours_mean']} h",
            "  turns ended by: " + ", ".join(f"{k} {v}" for k, v in r["turns"].items()),
            "  moves by source: " + ", ".join(f"{k} {v}" for k, v in r["moves_by_source"].items()),
            f"  answers given {r['answers']}, not given (away) {r['answers_not_given_away']}",
            f"  e-mails {m['emails']} {m['emails_by_kind']}",
            f"  pushes {m['pushes']} {m['pushes_by_kind']}"
            f" (push service received {r['pushes_received_by_push_service']})",
            f"  per person: e-mails {m['emails_per_person']}, pushes {m['pushes_per_person']}",
            f"  per (person, table, turn): max {m['per_turn_max']} message(s), raw per channel max"
            f" {m['per_turn_raw_max']}; keys with more than one: {m['turns_over_one']}"
            f" (raw {m['turns_raw_over_one']}) of {m['per_turn_keys']}",
            f"  more than one, by kinds: {m['over_one_by_kinds']}; turn notices alone"
            f" ({', '.join(NOTICE_KINDS)}): max {m.get('notices_per_turn_max', '?')},"
            f" more than one {m.get('notices_over_one', '?')}",
            f"  CPU: {r.get('cpu_seconds_process', '?')} s process"
            f" ({r['cpu_seconds_simulation']} s simulating),"
            f" PostgreSQL backend {r.get('cpu_seconds_postgres', '?')} s,"
            f" wall {r.get('wall_seconds', '?')} s",
        ]
    s = summary(results)
    lines.append("")
    if "median_ratio_b_over_a" in s:
        lines.append(
            f"median B/A {s['median_ratio_b_over_a']} (target at most 0.70:"
            f" {'held' if s['games_target_held'] else 'missed'}), p90 B/A {s['p90_ratio_b_over_a']}"
        )
    for name in results:
        held = s[f"message_target_held_{name}"]
        notices = s[f"notice_target_held_{name}"]
        lines.append(
            f"at most one message per person, table and turn in {name}:"
            f" {'held' if held else 'missed'} (all five kinds);"
            f" {'?' if notices is None else 'held' if notices else 'missed'} (turn notices alone)"
        )
    lines.append(
        f"CPU of this process {meta['cpu_seconds_parent']} s, wall {meta['wall_seconds']} s"
    )
    return "\n".join(lines)


# ----------------------------------------------------------------------------
# Processes and databases


def _with_name(url: str, name: str) -> str:
    parts = urlsplit(url)
    return urlunsplit(parts._replace(path=f"/{name}"))


def _admin(url: str, *statements: str) -> None:
    import psycopg

    with psycopg.connect(_with_name(url, "postgres"), autocommit=True) as conn:
        for statement in statements:
            conn.execute(statement)


def _environment(database_url: str) -> dict[str, str]:
    env = dict(os.environ)
    env.pop("CELERY_BROKER_URL", None)  # nothing is published: the jobs run here
    env.update(
        DJANGO_SETTINGS_MODULE="gamenook.settings.test",
        DATABASE_URL=database_url,
        GAMENOOK_SECONDS_PER_HOUR="3600",
        # A line per time away that ends is the service's own INFO log; warnings still show.
        DJANGO_LOG_LEVEL=os.environ.get("DJANGO_LOG_LEVEL", "WARNING"),
        PYTHONPATH=str(ROOT),
    )
    return env


def _backend_cpu() -> float | None:
    """CPU seconds of this process's PostgreSQL backend, if it runs on this machine."""
    from django.db import connection

    if connection.vendor != "postgresql":
        return None
    with connection.cursor() as cursor:
        cursor.execute("SELECT pg_backend_pid()")
        (pid,) = cursor.fetchone()
    stat = Path(f"/proc/{pid}/stat")
    if not stat.exists():
        return None
    fields = stat.read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def child(args: argparse.Namespace) -> int:
    """One configuration, in this process, on the database of ``DATABASE_URL``."""
    import django

    sys.path.insert(0, str(ROOT))
    django.setup()
    started = time.perf_counter()
    pg_before = _backend_cpu()
    plan = make_plan(tables=args.tables, seed=args.seed, people_per_table=args.people_per_table)
    result = simulate(
        config=args.child,
        plan=plan,
        days=args.days,
        sweep_minutes=args.sweep_minutes,
        idle_minutes=args.idle_minutes,
        every_step=args.every_minute,
        push=not args.no_push,
        progress=lambda line: print(line, file=sys.stderr, flush=True),
    )
    pg_after = _backend_cpu()
    usage = resource.getrusage(resource.RUSAGE_SELF)
    result["cpu_seconds_process"] = round(usage.ru_utime + usage.ru_stime, 1)
    if pg_before is not None and pg_after is not None:
        result["cpu_seconds_postgres"] = round(pg_after - pg_before, 1)
    result["wall_seconds"] = round(time.perf_counter() - started, 1)
    Path(args.child_out).write_text(json.dumps(result, default=str))
    return 0


def _commit() -> str:
    """The checkout's commit, with "+changes" when its files differ from it."""

    def git(*args: str) -> str:
        return subprocess.run(
            ["git", *args], cwd=ROOT, capture_output=True, text=True, check=False
        ).stdout.strip()

    commit = git("log", "-1", "--format=%h") or "?"
    return commit + ("+changes" if git("status", "--porcelain", "--untracked-files=no") else "")


def _meta(argv: list[str], started: float, commit: str, began: datetime) -> dict[str, Any]:
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return {
        "command": " ".join(["scripts/bench_correspondence.py", *argv]),
        # As the run began: the code the configurations' processes loaded.
        "commit": commit,
        "machine": f"{platform.node()} {platform.machine()} {os.cpu_count()} CPUs",
        "date": began.strftime("%Y-%m-%d %H:%M UTC"),
        "load": " ".join(f"{x:.2f}" for x in os.getloadavg()),
        "cpu_seconds_parent": round(usage.ru_utime + usage.ru_stime, 1),
        "wall_seconds": round(time.perf_counter() - started, 1),
    }


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    parser = argparse.ArgumentParser(description=(__doc__ or "").split("\n")[0])
    parser.add_argument("--tables", type=int, default=200)
    parser.add_argument("--seed", type=int, default=38)
    parser.add_argument(
        "--people-per-table", type=int, choices=(2, 3), default=None, help="default: 2 or 3 drawn"
    )
    parser.add_argument("--days", type=float, default=60, help="virtual days at most")
    parser.add_argument(
        "--sweep-minutes", type=float, default=1, help="the sweep's grid, in virtual minutes"
    )
    parser.add_argument(
        "--idle-minutes",
        type=float,
        default=60,
        help="sweep at least this often even when nothing looks due (virtual minutes)",
    )
    parser.add_argument(
        "--every-minute",
        action="store_true",
        help="sweep at every instant of the grid, as beat does, not only when work is due",
    )
    parser.add_argument(
        "--json", metavar="FILE", help="also write the figures as JSON ('-': stdout)"
    )
    parser.add_argument(
        "--db-url", default=os.environ.get("BENCH_CORRESPONDENCE_DB", DEFAULT_DB_URL)
    )
    parser.add_argument("--configs", default="A,B", help="which configurations, in order")
    parser.add_argument("--parallel", action="store_true", help="run the configurations at once")
    parser.add_argument("--no-push", action="store_true", help="no push devices (e-mail only)")
    parser.add_argument("--child", choices=CONFIGS, help=argparse.SUPPRESS)
    parser.add_argument("--child-out", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.child:
        return child(args)
    name = urlsplit(args.db_url).path.lstrip("/")
    if "bench" not in name or not name.replace("_", "").isalnum():
        parser.error("the database's name must contain 'bench' (it is dropped and created)")
    configs = [c.strip().upper() for c in args.configs.split(",") if c.strip()]
    if not configs or any(c not in CONFIGS for c in configs):
        parser.error(f"--configs takes some of {','.join(CONFIGS)}")
    started, began, commit = time.perf_counter(), datetime.now(UTC), _commit()
    clones = {c: f"{name}_{c.lower()}" for c in configs}
    _admin(
        args.db_url,
        *(f'DROP DATABASE IF EXISTS "{n}" WITH (FORCE)' for n in [*clones.values(), name]),
        f'CREATE DATABASE "{name}"',
    )
    results: dict[str, dict[str, Any]] = {}
    try:
        subprocess.run(
            [sys.executable, "manage.py", "migrate", "-v", "0"],
            cwd=ROOT,
            env=_environment(args.db_url),
            check=True,
        )
        _admin(args.db_url, *(f'CREATE DATABASE "{n}" TEMPLATE "{name}"' for n in clones.values()))
        child_args = [a for a in _without_json(argv) if a != "--parallel"]
        with tempfile.TemporaryDirectory() as scratch:
            running = []
            for config in configs:
                out = Path(scratch) / f"{config}.json"
                command = [
                    sys.executable,
                    __file__,
                    *child_args,
                    "--child",
                    config,
                    "--child-out",
                    str(out),
                ]
                proc = subprocess.Popen(
                    command, cwd=ROOT, env=_environment(_with_name(args.db_url, clones[config]))
                )
                running.append((config, proc, out))
                if not args.parallel:
                    proc.wait()
            for config, proc, out in running:
                if proc.wait() != 0:
                    print(
                        f"configuration {config} failed (exit {proc.returncode})", file=sys.stderr
                    )
                    return 1
                results[config] = json.loads(out.read_text())
    finally:
        _admin(
            args.db_url,
            *(f'DROP DATABASE IF EXISTS "{n}" WITH (FORCE)' for n in [*clones.values(), name]),
        )
    meta = _meta(argv, started, commit, began)
    print(report(results, meta))
    document = {"meta": meta, "configs": results, "summary": summary(results)}
    if args.json == "-":
        print(json.dumps(document, indent=2, default=str))
    elif args.json:
        Path(args.json).write_text(json.dumps(document, indent=2, default=str) + "\n")
    return 0


def _without_json(argv: list[str]) -> list[str]:
    """``argv`` without ``--json FILE`` (the parent writes it, not the children)."""
    out, skip = [], False
    for arg in argv:
        if skip:
            skip = False
            continue
        if arg == "--json":
            skip = True
            continue
        if arg.startswith("--json="):
            continue
        out.append(arg)
    return out


if __name__ == "__main__":
    sys.exit(main())
