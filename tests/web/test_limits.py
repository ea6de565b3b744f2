"""The web client's doors have the API's limits (issue 35 §6 and §8).

Writes count in the API's rate-limit budgets, the very same counters: spent
on one side, the other answers 429. The log-in page backs off per username
and per address, with the API's token endpoint. The caps on tables show
their sentence in the lobby.
"""

from __future__ import annotations

import re
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest
import time_machine
from django.contrib.auth.models import User
from django.test import Client
from rest_framework.test import APIClient

from games import services
from games.models import Table
from tests.games.conftest import client_for

from .conftest import NEW_TABLE_FORM, PASSWORD, logged_in, make_user

pytestmark = pytest.mark.django_db

T0 = datetime(2030, 3, 1, 9, 0, tzinfo=UTC)
LIVE: dict[str, Any] = {"HTTP_X_GAMENOOK_LIVE": "1"}
WRONG = "not the password"


def _rates(settings: Any, **rates: str) -> None:
    settings.REST_FRAMEWORK = {
        **settings.REST_FRAMEWORK,
        "DEFAULT_THROTTLE_RATES": {"actions": "240/minute", "accounts": "60/minute", **rates},
    }


def _log_in(client: Client, username: str, password: str) -> Any:
    return client.post("/login/", {"username": username, "password": password})


def _logged_in_as(client: Client) -> int | None:
    value = client.session.get("_auth_user_id")
    return None if value is None else int(value)


def _lock_sentence(response: Any) -> str:
    found = re.search(r"Too many failed log-ins[^<]*", response.content.decode())
    assert found is not None, response.content.decode()[:2000]
    return found.group(0)


# ----------------------------------------------------------------------------
# Rate limits shared with the API


def test_tables_opened_on_the_api_spend_the_web_lobbys_budget(settings: Any) -> None:
    _rates(settings, actions="3/minute")
    alice = make_user("alice")
    api = client_for(alice)
    for _ in range(3):
        assert api.post("/api/v1/tables/", {"seat_count": 2}, format="json").status_code == 201
    browser = logged_in(alice)

    refused = browser.post("/tables/new/", NEW_TABLE_FORM)

    assert refused.status_code == 429
    wait = int(refused["Retry-After"])
    assert 1 <= wait <= 60
    assert f"Try again in {wait} second" in refused.content.decode()
    assert Table.objects.filter(host=alice).count() == 3
    # Reading a page spends nothing and is never refused.
    assert browser.get("/").status_code == 200


def test_tables_opened_on_the_web_spend_the_apis_budget(settings: Any) -> None:
    _rates(settings, actions="3/minute")
    bob = make_user("bob")
    browser = logged_in(bob)
    for _ in range(3):
        assert browser.post("/tables/new/", NEW_TABLE_FORM).status_code == 302

    refused = client_for(bob).post("/api/v1/tables/", {"seat_count": 2}, format="json")

    assert refused.status_code == 429
    assert refused.json()["code"] == "throttled"
    assert "Retry-After" in refused
    assert Table.objects.filter(host=bob).count() == 3


def test_the_table_pages_script_gets_the_refusal_as_json(settings: Any) -> None:
    _rates(settings, actions="2/minute")
    alice, bob = make_user("alice"), make_user("bob")
    table = services.table_create(host=alice, seat_count=3)
    browser = logged_in(bob)
    assert browser.post(f"/tables/{table.pk}/join/", **LIVE).status_code == 200
    assert browser.post(f"/tables/{table.pk}/leave/", **LIVE).status_code == 200

    refused = browser.post(f"/tables/{table.pk}/join/", **LIVE)

    assert refused.status_code == 429
    assert int(refused["Retry-After"]) >= 1
    body = refused.json()
    assert body["ok"] is False
    assert body["error"]["code"] == "throttled"
    assert set(body["error"]) == {"code", "detail", "fields"}
    assert "Try again in" in body["error"]["detail"]
    assert not table.seats.filter(user=bob).exists()


def test_sign_ups_on_the_api_spend_the_web_sign_up_pages_budget(settings: Any) -> None:
    _rates(settings, accounts="3/minute")
    api = APIClient()
    for n in range(3):
        body = {"username": f"api{n}", "email": f"api{n}@example.com", "password": PASSWORD}
        assert api.post("/api/v1/auth/register/", body, format="json").status_code == 201
    fields = {"username": "webby", "email": "webby@example.com"}

    refused = Client().post(
        "/signup/", {**fields, "password": PASSWORD, "password_again": PASSWORD}
    )

    assert refused.status_code == 429
    assert "Try again in" in refused.content.decode()
    assert not User.objects.filter(username="webby").exists()


def test_sign_ups_on_the_web_spend_the_apis_budget(settings: Any) -> None:
    _rates(settings, accounts="3/minute")
    address: dict[str, Any] = {"REMOTE_ADDR": "192.0.2.7"}
    for n in range(3):
        fields = {"username": f"web{n}", "email": f"web{n}@example.com"}
        answer = Client(**address).post(
            "/signup/", {**fields, "password": PASSWORD, "password_again": PASSWORD}
        )
        assert answer.status_code == 302
    body = {"username": "apiuser", "email": "apiuser@example.com", "password": PASSWORD}

    refused = APIClient(**address).post("/api/v1/auth/register/", body, format="json")

    assert refused.status_code == 429
    assert refused.json()["code"] == "throttled"
    assert not User.objects.filter(username="apiuser").exists()
    # Another address has its own budget.
    other = APIClient(REMOTE_ADDR="192.0.2.8").post("/api/v1/auth/register/", body, format="json")
    assert other.status_code == 201


# ----------------------------------------------------------------------------
# Log-in backoff


def test_the_log_in_page_locks_a_username_after_a_few_wrong_passwords() -> None:
    alice = make_user("alice")
    browser = Client()
    with time_machine.travel(T0, tick=False) as clock:
        for _ in range(6):  # five free failures, and a sixth that takes a two-second lock
            answer = _log_in(browser, "alice", WRONG)
            assert answer.status_code == 200
            assert "correct username and password" in answer.content.decode()

        refused = _log_in(browser, "alice", PASSWORD)
        assert refused.status_code == 429
        assert refused["Retry-After"] == "2"
        assert "Try again in 2 seconds" in _lock_sentence(refused)
        assert _logged_in_as(browser) is None

        clock.shift(timedelta(seconds=3))
        assert _log_in(browser, "alice", PASSWORD).status_code == 302
        assert _logged_in_as(browser) == alice.pk


def test_the_lock_doubles_and_never_passes_its_bound() -> None:
    make_user("alice")
    waits = []
    with time_machine.travel(T0, tick=False) as clock:
        for _ in range(5):
            _log_in(Client(), "alice", WRONG)
        for _ in range(12):
            assert _log_in(Client(), "alice", WRONG).status_code == 200
            refused = _log_in(Client(), "alice", PASSWORD)
            assert refused.status_code == 429
            waits.append(int(refused["Retry-After"]))
            clock.shift(timedelta(seconds=waits[-1]))
    assert waits == [2, 4, 8, 16, 32, 64, 128, 256, 300, 300, 300, 300]


def test_a_success_clears_the_usernames_count() -> None:
    alice = make_user("alice")
    guesser: dict[str, Any] = {"REMOTE_ADDR": "198.51.100.20"}
    with time_machine.travel(T0, tick=False):
        for _ in range(5):
            assert _log_in(Client(**guesser), "alice", WRONG).status_code == 200
        assert _log_in(Client(REMOTE_ADDR="198.51.100.21"), "alice", PASSWORD).status_code == 302
        # Counted from zero again: five more free failures, none refused.
        for _ in range(5):
            assert _log_in(Client(**guesser), "alice", WRONG).status_code == 200
        browser = Client(REMOTE_ADDR="198.51.100.22")
        assert _log_in(browser, "alice", PASSWORD).status_code == 302
        assert _logged_in_as(browser) == alice.pk


def test_someone_guessing_elsewhere_does_not_keep_a_player_out_at_home() -> None:
    alice = make_user("alice")
    home: dict[str, Any] = {"REMOTE_ADDR": "198.51.100.30"}
    with time_machine.travel(T0, tick=False):
        assert _log_in(Client(**home), "alice", PASSWORD).status_code == 302
        for _ in range(7):
            _log_in(Client(REMOTE_ADDR="203.0.113.66"), "alice", WRONG)
        # The username is locked for a new address...
        assert _log_in(Client(REMOTE_ADDR="198.51.100.31"), "alice", PASSWORD).status_code == 429
        # ...not for the one alice logs in from.
        browser = Client(**home)
        assert _log_in(browser, "alice", PASSWORD).status_code == 302
        assert _logged_in_as(browser) == alice.pk


def test_the_log_in_page_locks_an_address_that_tries_many_usernames() -> None:
    alice = make_user("alice")
    here, elsewhere = Client(REMOTE_ADDR="198.51.100.4"), Client(REMOTE_ADDR="198.51.100.5")
    with time_machine.travel(T0, tick=False) as clock:
        # One wrong password each for 21 names (no name is locked): the address is.
        for n in range(21):
            assert _log_in(here, f"guess{n}", WRONG).status_code == 200

        refused = _log_in(here, "alice", PASSWORD)
        assert refused.status_code == 429
        assert _logged_in_as(here) is None
        # The player logs in from their own address meanwhile.
        assert _log_in(elsewhere, "alice", PASSWORD).status_code == 302

        clock.shift(timedelta(seconds=int(refused["Retry-After"]) + 1))
        assert _log_in(here, "alice", PASSWORD).status_code == 302
        assert _logged_in_as(here) == alice.pk


def test_a_lock_reads_the_same_whether_or_not_the_account_exists() -> None:
    make_user("alice")
    with time_machine.travel(T0, tick=False):
        for name in ("alice", "nobody"):
            for _ in range(6):
                _log_in(Client(), name, WRONG)
        real = _log_in(Client(), "alice", WRONG)
        made_up = _log_in(Client(), "nobody", WRONG)
    assert real.status_code == made_up.status_code == 429
    assert real["Retry-After"] == made_up["Retry-After"]
    assert _lock_sentence(real) == _lock_sentence(made_up)


def test_failures_on_the_page_lock_the_api_token_endpoint_too() -> None:
    make_user("alice")
    with time_machine.travel(T0, tick=False):
        for _ in range(6):
            _log_in(Client(), "alice", WRONG)
        refused = APIClient().post(
            "/api/v1/auth/token/", {"username": "alice", "password": PASSWORD}, format="json"
        )
    assert refused.status_code == 429
    assert refused.json()["code"] == "login_locked"
    assert refused["Retry-After"] == "2"


def test_log_in_posts_count_in_the_accounts_budget(settings: Any) -> None:
    _rates(settings, accounts="2/minute")
    make_user("alice")
    browser = Client()
    assert _log_in(browser, "alice", WRONG).status_code == 200
    assert _log_in(browser, "alice", WRONG).status_code == 200
    refused = _log_in(browser, "alice", PASSWORD)
    assert refused.status_code == 429
    assert "Try again in" in refused.content.decode()
    assert _logged_in_as(browser) is None
    assert browser.get("/login/").status_code == 200


# ----------------------------------------------------------------------------
# The caps, in the lobby


def test_the_lobby_says_which_cap_refused_a_new_table() -> None:
    alice = make_user("alice")
    for _ in range(10):
        services.table_create(host=alice, seat_count=2)
    browser = logged_in(alice)

    refused = browser.post("/tables/new/", NEW_TABLE_FORM)

    assert refused.status_code == 409
    page = refused.content.decode()
    assert "You are at 10 tables in the lobby" in page
    assert 'role="alert"' in page
    assert Table.objects.filter(host=alice).count() == 10


def test_joining_and_seating_bots_past_a_cap_say_why(settings: Any) -> None:
    settings.GAMENOOK_MAX_BOT_SEATS = 1
    alice, bob = make_user("alice"), make_user("bob")
    for _ in range(10):
        services.table_create(host=bob, seat_count=2)
    theirs = services.table_create(host=alice, seat_count=4)
    services.table_add_bot(table_id=theirs.pk, user=alice, level="easy")

    joined = logged_in(bob).post(f"/tables/{theirs.pk}/join/", **LIVE)
    assert joined.status_code == 409
    assert joined.json()["error"]["code"] == "too_many_open_tables"

    page = logged_in(bob).post(f"/tables/{theirs.pk}/join/", follow=True).content.decode()
    assert "You are at 10 tables in the lobby" in page

    bot = logged_in(alice).post(f"/tables/{theirs.pk}/bots/", {"level": "hard"}, **LIVE)
    assert bot.status_code == 409
    assert bot.json()["error"]["code"] == "too_many_bot_seats"
    assert theirs.seats.count() == 2
