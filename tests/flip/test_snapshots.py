"""Snapshots: a version in every snapshot, and older snapshots that still play on.

The stored snapshots (``tests/flip/data/``) were written by the code before
snapshots had a version; today's code must load them and play the same
actions to the same end, event for event. Shuffles are drawn differently since
(``flip.engine.shuffled``), so the orders the later shuffles took then are
stored with them and passed in, as a game record's are.
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path
from typing import Any

import pytest

import flip
from flip import SNAPSHOT_VERSION, Action, GameState, Options, apply, new_game
from flip.state import _UPGRADES, upgrade

STORED = json.loads((Path(__file__).parent / "data" / "snapshots_v1.json").read_text())


def _without_version(data: dict[str, Any]) -> dict[str, Any]:
    # Version 3 added the round's public record, kept from the next deal on.
    return {k: v for k, v in data.items() if k not in ("version", "history")}


def test_snapshot_carries_the_current_version() -> None:
    state, _ = new_game(Options(seats=3), "versioned")
    data = state.to_dict()
    assert data["version"] == SNAPSHOT_VERSION == 3
    assert GameState.from_dict(json.loads(json.dumps(data))) == state
    assert upgrade(data) is data  # a current snapshot is not copied


@pytest.mark.parametrize("stored", STORED, ids=[s["name"] for s in STORED])
def test_snapshot_of_version_1_loads_and_plays_on_identically(stored: dict[str, Any]) -> None:
    old = json.loads(json.dumps(stored["snapshot"]))
    assert "version" not in old
    state = GameState.from_dict(old)
    assert old == stored["snapshot"]  # upgrading never changes its argument
    assert state.to_dict()["version"] == SNAPSHOT_VERSION
    if "last_flip" not in old:
        assert state.last_flip is None
    else:
        assert state.last_flip == old["last_flip"]
    events = []
    orders = iter(stored["shuffle_orders"])
    for entry in stored["actions"]:
        state, caused = apply(state, entry["seat"], Action.from_dict(entry), shuffles=orders)
        events.append(caused)
        # Every intermediate snapshot round-trips in the new shape.
        assert GameState.from_dict(state.to_dict()) == state
    text = json.dumps(events, separators=(",", ":"))
    assert hashlib.sha256(text.encode()).hexdigest() == stored["events_sha256"]
    assert next(orders, None) is None
    assert state.over
    assert _without_version(state.to_dict()) == stored["final"]


def test_snapshot_upgrade_has_one_step_per_older_version() -> None:
    assert sorted(_UPGRADES) == list(range(1, SNAPSHOT_VERSION))
    data = upgrade(dict(STORED[1]["snapshot"]))
    assert data["version"] == SNAPSHOT_VERSION
    assert data["last_flip"] is None


@pytest.mark.parametrize("version", [0, SNAPSHOT_VERSION + 1, "2", None, 1.0])
def test_snapshot_of_an_unknown_version_is_refused(version: object) -> None:
    data = {**STORED[0]["snapshot"], "version": version}
    with pytest.raises(ValueError, match="unknown snapshot version"):
        GameState.from_dict(data)


def test_snapshot_version_is_exported() -> None:
    assert "SNAPSHOT_VERSION" in flip.__all__
