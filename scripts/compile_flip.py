"""Compile the rules engines with mypyc into a separate tree (``make compile``).

Both games' engines: Wild Cards Flip's and classic Wild Cards' (``wildcards/``,
compiled the same way; ``make bench-engine`` measures it against RLCard).


``flip/`` in the checkout stays the pure-Python package and the reference: this
copies it and ``tabletop/`` (what flip shares with the other games) to ``--out``
(default ``build/compiled``, gitignored) and compiles the engine's modules there
in place, with the modules of ``tabletop`` that flip imports, so that a process
with that directory first on ``sys.path`` (``PYTHONPATH=build/compiled``)
imports the compiled engine and every other module of ``flip`` and ``tabletop``
unchanged. ``make test-compiled`` runs the flip
tests against it; ``make bench-engine`` measures both. mypyc ships with mypy
(pinned in requirements/dev.txt); it needs a C compiler and Python's headers.

The compiled modules are the engine's hot path: the cards, the state, the
moves, the views and what they call on every action, and the pieces of
``tabletop`` they use (one compilation, so flip's ``RuleError`` is a native
subclass of tabletop's and calls into tabletop are native calls). The bots,
the CLI (the benchmark's own loop, kept in Python like RLCard's loop it is
compared with), the one-off helpers and the rest of ``tabletop`` stay
interpreted.
"""

from __future__ import annotations

import argparse
import importlib.util
import shutil
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

MODULES = (
    "flip/actions.py",
    "flip/cards.py",
    "flip/engine.py",
    "flip/errors.py",
    "flip/handles.py",
    "flip/history.py",
    "flip/journal.py",
    "flip/record.py",
    "flip/requests.py",
    "flip/state.py",
    "flip/views.py",
    "wildcards/actions.py",
    "wildcards/cards.py",
    "wildcards/engine.py",
    "wildcards/errors.py",
    "wildcards/handles.py",
    "wildcards/state.py",
    "wildcards/views.py",
    "tabletop/deal.py",
    "tabletop/handles.py",
    "tabletop/ranking.py",
    "tabletop/record.py",
    "tabletop/seats.py",
    "tabletop/shuffle.py",
)
#: The packages copied into the tree, whole.
PACKAGES = ("flip", "wildcards", "tabletop")


def copy_tree(out: Path) -> None:
    """The packages as in the checkout, without bytecode or earlier builds."""
    for old in out.glob("*__mypyc*"):
        old.unlink()
    for package in PACKAGES:
        target = out / package
        if target.exists():
            shutil.rmtree(target)
        shutil.copytree(
            ROOT / package, target, ignore=shutil.ignore_patterns("__pycache__", "*.so", "*.pyc")
        )


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=ROOT / "build" / "compiled")
    args = parser.parse_args()
    if importlib.util.find_spec("mypyc") is None:
        parser.error("mypyc is not installed: it comes with mypy (requirements/dev.txt)")
    out: Path = args.out.resolve()
    out.mkdir(parents=True, exist_ok=True)
    copy_tree(out)
    # mypy would otherwise find the checkout's pyproject.toml and load the Django plugin:
    # flip is type-checked on its own, as `make typecheck` does.
    config = out / "mypyc.ini"
    config.write_text("[mypy]\npython_version = 3.11\n")
    subprocess.run(
        [sys.executable, "-m", "mypyc", "--config-file", str(config), *MODULES],
        cwd=out,
        check=True,
    )
    built = sorted(
        str(path.relative_to(out)) for package in PACKAGES for path in (out / package).glob("*.so")
    )
    if len(built) != len(MODULES):
        print(f"expected {len(MODULES)} compiled modules, found {built}", file=sys.stderr)
        return 1
    print(f"compiled {len(built)} modules of flip, wildcards and tabletop into {out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
