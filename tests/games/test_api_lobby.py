"""The lobby: list, create, join, add a bot, leave, start."""

from __future__ import annotations

from collections.abc import Callable

import pytest
from django.contrib.auth.models import User
from rest_framework.test import APIClient

from games import services
from games.models import Move, Seat, Table
from tests.games.conftest import assert_error, make_user, started_table

pytestmark = pytest.mark.django_db

Api = Callable[[User | None], APIClient]
TABLES = "/api/v1/tables/"


def url(table: Table | int, what: str = "") -> str:
    pk = table if isinstance(table, int) else table.pk
    return f"{TABLES}{pk}/{what + '/' if what else ''}"


# --- create -------------------------------------------------------------------


def test_create_opens_a_lobby_table_with_the_host_in_seat_0(alice: User, api: Api) -> None:
    options = {
        "seat_count": 3,
        "two_seat_reverse_skips": False,
        "scoring": "target",
        "target": 250,
        "turn_hours": 72,
        "timeout_policy": "leave",
        "allow_watchers": True,
    }
    response = api(alice).post(TABLES, options, format="json")

    assert response.status_code == 201
    body = response.json()
    assert {k: body[k] for k in options} == options
    assert body["status"] == "lobby"
    assert body["host"] == "alice"
    assert body["open_seats"] == 2
    assert body["seats"] == [
        {
            "number": 0,
            "name": "alice",
            "username": "alice",
            "bot_level": None,
            "bot_account": False,
            "left": False,
            "strikes": 0,
            "connected": None,
            "held_until": None,
            "away": False,
            "replaced": False,
            "autopilot": None,
            "autopilot_until": None,
            "reliability": None,
        }
    ]
    assert (body["mode"], body["move_timer"], body["move_seconds"]) == ("turn_by_turn", None, None)
    table = Table.objects.get(pk=body["id"])
    assert table.host == alice and table.seats.get().user == alice


def test_create_uses_the_defaults(alice: User, api: Api) -> None:
    body = api(alice).post(TABLES, {"seat_count": 2}, format="json").json()

    assert body["scoring"] == "single" and body["turn_hours"] == 24
    assert body["timeout_policy"] == "bot" and body["allow_watchers"] is False


@pytest.mark.parametrize(
    ("body", "code", "field"),
    [
        ({}, "invalid", "seat_count"),
        ({"seat_count": 1}, "invalid", "seat_count"),
        ({"seat_count": 11}, "invalid", "seat_count"),
        ({"seat_count": "many"}, "invalid", "seat_count"),
        ({"seat_count": 2, "target": 300}, "invalid", "target"),
        ({"seat_count": 2, "turn_hours": 1}, "invalid", "turn_hours"),
        ({"seat_count": 2, "scoring": "best"}, "invalid", "scoring"),
        ({"seat_count": 2, "timeout_policy": "kick"}, "invalid", "timeout_policy"),
        ({"seat_count": 2, "allow_watchers": "maybe"}, "invalid", "allow_watchers"),
        ({"seat_count": 2, "status": "active"}, "unknown_field", "status"),
        ({"seat_count": 2, "host": 1}, "unknown_field", "host"),
        ({"seat_count": 2, "seq": 5}, "unknown_field", "seq"),
        ({"seat_count": 2, "deadline_at": "2030-01-01T00:00:00Z"}, "unknown_field", "deadline_at"),
        ({"seat_count": 2, "state": {}}, "unknown_field", "state"),
    ],
)
def test_create_refuses_bad_or_forbidden_fields_and_creates_nothing(
    alice: User, api: Api, body: dict[str, object], code: str, field: str
) -> None:
    response = api(alice).post(TABLES, body, format="json")

    assert field in assert_error(response, 400, code)["fields"]
    assert not Table.objects.exists()


def test_create_refuses_a_body_that_is_not_an_object(alice: User, api: Api) -> None:
    assert_error(api(alice).post(TABLES, [1, 2], format="json"), 400, "invalid")
    assert not Table.objects.exists()


def test_create_needs_authentication(api: Api) -> None:
    assert_error(api(None).post(TABLES, {"seat_count": 2}, format="json"), 401, "not_authenticated")
    assert not Table.objects.exists()


# --- list and detail ------------------------------------------------------------


def test_list_filters_by_status_mine_and_open_seats(alice: User, bob: User, api: Api) -> None:
    open_lobby = services.table_create(host=alice, seat_count=3)
    services.table_join(table_id=open_lobby.pk, user=bob)
    full_lobby = services.table_create(host=bob, seat_count=2)
    services.table_add_bot(table_id=full_lobby.pk, user=bob, level="easy")
    running = started_table(bob, alice)
    others = services.table_create(host=bob, seat_count=2)

    def ids(query: str) -> set[int]:
        response = api(alice).get(TABLES + query)
        assert response.status_code == 200
        return {t["id"] for t in response.json()["results"]}

    assert ids("") == {open_lobby.pk, full_lobby.pk, running.pk, others.pk}
    assert ids("?status=active") == {running.pk}
    assert ids("?mine=true") == {open_lobby.pk, running.pk}
    assert ids("?open=true") == {open_lobby.pk, others.pk}
    # Host of a lobby with two of three seats taken: still open.
    assert ids("?mine=true&open=true") == {open_lobby.pk}
    assert ids("?status=lobby&mine=true") == {open_lobby.pk}


def test_list_paginates(alice: User, api: Api) -> None:
    for _ in range(3):
        services.table_create(host=alice, seat_count=2)

    body = api(alice).get(TABLES + "?limit=2&offset=1").json()

    assert body["count"] == 3 and len(body["results"]) == 2


@pytest.mark.parametrize("query", ["?status=nope", "?limit=0", "?offset=-1", "?mine=perhaps"])
def test_list_refuses_bad_filters(alice: User, api: Api, query: str) -> None:
    assert_error(api(alice).get(TABLES + query), 400, "invalid")


def test_detail_shows_options_and_seats_without_the_game(alice: User, bob: User, api: Api) -> None:
    table = started_table(alice, bob)

    body = api(make_user()).get(url(table)).json()

    assert body["status"] == "active" and body["seq"] == table.seq
    assert [s["username"] for s in body["seats"]] == ["alice", "bob"]
    # The table names its game; the game itself is the view's, never the table's.
    assert "state" not in body and body["game"] == "flip"
    assert body["options"] == {"scoring": "single", "target": 500, "two_seat_reverse_skips": True}


def test_detail_of_an_unknown_table_is_404(alice: User, api: Api) -> None:
    assert_error(api(alice).get(url(999999)), 404, "not_found")


# --- join, bots, leave ------------------------------------------------------------


def test_join_takes_the_next_seat(alice: User, bob: User, api: Api) -> None:
    table = services.table_create(host=alice, seat_count=2)

    response = api(bob).post(url(table, "join"))

    assert response.status_code == 201
    assert [s["username"] for s in response.json()["seats"]] == ["alice", "bob"]


def test_join_refusals(alice: User, bob: User, carol: User, api: Api) -> None:
    table = services.table_create(host=alice, seat_count=2)
    assert_error(api(alice).post(url(table, "join")), 409, "already_seated")
    api(bob).post(url(table, "join"))
    assert_error(api(carol).post(url(table, "join")), 409, "table_full")
    assert_error(api(carol).post(url(999999, "join")), 404, "not_found")
    running = started_table(alice, bob)
    assert_error(api(carol).post(url(running, "join")), 409, "not_in_lobby")
    assert_error(
        api(carol).post(url(table, "join"), {"seat": 1}, format="json"), 400, "unknown_field"
    )
    assert Seat.objects.filter(user=carol).count() == 0


def test_host_adds_a_bot_of_a_level(alice: User, api: Api) -> None:
    table = services.table_create(host=alice, seat_count=3)

    response = api(alice).post(url(table, "bots"), {"level": "hard"}, format="json")

    assert response.status_code == 201
    assert response.json()["seats"][1] == {
        "number": 1,
        "name": "Bot 1 (hard)",
        "username": None,
        "bot_level": "hard",
        "bot_account": False,
        "left": False,
        "strikes": 0,
        "connected": None,
        "held_until": None,
        "away": False,
        "replaced": False,
        "autopilot": None,
        "autopilot_until": None,
        "reliability": None,
    }


def test_only_the_host_adds_bots(alice: User, bob: User, carol: User, api: Api) -> None:
    table = services.table_create(host=alice, seat_count=3)
    services.table_join(table_id=table.pk, user=bob)

    assert_error(
        api(bob).post(url(table, "bots"), {"level": "easy"}, format="json"), 403, "not_host"
    )
    assert_error(
        api(carol).post(url(table, "bots"), {"level": "easy"}, format="json"), 403, "not_host"
    )
    assert table.seats.count() == 2


@pytest.mark.parametrize(
    ("body", "code"),
    [
        ({"level": "godlike"}, "invalid"),
        ({"level": 3}, "invalid"),
        # A bot level for a human seat (or any seat) is not the client's to choose.
        ({"level": "easy", "seat": 0}, "unknown_field"),
        ({"level": "easy", "user": 1}, "unknown_field"),
    ],
)
def test_add_bot_refuses_bad_bodies(
    alice: User, api: Api, body: dict[str, object], code: str
) -> None:
    table = services.table_create(host=alice, seat_count=3)

    assert_error(api(alice).post(url(table, "bots"), body, format="json"), 400, code)
    assert list(table.seats.values_list("bot_level", flat=True)) == [""]


def test_add_bot_to_a_full_table_is_refused(alice: User, api: Api) -> None:
    table = services.table_create(host=alice, seat_count=2)
    api(alice).post(url(table, "bots"), {"level": "easy"}, format="json")

    assert_error(api(alice).post(url(table, "bots"), {}, format="json"), 409, "table_full")


def test_leave_gives_up_a_lobby_seat_and_seats_move_up(
    alice: User, bob: User, carol: User, api: Api
) -> None:
    table = services.table_create(host=alice, seat_count=3)
    services.table_join(table_id=table.pk, user=bob)
    services.table_join(table_id=table.pk, user=carol)

    response = api(bob).post(url(table, "leave"))

    assert response.status_code == 200
    assert [(s["number"], s["username"]) for s in response.json()["seats"]] == [
        (0, "alice"),
        (1, "carol"),
    ]


def test_leave_refusals_and_the_host_closing_the_lobby(
    alice: User, bob: User, carol: User, api: Api
) -> None:
    table = services.table_create(host=alice, seat_count=3)
    services.table_join(table_id=table.pk, user=bob)
    assert_error(api(carol).post(url(table, "leave")), 403, "not_seated")

    response = api(alice).post(url(table, "leave"))

    assert response.status_code == 200 and response.json()["status"] == "aborted"
    assert_error(api(bob).post(url(table, "leave")), 409, "not_in_lobby")


def test_leave_a_running_game_is_refused_use_concede(alice: User, bob: User, api: Api) -> None:
    table = started_table(alice, bob)

    assert_error(api(bob).post(url(table, "leave")), 409, "not_in_lobby")


# --- start ------------------------------------------------------------------------


def test_start_deals_and_answers_the_hosts_view(alice: User, bob: User, api: Api) -> None:
    table = services.table_create(host=alice, seat_count=3)
    services.table_join(table_id=table.pk, user=bob)

    response = api(alice).post(url(table, "start"))

    assert response.status_code == 200
    body = response.json()
    assert body["seq"] == 1
    assert body["view"]["status"] == "active"
    assert body["view"]["game"]["seat"] == 0
    assert len(body["view"]["game"]["hand"]) == 7
    assert response["ETag"] == f'"{body["view"]["seq"]}"'
    # Two seats filled of three: the game is dealt for the two.
    assert body["view"]["game"]["seats"] == 2
    assert Move.objects.filter(table=table).count() == 1


def test_start_hands_the_turn_to_bots_which_play_at_once(alice: User, api: Api) -> None:
    table = services.table_create(host=alice, seat_count=3)
    for _ in range(2):
        services.table_add_bot(table_id=table.pk, user=alice, level="easy")

    body = api(alice).post(url(table, "start")).json()

    game = body["view"]["game"]
    assert game["over"] or game["to_act"] == 0
    sources = set(Move.objects.filter(table=table).values_list("source", flat=True))
    if body["view"]["seq"] > 1:
        assert sources == {"player", "bot"}


def test_start_refusals(alice: User, bob: User, api: Api) -> None:
    table = services.table_create(host=alice, seat_count=2)
    assert_error(api(alice).post(url(table, "start")), 409, "not_enough_players")
    services.table_join(table_id=table.pk, user=bob)
    assert_error(api(bob).post(url(table, "start")), 403, "not_host")
    assert_error(api(make_user()).post(url(table, "start")), 403, "not_host")
    assert_error(
        api(alice).post(url(table, "start"), {"seed": "x"}, format="json"), 400, "unknown_field"
    )
    table.refresh_from_db()
    assert table.status == "lobby" and table.state is None
    api(alice).post(url(table, "start"))
    assert_error(api(alice).post(url(table, "start")), 409, "not_in_lobby")
    assert_error(api(alice).post(url(999999, "start")), 404, "not_found")
