"""flip against RLCard's UNO, like with like, alternated in one shell (``make bench-engine``).

Two comparisons, each run ``--runs`` times, the two sides alternating so that
the machine's load falls on both alike:

- engine alone: ``python -m flip bench`` against
  ``scripts/bench_rlcard_uno.py --mode engine`` (legal actions, a random
  choice, ``flip.advance`` / ``round.proceed_round``, no observation; both
  trust the action, which came from the legal actions);
- with an observation every step: ``python -m flip bench --view`` (the acting
  seat's view) against ``--mode step`` (``game.step``, which builds the next
  player's state).

RLCard is not a dependency: give the Python of a scratch environment that has
it (``python3 -m venv /tmp/rl && /tmp/rl/bin/pip install rlcard==1.2.0``).
Prints every run's JSON line with the load average before it, then min,
median and max per side and the ratio of the medians. ``--callgrind`` also
counts instructions per action under valgrind (fixed amounts of work, the
difference of two run lengths, so start-up cancels out), and flip's engine
alone taking each action with ``flip.apply`` (``bench --checked``).
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import re
import shutil
import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
RLCARD_SCRIPT = ROOT / "scripts" / "bench_rlcard_uno.py"

PAIRS = {
    "engine alone": (["-m", "flip", "bench"], ["--mode", "engine"]),
    "with an observation every step": (["-m", "flip", "bench", "--view"], ["--mode", "step"]),
}


def _flip_command(flip_args: list[str], players: int, extra: list[str]) -> list[str]:
    return [sys.executable, *flip_args, "--players", str(players), *extra]


def _compiled_command(flip_args: list[str], players: int, extra: list[str]) -> list[str]:
    """flip from the mypyc tree on PYTHONPATH (see _environment); -P keeps the checkout off."""
    return [sys.executable, "-P", *flip_args, "--players", str(players), *extra]


def _rlcard_command(python: str, mode: list[str], players: int, extra: list[str]) -> list[str]:
    return [python, str(RLCARD_SCRIPT), *mode, "--players", str(players), *extra]


COMPILED: Path | None = None  # --compiled: scripts/compile_flip.py's tree


def _environment(command: list[str]) -> dict[str, str]:
    env = dict(os.environ)
    if COMPILED is not None and "-P" in command:
        env["PYTHONPATH"] = str(COMPILED)
    return env


def _run(command: list[str]) -> dict[str, object]:
    done = subprocess.run(
        command, cwd=ROOT, capture_output=True, text=True, check=True, env=_environment(command)
    )
    figures: dict[str, object] = json.loads(done.stdout.strip().splitlines()[-1])
    if "-P" in command and figures.get("build") != "mypyc":
        raise RuntimeError(f"{COMPILED} did not give the compiled engine: {figures}")
    return figures


def _instructions(command: list[str]) -> int:
    done = subprocess.run(
        ["valgrind", "--tool=callgrind", "--callgrind-out-file=/dev/null", *command],
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=True,
        env=_environment(command),
    )
    found = re.search(r"Collected : (\d+)", done.stderr)
    if found is None:
        raise RuntimeError("valgrind printed no instruction count")
    return int(found.group(1))


def _per_action(command: list[str], small: int, large: int) -> float:
    """Instructions per action: the difference between two fixed-length runs."""
    counts = []
    actions = []
    for n in (small, large):
        counts.append(_instructions([*command, "--actions", str(n)]))
        figures = _run([*command, "--actions", str(n)])
        actions.append(int(str(figures["actions"])))
    return (counts[1] - counts[0]) / (actions[1] - actions[0])


def _sides(
    args: argparse.Namespace, flip_args: list[str], rlcard_mode: list[str], timed: list[str]
) -> list[tuple[str, list[str]]]:
    sides = [
        ("flip", _flip_command(flip_args, args.players, timed)),
        ("rlcard", _rlcard_command(args.rlcard_python, rlcard_mode, args.players, timed)),
    ]
    if COMPILED is not None:
        sides.append(("flip-mypyc", _compiled_command(flip_args, args.players, timed)))
    return sides


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rlcard-python", default="/tmp/rl/bin/python")
    parser.add_argument("--players", type=int, default=4)
    parser.add_argument("--seconds", type=float, default=10.0)
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--callgrind", action="store_true", help="count instructions too")
    parser.add_argument(
        "--compiled",
        type=Path,
        help="also flip compiled with mypyc from this tree (make compile: build/compiled)",
    )
    args = parser.parse_args()
    global COMPILED  # noqa: PLW0603 (one setting for the whole run)
    COMPILED = args.compiled.resolve() if args.compiled else None
    if not Path(args.rlcard_python).exists():
        parser.error(f"{args.rlcard_python} not found: see this script's docstring")

    print(
        f"# {time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}, {platform.machine()}, "
        f"{os.cpu_count()} cores, Python {platform.python_version()}, "
        f"{platform.processor() or platform.platform()}"
    )
    timed = ["--seconds", str(args.seconds)]
    results: dict[tuple[str, str], list[int]] = {}
    for run in range(args.runs):
        for name, (flip_args, rlcard_mode) in PAIRS.items():
            for side, command in _sides(args, flip_args, rlcard_mode, timed):
                load = os.getloadavg()[0]
                figures = _run(command)
                results.setdefault((name, side), []).append(int(str(figures["actions_per_s"])))
                print(json.dumps({"run": run + 1, "load_1min": round(load, 2), **figures}))

    print("\ncomparison                      side    min      median   max      (actions/s)")
    for name in PAIRS:
        medians = {}
        for side in sorted({side for (pair, side) in results if pair == name}):
            rates = results[(name, side)]
            medians[side] = statistics.median(rates)
            print(
                f"{name:31s} {side:7s} {min(rates):<8,d} {int(medians[side]):<8,d} "
                f"{max(rates):<8,d}"
            )
        for side in medians:
            if side != "rlcard":
                ratio = medians[side] / medians["rlcard"]
                print(f"{name:31s} {side} / rlcard, medians: {ratio:.2f}")

    if args.callgrind:
        if shutil.which("valgrind") is None:
            parser.error("--callgrind needs valgrind")
        print("\ninstructions per action (callgrind, 2,000 and 22,000 actions)")
        for name, (flip_args, rlcard_mode) in PAIRS.items():
            flip = _per_action(_flip_command(flip_args, args.players, []), 2000, 22000)
            rlcard = _per_action(
                _rlcard_command(args.rlcard_python, rlcard_mode, args.players, []), 2000, 22000
            )
            ratio = rlcard / flip  # fewer instructions per action: faster
            print(f"{name:31s} flip {flip:,.0f} rlcard {rlcard:,.0f} speed flip/rlcard {ratio:.2f}")
            if COMPILED is not None:
                mypyc = _per_action(_compiled_command(flip_args, args.players, []), 2000, 22000)
                speed = rlcard / mypyc
                print(f"{name:31s} flip-mypyc {mypyc:,.0f} speed flip-mypyc/rlcard {speed:.2f}")
        checked = _per_action(
            _flip_command(["-m", "flip", "bench", "--checked"], args.players, []), 2000, 22000
        )
        print(f"{'engine alone, flip.apply':31s} flip {checked:,.0f} (each action checked again)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
