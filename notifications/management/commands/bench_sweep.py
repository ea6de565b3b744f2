"""Benchmark the deadline sweep on PostgreSQL: 10,000 due among 10,000 and 100,000 active tables.

    DATABASE_URL=postgres://postgres@127.0.0.1:5432/gamenook_bench_sweep \\
        .venv/bin/python manage.py bench_sweep

Refuses to run unless the database name contains "bench": it empties the
tables of the games and notifications apps. Creates the database if needed.
Times the sweep from its first query to the last timeout applied (each job
run in this process, as a worker would run it), and shows PostgreSQL's plan
for the sweep's query. Jobs the worker would get next (sending the e-mails)
are counted, not run.
"""

from __future__ import annotations

import time
from datetime import timedelta
from typing import Any

import psycopg
from django.contrib.auth.models import User
from django.core.management import call_command
from django.core.management.base import BaseCommand, CommandError, CommandParser
from django.db import connection
from django.utils import timezone

import flip
from games.models import Seat, Table
from notifications import jobs, services


def _ensure_database() -> None:
    db = connection.settings_dict
    conninfo = f"host={db['HOST']} port={db['PORT'] or 5432} user={db['USER']} dbname=postgres"
    with psycopg.connect(conninfo, autocommit=True) as admin:
        exists = admin.execute("SELECT 1 FROM pg_database WHERE datname = %s", [db["NAME"]])
        if exists.fetchone() is None:
            admin.execute(f'CREATE DATABASE "{db["NAME"]}"')


class Command(BaseCommand):
    help = __doc__

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--active", default="10000,100000", help="active tables, per run")
        parser.add_argument("--due", type=int, default=10_000, help="tables past their deadline")
        parser.add_argument("--batch", type=int, default=1000)

    def handle(self, *args: Any, **options: Any) -> None:
        if connection.vendor != "postgresql" or "bench" not in connection.settings_dict["NAME"]:
            raise CommandError("point DATABASE_URL at a PostgreSQL database named *bench*")
        connection.close()
        _ensure_database()
        call_command("migrate", verbosity=0)
        queued: list[str] = []
        jobs.publish = lambda name, args: queued.append(name)  # noqa: ARG005
        due = int(options["due"])
        for active in [int(n) for n in str(options["active"]).split(",")]:
            queued.clear()
            self._fill(active, due)
            self._explain()
            self._time(int(options["batch"]), queued)

    def _fill(self, active: int, due: int) -> None:
        with connection.cursor() as cursor:
            cursor.execute(
                "TRUNCATE games_move, games_seat, notifications_reminder,"
                " notifications_outboxmessage, games_table RESTART IDENTITY CASCADE"
            )
        alice = User.objects.filter(username="bench-alice").first() or User.objects.create_user(
            "bench-alice", "alice@example.com"
        )
        bob = User.objects.filter(username="bench-bob").first() or User.objects.create_user(
            "bench-bob", "bob@example.com"
        )
        state, _ = flip.new_game(flip.Options(seats=2), "bench")
        snapshot = state.to_dict()
        now = timezone.now()
        day = timedelta(hours=24)
        started = time.perf_counter()
        for first in range(0, active, 5000):
            rows = []
            for i in range(first, min(active, first + 5000)):
                # Due tables started their turn a day and up to an hour ago; the others
                # within the last six hours (their reminder and deadline still ahead).
                ago = day + timedelta(seconds=i % 3600) if i < due else timedelta(seconds=i % 21600)
                rows.append(
                    Table(
                        host=alice,
                        status=Table.Status.ACTIVE,
                        seat_count=2,
                        turn_hours=24,
                        timeout_policy=Table.TimeoutPolicy.BOT,
                        state=snapshot,
                        seq=1,
                        turn=state.turn,
                        started_at=now - ago,
                        turn_started_at=now - ago,
                        deadline_at=now - ago + day,
                        remind_at=now - ago + day / 2,
                    )
                )
            tables = Table.objects.bulk_create(rows)
            Seat.objects.bulk_create(
                Seat(table=t, number=n, user=u) for t in tables for n, u in ((0, alice), (1, bob))
            )
        with connection.cursor() as cursor:
            cursor.execute("ANALYZE games_table; ANALYZE games_seat")
        self.stdout.write(
            f"\n{active:,} active tables, {due:,} past their deadline "
            f"(filled in {time.perf_counter() - started:.1f} s)"
        )

    def _explain(self) -> None:
        now = timezone.now()
        query = (
            Table.objects.filter(status=Table.Status.ACTIVE, deadline_at__lte=now)
            .order_by("deadline_at", "pk")
            .values_list("pk", "turn", "deadline_at")[:1000]
        )
        self.stdout.write("plan of the sweep's first page:")
        for line in query.explain(analyze=True).splitlines():
            self.stdout.write(f"    {line}")

    def _time(self, batch: int, queued: list[str]) -> None:
        handed: list[tuple[str, tuple[int, ...]]] = []
        started = time.perf_counter()
        services.sweep(run=lambda name, args: handed.append((name, args)), batch=batch)
        read = time.perf_counter() - started

        started = time.perf_counter()
        result = services.sweep(run=services.run_inline, batch=batch)
        total = time.perf_counter() - started

        started = time.perf_counter()
        bots = services.sweep_bots()
        bot_scan = time.perf_counter() - started

        applied = Table.objects.filter(deadline_at__lte=timezone.now()).count()
        self.stdout.write(
            f"sweep, reading only: {read * 1000:.0f} ms for {len(handed):,} due tables\n"
            f"sweep, first query to last timeout applied: {total:.1f} s for "
            f"{result.timeouts:,} timeouts ({result.timeouts / total:.0f} per second); "
            f"{applied} still past their deadline; jobs queued for workers: "
            f"{', '.join(f'{queued.count(n):,} {n}' for n in sorted(set(queued))) or 'none'}\n"
            f"bot catch-up scan over all active tables: {bot_scan * 1000:.0f} ms "
            f"({bots.bots} waiting)"
        )
