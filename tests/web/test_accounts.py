"""The web client's account pages: confirmation, password change and reset (issue 12, Account)."""

from __future__ import annotations

import logging
import re

import pytest
from django.contrib.auth.models import User
from django.core import mail
from django.test import Client

from notifications import services as notifications
from notifications.models import OutboxMessage
from tests.accounts.conftest import AccountJobs, account_jobs
from tests.web.conftest import PASSWORD, logged_in, make_user

__all__ = ["account_jobs"]  # the fixture applies here

pytestmark = pytest.mark.django_db

NEW_PASSWORD = "a brand new passphrase"


def _link(user: User, kind: str) -> str:
    """The path of the link in the newest message of ``kind`` to ``user``, as it was sent.

    Its row holds the text sealed (issue 35 §1): the link is read from the mail sent.
    """
    message = OutboxMessage.objects.filter(user=user, kind=kind).latest("pk")
    notifications.outbox_send(message_id=message.pk)
    sent = [m for m in mail.outbox if m.to == [message.to] and m.subject == message.subject]
    assert sent, f"no {kind} mail was sent to {message.to}"
    found = re.search(r"https?://[^/\s]+(/\S+)", str(sent[-1].body))
    assert found is not None, sent[-1].body
    return found.group(1)


@pytest.mark.django_db(transaction=True)
def test_the_account_page_says_an_unconfirmed_address_gets_no_mail_and_resends_the_link(
    account_jobs: AccountJobs,
) -> None:
    user = make_user("hana", verified=False)
    client = logged_in(user)
    page = client.get("/account/").content.decode()
    assert "not confirmed yet" in page and "No game e-mail is sent" in page

    assert client.post("/account/", {"form": "verify"}).status_code == 302
    assert account_jobs.run() == 1
    assert OutboxMessage.objects.filter(user=user, kind="verify_email").count() == 1
    # A second click within minutes mails nothing more, and says so (issue 35 §7).
    follow = client.post("/account/", {"form": "verify"}, follow=True).content.decode()
    assert "was asked for less than 5 minutes ago" in follow
    assert account_jobs.run() == 0
    assert OutboxMessage.objects.filter(user=user, kind="verify_email").count() == 1

    link = _link(user, "verify_email")
    opened = client.get(link, follow=True)
    assert opened.status_code == 200  # opening the link changes nothing
    form = opened.redirect_chain[-1][0]  # the token went to the session (accounts.views)
    assert not notifications.email_is_verified(user)
    assert client.post(form).status_code == 200
    assert notifications.email_is_verified(user)
    page = client.get("/account/").content.decode()
    assert "confirmed" in page and "not confirmed" not in page


def test_an_address_change_needs_the_password_and_says_the_same_for_a_taken_address() -> None:
    make_user("ines")
    user = make_user("jon")
    client = logged_in(user)
    bare = client.post("/account/", {"form": "email", "email": "jon@new.example"})
    assert bare.status_code == 400 and "This field is required" in bare.content.decode()
    wrong = {"form": "email", "email": "jon@new.example", "current_password": "not it"}
    refused = client.post("/account/", wrong)
    assert refused.status_code == 400
    assert "current password is wrong" in refused.content.decode()

    # Issue 35 §5: a taken address answers as a free one; the mail to it says which.
    answers = []
    for email in ("INES@example.com", "jon@new.example"):
        form = {"form": "email", "email": email, "current_password": PASSWORD}
        response = client.post("/account/", form, follow=True)
        page = response.content.decode().replace(email, "<address>")
        answers.append(re.sub(r'(content|value)="[A-Za-z0-9]{64}"', "<csrf>", page))
    assert answers[0] == answers[1]
    assert "We sent a message to <address>" in answers[0]
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


@pytest.mark.django_db(transaction=True)
def test_a_forgotten_password_is_reset_through_the_mailed_link(account_jobs: AccountJobs) -> None:
    user = make_user("lea")
    login_page = Client().get("/login/").content.decode()
    assert 'href="/password-reset/"' in login_page

    client = Client()
    answer = client.post("/password-reset/", {"email": "LEA@example.com"}, follow=True)
    assert "If an account uses that address" in answer.content.decode()
    # An address with no account gets the very same answer and no mail.
    other = Client().post("/password-reset/", {"email": "nobody@example.com"}, follow=True)
    assert "If an account uses that address" in other.content.decode()
    assert account_jobs.run() == 2
    assert OutboxMessage.objects.filter(kind="password_reset").count() == 1

    link = _link(user, "password_reset")
    opened = client.get(link, follow=True)
    assert opened.status_code == 200
    form = opened.redirect_chain[-1][0]  # the token went to the session (accounts.views)
    assert (
        client.post(form, {"password": NEW_PASSWORD, "password_again": NEW_PASSWORD}).status_code
        == 200
    )
    assert Client().login(username="lea", password=NEW_PASSWORD)
    # The link works once.
    assert client.get(link, follow=True).status_code == 400


@pytest.mark.django_db(transaction=True)
def test_a_reset_link_s_token_leaves_the_address_bar_before_any_form_is_refused(
    account_jobs: AccountJobs, caplog: pytest.LogCaptureFixture
) -> None:
    """Issue 35 §1: a refused reset form answers 400, which Django logs with the request's
    path; the path of the form holds no token, so the log holds no working link."""
    user = make_user("lea")
    client = Client()
    client.post("/password-reset/", {"email": user.email})
    account_jobs.run()
    link = _link(user, "password_reset")
    token = link.rstrip("/").rsplit("/", 1)[-1]
    opened = client.get(link, follow=True)
    form = opened.redirect_chain[-1][0]
    assert opened.status_code == 200 and token not in form
    with caplog.at_level(logging.DEBUG):
        refused = client.post(form, {"password": NEW_PASSWORD, "password_again": "other"})
    assert refused.status_code == 400
    assert "Bad Request" in caplog.text and token not in caplog.text
    done = client.post(form, {"password": NEW_PASSWORD, "password_again": NEW_PASSWORD})
    assert done.status_code == 200
    assert Client().login(username="lea", password=NEW_PASSWORD)


@pytest.mark.django_db
def test_a_visitor_sent_to_the_log_in_page_is_told_why() -> None:
    """Issue 36 §4: the lobby, a table or the account page sends a visitor to log in."""
    page = Client().get("/account/", follow=True)
    assert page.redirect_chain[-1][0].startswith("/login/?next=")
    assert "log in to open it" in page.content.decode()
    assert "log in to open it" not in Client().get("/login/").content.decode()


@pytest.mark.django_db(transaction=True)
def test_the_pages_a_confirmation_link_opens_are_pages_of_the_site(
    account_jobs: AccountJobs,
) -> None:
    """Issue 36 §4: the site's header and a way on, not an unstyled dead end."""
    user = make_user("ines", verified=False)
    client = logged_in(user)
    client.post("/account/", {"form": "verify"})
    account_jobs.run()
    opened = client.get(_link(user, "verify_email"), follow=True)
    for page in (opened, client.post(opened.redirect_chain[-1][0])):
        html = page.content.decode()
        assert '<header class="site">' in html and 'href="/account/"' in html
    stranger = Client()
    form = stranger.get("/accounts/verify-email/not-a-token/", follow=True).redirect_chain[-1][0]
    invalid = stranger.post(form)
    assert invalid.status_code == 400
    html = invalid.content.decode()
    assert '<header class="site">' in html and 'href="/password-reset/"' in html
