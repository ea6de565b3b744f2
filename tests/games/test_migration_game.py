"""Migration 0009 on a database holding Flip games in progress: they play on unchanged.

The database is taken back to migration 0008 (the schema before tables named
their game), two games are put in it as the service of that time wrote them
(one running, one finished, each with its option columns, snapshot and move
log), and the migrations run forward again. Then the running game is played
to its end through today's service, and both games' records replay to their
final states.
"""

from __future__ import annotations

from typing import Any

import pytest
from django.db import connection
from django.db.migrations.executor import MigrationExecutor
from django.utils import timezone

import flip
from games import selectors, services
from games.models import Table
from tests.factories import first_legal_request

pytestmark = pytest.mark.django_db(transaction=True)

BEFORE = ("games", "0008_seat_struck_out")


def _latest() -> list[tuple[str, str]]:
    executor = MigrationExecutor(connection)
    return executor.loader.graph.leaf_nodes()


def _old_game(
    old: Any, host: Any, guest: Any, options: flip.Options, seed: str, moves: int
) -> tuple[int, flip.GameState]:
    """A table as the service before 0009 wrote it, with ``moves`` actions played."""
    Table_, Seat_, Move_ = (old.get_model("games", name) for name in ("Table", "Seat", "Move"))
    state, events = flip.new_game(options, seed)
    table = Table_.objects.create(
        host_id=host.pk,
        status="active",
        seat_count=options.seats,
        two_seat_reverse_skips=options.two_seat_reverse_skips,
        scoring=options.scoring,
        target=options.target,
        started_at=timezone.now(),
    )
    Seat_.objects.create(table=table, number=0, user_id=host.pk)
    Seat_.objects.create(table=table, number=1, user_id=guest.pk)
    log = [
        Move_(
            table=table,
            seq=1,
            round=state.round,
            seat=None,
            action="start",
            payload={"action": {"type": "start"}, "events": events},
            source="player",
        )
    ]
    for seq in range(2, moves + 2):
        if state.over:
            break
        seat = state.current
        action = flip.legal_actions(state, seat)[0]
        round_number = state.round
        state, caused = flip.apply(state, seat, action)
        log.append(
            Move_(
                table=table,
                seq=seq,
                round=round_number,
                seat=seat,
                action=action.type,
                payload={"action": action.to_dict(), "events": caused},
                source="player",
            )
        )
    Move_.objects.bulk_create(log)
    Table_.objects.filter(pk=table.pk).update(
        state=state.to_dict(),
        seq=len(log),
        turn=state.turn,
        to_act=None if state.over else state.current,
        status="finished" if state.over else "active",
        deadline_at=None if state.over else timezone.now() + timezone.timedelta(hours=24),
    )
    return table.pk, state


def test_migration_0009_keeps_flip_games_and_their_options_playing() -> None:
    latest = _latest()
    executor = MigrationExecutor(connection)
    executor.migrate([BEFORE])
    old = executor.loader.project_state([BEFORE]).apps
    User_ = old.get_model("auth", "User")
    host = User_.objects.create(username="host", email="host@example.com")
    guest = User_.objects.create(username="guest", email="guest@example.com")
    running, running_state = _old_game(
        old,
        host,
        guest,
        flip.Options(seats=2, two_seat_reverse_skips=False, scoring="target", target=250),
        "migration-running",
        moves=12,
    )
    finished, finished_state = _old_game(
        old, host, guest, flip.Options(seats=2), "migration-finished", moves=10_000
    )
    assert not running_state.over and finished_state.over

    executor = MigrationExecutor(connection)
    executor.loader.build_graph()
    executor.migrate(latest)

    table = Table.objects.get(pk=running)
    assert (table.game, table.game_version) == ("flip", 1)
    assert table.options == {"two_seat_reverse_skips": False, "scoring": "target", "target": 250}
    assert selectors.table_state(table) == running_state
    done = Table.objects.get(pk=finished)
    assert done.options == {"two_seat_reverse_skips": True, "scoring": "single", "target": 500}
    assert flip.replay(selectors.table_record(done)) == finished_state

    # The running game goes on to its end through today's service, on its old options.
    users = {seat.number: seat.user for seat in table.seats.select_related("user")}
    for _ in range(5000):
        table = Table.objects.get(pk=running)
        state = selectors.table_state(table)
        assert isinstance(state, flip.GameState)
        if state.over:
            break
        assert state.options == running_state.options
        services.table_apply_action(
            table_id=running,
            user=users[state.current],
            data=first_legal_request(state, state.current),
            expected_seq=table.seq,
        )
    table = Table.objects.get(pk=running)
    assert table.status == Table.Status.FINISHED
    assert flip.replay(selectors.table_record(table)) == selectors.table_state(table)
