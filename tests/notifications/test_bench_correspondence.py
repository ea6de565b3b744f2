"""The correspondence benchmark (``scripts/bench_correspondence.py``), bounded: its accounting.

Two tables for two simulated days, both configurations, in the test database.
What is checked is that the figures the script prints are the service's own
rows counted right, never how long anything took or whether a target held.
"""

from __future__ import annotations

import doctest
import importlib.util
import sys
from datetime import timedelta
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest
from django.contrib.auth.models import User

from games import services as games
from games.models import Move, Table
from notifications.models import OutboxMessage, PushMessage

pytestmark = pytest.mark.django_db(transaction=True)

#: Simulated days: enough for the away person's turns in both configurations.
DAYS = 1
SCRIPT = Path(__file__).resolve().parents[2] / "scripts" / "bench_correspondence.py"


@pytest.fixture(scope="module")
def bench() -> ModuleType:
    spec = importlib.util.spec_from_file_location("bench_correspondence", SCRIPT)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # dataclasses look their module up by name
    spec.loader.exec_module(module)
    return module


def _plan(bench: ModuleType) -> Any:
    """Two tables of three people; at the first, the second person is away from the start."""
    plan = bench.make_plan(tables=2, seed=7, people_per_table=3)
    away = (timedelta(0), timedelta(days=bench.AWAY_DAYS))
    people = tuple(
        tuple(
            bench.Person(p.name, p.table, p.seat, away if (p.table, p.seat) == (0, 1) else None)
            for p in table
        )
        for table in plan.people
    )
    return bench.Plan(seed=plan.seed, tables=plan.tables, people=people)


def _rows_of(config: str) -> tuple[list[int], list[int]]:
    users = list(
        User.objects.filter(username__startswith=f"{config.lower()}-").values_list("pk", flat=True)
    )
    tables = list(Table.objects.filter(host_id__in=users).values_list("pk", flat=True))
    return users, tables


def test_both_configurations_count_the_services_own_rows(bench: ModuleType) -> None:
    plan = _plan(bench)
    results = {}
    for config in bench.CONFIGS:
        result = results[config] = bench.simulate(config=config, plan=plan, days=DAYS)
        users, tables = _rows_of(config)
        assert len(users) == result["people"] == 6
        assert len(tables) == result["tables"] == 2
        assert result["simulated_days"] <= DAYS
        finished = Table.objects.filter(pk__in=tables, status=Table.Status.FINISHED)
        assert result["games_finished"] == finished.count()
        # Each answer a person gave ended their turn: the turns counted as people's.
        assert result["turns"]["people"] == result["answers"]
        assert result["moves_by_source"] == {
            source: Move.objects.filter(table_id__in=tables, source=source)
            .exclude(action="start")
            .count()
            for source in result["moves_by_source"]
        }
        messages = result["messages"]
        mails = OutboxMessage.objects.filter(user_id__in=users, kind__in=bench.TURN_KINDS)
        assert messages["emails"] == mails.count()
        pushes = PushMessage.objects.filter(user_id__in=users)
        assert messages["pushes"] == pushes.count() == result["pushes_received_by_push_service"]
        assert messages["per_turn_raw_max"] >= messages["per_turn_max"] >= 1
        assert messages["emails_per_person"]["max"] >= messages["emails_per_person"]["mean"]
        # The script's configurations run in databases of their own; here the next one
        # shares this one, whose sweep must not play on at these tables.
        for table_id in tables:
            if not Table.objects.filter(pk=table_id, status=Table.Status.FINISHED).exists():
                games.table_abort(table_id=table_id)
    a, b = results["A"], results["B"]
    # A: nobody asked the table to play for them; the away person's turns waited.
    assert a["turns"]["forced"] == a["turns"]["autopilot"] == 0
    assert a["answers_not_given_away"] > 0
    # B: the away person's turns were the autopilot's, and forced moves were played at once.
    assert b["turns"]["autopilot"] > 0 and b["turns"]["forced"] > 0
    assert b["answers_not_given_away"] == 0
    text = bench.report(results, _meta())
    assert "median B/A" in text or "games finished 0/2" in text
    assert "[A]" in text and "[B]" in text


@pytest.mark.django_db(transaction=False)
def test_the_scripts_examples_hold(bench: ModuleType) -> None:
    """Its docstring examples: the plan, the delays, the percentile and the message counts."""
    outcome = doctest.testmod(bench, verbose=False)
    assert outcome.attempted >= 4 and outcome.failed == 0


def _meta() -> dict[str, Any]:
    return {
        "command": "test",
        "commit": "?",
        "machine": "?",
        "date": "?",
        "load": "?",
        "cpu_seconds_parent": 0,
        "wall_seconds": 0,
    }
