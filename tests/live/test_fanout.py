"""One read of a changed table per process, shared by its sockets there (``live.fanout``)."""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Coroutine
from typing import Any

import pytest
from channels.db import database_sync_to_async
from rest_framework.test import APIClient

from games.errors import NotFound
from live import fanout
from live.fanout import Reads, Shared
from tests.factories import start_table
from tests.live.conftest import (
    api_view,
    legal_action,
    make_user,
    run,
    socket,
    token_for,
    view_at,
    view_now,
)

TABLE = 7


@pytest.fixture
def loads(monkeypatch: pytest.MonkeyPatch) -> list[object]:
    """Every read ``Shared.load`` makes, each answered with a new object (no database)."""
    made: list[object] = []

    def load(table_id: int) -> object:
        assert table_id == TABLE
        made.append(object())
        return made[-1]

    monkeypatch.setattr(Shared, "load", staticmethod(load))
    return made


def _in_a_loop(scenario: Callable[[Reads], Coroutine[Any, Any, None]]) -> None:
    asyncio.run(scenario(Reads()))


def test_the_sockets_told_of_one_change_share_one_read(loads: list[object]) -> None:
    async def scenario(reads: Reads) -> None:
        now = asyncio.get_running_loop().time()
        got = await asyncio.gather(*(reads.shared(TABLE, told_at=now, sockets=3) for _ in range(3)))
        assert loads == [got[0]] and got == [got[0]] * 3

    _in_a_loop(scenario)


def test_a_socket_told_after_a_read_began_reads_again(loads: list[object]) -> None:
    async def scenario(reads: Reads) -> None:
        loop = asyncio.get_running_loop()
        told = loop.time()
        first = await reads.shared(TABLE, told_at=told, sockets=1)
        await asyncio.sleep(0.01)
        # Told of a change after the first read began: that read may not show it.
        second = await reads.shared(TABLE, told_at=loop.time(), sockets=1)
        assert second is not first and loads == [first, second]
        # Told before the second read began: the second shows its change.
        assert await reads.shared(TABLE, told_at=told, sockets=1) is second
        assert len(loads) == 2

    _in_a_loop(scenario)


def test_a_socket_that_does_not_come_holds_the_read_only_for_a_while(
    loads: list[object], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(fanout, "GATHER_SECONDS", 0.05)

    async def scenario(reads: Reads) -> None:
        now = asyncio.get_running_loop().time()
        got = await asyncio.wait_for(reads.shared(TABLE, told_at=now, sockets=2), 10)
        assert loads == [got]

    _in_a_loop(scenario)


def test_a_socket_that_will_not_read_lets_the_others_go(
    loads: list[object], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(fanout, "GATHER_SECONDS", 600)  # only the skip can end the wait

    async def scenario(reads: Reads) -> None:
        now = asyncio.get_running_loop().time()
        waiting = asyncio.ensure_future(reads.shared(TABLE, told_at=now, sockets=2))
        await asyncio.sleep(0)
        assert not waiting.done()
        reads.skip(TABLE)
        assert await asyncio.wait_for(waiting, 10) is loads[0]

    _in_a_loop(scenario)


def test_a_socket_closing_while_it_waits_does_not_cancel_the_others_read(
    loads: list[object], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(fanout, "GATHER_SECONDS", 600)

    async def scenario(reads: Reads) -> None:
        now = asyncio.get_running_loop().time()
        closing = asyncio.ensure_future(reads.shared(TABLE, told_at=now, sockets=3))
        staying = asyncio.ensure_future(reads.shared(TABLE, told_at=now, sockets=3))
        await asyncio.sleep(0)
        closing.cancel()
        reads.skip(TABLE)  # the third socket
        assert await asyncio.wait_for(staying, 10) is loads[0]

    _in_a_loop(scenario)


def test_a_failed_read_fails_every_socket_that_shared_it(monkeypatch: pytest.MonkeyPatch) -> None:
    def load(table_id: int) -> Shared:
        raise NotFound()

    monkeypatch.setattr(Shared, "load", staticmethod(load))

    async def scenario(reads: Reads) -> None:
        now = asyncio.get_running_loop().time()
        got = await asyncio.gather(
            *(reads.shared(TABLE, told_at=now, sockets=2) for _ in range(2)),
            return_exceptions=True,
        )
        assert [type(one) for one in got] == [NotFound, NotFound]

    _in_a_loop(scenario)


# --- over real sockets ----------------------------------------------------------------


@pytest.mark.parametrize(
    ("change", "built"),
    [
        # A player's action: its message carries the table as committed (rows), no read.
        ("action", "unpack"),
        # A concession carries none (the seats change with it): the table is read.
        ("concede", "load"),
    ],
)
def test_one_change_is_read_once_for_every_socket_and_each_gets_its_own_view(
    layer: str, change: str, built: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Two seats and two watchers in one process: the table read (or unpacked from the
    change's message) once; each socket the view ``GET .../view/`` gives its user, the
    watchers the same one."""
    monkeypatch.setattr(fanout, "GATHER_SECONDS", 30)  # a slow machine gathers them all too
    alice, bob, carol, dave = (make_user(name) for name in ("alice", "bob", "carol", "dave"))
    table = start_table(alice, bob, allow_watchers=True)
    users = [alice, bob, carol, dave]
    keys = [token_for(user) for user in users]
    made: list[tuple[str, int]] = []
    load, unpack = Shared.load, Shared.unpack

    def loaded(table_id: int) -> Shared:
        made.append(("load", table_id))
        return load(table_id)

    def unpacked(packed: dict[str, Any]) -> Shared | None:
        shared = unpack(packed)
        assert shared is not None
        made.append(("unpack", shared.table.pk))
        return shared

    monkeypatch.setattr(Shared, "load", staticmethod(loaded))
    monkeypatch.setattr(Shared, "unpack", staticmethod(unpacked))

    async def scenario() -> None:
        comms = [socket(table.pk, token=key) for key in keys]
        for comm in comms:
            assert (await comm.connect(timeout=20))[0]
        first = [await view_now(comm, table.pk) for comm in comms]
        seat = first[0]["view"]["game"]["to_act"]
        client = APIClient()
        client.force_authenticate(users[seat])
        made.clear()
        if change == "action":
            path, body = "actions/", legal_action(first[seat]["view"])
        else:
            path, body = "concede/", {}
        answer = await database_sync_to_async(client.post)(
            f"/api/v1/tables/{table.pk}/{path}", body, format="json"
        )
        assert answer.status_code in (200, 201), answer.content
        seq = answer.json()["seq"]
        got = [await view_at(comm, seq) for comm in comms]
        for comm in comms:
            await comm.disconnect()
        assert made == [(built, table.pk)]
        for user, frame in zip(users, got, strict=True):
            body, etag = await database_sync_to_async(api_view)(user, table.pk)
            assert frame["view"] == body and frame["etag"] == etag
        assert [frame["view"]["game"]["seat"] for frame in got] == [0, 1, None, None]
        assert got[2] == got[3]

    run(scenario)


def test_the_views_of_one_read_share_its_seats_and_their_presence(
    django_assert_num_queries: Any,
) -> None:
    """A real-time table's presence (a query) is read once for all the views built, and
    each view is the body ``GET .../view/`` gives its seat."""
    alice, bob, carol = (make_user(name) for name in ("alice", "bob", "carol"))
    table = start_table(alice, bob, allow_watchers=True, move_timer="fast")
    shared = Shared.load(table.pk)
    with django_assert_num_queries(1):
        views = [shared.view(seat) for seat in (0, 1, None, 0)]
    assert views[3] is views[0]
    for user, view in zip((alice, bob, carol), views, strict=False):
        assert (view.body, view.etag) == api_view(user, table.pk)
