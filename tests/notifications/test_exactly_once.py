"""Exactly once: racing sweeps, a racing player, jobs run twice, a worker killed mid-task."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import threading
from collections import Counter
from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest
import time_machine
from django.db import IntegrityError, connection, connections, transaction
from django.db.models import Q

import flip
from games import services as games
from games.errors import StaleSequence
from games.models import Move, Table
from notifications import jobs as jobs_module
from notifications import services, tasks, turns
from notifications.models import OutboxMessage, Reminder, TurnNotice

from .conftest import Jobs, make_user, play_turn, seat_to_act, started_table

T0 = datetime(2030, 3, 1, 9, 0, tzinfo=UTC)
ROOT = Path(__file__).resolve().parents[2]

pytestmark = pytest.mark.django_db(transaction=True)

needs_postgres = pytest.mark.skipif(
    connection.vendor != "postgresql", reason="row locks and other processes need PostgreSQL"
)


def in_threads(*bodies: Callable[[], Any]) -> list[Any]:
    """Run ``bodies`` at the same instant, each in its own thread and connection."""
    barrier = threading.Barrier(len(bodies))
    results: list[Any] = [None] * len(bodies)

    def runner(i: int, body: Callable[[], Any]) -> None:
        try:
            barrier.wait()
            results[i] = body()
        except Exception as exc:  # the caller inspects what each thread got
            results[i] = exc
        finally:
            connections.close_all()

    threads = [threading.Thread(target=runner, args=(i, b)) for i, b in enumerate(bodies)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=60)
    return results


def kill_inside(script: str, *args: int) -> None:
    """Run ``script`` in a process of its own on the test database; SIGKILL it once it
    prints "inside" (its transaction written, not committed), as a machine dies."""
    settings_dict = connection.settings_dict
    env = {
        **os.environ,
        "DJANGO_SETTINGS_MODULE": "gamenook.settings.test",
        "DATABASE_URL": (
            f"postgres://{settings_dict['USER']}@{settings_dict['HOST']}:"
            f"{settings_dict['PORT']}/{settings_dict['NAME']}"
        ),
    }
    worker = subprocess.Popen(
        [sys.executable, "-c", script, *map(str, args)],
        cwd=ROOT,
        env=env,
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        assert worker.stdout is not None
        assert worker.stdout.readline().strip() == "inside"
        worker.send_signal(signal.SIGKILL)
        worker.wait(timeout=30)
    finally:
        if worker.poll() is None:
            worker.kill()


def timeout_moves(table: Table) -> int:
    return Move.objects.filter(table=table, source=Move.Source.TIMEOUT).count()


def tables(count: int, **options: Any) -> list[Table]:
    return [started_table(make_user(), make_user(), **options) for _ in range(count)]


@needs_postgres
def test_two_sweeps_at_once_apply_each_timeout_and_reminder_once(jobs: Jobs) -> None:
    with time_machine.travel(T0, tick=False) as clock:
        late = tables(4, turn_hours=12, timeout_policy="bot")
        clock.shift(timedelta(hours=6))
        halfway = tables(4, turn_hours=12)
        halfway_turns = {t.pk: t.turn for t in halfway}
        for table in halfway:
            Table.objects.filter(pk=table.pk).update(remind_at=T0)  # due already
        jobs.clear()
        clock.shift(timedelta(hours=6))
        before = {t.pk: (t.turn, t.seq) for t in late}

        results = in_threads(
            lambda: services.sweep(run=services.run_inline, batch=3),
            lambda: services.sweep(run=services.run_inline, batch=3),
        )
    assert all(isinstance(r, services.SweepResult) for r in results), results
    for table in late:
        table.refresh_from_db()
        assert table.turn == before[table.pk][0] + 1
        assert OutboxMessage.objects.filter(kind="timeout", table=table).count() == 1
        seqs = list(
            Move.objects.filter(table=table, source=Move.Source.TIMEOUT).values_list(
                "seq", flat=True
            )
        )
        # One application: consecutive moves right after the last seq before the timeout.
        assert seqs == list(range(before[table.pk][1] + 1, before[table.pk][1] + 1 + len(seqs)))
    for table in halfway:
        assert list(Reminder.objects.filter(table=table).values_list("turn", flat=True)) == [
            halfway_turns[table.pk]
        ]
        assert OutboxMessage.objects.filter(kind="reminder", table=table).count() == 1


@needs_postgres
@pytest.mark.parametrize("repeat", range(5))
def test_a_sweep_racing_a_players_move_at_the_deadline_instant(repeat: int, jobs: Jobs) -> None:
    with time_machine.travel(T0, tick=False) as clock:
        (table,) = tables(1, turn_hours=24)
        seat = seat_to_act(table)
        assert seat.user is not None and table.state is not None
        state = flip.GameState.from_dict(table.state)
        action = flip.legal_actions(state, seat.number)[0]
        data = {
            "type": action.type,
            "card": flip.handle(state, action.card) if action.card >= 0 else None,
            "color": flip.COLORS[action.color] if action.color >= 0 else None,
        }
        clock.move_to(table.deadline_at)
        user, seq, turn = seat.user, table.seq, table.turn

        timed_out, moved = in_threads(
            lambda: services.table_apply_timeout(table_id=table.pk, turn=turn),
            lambda: games.table_apply_action(
                table_id=table.pk, user=user, data=data, expected_seq=seq
            ),
        )
    # The turn's timeout happened at most once, and never over a finished turn.
    sources = list(
        Move.objects.filter(table=table, seq__gt=seq)
        .order_by("seq")
        .values_list("source", flat=True)
    )
    if timed_out is True:
        assert OutboxMessage.objects.filter(kind="timeout").count() == 1
        if isinstance(moved, games.MoveResult):
            # The player's action came first but did not end the turn (a colour for the
            # starter, a drawn card to play): the timeout played the rest of it.
            assert moved.state.turn == turn
            assert sources[0] == Move.Source.PLAYER
            assert set(sources[1:]) == {Move.Source.TIMEOUT}
        else:
            assert isinstance(moved, StaleSequence)
            assert set(sources) == {Move.Source.TIMEOUT}
    else:
        assert timed_out is False and isinstance(moved, games.MoveResult)
        assert moved.state.turn != turn
        assert sources == [Move.Source.PLAYER]
        assert not OutboxMessage.objects.filter(kind="timeout").exists()


@needs_postgres
def test_a_player_holding_the_lock_at_the_deadline_wins_and_the_timeout_does_nothing(
    jobs: Jobs,
) -> None:
    with time_machine.travel(T0, tick=False) as clock:
        (table,) = tables(1, turn_hours=12)
        clock.move_to(table.deadline_at)
        turn = table.turn
        started = threading.Event()
        outcome: list[bool] = []

        def sweep_job() -> None:
            started.set()
            outcome.append(services.table_apply_timeout(table_id=table.pk, turn=turn))
            connections.close_all()

        with transaction.atomic():
            Table.objects.select_for_update().get(pk=table.pk)
            worker = threading.Thread(target=sweep_job)
            worker.start()
            started.wait()
            play_turn(table)  # the player's move, under the lock the job waits for
        worker.join(timeout=30)
    assert outcome == [False]
    assert timeout_moves(table) == 0


def test_each_job_delivered_twice_acts_once(jobs: Jobs) -> None:
    with time_machine.travel(T0, tick=False) as clock:
        late, halfway = tables(2, turn_hours=12, timeout_policy="leave")
        players = [make_user() for _ in range(1)]
        bot_table = started_table(players[0], bots=1, turn_hours=12)
        jobs.clear()
        clock.shift(timedelta(hours=6))
        Table.objects.filter(pk=late.pk).update(deadline_at=T0)
        late.refresh_from_db()
        halfway.refresh_from_db()
        bot_table.refresh_from_db()

        # Each task body run twice in a row, as a redelivered message would.
        assert tasks.apply_timeout(late.pk, late.turn) is True
        assert tasks.apply_timeout(late.pk, late.turn) is False
        assert tasks.send_reminder(halfway.pk, halfway.turn) is True
        assert tasks.send_reminder(halfway.pk, halfway.turn) is False
        bot_to_act = seat_to_act(bot_table).is_bot
        assert tasks.run_bot_turn(bot_table.pk, bot_table.seq) is bot_to_act
        assert tasks.run_bot_turn(bot_table.pk, bot_table.seq) is False
        message = OutboxMessage.objects.get(kind="reminder")
        assert tasks.send_outbox_message(message.pk) is True
        assert tasks.send_outbox_message(message.pk) is False

    assert timeout_moves(late) == 1
    assert Reminder.objects.filter(table=halfway).count() == 1
    # One message for the player who ran out of time: "your time ran out", or "game over"
    # telling of it when the timeout ended the game (issue 38).
    late_mail = OutboxMessage.objects.filter(table_id=late.pk, kind__in=("timeout", "game_over"))
    told = Counter(late_mail.values_list("user_id", flat=True))
    assert told and max(told.values()) == 1
    assert Move.objects.filter(table=bot_table, source=Move.Source.BOT).count() == int(bot_to_act)


@needs_postgres
def test_the_same_reminder_job_twice_at_once_sends_one(jobs: Jobs) -> None:
    with time_machine.travel(T0, tick=False) as clock:
        (table,) = tables(1, turn_hours=24)
        jobs.clear()
        clock.shift(timedelta(hours=12))
        results = in_threads(
            *[lambda: services.table_remind(table_id=table.pk, turn=table.turn)] * 3
        )
    assert sorted(results) == [False, False, True]
    assert OutboxMessage.objects.filter(kind="reminder").count() == 1


def test_the_reminder_record_is_unique_per_table_and_turn(jobs: Jobs) -> None:
    (table,) = tables(1)
    Reminder.objects.create(table=table, turn=table.turn)
    with pytest.raises(IntegrityError), transaction.atomic():
        Reminder.objects.create(table=table, turn=table.turn)


class WorkerKilled(BaseException):
    """What the middle of a task sees when the process dies: nothing after it runs."""


def test_a_job_dying_mid_transaction_leaves_nothing_and_its_redelivery_acts_once(
    jobs: Jobs, monkeypatch: pytest.MonkeyPatch
) -> None:
    with time_machine.travel(T0, tick=False) as clock:
        late, halfway = tables(2, turn_hours=12)
        jobs.clear()
        clock.shift(timedelta(hours=6))
        Table.objects.filter(pk=late.pk).update(deadline_at=T0)
        late.refresh_from_db()

        def die(**kwargs: Any) -> None:
            raise WorkerKilled

        monkeypatch.setattr(turns, "outbox_enqueue", die)
        for job in (
            lambda: services.table_apply_timeout(table_id=late.pk, turn=late.turn),
            lambda: services.table_remind(table_id=halfway.pk, turn=halfway.turn),
        ):
            with pytest.raises(WorkerKilled):
                job()
        assert timeout_moves(late) == 0 and not Reminder.objects.exists()
        monkeypatch.undo()

        # The broker redelivers (acks_late), or the next sweep hands them out again.
        result = services.sweep(run=services.run_inline)
        assert (result.timeouts, result.reminders) == (1, 1)
        assert services.sweep(run=services.run_inline).timeouts == 0
    assert timeout_moves(late) >= 1
    assert OutboxMessage.objects.filter(kind="timeout").count() == 1
    assert OutboxMessage.objects.filter(kind="reminder").count() == 1


KILLED_WORKER = """
import os, sys, time
import django
django.setup()
from notifications import services, turns
real = turns.outbox_enqueue
def stall(**kwargs):
    real(**kwargs)
    print("inside", flush=True)
    time.sleep(60)
turns.outbox_enqueue = stall
services.table_remind(table_id=int(sys.argv[1]), turn=int(sys.argv[2]))
"""


@needs_postgres
def test_a_worker_killed_in_the_middle_of_a_reminder_loses_nothing_and_sends_once(
    jobs: Jobs,
) -> None:
    with time_machine.travel(T0, tick=False):
        (table,) = tables(1, turn_hours=12)
        jobs.clear()
    # The worker process runs on the real clock: put the reminder instant behind it,
    # and the turn's start too, so the player counts as away (ruling 19).
    Table.objects.filter(pk=table.pk).update(
        turn_started_at=datetime.now(UTC) - timedelta(hours=11),
        remind_at=datetime.now(UTC) - timedelta(minutes=1),
        deadline_at=datetime.now(UTC) + timedelta(hours=1),
    )
    settings_dict = connection.settings_dict
    env = {
        **os.environ,
        "DJANGO_SETTINGS_MODULE": "gamenook.settings.test",
        "DATABASE_URL": (
            f"postgres://{settings_dict['USER']}@{settings_dict['HOST']}:"
            f"{settings_dict['PORT']}/{settings_dict['NAME']}"
        ),
    }
    worker = subprocess.Popen(
        [sys.executable, "-c", KILLED_WORKER, str(table.pk), str(table.turn)],
        cwd=ROOT,
        env=env,
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        assert worker.stdout is not None
        assert worker.stdout.readline().strip() == "inside"  # reminder and mail written...
        worker.send_signal(signal.SIGKILL)  # ...but not committed
        worker.wait(timeout=30)
    finally:
        if worker.poll() is None:
            worker.kill()
    assert not Reminder.objects.exists()
    assert not OutboxMessage.objects.filter(kind="reminder").exists()

    clock_now = datetime.now(UTC)
    result = services.sweep(now=clock_now, run=services.run_inline)
    assert result.reminders == 1
    assert services.sweep(now=clock_now, run=services.run_inline).reminders == 0
    assert Reminder.objects.filter(table=table).count() == 1
    assert OutboxMessage.objects.filter(kind="reminder").count() == 1


def test_redeliverable_tasks_are_acked_late_and_the_sweeps_are_not() -> None:
    for task in (
        tasks.apply_timeout,
        tasks.send_reminder,
        tasks.run_bot_turn,
        tasks.send_outbox_message,
    ):
        assert task.acks_late and task.reject_on_worker_lost, task.name
    for task in (tasks.sweep, tasks.sweep_bots):
        assert not task.acks_late, task.name


# ----------------------------------------------------------------------------
# The sweep's way: a page of timeouts in one transaction (turns.tables_apply_timeouts)


def due_pairs(late: list[Table]) -> list[tuple[int, int]]:
    return [(table.pk, table.turn) for table in late]


def assert_timed_out_once(table: Table, seq_before: int) -> None:
    seqs = list(
        Move.objects.filter(table=table, source=Move.Source.TIMEOUT)
        .order_by("seq")
        .values_list("seq", flat=True)
    )
    assert seqs and seqs == list(range(seq_before + 1, seq_before + 1 + len(seqs))), table.pk
    # One message tells the player: "your time ran out", or "game over" saying so when
    # the timeout ended the game (issue 38).
    told = OutboxMessage.objects.filter(table=table).filter(
        Q(kind="timeout") | Q(kind="game_over", subject__startswith="Your time ran out")
    )
    assert told.count() == 1
    table.refresh_from_db()
    assert table.seq == seqs[-1]


def test_a_page_gives_each_table_what_its_single_job_gives_it(
    jobs: Jobs, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Same deal, same clock: the page and the single-table job write the same moves."""
    monkeypatch.setattr("games.services.new_game_seed", lambda: "one-deal-for-all")
    with time_machine.travel(T0, tick=False) as clock:
        players = [make_user() for _ in range(6)]
        single, *paged = [
            started_table(players[i], players[i + 1], turn_hours=12, timeout_policy=policy)
            for i, policy in ((0, "bot"), (2, "bot"), (4, "leave"))
        ]
        jobs.clear()
        clock.shift(timedelta(hours=12))
        assert services.table_apply_timeout(table_id=single.pk, turn=single.turn)
        assert services.tables_apply_timeouts(due=due_pairs(paged)) == 2

    def written(table: Table) -> list[tuple[Any, ...]]:
        return list(
            Move.objects.filter(table=table)
            .order_by("seq")
            .values_list("seq", "round", "seat", "action", "payload", "source", "created_at")
        )

    bot_paged, leave_paged = (Table.objects.get(pk=t.pk) for t in paged)
    single.refresh_from_db()
    assert written(bot_paged) == written(single)
    fields = ("state", "seq", "turn", "to_act", "status", "deadline_at", "remind_at")
    assert [getattr(bot_paged, f) for f in fields] == [getattr(single, f) for f in fields]
    assert bot_paged.updated_at == single.updated_at
    # The leave policy, as table_timeout applies it: one leave move, the seat left.
    (leave,) = Move.objects.filter(table=leave_paged, source=Move.Source.TIMEOUT)
    assert leave.action == "leave" and leave.seat == paged[1].state["current"]
    assert leave_paged.seats.get(number=leave.seat).left_at == T0 + timedelta(hours=12)
    assert leave_paged.status == Table.Status.FINISHED  # one player left: the game is over
    texts = {m.table_id: generic(m) for m in OutboxMessage.objects.filter(kind="timeout")}
    assert texts[bot_paged.pk] == texts[single.pk]
    # What follows: the single job's commit asks for the follow-ups job, the page wrote
    # them in its own transaction (one sending job for the page's mail, and the next
    # player's "your turn" notice, due after the quiet delay: ruling 19).
    assert not OutboxMessage.objects.filter(kind="your_turn").exists()
    next_player = bot_paged.seats.get(number=bot_paged.to_act).user
    due = T0 + timedelta(hours=12, minutes=10)
    assert TurnNotice.objects.get(user=next_player).due_at == due
    assert OutboxMessage.objects.filter(kind="game_over", table=leave_paged).count() == 2
    assert jobs.names().count(services.FOLLOWUPS) == 1  # the single job's
    assert jobs.names().count(services.SEND_MANY) == 1  # the page's
    with time_machine.travel(T0 + timedelta(hours=12), tick=False) as clock:
        jobs.run(services.FOLLOWUPS)
        clock.shift(timedelta(minutes=10))
        services.sweep(run=services.run_inline)
    assert OutboxMessage.objects.filter(kind="your_turn", table=bot_paged).count() == 1
    your_turn = {m.table_id: generic(m) for m in OutboxMessage.objects.filter(kind="your_turn")}
    assert your_turn[bot_paged.pk] == your_turn[single.pk]


def generic(message: OutboxMessage) -> str:
    """A message's text without what names its table and its reader."""
    assert message.table_id is not None
    text = message.text.replace(services.unsubscribe_url(message.user), "LINK")
    text = text.replace(services.table_url(message.table_id), "URL")
    return text.replace(message.user.username, "USER").replace(
        f"table {message.table_id}", "table N"
    )


def test_a_page_delivered_twice_acts_once(jobs: Jobs) -> None:
    with time_machine.travel(T0, tick=False) as clock:
        late = tables(3, turn_hours=12, timeout_policy="bot")
        leaver = tables(1, turn_hours=12, timeout_policy="leave")
        jobs.clear()
        clock.shift(timedelta(hours=12))
        before = {t.pk: t.seq for t in [*late, *leaver]}
        pairs = due_pairs([*late, *leaver])
        assert tasks.apply_timeouts(*jobs_module.flat(pairs)) == 4
        # The broker hands the same page out again, after the first committed.
        assert tasks.apply_timeouts(*jobs_module.flat(pairs)) == 0
        assert not [name for name in jobs.names() if name == services.TIMEOUT]
        jobs.drain()
        # Each next player's "your turn" notice was recorded once; away, each gets one.
        assert TurnNotice.objects.filter(due_at__isnull=False).count() == 3
        clock.shift(timedelta(minutes=10))
        services.sweep(run=services.run_inline)
    for table in [*late, *leaver]:
        assert_timed_out_once(table, before[table.pk])
    assert OutboxMessage.objects.filter(kind="your_turn").count() == 3


@needs_postgres
def test_a_page_skips_the_rows_another_page_holds_and_each_timeout_happens_once(
    jobs: Jobs, monkeypatch: pytest.MonkeyPatch
) -> None:
    with time_machine.travel(T0, tick=False) as clock:
        late = tables(3, turn_hours=12)
        jobs.clear()
        clock.shift(timedelta(hours=12))
        before = {t.pk: t.seq for t in late}
        inside, release = threading.Event(), threading.Event()
        real = turns.outbox_enqueue_many

        def stall(mails: Any) -> Any:
            written = real(mails)
            inside.set()  # the first page holds its rows, written but not committed...
            assert release.wait(timeout=30)
            return written

        monkeypatch.setattr(turns, "outbox_enqueue_many", stall)
        first: list[int] = []

        def first_page() -> None:
            first.append(services.tables_apply_timeouts(due=due_pairs(late)))
            connections.close_all()

        worker = threading.Thread(target=first_page)
        worker.start()
        assert inside.wait(timeout=30)
        monkeypatch.setattr(turns, "outbox_enqueue_many", real)
        # ...so the second page, handed out again by a second sweep, takes none of them
        # and leaves each to the single-table job, which waits for the lock.
        assert services.tables_apply_timeouts(due=due_pairs(late)) == 0
        assert sorted(args for name, args in jobs if name == services.TIMEOUT) == sorted(
            due_pairs(late)
        )
        release.set()
        worker.join(timeout=30)
        assert first == [3]
        assert jobs.run(services.TIMEOUT) == 3  # each finds its turn over: nothing
    for table in late:
        assert_timed_out_once(table, before[table.pk])


@needs_postgres
@pytest.mark.parametrize("repeat", range(3))
def test_two_pages_at_once_apply_each_timeout_once(repeat: int, jobs: Jobs) -> None:
    with time_machine.travel(T0, tick=False) as clock:
        late = tables(6, turn_hours=12)
        jobs.clear()
        clock.shift(timedelta(hours=12))
        before = {t.pk: t.seq for t in late}
        pairs = due_pairs(late)
        results = in_threads(
            lambda: services.tables_apply_timeouts(due=pairs),
            lambda: services.tables_apply_timeouts(due=pairs[::-1]),
        )
        assert all(isinstance(r, int) for r in results), results
        jobs.drain()  # the single-table jobs for rows the other page held
        clock.shift(timedelta(minutes=10))  # the next players away for the quiet delay
        services.sweep(run=services.run_inline)
    for table in late:
        assert_timed_out_once(table, before[table.pk])
    assert OutboxMessage.objects.filter(kind="your_turn").count() == 6


@needs_postgres
def test_a_player_holding_the_lock_keeps_the_row_out_of_the_page(jobs: Jobs) -> None:
    with time_machine.travel(T0, tick=False) as clock:
        held, other = tables(2, turn_hours=12)
        jobs.clear()
        clock.move_to(held.deadline_at)
        turn = held.turn
        outcome: list[int] = []

        def page() -> None:
            outcome.append(services.tables_apply_timeouts(due=due_pairs([held, other])))
            connections.close_all()

        with transaction.atomic():
            Table.objects.select_for_update().get(pk=held.pk)
            worker = threading.Thread(target=page)
            worker.start()
            worker.join(timeout=30)  # the page does not wait for the held row...
            assert outcome == [1]
            play_turn(held)  # ...and the player's move commits first
        assert [args for name, args in jobs if name == services.TIMEOUT] == [(held.pk, turn)]
        assert jobs.run(services.TIMEOUT) == 1  # the single job: the turn is over
    assert timeout_moves(held) == 0
    assert not OutboxMessage.objects.filter(kind="timeout", table=held).exists()
    assert timeout_moves(other) >= 1


@needs_postgres
@pytest.mark.parametrize("repeat", range(5))
def test_a_page_racing_a_players_move_at_the_deadline_instant(repeat: int, jobs: Jobs) -> None:
    with time_machine.travel(T0, tick=False) as clock:
        (table,) = tables(1, turn_hours=24)
        seat = seat_to_act(table)
        assert seat.user is not None and table.state is not None
        state = flip.GameState.from_dict(table.state)
        action = flip.legal_actions(state, seat.number)[0]
        data = {
            "type": action.type,
            "card": flip.handle(state, action.card) if action.card >= 0 else None,
            "color": flip.COLORS[action.color] if action.color >= 0 else None,
        }
        clock.move_to(table.deadline_at)
        user, seq, turn = seat.user, table.seq, table.turn
        jobs.clear()
        paged, moved = in_threads(
            lambda: services.tables_apply_timeouts(due=[(table.pk, turn)]),
            lambda: games.table_apply_action(
                table_id=table.pk, user=user, data=data, expected_seq=seq
            ),
        )
        jobs.drain()  # a skipped row's single-table job, if the player held it
    sources = list(
        Move.objects.filter(table=table, seq__gt=seq)
        .order_by("seq")
        .values_list("source", flat=True)
    )
    timeouts = OutboxMessage.objects.filter(kind="timeout").count()
    assert timeouts <= 1
    if isinstance(moved, StaleSequence):  # the page came first
        assert paged == 1 and set(sources) == {Move.Source.TIMEOUT} and timeouts == 1
    else:
        assert isinstance(moved, games.MoveResult), moved
        assert sources[0] == Move.Source.PLAYER
        if moved.state.turn == turn:  # the action did not end the turn: a timeout did
            assert set(sources[1:]) == {Move.Source.TIMEOUT} and timeouts == 1
        else:
            assert sources == [Move.Source.PLAYER] and timeouts == 0


KILLED_PAGE = """
import sys, time
import django
django.setup()
from notifications import turns
real = turns.outbox_enqueue_many
def stall(mails):
    written = real(mails)
    print("inside", len(written), flush=True)
    time.sleep(60)
turns.outbox_enqueue_many = stall
numbers = [int(a) for a in sys.argv[1:]]
turns.tables_apply_timeouts(due=list(zip(numbers[::2], numbers[1::2])))
"""


@needs_postgres
def test_a_worker_killed_in_the_middle_of_a_page_loses_nothing_and_times_out_once(
    jobs: Jobs,
) -> None:
    with time_machine.travel(T0, tick=False):
        late = tables(3, turn_hours=12)
        jobs.clear()
    before = {t.pk: t.seq for t in late}
    # The worker process runs on the real clock: put the deadlines behind it.
    Table.objects.filter(pk__in=before).update(deadline_at=datetime.now(UTC) - timedelta(minutes=1))
    settings_dict = connection.settings_dict
    env = {
        **os.environ,
        "DJANGO_SETTINGS_MODULE": "gamenook.settings.test",
        "DATABASE_URL": (
            f"postgres://{settings_dict['USER']}@{settings_dict['HOST']}:"
            f"{settings_dict['PORT']}/{settings_dict['NAME']}"
        ),
    }
    numbers = [str(n) for pair in due_pairs(late) for n in pair]
    worker = subprocess.Popen(
        [sys.executable, "-c", KILLED_PAGE, *numbers],
        cwd=ROOT,
        env=env,
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        assert worker.stdout is not None
        # Three timeouts, their mails and the next players' "your turn" notices written...
        assert worker.stdout.readline().strip() == "inside 3"
        worker.send_signal(signal.SIGKILL)  # ...but not committed
        worker.wait(timeout=30)
    finally:
        if worker.poll() is None:
            worker.kill()
    assert not Move.objects.filter(source=Move.Source.TIMEOUT).exists()
    assert not OutboxMessage.objects.exists()
    assert not TurnNotice.objects.exists()
    assert {t.pk: t.seq for t in Table.objects.filter(pk__in=before)} == before

    now = datetime.now(UTC)
    assert services.sweep(now=now, run=services.run_inline).timeouts == 3
    assert services.sweep(now=now, run=services.run_inline).timeouts == 0
    jobs.drain()
    with time_machine.travel(now + timedelta(minutes=11), tick=False):  # ruling 19
        services.sweep(run=services.run_inline)
        jobs.drain()
    for table in late:
        assert_timed_out_once(table, before[table.pk])
    assert OutboxMessage.objects.filter(kind="your_turn").count() == 3
    assert OutboxMessage.objects.filter(status=OutboxMessage.Status.SENT).count() == 6


def test_the_page_jobs_are_acked_late() -> None:
    for task in (tasks.apply_timeouts, tasks.run_bot_turns, tasks.send_outbox_messages):
        assert task.acks_late and task.reject_on_worker_lost, task.name
