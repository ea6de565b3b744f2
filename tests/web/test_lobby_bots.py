"""The lobby's bots in the web client (issue 36 §6): the host's button takes a bot off
before the start, and the bots at one table are named apart on every page and in the
game-over e-mail."""

from __future__ import annotations

import re
from datetime import timedelta

import pytest
import time_machine
from django.contrib.auth.models import User
from django.utils import timezone

import flip
from games import services
from games.models import Move, Seat, Table
from notifications import services as notifications
from notifications.models import OutboxMessage
from tests.factories import first_legal_request, start_table
from tests.web.conftest import logged_in, make_user

pytestmark = pytest.mark.django_db

LIVE = {"X-Gamenook-Live": "1"}


def lobby_table(host: User, guest: User) -> Table:
    """Seats: the host, an easy bot, the guest, an easy bot (one open seat)."""
    table = services.table_create(host=host, seat_count=5)
    services.table_add_bot(table_id=table.pk, user=host, level="easy")
    services.table_join(table_id=table.pk, user=guest)
    services.table_add_bot(table_id=table.pk, user=host, level="easy")
    return table


def seat_rows(table: Table) -> list[tuple[int, str]]:
    rows = Seat.objects.filter(table=table).order_by("number")
    return [(s.number, s.bot_level or str(s.user)) for s in rows]


def test_the_host_sees_a_remove_button_for_each_bot_and_takes_one_off() -> None:
    alice, bob = make_user("alice"), make_user("bob")
    table = lobby_table(alice, bob)
    host = logged_in(alice)
    page = host.get(f"/tables/{table.pk}/").content.decode()
    assert "Bot 1 (easy)" in page and "Bot 2 (easy)" in page
    buttons = re.findall(r'action="/tables/\d+/bots/(\d+)/remove/"', page)
    assert buttons == ["1", "3"]
    assert ">Remove Bot 1 (easy)</button>" in page and ">Remove Bot 2 (easy)</button>" in page
    guest = logged_in(bob).get(f"/tables/{table.pk}/").content.decode()
    assert "/remove/" not in guest

    answer = host.post(f"/tables/{table.pk}/bots/1/remove/", headers=LIVE)

    assert answer.status_code == 200 and answer.json()["ok"] is True
    assert seat_rows(table) == [(0, "alice"), (1, "bob"), (2, "easy")]
    html = answer.json()["html"]
    assert "Bot 1 (easy)" in html and "Bot 2 (easy)" not in html
    # Without the script: a redirect to the table.
    again = host.post(f"/tables/{table.pk}/bots/2/remove/")
    assert again.status_code == 302 and again["Location"] == f"/tables/{table.pk}/"
    assert seat_rows(table) == [(0, "alice"), (1, "bob")]


def test_removing_a_bot_from_the_page_is_refused_and_changes_nothing() -> None:
    alice, bob = make_user("alice"), make_user("bob")
    table = lobby_table(alice, bob)
    before = seat_rows(table)
    refused = logged_in(bob).post(f"/tables/{table.pk}/bots/1/remove/", headers=LIVE)
    assert refused.status_code == 403 and refused.json()["error"]["code"] == "not_host"
    person = logged_in(alice).post(f"/tables/{table.pk}/bots/2/remove/", headers=LIVE)
    assert person.status_code == 409 and person.json()["error"]["code"] == "not_a_bot"
    assert logged_in(alice).get(f"/tables/{table.pk}/bots/1/remove/").status_code == 405
    services.table_start(table_id=table.pk, user=alice)
    started = logged_in(alice).post(f"/tables/{table.pk}/bots/1/remove/", headers=LIVE)
    assert started.status_code == 409 and started.json()["error"]["code"] == "not_in_lobby"
    assert seat_rows(table) == before


def test_the_bots_are_named_apart_in_the_lobby_the_table_and_the_game_over_mail() -> None:
    alice, bob = make_user("alice"), make_user("bob")
    table = start_table(alice, bob, bots=2, level="easy")
    services.table_run_bots(table_id=table.pk)
    client = logged_in(alice)
    lobby = client.get("/").content.decode()
    assert "alice, bob, Bot 1 (easy), Bot 2 (easy)" in lobby
    page = client.get(f"/tables/{table.pk}/").content.decode()
    assert "Bot 1 (easy)" in page and "Bot 2 (easy)" in page

    people = {0: alice, 1: bob}
    for _ in range(2000):  # each plays their first legal action; the bots play inline
        table.refresh_from_db()
        if table.status != Table.Status.ACTIVE:
            break
        assert table.state is not None and table.to_act in people
        state = flip.GameState.from_dict(table.state)
        services.table_apply_action(
            table_id=table.pk,
            user=people[table.to_act],
            data=first_legal_request(state, table.to_act),
            expected_seq=None,
        )
        services.table_run_bots(table_id=table.pk)
    assert table.status == Table.Status.FINISHED
    # "Game over" goes to whoever did not end the game, once they are not at the table
    # (issue 38): a minute after Alice's look at the page.
    last = Move.objects.filter(table=table).order_by("-seq").first()
    assert last is not None
    reader = bob if last.seat == 0 and last.source == Move.Source.PLAYER else alice
    with time_machine.travel(timezone.now() + timedelta(minutes=2)):
        notifications.table_followups(
            table_id=table.pk, seq=table.seq, new_turn=False, finished=True
        )
    mail = OutboxMessage.objects.get(kind="game_over", user=reader)
    assert "Bot 1 (easy)" in mail.text and "Bot 2 (easy)" in mail.text
    assert "Bot 1 (easy)" in mail.html and "Bot 2 (easy)" in mail.html
