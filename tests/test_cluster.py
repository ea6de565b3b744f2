"""Section 4 of issue 13: two web processes, two workers (one SIGKILLed) and beat.

Runs ``scripts/cluster_check.py`` on a short game (its checks are the test),
on the PostgreSQL server of ``DATABASE_URL`` and a Redis database of its own.
Several minutes of several processes: marked ``slow`` and ``cluster``, so CI
does not run it; ``pytest -m cluster tests/test_cluster.py`` does.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path
from urllib.parse import urlsplit

import pytest

ROOT = Path(__file__).resolve().parents[1]

pytestmark = [pytest.mark.slow, pytest.mark.cluster]


def test_two_web_processes_and_two_workers_time_out_and_remind_exactly_once(
    tmp_path: Path,
) -> None:
    database = os.environ.get("DATABASE_URL", "")
    if not database.startswith("postgres"):
        pytest.skip("the processes share one PostgreSQL database (set DATABASE_URL)")
    name = urlsplit(database).path.lstrip("/")
    scratch = os.environ.get("CLUSTER_DATABASE_URL", database[: -len(name)] + f"{name}_cluster")
    redis_db = os.environ.get("GAMENOOK_TEST_REDIS_DB", "12")
    broker = os.environ.get("CLUSTER_BROKER_URL", f"redis://127.0.0.1:6379/{redis_db}")
    done = subprocess.run(
        [
            sys.executable,
            "scripts/cluster_check.py",
            f"--database-url={scratch}",
            f"--broker={broker}",
            "--tables=40",
            "--seconds=60",
            f"--logs={tmp_path}",
        ],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=900,
        check=False,
    )
    print(done.stdout[-6000:], done.stderr[-3000:])  # noqa: T201 (shown when it fails)
    assert done.returncode == 0
    assert "cluster check: passed" in done.stdout
