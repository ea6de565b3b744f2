"""schemathesis against the served schema on a live server: no server error, no mismatch.

``scripts/fuzz_api.py`` does the work (a scratch database, seeded users and
tables, ``runserver``, ``st run`` with every check); these tests run it for a
bounded time. CI runs the short one with a fixed seed, so a failure it finds
shows again; ``pytest -m slow`` runs a long one with a fresh seed each time.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent.parent
SCRIPT = ROOT / "scripts" / "fuzz_api.py"


def _fuzz(*args: str, timeout: int) -> None:
    result = subprocess.run(
        [sys.executable, str(SCRIPT), *args],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=timeout,
    )
    assert result.returncode == 0, result.stdout[-20_000:] + result.stderr[-5_000:]


@pytest.mark.e2e
def test_schemathesis_finds_no_server_error_and_no_schema_mismatch() -> None:
    _fuzz("--max-time", "45", "--seed", "1", timeout=300)


@pytest.mark.e2e
@pytest.mark.slow
def test_schemathesis_for_fifteen_minutes() -> None:
    _fuzz("--max-time", "900", timeout=1200)
