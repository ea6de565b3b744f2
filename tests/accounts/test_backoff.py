"""Log-in backoff on the API's token endpoint (issue 35 §6): per username and per address.

The web's log-in page counts with it (tests/web/test_limits.py has that side).
"""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from typing import Any

import pytest
import time_machine
from django.contrib.auth import authenticate
from django.test import Client
from rest_framework.test import APIClient

from accounts import services as accounts
from accounts.models import ApiToken
from tests.games.conftest import assert_error, make_user

pytestmark = pytest.mark.django_db

T0 = datetime(2030, 3, 1, 9, 0, tzinfo=UTC)
PASSWORD = "correct horse battery"
WRONG = "not the password"


def _token(client: APIClient, username: str, password: str) -> Any:
    body = {"username": username, "password": password}
    return client.post("/api/v1/auth/token/", body, format="json")


def test_the_token_endpoint_locks_a_username_after_a_few_wrong_passwords() -> None:
    alice = make_user("alice")
    with time_machine.travel(T0, tick=False) as clock:
        for _ in range(6):  # five free failures, and a sixth that takes a two-second lock
            assert_error(_token(APIClient(), "alice", WRONG), 400, "invalid_credentials")

        refused = _token(APIClient(), "alice", PASSWORD)
        body = assert_error(refused, 429, "login_locked")
        assert refused["Retry-After"] == "2"
        assert "Try again in 2 seconds" in body["detail"]
        assert not ApiToken.objects.filter(user=alice).exists()

        clock.shift(timedelta(seconds=3))
        answer = _token(APIClient(), "alice", PASSWORD)
    assert answer.status_code == 200, answer.content
    assert ApiToken.objects.filter(user=alice).count() == 1


def test_the_token_endpoint_locks_an_address_that_tries_many_usernames() -> None:
    alice = make_user("alice")
    here = APIClient(REMOTE_ADDR="203.0.113.9")
    with time_machine.travel(T0, tick=False) as clock:
        for n in range(21):
            assert_error(_token(here, f"guess{n}", WRONG), 400, "invalid_credentials")
        refused = _token(here, "alice", PASSWORD)
        assert_error(refused, 429, "login_locked")
        # Only that address waits: the player, elsewhere, does not.
        assert _token(APIClient(REMOTE_ADDR="203.0.113.10"), "alice", PASSWORD).status_code == 200
        clock.shift(timedelta(seconds=int(refused["Retry-After"]) + 1))
        assert _token(here, "alice", PASSWORD).status_code == 200
    assert ApiToken.objects.filter(user=alice).count() == 1  # one name: replaced


def test_a_forged_forwarded_for_header_does_not_make_a_new_address() -> None:
    make_user("alice")
    with time_machine.travel(T0, tick=False):
        for n in range(21):
            forged = APIClient(HTTP_X_FORWARDED_FOR=f"10.0.0.{n}")
            assert_error(_token(forged, f"guess{n}", WRONG), 400, "invalid_credentials")
        refused = _token(APIClient(HTTP_X_FORWARDED_FOR="10.9.9.9"), "alice", PASSWORD)
    assert_error(refused, 429, "login_locked")


def test_api_failures_lock_the_web_log_in_page_too() -> None:
    make_user("alice")
    browser = Client()
    with time_machine.travel(T0, tick=False):
        for _ in range(6):
            _token(APIClient(), "alice", WRONG)
        page = browser.post("/login/", {"username": "alice", "password": PASSWORD})
    assert page.status_code == 429
    assert page["Retry-After"] == "2"
    assert "_auth_user_id" not in browser.session


def test_the_lock_answers_alike_for_an_account_and_a_name_nobody_has() -> None:
    make_user("alice")
    with time_machine.travel(T0, tick=False):
        for name in ("alice", "nobody"):
            for _ in range(6):
                _token(APIClient(), name, WRONG)
        real = _token(APIClient(), "alice", WRONG)
        made_up = _token(APIClient(), "nobody", WRONG)
    assert real.status_code == made_up.status_code == 429
    assert real.json() == made_up.json()
    assert real["Retry-After"] == made_up["Retry-After"]


def test_names_differing_in_case_share_one_count() -> None:
    make_user("alice")
    with time_machine.travel(T0, tick=False):
        for name in ("ALICE", "Alice", "alice", "aLiCe", "ALIce", "alicE"):
            _token(APIClient(), name, WRONG)
        refused = _token(APIClient(), "alice", PASSWORD)
    assert_error(refused, 429, "login_locked")


def test_a_deactivated_account_counts_as_a_wrong_password() -> None:
    alice = make_user("alice")
    alice.is_active = False
    alice.save(update_fields=["is_active"])
    assert_error(_token(APIClient(), "alice", PASSWORD), 400, "invalid_credentials")


def test_an_attempt_arriving_while_one_is_checked_waits_for_its_lock(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Past the free failures an attempt takes its lock first: a burst tests one password."""
    make_user("alice")
    meanwhile: list[Any] = []

    def checked_slowly(request: Any, **credentials: Any) -> Any:
        if not meanwhile:  # a second request comes in while this password is checked
            meanwhile.append(_token(APIClient(), "alice", PASSWORD))
        return authenticate(request, **credentials)

    with time_machine.travel(T0, tick=False):
        for _ in range(5):
            _token(APIClient(), "alice", WRONG)
        monkeypatch.setattr("accounts.backoff.django_authenticate", checked_slowly)
        first = _token(APIClient(), "alice", WRONG)
    assert_error(first, 400, "invalid_credentials")
    assert_error(meanwhile[0], 429, "login_locked")


def test_the_current_password_asked_by_me_is_held_to_the_same_backoff() -> None:
    """Issue 35 §3 and §6: a stolen token must not guess the password through PATCH /me
    faster than the log-in page would let it; its failures lock the log-in too."""
    alice = make_user("alice")
    _token_row, key = accounts.token_create(user=alice, name="stolen")
    thief = APIClient()
    thief.credentials(HTTP_AUTHORIZATION=f"Token {key}")
    change = {"email": "thief@example.com"}
    with time_machine.travel(T0, tick=False) as clock:
        for _ in range(6):  # five free failures, and a sixth that takes a two-second lock
            wrong = thief.patch("/api/v1/me/", {**change, "current_password": WRONG}, format="json")
            assert_error(wrong, 400, "invalid")
        right = thief.patch("/api/v1/me/", {**change, "current_password": PASSWORD}, format="json")
        assert_error(right, 429, "login_locked")
        assert right["Retry-After"] == "2"
        assert_error(_token(APIClient(), "alice", PASSWORD), 429, "login_locked")

        clock.shift(timedelta(seconds=3))
        right = thief.patch("/api/v1/me/", {**change, "current_password": PASSWORD}, format="json")
    assert right.status_code == 200, right.content


def test_the_admin_log_in_is_held_to_the_same_backoff() -> None:
    """Issue 35 §6: the admin's log-in page was a door without the backoff."""
    root = make_user("root")
    root.is_staff = root.is_superuser = True
    root.save(update_fields=["is_staff", "is_superuser"])
    with time_machine.travel(T0, tick=False):
        for _ in range(6):  # five free failures, and a sixth that takes a two-second lock
            page = Client().post("/admin/login/", {"username": "root", "password": WRONG})
            assert page.status_code == 200 and "_auth_user_id" not in page.wsgi_request.session
        locked = Client().post("/admin/login/", {"username": "root", "password": PASSWORD})
        assert locked.status_code == 200 and "Too many failed log-ins" in locked.content.decode()
        assert "_auth_user_id" not in locked.wsgi_request.session
        # The web log-in page counts the same failures.
        web = Client().post("/login/", {"username": "root", "password": PASSWORD})
        assert web.status_code == 429
