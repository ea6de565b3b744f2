"""The lobby's bots (issue 36 §6): the host takes one off before the start, and the bots
at one table are named apart ("Bot 2 (easy)") wherever a seat is named."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest
from django.contrib.auth.models import User
from rest_framework.test import APIClient

from games import selectors, services
from games.errors import Conflict, Forbidden, NotFound
from games.models import Seat, Table
from tests.games.conftest import assert_error

pytestmark = pytest.mark.django_db

Api = Callable[[User | None], APIClient]


def bot_url(table: Table, seat: int | str) -> str:
    return f"/api/v1/tables/{table.pk}/bots/{seat}/"


def seats(table: Table) -> list[tuple[int, int | None, str]]:
    return list(
        Seat.objects.filter(table=table)
        .order_by("number")
        .values_list("number", "user", "bot_level")
    )


def lobby_with_bots(host: User, guest: User) -> Table:
    """Seats: the host, an easy bot, the guest, a hard bot, an easy bot."""
    table = services.table_create(host=host, seat_count=6)
    services.table_add_bot(table_id=table.pk, user=host, level="easy")
    services.table_join(table_id=table.pk, user=guest)
    services.table_add_bot(table_id=table.pk, user=host, level="hard")
    services.table_add_bot(table_id=table.pk, user=host, level="easy")
    return table


def test_the_bots_at_a_table_have_distinct_names_in_every_answer(
    alice: User, bob: User, api: Api
) -> None:
    table = lobby_with_bots(alice, bob)
    expected = ["alice", "Bot 1 (easy)", "bob", "Bot 2 (hard)", "Bot 3 (easy)"]
    body = api(alice).get(f"/api/v1/tables/{table.pk}/").json()
    assert [seat["name"] for seat in body["seats"]] == expected
    services.table_start(table_id=table.pk, user=alice)
    view = api(bob).get(f"/api/v1/tables/{table.pk}/view/").json()
    assert [seat["name"] for seat in view["seats"]] == expected
    listed = api(bob).get("/api/v1/tables/?mine=true").json()["results"][0]
    assert [seat["name"] for seat in listed["seats"]] == expected
    # The e-mails name the seats as the selectors do (games.selectors.seats_at).
    assert [seat.name for seat in selectors.seats_at(table.pk)] == expected
    assert [seat["name"] for seat in selectors.table_seats(table)] == expected


def test_a_moderators_replacement_keeps_the_lobby_bots_names(alice: User, bob: User) -> None:
    table = lobby_with_bots(alice, bob)
    services.table_start(table_id=table.pk, user=alice)
    services.seat_replace_with_bot(table_id=table.pk, number=2, level="easy")
    names = [seat.name for seat in selectors.seats_at(table.pk)]
    assert names == ["alice", "Bot 1 (easy)", "bob (bot)", "Bot 2 (hard)", "Bot 3 (easy)"]


def test_the_host_removes_a_bot_before_the_start_and_later_seats_move_up(
    alice: User, bob: User, api: Api
) -> None:
    table = lobby_with_bots(alice, bob)

    response = api(alice).delete(bot_url(table, 1))

    assert response.status_code == 200, response.content
    assert [(s["number"], s["name"]) for s in response.json()["seats"]] == [
        (0, "alice"),
        (1, "bob"),
        (2, "Bot 1 (hard)"),
        (3, "Bot 2 (easy)"),
    ]
    assert response.json()["open_seats"] == 2
    assert seats(table) == [
        (0, alice.pk, ""),
        (1, bob.pk, ""),
        (2, None, "hard"),
        (3, None, "easy"),
    ]


@pytest.mark.parametrize(
    ("who", "seat", "status", "code"),
    [
        ("bob", 1, 403, "not_host"),
        ("alice", 0, 409, "not_a_bot"),
        ("alice", 2, 409, "not_a_bot"),
        ("alice", 5, 404, "no_such_seat"),
        ("alice", 9223372036854775807, 404, "no_such_seat"),
    ],
)
def test_removing_a_bot_is_refused_and_changes_nothing(
    alice: User, bob: User, api: Api, who: str, seat: int, status: int, code: str
) -> None:
    table = lobby_with_bots(alice, bob)
    before = seats(table)
    user = {"alice": alice, "bob": bob}[who]
    assert_error(api(user).delete(bot_url(table, seat)), status, code)
    assert seats(table) == before


def test_removing_a_bot_is_refused_once_the_game_has_started(
    alice: User, bob: User, api: Api
) -> None:
    table = lobby_with_bots(alice, bob)
    services.table_start(table_id=table.pk, user=alice)
    before = seats(table)
    assert_error(api(alice).delete(bot_url(table, 1)), 409, "not_in_lobby")
    assert seats(table) == before


def test_removing_a_bot_refuses_a_body_a_stranger_and_an_unknown_table(
    alice: User, bob: User, api: Api
) -> None:
    table = lobby_with_bots(alice, bob)
    before = seats(table)
    assert_error(
        api(alice).delete(bot_url(table, 1), {"seat": 3}, format="json"), 400, "unknown_field"
    )
    assert api(None).delete(bot_url(table, 1)).status_code == 401
    assert_error(api(alice).delete("/api/v1/tables/999999/bots/1/"), 404, "not_found")
    assert api(alice).delete(bot_url(table, "1" * 20)).status_code == 404
    assert api(alice).delete(bot_url(table, "-1")).status_code == 404
    assert api(alice).post(bot_url(table, 1)).status_code == 405
    assert seats(table) == before


def test_the_service_refuses_as_the_api_does(alice: User, bob: User) -> None:
    table = lobby_with_bots(alice, bob)
    with pytest.raises(Forbidden):
        services.table_remove_bot(table_id=table.pk, user=bob, number=1)
    with pytest.raises(Conflict):
        services.table_remove_bot(table_id=table.pk, user=alice, number=2)
    with pytest.raises(NotFound):
        services.table_remove_bot(table_id=table.pk, user=alice, number=7)
    services.table_remove_bot(table_id=table.pk, user=alice, number=4)
    assert [number for number, _, _ in seats(table)] == [0, 1, 2, 3]


def test_the_schema_documents_removing_a_bot_and_its_refusals(client: Any) -> None:
    schema = client.get("/api/v1/schema/", HTTP_ACCEPT="application/vnd.oai.openapi+json").json()
    operation = schema["paths"]["/api/v1/tables/{table_id}/bots/{seat}/"]["delete"]
    assert {"200", "403", "404", "409"} <= set(operation["responses"])
    assert "not_a_bot" in operation["description"] and "not_host" in operation["description"]
    seat = schema["components"]["schemas"]["SeatOutput"]
    assert "name" in seat["properties"] and "name" in seat["required"]
