"""The tables API against a hostile client: every bad input is a 4xx in the one shape.

Each case of issue 10, section 1, as far as it reaches the tables API (the
account endpoints have theirs in ``tests/accounts/test_hostile.py``). Every
test also checks that the refused request changed nothing. They run on
SQLite and on PostgreSQL (``DATABASE_URL``), since each database failed
differently: SQLite on a 20-digit id, PostgreSQL on an over-long string.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

import pytest
from django.contrib.auth.models import User
from django.test import override_settings
from rest_framework.test import APIClient

from games.apis.parsers import MAX_DEPTH
from games.models import Move, Seat, Table
from tests.games.conftest import action_body, assert_error, started_table

pytestmark = pytest.mark.django_db

Api = Callable[[User | None], APIClient]
TABLES = "/api/v1/tables/"
HUGE = "99999999999999999999"  # 20 digits: past any 64-bit integer


def post_raw(client: APIClient, path: str, raw: str | bytes, **headers: str) -> Any:
    return client.generic("POST", path, raw, content_type="application/json", **headers)


# ----------------------------------------------------------------------------
# Nesting, text the database cannot store, numbers past the columns


def test_a_hundred_thousand_brackets_are_refused_not_a_recursion_error(
    alice: User, api: Api
) -> None:
    raw = "[" * 100_000 + "]" * 100_000

    assert_error(post_raw(api(alice), TABLES, raw), 400, "json_too_deep")
    assert not Table.objects.exists()


def test_five_thousand_levels_inside_one_field_are_refused(alice: User, api: Api) -> None:
    raw = '{"seat_count": ' + "[" * 5000 + "]" * 5000 + "}"

    assert_error(post_raw(api(alice), TABLES, raw), 400, "json_too_deep")
    assert not Table.objects.exists()


def test_nesting_up_to_the_limit_parses_and_one_more_level_does_not(
    alice: User, bob: User, api: Api
) -> None:
    table = started_table(alice, bob)
    path = f"{TABLES}{table.pk}/actions/"
    # An object holding lists: MAX_DEPTH levels in all is a (refused) body...
    within = '{"type": ' + "[" * (MAX_DEPTH - 1) + "]" * (MAX_DEPTH - 1) + "}"
    assert_error(post_raw(api(bob), path, within), 400, "invalid")
    # ...one more is not parsed at all.
    beyond = '{"type": ' + "[" * MAX_DEPTH + "]" * MAX_DEPTH + "}"
    assert_error(post_raw(api(bob), path, beyond), 400, "json_too_deep")
    assert Move.objects.filter(table=table).count() == 1


@pytest.mark.parametrize(
    "raw",
    [
        '{"type": "\\ud800"}',  # a lone high surrogate, escaped as JSON allows
        '{"type": "draw", "card": "\\udfff"}',  # a lone low one
        '{"\\ud800": "draw"}',  # in a key
    ],
)
def test_a_lone_surrogate_is_refused_before_anything_echoes_it(
    alice: User, bob: User, api: Api, raw: str
) -> None:
    table = started_table(alice, bob)

    response = post_raw(api(bob), f"{TABLES}{table.pk}/actions/", raw)

    assert_error(response, 400, "invalid_text")
    assert Move.objects.filter(table=table).count() == 1


def test_bytes_that_are_not_utf8_are_malformed_json(alice: User, api: Api) -> None:
    response = post_raw(api(alice), TABLES, b'{"scoring": "\xed\xa0\x80"}')

    assert_error(response, 400, "malformed_json")
    assert not Table.objects.exists()


@pytest.mark.parametrize("raw", ['{"seat_count": NaN}', '{"seat_count": Infinity}'])
def test_numbers_json_does_not_have_are_malformed_json(alice: User, api: Api, raw: str) -> None:
    assert_error(post_raw(api(alice), TABLES, raw), 400, "malformed_json")


def test_an_integer_of_five_thousand_digits_is_malformed_json(alice: User, api: Api) -> None:
    raw = '{"seat_count": ' + "9" * 5000 + "}"

    assert_error(post_raw(api(alice), TABLES, raw), 400, "malformed_json")


@pytest.mark.parametrize("param", ["offset", "limit"])
def test_a_page_past_any_integer_is_invalid_not_a_database_error(
    alice: User, api: Api, param: str
) -> None:
    body = assert_error(api(alice).get(f"{TABLES}?{param}={HUGE}"), 400, "invalid")
    assert param in body["fields"]


def test_a_log_position_past_any_integer_is_invalid(alice: User, bob: User, api: Api) -> None:
    table = started_table(alice, bob)

    body = assert_error(api(alice).get(f"{TABLES}{table.pk}/log/?after={HUGE}"), 400, "invalid")
    assert "after" in body["fields"]


#: Query text that is not its parameter's type written out. DRF's own fields took most of
#: it (as 0, 10, 1, 5, 3, True); 1e2 and 0x10 they refused, and 5,000 digits must be refused
#: before Python's int() would raise on them.
LOOSE_QUERIES = [
    "after=0.0",  # schemathesis's fifteen-minute run found this one accepted
    "after=" + "9" * 5000,
    "after=1e2",
    "after=%2B1",
    "after=%205",
    "after=%D9%A3",  # an Arabic-Indic three
    "limit=10.0",
    "offset=0x10",
    "mine=1",
    "mine=True",
    "open=yes",
]


@pytest.mark.parametrize("query", LOOSE_QUERIES)
def test_a_query_parameter_not_written_as_its_type_is_refused(
    alice: User, bob: User, api: Api, query: str
) -> None:
    """docs/api.md, "Conventions": an integer in digits, a boolean ``true`` or ``false``."""
    table = started_table(alice, bob)
    path = f"{TABLES}{table.pk}/log/" if query.startswith("after=") else TABLES
    body = assert_error(api(alice).get(f"{path}?{query}"), 400, "invalid")
    assert query.split("=")[0] in body["fields"]


def test_query_parameters_written_as_their_types_are_taken(
    alice: User, bob: User, api: Api
) -> None:
    table = started_table(alice, bob)
    assert api(alice).get(f"{TABLES}{table.pk}/log/?after=0").status_code == 200
    for query in ("mine=true", "mine=false&open=false", "limit=007&offset=0"):
        assert api(alice).get(f"{TABLES}?{query}").status_code == 200, query


def test_an_expected_seq_past_any_integer_is_invalid(alice: User, bob: User, api: Api) -> None:
    table = started_table(alice, bob)
    raw = '{"type": "draw", "expected_seq": ' + HUGE + "}"

    body = assert_error(post_raw(api(bob), f"{TABLES}{table.pk}/actions/", raw), 400, "invalid")
    assert "expected_seq" in body["fields"]
    assert Move.objects.filter(table=table).count() == 1


@pytest.mark.parametrize(
    "header",
    [
        "",
        "short",
        "x" * 65,
        "not an id at all",
        "a" * 20 + "\u00e9",
        "a" * 20 + "\x00",
        "a" * 20 + "\n",
    ],
)
def test_a_socket_header_that_names_no_socket_is_invalid(
    alice: User, bob: User, api: Api, header: str
) -> None:
    table = started_table(alice, bob)
    mover = alice if table.to_act == 0 else bob
    raw = json.dumps(action_body(api(mover).get(f"{TABLES}{table.pk}/view/").json()))

    response = post_raw(
        api(mover), f"{TABLES}{table.pk}/actions/", raw, HTTP_X_GAMENOOK_SOCKET=header
    )

    assert_error(response, 400, "invalid_socket")
    assert Table.objects.get(pk=table.pk).seq == table.seq
    assert Move.objects.filter(table=table).count() == 1


def test_a_socket_header_of_no_open_socket_changes_nothing_of_the_action(
    alice: User, bob: User, api: Api
) -> None:
    table = started_table(alice, bob)
    mover = alice if table.to_act == 0 else bob
    raw = json.dumps(action_body(api(mover).get(f"{TABLES}{table.pk}/view/").json()))

    response = post_raw(
        api(mover), f"{TABLES}{table.pk}/actions/", raw, HTTP_X_GAMENOOK_SOCKET="A" * 22
    )

    assert response.status_code == 201, response.content
    assert Table.objects.get(pk=table.pk).seq == table.seq + 1


@pytest.mark.parametrize("table_id", [HUGE, "9223372036854775808", "1" * 40])
def test_a_table_id_past_any_row_is_404_on_every_endpoint(
    alice: User, api: Api, table_id: str
) -> None:
    client = api(alice)
    for what in ("", "view/", "log/", "record/"):
        assert_error(client.get(f"{TABLES}{table_id}/{what}"), 404, "not_found")
    for what in ("join/", "bots/", "leave/", "start/", "actions/", "concede/"):
        body = {"type": "draw"} if what == "actions/" else {}
        response = client.post(f"{TABLES}{table_id}/{what}", body, format="json")
        assert_error(response, 404, "not_found")


def test_the_largest_row_id_is_a_plain_404(alice: User, api: Api) -> None:
    assert_error(api(alice).get(f"{TABLES}9223372036854775807/"), 404, "not_found")
    response = api(alice).post(f"{TABLES}9223372036854775807/join/", {}, format="json")
    assert_error(response, 404, "not_found")


# ----------------------------------------------------------------------------
# Size, CSRF, URL, method, throttle: each its own code, the same shape


@override_settings(DATA_UPLOAD_MAX_MEMORY_SIZE=1000)
@pytest.mark.parametrize("idempotency", [False, True])
def test_a_body_over_the_limit_is_a_json_413(alice: User, api: Api, idempotency: bool) -> None:
    raw = json.dumps({"seat_count": 2, "padding": "x" * 2000})
    headers = {"HTTP_IDEMPOTENCY_KEY": "big"} if idempotency else {}

    assert_error(post_raw(api(alice), TABLES, raw, **headers), 413, "request_too_large")
    assert not Table.objects.exists()


def test_a_body_over_the_default_limit_is_a_json_413(alice: User, api: Api) -> None:
    raw = '{"seat_count": 2, "padding": "' + "x" * 3_000_000 + '"}'

    assert_error(post_raw(api(alice), TABLES, raw), 413, "request_too_large")
    assert not Table.objects.exists()


def test_a_session_write_without_the_csrf_token_is_csrf_failed(alice: User) -> None:
    client = APIClient(enforce_csrf_checks=True)
    client.login(username="alice", password="correct horse battery")

    response = client.post(TABLES, {"seat_count": 2}, format="json")

    body = assert_error(response, 403, "csrf_failed")
    assert "CSRF" in body["detail"]
    assert not Table.objects.exists()


def test_an_unknown_url_and_a_wrong_method_have_their_codes(alice: User, api: Api) -> None:
    assert_error(api(alice).get("/api/v1/no-such-thing/"), 404, "not_found")
    assert_error(api(alice).delete(TABLES), 405, "method_not_allowed")
    response = api(alice).put(f"{TABLES}1/actions/", {}, format="json")
    assert_error(response, 405, "method_not_allowed")


def test_writes_at_tables_over_the_rate_are_throttled(
    alice: User, bob: User, api: Api, settings: Any
) -> None:
    table = started_table(alice, bob)
    rates = {"accounts": "1000/minute", "actions": "2/minute"}
    settings.REST_FRAMEWORK = {**settings.REST_FRAMEWORK, "DEFAULT_THROTTLE_RATES": rates}
    client = api(alice)
    for _ in range(2):
        client.post(f"{TABLES}{table.pk}/actions/", {"type": "pass"}, format="json")

    response = client.post(f"{TABLES}{table.pk}/actions/", {"type": "pass"}, format="json")

    assert_error(response, 429, "throttled")
    assert int(response["Retry-After"]) > 0


# ----------------------------------------------------------------------------
# Bounded error bodies


def test_fifty_thousand_unknown_keys_get_a_short_answer(alice: User, api: Api) -> None:
    body = {"seat_count": 2, **{f"k{i:05d}": 1 for i in range(50_000)}}

    response = api(alice).post(TABLES, body, format="json")

    error = assert_error(response, 400, "unknown_field")
    assert len(response.content) < 2000, len(response.content)
    assert list(error["fields"]) == ["k00000", "k00001", "k00002", "k00003", "k00004"]
    assert "49995 more" in error["detail"]
    assert not Table.objects.exists()


def test_a_long_unknown_key_and_a_long_value_are_cut_short(alice: User, api: Api) -> None:
    long_key = api(alice).post(TABLES, {"seat_count": 2, "k" * 100_000: 1}, format="json")
    assert_error(long_key, 400, "unknown_field")
    assert len(long_key.content) < 1000

    long_value = api(alice).post(TABLES, {"seat_count": 2, "scoring": "s" * 100_000}, format="json")
    assert_error(long_value, 400, "invalid")
    assert len(long_value.content) < 1000


# ----------------------------------------------------------------------------
# Loose input: the wrong JSON type is refused, not guessed at


@pytest.mark.parametrize(
    ("field", "value"),
    [
        ("allow_watchers", 0),
        ("allow_watchers", 1),
        ("allow_watchers", "yes"),
        ("allow_watchers", "true"),
        ("allow_watchers", None),
        ("two_seat_reverse_skips", "false"),
        ("seat_count", "4"),
        ("seat_count", 4.0),
        ("seat_count", True),
        ("seat_count", None),
        ("turn_hours", "12"),
        ("turn_hours", 12.0),
        ("target", "500"),
        ("target", True),
        ("scoring", 1),
        ("timeout_policy", ["bot"]),
    ],
)
def test_table_options_of_the_wrong_type_are_refused(
    alice: User, api: Api, field: str, value: Any
) -> None:
    body = {"seat_count": 2, field: value}

    error = assert_error(api(alice).post(TABLES, body, format="json"), 400, "invalid")

    assert field in error["fields"]
    assert not Table.objects.exists()


@pytest.mark.parametrize(
    "body", [{"type": "play", "card": 5}, {"type": "draw", "expected_seq": "1"}, {"type": 1}]
)
def test_an_action_of_the_wrong_type_is_refused(
    alice: User, bob: User, api: Api, body: dict[str, Any]
) -> None:
    table = started_table(alice, bob)

    response = api(bob).post(f"{TABLES}{table.pk}/actions/", body, format="json")

    assert_error(response, 400, "invalid")
    assert Move.objects.filter(table=table).count() == 1


@pytest.mark.parametrize("card", ["\u00a0", " ", "\t"])
def test_a_card_of_white_space_is_looked_up_not_trimmed_to_blank(
    alice: User, bob: User, api: Api, card: str
) -> None:
    table = started_table(alice, bob)

    response = api(bob).post(
        f"{TABLES}{table.pk}/actions/", {"type": "play", "card": card}, format="json"
    )

    assert_error(response, 422, "card_not_in_hand")
    assert Move.objects.filter(table=table).count() == 1


@pytest.mark.parametrize("what", ["bots/", "join/", "leave/", "start/"])
def test_a_null_body_is_refused(alice: User, bob: User, api: Api, what: str) -> None:
    table = api(alice).post(TABLES, {"seat_count": 3}, format="json").json()
    client = api(bob) if what == "join/" else api(alice)

    response = post_raw(client, f"{TABLES}{table['id']}/{what}", "null")

    assert_error(response, 400, "invalid")
    assert Seat.objects.filter(table_id=table["id"]).count() == 1
    assert Table.objects.get(pk=table["id"]).status == Table.Status.LOBBY


def test_an_empty_body_still_counts_as_no_fields(alice: User, bob: User, api: Api) -> None:
    table = api(alice).post(TABLES, {"seat_count": 2}, format="json").json()

    response = api(bob).post(f"{TABLES}{table['id']}/join/")

    assert response.status_code == 201


@pytest.mark.parametrize("query", ["status=", "status=%20", "status=LOBBY", "mine=maybe"])
def test_a_bad_filter_is_refused(alice: User, api: Api, query: str) -> None:
    assert_error(api(alice).get(f"{TABLES}?{query}"), 400, "invalid")


@pytest.mark.parametrize("key", ["a\x00b", "tab\there", "k" * 256])
def test_an_idempotency_key_with_control_characters_or_too_long_is_refused(
    alice: User, api: Api, key: str
) -> None:
    response = api(alice).post(TABLES, {"seat_count": 2}, format="json", HTTP_IDEMPOTENCY_KEY=key)

    assert_error(response, 400, "invalid_idempotency_key")
    assert not Table.objects.exists()
