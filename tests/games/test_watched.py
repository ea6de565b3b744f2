"""A move says, on commit, whether a socket may be open on its table (``watched``).

``live.receivers`` pushes only to watched tables: a push to a table nobody has
open is a round trip to the channel layer that no one hears.
"""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

import pytest

import flip
from games import services
from games.models import Connection, Table
from tests.factories import first_legal_request, make_user, start_table, table_changes_heard

pytestmark = pytest.mark.django_db


def _play_once(table: Table, capture: Any) -> list[dict[str, Any]]:
    """Play the seat to act's first legal action through the API's service; the signals."""
    state = flip.GameState.from_dict(table.state or {})
    seat = table.seats.get(number=state.current)
    assert seat.user is not None
    data = first_legal_request(state, state.current)
    with table_changes_heard() as signals, capture(execute=True):
        services.table_apply_action(
            table_id=table.pk, user=seat.user, data=data, expected_seq=table.seq
        )
    return signals


def test_a_move_at_a_table_with_no_socket_is_not_pushed(
    django_capture_on_commit_callbacks: Any,
) -> None:
    table = start_table(make_user(), make_user())
    signals = _play_once(table, django_capture_on_commit_callbacks)
    assert [(s["table_id"], s["watched"]) for s in signals] == [(table.pk, False)]


def test_a_move_at_a_table_with_a_socket_counted_is_pushed(
    django_capture_on_commit_callbacks: Any,
) -> None:
    table = start_table(make_user(), make_user())
    watcher = make_user()
    Connection.objects.create(
        table=table, user=watcher, channel="test.watched", seen_at=datetime.now(UTC)
    )
    signals = _play_once(table, django_capture_on_commit_callbacks)
    assert [(s["table_id"], s["watched"]) for s in signals] == [(table.pk, True)]
