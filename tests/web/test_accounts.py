"""The web client's account pages: confirmation, password change and reset (issue 12, Account)."""

from __future__ import annotations

import re

import pytest
from django.contrib.auth.models import User
from django.test import Client

from notifications import services as notifications
from notifications.models import OutboxMessage
from tests.web.conftest import PASSWORD, logged_in, make_user

pytestmark = pytest.mark.django_db

NEW_PASSWORD = "a brand new passphrase"


def _link(user: User, kind: str) -> str:
    """The path of the link in the newest message of ``kind`` to ``user``."""
    message = OutboxMessage.objects.filter(user=user, kind=kind).latest("pk")
    found = re.search(r"https?://[^/\s]+(/\S+)", message.text)
    assert found is not None, message.text
    return found.group(1)


def test_the_account_page_says_an_unconfirmed_address_gets_no_mail_and_resends_the_link() -> None:
    user = make_user("hana", verified=False)
    client = logged_in(user)
    page = client.get("/account/").content.decode()
    assert "not confirmed yet" in page and "No game e-mail is sent" in page

    assert client.post("/account/", {"form": "verify"}).status_code == 302
    assert OutboxMessage.objects.filter(user=user, kind="verify_email").count() == 1
    # A second click within the minute mails nothing more, and says so.
    follow = client.post("/account/", {"form": "verify"}, follow=True).content.decode()
    assert "less than a minute ago" in follow
    assert OutboxMessage.objects.filter(user=user, kind="verify_email").count() == 1

    link = _link(user, "verify_email")
    assert client.get(link).status_code == 200  # opening the link changes nothing
    assert not notifications.email_is_verified(user)
    assert client.post(link).status_code == 200
    assert notifications.email_is_verified(user)
    page = client.get("/account/").content.decode()
    assert "confirmed" in page and "not confirmed" not in page


def test_an_address_someone_else_uses_is_refused_on_the_page_not_a_server_error() -> None:
    make_user("ines")
    user = make_user("jon")
    response = logged_in(user).post("/account/", {"form": "email", "email": "INES@example.com"})
    assert response.status_code == 400
    assert "already" in response.content.decode()
    user.refresh_from_db()
    assert user.email == "jon@example.com"


def test_changing_the_password_keeps_this_browser_logged_in() -> None:
    user = make_user("kai")
    client = logged_in(user)
    wrong = client.post(
        "/account/",
        {
            "form": "password",
            "current_password": "not it",
            "new_password": NEW_PASSWORD,
            "new_password_again": NEW_PASSWORD,
        },
    )
    assert wrong.status_code == 400 and "current password is wrong" in wrong.content.decode()
    differ = client.post(
        "/account/",
        {
            "form": "password",
            "current_password": PASSWORD,
            "new_password": NEW_PASSWORD,
            "new_password_again": NEW_PASSWORD + "!",
        },
    )
    assert differ.status_code == 400 and "differ" in differ.content.decode()
    done = client.post(
        "/account/",
        {
            "form": "password",
            "current_password": PASSWORD,
            "new_password": NEW_PASSWORD,
            "new_password_again": NEW_PASSWORD,
        },
    )
    assert done.status_code == 302
    assert client.get("/").status_code == 200  # still logged in
    assert Client().login(username="kai", password=NEW_PASSWORD)
    assert not Client().login(username="kai", password=PASSWORD)


def test_a_forgotten_password_is_reset_through_the_mailed_link() -> None:
    user = make_user("lea")
    login_page = Client().get("/login/").content.decode()
    assert 'href="/password-reset/"' in login_page

    client = Client()
    answer = client.post("/password-reset/", {"email": "LEA@example.com"}, follow=True)
    assert "If an account uses that address" in answer.content.decode()
    # An address with no account gets the very same answer and no mail.
    other = Client().post("/password-reset/", {"email": "nobody@example.com"}, follow=True)
    assert "If an account uses that address" in other.content.decode()
    assert OutboxMessage.objects.filter(kind="password_reset").count() == 1

    link = _link(user, "password_reset")
    assert client.get(link).status_code == 200
    assert (
        client.post(link, {"password": NEW_PASSWORD, "password_again": NEW_PASSWORD}).status_code
        == 200
    )
    assert Client().login(username="lea", password=NEW_PASSWORD)
    # The link works once.
    assert client.get(link).status_code == 400
