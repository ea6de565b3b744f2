"""The user admin and seats handed to bots: issue 10, section 4.

- Unticking "Active" goes through ``user_deactivate``: the user leaves every
  running table and loses every token.
- Deleting a user who has played explains why it cannot be done and offers
  anonymising; a user who never played is deleted as usual.
- A player whose seat was handed to a bot keeps the watcher view, the log
  and, at the end, the record of that table.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest
from django.contrib.auth.models import User
from django.test import Client
from rest_framework.test import APIClient

from accounts import services as accounts
from accounts.models import ApiToken
from games import services as games
from games.models import Seat, Table
from notifications.models import OutboxMessage, Preferences
from tests.factories import make_user, start_table
from tests.games.conftest import assert_error

pytestmark = pytest.mark.django_db

Api = Callable[[User | None], APIClient]


def change_form(user: User, **changes: Any) -> dict[str, Any]:
    """The user change form's POST data as the admin page sends it, with ``changes``."""
    data = {
        "username": user.username,
        "email": user.email,
        "first_name": user.first_name,
        "last_name": user.last_name,
        "date_joined_0": user.date_joined.strftime("%Y-%m-%d"),
        "date_joined_1": user.date_joined.strftime("%H:%M:%S"),
        "api_tokens-TOTAL_FORMS": "0",
        "api_tokens-INITIAL_FORMS": "0",
        "api_tokens-MIN_NUM_FORMS": "0",
        "api_tokens-MAX_NUM_FORMS": "1000",
    }
    if user.is_active:
        data["is_active"] = "on"
    data.update(changes)
    return {key: value for key, value in data.items() if value is not None}


def test_unticking_active_leaves_every_running_table_and_revokes_tokens(
    admin_client: Client,
) -> None:
    alice, bob = make_user("alice"), make_user("bob")
    table = start_table(alice, bob)
    accounts.token_create(user=bob, name="phone")

    response = admin_client.post(
        f"/admin/auth/user/{bob.pk}/change/", change_form(bob, is_active=None)
    )

    assert response.status_code == 302, response.content[:2000]
    bob.refresh_from_db()
    assert not bob.is_active
    seat = Seat.objects.get(table=table, user=bob)
    assert seat.left_at is not None
    table.refresh_from_db()
    assert table.status == Table.Status.FINISHED  # alone at the table, alice has won
    assert not ApiToken.objects.filter(user=bob).exists()


def test_saving_the_change_form_of_an_active_user_leaves_their_tables_alone(
    admin_client: Client,
) -> None:
    alice, bob = make_user("alice"), make_user("bob")
    table = start_table(alice, bob)

    response = admin_client.post(
        f"/admin/auth/user/{bob.pk}/change/", change_form(bob, first_name="Bob")
    )

    assert response.status_code == 302
    assert Seat.objects.get(table=table, user=bob).left_at is None


def test_deleting_a_user_who_played_says_why_and_offers_anonymising(
    admin_client: Client,
) -> None:
    alice, bob = make_user("alice"), make_user("bob")
    start_table(alice, bob)

    page = admin_client.get(f"/admin/auth/user/{bob.pk}/delete/")

    assert page.status_code == 200
    text = page.content.decode()
    assert "cannot be deleted" in text and "kept for good" in text
    assert "permission" not in text.split("That is")[0]  # the reason is not permissions
    assert "Anonymise bob" in text

    done = admin_client.post(f"/admin/auth/user/{bob.pk}/delete/", {"anonymise": "yes"})

    assert done.status_code == 302
    bob.refresh_from_db()
    assert (bob.username, bob.email, bob.is_active) == (f"deleted-{bob.pk}", "", False)
    assert not bob.has_usable_password()
    assert not Preferences.objects.filter(user=bob).exists()
    assert not OutboxMessage.objects.filter(user=bob).exists()
    assert Seat.objects.filter(user=bob).exists()  # the games stay, under the new name


def test_a_user_who_never_played_is_deleted_as_usual(admin_client: Client) -> None:
    dora = make_user("dora")

    page = admin_client.get(f"/admin/auth/user/{dora.pk}/delete/")
    assert page.status_code == 200 and b"Are you sure" in page.content
    done = admin_client.post(f"/admin/auth/user/{dora.pk}/delete/", {"post": "yes"})

    assert done.status_code == 302
    assert not User.objects.filter(pk=dora.pk).exists()


def test_bulk_delete_keeps_the_users_who_played_and_says_why(admin_client: Client) -> None:
    alice, bob, dora = make_user("alice"), make_user("bob"), make_user("dora")
    start_table(alice, bob)
    selected = {"action": "delete_selected", "_selected_action": [bob.pk, dora.pk]}

    confirm = admin_client.post("/admin/auth/user/", selected)
    assert confirm.status_code == 200 and b"Are you sure" in confirm.content
    assert any("kept for good" in m for m in _messages(confirm))
    # The confirmation page lists dora only; confirming deletes her alone.
    done = admin_client.post(
        "/admin/auth/user/", {**selected, "_selected_action": [dora.pk], "post": "yes"}
    )

    assert done.status_code == 302
    assert User.objects.filter(pk=bob.pk).exists()
    assert not User.objects.filter(pk=dora.pk).exists()


def _messages(response: Any) -> list[str]:
    return [str(m) for m in response.context["messages"]]


def test_the_token_admin_shows_prefixes_never_keys(admin_client: Client) -> None:
    alice = make_user("alice")
    _token, key = accounts.token_create(user=alice, name="laptop")

    listing = admin_client.get("/admin/accounts/apitoken/")
    user_page = admin_client.get(f"/admin/auth/user/{alice.pk}/change/")

    for page in (listing, user_page):
        assert page.status_code == 200
        assert key[:8].encode() in page.content
        assert key.encode() not in page.content


# ----------------------------------------------------------------------------
# A seat handed to a bot


@pytest.mark.parametrize("allow_watchers", [False, True])
def test_a_player_replaced_by_a_bot_keeps_the_view_log_and_record(
    api: Api, allow_watchers: bool
) -> None:
    alice, bob = make_user("alice"), make_user("bob")
    table = start_table(alice, bob, allow_watchers=allow_watchers)
    games.seat_replace_with_bot(table_id=table.pk, number=1, level="easy")
    seat = Seat.objects.get(table=table, number=1)
    assert (seat.user, seat.previous_user) == (None, bob)
    client = api(bob)

    view = client.get(f"/api/v1/tables/{table.pk}/view/")
    assert view.status_code == 200
    assert view.json()["game"]["seat"] is None  # the watcher view: no hand, no faces
    assert view.json()["game"]["hand"] == []
    assert client.get(f"/api/v1/tables/{table.pk}/log/").status_code == 200
    assert_error(client.get(f"/api/v1/tables/{table.pk}/record/"), 409, "game_not_over")
    # Nor may they act for the bot.
    assert_error(
        client.post(f"/api/v1/tables/{table.pk}/actions/", {"type": "draw"}, format="json"),
        403,
        "not_seated",
    )
    mine = client.get("/api/v1/tables/?mine=true").json()
    assert [t["id"] for t in mine["results"]] == [table.pk]

    games.seat_replace_with_bot(table_id=table.pk, number=0, level="easy")
    games.table_run_bots(table_id=table.pk)
    table.refresh_from_db()
    assert table.status == Table.Status.FINISHED
    assert client.get(f"/api/v1/tables/{table.pk}/record/").status_code == 200


def test_someone_else_still_may_not_watch_a_table_without_watchers(api: Api) -> None:
    alice, bob, carol = make_user("alice"), make_user("bob"), make_user("carol")
    table = start_table(alice, bob)
    games.seat_replace_with_bot(table_id=table.pk, number=1, level="easy")

    response = api(carol).get(f"/api/v1/tables/{table.pk}/view/")

    assert_error(response, 403, "watching_not_allowed")
