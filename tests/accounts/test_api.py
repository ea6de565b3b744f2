"""Accounts: register, obtain a token, /me; token and session authentication."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest
from django.contrib.auth.models import User
from rest_framework.test import APIClient

from notifications import services as notifications
from tests.games.conftest import assert_error

REGISTER = "/api/v1/auth/register/"
TOKEN = "/api/v1/auth/token/"
ME = "/api/v1/me/"

pytestmark = pytest.mark.django_db

GOOD = {"username": "dora", "email": "dora@example.com", "password": "a long enough secret"}


def test_register_creates_an_active_user_without_exposing_the_password() -> None:
    response = APIClient().post(REGISTER, GOOD, format="json")

    assert response.status_code == 201
    body = response.json()
    # The address is not the account's until confirmed: it waits (issue 35 §5).
    assert body == {
        "id": body["id"],
        "username": "dora",
        "email": None,
        "pending_email": "dora@example.com",
        "email_verified": False,
    }
    user = User.objects.get(username="dora")
    assert user.is_active and user.check_password(GOOD["password"])
    assert not user.is_staff
    assert user.email == "" and user.pending_email.email == "dora@example.com"


def test_register_refuses_a_taken_username_whatever_its_case(alice: User) -> None:
    response = APIClient().post(REGISTER, {**GOOD, "username": "ALICE"}, format="json")

    body = assert_error(response, 400, "invalid")
    assert "username" in body["fields"]
    assert User.objects.filter(username__iexact="alice").count() == 1


def test_register_refuses_a_weak_password() -> None:
    response = APIClient().post(REGISTER, {**GOOD, "password": "123"}, format="json")

    body = assert_error(response, 400, "invalid")
    assert body["fields"]["password"]
    assert not User.objects.filter(username="dora").exists()


@pytest.mark.parametrize(
    ("change", "field"),
    [
        ({"email": "not-an-address"}, "email"),
        ({"username": "no spaces allowed"}, "username"),
        ({"password": None}, "password"),
        ({"username": ["a", "list"]}, "username"),
    ],
)
def test_register_refuses_invalid_fields(change: dict[str, object], field: str) -> None:
    response = APIClient().post(REGISTER, {**GOOD, **change}, format="json")

    body = assert_error(response, 400, "invalid")
    assert field in body["fields"]
    assert not User.objects.exists()


@pytest.mark.parametrize("extra", ["is_staff", "is_superuser", "id"])
def test_register_refuses_fields_a_client_may_not_set(extra: str) -> None:
    response = APIClient().post(REGISTER, {**GOOD, extra: True}, format="json")

    body = assert_error(response, 400, "unknown_field")
    assert extra in body["fields"]
    assert not User.objects.exists()


def test_token_is_issued_for_the_right_password_and_authenticates(alice: User) -> None:
    response = APIClient().post(
        TOKEN, {"username": "alice", "password": "correct horse battery"}, format="json"
    )

    assert response.status_code == 200
    body = response.json()
    token = body["token"]
    assert body["name"] == "default" and body["prefix"] == token[:8]
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Token {token}")
    me = client.get(ME)
    assert me.status_code == 200
    assert me.json() == {
        "id": alice.pk,
        "username": "alice",
        "email": "alice@example.com",
        "email_verified": True,
        "pending_email": None,
        "email_status": "Game e-mail goes to alice@example.com.",
        "notifications": notifications.PREFERENCES_DEFAULT,
        "play": {"forced_moves": False},
        "away": {
            "state": "off",
            "starts_at": None,
            "ends_at": None,
            "level": None,
            "autopilot_until": None,
            "days_used": 0.0,
            "days_left": 30.0,
            "allowance_days": 30,
        },
        "bot_account": False,
        "owner": None,
    }
    # Asking again under the same name replaces the token: the old one stops working.
    again = APIClient().post(
        TOKEN, {"username": "alice", "password": "correct horse battery"}, format="json"
    )
    assert again.json()["token"] != token
    assert_error(client.get(ME), 401, "authentication_failed")


def test_token_is_refused_for_a_wrong_password_or_an_inactive_user(alice: User) -> None:
    wrong = APIClient().post(TOKEN, {"username": "alice", "password": "nope"}, format="json")
    assert_error(wrong, 400, "invalid_credentials")

    alice.is_active = False
    alice.save()
    inactive = APIClient().post(
        TOKEN, {"username": "alice", "password": "correct horse battery"}, format="json"
    )
    assert_error(inactive, 400, "invalid_credentials")


def test_session_authentication_works_for_me(alice: User) -> None:
    client = APIClient()
    client.login(username="alice", password="correct horse battery")

    assert client.get(ME).json()["username"] == "alice"


def test_me_needs_authentication() -> None:
    response = APIClient().get(ME)

    assert_error(response, 401, "not_authenticated")
    assert response["WWW-Authenticate"].startswith("Token")


def test_a_bad_token_is_refused_with_401() -> None:
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION="Token not-a-real-token")

    assert_error(client.get(ME), 401, "authentication_failed")


def test_patch_me_asks_for_a_new_email_which_waits_for_confirmation(
    alice: User, api: Callable[[User], APIClient]
) -> None:
    body = {"email": "new@example.com", "current_password": "correct horse battery"}
    response = api(alice).patch(ME, body, format="json")

    assert response.status_code == 200
    assert response.json()["email"] == "alice@example.com"
    assert response.json()["pending_email"] == "new@example.com"
    alice.refresh_from_db()
    assert alice.email == "alice@example.com"  # until new@example.com is confirmed


@pytest.mark.parametrize(
    ("body", "status", "code"),
    [
        ({"email": "broken"}, 400, "invalid"),
        ({"username": "mallory"}, 400, "unknown_field"),
        ({"is_staff": True}, 400, "unknown_field"),
        ({"id": 99}, 400, "unknown_field"),
    ],
)
def test_patch_me_changes_nothing_it_may_not(
    alice: User, api: Callable[[User], APIClient], body: dict[str, object], status: int, code: str
) -> None:
    response = api(alice).patch(ME, body, format="json")

    assert_error(response, status, code)
    alice.refresh_from_db()
    assert (alice.username, alice.email, alice.is_staff) == ("alice", "alice@example.com", False)


def test_account_endpoints_are_rate_limited(settings: Any) -> None:
    rates = {"accounts": "2/minute", "actions": "1000/minute"}
    settings.REST_FRAMEWORK = {**settings.REST_FRAMEWORK, "DEFAULT_THROTTLE_RATES": rates}
    client = APIClient()
    for _ in range(2):
        client.post(TOKEN, {"username": "x", "password": "y"}, format="json")

    response = client.post(TOKEN, {"username": "x", "password": "y"}, format="json")

    assert_error(response, 429, "throttled")
    assert int(response["Retry-After"]) > 0
