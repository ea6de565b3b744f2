"""Issue 39 in the API: players, their history and head to head, leaderboards, a game's
rating changes, and the tables' new fields (rated, min_reliability, each seat's reliability).

Whole games are played through the services (``play_out``), rated as the
follow-up rates them (``ratings.services.table_rate``), then read through
the API with a token, as a client would. Every refusal is a 4xx in the one
error shape and changes nothing; no answer names a card.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any
from urllib.parse import urlsplit

import pytest
from django.contrib.auth.models import User
from django.core.cache import cache
from rest_framework.test import APIClient

import flip
from flip.cards import CODE_OF, COLORS, SYMBOLS
from games import selectors
from games.models import Seat, Table
from ratings import model
from ratings import selectors as ratings_selectors
from ratings import services as ratings
from ratings.models import Rating, Result
from tests.factories import make_user, start_table
from tests.games.conftest import assert_error, client_for

from .conftest import play_out

pytestmark = pytest.mark.django_db

API = "/api/v1"


@pytest.fixture(autouse=True)
def _fresh_throttles() -> Iterator[None]:
    cache.clear()  # the tables' write throttle counts in the cache, which outlives a test
    yield
    cache.clear()


@pytest.fixture
def listed(settings: Any) -> None:
    """Everyone with one rated game on the leaderboards (by default: 10, not provisional)."""
    settings.GAMENOOK_LEADERBOARD_MIN_GAMES = 1
    settings.GAMENOOK_RATING_PROVISIONAL_SIGMA = 100.0


def _game(*people: User, bots: int = 1, level: str = "hard", **options: Any) -> Table:
    """A finished game of ``people`` and ``bots``, rated as its follow-up rates it."""
    table = play_out(start_table(*people, bots=bots, level=level, **options))
    assert table.status == Table.Status.FINISHED
    ratings.table_rate(table_id=table.pk)
    return table


def _get(user: User | None, path: str, **params: Any) -> Any:
    return client_for(user).get(path, params)


# ----------------------------------------------------------------------------
# What no answer may hold


#: Keys of the game's own facts: none has a place in a rating, a record or a leaderboard.
CARD_KEYS = {"card", "cards", "hand", "hands", "face", "faces", "top", "discard", "draw_pile"}
CARD_KEYS |= {"seed", "order", "shuffles", "state", "payload", "events", "color", "colors"}


def _walk(value: Any) -> Iterator[tuple[str | None, Any]]:
    if isinstance(value, dict):
        for key, item in value.items():
            yield key, item
            yield from _walk(item)
    elif isinstance(value, list):
        for item in value:
            yield None, item
            yield from _walk(item)


def assert_names_no_card(body: Any, *tables: Table) -> None:
    """No handle, face, colour or symbol of any card of ``tables``' Flip games, no seed, and
    no key of a game's facts, anywhere in ``body``."""
    text = json.dumps(body)
    faces = {code for side in CODE_OF for code in side}
    words = set(COLORS) | set(SYMBOLS) | faces
    for table in tables:
        table.refresh_from_db()
        assert table.state is not None
        state = flip.GameState.from_dict(table.state)
        assert state.seed not in text
        for card in range(len(CODE_OF[0])):
            assert flip.handle(state, card) not in text
    for key, value in _walk(body):
        assert key not in CARD_KEYS, key
        assert not (isinstance(value, str) and value in words), value


# ----------------------------------------------------------------------------
# A player


def test_a_players_page_after_a_whole_game_says_what_the_game_did(listed: None) -> None:
    alice, bob = make_user("alice"), make_user("bob")
    table = _game(alice, bob)
    mine = Result.objects.get(table=table, user=alice)

    response = _get(bob, f"{API}/players/alice/")

    assert response.status_code == 200, response.content[:500]
    body = response.json()
    assert body["username"] == "alice"
    [rating] = body["ratings"]
    row = Rating.objects.get(user=alice)
    assert rating["game"] == "flip" and rating["mode"] == "turn_by_turn"
    assert rating["rules"] == "standard" and rating["games"] == 1
    assert rating["rating"] == model.shown(row.mu, row.sigma)
    assert rating["label"] == str(rating["rating"]) + ("?" if rating["provisional"] else "")
    record = body["reliability"]
    assert record["games"] == 1 and record["left"] == 0 and record["timeouts"] == 0
    assert record["turns"] > 0 and record["percent"] == 100 and record["on_time"] == 1.0
    assert record["days"] == 90
    assert body["win_rates"] == [
        {"seats": 3, "games": 1, "wins": int(mine.rank == 1), "share": float(mine.rank == 1)}
    ]
    hard = next(entry for entry in body["against_bots"] if entry["level"] == "hard")
    bot_rank = Result.objects.get(table=table, bot_level="hard").rank
    assert hard["games"] == 1 and hard["wins"] == int(mine.rank < bot_rank)
    assert [entry["level"] for entry in body["against_bots"]] == ["easy", "normal", "hard"]
    times = {entry["mode"]: entry for entry in body["time_to_move"]}
    assert set(times) == {"turn_by_turn", "real_time"}
    assert times["turn_by_turn"]["moves"] > 0
    assert times["turn_by_turn"]["median_seconds"] is not None
    assert times["real_time"] == {
        "mode": "real_time",
        "moves": 0,
        "average_seconds": None,
        "median_seconds": None,
    }
    [played] = body["recent_games"]
    assert played["table"] == table.pk and played["rank"] == mine.rank
    assert (played["game"], played["mode"], played["rules"]) == ("flip", "turn_by_turn", "standard")
    assert played["seats"] == 3 and played["rated"] is True and played["left"] is False
    assert played["change"] == model.change(
        mine.mu_before, mine.sigma_before, mine.mu_after, mine.sigma_after
    )
    assert urlsplit(played["replay_url"]).path == f"/tables/{table.pk}/replay/"
    assert urlsplit(played["table_url"]).path == f"{API}/tables/{table.pk}/"
    assert urlsplit(played["record_url"]).path == f"{API}/tables/{table.pk}/record/"
    # The links lead somewhere: the record to a seat, the replay page to a signed-in player.
    assert client_for(alice).get(played["record_url"]).status_code == 200
    web = APIClient()
    web.force_login(alice)
    assert web.get(urlsplit(played["replay_url"]).path).status_code == 200
    assert_names_no_card(body, table)


def test_a_player_with_no_game_has_an_empty_page_not_an_error() -> None:
    alice = make_user("alice")

    body = _get(alice, f"{API}/players/alice/").json()

    assert body["ratings"] == [] and body["recent_games"] == [] and body["win_rates"] == []
    assert body["reliability"]["percent"] is None and body["reliability"]["on_time"] is None
    assert [entry["games"] for entry in body["against_bots"]] == [0, 0, 0]


def test_a_player_who_let_turns_time_out_has_a_lower_reliability() -> None:
    alice, bob = make_user("alice"), make_user("bob")
    table = play_out(start_table(alice, bob), timeouts={1})
    ratings.table_rate(table_id=table.pk)
    bob_seat = Seat.objects.get(table=table, user=bob)
    assert bob_seat.timeouts > 0

    record = _get(alice, f"{API}/players/bob/").json()["reliability"]

    assert record["timeouts"] == bob_seat.timeouts and record["turns"] == bob_seat.turns
    assert record["on_time"] == round(1 - bob_seat.timeouts / bob_seat.turns, 4)
    assert record["percent"] == selectors.reliability([bob.pk])[bob.pk].percent < 100


def test_an_unrated_game_is_listed_with_no_change_and_moves_no_rating() -> None:
    alice = make_user("alice")
    table = _game(alice, rated=False)

    body = _get(alice, f"{API}/players/alice/").json()

    assert body["ratings"] == []
    [played] = body["recent_games"]
    assert (played["table"], played["rated"], played["change"]) == (table.pk, False, None)


# ----------------------------------------------------------------------------
# History


def test_the_history_defaults_to_the_ladder_with_the_most_games() -> None:
    alice = make_user("alice")
    first, second = _game(alice), _game(alice)
    classic = _game(alice, game="wildcards")

    default = _get(alice, f"{API}/players/alice/history/").json()
    other = _get(alice, f"{API}/players/alice/history/", game="wildcards").json()
    empty = _get(alice, f"{API}/players/alice/history/", mode="real_time").json()

    assert (default["game"], default["mode"], default["rules"]) == (
        "flip",
        "turn_by_turn",
        "standard",
    )
    assert [point["table"] for point in default["points"]] == [first.pk, second.pk]
    expected = ratings_selectors.history(alice, ("flip", "correspondence", "standard"))
    assert [point["rating"] for point in default["points"]] == [p.rating for p in expected]
    assert [point["change"] for point in default["points"]] == [p.change for p in expected]
    assert other["game"] == "wildcards"
    assert [point["table"] for point in other["points"]] == [classic.pk]
    assert (empty["game"], empty["mode"], empty["points"]) == ("flip", "real_time", [])


@pytest.mark.parametrize(
    "params",
    [
        {"game": "chess"},
        {"game": "FLIP"},
        {"mode": "correspondence"},  # the ratings' own name, not the API's
        {"mode": "realtime"},
        {"rules": "House"},
        {"rules": "house' OR '1'='1"},
        {"game": ""},
        {"rules": " "},
    ],
)
def test_the_history_refuses_an_unknown_game_mode_or_rules(params: dict[str, str]) -> None:
    alice = make_user("alice")

    body = assert_error(_get(alice, f"{API}/players/alice/history/", **params), 400, "invalid")

    assert set(body["fields"]) == set(params)


# ----------------------------------------------------------------------------
# Head to head


def test_head_to_head_counts_who_finished_ahead() -> None:
    alice, bob, carol = make_user("alice"), make_user("bob"), make_user("carol")
    together = [_game(alice, bob), _game(bob, alice, bots=0)]
    _game(alice, carol)
    ranks = {
        table.pk: (
            Result.objects.get(table=table, user=alice).rank,
            Result.objects.get(table=table, user=bob).rank,
        )
        for table in together
    }

    body = _get(carol, f"{API}/players/alice/versus/bob/").json()
    back = _get(carol, f"{API}/players/bob/versus/alice/").json()

    assert (body["username"], body["other"], body["games"]) == ("alice", "bob", 2)
    assert body["ahead"] == sum(mine < theirs for mine, theirs in ranks.values())
    assert body["behind"] == sum(mine > theirs for mine, theirs in ranks.values())
    assert body["ahead"] + body["behind"] + body["tied"] == 2
    assert (back["ahead"], back["behind"]) == (body["behind"], body["ahead"])
    assert [game["table"] for game in body["recent"]] == [t.pk for t in reversed(together)]
    for game in body["recent"]:
        assert (game["rank"], game["other_rank"]) == ranks[game["table"]]
    assert _get(carol, f"{API}/players/carol/versus/bob/").json()["games"] == 0


def test_head_to_head_refuses_a_player_against_themself_and_an_unknown_other() -> None:
    alice = make_user("alice")

    assert_error(_get(alice, f"{API}/players/alice/versus/alice/"), 400, "invalid")
    assert_error(_get(alice, f"{API}/players/alice/versus/nobody/"), 404, "not_found")
    assert_error(_get(alice, f"{API}/players/nobody/versus/alice/"), 404, "not_found")


# ----------------------------------------------------------------------------
# Leaderboards


def test_a_leaderboard_lists_the_ladders_players_best_first_a_page_at_a_time(
    listed: None,
) -> None:
    alice, bob, carol = make_user("alice"), make_user("bob"), make_user("carol")
    table = _game(alice, bob, carol)
    path = f"{API}/leaderboards/flip/turn_by_turn/"
    expected = sorted(
        Rating.objects.filter(user__isnull=False), key=lambda row: (-row.ordinal, row.pk)
    )

    whole = _get(alice, path).json()
    first = _get(alice, path, size=2).json()
    second = client_for(alice).get(first["next"]).json()

    assert [entry["username"] for entry in whole["results"]] == [
        row.user.username for row in expected if row.user is not None
    ]
    assert [entry["position"] for entry in whole["results"]] == [1, 2, 3]
    ratings_shown = [entry["rating"] for entry in whole["results"]]
    assert ratings_shown == sorted(ratings_shown, reverse=True)
    assert (whole["page"], whole["size"], whole["next"], whole["previous"]) == (1, 50, None, None)
    assert (whole["game"], whole["mode"], whole["rules"]) == ("flip", "turn_by_turn", "standard")
    assert (whole["min_games"], whole["active_days"]) == (1, 30)
    [bot] = whole["bots"]
    hard = Rating.objects.get(bot_level="hard")
    assert (bot["level"], bot["rating"], bot["games"]) == (
        "hard",
        model.shown(hard.mu, hard.sigma),
        1,
    )
    assert [entry["position"] for entry in first["results"]] == [1, 2]
    assert first["previous"] is None and first["next"] is not None
    assert dict(pair.split("=") for pair in urlsplit(first["next"]).query.split("&")) == {
        "rules": "standard",
        "page": "2",
        "size": "2",
    }
    assert [entry["position"] for entry in second["results"]] == [3]
    assert second["next"] is None and second["previous"] is not None
    assert second["results"][0]["username"] == whole["results"][2]["username"]
    assert_names_no_card(whole, table)


def test_a_leaderboard_leaves_out_provisional_ratings_and_other_ladders() -> None:
    alice, bob = make_user("alice"), make_user("bob")
    _game(alice, bob)
    path = f"{API}/leaderboards/flip/turn_by_turn/"

    assert _get(alice, path).json()["results"] == []  # one game each: provisional
    assert _get(alice, path, rules="house").json()["results"] == []
    assert _get(alice, f"{API}/leaderboards/wildcards/real_time/").json()["results"] == []


def test_a_page_past_the_end_is_empty_up_to_the_largest_page() -> None:
    alice = make_user("alice")
    path = f"{API}/leaderboards/flip/turn_by_turn/"

    last = _get(alice, path, page=2**31 - 1, size=100).json()

    assert last["results"] == [] and last["next"] is None
    assert urlsplit(last["previous"]).query == f"rules=standard&page={2**31 - 2}&size=100"


@pytest.mark.parametrize(
    ("path", "params", "field"),
    [
        ("flip/turn_by_turn", {"page": "0"}, "page"),
        ("flip/turn_by_turn", {"page": "-1"}, "page"),
        ("flip/turn_by_turn", {"page": str(2**31)}, "page"),
        ("flip/turn_by_turn", {"page": "99999999999999999999999999"}, "page"),
        ("flip/turn_by_turn", {"page": "1.0"}, "page"),
        ("flip/turn_by_turn", {"page": "1e3"}, "page"),
        ("flip/turn_by_turn", {"page": "two"}, "page"),
        ("flip/turn_by_turn", {"page": ""}, "page"),
        ("flip/turn_by_turn", {"size": "1000"}, "size"),
        ("flip/turn_by_turn", {"size": "101"}, "size"),
        ("flip/turn_by_turn", {"size": "0"}, "size"),
        ("flip/turn_by_turn", {"rules": "house rules"}, "rules"),
        ("flip/turn_by_turn", {"rules": "1; DROP TABLE ratings_rating"}, "rules"),
        ("chess/turn_by_turn", {}, "game"),
        ("Flip/turn_by_turn", {}, "game"),
        ("flip/correspondence", {}, "mode"),
        ("flip/realtime", {}, "mode"),
        ("flip' OR 1=1 --/turn_by_turn", {}, "game"),
    ],
)
def test_a_leaderboard_refuses_bad_input_with_400(
    path: str, params: dict[str, str], field: str
) -> None:
    alice = make_user("alice")

    body = assert_error(_get(alice, f"{API}/leaderboards/{path}/", **params), 400, "invalid")

    assert set(body["fields"]) == {field}


# ----------------------------------------------------------------------------
# A game's rating changes


def test_a_finished_games_rating_changes_are_each_rated_seats(listed: None) -> None:
    alice, bob = make_user("alice"), make_user("bob")
    table = play_out(start_table(alice, bob, bots=1, level="hard"))
    path = f"{API}/tables/{table.pk}/ratings/"

    before = _get(bob, path).json()
    ratings.table_rate(table_id=table.pk)
    after = _get(make_user("carol"), path).json()  # any signed-in user, as the table itself

    assert before == {"table": table.pk, "rated": True, "pending": True, "seats": []}
    assert (after["table"], after["rated"], after["pending"]) == (table.pk, True, False)
    changes = ratings_selectors.table_changes(table.pk)
    assert [seat["number"] for seat in after["seats"]] == [0, 1, 2]
    for seat in after["seats"]:
        change = changes[seat["number"]]
        assert (seat["rating"], seat["change"], seat["provisional"]) == (
            change.rating,
            change.change,
            change.provisional,
        )
    assert [(s["username"], s["bot_level"], s["name"]) for s in after["seats"]] == [
        ("alice", None, "alice"),
        ("bob", None, "bob"),
        (None, "hard", "Bot 1 (hard)"),
    ]
    assert_names_no_card(after, table)


def test_an_unrated_tables_changes_are_empty_and_a_running_one_has_none_yet() -> None:
    alice = make_user("alice")
    unrated = _game(alice, rated=False)
    running = start_table(alice, bots=1)

    body = _get(alice, f"{API}/tables/{unrated.pk}/ratings/").json()

    assert body == {"table": unrated.pk, "rated": False, "pending": False, "seats": []}
    assert_error(_get(alice, f"{API}/tables/{running.pk}/ratings/"), 409, "game_not_over")
    assert_error(_get(alice, f"{API}/tables/999999/ratings/"), 404, "not_found")
    assert_error(_get(alice, f"{API}/tables/99999999999999999999/ratings/"), 404, "not_found")


# ----------------------------------------------------------------------------
# Hostile and anonymous callers


@pytest.mark.parametrize(
    "name",
    [
        "nobody",
        "ALICE",  # names are case-sensitive in a URL: the account's own spelling
        "alice' OR '1'='1",
        "alice%27%20OR%20%271%27%3D%271",
        "alice;--",
        "%25",
        "a%00b",
        "%00",
        "x" * 151,
        "\u0430lice",  # a Cyrillic a
        "%F0%9F%92%A9",
        "%ED%A0%80",  # a lone surrogate, in UTF-8 as no UTF-8 writes it
        "..",
    ],
)
def test_a_bad_username_is_404_in_the_error_shape(name: str) -> None:
    alice = make_user("alice")

    for path in (
        f"{API}/players/{name}/",
        f"{API}/players/{name}/history/",
        f"{API}/players/{name}/versus/alice/",
        f"{API}/players/alice/versus/{name}/",
    ):
        assert_error(client_for(alice).get(path), 404, "not_found")


def test_every_read_needs_a_login_as_the_tables_do() -> None:
    make_user("alice")
    assert_error(_get(None, f"{API}/tables/"), 401, "not_authenticated")
    for path in (
        "players/alice/",
        "players/alice/history/",
        "players/alice/versus/bob/",
        "leaderboards/flip/turn_by_turn/",
        "tables/1/ratings/",
    ):
        assert_error(_get(None, f"{API}/{path}"), 401, "not_authenticated")


def test_the_reads_take_no_write_and_no_body() -> None:
    alice = make_user("alice")
    client = client_for(alice)

    for path in ("players/alice/", "leaderboards/flip/turn_by_turn/", "tables/1/ratings/"):
        response = client.post(f"{API}/{path}", {"rating": 3000}, format="json")
        assert_error(response, 405, "method_not_allowed")
        assert_error(client.delete(f"{API}/{path}"), 405, "method_not_allowed")
    assert not Rating.objects.exists()


# ----------------------------------------------------------------------------
# Tables: rated, min_reliability, each seat's reliability


def test_a_table_made_through_the_api_keeps_rated_and_min_reliability() -> None:
    alice = make_user("alice")
    client = client_for(alice)

    made = client.post(
        f"{API}/tables/", {"seat_count": 2, "rated": False, "min_reliability": 80}, format="json"
    )
    plain = client_for(make_user("bob")).post(f"{API}/tables/", {"seat_count": 2}, format="json")

    assert made.status_code == 201, made.content[:500]
    assert (made.json()["rated"], made.json()["min_reliability"]) == (False, 80)
    table = Table.objects.get(pk=made.json()["id"])
    assert (table.rated, table.min_reliability) == (False, 80)
    assert (plain.json()["rated"], plain.json()["min_reliability"]) == (True, 0)
    read = client.get(f"{API}/tables/{table.pk}/").json()
    assert (read["rated"], read["min_reliability"]) == (False, 80)
    assert [seat["reliability"] for seat in read["seats"]] == [None]  # no record yet
    lobby = client.get(f"{API}/tables/").json()["results"]
    assert {(t["id"], t["rated"], t["min_reliability"]) for t in lobby} == {
        (table.pk, False, 80),
        (plain.json()["id"], True, 0),
    }


@pytest.mark.parametrize(
    "body",
    [
        {"rated": "false"},
        {"rated": 0},
        {"rated": None},
        {"min_reliability": 101},
        {"min_reliability": -1},
        {"min_reliability": "90"},
        {"min_reliability": 90.0},
        {"min_reliability": True},
        {"min_reliability": 2**40},
        {"min_reliability": None},
    ],
)
def test_a_table_refuses_a_bad_rated_or_min_reliability(body: dict[str, Any]) -> None:
    alice = make_user("alice")

    response = client_for(alice).post(f"{API}/tables/", {"seat_count": 2, **body}, format="json")

    refused = assert_error(response, 400, "invalid")
    assert set(refused["fields"]) == set(body)
    assert not Table.objects.exists()


def test_a_join_below_the_hosts_minimum_reliability_is_refused_with_403() -> None:
    alice, bob, carol, dave = (make_user(n) for n in ("alice", "bob", "carol", "dave"))
    finished = play_out(start_table(alice, bob, bots=1), timeouts={1})
    ratings.table_rate(table_id=finished.pk)  # counts the seats' turns and timeouts
    percent = selectors.reliability([bob.pk])[bob.pk].percent
    assert percent is not None and percent < 90

    made = client_for(carol).post(
        f"{API}/tables/", {"seat_count": 4, "min_reliability": 90}, format="json"
    )
    table_id = made.json()["id"]
    refused = client_for(bob).post(f"{API}/tables/{table_id}/join/", format="json")
    joined = client_for(alice).post(f"{API}/tables/{table_id}/join/", format="json")
    newcomer = client_for(dave).post(f"{API}/tables/{table_id}/join/", format="json")

    body = assert_error(refused, 403, "reliability_too_low")
    assert "90%" in body["detail"] and f"{percent}%" in body["detail"]
    assert not Seat.objects.filter(table_id=table_id, user=bob).exists()
    assert joined.status_code == 201 and newcomer.status_code == 201  # a newcomer may join
    seats = {seat["username"]: seat["reliability"] for seat in newcomer.json()["seats"]}
    assert seats == {"carol": None, "alice": 100, "dave": None}
    # The finished table's answer: each seat's player's percent, a bot's null.
    shown = client_for(dave).get(f"{API}/tables/{finished.pk}/").json()["seats"]
    assert [(seat["username"], seat["reliability"]) for seat in shown] == [
        ("alice", 100),
        ("bob", percent),
        (None, None),
    ]


def test_the_lobby_reads_every_tables_reliabilities_in_one_query(
    django_assert_max_num_queries: Any,
) -> None:
    people = [make_user(f"player{n}") for n in range(6)]
    for host, guest in zip(people[::2], people[1::2], strict=True):
        client_for(host).post(f"{API}/tables/", {"seat_count": 3}, format="json")
        table = Table.objects.filter(host=host).get()
        client_for(guest).post(f"{API}/tables/{table.pk}/join/", format="json")
    client = client_for(people[0])
    client.get(f"{API}/tables/")  # the token's first use writes its last_used_at

    with django_assert_max_num_queries(7) as captured:
        answer = client.get(f"{API}/tables/")

    assert len(answer.json()["results"]) == 3
    reads = [q["sql"] for q in captured.captured_queries if '"games_seat"' in q["sql"]]
    assert sum("SUM(" in sql.upper() for sql in reads) == 1
