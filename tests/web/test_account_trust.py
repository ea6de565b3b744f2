"""Issue 35 §3 and §5 on the web client's pages: the sign-up page takes the API's username
rule, sign-up and address change answer the same whoever has the address, and the account
page asks for the password before it changes the address."""

from __future__ import annotations

import re
from typing import Any

import pytest
from django.contrib.auth.models import User
from django.test import Client

from tests.web.conftest import PASSWORD, logged_in, make_user

pytestmark = pytest.mark.django_db


def sign_up(username: str, email: str, client: Client | None = None) -> Any:
    form = {"username": username, "email": email, "password": PASSWORD, "password_again": PASSWORD}
    return (client or Client()).post("/signup/", form, follow=True)


def page_text(response: Any, *values: str) -> str:
    """A page with ``values`` and its CSRF tokens masked, to compare two pages."""
    text = response.content.decode()
    for value in values:
        text = text.replace(value, "<x>")
    return re.sub(r'(content|value)="[A-Za-z0-9]{64}"', "<csrf>", text)


@pytest.mark.parametrize(
    "name",
    [
        "al\u200bice",  # shows as "alice"
        "ali\u202ecE",  # right-to-left override
        "<b>bob</b>",
        "Claim your prize at evil.example",
        "p\u0430ypal",  # a Cyrillic а among Latin letters
    ],
)
def test_the_sign_up_page_refuses_names_that_hide_or_mix(name: str) -> None:
    response = sign_up(name, "someone@example.com")

    assert response.status_code == 400
    assert 'id="id_username-errors"' in response.content.decode()
    assert not User.objects.exists()


def test_the_sign_up_page_refuses_a_name_like_one_taken() -> None:
    make_user("alice")

    response = sign_up("\uff21\uff2c\uff29\uff23\uff25", "someone@example.com")  # ＡＬＩＣＥ

    assert "A user with that username already exists." in response.content.decode()
    assert User.objects.count() == 1


def test_the_sign_up_page_answers_the_same_whether_or_not_the_address_has_an_account() -> None:
    make_user("alice")

    taken = sign_up("dora", "alice@example.com")
    free = sign_up("erin", "erin@example.com")

    assert taken.redirect_chain == free.redirect_chain == [("/", 302)]
    assert page_text(taken, "alice@example.com", "dora") == page_text(
        free, "erin@example.com", "erin"
    )
    assert "We sent a message to <x>" in page_text(free, "erin@example.com")
    assert User.objects.get(username="alice").email == "alice@example.com"


def test_the_account_page_asks_for_the_password_before_it_changes_the_address() -> None:
    user = make_user("jon")
    client = logged_in(user)
    assert 'name="current_password"' in client.get("/account/").content.decode()

    bare = client.post("/account/", {"form": "email", "email": "mallory@evil.example"})
    wrong = client.post(
        "/account/",
        {"form": "email", "email": "mallory@evil.example", "current_password": "not it"},
    )

    assert bare.status_code == wrong.status_code == 400
    assert "current password is wrong" in wrong.content.decode()
    user.refresh_from_db()
    assert user.email == "jon@example.com"
    assert "mallory" not in client.get("/account/").content.decode()


def test_the_account_page_answers_the_same_whether_or_not_the_address_is_taken() -> None:
    make_user("ines")
    answers = []
    for name, email in (("jon", "INES@example.com"), ("kim", "kim@new.example")):
        form = {"form": "email", "email": email, "current_password": PASSWORD}
        response = logged_in(make_user(name)).post("/account/", form, follow=True)
        answers.append(page_text(response, email, f"{name}@example.com", name))

    assert answers[0] == answers[1]
    assert User.objects.get(username="jon").email == "jon@example.com"
