"""flip and RLCard's UNO in one process, in short alternating slices (``make bench-engine``).

Under a shared machine's changing load, two ten-second runs one after the
other can see very different shares of the CPU. Here both engines run in the
same process, slice after slice (``--slice`` seconds each, the four loops in
turn, ``--slices`` rounds), so a change of load falls on all four alike; the
ratio of each round's rates is taken within the round, and the median of those
ratios reported with their min and max. The loops are exactly those of
``python -m flip bench`` (``flip.cli.bench``) and
``scripts/bench_rlcard_uno.py`` (``run``), each slice continuing with new
seeded games.

Run it with the Python of the scratch environment that has RLCard (flip
needs only the standard library, so it imports from this checkout):

    /tmp/rl/bin/python scripts/bench_interleaved.py --players 4 --slices 20

``--flip-tree build/compiled`` takes flip from the tree ``make compile`` built (the
same CPython, 3.11.7 here, so its extensions load in the scratch environment too).
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
# Read before argparse: the tree decides which flip the imports below load.
FLIP_TREE = (
    Path(sys.argv[sys.argv.index("--flip-tree") + 1]).resolve()
    if "--flip-tree" in sys.argv[:-1]
    else ROOT
)
sys.path[:0] = [str(FLIP_TREE), str(ROOT / "scripts")]

from bench_rlcard_uno import run as rlcard_run  # noqa: E402

from flip.cli import bench as flip_bench  # noqa: E402

LOOPS = (
    ("engine alone", "flip", lambda p, s, i: flip_bench(p, s, f"slice{i}", "engine")),
    ("engine alone", "rlcard", lambda p, s, i: rlcard_run(p, s, i, "engine", None)),
    (
        "with an observation every step",
        "flip",
        lambda p, s, i: flip_bench(p, s, f"slice{i}", "view"),
    ),
    ("with an observation every step", "rlcard", lambda p, s, i: rlcard_run(p, s, i, "step", None)),
)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--players", type=int, default=4)
    parser.add_argument("--slice", type=float, default=0.5, help="seconds per loop and round")
    parser.add_argument("--slices", type=int, default=20, help="rounds of the four loops")
    parser.add_argument("--flip-tree", type=Path, default=ROOT, help="where flip is imported from")
    args = parser.parse_args()
    builds = set()

    rates: dict[tuple[str, str], list[float]] = {}
    for index in range(args.slices):
        for name, side, loop in LOOPS:
            figures = loop(args.players, args.slice, index)
            builds.add(str(figures.get("build", "")))
            rates.setdefault((name, side), []).append(float(str(figures["actions_per_s"])))
    print(f"# interleaved, {args.slices} rounds of {args.slice} s per loop, load before/after:")
    print(f"# {os.getloadavg()[0]:.2f} (1 min) at the end")
    print(f"# flip from {FLIP_TREE}, build {' and '.join(sorted(builds - {''}))}")
    print("comparison                      side    min      median   max      (actions/s)")
    for name in dict.fromkeys(name for name, _, _ in LOOPS):
        for side in ("flip", "rlcard"):
            series = rates[(name, side)]
            print(
                f"{name:31s} {side:7s} {min(series):<8,.0f} {statistics.median(series):<8,.0f} "
                f"{max(series):<8,.0f}"
            )
        ratios = [
            f / r for f, r in zip(rates[(name, "flip")], rates[(name, "rlcard")], strict=True)
        ]
        print(
            f"{name:31s} flip / rlcard per round: min {min(ratios):.2f} "
            f"median {statistics.median(ratios):.2f} max {max(ratios):.2f}"
        )
    print(json.dumps({f"{name}|{side}": series for (name, side), series in rates.items()}))
    return 0


if __name__ == "__main__":
    sys.exit(main())
