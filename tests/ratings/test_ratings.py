"""Issue 39, ratings: each finished game rated once, in its follow-up, and rebuilt from the log."""

from __future__ import annotations

import pytest
from django.db.models import F

from games import services
from games.models import Seat, Table
from notifications import followups
from ratings import model
from ratings import services as ratings
from ratings.models import Rating, Result
from ratings.rebuild import rebuild
from tests.factories import make_user, start_table

from .conftest import play_out

pytestmark = pytest.mark.django_db


def test_a_finished_game_is_rated_once_with_a_result_per_seat() -> None:
    alice, bob = make_user(), make_user()
    table = play_out(start_table(alice, bob, bots=2))
    results = ratings.table_rate(table_id=table.pk)
    assert [r.seat for r in results] == [0, 1, 2, 3]
    assert {r.rank for r in results} <= {1, 2, 3, 4}
    assert all(r.rated and r.game == "flip" and r.mode == "correspondence" for r in results)
    assert all(r.rules == "standard" and r.seats == 4 for r in results)
    # Two people and one bot level (both Easy seats are one rating, moved once).
    rows = {(r.user_id, r.bot_level): r for r in Rating.objects.all()}
    assert set(rows) == {(alice.pk, ""), (bob.pk, ""), (None, "easy")}
    assert all(row.games == 1 for row in rows.values())
    # The person ahead of the other gained on them (a bot level's two seats move by
    # their mean, so only the people are compared).
    ahead, behind = sorted((r for r in results if r.user_id), key=lambda r: r.rank)
    if ahead.rank < behind.rank:
        assert ahead.mu_after - ahead.mu_before > behind.mu_after - behind.mu_before
    assert ahead.mu_before == behind.mu_before == model.MU
    again = ratings.table_rate(table_id=table.pk)
    assert [r.pk for r in again] == [r.pk for r in results]
    assert Rating.objects.get(user=alice).games == 1


def test_the_game_over_follow_up_rates_the_game() -> None:
    alice = make_user()
    table = play_out(start_table(alice, bots=1))
    followups.table_followups(table_id=table.pk, seq=table.seq, new_turn=False, finished=True)
    assert Result.objects.filter(table=table).count() == 2
    assert Rating.objects.get(user=alice).games == 1


def test_an_unrated_table_leaves_results_and_moves_no_rating() -> None:
    alice = make_user()
    table = play_out(start_table(alice, bots=1, rated=False))
    results = ratings.table_rate(table_id=table.pk)
    assert len(results) == 2 and not any(r.rated for r in results)
    assert results[0].mu_after is None
    assert not Rating.objects.exists()


def test_house_rules_and_real_time_are_ladders_of_their_own() -> None:
    alice = make_user()
    classic = play_out(start_table(alice, bots=1, game="wildcards", options={"stacking": True}))
    plain = play_out(start_table(alice, bots=1, game="wildcards"))
    ratings.table_rate(table_id=classic.pk)
    ratings.table_rate(table_id=plain.pk)
    ladders = set(Rating.objects.filter(user=alice).values_list("game", "mode", "rules"))
    assert ladders == {
        ("wildcards", "correspondence", "house"),
        ("wildcards", "correspondence", "standard"),
    }


def test_a_seat_a_moderator_gave_a_bot_is_its_person_s_with_less_weight() -> None:
    alice, bob = make_user(), make_user()
    table = start_table(alice, bob)
    for _ in range(6):  # a few moves each, then bob is replaced
        table.refresh_from_db()
        seat = Seat.objects.get(table=table, number=table.to_act)
        from .conftest import play_as

        play_as(table, seat.user)
    bob_seat = Seat.objects.get(table=table, user=bob)
    services.seat_replace_with_bot(table_id=table.pk, number=bob_seat.number, level="normal")
    table = play_out(table)
    results = {r.user_id: r for r in ratings.table_rate(table_id=table.pk)}
    assert set(results) == {alice.pk, bob.pk}
    assert results[alice.pk].weight == 1.0
    assert 0.25 < results[bob.pk].weight < 1.0
    seat = Seat.objects.get(table=table, number=bob_seat.number)
    assert seat.stand_in_turns > 0 and seat.turns > seat.stand_in_turns
    assert not Rating.objects.filter(bot_level="normal").exists()


def test_the_rebuild_from_the_log_equals_the_live_ratings_to_the_last_bit() -> None:
    people = [make_user() for _ in range(5)]
    moderator = make_user()
    tables = [
        start_table(people[0], people[1], bots=2),
        start_table(people[1], people[2], people[3], bots=1, level="hard"),
        start_table(people[0], people[2], bots=1, rated=False),
        start_table(people[3], people[4], people[0], game="wildcards"),
        start_table(people[4], people[1], bots=3, level="normal"),
    ]
    for index, table in enumerate(tables):
        play_out(table, pick=index, timeouts={1} if index == 1 else None)
        ratings.table_rate(table_id=table.pk)
        if index == 2:
            rating = Rating.objects.get(user=people[1], game="flip")
            ratings.rating_reset(rating_id=rating.pk, moderator=moderator, reason="a test")
    assert Result.objects.filter(rated=True).count() == 4 + 4 + 3 + 5
    report = rebuild()
    assert report.games == 5
    assert report.differences == []
    # The rebuild can fail: a rating off by the smallest amount is found.
    Rating.objects.filter(user=people[2]).update(mu=F("mu") + 1e-9)
    assert len(rebuild().differences) == 1
    rebuild(write=True)
    assert rebuild().differences == []


def test_a_game_its_follow_up_did_not_rate_is_found_by_the_sweep() -> None:
    from datetime import timedelta

    from django.utils import timezone

    from notifications import sweep
    from notifications.tasks import run_inline

    alice = make_user()
    table = play_out(start_table(alice, bots=1))
    assert not Result.objects.exists()
    found = sweep.sweep(now=timezone.now() + timedelta(minutes=5), run=run_inline)
    assert found.ratings == 1
    assert Result.objects.filter(table=table).count() == 2
    assert Table.objects.get(pk=table.pk).status == Table.Status.FINISHED


def test_the_rebuild_command_rates_the_missing_games_and_says_where_the_log_disagrees() -> None:
    from io import StringIO

    from django.core.management import CommandError, call_command

    alice, bob = make_user(), make_user()
    play_out(start_table(alice, bob, bots=1))
    out = StringIO()
    call_command("ratings_rebuild", "--rate-missing", stdout=out)
    assert "rated 1 game(s)" in out.getvalue()
    assert "equal the rebuilt ones" in out.getvalue()
    Rating.objects.filter(user=bob).update(sigma=F("sigma") * 0.5)
    with pytest.raises(CommandError, match="1 difference"):
        call_command("ratings_rebuild", stdout=StringIO())
    call_command("ratings_rebuild", "--write", stdout=StringIO())
    call_command("ratings_rebuild", stdout=StringIO())
