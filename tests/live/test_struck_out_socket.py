"""A player struck out at a real-time table over their socket (issue 36 §3; PRODUCT.md
rulings 17 and 18, revised): their seat's view is pushed to them, never another seat's
or the watcher's, and an action is refused with its code while conceding is not."""

from __future__ import annotations

import pytest
from channels.db import database_sync_to_async

from games.models import Seat, Table
from tests.factories import start_table
from tests.live.conftest import api_view, frame, make_user, run, send, socket, token_for

pytestmark = pytest.mark.django_db(transaction=True)


def test_a_struck_out_player_gets_their_seats_view_may_not_act_and_may_concede() -> None:
    alice, bob, carol = make_user("alice"), make_user("bob"), make_user("carol")
    table = start_table(alice, bob, carol, move_timer="fast")
    # What three timed-out turns leave (tests/notifications/test_struck_out.py plays them).
    Seat.objects.filter(table=table, user=bob).update(struck_out=True, strikes=3)
    key = token_for(bob)
    seq = table.seq

    async def scenario() -> None:
        comm = socket(table.pk, token=key)
        assert (await comm.connect(timeout=20))[0]
        got = await frame(comm)
        while got["type"] != "view":
            got = await frame(comm)
        body, _ = await database_sync_to_async(api_view)(bob, table.pk)
        assert got["view"] == body
        assert got["view"]["game"]["seat"] == 1 and got["view"]["game"]["hand"]
        assert got["view"]["seats"][1]["replaced"] is True
        await send(comm, {"type": "action", "action": {"type": "draw"}})
        refused = await frame(comm)
        assert refused["type"] == "error", refused
        assert (refused["error"]["code"], refused["status"]) == ("struck_out", 409)
        await send(comm, {"type": "concede"})
        moved = await frame(comm)
        assert moved["type"] == "moved", moved
        await comm.disconnect()

    run(scenario)
    seat = Seat.objects.get(table=table, number=1)
    assert seat.left_at is not None and seat.user == bob
    assert Table.objects.get(pk=table.pk).seq == seq + 1
