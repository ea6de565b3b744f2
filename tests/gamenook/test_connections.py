"""Issue 35 §9: an ASGI process holds a bounded number of PostgreSQL connections.

Runs ``scripts/connection_check.py`` on a short burst: daphne with the
production settings on a scratch database, many requests at once, and
``pg_stat_activity`` sampled meanwhile. With connections kept per thread
(``CONN_MAX_AGE`` under daphne) the count grew with the concurrent requests
until PostgreSQL refused more; the pool bounds it at ``DATABASE_POOL_MAX_SIZE``.
The burst starts real processes: marked ``e2e``; needs PostgreSQL and Redis.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path
from urllib.parse import urlsplit

import pytest
import redis

ROOT = Path(__file__).resolve().parents[2]
#: Fewer clients than the server has connections, more than the bound by far.
CONCURRENCY = 16
POOL_SIZE = 3

_SETTINGS = """
import json, os, sys
if sys.argv[1] == "asgi":
    import gamenook.asgi
else:
    import django
    django.setup()
from django.conf import settings
database = settings.DATABASES["default"]
print(json.dumps([database["CONN_MAX_AGE"], database["OPTIONS"], os.environ.get("GAMENOOK_ASGI")]))
"""


def _database_settings(kind: str) -> list[object]:
    done = subprocess.run(
        [sys.executable, "-c", _SETTINGS, kind],
        cwd=ROOT,
        env={
            "PATH": "/usr/bin:/bin",
            "DJANGO_SETTINGS_MODULE": "gamenook.settings.production",
            "DJANGO_SECRET_KEY": "x" * 50,
            "DJANGO_ALLOWED_HOSTS": "example.com",
            "DATABASE_URL": "postgres://gamenook@127.0.0.1:5432/gamenook",
        },
        capture_output=True,
        text=True,
        check=True,
    )
    loaded: list[object] = json.loads(done.stdout.strip().splitlines()[-1])
    return loaded


def test_an_asgi_process_pools_its_connections_and_the_others_keep_one() -> None:
    kept, options, flag = _database_settings("asgi")
    assert kept == 0  # nothing kept per thread
    assert isinstance(options, dict)
    assert options["pool"] == {"min_size": 1, "max_size": 4, "timeout": 10.0}
    assert options["prepare_threshold"] == 2  # the hot statements, as before
    assert flag is None  # no process started from daphne inherits the flag
    kept, options, flag = _database_settings("wsgi")
    assert kept == 60
    assert isinstance(options, dict) and "pool" not in options


@pytest.mark.e2e
def test_a_burst_at_daphne_holds_at_most_the_pool_of_connections(tmp_path: Path) -> None:
    database = os.environ.get("DATABASE_URL", "")
    if not database.startswith("postgres"):
        pytest.skip("counts PostgreSQL's connections (set DATABASE_URL)")
    name = urlsplit(database).path.lstrip("/")
    scratch = database[: -len(name)] + f"{name}_connections"
    url = f"redis://127.0.0.1:6379/{os.environ.get('GAMENOOK_TEST_REDIS_DB', '13')}"
    try:
        redis.Redis.from_url(url).flushdb()  # this database number is the test's alone
    except redis.ConnectionError as exc:
        pytest.skip(f"no Redis at {url}: {exc}")
    done = subprocess.run(
        [
            sys.executable,
            "scripts/connection_check.py",
            f"--database-url={scratch}",
            f"--redis={url}",
            f"--concurrency={CONCURRENCY}",
            "--requests=400",
            "--seconds=20",
            "--gunicorn-workers=0",
            f"--logs={tmp_path}",
        ],
        cwd=ROOT,
        env={**os.environ, "DATABASE_POOL_MAX_SIZE": str(POOL_SIZE)},
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    print(done.stdout[-4000:], done.stderr[-3000:])  # noqa: T201 (shown when it fails)
    found = re.search(r"daphne: .* at most (\d+) seen .* bound (\w+)", done.stdout)
    assert found is not None, "the check printed no count"
    most, bound = int(found.group(1)), found.group(2)
    assert bound == str(POOL_SIZE)
    assert 0 < most <= POOL_SIZE
    assert done.returncode == 0
    assert "connection check: passed" in done.stdout
