"""Finished games for the ratings' tests: played through the services, as the API plays them."""

from __future__ import annotations

from datetime import timedelta

import time_machine
from django.contrib.auth.models import User

from games import selectors, services
from games.models import Seat, Table
from tests.factories import legal_request


def play_out(table: Table, *, pick: int = 0, timeouts: set[int] | None = None) -> Table:
    """Play ``table`` to its end: each person's first legal move (``pick``), the bots
    inline; the seats in ``timeouts`` let each of their deadlines run out instead."""
    timeouts = timeouts or set()
    for _ in range(5000):
        table.refresh_from_db()
        if table.status != Table.Status.ACTIVE:
            return table
        seat = Seat.objects.get(table=table, number=table.to_act)
        if seat.bot_plays:
            services.table_run_bots(table_id=table.pk)
        elif seat.number in timeouts:
            assert table.deadline_at is not None
            with time_machine.travel(table.deadline_at + timedelta(seconds=1), tick=False):
                services.table_timeout(table_id=table.pk, turn=table.turn)
        else:
            play_as(table, seat.user, pick)
    raise AssertionError("the game did not end in 5,000 moves")


def play_as(table: Table, user: User | None, pick: int = 0) -> None:
    assert user is not None
    number = Seat.objects.get(table=table, user=user).number
    view = selectors.table_view(table, number)
    assert view is not None
    services.table_apply_action(
        table_id=table.pk, user=user, data=legal_request(view, pick), expected_seq=None
    )
