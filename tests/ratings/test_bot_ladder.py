"""Issue 40: bot accounts are rated like anyone, but listed on a ladder of their own."""

from __future__ import annotations

import json
from collections.abc import Iterator
from datetime import timedelta
from typing import Any
from urllib.parse import parse_qs, urlsplit

import pytest
from django.contrib.auth.models import User
from django.core.cache import cache
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.utils import timezone

from games import services
from games.models import Table
from ratings import model
from ratings import selectors as ratings_selectors
from ratings import services as ratings
from ratings.models import Rating
from tests.factories import make_user
from tests.games.conftest import assert_error, client_for
from tests.games.test_invitations import make_bot

from .conftest import play_out

pytestmark = pytest.mark.django_db

API = "/api/v1"
BOARD = f"{API}/leaderboards/flip/turn_by_turn/"


@pytest.fixture(autouse=True)
def _fresh_throttles() -> Iterator[None]:
    cache.clear()
    yield
    cache.clear()


@pytest.fixture
def listed(settings: Any) -> None:
    """Everyone with one rated game on the leaderboards."""
    settings.GAMENOOK_LEADERBOARD_MIN_GAMES = 1
    settings.GAMENOOK_RATING_PROVISIONAL_SIGMA = 100.0


def _rate(user: User, mu: float, *, sigma: float = 2.0) -> Rating:
    return Rating.objects.create(
        game="flip",
        mode="correspondence",
        rules="standard",
        user=user,
        mu=mu,
        sigma=sigma,
        ordinal=model.ordinal(mu, sigma),
        games=20,
        last_game_at=timezone.now() - timedelta(days=1),
    )


def test_a_bot_account_is_rated_like_anyone_and_listed_apart(listed: None) -> None:
    person = make_user("person")
    bot = make_bot(make_user("owner"), "robo")
    table = services.table_create(host=person, seat_count=2, bot_accounts="welcome")
    services.table_join(table_id=table.pk, user=bot)
    services.table_start(table_id=table.pk, user=person)
    finished = play_out(table)
    assert finished.status == Table.Status.FINISHED
    ratings.table_rate(table_id=table.pk)
    assert Rating.objects.filter(user=bot).exists()  # rated like anyone

    people = client_for(person).get(BOARD).json()
    bots = client_for(person).get(BOARD, {"players": "bots"}).json()

    assert [entry["username"] for entry in people["results"]] == ["person"]
    assert [entry["bot_account"] for entry in people["results"]] == [False]
    assert people["players"] == "people"
    assert [entry["username"] for entry in bots["results"]] == ["robo"]
    assert [entry["bot_account"] for entry in bots["results"]] == [True]
    assert bots["players"] == "bots"

    changes = client_for(person).get(f"{API}/tables/{table.pk}/ratings/").json()
    assert {seat["username"]: seat["bot_account"] for seat in changes["seats"]} == {
        "person": False,
        "robo": True,
    }


def test_the_bots_ladder_pages_and_keeps_its_filter() -> None:
    owner = make_user("owner")
    for n in range(3):
        _rate(make_bot(owner, f"bot{n}"), 30.0 - n)
        _rate(make_user(f"human{n}"), 20.0 - n)
    first = client_for(owner).get(BOARD, {"players": "bots", "size": "2"}).json()
    assert [entry["username"] for entry in first["results"]] == ["bot0", "bot1"]
    assert parse_qs(urlsplit(first["next"]).query)["players"] == ["bots"]
    second = client_for(owner).get(first["next"]).json()
    assert [entry["username"] for entry in second["results"]] == ["bot2"]
    assert [e["username"] for e in client_for(owner).get(BOARD).json()["results"]] == [
        "human0",
        "human1",
        "human2",
    ]
    # A disabled bot account is still a bot account: never on the people's ladder.
    User.objects.filter(username="bot0").update(is_active=False)
    people = client_for(owner).get(BOARD).json()["results"]
    assert "bot0" not in {entry["username"] for entry in people}


@pytest.mark.parametrize("value", ["", "robots", "BOTS", "1", "people,bots"])
def test_players_refuses_other_values(value: str) -> None:
    body = assert_error(client_for(make_user()).get(BOARD, {"players": value}), 400, "invalid")
    assert "players" in body["fields"]


def test_the_player_answer_says_bot_and_owner() -> None:
    owner = make_user("owner")
    make_bot(owner, "robo")
    viewer = client_for(make_user("viewer"))
    robo = viewer.get(f"{API}/players/robo/").json()
    assert (robo["bot_account"], robo["owner"]) == (True, "owner")
    person = viewer.get(f"{API}/players/owner/").json()
    assert (person["bot_account"], person["owner"]) == (False, None)


def _plan(sql: str) -> dict[str, Any]:
    with connection.cursor() as cursor:
        cursor.execute(f"EXPLAIN (ANALYZE, FORMAT JSON) {sql}")
        (row,) = cursor.fetchall()
    found = row[0] if not isinstance(row[0], str) else json.loads(row[0])
    plan: dict[str, Any] = found[0]["Plan"]
    return plan


def _nodes(plan: dict[str, Any]) -> Iterator[dict[str, Any]]:
    yield plan
    for child in plan.get("Plans", []):
        yield from _nodes(child)


@pytest.mark.parametrize("bot_accounts", [False, True])
def test_the_covering_index_still_serves_a_page(bot_accounts: bool) -> None:
    """A few thousand ratings and some bot accounts: a page is read through the
    ``rating_leaderboard`` index in its order (no sort of the whole ladder)."""
    owner = make_user("owner")
    users = User.objects.bulk_create(User(username=f"p{n}") for n in range(3000))
    bots = [make_bot(owner, f"b{n}") for n in range(50)]
    now = timezone.now()
    Rating.objects.bulk_create(
        Rating(
            game="flip",
            mode="correspondence",
            rules="standard",
            user=user,
            mu=25.0 + (n % 97) / 10,
            sigma=2.0,
            ordinal=model.ordinal(25.0 + (n % 97) / 10, 2.0),
            games=20,
            last_game_at=now,
        )
        for n, user in enumerate([*users, *bots])
    )
    with connection.cursor() as cursor:
        cursor.execute("ANALYZE ratings_rating; ANALYZE games_botaccount; ANALYZE auth_user")
    with CaptureQueriesContext(connection) as queries:
        entries, more = ratings_selectors.leaderboard(
            ("flip", "correspondence", "standard"), page=2, size=20, bot_accounts=bot_accounts
        )
    assert len(entries) == 20
    assert more
    assert all(entry.username.startswith("b" if bot_accounts else "p") for entry in entries)
    (query,) = queries.captured_queries
    plan = _plan(query["sql"])
    nodes = list(_nodes(plan))
    # No sort of the ladder: a sort holds a page's rows, or (the bots' ladder, when the
    # planner starts from the few bot accounts) the bot accounts' ratings only.
    most = 50 + 21 if bot_accounts else 21
    sorted_rows = [node["Actual Rows"] for node in nodes if node["Node Type"] == "Sort"]
    assert all(rows <= most for rows in sorted_rows), json.dumps(plan, indent=1)
    if not bot_accounts:  # the people's page: the covering index, in its order
        scans = [node for node in nodes if node.get("Index Name") == "rating_leaderboard"]
        assert [node["Node Type"] for node in scans] == ["Index Only Scan"], plan
