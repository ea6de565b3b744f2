"""Issue 35 §3, §5 and §7 through the API and the services: a stolen token or session is
not enough to take an account; usernames that hide or mix are refused and look-alikes are one
name; sign-up, address change and reset answer the same, with the same work, whoever has an
address; confirmation mail is limited per account and per address.

Mail is written by accounts' jobs, which a worker runs: these tests run them here
(``account_jobs``), on transactions that commit, then send what they wrote.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

import pytest
from django.contrib.auth.models import User
from django.core import mail
from django.db import connection
from django.test.utils import CaptureQueriesContext
from rest_framework.test import APIClient

from accounts import services
from games.errors import ServiceError
from notifications import services as notifications
from notifications.models import OutboxMessage
from tests.accounts.conftest import AccountJobs
from tests.factories import make_user
from tests.games.conftest import assert_error

pytestmark = pytest.mark.django_db(transaction=True)

Api = Callable[[User | None], APIClient]
REGISTER = "/api/v1/auth/register/"
RESET = "/api/v1/auth/password-reset/"
VERIFY = "/api/v1/auth/verify-email/"
ME = "/api/v1/me/"
PASSWORD = "correct horse battery"
SECRET = "a long enough secret"


def sent() -> list[Any]:
    """Send every pending outbox message as the worker would; every mail sent so far."""
    for message in OutboxMessage.objects.filter(status=OutboxMessage.Status.PENDING):
        notifications.outbox_send(message_id=message.pk)
    return list(mail.outbox)


def to(address: str) -> list[Any]:
    return [m for m in sent() if m.to == [address]]


def token_of(message: Any) -> str:
    found = re.search(r"/verify-email/([^/\s]+)/", message.body)
    assert found, message.body
    return found.group(1)


def register(username: str, email: str) -> Any:
    body = {"username": username, "email": email, "password": SECRET}
    return APIClient().post(REGISTER, body, format="json")


def same_but(response: Any, *values: str) -> tuple[int, str]:
    """An answer's status and body with ``values`` (and ids) masked, to compare two answers."""
    text = response.content.decode()
    for value in values:
        text = text.replace(value, "<x>")
    return response.status_code, re.sub(r'"id":\s*\d+', '"id":<id>', text)


# ----------------------------------------------------------------------------
# §3: a stolen token or session is not enough


@pytest.mark.parametrize("password", [None, "", "not the password"])
def test_changing_the_address_needs_the_current_password(
    alice: User, api: Api, account_jobs: AccountJobs, password: str | None
) -> None:
    body: dict[str, Any] = {"email": "mallory@evil.example"}
    if password is not None:
        body["current_password"] = password

    response = api(alice).patch(ME, body, format="json")

    error = assert_error(response, 400, "invalid")
    assert list(error["fields"]) == ["current_password"]
    alice.refresh_from_db()
    assert alice.email == "alice@example.com"
    assert api(alice).get(ME).json()["pending_email"] is None
    assert not account_jobs and not to("mallory@evil.example")


def test_a_reset_never_goes_to_an_address_a_session_asked_for(
    alice: User, api: Api, account_jobs: AccountJobs
) -> None:
    # Even with the password, the address asked for is not the account's until confirmed.
    body = {"email": "mallory@evil.example", "current_password": PASSWORD}
    assert api(alice).patch(ME, body, format="json").status_code == 200
    for address in ("mallory@evil.example", "MALLORY@evil.example", "alice@example.com"):
        assert APIClient().post(RESET, {"email": address}, format="json").status_code == 202
    account_jobs.run()

    assert [m.subject for m in to("mallory@evil.example")] == [
        "Confirm your e-mail address for Gamenook"
    ]
    assert [m.subject for m in to("alice@example.com")] == ["Reset your Gamenook password"]


def test_a_reset_goes_only_to_a_confirmed_address(account_jobs: AccountJobs) -> None:
    """An account that never confirmed its address cannot reset its password by mail."""
    make_user("dora", verified=False)

    response = APIClient().post(RESET, {"email": "dora@example.com"}, format="json")
    account_jobs.run()

    assert response.status_code == 202
    assert not OutboxMessage.objects.filter(kind="password_reset").exists()
    assert not to("dora@example.com")


def test_the_old_address_is_told_when_the_address_changes(
    alice: User, api: Api, account_jobs: AccountJobs
) -> None:
    body = {"email": "nina@example.net", "current_password": PASSWORD}
    assert api(alice).patch(ME, body, format="json").status_code == 200
    account_jobs.run()
    assert not to("alice@example.com")  # nothing changed yet: nothing to tell

    token = token_of(to("nina@example.net")[0])
    confirmed = APIClient().post(VERIFY, {"token": token}, format="json")

    assert confirmed.status_code == 200
    [notice] = to("alice@example.com")
    assert notice.subject == "The address of your Gamenook account was changed"
    assert "was changed to n***@example.net" in notice.body and "nina" not in notice.body
    assert "If this was not you" in notice.body
    alice.refresh_from_db()
    assert alice.email == "nina@example.net" and notifications.email_is_verified(alice)


def test_the_address_is_told_when_the_password_changes_or_is_reset(
    alice: User, api: Api, account_jobs: AccountJobs
) -> None:
    change = {"current_password": PASSWORD, "new_password": "another long secret"}
    assert api(alice).post("/api/v1/me/password/", change, format="json").status_code == 200
    [notice] = to("alice@example.com")
    assert notice.subject == "The password of your Gamenook account was changed"
    assert "was changed" in notice.body and "/password-reset/" in notice.body

    APIClient().post(RESET, {"email": "alice@example.com"}, format="json")
    account_jobs.run()
    link = [m for m in to("alice@example.com") if m.subject.startswith("Reset")][0]
    uid, token = re.findall(r"/password-reset/([^/\s]+)/([^/\s]+)/", link.body)[0]
    reset = {"uid": uid, "token": token, "password": "a third long secret"}
    assert APIClient().post(RESET + "confirm/", reset, format="json").status_code == 200
    told = [m.body for m in to("alice@example.com") if "password of your" in m.subject]
    assert len(told) == 2 and "reset with a link mailed to" in told[1]


def test_a_password_change_tells_no_unconfirmed_address(api: Api) -> None:
    dora = make_user("dora", verified=False)
    change = {"current_password": PASSWORD, "new_password": "another long secret"}

    assert api(dora).post("/api/v1/me/password/", change, format="json").status_code == 200

    assert not sent()


# ----------------------------------------------------------------------------
# §5 (a): one username rule, look-alikes one name


@pytest.mark.parametrize(
    "name",
    [
        "al\u200bice",  # zero-width space: shows as "alice"
        "ali\u202ecE",  # right-to-left override
        "<b>bob</b>",
        "two words",
        "tab\there",
        "p\u0430ypal",  # Cyrillic а among Latin letters
        "\u0391lice",  # Greek Α among Latin letters
        "bob\U000e0041",  # a tag character (Cf)
    ],
)
def test_names_that_hide_markup_direction_or_mixed_scripts_are_refused(name: str) -> None:
    response = register(name, "someone@example.com")

    error = assert_error(response, 400, "invalid")
    assert list(error["fields"]) == ["username"]
    # The service itself refuses it too, whoever calls it.
    with pytest.raises(ServiceError) as refused:
        services.user_register(username=name, email="someone@example.com", password=SECRET)
    assert "username" in refused.value.fields
    assert not User.objects.exists()


@pytest.mark.parametrize("name", ["山田taro", "山田たろう", "Νίκος", "Ζωή", "dora_99", "Zoë"])
def test_names_of_one_script_or_a_mix_a_language_writes_are_accepted(name: str) -> None:
    assert register(name, "someone@example.com").status_code == 201


@pytest.mark.parametrize(
    ("existing", "name"),
    [
        ("alice", "ALICE"),
        ("alice", "\uff21\uff2c\uff29\uff23\uff25"),  # ＡＬＩＣＥ, full width
        ("coe", "\u0441\u043e\u0435"),  # сое, all Cyrillic
        ("ABE", "\u0391\u0392\u0395"),  # ΑΒΕ, all Greek
        ("strasse", "Straße"),
        ("bill", "ʙɪʟʟ"),  # Latin small capitals
    ],
)
def test_names_that_look_the_same_cannot_both_be_taken(existing: str, name: str) -> None:
    assert register(existing, "first@example.com").status_code == 201

    error = assert_error(register(name, "second@example.com"), 400, "invalid")

    assert error["fields"]["username"] == ["A user with that username already exists."]
    assert User.objects.count() == 1


def test_a_name_is_kept_in_its_nfkc_form() -> None:
    response = register("\uff44\uff4f\uff52\uff41", "dora@example.com")  # ｄｏｒａ

    assert response.json()["username"] == "dora"
    assert User.objects.get().username == "dora"


def test_accounts_named_before_the_rule_keep_their_names() -> None:
    """The rule applies to new names: an older account keeps its own and still works."""
    old = make_user("two words")
    key = services.token_create(user=old, name="t")[1]
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Token {key}")

    assert client.get(ME).json()["username"] == "two words"


# ----------------------------------------------------------------------------
# §5 (b), (c): the same answer and the same work whoever has the address


def test_sign_up_answers_the_same_whether_or_not_the_address_has_an_account(
    alice: User, account_jobs: AccountJobs
) -> None:
    taken = register("dora", "alice@example.com")
    free = register("erin", "erin@example.com")

    assert taken.status_code == free.status_code == 201
    assert same_but(taken, "alice@example.com", "dora") == same_but(
        free, "erin@example.com", "erin"
    )
    assert taken.json()["pending_email"] == "alice@example.com"
    alice.refresh_from_db()
    assert alice.email == "alice@example.com"
    assert not OutboxMessage.objects.exists()  # the request looked nothing up: the job does

    account_jobs.run()
    [note] = to("alice@example.com")
    [link] = to("erin@example.com")
    assert note.subject == "Someone tried to sign up for Gamenook with your address"
    assert "named alice" in note.body and "/password-reset/" in note.body
    assert "/verify-email/" not in note.body
    assert link.subject == "Confirm your e-mail address for Gamenook"
    # Neither holds what the one signing up chose (issue 35 §7: no text to a stranger).
    assert "dora" not in note.body
    assert "erin" not in link.body.replace("erin@example.com", "")


def test_an_address_change_answers_the_same_whether_or_not_the_address_is_taken(
    alice: User, bob: User, api: Api, account_jobs: AccountJobs
) -> None:
    carol = make_user("carol")
    body = {"email": "alice@example.com", "current_password": PASSWORD}
    taken = api(bob).patch(ME, body, format="json")
    free = api(carol).patch(ME, {**body, "email": "fred@example.com"}, format="json")

    assert taken.status_code == free.status_code == 200
    assert same_but(taken, "alice@example.com", "bob") == same_but(
        free, "fred@example.com", "carol"
    )
    account_jobs.run()
    [note] = to("alice@example.com")
    assert note.subject == "Someone asked to use your address for a Gamenook account"
    assert "belongs to a Gamenook account already" in note.body and "bob" not in note.body
    assert [m.subject for m in to("fred@example.com")] == [
        "Confirm your e-mail address for Gamenook"
    ]
    # The mail to a taken address holds no link that could make it bob's.
    assert APIClient().post(VERIFY, {"token": "x"}, format="json").status_code == 400
    bob.refresh_from_db()
    assert bob.email == "bob@example.com"


def _statements(queries: list[dict[str, str]]) -> list[str]:
    """The SQL run, each literal masked: which statements, not which values."""
    return [
        re.sub(r"\b\d+\b", "<n>", re.sub(r"'(?:[^']|'')*'", "<s>", query["sql"]))
        for query in queries
    ]


@pytest.mark.parametrize("path", [RESET, REGISTER])
def test_the_request_does_the_same_work_whoever_has_the_address(
    alice: User, account_jobs: AccountJobs, path: str
) -> None:
    """Issue 35 §5 (c): the look-ups and the mail are the job's; the request's queries match."""

    def request(address: str, name: str) -> list[str]:
        body = {"email": address} if path == RESET else {"username": name, "email": address}
        if path == REGISTER:
            body["password"] = SECRET
        with CaptureQueriesContext(connection) as queries:
            response = APIClient().post(path, body, format="json")
        assert response.status_code in {201, 202}
        return _statements(queries.captured_queries)

    assert request("alice@example.com", "dora") == request("nobody@example.com", "erin")
    assert not OutboxMessage.objects.exists()
    assert len(account_jobs) == 2


# ----------------------------------------------------------------------------
# §7: confirmation mail is limited per account and per address


def test_an_address_gets_one_confirmation_mail_in_a_while_whoever_asks(
    api: Api, account_jobs: AccountJobs
) -> None:
    first, second = make_user("una"), make_user("vic")
    body = {"email": "stranger@example.org", "current_password": PASSWORD}

    assert api(first).patch(ME, body, format="json").status_code == 200
    held = api(second).patch(ME, body, format="json")
    signing_up = register("wes", "STRANGER@example.org")

    error = assert_error(held, 429, "mail_throttled")
    assert 0 < int(held["Retry-After"]) <= 300
    assert "less than 5 minutes ago" in error["detail"]
    assert assert_error(signing_up, 429, "mail_throttled")["detail"]
    assert not User.objects.filter(username="wes").exists()  # refused: nothing was made
    assert api(second).get(ME).json()["pending_email"] is None
    account_jobs.run()
    assert len(to("stranger@example.org")) == 1


def test_what_a_held_mail_says_is_the_same_whether_or_not_the_address_has_an_account(
    alice: User, api: Api
) -> None:
    askers = [make_user(name) for name in ("una", "vic", "wes", "xan")]
    answers = []
    for address, (one, other) in (
        ("alice@example.com", askers[:2]),
        ("nobody@example.com", askers[2:]),
    ):
        body = {"email": address, "current_password": PASSWORD}
        assert api(one).patch(ME, body, format="json").status_code == 200
        answers.append(same_but(api(other).patch(ME, body, format="json"), address))

    assert answers[0] == answers[1]
    assert answers[0][0] == 429


def test_an_account_gets_a_few_confirmation_mails_a_day(
    api: Api, account_jobs: AccountJobs, settings: Any
) -> None:
    """Twenty address changes in a second mailed twenty strangers; now a few, then 429."""
    settings.GAMENOOK_CONFIRM_MAILS_PER_DAY = 3
    settings.REST_FRAMEWORK = {
        **settings.REST_FRAMEWORK,
        "DEFAULT_THROTTLE_RATES": {"accounts": "1000/minute", "actions": "1000/minute"},
    }
    register("mallory", "mallory@evil.example")  # the sign-up's mail is the first of the day
    mallory = User.objects.get(username="mallory")
    client = api(mallory)

    answers = []
    for i in range(20):
        body = {"email": f"s{i}@example.org", "current_password": SECRET}
        answers.append(client.patch(ME, body, format="json"))
        account_jobs.run()  # as a worker would, at once

    assert [a.status_code for a in answers] == [200, 200] + [429] * 18
    error = assert_error(answers[-1], 429, "mail_throttled")
    assert "3 confirmation mails in a day" in error["detail"]
    assert 3600 < int(answers[-1]["Retry-After"]) <= 86400
    assert_error(client.post("/api/v1/me/verify-email/"), 429, "mail_throttled")
    assert client.get(ME).json()["pending_email"] == "s1@example.org"
    strangers = {m.to[0] for m in sent() if m.to[0].endswith("@example.org")}
    assert strangers == {"s0@example.org", "s1@example.org"}


def test_a_confirmation_mail_says_nothing_the_user_chose(account_jobs: AccountJobs) -> None:
    """A phishing sentence in a name (now refused) could not reach a stranger anyway."""
    register("Claim.your.prize.at.evil.example", "victim@example.org")
    account_jobs.run()

    [message] = to("victim@example.org")
    assert "evil" not in message.body and "prize" not in message.body
