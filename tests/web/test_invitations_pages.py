"""Issue 40 on the web client: inviting from the table page, the lobby's invitations,
the BOT badge wherever a bot account's name shows, and nothing private on any of it."""

from __future__ import annotations

import re

import pytest
from django.contrib.auth.models import User
from django.utils import timezone

from games import services
from games.models import Invitation, Table
from ratings import model
from ratings.models import Rating
from tests.factories import start_table
from tests.games.test_invitations import make_bot
from tests.web.conftest import NEW_TABLE_FORM, logged_in, make_user

pytestmark = pytest.mark.django_db

LIVE = {"X-Gamenook-Live": "1"}
BADGE = '<span class="badge-bot" title="A bot account, run by {owner}">BOT</span>'


def test_the_host_invites_a_bot_by_name_and_sees_it_pending() -> None:
    alice = make_user("alice")
    robo = make_bot(make_user("owner"), "robo")
    table = services.table_create(host=alice, seat_count=3)
    host = logged_in(alice)
    page = host.get(f"/tables/{table.pk}/").content.decode()
    assert "Invite a player or a bot" in page
    assert f'action="/tables/{table.pk}/invite/"' in page

    answer = host.post(f"/tables/{table.pk}/invite/", {"username": "robo"}, headers=LIVE)

    assert answer.status_code == 200 and answer.json()["ok"] is True, answer.content
    html = answer.json()["html"]
    assert 'data-invited="robo"' in html
    assert BADGE.format(owner="owner") in html
    assert Invitation.objects.get(table=table).user == robo
    # Without the script: a redirect to the table, which lists it too.
    make_user("bob")
    again = host.post(f"/tables/{table.pk}/invite/", {"username": "bob"})
    assert again.status_code == 302 and again["Location"] == f"/tables/{table.pk}/"
    page = host.get(f"/tables/{table.pk}/").content.decode()
    assert 'data-invited="bob"' in page and 'data-invited="robo"' in page


def test_inviting_is_refused_with_the_services_words() -> None:
    alice, bob = make_user("alice"), make_user("bob")
    table = services.table_create(host=alice, seat_count=2)
    host = logged_in(alice)
    cases = [
        ({"username": "nobody"}, 404, "no_such_user"),
        ({"username": "alice"}, 409, "invite_self"),
        ({"username": ""}, 400, "bad_request"),
        ({}, 400, "bad_request"),
        ({"username": "x" * 5000}, 400, "bad_request"),
        ({"username": "a\x00b"}, 400, "bad_request"),
    ]
    for form, status, code in cases:
        answer = host.post(f"/tables/{table.pk}/invite/", form, headers=LIVE)
        assert answer.status_code == status, (form, answer.content)
        assert answer.json()["error"]["code"] == code
    stranger = logged_in(bob).post(
        f"/tables/{table.pk}/invite/", {"username": "alice"}, headers=LIVE
    )
    assert stranger.status_code == 403 and stranger.json()["error"]["code"] == "not_host"
    guest_page = logged_in(bob).get(f"/tables/{table.pk}/").content.decode()
    assert "/invite/" not in guest_page  # only the host sees the form
    assert logged_in(alice).get(f"/tables/{table.pk}/invite/").status_code == 405
    assert not Invitation.objects.exists()


def test_the_lobby_lists_my_invitations_with_join_and_decline() -> None:
    alice, bob, carol = make_user("alice"), make_user("bob"), make_user("carol")
    first = services.table_create(host=alice, seat_count=3)
    second = services.table_create(host=carol, seat_count=2)
    one = services.invitation_create(table_id=first.pk, host=alice, username="bob")
    two = services.invitation_create(table_id=second.pk, host=carol, username="bob")
    guest = logged_in(bob)
    page = guest.get("/").content.decode()
    assert "Invitations for you" in page
    assert re.findall(r'data-invitation="(\d+)"', page) == [str(two.pk), str(one.pk)]
    assert f'action="/invitations/{one.pk}/decline/"' in page
    assert f'data-join="{first.pk}"' in page

    declined = guest.post(f"/invitations/{one.pk}/decline/")
    assert declined.status_code == 302
    one.refresh_from_db()
    assert one.status == Invitation.Status.DECLINED
    joined = guest.post(f"/tables/{second.pk}/join/")
    assert joined.status_code == 302
    two.refresh_from_db()
    assert two.status == Invitation.Status.ACCEPTED
    assert "Invitations for you" not in guest.get("/").content.decode()


def test_declining_another_users_invitation_changes_nothing() -> None:
    alice, bob, mallory = make_user("alice"), make_user("bob"), make_user("mallory")
    table = services.table_create(host=alice, seat_count=2)
    invitation = services.invitation_create(table_id=table.pk, host=alice, username="bob")
    for client in (logged_in(mallory), logged_in(alice)):
        answer = client.post(f"/invitations/{invitation.pk}/decline/", follow=True)
        assert "You have no invitation with that id." in answer.content.decode()
    invitation.refresh_from_db()
    assert invitation.status == Invitation.Status.PENDING
    huge = logged_in(bob).post("/invitations/99999999999999999999/decline/", follow=True)
    assert huge.status_code == 200
    assert logged_in(bob).get(f"/invitations/{invitation.pk}/decline/").status_code == 405
    # Nobody else's lobby shows it.
    assert f'data-invitation="{invitation.pk}"' not in logged_in(mallory).get("/").content.decode()


def test_the_host_withdraws_an_invitation_from_the_table_page() -> None:
    alice, bob = make_user("alice"), make_user("bob")
    table = services.table_create(host=alice, seat_count=3)
    invitation = services.invitation_create(table_id=table.pk, host=alice, username="bob")
    host = logged_in(alice)
    url = f"/tables/{table.pk}/invitations/{invitation.pk}/withdraw/"
    page = host.get(f"/tables/{table.pk}/").content.decode()
    assert f'action="{url}"' in page and 'data-withdraw="bob"' in page
    # Nobody but the host sees it or may use it.
    assert url not in logged_in(bob).get(f"/tables/{table.pk}/").content.decode()
    refused = logged_in(bob).post(url, headers=LIVE)
    assert refused.status_code == 404
    assert refused.json()["error"]["code"] == "no_such_invitation"
    invitation.refresh_from_db()
    assert invitation.status == Invitation.Status.PENDING

    answer = host.post(url, headers=LIVE)
    assert answer.status_code == 200 and answer.json()["ok"] is True
    assert 'data-invited="bob"' not in answer.json()["html"]
    invitation.refresh_from_db()
    assert invitation.status == Invitation.Status.WITHDRAWN
    assert f'data-invitation="{invitation.pk}"' not in logged_in(bob).get("/").content.decode()
    huge = host.post(f"/tables/{table.pk}/invitations/99999999999999999999/withdraw/", headers=LIVE)
    assert huge.status_code == 404 and huge.json()["error"]["code"] == "no_such_invitation"
    long_table = host.post(f"/tables/{'9' * 30}/invitations/{invitation.pk}/withdraw/", follow=True)
    assert long_table.status_code < 500
    again = host.post(url, follow=True)  # without the script: the page says why
    assert "That invitation is withdrawn already." in again.content.decode()
    assert host.get(url).status_code == 405


def test_the_new_table_form_offers_the_bot_accounts_choice() -> None:
    alice = make_user("alice")
    page = logged_in(alice).get("/").content.decode()
    assert "Bot accounts" in page
    for value in ("refused", "invited", "welcome"):
        assert f'value="{value}"' in page
    assert "a bot account sits here only if you invite it by name" in page
    made = logged_in(alice).post("/tables/new/", {**NEW_TABLE_FORM, "bot_accounts": "welcome"})
    assert made.status_code == 302
    assert Table.objects.get(host=alice).bot_accounts == "welcome"
    bad = logged_in(alice).post("/tables/new/", {**NEW_TABLE_FORM, "bot_accounts": "always"})
    assert bad.status_code == 400
    default = logged_in(make_user("bob")).post("/tables/new/", NEW_TABLE_FORM)
    assert default.status_code == 302
    assert Table.objects.get(host__username="bob").bot_accounts == "invited"


def _bots_game(owner: User, bot: User) -> Table:
    """A running game of ``owner`` and their bot ``bot``."""
    table = services.table_create(host=owner, seat_count=2, bot_accounts="welcome")
    services.table_join(table_id=table.pk, user=bot)
    services.table_start(table_id=table.pk, user=owner)
    return Table.objects.get(pk=table.pk)


def test_the_badge_shows_beside_a_bots_name_everywhere_and_never_beside_a_persons() -> None:
    owner = make_user("owner")
    robo = make_bot(owner, "robo")
    badge = BADGE.format(owner="owner")
    table = _bots_game(owner, robo)
    client = logged_in(owner)
    pages = {
        "table": client.get(f"/tables/{table.pk}/").content.decode(),
        "lobby": client.get("/").content.decode(),
        "player": client.get("/players/robo/").content.decode(),
        "versus": client.get("/players/owner/versus/robo/").content.decode(),
    }
    for name, page in pages.items():
        assert page.count(badge) >= 1, name
    assert "A bot account: a program that" in pages["player"]
    person = client.get("/players/owner/").content.decode()
    assert "badge-bot" not in person
    # A lobby row of people only has no badge at all.
    alice, bob = make_user("alice"), make_user("bob")
    start_table(alice, bob)
    assert "badge-bot" not in logged_in(alice).get("/").content.decode()
    # And at a lobby table, the seat of a bot account that joined.
    lobby = services.table_create(host=alice, seat_count=3, bot_accounts="welcome")
    services.table_join(table_id=lobby.pk, user=make_bot(owner, "droid"))
    seats = logged_in(alice).get(f"/tables/{lobby.pk}/").content.decode()
    assert seats.count(badge) == 1


def test_the_badge_in_the_ranking_at_the_game_end() -> None:
    owner = make_user("owner")
    robo = make_bot(owner, "robo")
    table = _bots_game(owner, robo)
    services.table_concede(table_id=table.pk, user=owner)
    assert Table.objects.get(pk=table.pk).status == Table.Status.FINISHED
    page = logged_in(owner).get(f"/tables/{table.pk}/").content.decode()
    ranking = page[page.index('class="ranking-list"') :]
    ranking = ranking[: ranking.index("</ol>")]
    assert BADGE.format(owner="owner") in ranking


def test_the_leaderboards_have_a_bots_tab() -> None:
    owner = make_user("owner")
    people = [make_user(f"human{n}") for n in range(2)]
    bots = [make_bot(owner, f"bot{n}") for n in range(2)]
    for n, user in enumerate([*people, *bots]):
        Rating.objects.create(
            game="flip",
            mode="correspondence",
            rules="standard",
            user=user,
            mu=30.0 - n,
            sigma=2.0,
            ordinal=model.ordinal(30.0 - n, 2.0),
            games=20,
            last_game_at=timezone.now(),
        )
    client = logged_in(owner)
    board = "/leaderboards/flip/correspondence/"
    humans = client.get(board, {"rules": "standard"}).content.decode()
    assert 'data-tab="bots"' in humans
    assert "human0" in humans and "bot0" not in humans and "badge-bot" not in humans
    machines = client.get(board, {"rules": "standard", "players": "bots"}).content.decode()
    assert "bot0" in machines and "bot1" in machines and "human0" not in machines
    assert machines.count(BADGE.format(owner="owner")) == 2
    assert 'data-tab="people"' in machines
    assert client.get(board, {"players": "robots"}).status_code == 400


def test_no_page_shows_a_bots_token_or_anyones_private_facts() -> None:
    """The pages that show a bot account show its name and owner's name, nothing more:
    no e-mail address, no token, no description an owner keeps to themselves."""
    owner = make_user("owner")
    robo = make_bot(owner, "robo")
    table = _bots_game(owner, robo)
    lobby = services.table_create(host=owner, seat_count=3, allow_watchers=True)
    make_user("alice")
    services.invitation_create(table_id=lobby.pk, host=owner, username="alice")
    viewer = logged_in(make_user("viewer"))
    pages = [
        viewer.get(f"/tables/{table.pk}/").content.decode(),
        viewer.get(f"/tables/{lobby.pk}/").content.decode(),
        viewer.get("/players/robo/").content.decode(),
        viewer.get("/players/owner/versus/robo/").content.decode(),
        viewer.get("/").content.decode(),
    ]
    assert "Waiting for players" in pages[1]  # the lobby table's own page, watched
    assert BADGE.format(owner="owner") in pages[2]
    for page in pages:
        assert "owner@example.com" not in page
        assert "viewer@example.com" not in page
        assert "Token " not in page
        assert "data-invited" not in page  # the host's list of invitations is the host's
