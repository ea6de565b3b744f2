"""Classic Wild Cards tables over their sockets: whole games with every house rule, every
frame of every socket (seats and a watcher) searched as the API's answers are
(tests/games/test_classic_leaks.py), jump-ins sent over the socket, and a refused jump-in
answered in the API's error shape. Bots play one action at a time (never inside the
request), so the table stands still while the frames are read."""

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
from tests.games.test_classic_leaks import (
    ALL_RULES,
    check_common,
    check_events,
    check_view,
    public_part,
    real,
)
from tests.live.conftest import WAIT, make_user, run, send, socket, token_for

GAMES = int(os.environ.get("LIVE_CLASSIC_GAMES", "2"))
#: (people, bots); every other game at a real-time table.
LAYOUTS = [(2, 1), (1, 2), (3, 0)]
WATCHER = None


@pytest.fixture(autouse=True)
def _bots_one_action_at_a_time(settings: Any) -> None:
    settings.GAMENOOK_RUN_BOTS_INLINE = False


def _payload(table_id: int, seq: int) -> dict[str, Any]:
    return Move.objects.get(table_id=table_id, seq=seq).payload


def _etag(table_id: int) -> str:
    return f'"{selectors.view_version(Table.objects.get(pk=table_id))}"'


def _status(table_id: int) -> tuple[int, str]:
    seq, status = Table.objects.filter(pk=table_id).values_list("seq", "status").get()
    return seq, status


async def _frames_until(
    comm: WebsocketCommunicator, table_id: int, seat: int | None, seq: int, etag: str = ""
) -> dict[str, Any]:
    """Read and check every frame up to the view of ``seq`` (and ``etag``, if given)."""
    now, state = await database_sync_to_async(real)(table_id)
    assert now == seq
    while True:
        text = await comm.receive_from(timeout=WAIT)
        got = check_common(text, state, seat)
        if got["type"] == "hello":
            assert set(got) == {"type", "socket"}, got
            continue
        if got["type"] == "moved":
            payload = await database_sync_to_async(_payload)(table_id, got["seq"])
            check_events(got["events"], payload["events"], seat)
            continue
        if got["type"] == "error":
            continue  # a refusal answered to this socket, searched above
        assert got["type"] == "view", got
        assert got["view"]["seq"] == seq, (got["view"]["seq"], seq)
        check_view(got["view"]["game"], state, seat, None)
        if not etag or got["etag"] == etag:
            return dict(got["view"]["game"])


def _setup(index: int) -> tuple[int, dict[int | None, str], int]:
    people, bots = LAYOUTS[index % len(LAYOUTS)]
    users = [make_user() for _ in range(people)]
    table = services.table_create(
        host=users[0],
        seat_count=people + bots,
        game="wildcards",
        options=ALL_RULES,
        allow_watchers=True,
        move_timer="fast" if index % 2 else None,
    )
    for user in users[1:]:
        services.table_join(table_id=table.pk, user=user)
    for _ in range(bots):
        services.table_add_bot(table_id=table.pk, user=users[0], level="easy")
    services.table_start(table_id=table.pk, user=users[0])
    keys: dict[int | None, str] = {n: token_for(u) for n, u in enumerate(users)}
    keys[WATCHER] = token_for(make_user())
    return table.pk, keys, people


async def _play(
    index: int, table_id: int, keys: dict[int | None, str], people: int
) -> Counter[str]:
    rng = random.Random(index)
    counts: Counter[str] = Counter({"games": 1})
    comms = {seat: socket(table_id, token=key) for seat, key in keys.items()}
    try:
        for comm in comms.values():
            assert (await comm.connect(timeout=WAIT))[0]
        seq, status = await database_sync_to_async(_status)(table_id)
        etag = await database_sync_to_async(_etag)(table_id)
        views = {s: await _frames_until(c, table_id, s, seq, etag) for s, c in comms.items()}
        for _ in range(3000):
            if status != Table.Status.ACTIVE:
                break
            bot = await database_sync_to_async(services.table_run_bot_turn)(table_id=table_id)
            if bot is not None:
                counts["bot actions"] += 1
                counts["bot jump-ins"] += any(e.get("jump_in") for e in bot.events)
            else:
                to_act = views[WATCHER]["to_act"]
                jumpers = [n for n in range(people) if n != to_act and views[n]["legal_actions"]]
                seat = jumpers[0] if jumpers else to_act
                assert seat is not None and seat < people, "a bot's turn was left waiting"
                if rng.random() < 0.05:
                    # Another seat's hand is not this seat's: a refusal, searched like the rest.
                    other = (seat + 1) % people
                    theirs = views[other]["hand"] if other != seat else []
                    if theirs:
                        await send(
                            comms[seat],
                            {
                                "type": "action",
                                "action": {"type": "play", "card": theirs[0]["card"]},
                            },
                        )
                        error = json.loads(await comms[seat].receive_from(timeout=WAIT))
                        assert error["type"] == "error" and 400 <= error["status"] < 500, error
                        assert set(error["error"]) == {"code", "detail", "fields"}
                        _, state = await database_sync_to_async(real)(table_id)
                        check_common(json.dumps(error), state, seat)
                        counts["refusals"] += 1
                choice = rng.choice(views[seat]["legal_actions"])
                body: dict[str, Any] = {"type": choice["type"]}
                if "card" in choice:
                    body["card"] = choice["card"]
                if choice.get("colors"):
                    body["color"] = rng.choice(choice["colors"])
                if choice.get("targets"):
                    body["target"] = rng.choice(choice["targets"])
                await send(comms[seat], {"type": "action", "action": body, "expected_seq": seq})
                answer = json.loads(await comms[seat].receive_from(timeout=WAIT))
                assert answer["type"] == "moved", answer
                counts["actions"] += 1
                counts["jump-ins"] += bool(jumpers)
                counts["exchanges"] += any(
                    e["type"] in ("swap", "rotate") for e in answer["events"]
                )
            new_seq, status = await database_sync_to_async(_status)(table_id)
            assert new_seq > seq, "nothing was played"
            seq = new_seq
            for who, comm in comms.items():
                views[who] = await _frames_until(comm, table_id, who, seq)
                counts["frames checked"] += 1
            # R29: every seat's frame, but for its own hand and actions, is the watcher's.
            for who in range(people):
                assert public_part(views[who]) == public_part(views[WATCHER]), who
        assert status == Table.Status.FINISHED, "the game did not end"
    finally:
        for comm in comms.values():
            await comm.disconnect()
    return counts


def test_whole_classic_games_over_sockets_never_leak() -> None:
    totals: Counter[str] = Counter()
    for index in range(GAMES):
        table_id, keys, people = _setup(index)
        totals.update(run(_play, index, table_id, keys, people))
    assert totals["games"] == GAMES
    assert totals["actions"] > GAMES * 5 and totals["bot actions"] > GAMES
    assert totals["frames checked"] > totals["actions"] * 2
    assert totals["exchanges"] > 0, totals
