"""Migration 0008_seat_struck_out on a database from before it.

Until now a third strike moved the player to ``previous_user`` and gave the seat
to a Normal bot, as a moderator's replacement does (``replace_with_bot`` in the
log, source ``timeout`` or ``admin``). The migration gives struck-out seats back to
their players with ``struck_out`` set (ruling 18, revised) and leaves a moderator's
replacement alone. The database is taken back to 0007, rows are written with the
models of then, and the migration runs forwards and backwards.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from django.db import connection
from django.db.migrations.executor import MigrationExecutor
from django.db.migrations.state import StateApps

pytestmark = pytest.mark.django_db(transaction=True)

BEFORE = [("games", "0007_move_table_index_in_unique")]
AFTER = [("games", "0008_seat_struck_out")]


def _migrate(targets: list[tuple[str, str]]) -> StateApps:
    executor = MigrationExecutor(connection)
    executor.loader.build_graph()
    executor.migrate(targets)
    apps: StateApps = executor.loader.project_state(targets).apps
    return apps


@pytest.fixture
def old_apps() -> Iterator[StateApps]:
    apps = _migrate(BEFORE)
    yield apps
    leaves = MigrationExecutor(connection).loader.graph.leaf_nodes()
    _migrate(leaves)  # the other tests' schema


def _table_as_before(apps: Any) -> dict[str, Any]:
    """A running real-time table as the code before 0008 left it: seat 0 struck out,
    seat 1 replaced by a moderator, seat 2 struck out and then replaced by a moderator,
    seat 3 a bot from the lobby, seat 4 a player."""
    user_model = apps.get_model("auth", "User")
    table_model = apps.get_model("games", "Table")
    seat_model = apps.get_model("games", "Seat")
    move_model = apps.get_model("games", "Move")
    users = {
        name: user_model.objects.create(username=name) for name in ("ann", "ben", "cat", "dan")
    }
    table = table_model.objects.create(
        host=users["ann"], seat_count=5, status="active", move_seconds=15, seq=0
    )

    def seat(number: int, **fields: Any) -> Any:
        return seat_model.objects.create(table=table, number=number, **fields)

    def handed(number: int, level: str, source: str, user: Any) -> None:
        table.seq += 1
        move_model.objects.create(
            table=table,
            seq=table.seq,
            round=1,
            seat=number,
            action="replace_with_bot",
            payload={
                "action": {"type": "replace_with_bot", "level": level, "user": user.pk},
                "events": [{"type": "replaced_by_bot", "seat": number, "level": level}],
            },
            source=source,
        )

    struck = seat(0, previous_user=users["ann"], bot_level="normal", strikes=3)
    handed(0, "normal", "timeout", users["ann"])
    removed = seat(1, previous_user=users["ben"], bot_level="normal", strikes=1)
    handed(1, "normal", "admin", users["ben"])
    twice = seat(2, previous_user=users["cat"], bot_level="normal", strikes=3)
    handed(2, "normal", "timeout", users["cat"])
    handed(2, "normal", "admin", users["cat"])
    bot = seat(3, bot_level="normal")
    player = seat(4, user=users["dan"])
    table.save()
    return {
        "users": users,
        "struck": struck.pk,
        "removed": removed.pk,
        "twice": twice.pk,
        "bot": bot.pk,
        "player": player.pk,
    }


def _shape(apps: Any, pk: int) -> tuple[Any, ...]:
    seat = apps.get_model("games", "Seat").objects.get(pk=pk)
    fields = (seat.user_id, seat.previous_user_id, seat.bot_level, seat.strikes)
    return (*fields, seat.struck_out) if hasattr(seat, "struck_out") else fields


def test_struck_out_seats_get_their_players_back_and_a_moderators_replacement_stays(
    old_apps: StateApps,
) -> None:
    made = _table_as_before(old_apps)
    ann, ben, cat, dan = (made["users"][n].pk for n in ("ann", "ben", "cat", "dan"))

    new_apps = _migrate(AFTER)

    assert _shape(new_apps, made["struck"]) == (ann, None, "", 3, True)
    assert _shape(new_apps, made["removed"]) == (None, ben, "normal", 1, False)
    assert _shape(new_apps, made["twice"]) == (None, cat, "normal", 3, False)
    assert _shape(new_apps, made["bot"]) == (None, None, "normal", 0, False)
    assert _shape(new_apps, made["player"]) == (dan, None, "", 0, False)

    # And back: the seat is the bot's again, its player the previous one.
    back = _migrate(BEFORE)
    assert _shape(back, made["struck"]) == (None, ann, "normal", 3)
    assert _shape(back, made["removed"]) == (None, ben, "normal", 1)
    assert _shape(back, made["player"]) == (dan, None, "", 0)
