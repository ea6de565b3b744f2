"""No line of a table's stream tells a seat, or a watcher, more than it may see.

Whole games, Flip and classic Wild Cards (every house rule on), people and bots,
with a table stream open for every person's seat and one for a watcher. The
people play through the REST API, the bots one turn at a time, so the table
stands still while the lines are read. Every line is searched against the real
state with the API leak tests' checks (tests/games/test_api_leaks.py,
tests/games/test_classic_leaks.py): no seed, no handle of a card in another hand
or in the draw pile, no card numbers, a watcher no faces. And every ``change``
line is exactly what the API answers that user at that moment: its ``view`` the
body of ``GET .../view/``, its ``events`` the moves of ``GET .../log/?after=``
the version before, each move's draws shown as that seat may see them.
"""

from __future__ import annotations

import json
import os
import random
from collections import Counter
from typing import Any

import pytest
from channels.db import database_sync_to_async
from django.contrib.auth.models import User

from games import services
from games.models import Move, Table
from tests.games import test_api_leaks as flip_leaks
from tests.games import test_classic_leaks as classic_leaks
from tests.live.conftest import api_view, make_user, run, token_for
from tests.live.test_streams import StreamClient, api_log

GAMES = int(os.environ.get("LIVE_STREAM_LEAK_GAMES", "3"))
#: (people, bots) of each game; a watcher's stream is open at each.
LAYOUTS = [(2, 1), (3, 0), (1, 2)]
WATCHER = None


@pytest.fixture(autouse=True)
def _bots_one_turn_at_a_time(settings: Any) -> None:
    settings.GAMENOOK_RUN_BOTS_INLINE = False
    # No keep-alive within a wait for a line: a line that never comes fails the test.
    settings.GAMENOOK_STREAM_KEEPALIVE_SECONDS = 600


class Game:
    """What differs between the games: the real state's checks, a random legal request."""

    def __init__(self, name: str) -> None:
        self.name = name

    def real(self, table_id: int) -> Any:
        """The table's real state, read afresh (it stands still while lines are read)."""
        if self.name == "flip":
            return flip_leaks._table(table_id)[1]  # noqa: SLF001 (the leak tests' own reader)
        return classic_leaks.real(table_id)[1]

    def check(self, text: str, state: Any, seat: int | None) -> dict[str, Any]:
        """The line against the table's real state; returns it parsed."""
        if self.name == "flip":
            body: dict[str, Any] = flip_leaks.check_common(text.encode(), state, seat)
        else:
            body = classic_leaks.check_common(text, state, seat)
        return body

    def check_events(self, served: list[Any], raw: list[Any], seat: int | None) -> None:
        module = flip_leaks if self.name == "flip" else classic_leaks
        module.check_events(served, raw, seat)

    def check_view(self, view: dict[str, Any], table_id: int, state: Any, seat: int | None) -> None:
        if self.name == "flip":
            real = (view["seq"], state)
            flip_leaks.check_view(json.dumps(view).encode(), table_id, seat, real)
        else:
            classic_leaks.check_view(view["game"], state, seat, None)


def _setup(index: int, game: str) -> tuple[int, dict[int | None, User], int]:
    people, bots = LAYOUTS[index % len(LAYOUTS)]
    users = [make_user() for _ in range(people)]
    extra: dict[str, Any] = (
        {"game": "wildcards", "options": classic_leaks.ALL_RULES} if game == "wildcards" else {}
    )
    table = services.table_create(
        host=users[0], seat_count=people + bots, allow_watchers=True, **extra
    )
    for user in users[1:]:
        services.table_join(table_id=table.pk, user=user)
    for _ in range(bots):
        services.table_add_bot(table_id=table.pk, user=users[0], level="easy")
    services.table_start(table_id=table.pk, user=users[0])
    viewers: dict[int | None, User] = dict(enumerate(users))
    viewers[WATCHER] = make_user()
    return table.pk, viewers, people


def _status(table_id: int) -> tuple[int, str]:
    seq, status = Table.objects.filter(pk=table_id).values_list("seq", "status").get()
    return seq, status


def _payloads(table_id: int, after: int) -> dict[int, Any]:
    moves = Move.objects.filter(table_id=table_id, seq__gt=after)
    return {move.seq: move.payload for move in moves}


def _act(user: User, table_id: int, rng: random.Random) -> bool:
    """``user`` makes a random legal move through the API if their view offers one."""
    view, _ = api_view(user, table_id)
    choices = view["game"]["legal_actions"]
    if not choices:
        return False
    choice = rng.choice(choices)
    body: dict[str, Any] = {"type": choice["type"], "expected_seq": view["seq"]}
    if "card" in choice:
        body["card"] = choice["card"]
    if choice.get("colors"):
        body["color"] = rng.choice(choice["colors"])
    if choice.get("targets"):
        body["target"] = rng.choice(choice["targets"])
    client = flip_leaks.client(user)
    response = client.post(f"/api/v1/tables/{table_id}/actions/", body, format="json")
    assert response.status_code == 201, response.content
    return True


async def _lines_until(
    game: Game, stream: StreamClient, state: Any, seat: int | None, seq: int
) -> list[dict[str, Any]]:
    """Read and check every line up to the change of ``seq``, and after the game's end
    up to the stream's end."""
    got: list[dict[str, Any]] = []
    over = False
    while True:
        text = await stream.raw_line()
        assert text is not None, "the stream ended early"
        if not text.strip():
            continue  # a keep-alive
        body = game.check(text.decode(), state, seat)
        got.append(body)
        if body["type"] == "end":
            assert over and body == {"type": "end", "reason": "game_over"}, body
            return got
        if body["type"] == "game_over":
            continue
        assert body["type"] == "change", body
        over = body["view"]["status"] != Table.Status.ACTIVE
        if body["version"] == seq and not over:
            return got


async def _check_change(
    game: Game,
    body: dict[str, Any],
    table_id: int,
    user: User,
    seat: int | None,
    after: int,
    state: Any,
) -> None:
    """A change line is what the API answers ``user`` now, and no more."""
    view, _ = await database_sync_to_async(api_view)(user, table_id)
    assert body["view"] == view
    log = await database_sync_to_async(api_log)(user, table_id, after)
    assert body["events"] == log
    payloads = await database_sync_to_async(_payloads)(table_id, after)
    for entry in body["events"]:
        game.check_events(entry["events"], payloads[entry["seq"]]["events"], seat)
    game.check_view(body["view"], table_id, state, seat)


async def _play(
    index: int, name: str, table_id: int, viewers: dict[int | None, User], people: int
) -> Counter[str]:
    game = Game(name)
    rng = random.Random(index)
    counts: Counter[str] = Counter({"games": 1})
    keys = {seat: await database_sync_to_async(token_for)(user) for seat, user in viewers.items()}
    streams = {
        seat: StreamClient(f"/api/v1/tables/{table_id}/stream", token=key)
        for seat, key in keys.items()
    }
    versions: dict[int | None, int] = {}
    try:
        for seat, stream in streams.items():
            assert await stream.open() == 200
            text = await stream.raw_line()
            assert text is not None
            state = await database_sync_to_async(game.real)(table_id)
            first = game.check(text.decode(), state, seat)
            assert first["type"] == "view"
            view, _ = await database_sync_to_async(api_view)(viewers[seat], table_id)
            assert first["view"] == view
            versions[seat] = first["version"]
        seq, status = await database_sync_to_async(_status)(table_id)
        for _ in range(3000):
            if status != Table.Status.ACTIVE:
                break
            bot = await database_sync_to_async(services.table_run_bot_turn)(table_id=table_id)
            if bot is not None:
                counts["bot turns"] += 1
            else:
                acted = False
                for seat in rng.sample(range(people), people):
                    if await database_sync_to_async(_act)(viewers[seat], table_id, rng):
                        acted = True
                        break
                assert acted, "nobody could move"
                counts["actions"] += 1
            seq, status = await database_sync_to_async(_status)(table_id)
            state = await database_sync_to_async(game.real)(table_id)
            for seat, stream in streams.items():
                user = viewers[seat]
                lines = await _lines_until(game, stream, state, seat, seq)
                for body in lines:
                    if body["type"] == "change":
                        after = versions[seat]
                        await _check_change(game, body, table_id, user, seat, after, state)
                        versions[seat] = body["version"]
                        counts["changes checked"] += 1
                    elif body["type"] == "game_over":
                        assert body["seat"] == seat and body["table"] == table_id
                        counts["game overs"] += 1
        assert status == Table.Status.FINISHED, "the game did not end"
        for stream in streams.values():
            assert await stream.ended()
    finally:
        for stream in streams.values():
            await stream.close()
    return counts


@pytest.mark.parametrize("name", ["flip", "wildcards"])
def test_whole_games_over_table_streams_never_leak(name: str) -> None:
    totals: Counter[str] = Counter()
    for index in range(GAMES):
        table_id, viewers, people = _setup(index, name)
        totals.update(run(_play, index, name, table_id, viewers, people))
    assert totals["games"] == GAMES
    assert totals["actions"] > GAMES * 5
    assert totals["bot turns"] > 0
    assert totals["game overs"] == sum(LAYOUTS[i % len(LAYOUTS)][0] + 1 for i in range(GAMES))
    assert totals["changes checked"] > totals["actions"] * 2
