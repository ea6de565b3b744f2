"""Server time of the web client's table page and of its live update, beside the API's view.

    .venv/bin/python scripts/bench_web.py [--requests 300] [--rounds 5]

On a scratch PostgreSQL database (``--database-url``, its name must contain
"bench"; created, migrated and dropped by Django's test-database machinery)
it opens a four-seat table (two people, two easy bots), plays about twenty
moves through the services so the page has a log, hands and piles to show,
then times, in this process, each request through Django's whole stack
(middleware, session and user lookup, the view, the template) with Django's
test client, interleaved so that each kind of request sees the same machine:

- ``table page``: GET /tables/<id>/ (the full page a player opens);
- ``live 200``: GET /tables/<id>/live/ with a stale ETag (the fragment a page
  fetches after a move: a whole render);
- ``live 304``: GET /tables/<id>/live/ with the current ETag (what every open
  page asks once a second while nothing happens);
- ``API view`` (the anchor): GET /api/v1/tables/<id>/view/, the same seat's
  view as JSON through DRF with the same session.

Prints min, median and max in milliseconds per kind and round, and the load
average. No network: the client calls the WSGI handler directly.
"""

from __future__ import annotations

import argparse
import os
import platform
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument(
        "--database-url", default="postgres://postgres@127.0.0.1:5432/gamenook_bench_web"
    )
    parser.add_argument("--requests", type=int, default=300, help="per kind and round")
    parser.add_argument("--rounds", type=int, default=5)
    args = parser.parse_args()
    if "bench" not in args.database_url.rsplit("/", 1)[-1]:
        parser.error("the database's name must contain 'bench'")
    os.environ["DATABASE_URL"] = args.database_url
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "gamenook.settings.test")
    import django

    django.setup()
    from django.db import connection

    old_name = connection.settings_dict["NAME"]
    connection.creation.create_test_db(verbosity=0, autoclobber=True, keepdb=False)
    try:
        run(args.requests, args.rounds)
    finally:
        connection.creation.destroy_test_db(old_name, verbosity=0)
    return 0


def _table() -> tuple[int, object]:
    from django.contrib.auth.models import User

    from games import selectors, services

    alice = User.objects.create_user("alice", "alice@example.com", "correct horse battery")
    bob = User.objects.create_user("bob", "bob@example.com", "correct horse battery")
    users = {0: alice, 1: bob}
    for attempt in range(20):
        table = services.table_create(host=alice, seat_count=4, allow_watchers=True)
        services.table_join(table_id=table.pk, user=bob)
        for _ in range(2):
            services.table_add_bot(table_id=table.pk, user=alice, level="easy")
        services.table_start(table_id=table.pk, user=alice)
        services.table_run_bots(table_id=table.pk)
        for _ in range(40):
            table = selectors.table_get(table.pk)
            state = selectors.table_state(table)
            assert state is not None
            if state.over or table.seq >= 24:
                break
            view = selectors.table_view(table, state.current)
            assert view is not None
            legal = view["legal_actions"][0]
            data = {"type": legal["type"], "card": legal.get("card")}
            data["color"] = legal["colors"][0] if "colors" in legal else None
            services.table_apply_action(
                table_id=table.pk, user=users[state.current], data=data, expected_seq=None
            )
            services.table_run_bots(table_id=table.pk)
        table = selectors.table_get(table.pk)
        if table.status == "active" and table.seq >= 12:
            return table.pk, alice
        del attempt
    raise SystemExit("no long enough game in 20 deals")


def run(requests: int, rounds: int) -> None:
    from django.test import Client

    table_id, alice = _table()
    client = Client()
    client.force_login(alice)  # type: ignore[arg-type]
    live = f"/tables/{table_id}/live/"
    etag = client.get(live)["ETag"]

    def get(path: str, **headers: str) -> Callable[[], int]:
        def call() -> int:
            return client.get(path, **headers).status_code

        return call

    kinds: dict[str, tuple[Callable[[], int], int]] = {
        "table page": (get(f"/tables/{table_id}/"), 200),
        "live 200": (get(live, HTTP_IF_NONE_MATCH='"0.lobby.0"'), 200),
        "live 304": (get(live, HTTP_IF_NONE_MATCH=etag), 304),
        "API view": (get(f"/api/v1/tables/{table_id}/view/"), 200),
    }
    for call, status in kinds.values():  # warm up: templates, connections, caches
        for _ in range(30):
            assert call() == status
    print(
        f"# {platform.node()} {platform.machine()} Python {platform.python_version()}, "
        f"{os.cpu_count()} cores; table {table_id}: 4 seats, "
        f"{requests} requests per kind per round, interleaved"
    )
    summary: dict[str, list[float]] = {name: [] for name in kinds}
    for number in range(1, rounds + 1):
        times: dict[str, list[float]] = {name: [] for name in kinds}
        for _ in range(requests):
            for name, (call, status) in kinds.items():
                start = time.perf_counter()
                code = call()
                times[name].append((time.perf_counter() - start) * 1000)
                assert code == status, (name, code)
        load = os.getloadavg()[0]
        for name, values in times.items():
            summary[name].append(statistics.median(values))
            print(
                f"round {number} {name:>10}: min {min(values):6.2f} ms  "
                f"median {statistics.median(values):6.2f} ms  max {max(values):7.2f} ms  "
                f"(load {load:.2f})"
            )
    print("# median of the rounds' medians (min / median / max of them):")
    for name, medians in summary.items():
        print(
            f"{name:>10}: {min(medians):6.2f} / {statistics.median(medians):6.2f} / "
            f"{max(medians):6.2f} ms"
        )


if __name__ == "__main__":
    raise SystemExit(main())
