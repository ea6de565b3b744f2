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

Then, unless ``--no-live``, the live updates in a real browser (issue 36, section
5): daphne serving gamenook's ASGI application (HTTP and the sockets) on the same
scratch database with Redis's channel layer (``--channel-layer-url``), a Celery
worker on ``--broker-url`` for the move timers, and Debian's Chromium
(``/usr/bin/chromium``, tests/web/browser.py's flags) driven by Playwright:

- ``latency``: two people, each on a page of their own, play two-seat tables by
  clicking; for every move, the time from the click on the mover's page (the
  click event, in the page) to the moment the other page's live part shows the
  move's seq (a MutationObserver there; both pages share the browser's clock).
  ``--moves`` moves per mode and round, the modes alternated round by round:
  ``turn-by-turn`` and ``real-time`` (both over the table's socket) and
  ``turn-by-turn polling`` (the socket refused with 4429 by Playwright's
  WebSocket routing, so the page falls back to polling once a second with
  ETags, which is how every turn-by-turn page worked before). Prints min,
  median, p90 and max per mode.
- ``idle CPU``: ``--idle-pages`` pages open at turn-by-turn tables where
  nothing happens, for ``--idle-seconds``, polling against socket, anchored
  against the same time with no page open; the CPU daphne spent meanwhile
  (``/proc/<pid>/stat``, user + system), and per open page and minute once the
  empty run's is taken off. The phases alternate round by round.
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
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument(
        "--database-url", default="postgres://postgres@127.0.0.1:5432/gamenook_bench_web"
    )
    parser.add_argument("--requests", type=int, default=300, help="per kind and round")
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--no-live", action="store_true", help="only the server times")
    parser.add_argument("--no-server-time", action="store_true", help="only the live part")
    parser.add_argument("--moves", type=int, default=30, help="per mode and live round")
    parser.add_argument("--live-rounds", type=int, default=2)
    parser.add_argument("--idle-pages", type=int, default=10)
    parser.add_argument("--idle-seconds", type=float, default=60)
    # Redis databases of the benchmark's own: flushed at the end.
    parser.add_argument(
        "--channel-layer-url",
        default=os.environ.get("BENCH_WEB_CHANNEL_LAYER_URL", "redis://127.0.0.1:6379/6"),
    )
    parser.add_argument(
        "--broker-url", default=os.environ.get("BENCH_WEB_BROKER_URL", "redis://127.0.0.1:6379/10")
    )
    args = parser.parse_args()
    if "bench" not in args.database_url.rsplit("/", 1)[-1]:
        parser.error("the database's name must contain 'bench'")
    os.environ["DATABASE_URL"] = args.database_url
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "gamenook.settings.test")
    if not args.no_live:
        # This process's changes (the tables it opens) reach daphne's sockets too.
        os.environ["GAMENOOK_TEST_CHANNEL_LAYER_URL"] = args.channel_layer_url
        # The browser part calls the ORM between Playwright's (sync) steps.
        os.environ["DJANGO_ALLOW_ASYNC_UNSAFE"] = "true"
    import django

    django.setup()
    from django.db import connection

    old_name = connection.settings_dict["NAME"]
    connection.creation.create_test_db(verbosity=0, autoclobber=True, keepdb=False)
    try:
        if not args.no_server_time:
            run(args.requests, args.rounds)
        if not args.no_live:
            run_live(args, dict(connection.settings_dict))
    finally:
        connection.close()
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


# ----------------------------------------------------------------------------
# The live updates in a real browser (issue 36, section 5)

#: tests/web/browser.py's: Debian's Chromium, nothing downloaded.
CHROMIUM = os.environ.get("GAMENOOK_CHROMIUM", "/usr/bin/chromium")
CHROMIUM_ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]
PASSWORD = "correct horse battery"
MODES = ("turn-by-turn", "real-time", "turn-by-turn polling")

# In the page: when each click happened, and when the live part showed each seq. Both
# on the browser's one clock (performance.timeOrigin is shared across its pages).
INSTRUMENT = """() => {
  const now = () => performance.timeOrigin + performance.now();
  window.__clicks = [];
  window.__seen = [];
  document.addEventListener("click", () => window.__clicks.push(now()), true);
  const root = document.getElementById("live");
  new MutationObserver(() => {
    const part = root.querySelector(".live");
    if (part) window.__seen.push([Number(part.dataset.seq), now()]);
  }).observe(root, {childList: true});
}"""
SETTLED = (
    "() => !document.getElementById('live').hasAttribute('aria-busy')"
    " && document.querySelector('#live .live') !== null"
)


def _cpu_seconds(pid: int) -> float:
    """User and system CPU time of process ``pid`` so far (/proc/<pid>/stat)."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def _free_port() -> int:
    import socket

    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def _start_site(args: argparse.Namespace, db: dict[str, Any], logs: Path) -> tuple[str, list[Any]]:
    """daphne and a Celery worker on the scratch database; the site's URL and the processes."""
    import subprocess
    import urllib.request
    import uuid

    bin_dir = Path(sys.executable).parent
    port = _free_port()
    env = {
        **os.environ,
        "DJANGO_SETTINGS_MODULE": "gamenook.settings.test",
        "DATABASE_URL": f"postgres://{db['USER']}@{db['HOST']}:{db['PORT']}/{db['NAME']}",
        "GAMENOOK_TEST_CHANNEL_LAYER_URL": args.channel_layer_url,
        "GAMENOOK_TEST_BROKER_URL": args.broker_url,
        "CELERY_TASK_DEFAULT_QUEUE": f"gamenook-bench-web-{uuid.uuid4().hex[:8]}",
        "PYTHONUNBUFFERED": "1",
    }
    env.pop("DJANGO_ALLOW_ASYNC_UNSAFE", None)
    commands = {
        "daphne": [str(bin_dir / "daphne"), "-b", "127.0.0.1", "-p", str(port),
                   "tests.web.asgi:application"],
        "worker": [str(bin_dir / "celery"), "-A", "gamenook", "worker", "--pool=solo",
                   "--without-mingle", "--without-gossip", "-l", "warning"],
    }  # fmt: skip
    procs = []
    for name, command in commands.items():
        log = (logs / f"{name}.log").open("w")
        procs.append(
            subprocess.Popen(command, cwd=ROOT, env=env, stdout=log, stderr=subprocess.STDOUT)
        )
    url = f"http://127.0.0.1:{port}"
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        if any(proc.poll() is not None for proc in procs):
            break
        try:
            with urllib.request.urlopen(url + "/login/", timeout=2) as answer:  # noqa: S310 (ours)
                if answer.status == 200:
                    return url, procs
        except OSError:
            time.sleep(0.2)
    for proc in procs:
        proc.terminate()
    raise SystemExit(f"daphne did not start: see {logs}")


def _new_table(alice: Any, bob: Any, *, realtime: bool) -> int:
    from games import services

    table = services.table_create(
        host=alice, seat_count=2, move_timer="relaxed" if realtime else None
    )
    services.table_join(table_id=table.pk, user=bob)
    services.table_start(table_id=table.pk, user=alice)
    return int(table.pk)


def _log_in(page: Any, username: str) -> None:
    page.goto("/login/")
    page.get_by_label("Username").fill(username)
    page.get_by_label("Password").fill(PASSWORD)
    page.get_by_role("button", name="Log in").click()
    page.get_by_role("heading", name="Lobby").wait_for()


def _open_table(page: Any, table_id: int, state: str) -> None:
    page.goto(f"/tables/{table_id}/")
    page.wait_for_function(f"() => document.documentElement.dataset.live === '{state}'")
    page.evaluate(INSTRUMENT)


def _seq(page: Any) -> int:
    return int(page.locator("#live .live").get_attribute("data-seq"))


def _click_move(page: Any) -> bool:
    """One move by clicking, as a person would; False when the page offers none."""
    live = page.locator("#live")
    if live.locator("input[value=choose_color]").count():
        live.locator("form.picker button").first.click()
    elif live.locator("summary.card-button.playable").count():
        live.locator("summary.card-button.playable").first.click()
        live.locator("details.wild-pick[open] .picker button").first.click()
    elif live.locator("button.card-button.playable").count():
        live.locator("button.card-button.playable").first.click()
    elif live.locator("[data-draw]").count():
        live.locator("[data-draw]").click()
    elif live.locator("[data-pass]").count():
        live.locator("[data-pass]").click()
    else:
        return False
    return True


def _latencies(
    pages: dict[str, Any], users: dict[str, Any], *, mode: str, moves: int
) -> list[float]:
    """``moves`` moves clicked at two-seat tables of ``mode``; each one's time in ms."""
    state = "polling" if mode.endswith("polling") else "live"
    times: list[float] = []
    table_id = 0
    while len(times) < moves:
        if not table_id:
            table_id = _new_table(users["alice"], users["bob"], realtime=mode == "real-time")
            for page in pages.values():
                _open_table(page, table_id, state)
        mine = [p for p in pages.values() if p.locator("#live .turn.my-turn").count()]
        if len(mine) != 1 or pages["alice"].locator("#live .ranking").count():
            table_id = 0  # over (or nobody to act): a new table
            continue
        mover = mine[0]
        other = next(p for p in pages.values() if p is not mover)
        clicks = mover.evaluate("() => window.__clicks.length")
        if not _click_move(mover):
            table_id = 0
            continue
        mover.wait_for_function(SETTLED)
        notice = mover.locator("#live [data-notice]")
        if notice.count() and notice.inner_text().strip():
            table_id = 0  # refused (the table moved on): start afresh rather than guess
            continue
        target = _seq(mover)
        other.wait_for_function(
            "n => Number(document.querySelector('#live .live').dataset.seq) >= n",
            arg=target,
            timeout=15_000,
        )
        clicked = mover.evaluate(f"() => window.__clicks.slice({clicks}).pop()")
        shown = other.evaluate("n => window.__seen.find(([seq]) => seq >= n)[1]", target)
        times.append(shown - clicked)
    return times


def _p90(values: list[float]) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(0.9 * len(ordered)))]


def run_live(args: argparse.Namespace, db: dict[str, Any]) -> None:
    """The live part: latency per mode, then the CPU an idle open page costs daphne."""
    import tempfile

    from django.contrib.auth.models import User
    from django.db import connection
    from playwright.sync_api import sync_playwright

    # Not the server-time part's alice and bob: the same database.
    users = {
        name: User.objects.create_user(f"live-{name}", f"live-{name}@example.com", PASSWORD)
        for name in ("alice", "bob")
    }
    logs = Path(tempfile.mkdtemp(prefix="bench-web-"))
    url, procs = _start_site(args, db, logs)
    daphne = procs[0].pid
    try:
        with sync_playwright() as playwright:
            browser = playwright.chromium.launch(
                executable_path=CHROMIUM, headless=True, args=CHROMIUM_ARGS
            )
            contexts: dict[str, dict[str, Any]] = {"socket": {}, "polling": {}}
            for kind, by_user in contexts.items():
                for name in users:
                    context = browser.new_context(base_url=url)
                    context.set_default_timeout(20_000)
                    if kind == "polling":
                        # The socket refused as a server over its cap refuses it: the
                        # page polls with ETags once a second, as before issue 36.
                        context.route_web_socket(
                            "**/ws/**", lambda ws: ws.close(code=4429, reason="bench")
                        )
                    page = context.new_page()
                    _log_in(page, users[name].username)
                    by_user[name] = context
            print(
                f"# live: daphne + Redis channel layer ({args.channel_layer_url}) + a Celery "
                f"worker, Chromium {browser.version}; {args.moves} moves per mode per round, "
                f"{args.live_rounds} rounds, modes alternated"
            )
            try:
                _latency_rounds(args, contexts, users)
                _idle_rounds(args, contexts, users, daphne)
            finally:
                # Under Playwright's greenlet the ORM holds a connection of its own:
                # closed here, or the scratch database cannot be dropped.
                connection.close()
                browser.close()
    finally:
        for proc in procs:
            proc.terminate()
        for proc in procs:
            proc.wait(timeout=20)
        import redis

        for redis_url in {args.channel_layer_url, args.broker_url}:
            redis.Redis.from_url(redis_url).flushdb()  # the benchmark's own databases


def _latency_rounds(
    args: argparse.Namespace, contexts: dict[str, dict[str, Any]], users: dict[str, Any]
) -> None:
    all_times: dict[str, list[float]] = {mode: [] for mode in MODES}
    pages = {
        kind: {name: context.pages[0] for name, context in by_user.items()}
        for kind, by_user in contexts.items()
    }
    for number in range(1, args.live_rounds + 1):
        order = MODES if number % 2 else tuple(reversed(MODES))
        for mode in order:
            kind = "polling" if mode.endswith("polling") else "socket"
            times = _latencies(pages[kind], users, mode=mode, moves=args.moves)
            all_times[mode].extend(times)
            print(
                f"round {number} {mode:>21}: min {min(times):6.0f}  median "
                f"{statistics.median(times):6.0f}  p90 {_p90(times):6.0f}  max "
                f"{max(times):6.0f} ms  (load {os.getloadavg()[0]:.2f})"
            )
    print("# move clicked on one page -> shown on the other, all rounds (ms):")
    for mode, times in all_times.items():
        print(
            f"{mode:>21}: n {len(times)}  min {min(times):6.0f}  median "
            f"{statistics.median(times):6.0f}  p90 {_p90(times):6.0f}  max {max(times):6.0f}"
        )


def _idle_rounds(
    args: argparse.Namespace,
    contexts: dict[str, dict[str, Any]],
    users: dict[str, Any],
    daphne: int,
) -> None:
    phases = ("empty", "polling", "socket")
    tables = [
        _new_table(users["alice"], users["bob"], realtime=False)
        for _ in range((args.idle_pages + 1) // 2)
    ]
    cpu: dict[str, list[float]] = {phase: [] for phase in phases}
    for number in range(1, args.live_rounds + 1):
        order = phases if number % 2 else tuple(reversed(phases))
        for phase in order:
            opened = []
            if phase != "empty":
                for index in range(args.idle_pages):
                    name = ("alice", "bob")[index % 2]
                    page = contexts[phase][name].new_page()
                    _open_table(
                        page, tables[index // 2], "polling" if phase == "polling" else "live"
                    )
                    opened.append(page)
            time.sleep(2)  # settle: the pages' first requests are not idle ones
            start = _cpu_seconds(daphne)
            time.sleep(args.idle_seconds)
            used = _cpu_seconds(daphne) - start
            cpu[phase].append(used)
            for page in opened:
                page.close()
            print(
                f"round {number} idle {phase:>7}: {len(opened):3d} pages, daphne CPU "
                f"{used:6.2f} s in {args.idle_seconds:.0f} s  (load {os.getloadavg()[0]:.2f})"
            )
    empty = statistics.median(cpu["empty"])
    print(
        "# daphne CPU per idle open page and minute, the empty run's taken off (median of rounds):"
    )
    for phase in ("polling", "socket"):
        per_page = (statistics.median(cpu[phase]) - empty) / args.idle_pages
        print(f"{phase:>7}: {per_page * 60 / args.idle_seconds * 1000:7.1f} ms CPU per page-minute")


if __name__ == "__main__":
    raise SystemExit(main())
