"""The docs name only things that exist: every dotted name in docs/architecture.md imports."""

from __future__ import annotations

import importlib
import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
PACKAGES = (
    "flip",
    "wildcards",
    "tabletop",
    "games",
    "ratings",
    "notifications",
    "accounts",
    "live",
    "web",
    "gamenook",
)
_NAME = re.compile(r"`((?:" + "|".join(PACKAGES) + r")(?:\.[A-Za-z_][A-Za-z0-9_]*)+)`")


def _names(doc: str) -> list[str]:
    return sorted(set(_NAME.findall((ROOT / "docs" / doc).read_text(encoding="utf-8"))))


def _resolve(dotted: str) -> object:
    parts = dotted.split(".")
    for cut in range(len(parts), 0, -1):
        try:
            target: object = importlib.import_module(".".join(parts[:cut]))
        except ModuleNotFoundError:
            continue
        for attr in parts[cut:]:
            target = getattr(target, attr)
        return target
    raise ModuleNotFoundError(dotted)


@pytest.mark.parametrize("dotted", _names("architecture.md"))
def test_every_name_in_the_architecture_page_exists(dotted: str) -> None:
    assert _resolve(dotted) is not None


def test_the_architecture_page_names_the_path_of_a_move() -> None:
    names = _names("architecture.md")
    assert "games.services.table_apply_action" in names
    assert len(names) > 20
