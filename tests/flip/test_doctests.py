"""flip's docstring examples are tests: pytest collects flip/ with --doctest-modules."""

from __future__ import annotations

import doctest
import importlib
import pkgutil
import tomllib
from pathlib import Path

import flip
from tests.flip.build import pure_only

ROOT = Path(__file__).resolve().parents[2]


def test_doctests_of_flip_are_collected_by_every_pytest_run() -> None:
    config = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["pytest"]["ini_options"]
    assert "flip" in config["testpaths"]
    assert "--doctest-modules" in config["addopts"].split()


@pure_only
def test_doctests_the_public_interface_has_examples() -> None:
    finder = doctest.DocTestFinder()
    examples = 0
    for module in pkgutil.iter_modules(flip.__path__):
        if module.name != "__main__":
            loaded = importlib.import_module(f"flip.{module.name}")
            examples += sum(len(test.examples) for test in finder.find(loaded))
    assert examples >= 30
    for name in ("legal_actions", "playable_cards", "parse_request", "view", "event_view"):
        assert ">>>" in (getattr(flip, name).__doc__ or ""), name
