"""Classic Wild Cards and RLCard's UNO in one process, in short alternating slices.

RLCard's UNO is the classic game (108 cards), so it is the like-for-like
anchor for ``wildcards`` (issue 37, section 4). As in
``scripts/bench_interleaved.py`` (flip's), both engines run in the same
process, slice after slice (``--slice`` seconds each, the four loops in turn,
``--slices`` rounds), so a change of the machine's load falls on all four
alike; each round's ratio is taken within the round, and the min, median and
max of those ratios are printed. The loops are exactly those of
``python -m wildcards bench`` (``wildcards.cli.bench``) and
``scripts/bench_rlcard_uno.py`` (``run``), each slice continuing with new
seeded games, 4 players, uniformly random legal play:

- engine alone: ``wildcards.legal_actions`` and ``wildcards.advance`` (no
  check: RLCard validates nothing either) against RLCard's
  ``round.get_legal_actions`` and ``round.proceed_round``;
- with the acting seat's view built every step (``wildcards.view``) against
  RLCard's ``game.step``, which builds the next player's observation.

The classic game is played at its default options (no house rule): RLCard's
UNO has none of them either.

Run it with the Python of the scratch environment that has RLCard (wildcards
needs only the standard library, so it imports from this checkout):

    /tmp/rl/bin/python scripts/bench_classic.py --players 4 --slices 20

``--tree DIR`` imports wildcards (and tabletop) from ``DIR`` first, e.g. a copy
compiled with mypyc as ``make compile`` does for flip.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
# Read before argparse: the tree decides which wildcards the imports below load.
TREE = Path(sys.argv[sys.argv.index("--tree") + 1]).resolve() if "--tree" in sys.argv[:-1] else ROOT
sys.path[:0] = [str(TREE), str(ROOT), str(ROOT / "scripts")]

from bench_rlcard_uno import run as rlcard_run  # noqa: E402

from wildcards import engine as classic_engine  # noqa: E402
from wildcards.cli import bench as classic_bench  # noqa: E402

LOOPS = (
    ("engine alone", "classic", lambda p, s, i: classic_bench(p, s, f"slice{i}")),
    ("engine alone", "rlcard", lambda p, s, i: rlcard_run(p, s, i, "engine", None)),
    (
        "with a view every step",
        "classic",
        lambda p, s, i: classic_bench(p, s, f"slice{i}", with_view=True),
    ),
    ("with a view every step", "rlcard", lambda p, s, i: rlcard_run(p, s, i, "step", None)),
)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--players", type=int, default=4)
    parser.add_argument("--slice", type=float, default=0.5, help="seconds per loop and round")
    parser.add_argument("--slices", type=int, default=20, help="rounds of the four loops")
    parser.add_argument(
        "--tree", type=Path, default=ROOT, help="where wildcards is imported from (a compiled copy)"
    )
    args = parser.parse_args()
    load_before = os.getloadavg()[0]
    rates: dict[tuple[str, str], list[float]] = {}
    for index in range(args.slices):
        for name, side, loop in LOOPS:
            figures = loop(args.players, args.slice, index)
            rates.setdefault((name, side), []).append(float(str(figures["actions_per_s"])))
    print(f"# classic Wild Cards against RLCard's UNO, {args.players} players, interleaved:")
    print(f"# {args.slices} rounds of {args.slice} s per loop")
    # Says whether the engine is the compiled one: a tree without it falls back to the checkout.
    print(f"# wildcards.engine from {classic_engine.__file__}")
    print(f"# load (1 min) {load_before:.2f} before, {os.getloadavg()[0]:.2f} after")
    print("comparison                 side     min      median   max      (actions/s)")
    for name in dict.fromkeys(name for name, _, _ in LOOPS):
        for side in ("classic", "rlcard"):
            series = rates[(name, side)]
            print(
                f"{name:26s} {side:8s} {min(series):<8,.0f} {statistics.median(series):<8,.0f} "
                f"{max(series):<8,.0f}"
            )
        ratios = [
            c / r for c, r in zip(rates[(name, "classic")], rates[(name, "rlcard")], strict=True)
        ]
        print(
            f"{name:26s} classic / rlcard per round: min {min(ratios):.2f} "
            f"median {statistics.median(ratios):.2f} max {max(ratios):.2f}"
        )
    print(json.dumps({f"{name}|{side}": series for (name, side), series in rates.items()}))
    return 0


if __name__ == "__main__":
    sys.exit(main())
