"""GAMENOOK_FLIP_BUILD switches a whole process to the compiled engine, or stops it."""

import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
COMPILED = ROOT / "build" / "compiled"
SHOW = (
    "import gamenook, flip.engine, flip.bots.hard; "
    "print(flip.engine.__file__, flip.bots.hard.__file__)"
)


def _python(tmp_path: Path, build: str | None) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if k not in ("GAMENOOK_FLIP_BUILD", "PYTHONPATH")}
    if build is not None:
        env["GAMENOOK_FLIP_BUILD"] = build
    # Run from elsewhere with the checkout on PYTHONPATH, as a process started by a supervisor.
    env["PYTHONPATH"] = str(ROOT)
    return subprocess.run(
        [sys.executable, "-c", SHOW], cwd=tmp_path, env=env, capture_output=True, text=True
    )


def test_flip_build_unset_runs_the_pure_package(tmp_path: Path) -> None:
    done = _python(tmp_path, None)
    assert done.returncode == 0, done.stderr
    engine, hard = done.stdout.split()
    assert engine == str(ROOT / "flip" / "engine.py")
    assert hard == str(ROOT / "flip" / "bots" / "hard.py")


def test_flip_build_without_a_compiled_engine_stops_the_process(tmp_path: Path) -> None:
    done = _python(tmp_path, str(tmp_path))
    assert done.returncode != 0
    assert "FlipBuildError" in done.stderr
    assert "holds no compiled engine" in done.stderr


@pytest.mark.skipif(
    not (COMPILED / "flip").is_dir(), reason="make compile builds it (make test does first)"
)
def test_flip_build_runs_the_compiled_engine_and_the_rest_of_flip_from_its_tree(
    tmp_path: Path,
) -> None:
    done = _python(tmp_path, str(COMPILED))
    assert done.returncode == 0, done.stderr
    engine, hard = done.stdout.split()
    assert engine.startswith(str(COMPILED / "flip" / "engine.")) and engine.endswith(".so")
    assert hard == str(COMPILED / "flip" / "bots" / "hard.py")
