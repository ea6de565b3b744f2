"""The web client's routes as a hostile client would send to them: 4xx or a page, never 5xx.

Every route of ``web.urls`` is sent malformed methods, fields, headers and
identifiers, as an anonymous visitor, as a player seated at the table and as
a stranger, at a table waiting for players, one in play and one over. None
may answer with a server error (Django's test client raises the view's
exception instead of answering 500, which fails the test as well). A visitor
who is not logged in may change nothing: the tables, seats and move log are
compared before and after. A player's requests are sometimes well-formed (a
draw in turn, a join), so for them only the absence of server errors is checked.
"""

from __future__ import annotations

import itertools
from typing import Any

import pytest
from django.test import Client

from games import services
from games.models import Move, Seat, Table
from tests.factories import start_table
from tests.web.conftest import NEW_TABLE_FORM, logged_in, make_user

pytestmark = pytest.mark.django_db

#: What a route's ``<int:table_id>`` accepts but names no table, some past any column's range.
TABLE_IDS = ["0", "999999", "2147483648", "9223372036854775808", "1" + "0" * 40]
ROUTES = ["act", "join", "bots", "leave", "start", "concede", "replay", "live", ""]

#: Values a form field should never be trusted with.
NASTY = [
    "",
    "-1",
    "99999999999999999999999999",
    "NaN",
    "1.5",
    "a\x00b",
    "☃" * 50,
    "x" * 5000,
    "<script>alert(1)</script>",
    "null",
]

ACT_FIELDS = ["type", "card", "color", "expected_seq", "target", "seat", "socket"]
#: The lobby's form, with the fields a real-time or a points game adds, each made nasty in turn.
NEW_TABLE = {**NEW_TABLE_FORM, "wildcards-target": "500", "move_timer": "fast"}
HEADERS: list[dict[str, str]] = [
    {"HTTP_X_GAMENOOK_LIVE": "1"},
    {"HTTP_X_GAMENOOK_SOCKET": "\x00" * 3},
    {"HTTP_X_GAMENOOK_SOCKET": "x" * 5000},
    {"HTTP_IF_NONE_MATCH": '"' + "9" * 60 + '"'},
    {"HTTP_IF_NONE_MATCH": 'W/garbage, *, ""'},
    {"HTTP_ACCEPT": "application/json"},
    {"HTTP_ACCEPT_LANGUAGE": "zz-ZZ;q=abc"},
    {"CONTENT_TYPE": "application/json"},
]


def _state() -> tuple[list[Any], list[Any], int]:
    tables = list(Table.objects.order_by("pk").values_list("pk", "seq", "status", "state"))
    seats = list(Seat.objects.order_by("pk").values_list("pk", "user_id", "left_at", "away"))
    return tables, seats, Move.objects.count()


def _bodies(fields: list[str]) -> list[dict[str, Any]]:
    bodies: list[dict[str, Any]] = [{}]
    for field, value in itertools.product(fields, NASTY):
        bodies.append({field: value})
    bodies.append({field: ["1", "2"] for field in fields})  # a field repeated
    bodies.append(dict.fromkeys(fields, "1"))
    return bodies


def _some_bodies(fields: list[str]) -> list[dict[str, Any]]:
    """Fewer than ``_bodies``: each nasty value in every field at once."""
    return [{}, *({field: value for field in fields} for value in NASTY)]


def _one_field_nasty(form: dict[str, str]) -> list[dict[str, Any]]:
    return [{**form, field: value} for field, value in itertools.product(form, NASTY)]


def _assert_no_server_error(client: Client, method: str, path: str, **extra: Any) -> None:
    response = getattr(client, method)(path, **extra)
    assert response.status_code < 500, (method, path, extra, response.status_code)


@pytest.fixture
def tables() -> dict[str, Any]:
    """A table waiting for players, one in play, one over; their host and a stranger."""
    host, other, stranger = make_user("host"), make_user("other"), make_user("stranger")
    waiting = services.table_create(host=host, seat_count=3)
    playing = start_table(host, other)
    over = start_table(host, other)
    services.table_concede(table_id=over.pk, user=other)
    return {
        "tables": [waiting, playing, over],
        "clients": [Client(), logged_in(host), logged_in(stranger)],
    }


def _send_everything(client: Client, tables: list[Table], *, every_field: bool) -> None:
    for table in tables:
        for route in ROUTES:
            path = f"/tables/{table.pk}/{route}{'/' if route else ''}"
            for method in ("get", "post", "put", "delete", "patch"):
                _assert_no_server_error(client, method, path)
            fields = ACT_FIELDS if route == "act" else ["expected_seq", "level"]
            for body in _bodies(fields) if route == "act" else _some_bodies(fields):
                _assert_no_server_error(client, "post", path, data=body)
            for headers in HEADERS if route in ("act", "live", "") else ():
                _assert_no_server_error(client, "get", path, **headers)
                _assert_no_server_error(client, "post", path, data={"type": "x"}, **headers)
            for query in ("?seq=-1", "?step=99999999999999999999", "?step=abc", "?%00=%ff"):
                _assert_no_server_error(client, "get", path + query)
    for table_id, route in itertools.product(TABLE_IDS, ROUTES):
        path = f"/tables/{table_id}/{route}{'/' if route else ''}"
        _assert_no_server_error(client, "get", path)
        _assert_no_server_error(client, "post", path, data={"type": "draw"})
    # A form otherwise valid, one field at a time nasty, reaches each field's own check.
    forms = _one_field_nasty(NEW_TABLE) if every_field else _some_bodies(list(NEW_TABLE))
    for body in forms:
        _assert_no_server_error(client, "post", "/tables/new/", data=body)
    for path in ("/", "/account/", "/signup/", "/login/", "/password-reset/", "/logout/"):
        for body in _some_bodies(["username", "email", "password", "password1", "next"]):
            _assert_no_server_error(client, "post", path, data=body)
        _assert_no_server_error(client, "get", path + "?next=%00//evil.example")


def test_no_route_of_the_web_client_answers_a_server_error_to_a_malformed_request(
    tables: dict[str, Any],
) -> None:
    anonymous, host, stranger = tables["clients"]
    before = _state()
    _send_everything(anonymous, tables["tables"], every_field=False)
    assert _state() == before
    _send_everything(stranger, tables["tables"], every_field=False)
    _send_everything(host, tables["tables"], every_field=True)
