"""games.services.tables_timeout_batch: a page of timeouts in one transaction.

The exactly-once races are in tests/notifications/test_exactly_once.py; these
check what the page hands back and writes, table by table.
"""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from typing import Any

import pytest
import time_machine

import flip
from flip.ruleset import FlipRuleset
from games import services
from games.models import Connection, Move, Table
from tests.factories import first_legal_request, make_user, start_table, table_changes_heard

T0 = datetime(2030, 3, 1, 9, 0, tzinfo=UTC)

pytestmark = pytest.mark.django_db


def late_tables(count: int, **options: Any) -> list[Table]:
    return [start_table(make_user(), make_user(), turn_hours=12, **options) for _ in range(count)]


def test_a_page_times_out_what_is_due_and_hands_back_the_rest(
    django_capture_on_commit_callbacks: Any,
) -> None:
    with time_machine.travel(T0, tick=False) as clock:
        late = late_tables(2)
        human = make_user()
        bot_table = start_table(human, bots=1, turn_hours=12)
        while (state := flip.GameState.from_dict(bot_table.state or {})).current == 0:
            services.table_apply_action(
                table_id=bot_table.pk,
                user=human,
                data=first_legal_request(state, 0),
                expected_seq=None,
            )
            bot_table.refresh_from_db()
        clock.shift(timedelta(hours=12))
        moved_on = late[1]
        Table.objects.filter(pk=moved_on.pk).update(turn=moved_on.turn + 1)  # its turn ended
        due = [(t.pk, t.turn) for t in [*late, bot_table]]
        with table_changes_heard() as signals, django_capture_on_commit_callbacks(execute=True):
            page = services.tables_timeout_batch(due=[*due, (999_999, 1)])
    assert [done.result.table.pk for done in page.applied] == [late[0].pk]
    (done,) = page.applied
    assert done.turn == late[0].turn and done.seat.user is not None
    assert done.result.new_turn and done.result.table.turn > late[0].turn
    assert done.to_act is not None and done.to_act.number == done.result.state.current
    # A table no longer there is left to the single-table job, which says so itself.
    assert page.singly == [(999_999, 1)]
    # The bot's own turn ran long (its job was lost): handed back, not timed out.
    assert page.bots == [(bot_table.pk, bot_table.seq)]
    assert not Move.objects.filter(table=bot_table, source=Move.Source.TIMEOUT).exists()
    assert not Move.objects.filter(table=moved_on, source=Move.Source.TIMEOUT).exists()
    assert [s["table_id"] for s in signals] == [late[0].pk]
    assert signals[0]["followups_written"] is False and signals[0]["new_turn"] is True
    row = Table.objects.get(pk=late[0].pk)
    assert row.seq == done.result.table.seq and row.deadline_at == T0 + timedelta(hours=24)


def test_a_timeout_that_fails_leaves_its_table_to_the_single_job_and_the_others_go_on(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    with time_machine.travel(T0, tick=False) as clock:
        first, second = late_tables(2)
        clock.shift(timedelta(hours=12))
        real = FlipRuleset.timeout_action

        def timeout_action(self: FlipRuleset, state: flip.GameState) -> flip.Action:
            if state.seed == flip.GameState.from_dict(first.state or {}).seed:
                raise RuntimeError("an engine bug")
            return real(self, state)

        monkeypatch.setattr(FlipRuleset, "timeout_action", timeout_action)
        page = services.tables_timeout_batch(due=[(first.pk, first.turn), (second.pk, second.turn)])
    assert [done.result.table.pk for done in page.applied] == [second.pk]
    assert page.singly == [(first.pk, first.turn)]
    assert not Move.objects.filter(table=first, source=Move.Source.TIMEOUT).exists()
    assert Table.objects.get(pk=first.pk).seq == first.seq
    assert Move.objects.filter(table=second, source=Move.Source.TIMEOUT).exists()


def test_the_leave_policy_in_a_page_makes_the_seat_leave() -> None:
    with time_machine.travel(T0, tick=False) as clock:
        (table,) = [
            start_table(
                make_user(), make_user(), make_user(), turn_hours=12, timeout_policy="leave"
            )
        ]
        clock.shift(timedelta(hours=12))
        page = services.tables_timeout_batch(due=[(table.pk, table.turn)], followups_written=True)
    (done,) = page.applied
    assert done.seat.left and done.result.moves[0].action == "leave"
    seat = table.seats.get(number=done.seat.number)
    assert seat.left_at == T0 + timedelta(hours=12)
    assert done.result.table.status == Table.Status.ACTIVE  # two players remain


def test_a_page_says_which_tables_have_a_socket_counted(
    django_capture_on_commit_callbacks: Any,
) -> None:
    with time_machine.travel(T0, tick=False) as clock:
        watched, unwatched = late_tables(2)
        watcher = watched.seats.get(number=0).user
        assert watcher is not None
        Connection.objects.create(table=watched, user=watcher, channel="test.1", seen_at=T0)
        clock.shift(timedelta(hours=12))
        due = [(watched.pk, watched.turn), (unwatched.pk, unwatched.turn)]
        with table_changes_heard() as signals, django_capture_on_commit_callbacks(execute=True):
            page = services.tables_timeout_batch(due=due)
    assert len(page.applied) == 2
    # Only the table a socket may be open on needs its sockets told (live.receivers).
    assert {s["table_id"]: s["watched"] for s in signals} == {
        watched.pk: True,
        unwatched.pk: False,
    }
