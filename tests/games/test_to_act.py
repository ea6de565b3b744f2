"""``Table.to_act`` is the snapshot's seat to act, written with every snapshot."""

from __future__ import annotations

import pytest

import flip
from games import services
from games.models import Table

from .conftest import make_user, started_table

pytestmark = pytest.mark.django_db


def _check(table: Table) -> None:
    table.refresh_from_db()
    assert table.state is not None
    state = flip.GameState.from_dict(table.state)
    assert table.to_act == (None if state.over else state.current)


def test_to_act_follows_the_snapshot_through_a_whole_game_and_is_cleared_at_the_end() -> None:
    alice, bob = make_user(), make_user()
    table = started_table(alice, bob, bots=1)
    users = {0: alice, 1: bob}
    _check(table)
    while table.status == Table.Status.ACTIVE:
        assert table.state is not None
        state = flip.GameState.from_dict(table.state)
        seat = state.current
        action = flip.legal_actions(state, seat)[0]
        data = {
            "type": action.type,
            "card": flip.handle(state, action.card) if action.card >= 0 else None,
            "color": flip.COLORS[action.color] if action.color >= 0 else None,
        }
        services.table_apply_action(
            table_id=table.pk, user=users[seat], data=data, expected_seq=None
        )
        services.table_run_bots(table_id=table.pk)
        _check(table)
    assert table.to_act is None


def test_an_aborted_table_has_nobody_to_act() -> None:
    table = started_table(make_user(), make_user())
    assert table.to_act is not None
    services.table_abort(table_id=table.pk)
    table.refresh_from_db()
    assert table.to_act is None
