"""Benchmark the deadline sweep on PostgreSQL: 10,000 due among 10,000 and 100,000 active tables.

    .venv/bin/python scripts/bench_sweep.py [--database-url URL] [--broker URL]
        [--active 10000,100000] [--due 10000] [--workers 2] [--runs 3] [--million]

What it does, with the production settings (``DEBUG`` off):

1. Creates the database of ``--database-url`` if needed (its name must contain
   "bench": every run empties the tables of games and notifications) and
   migrates it. Refuses a ``--broker`` (a Redis database) that is not empty.
2. For each number of active tables: fills them with COPY (two-seat tables,
   24-hour turns, policy "bot plays the turn", a real dealt snapshot). The
   first ``--due`` are past their deadline, each with its own two players;
   at every other one the seat not to act is a bot, so its timeout queues a
   bot turn where the others write the next player's "your turn". The other
   tables' turns began within the last six hours (no deadline, no reminder).
3. Alternates, ``--runs`` times, the two ways of applying the due timeouts,
   each from a reset of the due tables to their filled state:

   - **pages** (the sweep as it is): ``sweep()`` hands out pages of
     ``GAMENOOK_TIMEOUT_PAGE`` tables (``jobs.TIMEOUTS``) to ``--workers``
     processes, each running the job as a Celery worker runs it
     (``run_inline``): the timeouts, the "your time ran out" messages and
     the follow-ups ("your turn" composed and inserted, bot turns queued) in
     one transaction per page;
   - **one at a time** (the anchor, the single-table path the sweep used
     before): for ``--anchor-due`` of the due tables, the job
     ``jobs.TIMEOUT`` and then the follow-ups job its commit queues
     (``jobs.FOLLOWUPS``), both run in the same worker processes.

   Timed from the sweep's first query to the last job done. Every job that
   a worker would get next (sending the e-mails, the bot turns) is published
   to the Redis broker as in production, counted by kind, then dropped. Each
   run checks that every due table was timed out once.
4. Prints PostgreSQL's plan of the sweep's first read and of one page's lock,
   the bot catch-up scan, min / median / max of each way, and as the last
   line ``timeouts per second: N`` (the median of the pages' runs) for the
   100,000 case. ``--million`` adds a run among 1,000,000 active tables.
"""

from __future__ import annotations

import argparse
import base64
import json
import multiprocessing
import os
import platform
import statistics
import subprocess
import sys
import time
from collections import Counter
from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

ROOT = Path(__file__).resolve().parent.parent
#: Every table of the fill plays Wild Cards Flip with its default options (migration 0009).
OPTIONS_JSON = json.dumps({"scoring": "single", "target": 500, "two_seat_reverse_skips": True})
DEFAULT_DATABASE = "postgres://postgres@127.0.0.1:5432/gamenook_bench_sweep"
DEFAULT_BROKER = "redis://127.0.0.1:6379/14"
QUEUE = "gamenook-bench-sweep"


def _environment(database_url: str, broker: str) -> None:
    """The production settings, pointed at the scratch database and broker (before Django)."""
    os.environ.update(
        DJANGO_SETTINGS_MODULE="gamenook.settings.production",
        DJANGO_SECRET_KEY="bench-only-" + "x" * 50,
        DJANGO_ALLOWED_HOSTS="127.0.0.1,localhost",
        DJANGO_LOG_LEVEL="WARNING",
        DATABASE_URL=database_url,
        CELERY_BROKER_URL=broker,
        # The push to open sockets goes to the same scratch Redis database, not to the
        # production default (database 1), which another process may be using.
        CHANNEL_LAYER_URL=broker,
        CELERY_TASK_DEFAULT_QUEUE=QUEUE,
        EMAIL_URL="consolemail://",
    )
    sys.path.insert(0, str(ROOT))


# ----------------------------------------------------------------------------
# In each worker process


#: Statements this worker ran, and the microseconds they took, by kind ("INSERT games_move").
_sql_count = Counter[str]()
_sql_micros = Counter[str]()
_profile: Any = None
_backend: Path | None = None  # /proc/<pid>/stat of this worker's PostgreSQL backend
_barrier: Any = None


def _kind(sql: str) -> str:
    words = sql.split(None, 8)
    verb = words[0].upper() if words else "?"
    table = next(
        (w.strip('"(') for w in words[1:] if w.strip('"').startswith(("games_", "notif"))), ""
    )
    return f"{verb} {table}".strip()


def _count(execute: Callable[..., Any], sql: str, params: Any, many: bool, context: Any) -> Any:
    started = time.perf_counter()
    try:
        return execute(sql, params, many, context)
    finally:
        kind = _kind(sql)
        _sql_count[kind] += 1
        _sql_micros[kind] += round((time.perf_counter() - started) * 1e6)


def _worker_start(database_url: str, broker: str, profile: bool, barrier: Any) -> None:
    global _profile, _barrier  # noqa: PLW0603 (one profiler per worker process)
    _barrier = barrier
    if profile:
        import cProfile

        _profile = cProfile.Profile()
    _environment(database_url, broker)
    import django

    django.setup()
    from django.db import connection

    with connection.cursor() as cursor:
        cursor.execute("SELECT pg_backend_pid()")
        (pid,) = cursor.fetchone()
    global _backend  # noqa: PLW0603
    stat = Path(f"/proc/{pid}/stat")
    _backend = stat if stat.exists() else None  # PostgreSQL on this machine: count its CPU
    connection.execute_wrappers.append(_count)
    # A worker has composed mail before: load the templates once, as in production.
    from games.selectors import TableFacts
    from notifications.models import OutboxMessage
    from notifications.outbox import ACCOUNT_KINDS, _compose

    facts = TableFacts(
        id=0, seq=0, turn=0, status="active", turn_hours=24, timeout_policy="bot", deadline_at=None
    )
    from django.contrib.auth.models import User

    user = User(pk=1, username="warm-up", email="warm@example.com")
    for kind in set(OutboxMessage.Kind.values) - set(ACCOUNT_KINDS):
        context: dict[str, Any] = {"what": [], "ranking": [], "mine": None, "rounds": 1}
        _compose(kind, user, facts, context)


def _cpu(stat: Path | None) -> float:
    """CPU seconds (user and system) a process has used, from /proc/<pid>/stat."""
    if stat is None:
        return 0.0
    fields = stat.read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def _worker_job(
    job: tuple[str, tuple[int, ...], bool],
) -> tuple[Counter[str], Counter[str], float, float, float]:
    """Run one job as a Celery worker would; the anchor also runs the follow-ups it queues."""
    name, args, run_followups = job
    from notifications import jobs, services

    count, micros = _sql_count.copy(), _sql_micros.copy()
    followups: list[tuple[str, tuple[int, ...]]] = []
    publish = jobs.publish
    if run_followups:

        def capture(name: str, args: tuple[int, ...]) -> None:
            publish(name, args)  # the broker is paid for, as in production
            if name == jobs.FOLLOWUPS:
                followups.append((name, args))

        jobs.publish = capture
    started, cpu, pg = time.perf_counter(), time.process_time(), _cpu(_backend)
    if _profile is not None:
        _profile.enable()
    try:
        services.run_inline(name, args)
        for followup in followups:
            services.run_inline(*followup)
    finally:
        jobs.publish = publish
        if _profile is not None:
            _profile.disable()
    elapsed = time.perf_counter() - started
    cpu, pg = time.process_time() - cpu, _cpu(_backend) - pg
    return _sql_count - count, _sql_micros - micros, elapsed, cpu, pg


def _worker_profile(path: str) -> str:
    """Write this worker's profile to ``path`` (one per process) and start a new one."""
    global _profile  # noqa: PLW0603
    if _profile is None:
        return ""
    import cProfile

    target = f"{path}.{os.getpid()}"
    _profile.dump_stats(target)
    _profile = cProfile.Profile()
    _barrier.wait(timeout=60)  # so that no worker takes two of these calls
    return target


# ----------------------------------------------------------------------------
# In the main process


def _admin_url(database_url: str) -> tuple[str, str]:
    parts = urlsplit(database_url)
    name = parts.path.lstrip("/")
    return database_url[: -len(name)] + "postgres", name


def _ensure_database(database_url: str) -> None:
    import psycopg

    admin, name = _admin_url(database_url)
    with psycopg.connect(admin, autocommit=True) as conn:
        exists = conn.execute("SELECT 1 FROM pg_database WHERE datname = %s", [name]).fetchone()
        if exists is None:
            conn.execute(f'CREATE DATABASE "{name}"')


def _redis(broker: str) -> Any:
    import redis

    return redis.Redis.from_url(broker)


class Bench:
    def __init__(self, args: argparse.Namespace) -> None:
        self.args = args
        self.snapshot: dict[str, Any] = {}
        self.turn = 0
        self.current = 0
        self.due = int(args.due)
        self.pool: Any = None
        self.broker = _redis(args.broker)

    # --- filling -------------------------------------------------------

    def fill(self, active: int) -> None:
        from django.contrib.auth.hashers import make_password
        from django.contrib.auth.models import User
        from django.db import connection

        import flip
        from notifications.models import Preferences

        started = time.perf_counter()
        with connection.cursor() as cursor:
            cursor.execute(
                "TRUNCATE games_move, games_seat, notifications_reminder,"
                " notifications_outboxmessage, notifications_preferences,"
                " notifications_turnnotice, games_table,"
                " auth_user RESTART IDENTITY CASCADE"
            )
        state, _ = flip.new_game(flip.Options(seats=2), "bench")
        self.snapshot, self.turn, self.current = state.to_dict(), state.turn, state.current
        # Two players of their own at each due table (no mail shares a recipient), two
        # shared by all the others: users 1 .. 2 * due + 2.
        unusable = make_password(None)
        users = [
            User(username=f"bench{i}", email=f"bench{i}@example.com", password=unusable)
            for i in range(2 * self.due + 2)
        ]
        User.objects.bulk_create(users, batch_size=5000)
        # Everyone has confirmed their address (game mail goes only there) and so has
        # stored preferences, every switch on.
        confirmed = [Preferences(user=user, verified_email=user.email) for user in users]
        Preferences.objects.bulk_create(confirmed, batch_size=5000)
        now = datetime.now(UTC)
        snapshot = json.dumps(self.snapshot)
        shared = (2 * self.due + 1, 2 * self.due + 2)
        raw = connection.connection
        assert raw is not None
        with raw.cursor() as cursor:
            with cursor.copy(
                "COPY games_table (id, host_id, state, turn, to_act, started_at,"
                " turn_started_at, deadline_at, remind_at, created_at, updated_at, status,"
                " seat_count, game, game_version, options, turn_hours,"
                " timeout_policy, allow_watchers, seq, bot_errors, presence_version) FROM STDIN"
            ) as copy:
                for i in range(active):
                    # Due tables began their turn a day and up to an hour ago; the others
                    # within the last six hours (their reminder and deadline still ahead).
                    ago = timedelta(days=1, seconds=i % 3600) if i < self.due else None
                    start = now - (ago or timedelta(seconds=i % 21600))
                    copy.write_row(
                        [
                            i + 1,
                            users[0].pk,
                            snapshot,
                            self.turn,
                            self.current,
                            start,
                            start,
                            start + timedelta(days=1),
                            start + timedelta(hours=12),
                            now,
                            now,
                            "active",
                            2,
                            "flip",
                            1,
                            OPTIONS_JSON,
                            24,
                            "bot",
                            False,
                            1,
                            0,
                            0,
                        ]
                    )
            with cursor.copy(
                "COPY games_seat (table_id, number, user_id, bot_level, joined_at, strikes, away,"
                " struck_out)"
                " FROM STDIN"
            ) as copy:
                for i in range(active):
                    people = (2 * i + 1, 2 * i + 2) if i < self.due else shared
                    for number in (0, 1):
                        bot = i < self.due and i % 2 == 1 and number != self.current
                        user = None if bot else people[number]
                        copy.write_row(
                            [i + 1, number, user, "easy" if bot else "", now, 0, False, False]
                        )
            cursor.execute("SELECT setval('games_table_id_seq', %s)", [active])
        raw.commit()
        self._vacuum()
        print(
            f"\n{active:,} active tables, {self.due:,} past their deadline "
            f"(half of these with a bot to play next; "
            f"filled in {time.perf_counter() - started:.1f} s)"
        )

    def _vacuum(self) -> None:
        from django.db import connection

        with connection.cursor() as cursor:
            cursor.execute("VACUUM ANALYZE games_table, games_seat, auth_user")

    def reset(self) -> None:
        """Put the due tables back as filled: no move, no mail, every seat still in."""
        from django.db import connection, transaction

        with transaction.atomic(), connection.cursor() as cursor:
            # TRUNCATE, not DELETE: the move log refuses DELETE (migration 0002).
            # The "your turn" notices a round recorded (ruling 19) go too: the next round
            # must find none waiting, as the first did.
            cursor.execute(
                "TRUNCATE games_move, notifications_outboxmessage, notifications_reminder,"
                " notifications_turnnotice"
            )
            cursor.execute(
                "UPDATE games_table SET state = %s, seq = 1, turn = %s, to_act = %s,"
                " status = 'active', finished_at = NULL, bot_errors = 0,"
                " turn_started_at = started_at, deadline_at = started_at + interval '1 day',"
                " remind_at = started_at + interval '12 hours' WHERE id <= %s",
                [json.dumps(self.snapshot), self.turn, self.current, self.due],
            )
            cursor.execute("UPDATE games_seat SET left_at = NULL WHERE left_at IS NOT NULL")
        self._vacuum()
        self.broker.flushdb()

    # --- plans -----------------------------------------------------------

    def explain(self) -> None:
        from django.utils import timezone

        from games.models import Table

        now = timezone.now()
        read = (
            Table.objects.filter(status=Table.Status.ACTIVE, deadline_at__lte=now)
            .order_by("deadline_at", "pk")
            .values_list("pk", "turn", "deadline_at")[:1000]
        )
        print("plan of the sweep's first read:")
        for line in read.explain(analyze=True).splitlines():
            print(f"    {line}")
        ids = list(read.values_list("pk", flat=True)[:100])
        lock = Table.objects.select_for_update(skip_locked=True).filter(pk__in=ids)
        from django.db import transaction

        with transaction.atomic():
            plan = lock.explain(analyze=True)
        print("plan of one page's lock (SELECT ... FOR UPDATE SKIP LOCKED):")
        for line in plan.splitlines():
            print(f"    {line}")

    # --- runs ------------------------------------------------------------

    def pages(self) -> dict[str, Any]:
        from notifications import services

        handed: list[tuple[str, tuple[int, ...], bool]] = []
        started = time.perf_counter()
        pending = []

        def run(name: str, args: tuple[int, ...]) -> None:
            handed.append((name, args, False))
            pending.append(self.pool.apply_async(_worker_job, ((name, args, False),)))

        result = services.sweep(run=run, batch=self.args.batch)
        figures = _gather(pending)
        figures.update(
            way="pages",
            timeouts=result.timeouts,
            jobs=len(handed),
            seconds=time.perf_counter() - started,
        )
        return figures

    def one_at_a_time(self) -> dict[str, Any]:
        from django.utils import timezone

        from games import selectors
        from notifications import jobs

        started = time.perf_counter()
        pending = []
        handed = 0
        for read in selectors.tables_due_for_timeout(now=timezone.now(), batch=self.args.batch):
            for table_id, turn in read:
                if handed == self.args.anchor_due:
                    break
                job = (jobs.TIMEOUT, (table_id, turn), True)
                pending.append(self.pool.apply_async(_worker_job, (job,)))
                handed += 1
        figures = _gather(pending)
        figures.update(
            way="one at a time", timeouts=handed, jobs=handed, seconds=time.perf_counter() - started
        )
        return figures

    def check(self, expected: int) -> str:
        """What the run left: every due table timed out once, the mail, the queued jobs."""
        from django.db.models import Count
        from django.utils import timezone

        from games.models import Move, Table
        from notifications.models import OutboxMessage

        still = Table.objects.filter(
            pk__lte=self.due, status=Table.Status.ACTIVE, deadline_at__lte=timezone.now()
        ).count()
        timed_out = (
            Move.objects.filter(source=Move.Source.TIMEOUT).values("table_id").distinct().count()
        )
        twice = (
            Move.objects.filter(source=Move.Source.TIMEOUT, table_id__lte=self.due)
            .values("table_id")
            .annotate(n=Count("round", distinct=True))
            .filter(n__gt=1)
            .count()
        )
        mail = Counter(OutboxMessage.objects.values_list("kind", flat=True))
        problems = []
        if timed_out != expected or twice:
            problems.append(f"{timed_out:,} tables timed out, expected {expected:,}")
        if mail["timeout"] != expected:
            problems.append(f"{mail['timeout']:,} timeout mails, expected {expected:,}")
        if expected == self.due and still:
            problems.append(f"{still:,} still past their deadline")
        queued = self._queued()
        summary = (
            f"mail written: {', '.join(f'{n:,} {k}' for k, n in sorted(mail.items()))}; "
            f"jobs queued: {queued}"
        )
        if problems:
            raise SystemExit("run went wrong: " + "; ".join(problems) + f" ({summary})")
        return summary

    def _queued(self) -> str:
        """The jobs waiting in the broker, by name (and how many ids the page jobs carry)."""
        messages = Counter[str]()
        ids = Counter[str]()
        raws = [
            raw
            for queue in (QUEUE, f"{QUEUE}-deadlines")
            for raw in self.broker.lrange(queue, 0, -1)
        ]
        for raw in raws:
            message = json.loads(raw)
            name = message["headers"]["task"].rsplit(".", 1)[-1]
            body = json.loads(base64.b64decode(message["body"]))
            messages[name] += 1
            ids[name] += len(body[0])
        return ", ".join(
            f"{messages[n]:,} {n}" + (f" ({ids[n]:,} ids)" if ids[n] > messages[n] else "")
            for n in sorted(messages)
        )

    def bot_scan(self) -> None:
        from notifications import services

        started = time.perf_counter()
        result = services.sweep_bots(run=lambda *job: None)
        elapsed = time.perf_counter() - started
        print(
            f"bot catch-up scan over all active tables: {elapsed * 1000:.0f} ms "
            f"({result.bots} waiting)"
        )


def _gather(pending: list[Any]) -> dict[str, Any]:
    """Add up what the workers reported for the jobs of one run."""
    count, micros, busy, cpu, pg = Counter[str](), Counter[str](), 0.0, 0.0, 0.0
    for job in pending:
        job_count, job_micros, job_busy, job_cpu, job_pg = job.get()
        count.update(job_count)
        micros.update(job_micros)
        busy, cpu, pg = busy + job_busy, cpu + job_cpu, pg + job_pg
    return {"sql_count": count, "sql_micros": micros, "busy": busy, "cpu": cpu, "pg": pg}


def _print_profile(pool: Any, args: argparse.Namespace, path: str) -> None:
    """Gather every worker's profile of the run just done and print the costliest calls."""
    import pstats

    path = path.replace(" ", "-")
    files = {f for f in pool.map(_worker_profile, [path] * args.workers, chunksize=1) if f}
    stats = pstats.Stats(*sorted(files))
    stats.dump_stats(path)
    print(f"      profile of the workers ({len(files)} processes) in {path}:")
    stats.sort_stats("cumulative").print_stats(40)


def _load() -> str:
    one, five, fifteen = os.getloadavg()
    return f"{one:.2f} {five:.2f} {fifteen:.2f}"


def _line(run: int, figures: dict[str, Any], checked: str, load: str) -> None:
    rate = figures["timeouts"] / figures["seconds"]
    count: Counter[str] = figures["sql_count"]
    micros: Counter[str] = figures["sql_micros"]
    statements, timeouts = sum(count.values()), max(1, figures["timeouts"])
    busy = figures["busy"]
    print(
        f"  run {run} {figures['way']:<14} {figures['timeouts']:>7,} timeouts in "
        f"{figures['seconds']:7.2f} s: {rate:7,.0f} per second (load before {load})"
    )
    print(f"      {checked}")
    cpu = (figures["cpu"] + figures["pg"]) / timeouts * 1000
    cores = os.cpu_count() or 1
    print(
        f"      CPU per timeout: {figures['cpu'] / timeouts * 1000:.2f} ms in the worker, "
        f"{figures['pg'] / timeouts * 1000:.2f} ms in its PostgreSQL backend: "
        f"{cpu:.2f} ms, so at most {cores * 1000 / cpu if cpu else 0:,.0f} per second "
        f"on {cores} idle cores"
    )
    print(
        f"      workers busy {busy:.2f} s, {busy / timeouts * 1000:.2f} ms per timeout; "
        f"{statements:,} statements ({statements / max(1, figures['jobs']):.1f} per job, "
        f"{statements / timeouts:.2f} per timeout) took {sum(micros.values()) / 1e6:.2f} s of it:"
    )
    for kind, spent in micros.most_common(8):
        print(f"        {kind:<40} {count[kind]:>7,} {spent / 1000 / timeouts:7.3f} ms per timeout")


def _spread(label: str, rates: list[float]) -> str:
    return (
        f"{label}: min {min(rates):,.0f}, median {statistics.median(rates):,.0f}, "
        f"max {max(rates):,.0f} timeouts per second"
    )


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument(
        "--database-url",
        default=os.environ.get("BENCH_DATABASE_URL", DEFAULT_DATABASE),
        help="scratch PostgreSQL database, its name containing 'bench' (env BENCH_DATABASE_URL)",
    )
    parser.add_argument(
        "--broker",
        default=os.environ.get("BENCH_BROKER_URL", DEFAULT_BROKER),
        help="an empty Redis database for the jobs (env BENCH_BROKER_URL)",
    )
    parser.add_argument("--active", default="10000,100000", help="active tables, per case")
    parser.add_argument("--million", action="store_true", help="add a case of 1,000,000")
    parser.add_argument("--due", type=int, default=10_000, help="tables past their deadline")
    parser.add_argument("--workers", type=int, default=2, help="worker processes")
    parser.add_argument("--runs", type=int, default=3, help="runs of each way, alternated")
    parser.add_argument("--anchor-due", type=int, default=1000, help="timeouts per anchor run")
    parser.add_argument("--batch", type=int, default=1000, help="rows the sweep reads per query")
    parser.add_argument(
        "--profile",
        metavar="PATH",
        help="profile the workers (cProfile) and print where each way's time went",
    )
    args = parser.parse_args(argv)
    name = urlsplit(args.database_url).path.lstrip("/")
    if "bench" not in name:
        parser.error("the database's name must contain 'bench': the run empties it")
    _environment(args.database_url, args.broker)
    if _redis(args.broker).dbsize():
        parser.error(f"the broker {args.broker} is not empty: pass an unused Redis database")
    _ensure_database(args.database_url)
    import django

    django.setup()
    from django.core.management import call_command
    from django.db import connection

    call_command("migrate", verbosity=0)
    commit = subprocess.run(
        ["git", "rev-parse", "--short", "HEAD"], cwd=ROOT, capture_output=True, text=True
    ).stdout.strip()
    print(
        f"{datetime.now(UTC):%Y-%m-%d %H:%M} UTC, commit {commit}; {os.cpu_count()} cores, "
        f"{platform.system()} {platform.machine()}, Python {platform.python_version()}, "
        f"PostgreSQL {connection.cursor().connection.info.server_version}; "
        f"{args.workers} worker processes; load {_load()}"
    )
    cases = [int(n) for n in str(args.active).split(",")]
    if args.million:
        cases.append(1_000_000)
    bench = Bench(args)
    context = multiprocessing.get_context("spawn")
    summary: dict[int, float] = {}
    with context.Pool(
        args.workers,
        initializer=_worker_start,
        initargs=(
            args.database_url,
            args.broker,
            bool(args.profile),
            context.Barrier(args.workers),
        ),
    ) as pool:
        bench.pool = pool
        try:
            for active in cases:
                bench.fill(active)
                bench.explain()
                rates: dict[str, list[float]] = {"pages": [], "one at a time": []}
                for run in range(1, args.runs + 1):
                    for way in (bench.pages, bench.one_at_a_time):
                        bench.reset()
                        load = _load()
                        figures = way()
                        expected = figures["timeouts"]
                        checked = bench.check(expected)
                        _line(run, figures, checked, load)
                        if args.profile:
                            _print_profile(pool, args, f"{args.profile}-{figures['way']}")
                        rates[figures["way"]].append(figures["timeouts"] / figures["seconds"])
                print(_spread("pages        ", rates["pages"]))
                print(_spread("one at a time", rates["one at a time"]))
                ratio = statistics.median(rates["pages"]) / statistics.median(
                    rates["one at a time"]
                )
                print(f"pages / one at a time, medians: {ratio:.1f}")
                bench.bot_scan()
                summary[active] = statistics.median(rates["pages"])
        finally:
            bench.broker.flushdb()
    print()
    for active, rate in summary.items():
        print(f"{active:>9,} active tables: {rate:,.0f} timeouts per second (median of pages)")
    headline = summary.get(100_000, next(iter(summary.values())))
    print(f"timeouts per second: {headline:.0f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
