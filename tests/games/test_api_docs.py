"""docs/api-transcript.md's curl session runs as written: CI runs it again and compares.

``scripts/api_transcript.py --check`` starts ``make run``'s processes on a
scratch database with the documented seed, runs every command of the
transcript with bash and compares the answers with the file (times, tokens
and link tokens masked). A command that no longer works, or an answer that
changed, fails here until the transcript is written again.
"""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent.parent


@pytest.mark.e2e
@pytest.mark.skipif(shutil.which("curl") is None, reason="the transcript's commands use curl")
def test_the_api_transcript_runs_as_written() -> None:
    result = subprocess.run(
        [sys.executable, str(ROOT / "scripts" / "api_transcript.py"), "--check"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=300,
    )

    assert result.returncode == 0, result.stdout[-20_000:] + result.stderr[-5_000:]


def test_the_transcripts_masks_hide_only_what_changes_between_runs() -> None:
    sys.path.insert(0, str(ROOT / "scripts"))
    import api_transcript

    text = '"created_at": "2026-12-01T09:39:22.581446Z", "token": "abc", "seq": 3'
    assert api_transcript.masked(text) == '"created_at": "<time>", "token": "<token>", "seq": 3'
    assert api_transcript.masked("a" * 43) == "<token>"
    assert api_transcript.masked('"card": "7f7340225a51"') == '"card": "7f7340225a51"'
