"""Issue 40, part 1, in the admin: a moderator sees a bot's owner and disables the bot, or
the bot and its owner, with a reason, through ``accounts.services``."""

from __future__ import annotations

import pytest
from django.contrib.admin.models import LogEntry
from django.contrib.auth.models import User
from django.test import Client
from django.urls import reverse

from accounts import services as accounts
from accounts.models import ApiToken
from games import services as games
from games.errors import Forbidden
from games.models import Seat, Table
from tests.factories import make_user

pytestmark = pytest.mark.django_db

BOTS = "/admin/games/botaccount/"
USERS = "/admin/auth/user/"
DISABLE = "/admin/auth/user/bots/disable/"


@pytest.fixture
def owner() -> User:
    return make_user("alice")


@pytest.fixture
def bot(owner: User) -> User:
    return accounts.bot_create(owner=owner, username="robo", description="Random.")[0]


def test_the_bot_list_names_each_bots_owner(admin_client: Client, bot: User) -> None:
    page = admin_client.get(BOTS).content.decode()

    assert "robo" in page and "alice" in page


@pytest.mark.parametrize("query", ["robo", "alice"])
def test_the_bot_list_is_searched_by_bot_and_by_owner(
    admin_client: Client, bot: User, query: str
) -> None:
    make_user("zed")
    accounts.bot_create(owner=make_user("yan"), username="other")

    page = admin_client.get(BOTS, {"q": query}).content.decode()

    assert "robo" in page and "other" not in page


def test_the_bot_list_refuses_lookups_of_its_own(admin_client: Client, bot: User) -> None:
    assert admin_client.get(BOTS, {"owner__password__startswith": "p"}).status_code == 400


def test_a_users_page_says_bot_of_whom_and_an_owners_page_their_bots(
    admin_client: Client, owner: User, bot: User
) -> None:
    bot_page = admin_client.get(reverse("admin:auth_user_change", args=[bot.pk]))
    owner_page = admin_client.get(reverse("admin:auth_user_change", args=[owner.pk]))

    assert "BOT of" in bot_page.content.decode()
    assert reverse("admin:auth_user_change", args=[owner.pk]) in bot_page.content.decode()
    assert reverse("admin:auth_user_change", args=[bot.pk]) in owner_page.content.decode()


def test_the_user_list_filters_bot_accounts(admin_client: Client, owner: User, bot: User) -> None:
    page = admin_client.get(USERS, {"bot": "yes"})

    assert page.status_code == 200
    listed = {user.username for user in page.context["cl"].result_list}
    assert listed == {"robo"}


def test_disabling_the_bot_alone_asks_a_reason_and_keeps_the_owner(
    admin_client: Client, owner: User, bot: User
) -> None:
    chosen = admin_client.post(BOTS, {"action": "disable_bots", "_selected_action": [str(bot.pk)]})
    assert chosen.status_code == 302 and chosen["Location"].startswith(DISABLE)
    asked = admin_client.get(chosen["Location"])
    assert asked.status_code == 200 and "reason" in asked.content.decode()

    done = admin_client.post(DISABLE, {"ids": str(bot.pk), "owners": "0", "reason": "Spam."})

    assert done.status_code == 302
    bot.refresh_from_db()
    owner.refresh_from_db()
    assert not bot.is_active and owner.is_active
    entry = LogEntry.objects.get(object_id=str(bot.pk))
    assert "Spam." in entry.get_change_message()


def test_disabling_the_bot_and_its_owner(admin_client: Client, owner: User, bot: User) -> None:
    other = accounts.bot_create(owner=owner, username="robo2")[0]
    accounts.token_create(user=owner, name="laptop")

    chosen = admin_client.post(
        USERS, {"action": "disable_bots_and_owners", "_selected_action": [str(bot.pk)]}
    )
    assert chosen.status_code == 302 and "owners=1" in chosen["Location"]
    admin_client.post(DISABLE, {"ids": str(bot.pk), "owners": "1", "reason": "Cheating."})

    for user in (bot, owner, other):
        user.refresh_from_db()
        assert not user.is_active, user
    assert not ApiToken.objects.filter(user=owner).exists()
    assert "Cheating." in LogEntry.objects.get(object_id=str(owner.pk)).get_change_message()


def test_no_reason_no_change(admin_client: Client, bot: User) -> None:
    page = admin_client.post(DISABLE, {"ids": str(bot.pk), "owners": "1", "reason": ""})

    assert page.status_code == 200 and "required" in page.content.decode()
    bot.refresh_from_db()
    assert bot.is_active


def test_people_among_the_chosen_are_left_alone(
    admin_client: Client, owner: User, bot: User
) -> None:
    page = admin_client.get(DISABLE, {"ids": f"{owner.pk},{bot.pk},x,99999999999999999999"})
    assert "Not bot accounts, left alone: alice" in page.content.decode()

    admin_client.post(DISABLE, {"ids": f"{owner.pk},{bot.pk}", "owners": "0", "reason": "r"})

    owner.refresh_from_db()
    assert owner.is_active


def test_a_staff_member_who_may_not_change_users_cannot_disable(bot: User) -> None:
    staff = make_user("mod")
    staff.is_staff = True
    staff.save()
    client = Client()
    client.force_login(staff)

    response = client.post(DISABLE, {"ids": str(bot.pk), "owners": "1", "reason": "r"})

    assert response.status_code == 403
    bot.refresh_from_db()
    assert bot.is_active


@pytest.mark.parametrize("url", [BOTS, USERS])
def test_every_filter_of_the_two_lists_opens(admin_client: Client, bot: User, url: str) -> None:
    accounts.bot_disable(bot, by=User.objects.get(username="alice"))
    page = admin_client.get(url)
    changelist = page.context["cl"]
    opened = 0
    for spec in changelist.filter_specs:
        for choice in spec.choices(changelist):
            assert admin_client.get(url + choice["query_string"]).status_code == 200, choice
            opened += 1
    assert opened >= 3


def test_a_bot_a_moderator_disables_leaves_its_running_games(
    admin_client: Client, owner: User, bot: User
) -> None:
    table = games.table_create(host=owner, seat_count=2)
    games.invitation_create(table_id=table.pk, host=owner, username="robo")
    games.table_join(table_id=table.pk, user=bot)
    games.table_start(table_id=table.pk, user=owner)

    admin_client.post(DISABLE, {"ids": str(bot.pk), "owners": "0", "reason": "Stalling."})

    seat = Seat.objects.get(table=table, user=bot)
    assert seat.left_at is not None
    assert Table.objects.get(pk=table.pk).status != Table.Status.LOBBY


def test_a_bot_its_owner_disables_keeps_its_seats(owner: User, bot: User) -> None:
    table = games.table_create(host=owner, seat_count=2)
    games.invitation_create(table_id=table.pk, host=owner, username="robo")
    games.table_join(table_id=table.pk, user=bot)
    games.table_start(table_id=table.pk, user=owner)

    accounts.bot_disable(bot, by=owner)

    assert Seat.objects.get(table=table, user=bot).left_at is None


def test_a_bot_a_moderator_disabled_stays_off_until_a_moderator_enables_it(
    admin_client: Client, owner: User, bot: User
) -> None:
    admin_client.post(DISABLE, {"ids": str(bot.pk), "owners": "0", "reason": "Spamming."})
    bot.refresh_from_db()
    assert not bot.is_active

    # Its owner may not switch it back on: not on the page, not through the API.
    with pytest.raises(Forbidden) as refused:
        accounts.bot_enable(bot, by=owner)
    assert refused.value.code == "disabled_by_moderator"
    owner_token = accounts.token_create(user=owner, name="api")[1]
    answer = Client().patch(
        f"/api/v1/me/bots/{bot.username}/",
        {"disabled": False},
        content_type="application/json",
        HTTP_AUTHORIZATION=f"Token {owner_token}",
    )
    assert answer.status_code == 403 and answer.json()["code"] == "disabled_by_moderator"
    bot.refresh_from_db()
    assert not bot.is_active

    # A moderator may; then the owner's own pause and resume work as before.
    moderator = User.objects.get(username="admin")
    assert accounts.bot_enable(bot, by=moderator)
    assert accounts.bot_disable(bot, by=owner)
    assert accounts.bot_enable(bot, by=owner)
