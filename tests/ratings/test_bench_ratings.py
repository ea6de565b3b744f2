"""The ratings benchmark (``scripts/bench_ratings.py``) at a tiny size: what it counts is there.

Its fill writes with PostgreSQL's COPY, into the test database: 200 games rated
before, 20 not yet, 300 players. The synthetic logs must read, through the
service's own selectors, as the games the benchmark planned; the rebuild, the
live path and the leaderboard must report the counts the fill implies.
"""

from __future__ import annotations

from datetime import UTC, datetime

import pytest
from django.contrib.auth.models import User
from django.db import connection

from games import selectors as games_selectors
from games.models import Move, Seat, Table
from ratings import model
from ratings.models import Rating, Result
from ratings.rebuild import rebuild
from ratings.services import ladder_of
from scripts import bench_ratings as bench

pytestmark = pytest.mark.django_db
#: The tests that fill the database: the fill is PostgreSQL's COPY.
needs_postgresql = pytest.mark.skipif(
    connection.vendor != "postgresql", reason="the fill is PostgreSQL's COPY"
)

GAMES, PLAYERS, SAMPLE = 200, 300, 20


@pytest.fixture
def filled() -> bench.Filled:
    return bench.fill(games=GAMES, players=PLAYERS, sample=SAMPLE, seed=7, keep_plans=True)


@needs_postgresql
def test_the_fill_writes_the_rows_it_counts(filled: bench.Filled) -> None:
    tables = [*filled.rated_tables, *filled.sample_tables]
    assert len(filled.rated_tables) == GAMES and len(filled.sample_tables) == SAMPLE
    assert User.objects.filter(pk__in=filled.user_ids).count() == filled.users == PLAYERS
    finished = Table.objects.filter(pk__in=tables, status=Table.Status.FINISHED)
    assert finished.count() == filled.tables == GAMES + SAMPLE
    assert Seat.objects.filter(table_id__in=tables).count() == filled.seats
    assert Move.objects.filter(table_id__in=tables).count() == filled.moves
    rated_before = [filled.plans[table_id] for table_id in filled.rated_tables]
    assert filled.results == sum(len(plan.seats) for plan in rated_before)
    assert Result.objects.filter(table_id__in=filled.rated_tables).count() == filled.results
    assert not Result.objects.filter(table_id__in=filled.sample_tables).exists()
    subjects = {
        (*plan.ladder, *subject)
        for plan in rated_before
        if plan.rated
        for subject in plan.subjects()
    }
    assert Rating.objects.count() == filled.ratings == len(subjects)
    # A mix: every table size, people and bots, every hand that ends a turn.
    assert {len(plan.seats) for plan in filled.plans.values()} == set(range(2, 11))
    for source in ("player", "forced", "timeout", "autopilot", "bot", "leave"):
        assert Move.objects.filter(table_id__in=tables, source=source).exists(), source
    assert filled.mix["seats of bots"] and filled.mix["games with a shared rank"]


@needs_postgresql
def test_each_log_reads_as_the_game_planned(filled: bench.Filled) -> None:
    found = games_selectors.finished_games(list(filled.plans))
    assert set(found) == set(filled.plans)
    for table_id, plan in filled.plans.items():
        game = found[table_id]
        assert game.ranking == plan.ranks()
        assert ladder_of(game) == plan.ladder and game.rated == plan.rated
        tallies = {
            seat.number: (seat.tally.turns, seat.tally.timeouts, seat.tally.stand_in_turns)
            for seat in game.seats
        }
        assert tallies == {seat.number: seat.tally() for seat in plan.seats}
        people = {seat.number: seat.person_id for seat in game.seats}
        assert people == {
            seat.number: None if seat.person is None else filled.user_ids[seat.person]
            for seat in plan.seats
        }
        assert {seat.number for seat in game.seats if seat.left} == {
            seat.number for seat in plan.seats if seat.left
        }
    # The follow-up's tallies on the seats of the games rated before are the log's.
    stored = Seat.objects.filter(table_id__in=filled.rated_tables).values_list(
        "table_id", "number", "turns", "timeouts", "stand_in_turns"
    )
    for table_id, number, *tally in stored:
        assert tuple(tally) == filled.plans[table_id].seats[number].tally()


@needs_postgresql
def test_the_rebuild_and_the_live_path_rate_every_game_and_agree(filled: bench.Filled) -> None:
    rebuilt = bench.measure_rebuild(batch=64)
    assert rebuilt.report.games == GAMES
    assert rebuilt.report.ratings == filled.ratings
    assert rebuilt.sql_count["UPDATE ratings_result"] >= 1
    moved = Result.objects.filter(rated=True).exclude(mu_after=model.MU)
    assert moved.count() > filled.results / 2
    live = bench.measure_live(filled.sample_tables)
    assert len(live.seconds) == SAMPLE
    assert live.results == sum(len(filled.plans[t].seats) for t in filled.sample_tables)
    assert Result.objects.filter(table_id__in=filled.sample_tables).count() == live.results
    assert rebuild(write=False).differences == []


def _written() -> tuple[list[tuple[object, ...]], list[tuple[object, ...]]]:
    ratings = Rating.objects.order_by("pk").values_list(
        "pk", "mu", "sigma", "ordinal", "games", "last_game_at"
    )
    results = Result.objects.order_by("pk").values_list(
        "pk", "mu_before", "sigma_before", "mu_after", "sigma_after", "weight", "rank"
    )
    return list(ratings), list(results)


@needs_postgresql
def test_the_proposed_write_writes_what_the_rebuild_writes(filled: bench.Filled) -> None:
    proposed = bench.measure_proposed_rebuild(batch=64)
    assert proposed.report.games == GAMES
    assert "UPDATE ratings_result" in proposed.sql_count
    by_proposal = _written()
    assert by_proposal[1][0][3] is not None  # the first game was rated: its after is written
    bench.measure_rebuild(batch=64)
    assert _written() == by_proposal
    assert rebuild(write=False).differences == []


@needs_postgresql
def test_the_leaderboard_ladder_lists_what_its_fill_counted(filled: bench.Filled) -> None:
    ladder = bench.fill_ladder(bench.BENCH_LADDER, filled.user_ids, seed=7)
    assert ladder.rows == PLAYERS
    assert 0 < ladder.listed < PLAYERS
    assert bench.listed(bench.BENCH_LADDER) == ladder.listed
    last = -(-ladder.listed // bench.PAGE_SIZE)
    cases = [("first", bench.BENCH_LADDER, 1), ("last", bench.BENCH_LADDER, last)]
    times, entries = bench.leaderboard_runs(cases, runs=3)
    assert [len(times["first"]), len(times["last"])] == [3, 3]
    assert entries == {"first": 50, "last": ladder.listed - bench.PAGE_SIZE * (last - 1)}
    plan = bench.leaderboard_plan(bench.BENCH_LADDER, 1)
    assert "LIMIT 51" in plan and "Execution Time" in plan


def test_the_plan_of_a_game_is_a_game_of_the_service() -> None:
    plans = list(bench.plan_games(games=300, players=50, seed=3, now=datetime.now(UTC)))
    for plan in plans:
        order = bench.interleave(plan)
        assert sum(len(seat.moves) for seat in plan.seats) == len(order)
        assert order[-1][0] == plan.winner and order[-1][1] in bench.PLAYS
        ranks = plan.ranks()
        assert ranks[plan.winner] == 1 and sorted(ranks) == list(range(len(plan.seats)))
        stayers = [ranks[s.number] for s in plan.seats if not s.left]
        leavers = [ranks[s.number] for s in plan.seats if s.left]
        assert not leavers or max(stayers) < min(leavers)
        people = [seat.person for seat in plan.seats if seat.person is not None]
        assert len(people) == len(set(people)) and plan.seats[0].person is not None
        for seat in plan.seats:
            assert "L" not in seat.moves[:-1] and "T" not in seat.moves[:-1]


@needs_postgresql
def test_the_proposed_leaderboard_pages_as_the_selector_does(filled: bench.Filled) -> None:
    ladder = bench.fill_ladder(bench.BENCH_LADDER, filled.user_ids, seed=7)
    last = -(-ladder.listed // bench.PAGE_SIZE)
    cases = [("first", bench.BENCH_LADDER, 1), ("last", bench.BENCH_LADDER, last)]
    times, entries, plans, same = bench.measure_proposed_leaderboard(cases, runs=2)
    assert same
    assert entries == {"first": 50, "last": ladder.listed - bench.PAGE_SIZE * (last - 1)}
    assert [name for name, _ in plans] == ["first", "last"]
    assert all("LIMIT 51" in plan and "Execution Time" in plan for _, plan in plans)
