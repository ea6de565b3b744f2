"""Presence follows the sockets: who is connected, the held seat, the heartbeat."""

from __future__ import annotations

from datetime import timedelta

from channels.db import database_sync_to_async
from django.utils import timezone

from games.models import Connection, Seat
from live.ticker import ticker
from tests.factories import start_table
from tests.live.conftest import frame, make_user, run, socket, token_for, view_now


def _seat(table_id: int, number: int) -> Seat:
    return Seat.objects.get(table_id=table_id, number=number)


def test_a_seat_stays_connected_while_one_socket_is_open_and_is_held_when_none_is(
    layer: str,
) -> None:
    alice, bob = make_user("alice"), make_user("bob")
    table = start_table(alice, bob, move_timer="fast")
    alice_key, bob_key = token_for(alice), token_for(bob)
    seen: dict[str, object] = {}

    async def scenario() -> None:
        first, second = socket(table.pk, token=alice_key), socket(table.pk, token=alice_key)
        bob_socket = socket(table.pk, token=bob_key)
        for comm in (first, second, bob_socket):
            assert (await comm.connect(timeout=20))[0]
        view = (await view_now(bob_socket, table.pk))["view"]
        assert [s["connected"] for s in view["seats"]] == [True, True]
        seen["connections"] = await _count(table.pk, alice.pk)

        await first.disconnect()
        seen["after one"] = await _count(table.pk, alice.pk)
        # One of alice's sockets is still open: nothing public changed, nothing is pushed.
        assert await bob_socket.receive_nothing(timeout=0.3)

        await second.disconnect()
        got = await frame(bob_socket)
        alice_seat = got["view"]["seats"][0]
        assert alice_seat["connected"] is False
        assert alice_seat["held_until"] is not None
        seen["held"] = alice_seat["held_until"]

        # Back within the hold: the seat is theirs again, and everyone is told.
        again = socket(table.pk, token=alice_key)
        assert (await again.connect(timeout=20))[0]
        back = (await view_now(bob_socket, table.pk))["view"]["seats"][0]
        assert back["connected"] is True and back["held_until"] is None
        await again.disconnect()
        await bob_socket.disconnect()

    run(scenario)
    assert seen["connections"] == 2
    assert seen["after one"] == 1
    assert _seat(table.pk, 0).held_until is not None  # the last socket closed again
    assert not Connection.objects.filter(table_id=table.pk).exists()


async def _count(table_id: int, user_id: int) -> int:
    return await database_sync_to_async(
        Connection.objects.filter(table_id=table_id, user_id=user_id).count
    )()


def test_the_heartbeat_touches_every_open_socket_of_the_process() -> None:
    alice, bob = make_user("alice"), make_user("bob")
    table = start_table(alice, bob, move_timer="normal")
    keys = [token_for(alice), token_for(bob)]
    long_ago = timezone.now() - timedelta(hours=1)

    async def scenario() -> None:
        comms = [socket(table.pk, token=key) for key in keys]
        for comm in comms:
            assert (await comm.connect(timeout=20))[0]
        await database_sync_to_async(Connection.objects.update)(seen_at=long_ago)
        await ticker.tick(beat=True)
        stale = await database_sync_to_async(
            Connection.objects.filter(seen_at__lte=long_ago).count
        )()
        touched = await database_sync_to_async(Connection.objects.count)()
        for comm in comms:
            await comm.disconnect()
        assert (stale, touched) == (0, 2)

    run(scenario)
