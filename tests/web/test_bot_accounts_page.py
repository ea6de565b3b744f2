"""Issue 40, part 1, on the account page: the "Bots" section makes a bot, shows its token
once, makes more tokens, disables and enables; refusals are said beside their form."""

from __future__ import annotations

import re
from typing import Any

import pytest
from django.contrib.auth.models import User
from django.test import Client, override_settings
from rest_framework.test import APIClient

from accounts import selectors
from accounts import services as accounts
from accounts.models import ApiToken
from tests.web.browser import browser, new_page, screenshot
from tests.web.conftest import logged_in, make_user
from tests.web.test_browser import log_in
from tests.web.test_table_layout import _axe

__all__ = ["browser", "new_page", "screenshot"]  # the browser fixtures

pytestmark = pytest.mark.django_db

ACCOUNT = "/account/"


def post(client: Client, form: str, **fields: str) -> Any:
    return client.post(ACCOUNT, {"form": form, **fields})


def shown_key(response: Any) -> str:
    found = re.search(r'<code id="bot-key-value">([^<]+)</code>', response.content.decode())
    assert found, response.content.decode()[-3000:]
    return found.group(1)


def works(key: str) -> bool:
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Token {key}")
    return bool(client.get("/api/v1/tables/").status_code == 200)


@pytest.fixture
def alice() -> User:
    return make_user("alice")


def test_making_a_bot_shows_its_token_once_and_lists_it_with_a_badge(alice: User) -> None:
    client = logged_in(alice)

    made = post(client, "bot_make", username="robo", description="Plays at random.")

    assert made.status_code == 200
    assert "no-store" in made["Cache-Control"]
    key = shown_key(made)
    assert works(key)
    page = client.get(ACCOUNT).content.decode()
    assert key not in page  # once
    assert 'data-bot="robo"' in page and "Plays at random." in page
    assert '<span class="badge-bot" title="A bot account, run by alice">BOT</span>' in page
    # The way to the API is a link the site serves, not a file of the repository.
    assert '<a href="/api/v1/docs/">the API</a>' in page
    assert client.get("/api/v1/docs/").status_code == 200


def test_a_refused_name_is_said_beside_the_form(alice: User) -> None:
    make_user("bob")
    client = logged_in(alice)

    page = post(client, "bot_make", username="\uff22\uff2f\uff22")  # ＢＯＢ

    assert page.status_code == 400
    assert "A user with that username already exists." in page.content.decode()
    assert selectors.bots_of(owner=alice) == []


def test_a_person_without_a_confirmed_address_is_told_to_confirm_it() -> None:
    dora = make_user("dora", verified=False)
    client = logged_in(dora)

    assert "Confirm your e-mail address (above)" in client.get(ACCOUNT).content.decode()
    page = post(client, "bot_make", username="robo")
    assert page.status_code == 400
    assert "Confirm your e-mail address (above)" in page.content.decode()
    assert not User.objects.filter(username="robo").exists()


@override_settings(GAMENOOK_BOTS_PER_OWNER=1)
def test_past_the_limit_the_form_is_gone(alice: User) -> None:
    client = logged_in(alice)
    post(client, "bot_make", username="robo")

    page = client.get(ACCOUNT).content.decode()

    assert "the most one person may have" in page and 'value="bot_make"' not in page
    assert post(client, "bot_make", username="robo2").status_code == 400


def test_a_new_token_is_shown_once_and_works(alice: User) -> None:
    accounts.bot_create(owner=alice, username="robo")
    client = logged_in(alice)

    made = post(client, "bot_token", bot="robo", name="server")

    assert made.status_code == 200
    assert works(shown_key(made))
    assert ApiToken.objects.filter(user__username="robo", name="server", scope="play").exists()


def test_disabling_and_enabling_a_bot(alice: User) -> None:
    _, key = accounts.bot_create(owner=alice, username="robo")
    client = logged_in(alice)

    disabled = post(client, "bot_disable", bot="robo")
    assert disabled.status_code == 302
    assert not works(key)
    page = client.get(ACCOUNT).content.decode()
    assert "robo is disabled" in page and 'value="bot_enable"' in page

    post(client, "bot_enable", bot="robo")
    assert works(key)


def test_no_one_reaches_another_persons_bot_through_the_page(alice: User) -> None:
    _, key = accounts.bot_create(owner=make_user("bob"), username="bobbot")
    client = logged_in(alice)

    for form, extra in (("bot_disable", {}), ("bot_token", {"name": "mine"})):
        page = post(client, form, bot="bobbot", **extra)
        assert page.status_code == 400
        assert "You have no bot of that name." in page.content.decode()
    assert works(key)
    assert not ApiToken.objects.filter(name="mine").exists()


@pytest.mark.parametrize(
    "fields",
    [
        {"form": "bot_token", "bot": "robo", "name": ""},
        {"form": "bot_token", "bot": "robo", "name": "x" * 65},
        {"form": "bot_token", "bot": "x" * 10_000, "name": "n"},
        {"form": "bot_disable", "bot": "robo\x00"},
        {"form": "bot_make", "username": "robo2", "description": "x" * 201},
        {"form": "bot_make", "username": "robo2", "description": "bell\x07"},
    ],
)
def test_hostile_posts_change_nothing(alice: User, fields: dict[str, str]) -> None:
    bot, _ = accounts.bot_create(owner=alice, username="robo")

    page = logged_in(alice).post(ACCOUNT, fields)

    assert page.status_code == 400
    assert ApiToken.objects.filter(user=bot).count() == 1
    bot.refresh_from_db()
    assert bot.is_active
    assert [b.username for b in selectors.bots_of(owner=alice)] == ["robo"]


def test_the_forms_need_the_csrf_token(alice: User) -> None:
    client = Client(enforce_csrf_checks=True)
    client.force_login(alice)

    response = client.post(ACCOUNT, {"form": "bot_make", "username": "robo"})

    assert response.status_code == 403
    assert not User.objects.filter(username="robo").exists()


def test_the_forms_count_in_the_accounts_rate_limit(alice: User, settings: Any) -> None:
    settings.REST_FRAMEWORK = {
        **settings.REST_FRAMEWORK,
        "DEFAULT_THROTTLE_RATES": {"actions": "240/minute", "accounts": "2/minute"},
    }
    client = logged_in(alice)

    answers = [post(client, "bot_make", username=f"robo{n}").status_code for n in range(3)]

    assert answers == [200, 200, 429]
    assert len(selectors.bots_of(owner=alice)) == 2


@pytest.mark.browser
@pytest.mark.django_db(transaction=True)
def test_in_a_browser_a_person_makes_a_bot_sees_its_token_and_disables_it(
    new_page: Any, screenshot: Any
) -> None:
    alice = make_user("alice")
    page = new_page(width=1280, height=900)
    log_in(page, alice)
    page.goto("/account/")

    page.get_by_label("The bot's name").fill("robo")
    page.get_by_label("What it is").fill("Plays at random.")
    page.get_by_role("button", name="Make the bot").click()
    key = page.locator("#bot-key-value").inner_text()
    assert works(key)
    assert _axe(page) == []
    screenshot(page, "account-bots")

    page.get_by_role("button", name="Disable robo").click()
    page.get_by_role("button", name="Enable robo").wait_for()
    assert not works(key)
    # Read again without the flash message: base.html's <ul role="status"> is axe's
    # "listitem" violation on every page that shows one, not this section's.
    page.goto("/account/")
    page.get_by_role("button", name="Enable robo").wait_for()
    assert _axe(page) == []
    assert page.js_errors == []
