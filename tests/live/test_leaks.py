"""No frame tells a seat, or a watcher, more than it may see.

Whole games of people and bots, the people playing over their sockets; after
every move every socket's frames are read and checked against the table's
real state, with the API leak test's checks (tests/games/test_api_leaks.py):
a seat's frames hold no handle of a card in another hand or in the draw pile
and its own hand is exactly its cards' active faces; a watcher's hold no face
of any hand; nothing holds the seed. Bots play one turn at a time (not inside
the request), so the table stands still while the frames are read.
"""

from __future__ import annotations

import json
import os
import random
from collections import Counter
from typing import Any

import pytest
from channels.db import database_sync_to_async
from channels.testing import WebsocketCommunicator

from games import selectors, services
from games.models import Move, Table
from tests.games.test_api_leaks import (
    _table,
    check_common,
    check_events,
    check_view,
    random_action,
)
from tests.live.conftest import WAIT, make_user, run, send, socket, token_for

GAMES = int(os.environ.get("LIVE_LEAK_GAMES", "6"))
# (people, bots): every socket is a seat's or the watcher's.
LAYOUTS = [(2, 1), (1, 2), (2, 0), (3, 0), (1, 1), (2, 1)]
WATCHER = None


@pytest.fixture(autouse=True)
def _bots_one_turn_at_a_time(settings: Any) -> None:
    settings.GAMENOOK_RUN_BOTS_INLINE = False


def _moves(table_id: int, seq: int) -> dict[str, Any]:
    return Move.objects.get(table_id=table_id, seq=seq).payload


async def _frames_until(
    comm: WebsocketCommunicator, table_id: int, seat: int | None, seq: int, etag: str = ""
) -> dict[str, Any]:
    """Read and check every frame up to the view of ``seq`` (with ``etag``, when given).

    The table stands at ``seq``. With ``etag`` the views before it are those of
    the other sockets connecting (each a change of presence, same seq).
    """
    real = await database_sync_to_async(_table)(table_id)
    assert real[0] == seq
    while True:
        text = await comm.receive_from(timeout=WAIT)
        got = check_common(text.encode(), real[1], seat)
        if got["type"] == "hello":  # a socket's first frame: its id, nothing of the table
            assert set(got) == {"type", "socket"}, got
            continue
        if got["type"] == "moved":
            assert seat is not None
            payload = await database_sync_to_async(_moves)(table_id, got["seq"])
            check_events(got["events"], payload["events"], seat)
            continue
        assert got["type"] == "view", got
        assert got["view"]["seq"] == seq, (got["view"]["seq"], seq)
        view = check_view(json.dumps(got["view"]).encode(), table_id, seat, real)
        if not etag or got["etag"] == etag:
            return view


async def _check_answer(text: str, table_id: int, seat: int) -> None:
    """The "moved" frame answering a seat's own action, against the table after it."""
    real = await database_sync_to_async(_table)(table_id)
    got = check_common(text.encode(), real[1], seat)
    assert got["type"] == "moved", got
    assert got["seq"] == real[0]
    payload = await database_sync_to_async(_moves)(table_id, got["seq"])
    check_events(got["events"], payload["events"], seat)


def _setup(index: int) -> tuple[int, dict[int | None, str], int]:
    rng = random.Random(index)
    people, bots = LAYOUTS[index % len(LAYOUTS)]
    users = [make_user() for _ in range(people)]
    # Every other game at a real-time table: its views carry presence too.
    timer = "fast" if index % 2 else None
    table = services.table_create(
        host=users[0], seat_count=people + bots, allow_watchers=True, move_timer=timer
    )
    for user in users[1:]:
        services.table_join(table_id=table.pk, user=user)
    for _ in range(bots):
        level = "easy" if rng.random() < 0.8 else "normal"
        services.table_add_bot(table_id=table.pk, user=users[0], level=level)
    services.table_start(table_id=table.pk, user=users[0])
    keys: dict[int | None, str] = {n: token_for(u) for n, u in enumerate(users)}
    keys[WATCHER] = token_for(make_user())
    return table.pk, keys, people


def _etag(table_id: int) -> str:
    return f'"{selectors.view_version(Table.objects.get(pk=table_id))}"'


def _state(table_id: int) -> tuple[int, int | None, str]:
    row = Table.objects.filter(pk=table_id).values_list("seq", "to_act", "status").get()
    return row[0], row[1], row[2]


async def _play(
    index: int, table_id: int, keys: dict[int | None, str], people: int
) -> Counter[str]:
    rng = random.Random(index)
    counts: Counter[str] = Counter({"games": 1})
    comms = {seat: socket(table_id, token=key) for seat, key in keys.items()}
    try:
        for comm in comms.values():
            assert (await comm.connect(timeout=WAIT))[0]
        seq, to_act, status = await database_sync_to_async(_state)(table_id)
        etag = await database_sync_to_async(_etag)(table_id)
        views = {s: await _frames_until(c, table_id, s, seq, etag) for s, c in comms.items()}
        for _ in range(3000):
            if status != Table.Status.ACTIVE:
                break
            assert to_act is not None
            mover = to_act
            if to_act >= people:  # a bot's seat
                await database_sync_to_async(services.table_run_bot_turn)(table_id=table_id)
                counts["bot turns"] += 1
            elif people + len(keys) > 4 and rng.random() < 0.01:  # noqa: PLR2004
                await send(comms[to_act], {"type": "concede"})
                counts["concessions"] += 1
            else:
                body = random_action(views[to_act], rng)
                expected = body.pop("expected_seq")
                await send(
                    comms[to_act], {"type": "action", "action": body, "expected_seq": expected}
                )
                counts["actions"] += 1
            if mover < people:  # a person's move: its answer first, then the rest
                answer = await comms[mover].receive_from(timeout=WAIT)
                await _check_answer(answer, table_id, mover)
            new_seq, to_act, status = await database_sync_to_async(_state)(table_id)
            assert new_seq > seq, "nothing was played"
            seq = new_seq
            for seat, comm in comms.items():
                views[seat] = await _frames_until(comm, table_id, seat, seq)
                counts["frames checked"] += 1
        assert status == Table.Status.FINISHED, "the game did not end"
    finally:
        for comm in comms.values():
            await comm.disconnect()
    return counts


def _games(count: int) -> Counter[str]:
    totals: Counter[str] = Counter()
    for index in range(count):
        table_id, keys, people = _setup(index)
        totals.update(run(_play, index, table_id, keys, people))
    assert totals["games"] == count
    assert totals["actions"] > count * 5
    assert totals["bot turns"] > count
    assert totals["frames checked"] > totals["actions"] * 2
    return totals


def test_whole_games_over_sockets_never_leak_what_a_seat_may_not_see() -> None:
    _games(GAMES)


@pytest.mark.slow
def test_a_hundred_games_over_sockets_never_leak() -> None:
    _games(100)
