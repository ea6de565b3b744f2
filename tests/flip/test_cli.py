"""``python -m flip``: simulate and bench."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def _run(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "flip", *args],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )


def test_cli_simulate_prints_a_json_summary_and_progress_on_stderr() -> None:
    done = _run("simulate", "--games", "20", "--players", "3", "--seed", "1")
    assert done.returncode == 0, done.stderr
    summary = json.loads(done.stdout)
    assert {
        "games",
        "players",
        "rounds",
        "actions",
        "flips",
        "blocked_rounds",
        "reshuffles",
        "mean_actions_per_game",
        "games_per_s",
    } <= set(summary)
    assert summary["games"] == 20
    assert summary["players"] == 3
    assert summary["rounds"] == 20  # single-round games: one round each
    assert summary["actions"] > 0
    assert summary["mean_actions_per_game"] == summary["actions"] / 20
    assert "simulate" in done.stderr
    assert "20/20" in done.stderr


def test_cli_simulate_is_reproducible() -> None:
    first = json.loads(_run("simulate", "--games", "5", "--players", "4", "--seed", "x").stdout)
    second = json.loads(_run("simulate", "--games", "5", "--players", "4", "--seed", "x").stdout)
    for key in ("rounds", "actions", "flips", "blocked_rounds", "reshuffles"):
        assert first[key] == second[key]


def test_cli_simulate_to_a_target() -> None:
    done = _run("simulate", "--games", "3", "--players", "5", "--seed", "t", "--target", "250")
    assert done.returncode == 0, done.stderr
    summary = json.loads(done.stdout)
    assert summary["rounds"] >= 3


def test_cli_bench_prints_one_json_line() -> None:
    done = _run("bench", "--players", "4", "--seconds", "0.5")
    assert done.returncode == 0, done.stderr
    lines = done.stdout.strip().splitlines()
    assert len(lines) == 1
    figures = json.loads(lines[0])
    for key in ("actions_per_s", "games_per_s"):
        assert isinstance(figures[key], int | float)
        assert figures[key] > 0
    assert figures["players"] == 4


def test_cli_bench_with_a_view_at_every_step_and_a_fixed_number_of_actions() -> None:
    done = _run("bench", "--players", "3", "--view", "--actions", "500")
    assert done.returncode == 0, done.stderr
    figures = json.loads(done.stdout)
    assert figures["mode"] == "view"
    assert figures["engine"] == "flip"
    assert figures["actions"] >= 500  # whole games: at least that many
    engine = json.loads(_run("bench", "--players", "3", "--actions", "500").stdout)
    assert engine["mode"] == "engine"
    assert engine["actions"] == figures["actions"]  # the same seeded games either way


def test_cli_bench_checked_takes_each_action_with_apply_and_plays_the_same_games() -> None:
    checked = json.loads(_run("bench", "--players", "3", "--actions", "500", "--checked").stdout)
    trusted = json.loads(_run("bench", "--players", "3", "--actions", "500").stdout)
    assert checked["mode"] == "engine-checked"
    assert (checked["games"], checked["actions"]) == (trusted["games"], trusted["actions"])
