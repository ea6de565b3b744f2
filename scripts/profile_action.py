"""Where one API action's time goes, in this process, through Django's whole stack.

    .venv/bin/python scripts/profile_action.py [--actions 2000] [--cprofile 25]

On a scratch PostgreSQL database (``--database-url``, else ``PROFILE_DATABASE_URL``;
its name must contain "profile" or "bench"; created, migrated and dropped by
Django's test-database machinery) with the production settings (DEBUG off) and
the follow-up jobs published to a real broker (``--broker``, else
``PROFILE_BROKER_URL``: an unused Redis database, emptied afterwards), it opens
``--tables`` two-seat tables and plays random legal actions through Django's
test client (middleware, token authentication, DRF, the view, the renderer),
as ``scripts/bench_api.py``'s clients do: GET the view of the seat to act
unless the previous answer is that seat's view, then POST the action; after
each action, as the anchor in the same loop, ``bench_api.py``'s ping (``POST
/api/v1/bench/ping/``: token authentication, one INSERT) as the same player.

With ``--watched``, every other table has a socket's connection counted
(``games.models.Connection``, as ``live`` counts an open WebSocket), so its
changes are published to the channel layer (Redis's publish-and-subscribe,
on ``--broker``) as in ``bench_api.py --views socket``; the POSTs at watched
and unwatched tables, taken in the same loop, are reported apart: the
difference is what the push costs the web process.

It prints, per POST, GET and ping, the wall time of each SQL statement kind,
of the broker publish, and the rest (Python in this process), and the CPU
time of this process (which does not count waiting, so it depends less on
what else the machine runs), in microseconds (median and mean); then
``bench_api.py``'s R by CPU for this process alone: the ping's CPU over a
POST's with its share of GETs (PostgreSQL's and Redis's work not counted);
then with ``--cprofile N`` the N functions with the most cumulative time over the POSTs.
Wall time includes waiting for PostgreSQL, which runs on the same cores:
compare figures within one run.
"""

from __future__ import annotations

import argparse
import cProfile
import json
import os
import pstats
import random
import statistics
import sys
import time
from collections import defaultdict
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))


class Clock:
    """Wall time by label while a request runs; ``take`` hands it out and starts afresh."""

    def __init__(self) -> None:
        self.spent: dict[str, float] = defaultdict(float)

    @contextmanager
    def timed(self, label: str) -> Iterator[None]:
        started = time.perf_counter()
        try:
            yield
        finally:
            self.spent[label] += time.perf_counter() - started

    def take(self) -> dict[str, float]:
        spent, self.spent = dict(self.spent), defaultdict(float)
        return spent


def _statement_kind(sql: str) -> str:
    words = sql.lstrip().split(None, 4)
    head = words[0].upper() if words else "?"
    if head == "SELECT":
        for name in ("games_seat", "games_table", "accounts_apitoken", "auth_user"):
            where = sql.find(f'FROM "{name}"')
            if where >= 0:
                return f"SELECT {name}" + (" FOR UPDATE" if "FOR UPDATE" in sql else "")
        return "SELECT other"
    if head in ("INSERT", "UPDATE", "DELETE"):
        target = words[2] if head == "INSERT" else words[1]
        return f"{head} {target.strip(chr(34))}"
    return head  # BEGIN, COMMIT, SAVEPOINT...


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument(
        "--database-url",
        default=os.environ.get(
            "PROFILE_DATABASE_URL", "postgres://postgres@127.0.0.1:5432/gamenook_profile"
        ),
    )
    parser.add_argument(
        "--broker", default=os.environ.get("PROFILE_BROKER_URL", "redis://127.0.0.1:6379/15")
    )
    parser.add_argument("--actions", type=int, default=2000, help="POSTs measured")
    parser.add_argument("--warmup", type=int, default=200, help="POSTs before measuring")
    parser.add_argument("--tables", type=int, default=16)
    parser.add_argument("--cprofile", type=int, default=0, help="show the N top functions")
    parser.add_argument("--sort", default="cumulative", help="cProfile order: cumulative, tottime")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument(
        "--watched", action="store_true", help="a socket counted at every other table"
    )
    args = parser.parse_args()
    name = args.database_url.rsplit("/", 1)[-1]
    if "bench" not in name and "profile" not in name:
        parser.error("the database's name must contain 'profile' or 'bench'")
    os.environ.update(
        DATABASE_URL=args.database_url,
        CELERY_BROKER_URL=args.broker,
        CHANNEL_LAYER_URL=args.broker,  # the real-time push too, not production's default
        DJANGO_SETTINGS_MODULE="gamenook.settings.production",
        DJANGO_SECRET_KEY="profile-only-" + "x" * 50,
        DJANGO_ALLOWED_HOSTS="testserver,127.0.0.1",
        DJANGO_SECURE_SSL_REDIRECT="false",
        DJANGO_LOG_LEVEL="WARNING",
        GAMENOOK_RUN_BOTS_INLINE="false",
        GAMENOOK_RATE_ACTIONS="100000000/minute",
        GAMENOOK_RATE_ACCOUNTS="100000000/minute",
        GAMENOOK_BENCH_ENDPOINTS="true",  # the ping, the anchor measured in the same loop
        EMAIL_URL="consolemail://",
    )
    import django

    django.setup()
    import redis
    from django.db import connection

    broker = redis.Redis.from_url(args.broker)
    if broker.dbsize():
        parser.error(f"the broker {args.broker} is not empty: pass an unused Redis database")
    old_name = connection.settings_dict["NAME"]
    # The test-database machinery names it test_<name>: never a database in use.
    connection.creation.create_test_db(verbosity=0, autoclobber=True, keepdb=False)
    try:
        run(args)
    finally:
        connection.creation.destroy_test_db(old_name, verbosity=0)
        broker.flushdb()
    return 0


def _setup(tables: int) -> tuple[list[dict[str, Any]], list[str]]:
    from django.contrib.auth.models import User

    from accounts import services as accounts
    from games import services

    users = [User.objects.create_user(f"p{i}", f"p{i}@profile.invalid") for i in range(4)]
    tokens = [accounts.token_create(user=user, name="profile")[1] for user in users]
    games = []
    for t in range(tables):
        host, guest = t % 4, (t + 1) % 4
        games.append(_open(users, tokens, host, guest, services))
    return games, tokens


def _open(users: list[Any], tokens: list[str], host: int, guest: int, services: Any) -> Any:
    table = services.table_create(host=users[host], seat_count=2, scoring="target", target=1000)
    services.table_join(table_id=table.pk, user=users[guest])
    services.table_start(table_id=table.pk, user=users[host])
    return {"table": table.pk, "tokens": [tokens[host], tokens[guest]], "who": (host, guest)}


def _watch(game: dict[str, Any]) -> None:
    """Count a socket at the game's table, as ``live`` does for an open WebSocket."""
    from django.utils import timezone

    from games.models import Connection, Seat

    host = Seat.objects.get(table_id=game["table"], number=0).user
    assert host is not None
    channel = f"profile.{game['table']}"
    Connection.objects.create(
        table_id=game["table"], user=host, channel=channel, seen_at=timezone.now()
    )
    game["watched"] = True


def _choose(view: dict[str, Any], rng: random.Random) -> dict[str, Any]:
    pick = rng.choice(view["game"]["legal_actions"])
    body: dict[str, Any] = {"type": pick["type"], "expected_seq": view["seq"]}
    if "card" in pick:
        body["card"] = pick["card"]
    if pick.get("colors"):
        body["color"] = rng.choice(pick["colors"])
    return body


def run(args: argparse.Namespace) -> None:
    from django.contrib.auth.models import User
    from django.db import connection
    from django.test import Client

    from games import services
    from live.receivers import DirectPublisher
    from notifications import jobs

    games, tokens = _setup(args.tables)
    users = list(User.objects.order_by("pk"))
    clock = Clock()
    if args.watched:
        for game in games[1::2]:
            _watch(game)

    def wrapper(execute: Callable[..., Any], sql: str, params: Any, many: bool, ctx: Any) -> Any:
        with clock.timed("sql " + _statement_kind(sql)):
            return execute(sql, params, many, ctx)

    real_publish = jobs.publish

    def publish(name: str, job_args: tuple[int, ...]) -> None:
        with clock.timed("broker publish"):
            real_publish(name, job_args)

    jobs.publish = publish  # measured, not replaced: the real publish runs inside
    real_group_send = DirectPublisher.group_send

    def group_send(self: DirectPublisher, group: str, message: dict[str, Any]) -> None:
        with clock.timed("live publish"):
            real_group_send(self, group, message)

    DirectPublisher.group_send = group_send  # type: ignore[method-assign]
    client = Client()
    rng = random.Random(args.seed)
    posts: list[dict[str, float]] = []
    watched_posts: list[dict[str, float]] = []
    gets: list[dict[str, float]] = []
    pings: list[dict[str, float]] = []
    profile = cProfile.Profile() if args.cprofile else None
    held: dict[int, tuple[int, dict[str, Any]]] = {}  # table -> (seat, last view)
    done = 0
    i = 0
    with connection.execute_wrapper(wrapper):
        while done < args.warmup + args.actions:
            game = games[i % len(games)]
            i += 1
            seat, view = held.get(game["table"], (None, None))
            measuring = done >= args.warmup
            if view is None or view["game"]["to_act"] != seat:
                want = 0 if view is None else view["game"]["to_act"]
                clock.take()
                cpu = time.process_time()
                started = time.perf_counter()
                response = client.get(
                    f"/api/v1/tables/{game['table']}/view/",
                    HTTP_AUTHORIZATION=f"Token {game['tokens'][want]}",
                )
                total = time.perf_counter() - started
                cpu = time.process_time() - cpu
                spent = clock.take()
                if measuring:
                    gets.append({**spent, "total": total, "cpu": cpu})
                view = response.json()
                if view["game"]["over"]:
                    host, guest = game["who"]
                    fresh = _open(users, tokens, host, guest, services)
                    if game.get("watched"):
                        _watch(fresh)
                    games[games.index(game)] = fresh
                    continue
                seat = view["game"]["to_act"]
                if seat != want:
                    held[game["table"]] = (want, view)
                    continue
            body = _choose(view, rng)
            clock.take()
            if profile is not None and measuring:
                profile.enable()
            cpu = time.process_time()
            started = time.perf_counter()
            response = client.post(
                f"/api/v1/tables/{game['table']}/actions/",
                data=json.dumps(body),
                content_type="application/json",
                HTTP_AUTHORIZATION=f"Token {game['tokens'][seat]}",
            )
            total = time.perf_counter() - started
            cpu = time.process_time() - cpu
            if profile is not None and measuring:
                profile.disable()
            spent = clock.take()
            if response.status_code != 201:
                raise RuntimeError(f"action: HTTP {response.status_code} {response.content!r}")
            if measuring:
                kept = watched_posts if game.get("watched") else posts
                kept.append({**spent, "total": total, "cpu": cpu})
            done += 1
            held[game["table"]] = (seat, response.json()["view"])
            # The anchor, in the same loop: bench_api.py's ping, as the same player.
            cpu = time.process_time()
            started = time.perf_counter()
            response = client.post(
                "/api/v1/bench/ping/",
                data="{}",
                content_type="application/json",
                HTTP_AUTHORIZATION=f"Token {game['tokens'][seat]}",
            )
            total = time.perf_counter() - started
            cpu = time.process_time() - cpu
            spent = clock.take()
            if response.status_code != 201:
                raise RuntimeError(f"ping: HTTP {response.status_code} {response.content!r}")
            if measuring:
                pings.append({**spent, "total": total, "cpu": cpu})
    _report("POST /api/v1/tables/{id}/actions/" + (", unwatched" if args.watched else ""), posts)
    _report("POST /api/v1/tables/{id}/actions/, watched (a socket counted)", watched_posts)
    if posts and watched_posts:
        unwatched, watched = (
            statistics.median(r["cpu"] for r in rows) for rows in (posts, watched_posts)
        )
        print(
            f"\nwatched POST / unwatched POST, this process's CPU: {watched / unwatched:.3f}"
            f" ({(watched - unwatched) * 1e6:.0f} µs more)"
        )
    _report("GET /api/v1/tables/{id}/view/", gets)
    _report("POST /api/v1/bench/ping/ (the anchor)", pings)
    reads = len(gets) / max(1, len(posts) + len(watched_posts))
    print(f"GETs per POST: {reads:.2f}")
    if posts and gets and pings:
        # bench_api.py's R by CPU, for this process alone (no PostgreSQL, no Redis).
        cpu = {
            name: statistics.median(row["cpu"] for row in rows)
            for name, rows in (("post", posts + watched_posts), ("get", gets), ("ping", pings))
        }
        print(
            "this process's CPU, ping / (POST + GETs per POST x GET): "
            f"{cpu['ping'] / (cpu['post'] + reads * cpu['get']):.3f}"
            f" (ping / POST alone: {cpu['ping'] / cpu['post']:.3f})"
        )
    print(f"load: {' '.join(f'{x:.2f}' for x in os.getloadavg())}")
    if profile is not None:
        pstats.Stats(profile).sort_stats(args.sort).print_stats(args.cprofile)


def _report(title: str, rows: list[dict[str, float]]) -> None:
    if not rows:
        return
    labels = sorted({label for row in rows for label in row if label not in ("total", "cpu")})
    print(f"\n{title}: {len(rows)} requests, microseconds per request")
    print(f"  {'part':<44}{'median':>9}{'mean':>9}{'count':>7}")
    rest = [
        row["total"] - sum(v for k, v in row.items() if k not in ("total", "cpu")) for row in rows
    ]
    for label in labels:
        values = [row.get(label, 0.0) for row in rows]
        count = sum(1 for row in rows if label in row)
        print(
            f"  {label:<44}{statistics.median(values) * 1e6:>9.0f}"
            f"{statistics.fmean(values) * 1e6:>9.0f}{count / len(rows):>7.2f}"
        )
    print(
        f"  {'the rest (Python in this process)':<44}{statistics.median(rest) * 1e6:>9.0f}"
        f"{statistics.fmean(rest) * 1e6:>9.0f}"
    )
    for label in ("total", "cpu"):
        values = [row[label] for row in rows]
        name = "total (wall)" if label == "total" else "CPU of this process (no PostgreSQL)"
        print(
            f"  {name:<44}{statistics.median(values) * 1e6:>9.0f}"
            f"{statistics.fmean(values) * 1e6:>9.0f}"
        )


if __name__ == "__main__":
    sys.exit(main())
