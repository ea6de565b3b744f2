"""The account endpoints against a hostile client (issue 10, section 1).

Anonymous endpoints first: register and token take a body from anyone, so a
body that makes them fail costs an attacker nothing.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest
from django.contrib.auth.models import User
from rest_framework.test import APIClient

from notifications import services as notifications
from tests.games.conftest import assert_error

pytestmark = pytest.mark.django_db

Api = Callable[[User | None], APIClient]
ANONYMOUS = ["/api/v1/auth/register/", "/api/v1/auth/token/", "/api/v1/auth/password-reset/"]
ME = "/api/v1/me/"
GOOD = {"username": "dora", "email": "dora@example.com", "password": "a long enough secret"}


def post_raw(client: APIClient, path: str, raw: str, method: str = "POST") -> Any:
    return client.generic(method, path, raw, content_type="application/json")


@pytest.mark.parametrize("path", ANONYMOUS)
@pytest.mark.parametrize(
    "raw",
    [
        "[" * 100_000 + "]" * 100_000,
        '{"username": ' + "[" * 5000 + "]" * 5000 + "}",
        '{"username": ' + '{"a": ' * 5000 + "1" + "}" * 5000 + "}",
    ],
)
def test_deep_nesting_on_the_anonymous_endpoints_is_refused(path: str, raw: str) -> None:
    assert_error(post_raw(APIClient(), path, raw), 400, "json_too_deep")
    assert not User.objects.exists()


@pytest.mark.parametrize("path", ANONYMOUS)
def test_a_lone_surrogate_on_the_anonymous_endpoints_is_refused(path: str) -> None:
    raw = '{"username": "\\ud800", "email": "a@example.com", "password": "x\\udc00yz"}'

    assert_error(post_raw(APIClient(), path, raw), 400, "invalid_text")
    assert not User.objects.exists()


def test_deep_nesting_on_patch_me_is_refused(alice: User, api: Api) -> None:
    raw = '{"notifications": ' + "[" * 5000 + "]" * 5000 + "}"

    assert_error(post_raw(api(alice), ME, raw, "PATCH"), 400, "json_too_deep")


@pytest.mark.parametrize(
    ("field", "value"),
    [
        ("email", "a" * 250 + "@example.com"),  # 262 characters: past the column's 254
        ("username", "u" * 151),
        ("password", "p" * 129),
        ("password", "short"),
        ("email", 5),
        ("username", 12345),
        ("password", ["a long enough secret"]),
        ("email", "dora@example.com\u0000"),
    ],
)
def test_register_refuses_a_field_past_its_column_or_of_the_wrong_type(
    field: str, value: Any
) -> None:
    response = APIClient().post("/api/v1/auth/register/", {**GOOD, field: value}, format="json")

    body = assert_error(response, 400, "invalid")
    assert field in body["fields"]
    assert not User.objects.exists()


@pytest.mark.parametrize("email", ["a" * 250 + "@example.com", 7, None, "x\u0000@example.com"])
def test_patch_me_refuses_a_bad_address(alice: User, api: Api, email: Any) -> None:
    response = api(alice).patch(ME, {"email": email}, format="json")

    body = assert_error(response, 400, "invalid")
    assert "email" in body["fields"]
    alice.refresh_from_db()
    assert alice.email == "alice@example.com"


def test_a_nested_field_error_has_the_served_error_shape(alice: User, api: Api) -> None:
    response = api(alice).patch(ME, {"notifications": {"your_turn": "maybe"}}, format="json")

    body = assert_error(response, 400, "invalid")
    assert list(body["fields"]) == ["notifications.your_turn"]
    messages = body["fields"]["notifications.your_turn"]
    assert isinstance(messages, list) and all(isinstance(m, str) for m in messages)
    assert notifications.preferences_get(alice)["your_turn"] is True


@pytest.mark.parametrize("value", [0, 1, "true", "yes", None])
def test_a_preference_switch_takes_a_json_boolean_only(alice: User, api: Api, value: Any) -> None:
    response = api(alice).patch(ME, {"notifications": {"reminder": value}}, format="json")

    assert_error(response, 400, "invalid")
    assert notifications.preferences_get(alice)["reminder"] is True


def test_an_unknown_preference_is_an_unknown_field(alice: User, api: Api) -> None:
    response = api(alice).patch(
        ME, {"notifications": {"shouting": True, "your_turn": False}}, format="json"
    )

    body = assert_error(response, 400, "unknown_field")
    assert list(body["fields"]) == ["notifications.shouting"]
    assert notifications.preferences_get(alice)["your_turn"] is True


@pytest.mark.parametrize("value", [5, "all", [], None])
def test_preferences_that_are_not_an_object_are_refused(alice: User, api: Api, value: Any) -> None:
    response = api(alice).patch(ME, {"notifications": value}, format="json")

    body = assert_error(response, 400, "invalid")
    assert list(body["fields"]) == ["notifications"]


@pytest.mark.parametrize("raw", ["null", "[]", '"email"', "3"])
def test_patch_me_with_a_body_that_is_not_an_object_is_refused(
    alice: User, api: Api, raw: str
) -> None:
    assert_error(post_raw(api(alice), ME, raw, "PATCH"), 400, "invalid")


def test_many_unknown_keys_on_register_get_a_short_answer() -> None:
    body = {**GOOD, **{f"extra{i}": i for i in range(20_000)}}

    response = APIClient().post("/api/v1/auth/register/", body, format="json")

    error = assert_error(response, 400, "unknown_field")
    assert len(error["fields"]) == 5 and "19995 more" in error["detail"]
    assert len(response.content) < 2000
