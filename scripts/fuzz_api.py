"""Fuzz the API with schemathesis against its own served schema, on a live server.

    .venv/bin/python scripts/fuzz_api.py [--max-time 120] [--seed 1] [--database-url URL]

Starts a server (``manage.py runserver``, ``DEBUG`` off) on a fresh database:
SQLite in a temporary folder, or, with ``--database-url`` (default: the
``DATABASE_URL`` of the environment when it is PostgreSQL), a scratch
PostgreSQL database next to it whose name ends in ``_fuzz``, created and
dropped. Seeds it with users and tables at every stage: a lobby Alice hosts,
a running game where Alice is to act, one where Bob is, a finished game.
Then runs ``st run`` with every check (no server error, responses match the
schema, invalid input refused, valid input accepted, authentication not
ignored...) as Alice, with ``table_id`` mostly one of those tables, for
``--max-time`` seconds, and exits with schemathesis' status.

The checks are tuned in ``scripts/schemathesis.toml`` (read it for what is
allowed where and why). CI runs a short run (``tests/test_api_fuzz.py``);
``pytest -m slow`` runs a long one.
"""

from __future__ import annotations

import argparse
import json
import os
import socket
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
BIN = Path(sys.executable).parent
CONFIG = ROOT / "scripts" / "schemathesis.toml"


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def _scratch_postgres(url: str) -> str:
    """Create an empty ``<name>_fuzz`` database beside ``url``'s; return its URL."""
    import psycopg

    base, _, name = url.rpartition("/")
    scratch = f"{name or 'gamenook'}_fuzz"
    with psycopg.connect(f"{base}/postgres", autocommit=True) as conn:
        conn.execute(f'DROP DATABASE IF EXISTS "{scratch}" WITH (FORCE)')
        conn.execute(f'CREATE DATABASE "{scratch}"')
    return f"{base}/{scratch}"


def _drop_postgres(url: str) -> None:
    import psycopg

    base, _, name = url.rpartition("/")
    with psycopg.connect(f"{base}/postgres", autocommit=True) as conn:
        conn.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')


def seed() -> dict[str, Any]:
    """Users, tokens and tables for the run (called in a subprocess with Django set up)."""
    import django

    sys.path.insert(0, str(ROOT))
    django.setup()
    from django.contrib.auth.models import User

    from accounts import services as accounts
    from games import services as games
    from notifications import services as notifications
    from ratings import services as ratings

    users = {}
    for name in ("alice", "bob", "carol", "dave"):
        user = User.objects.create_user(name, f"{name}@example.com", "correct horse battery")
        notifications.email_verified_set(user, user.email)
        users[name] = user
    alice, bob, carol = users["alice"], users["bob"], users["carol"]
    lobby = games.table_create(host=alice, seat_count=4, allow_watchers=True)
    games.table_join(table_id=lobby.pk, user=carol)
    # Seat 1 acts first: Bob hosts here so that Alice is to act.
    alice_to_act = games.table_create(host=bob, seat_count=2)
    games.table_join(table_id=alice_to_act.pk, user=alice)
    games.table_start(table_id=alice_to_act.pk, user=bob)
    bob_to_act = games.table_create(host=alice, seat_count=2, allow_watchers=True)
    games.table_join(table_id=bob_to_act.pk, user=bob)
    games.table_start(table_id=bob_to_act.pk, user=alice)
    finished = games.table_create(host=alice, seat_count=2)
    games.table_add_bot(table_id=finished.pk, user=alice, level="easy")
    games.table_start(table_id=finished.pk, user=alice)
    games.seat_replace_with_bot(table_id=finished.pk, number=0, level="easy")
    games.table_run_bots(table_id=finished.pk)
    ratings.table_rate(table_id=finished.pk)  # what the game-over follow-up does
    # Issue 40: a bot of Alice's, so the bot endpoints meet a name that is hers.
    accounts.bot_create(owner=alice, username="alicebot")
    return {
        "alice": accounts.token_create(user=alice, name="fuzz")[1],
        # Logging out and revoking tokens act on spare users' tokens, so the run keeps Alice's.
        "carol": accounts.token_create(user=carol, name="fuzz")[1],
        "dave": accounts.token_create(user=users["dave"], name="fuzz")[1],
        "tables": [lobby.pk, alice_to_act.pk, bob_to_act.pk, finished.pk],
    }


def _config(folder: Path, seeded: dict[str, Any]) -> Path:
    """``scripts/schemathesis.toml`` with the run's table ids and spare tokens filled in."""
    text = CONFIG.read_text()
    text = text.replace('"@TABLES@"', ", ".join(str(t) for t in seeded["tables"]))
    text = text.replace("@CAROL@", seeded["carol"]).replace("@DAVE@", seeded["dave"])
    path = folder / "schemathesis.toml"
    path.write_text(text)
    return path


def _wait_for(url: str, proc: subprocess.Popen[bytes], seconds: float = 60) -> None:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise SystemExit(f"the server exited with {proc.returncode}")
        try:
            with urllib.request.urlopen(url, timeout=2) as response:  # noqa: S310  (our own http URL)
                if response.status == 200:
                    return
        except OSError:
            time.sleep(0.3)
    raise SystemExit(f"the server did not answer {url} within {seconds} s")


def main() -> int:
    if sys.argv[1:] == ["_seed"]:
        print(json.dumps(seed()))
        return 0
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--max-time", type=int, default=120, help="seconds of fuzzing")
    parser.add_argument("--seed", type=int, default=None, help="schemathesis' random seed")
    parser.add_argument("--database-url", default=None)
    args = parser.parse_args()
    given = args.database_url or os.environ.get("DATABASE_URL", "")
    with tempfile.TemporaryDirectory(prefix="gamenook-fuzz-") as tmp:
        folder = Path(tmp)
        if given.startswith("postgres"):
            database = _scratch_postgres(given)
        else:
            database = f"sqlite:///{folder / 'fuzz.sqlite3'}"
        env = {
            **os.environ,
            "PYTHONUNBUFFERED": "1",
            "DJANGO_SETTINGS_MODULE": "gamenook.settings.local",
            "DJANGO_DEBUG": "False",
            "DATABASE_URL": database,
            "CELERY_BROKER_URL": "memory://",
            "GAMENOOK_RUN_BOTS_INLINE": "true",
            "EMAIL_URL": "dummymail://",
            # The limits have their own tests; here they would only hide the endpoints.
            "GAMENOOK_RATE_ACCOUNTS": "1000000/minute",
            "GAMENOOK_RATE_ACTIONS": "1000000/minute",
            "DJANGO_LOG_LEVEL": "ERROR",
        }
        python = sys.executable
        try:
            manage = [python, "manage.py"]
            subprocess.run([*manage, "migrate", "-v0"], cwd=ROOT, env=env, check=True)
            seeded = json.loads(
                subprocess.run(
                    [python, __file__, "_seed"],
                    cwd=ROOT,
                    env=env,
                    check=True,
                    stdout=subprocess.PIPE,
                    text=True,
                ).stdout
            )
            port = _free_port()
            log = (folder / "server.log").open("wb")
            server = subprocess.Popen(
                [*manage, "runserver", "--noreload", f"127.0.0.1:{port}"],
                cwd=ROOT,
                env=env,
                stdout=log,
                stderr=subprocess.STDOUT,
            )
            try:
                schema_url = f"http://127.0.0.1:{port}/api/v1/schema/?format=json"
                _wait_for(schema_url, server)
                command = [
                    str(BIN / "st"),
                    "--config-file",
                    str(_config(folder, seeded)),
                    "run",
                    schema_url,
                    "--url",
                    f"http://127.0.0.1:{port}",
                    "--header",
                    f"Authorization: Token {seeded['alice']}",
                    "--max-time",
                    str(args.max_time),
                    "--workers",
                    "1",
                    "--no-color",
                ]
                if args.seed is not None:
                    command += ["--seed", str(args.seed)]
                print(
                    "$",
                    " ".join(
                        c if "Token" not in c else "'Authorization: Token …'" for c in command[1:]
                    ),
                    flush=True,
                )
                status = subprocess.run(command, cwd=folder, env=env).returncode
            finally:
                server.terminate()
                server.wait(timeout=10)
                log.close()
            errors = [
                line
                for line in (folder / "server.log").read_text(errors="replace").splitlines()
                if "Traceback" in line or " 500 " in line or "ERROR" in line
            ]
            if errors:
                print("The server logged errors:", *errors[:20], sep="\n  ")
                status = status or 1
            return status
        finally:
            if database.startswith("postgres"):
                _drop_postgres(database)


if __name__ == "__main__":
    sys.exit(main())
