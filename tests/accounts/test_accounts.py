"""Accounts people can trust: issue 10, section 3.

One address per account, confirmed by a signed link before game mail goes
to it; password reset by mail, change and log out; tokens kept as hashes,
several per user, each revocable. Each endpoint is also tried as a hostile
client would.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from datetime import timedelta
from typing import Any

import pytest
from django.contrib.auth.models import User
from django.core import mail
from django.core.cache import cache
from django.db import IntegrityError, transaction
from django.test import Client
from django.utils import timezone
from rest_framework.test import APIClient

from accounts import services
from accounts.models import ApiToken, token_digest
from games import selectors as games_selectors
from notifications import services as notifications
from notifications.models import OutboxMessage
from tests.accounts.conftest import AccountJobs
from tests.factories import make_user, start_table
from tests.games.conftest import assert_error

pytestmark = pytest.mark.django_db

Api = Callable[[User | None], APIClient]
REGISTER = "/api/v1/auth/register/"
TOKEN = "/api/v1/auth/token/"
ME = "/api/v1/me/"
VERIFY = "/api/v1/auth/verify-email/"
PASSWORD = "correct horse battery"
GOOD = {"username": "dora", "email": "dora@example.com", "password": "a long enough secret"}


def send_outbox() -> list[Any]:
    """Send every pending outbox message as the worker would; returns what was sent."""
    for message in OutboxMessage.objects.filter(status=OutboxMessage.Status.PENDING):
        notifications.outbox_send(message_id=message.pk)
    return list(mail.outbox)


def link_in(message: Any) -> str:
    found = re.search(r"http://\S+", message.body)
    assert found, message.body
    return found.group(0)


def token_client(key: str) -> APIClient:
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Token {key}")
    return client


# ----------------------------------------------------------------------------
# One address, one account


@pytest.mark.parametrize("email", ["alice@example.com", "ALICE@Example.COM"])
def test_register_with_an_address_another_account_has_answers_as_a_fresh_sign_up(
    alice: User, email: str
) -> None:
    """Issue 35 §5: the answer does not tell who has an address (test_trust.py reads the mail)."""
    response = APIClient().post(REGISTER, {**GOOD, "email": email}, format="json")

    assert response.status_code == 201
    assert response.json() | {"id": 0} == {
        "id": 0,
        "username": "dora",
        "email": None,
        "pending_email": email,
        "email_verified": False,
    }
    assert User.objects.get(username="dora").email == ""  # the address stays alice's
    alice.refresh_from_db()
    assert alice.email == "alice@example.com"


def test_patch_me_to_another_accounts_address_leaves_it_theirs(
    alice: User, bob: User, api: Api
) -> None:
    body = {"email": "Alice@EXAMPLE.com", "current_password": PASSWORD}
    response = api(bob).patch(ME, body, format="json")

    assert response.status_code == 200
    assert response.json()["email"] == "bob@example.com"
    assert response.json()["pending_email"] == "Alice@EXAMPLE.com"
    bob.refresh_from_db()
    alice.refresh_from_db()
    assert (alice.email, bob.email) == ("alice@example.com", "bob@example.com")


def test_the_database_itself_refuses_a_second_account_with_one_address(alice: User) -> None:
    with pytest.raises(IntegrityError), transaction.atomic():
        User.objects.create_user("mallory", "ALICE@example.com", PASSWORD)


def test_accounts_without_an_address_do_not_collide() -> None:
    User.objects.create_user("one", "", PASSWORD)
    User.objects.create_user("two", "", PASSWORD)

    assert User.objects.filter(email="").count() == 2


def test_changing_only_the_case_of_ones_own_address_is_allowed(alice: User, api: Api) -> None:
    body = {"email": "Alice@Example.com", "current_password": PASSWORD}
    response = api(alice).patch(ME, body, format="json")

    assert response.status_code == 200
    assert response.json()["email"] == "Alice@Example.com"
    assert response.json()["email_verified"] is True
    assert response.json()["pending_email"] is None


# ----------------------------------------------------------------------------
# Confirmation by a signed link; game mail only to a confirmed address


@pytest.mark.django_db(transaction=True)
def test_a_new_account_gets_a_link_and_no_game_mail_until_it_is_followed(
    account_jobs: AccountJobs,
) -> None:
    APIClient().post(REGISTER, GOOD, format="json")
    dora = User.objects.get(username="dora")
    key = services.token_create(user=dora, name="t")[1]

    me = token_client(key).get(ME).json()
    assert (me["email"], me["pending_email"], me["email_verified"]) == (
        None,
        "dora@example.com",
        False,
    )
    assert "waits for confirmation" in me["email_status"]
    assert "no game e-mail" in me["email_status"]
    assert notifications.email_is_verified(dora) is False
    assert account_jobs.run() == 1  # the request queued the mail; a worker writes it
    sent = send_outbox()
    assert [m.to for m in sent] == [["dora@example.com"]]
    link = link_in(sent[0])

    # The link's page asks first (a link scanner changes nothing), then confirms on POST.
    path = link.removeprefix("http://127.0.0.1:8000")
    page = Client()
    opened = page.get(path, follow=True)
    assert opened.status_code == 200
    path = opened.redirect_chain[-1][0]  # the form's address: the token is in the session
    assert token_client(key).get(ME).json()["email_verified"] is False
    done = page.post(path)
    assert done.status_code == 200 and b"confirmed" in done.content

    me = token_client(key).get(ME).json()
    assert (me["email"], me["pending_email"], me["email_verified"]) == (
        "dora@example.com",
        None,
        True,
    )
    assert me["email_status"] == "Game e-mail goes to dora@example.com."


@pytest.mark.parametrize("verified", [True, False])
def test_game_mail_is_written_only_for_a_confirmed_address(verified: bool) -> None:
    alice = make_user("alice")
    bob = make_user("bob", verified=verified)
    table = start_table(alice, bob)
    assert table.to_act == 1  # bob's turn: "your turn" is his

    notifications.table_followups(table_id=table.pk, seq=table.seq, new_turn=True, finished=False)
    # Ruling 19: "your turn" is written once he has been away for the quiet delay.
    later = timezone.now() + timedelta(minutes=11)
    notifications.turn_notice_decide(user_id=bob.pk, now=later)

    written = list(OutboxMessage.objects.filter(table=table).values_list("to", flat=True))
    assert written == (["bob@example.com"] if verified else [])


@pytest.mark.django_db(transaction=True)
def test_game_mail_goes_to_the_confirmed_address_until_a_new_one_is_confirmed(
    alice: User, api: Api, account_jobs: AccountJobs
) -> None:
    bob = make_user("bob")
    table = start_table(alice, bob)
    facts = games_selectors.table_facts(table.pk)
    assert facts is not None

    def game_mail(turn: int) -> OutboxMessage | None:
        return notifications.outbox_enqueue(user=bob, kind="reminder", table=facts, turn=turn)

    before = game_mail(1)
    body = {"email": "bob@new.example", "current_password": PASSWORD}
    assert api(bob).patch(ME, body, format="json").status_code == 200
    bob.refresh_from_db()
    while_waiting = game_mail(2)
    account_jobs.run()
    confirm = [m for m in send_outbox() if m.to == ["bob@new.example"]]

    # Asking for an address changes nothing yet: game mail still goes to the confirmed one.
    assert before is not None and while_waiting is not None
    assert {before.to, while_waiting.to} == {"bob@example.com"}
    assert OutboxMessage.objects.get(pk=before.pk).status == OutboxMessage.Status.SENT
    pending = game_mail(3)
    token = link_in(confirm[0]).rstrip("/").rsplit("/", 1)[1]
    assert APIClient().post(VERIFY, {"token": token}, format="json").status_code == 200
    # Once confirmed, mail written for the old address is not sent to it any more.
    send_outbox()
    assert pending is not None
    assert OutboxMessage.objects.get(pk=pending.pk).status == OutboxMessage.Status.CANCELLED
    bob.refresh_from_db()
    assert bob.email == "bob@new.example"
    assert notifications.outbox_enqueue(user=bob, kind="reminder", table=facts, turn=4) is not None


@pytest.mark.django_db(transaction=True)
def test_an_address_changed_after_confirmation_waits_until_it_is_confirmed(
    alice: User, api: Api, account_jobs: AccountJobs
) -> None:
    body = {"email": "alice@elsewhere.example", "current_password": PASSWORD}
    response = api(alice).patch(ME, body, format="json")

    assert response.status_code == 200
    assert response.json()["email"] == "alice@example.com"
    assert response.json()["email_verified"] is True  # the address of the account, unchanged
    assert response.json()["pending_email"] == "alice@elsewhere.example"
    account_jobs.run()
    sent = send_outbox()
    assert [m.to for m in sent] == [["alice@elsewhere.example"]]
    token = link_in(sent[0]).rstrip("/").rsplit("/", 1)[1]
    confirmed = APIClient().post(VERIFY, {"token": token}, format="json")
    assert confirmed.status_code == 200
    me = api(alice).get(ME).json()
    assert (me["email"], me["email_verified"], me["pending_email"]) == (
        "alice@elsewhere.example",
        True,
        None,
    )


def test_a_link_for_an_old_address_no_longer_confirms(alice: User, api: Api) -> None:
    first = {"email": "first@example.org", "current_password": PASSWORD}
    api(alice).patch(ME, first, format="json")
    old = services.verification_token(alice, "first@example.org")
    api(alice).patch(ME, {**first, "email": "second@example.org"}, format="json")

    response = APIClient().post(VERIFY, {"token": old}, format="json")

    assert_error(response, 400, "invalid_link")
    me = api(alice).get(ME).json()
    assert (me["email"], me["pending_email"]) == ("alice@example.com", "second@example.org")


@pytest.mark.parametrize("token", ["", "x", "a:b:c", "eyJ1c2VyIjoxfQ:1abc:forged", "0" * 500])
def test_a_forged_or_empty_confirmation_token_is_refused(alice: User, token: str) -> None:
    response = APIClient().post("/api/v1/auth/verify-email/", {"token": token}, format="json")

    assert response.status_code == 400
    assert response.json()["code"] in {"invalid_link", "invalid"}


@pytest.mark.django_db(transaction=True)
def test_a_confirmation_mail_goes_to_one_address_at_most_once_in_a_while(
    api: Api, account_jobs: AccountJobs
) -> None:
    dora = make_user("dora", verified=False)
    client = api(dora)

    first = client.post("/api/v1/me/verify-email/")
    second = client.post("/api/v1/me/verify-email/")

    assert first.status_code == 202
    held = assert_error(second, 429, "mail_throttled")
    assert "dora@example.com" in held["detail"] and int(second["Retry-After"]) > 0
    assert account_jobs.run() == 1
    assert OutboxMessage.objects.filter(user=dora, kind="verify_email").count() == 1
    cache.clear()
    assert_error(
        client.post("/api/v1/me/verify-email/", "null", content_type="application/json"),
        400,
        "invalid",
    )


def test_asking_for_a_link_for_a_confirmed_address_is_a_conflict(alice: User, api: Api) -> None:
    assert_error(api(alice).post("/api/v1/me/verify-email/"), 409, "already_verified")


# ----------------------------------------------------------------------------
# Passwords: reset by mail, change, log out


@pytest.mark.django_db(transaction=True)
def test_password_reset_by_mail_sets_the_password_and_revokes_every_token(
    alice: User, api: Api, account_jobs: AccountJobs
) -> None:
    old_client = api(alice)
    response = APIClient().post(
        "/api/v1/auth/password-reset/", {"email": "ALICE@example.com"}, format="json"
    )
    assert response.status_code == 202
    assert account_jobs.run() == 1
    sent = send_outbox()
    assert [m.to for m in sent] == [["alice@example.com"]]
    uid, token = link_in(sent[0]).rstrip("/").rsplit("/", 2)[1:]

    done = APIClient().post(
        "/api/v1/auth/password-reset/confirm/",
        {"uid": uid, "token": token, "password": "a brand new secret"},
        format="json",
    )

    assert done.status_code == 200
    alice.refresh_from_db()
    assert alice.check_password("a brand new secret")
    assert_error(old_client.get(ME), 401, "authentication_failed")
    assert [m.subject for m in send_outbox()[1:]] == [
        "The password of your Gamenook account was changed"
    ]
    # The link works once.
    again = APIClient().post(
        "/api/v1/auth/password-reset/confirm/",
        {"uid": uid, "token": token, "password": "yet another secret"},
        format="json",
    )
    assert_error(again, 400, "invalid_link")


@pytest.mark.django_db(transaction=True)
def test_password_reset_page_sets_the_password(alice: User, account_jobs: AccountJobs) -> None:
    APIClient().post("/api/v1/auth/password-reset/", {"email": alice.email}, format="json")
    account_jobs.run()
    link = link_in(send_outbox()[0]).removeprefix("http://127.0.0.1:8000")
    page = Client()

    opened = page.get(link, follow=True)
    assert opened.status_code == 200
    path = opened.redirect_chain[-1][0]  # the form's address: the token is in the session
    differ = page.post(path, {"password": "a brand new one", "password_again": "another"})
    assert differ.status_code == 400
    weak = page.post(path, {"password": "12345678", "password_again": "12345678"})
    assert weak.status_code == 400
    done = page.post(path, {"password": "a brand new one", "password_again": "a brand new one"})
    assert done.status_code == 200
    alice.refresh_from_db()
    assert alice.check_password("a brand new one")


@pytest.mark.django_db(transaction=True)
def test_password_reset_says_the_same_for_an_unknown_address_and_mails_nobody(
    alice: User, account_jobs: AccountJobs
) -> None:
    response = APIClient().post(
        "/api/v1/auth/password-reset/", {"email": "nobody@example.com"}, format="json"
    )

    assert response.status_code == 202
    assert account_jobs.run() == 1
    assert not OutboxMessage.objects.exists()


@pytest.mark.django_db(transaction=True)
def test_password_reset_mails_one_address_at_most_once_a_minute(
    alice: User, account_jobs: AccountJobs
) -> None:
    for _ in range(5):
        APIClient().post("/api/v1/auth/password-reset/", {"email": alice.email}, format="json")

    assert account_jobs.run() == 5
    assert OutboxMessage.objects.filter(kind="password_reset").count() == 1


@pytest.mark.parametrize(
    "body",
    [
        {"uid": "MQ", "token": "forged-token", "password": "a long enough secret"},
        {"uid": "!!!", "token": "x", "password": "a long enough secret"},
        {"uid": "OTk5OTk5OTk5OTk5OTk5OTk5OTk5OQ", "token": "x", "password": "a long secret"},
    ],
)
def test_a_forged_reset_link_is_refused(alice: User, body: dict[str, str]) -> None:
    response = APIClient().post("/api/v1/auth/password-reset/confirm/", body, format="json")

    assert_error(response, 400, "invalid_link")
    alice.refresh_from_db()
    assert alice.check_password(PASSWORD)


def test_change_password_keeps_this_token_and_revokes_the_others(alice: User, api: Api) -> None:
    laptop, phone = api(alice), api(alice)

    wrong = laptop.post(
        "/api/v1/me/password/",
        {"current_password": "nope", "new_password": "a brand new secret"},
        format="json",
    )
    assert_error(wrong, 400, "invalid")
    weak = laptop.post(
        "/api/v1/me/password/",
        {"current_password": PASSWORD, "new_password": "password"},
        format="json",
    )
    assert_error(weak, 400, "invalid")
    done = laptop.post(
        "/api/v1/me/password/",
        {"current_password": PASSWORD, "new_password": "a brand new secret"},
        format="json",
    )

    assert done.status_code == 200
    assert laptop.get(ME).status_code == 200
    assert_error(phone.get(ME), 401, "authentication_failed")


def test_log_out_revokes_the_token_it_carries_only(alice: User, api: Api) -> None:
    laptop, phone = api(alice), api(alice)

    assert laptop.post("/api/v1/auth/logout/").status_code == 204

    assert_error(laptop.get(ME), 401, "authentication_failed")
    assert phone.get(ME).status_code == 200


def test_log_out_ends_a_session(alice: User) -> None:
    client = APIClient(enforce_csrf_checks=False)
    client.login(username="alice", password=PASSWORD)

    assert client.post("/api/v1/auth/logout/").status_code == 204
    assert_error(client.get(ME), 401, "not_authenticated")


@pytest.mark.parametrize(
    ("path", "body"),
    [
        ("/api/v1/auth/password-reset/", {"email": "a@example.com"}),
        ("/api/v1/auth/verify-email/", {"token": "x"}),
        ("/api/v1/auth/password-reset/confirm/", {"uid": "x", "token": "y", "password": "z" * 9}),
    ],
)
def test_the_new_account_endpoints_are_rate_limited(
    settings: Any, path: str, body: dict[str, str]
) -> None:
    rates = {"accounts": "2/minute", "actions": "1000/minute"}
    settings.REST_FRAMEWORK = {**settings.REST_FRAMEWORK, "DEFAULT_THROTTLE_RATES": rates}
    client = APIClient()
    for _ in range(2):
        client.post(path, body, format="json")

    assert_error(client.post(path, body, format="json"), 429, "throttled")


def test_signed_in_account_endpoints_are_rate_limited(alice: User, api: Api, settings: Any) -> None:
    rates = {"accounts": "2/minute", "actions": "1000/minute"}
    settings.REST_FRAMEWORK = {**settings.REST_FRAMEWORK, "DEFAULT_THROTTLE_RATES": rates}
    client = api(alice)
    client.get("/api/v1/me/tokens/")
    client.get("/api/v1/me/tokens/")

    assert_error(client.post("/api/v1/auth/logout/"), 429, "throttled")
    assert_error(client.post("/api/v1/me/password/", {}, format="json"), 429, "throttled")


# ----------------------------------------------------------------------------
# Tokens: hashed, named, several, each revocable


def test_a_token_is_stored_only_as_a_hash_with_a_short_prefix(alice: User) -> None:
    response = APIClient().post(
        TOKEN, {"username": "alice", "password": PASSWORD, "name": "laptop"}, format="json"
    )
    key = response.json()["token"]

    stored = ApiToken.objects.get(user=alice, name="laptop")
    assert stored.digest == token_digest(key) != key
    assert stored.prefix == key[:8] and len(stored.prefix) == 8
    fields = [str(getattr(stored, f.attname)) for f in ApiToken._meta.fields]
    assert not any(key in value for value in fields)


def test_a_user_holds_several_named_tokens_and_revokes_each(alice: User) -> None:
    keys = {}
    for name in ("laptop", "phone", "bot"):
        response = APIClient().post(
            TOKEN, {"username": "alice", "password": PASSWORD, "name": name}, format="json"
        )
        keys[name] = response.json()["token"]
    laptop = token_client(keys["laptop"])

    listed = laptop.get("/api/v1/me/tokens/").json()
    assert [(t["name"], t["prefix"], t["current"]) for t in listed] == [
        ("laptop", keys["laptop"][:8], True),
        ("phone", keys["phone"][:8], False),
        ("bot", keys["bot"][:8], False),
    ]
    assert not any(key in str(listed) for key in keys.values())
    phone_id = next(t["id"] for t in listed if t["name"] == "phone")

    assert laptop.delete(f"/api/v1/me/tokens/{phone_id}/").status_code == 204

    assert_error(token_client(keys["phone"]).get(ME), 401, "authentication_failed")
    assert token_client(keys["bot"]).get(ME).status_code == 200
    assert_error(laptop.delete(f"/api/v1/me/tokens/{phone_id}/"), 404, "not_found")


def test_nobody_revokes_another_users_token(alice: User, bob: User, api: Api) -> None:
    token, key = services.token_create(user=bob, name="bob's")

    assert_error(api(alice).delete(f"/api/v1/me/tokens/{token.pk}/"), 404, "not_found")
    assert token_client(key).get(ME).status_code == 200


def test_a_user_holds_at_most_twenty_tokens(alice: User) -> None:
    for number in range(services.MAX_TOKENS):
        services.token_create(user=alice, name=f"client {number}")

    response = APIClient().post(
        TOKEN, {"username": "alice", "password": PASSWORD, "name": "one more"}, format="json"
    )

    assert_error(response, 409, "too_many_tokens")
    assert ApiToken.objects.filter(user=alice).count() == services.MAX_TOKENS


@pytest.mark.parametrize(
    "header",
    [
        "Token ",
        "Token a b",
        "Token " + "x" * 10_000,
        "Token \u00e9\u00e8",
        "Bearer abc",
    ],
)
def test_a_malformed_token_header_is_a_401_or_ignored(alice: User, header: str) -> None:
    response = APIClient().get(ME, HTTP_AUTHORIZATION=header)

    assert response.status_code == 401
    assert response.json()["code"] in {"authentication_failed", "not_authenticated"}


def test_a_token_of_a_deactivated_user_stops_working(alice: User) -> None:
    key = services.token_create(user=alice, name="t")[1]

    services.user_deactivate(user=alice)

    assert_error(token_client(key).get(ME), 401, "authentication_failed")
    assert not ApiToken.objects.filter(user=alice).exists()


@pytest.mark.parametrize(
    "body",
    [
        {"username": "alice", "password": PASSWORD, "name": ""},
        {"username": "alice", "password": PASSWORD, "name": "n" * 65},
        {"username": "alice", "password": PASSWORD, "name": 5},
        {"username": "alice", "password": 12345678},
        {"username": ["alice"], "password": PASSWORD},
    ],
)
def test_token_input_of_the_wrong_shape_is_refused(alice: User, body: dict[str, Any]) -> None:
    assert_error(APIClient().post(TOKEN, body, format="json"), 400, "invalid")
    assert not ApiToken.objects.exists()


def test_a_password_is_taken_as_sent_spaces_and_all() -> None:
    body = {**GOOD, "password": "  spaced out secret  "}
    assert APIClient().post(REGISTER, body, format="json").status_code == 201

    def token_for(password: str) -> int:
        response = APIClient().post(
            TOKEN, {"username": "dora", "password": password}, format="json"
        )
        return int(response.status_code)

    assert token_for("  spaced out secret  ") == 200
    assert token_for("spaced out secret") == 400
