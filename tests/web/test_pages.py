"""The web client's pages and fragments, without a browser (Django's test client)."""

from __future__ import annotations

import re
from datetime import timedelta
from typing import Any

import pytest
import time_machine
from django.contrib.auth.models import Permission, User
from django.test import Client
from django.utils import timezone

from games import services
from games.models import Move, Table
from notifications import services as notifications
from notifications.models import OutboxMessage
from tests.factories import start_table
from tests.web.conftest import NEW_TABLE_FORM, PASSWORD, logged_in, make_user

pytestmark = pytest.mark.django_db

LIVE = {"HTTP_X_GAMENOOK_LIVE": "1"}


def table_id_of(response: Any) -> int:
    return int(response["Location"].strip("/").split("/")[-1])


def new_table(client: Client, **fields: str) -> int:
    response = client.post("/tables/new/", {**NEW_TABLE_FORM, **fields})
    assert response.status_code == 302
    return table_id_of(response)


def play_to_the_end(table_id: int, clients: dict[int, Client]) -> None:
    """Play the first marked card (or draw, or the first colour) until the game is over."""
    for _ in range(2000):
        table = Table.objects.get(pk=table_id)
        if table.status != Table.Status.ACTIVE:
            return
        assert table.state is not None
        client = clients[table.state["current"]]
        html = client.get(f"/tables/{table_id}/live/").content.decode()
        seq = re.search(r'data-seq="(\d+)"', html)
        assert seq is not None
        data = {"expected_seq": seq.group(1), "type": "draw"}
        colour = re.search(r'data-key="choose-(\w+)"', html)
        card = re.search(r'data-card="([0-9a-f]+)" data-playable="true"', html)
        if colour:
            data.update(type="choose_color", color=colour.group(1))
        elif card:
            data.update(type="play", card=card.group(1))
            wild = re.search(rf'data-key="color-{card.group(1)}-(\w+)"', html)
            if wild:
                data["color"] = wild.group(1)
        elif 'data-key="pass"' in html:
            data["type"] = "pass"
        assert client.post(f"/tables/{table_id}/act/", data, **LIVE).status_code == 200
    raise AssertionError("the game did not end")


# --- the root, accounts ------------------------------------------------------------


def test_the_root_is_the_log_in_page_when_logged_out_and_the_lobby_when_logged_in() -> None:
    anonymous = Client()
    response = anonymous.get("/")
    assert response.status_code == 302 and response["Location"].startswith("/login/")
    assert "Log in" in anonymous.get("/login/").content.decode()
    lobby = logged_in(make_user()).get("/")
    assert lobby.status_code == 200 and "<h1>Lobby</h1>" in lobby.content.decode()


def test_an_unknown_page_is_the_sites_own_not_found_page() -> None:
    response = Client().get("/no-such-page/")
    assert response.status_code == 404
    assert "Nothing here" in response.content.decode()


def test_sign_up_creates_the_account_and_logs_in() -> None:
    client = Client()
    fields = {"username": "dora", "email": "dora@example.com"}
    response = client.post("/signup/", {**fields, "password": PASSWORD, "password_again": PASSWORD})
    assert response.status_code == 302
    # The address waits for confirmation before it is the account's (issue 35 §5).
    assert User.objects.filter(username="dora", pending_email__email="dora@example.com").exists()
    assert "<h1>Lobby</h1>" in client.get("/").content.decode()
    again = Client().post("/signup/", {**fields, "password": PASSWORD, "password_again": PASSWORD})
    assert again.status_code == 400
    assert "A user with that username already exists." in again.content.decode()
    weak = Client().post(
        "/signup/", {"username": "eve", "email": "e@x.org", "password": "1", "password_again": "1"}
    )
    assert weak.status_code == 400
    assert "This password is too short" in weak.content.decode()
    assert not User.objects.filter(username="eve").exists()


def test_log_in_and_log_out() -> None:
    make_user("frank")
    client = Client()
    response = client.post("/login/", {"username": "frank", "password": PASSWORD})
    assert response.status_code == 302
    assert client.get("/").status_code == 200
    assert client.post("/logout/").status_code == 302
    assert client.get("/")["Location"].startswith("/login/")


def test_the_account_page_changes_the_address_and_the_e_mail_preferences() -> None:
    user = make_user("gina")
    client = logged_in(user)
    page = client.get("/account/").content.decode()
    assert "gina@example.com" in page and "What we tell you, and how" in page
    client.post(
        "/account/", {"form": "email", "email": "new@example.com", "current_password": PASSWORD}
    )
    user.refresh_from_db()
    assert user.email == "gina@example.com"  # until new@example.com is confirmed
    assert "Waiting for confirmation: <strong>new@example.com</strong>" in (
        client.get("/account/").content.decode()
    )
    client.post("/account/", {"form": "preferences", "your_turn": "on", "game_over": "on"})
    prefs = notifications.preferences_get(user)
    assert (prefs["your_turn"], prefs["reminder"], prefs["timeout"]) == (True, False, False)
    # The digest at 19:00 in Paris; a zone nobody knows is refused, and nothing changes.
    client.post(
        "/account/",
        {"form": "preferences", "digest": "on", "digest_hour": "19", "time_zone": "Europe/Paris"},
    )
    prefs = notifications.preferences_get(user)
    assert (prefs["digest"], prefs["digest_hour"], prefs["time_zone"]) == (
        True,
        19,
        "Europe/Paris",
    )
    refused = client.post(
        "/account/", {"form": "preferences", "digest_hour": "7", "time_zone": "Mars/Olympus"}
    )
    assert refused.status_code == 400
    assert "We do not know that time zone" in refused.content.decode()
    assert notifications.preferences_get(user)["digest_hour"] == 19
    client.post("/account/", {"form": "unsubscribe"})
    assert notifications.preferences_get(user)["unsubscribed_all"] is True
    assert "unsubscribed from all" in client.get("/account/").content.decode()
    client.post("/account/", {"form": "resubscribe"})
    assert notifications.preferences_get(user)["unsubscribed_all"] is False


# --- the lobby -----------------------------------------------------------------------


def test_a_table_opens_with_every_option_of_the_form() -> None:
    host = logged_in(make_user())
    table_id = new_table(
        host,
        seat_count="10",
        turn_hours="72",
        timeout_policy="leave",
        **{
            "flip-scoring": "target",
            "flip-target": "1000",
            "flip-two_seat_reverse_skips": "",
        },
        allow_watchers="on",
    )
    table = Table.objects.get(pk=table_id)
    assert (table.seat_count, table.turn_hours, table.timeout_policy) == (10, 72, "leave")
    assert (table.options["scoring"], table.options["target"]) == ("target", 1000)
    assert table.options["two_seat_reverse_skips"] is False and table.allow_watchers is True
    single = Table.objects.get(pk=new_table(host, **{"flip-scoring": "single"}))
    assert (
        single.options["scoring"],
        single.options["two_seat_reverse_skips"],
        single.allow_watchers,
    ) == (
        "single",
        True,
        False,
    )
    refused = host.post(
        "/tables/new/", {"seat_count": "11", "mode": "turn_by_turn", "turn_hours": "5"}
    )
    assert refused.status_code == 400 and Table.objects.count() == 2
    assert "Select a valid choice" in refused.content.decode()


def test_the_lobby_lists_my_turn_first_then_my_games_open_tables_and_finished_ones() -> None:
    alice, bob = make_user("alice"), make_user("bob")
    mine = start_table(alice, bob)  # seat 1 (bob) acts first at a fresh two-seat table
    theirs = start_table(bob, alice)  # here alice is seat 1: her turn
    open_table = services.table_create(host=bob, seat_count=3)
    page = logged_in(alice).get("/").content.decode()
    sections = page.split("<h2")
    my_turn = next(s for s in sections if "Your turn" in s[:40])
    others = next(s for s in sections if "Your other games" in s[:40])
    joinable = next(s for s in sections if "Open tables" in s[:40])
    state = Table.objects.get(pk=theirs.pk).state
    assert state is not None
    to_act = 0 if state["current"] == 1 else 1
    assert (f"Table {theirs.pk}" in my_turn) == (to_act == 0)
    assert f"Table {mine.pk}" in my_turn + others and "left" in my_turn + others
    assert f"Join table {open_table.pk}" in joinable


def test_joining_adding_bots_starting_and_leaving_go_through_the_services() -> None:
    alice, bob, carol = make_user("alice"), make_user("bob"), make_user("carol")
    host = logged_in(alice)
    table_id = new_table(host)
    base = f"/tables/{table_id}/"
    assert logged_in(bob).post(base + "join/").status_code == 302
    refused = logged_in(bob).post(base + "bots/", {"level": "hard"}, **LIVE)
    assert refused.status_code == 403 and refused.json()["error"]["code"] == "not_host"
    assert host.post(base + "bots/", {"level": "hard"}).status_code == 302
    full = logged_in(carol).post(base + "join/", **LIVE)
    assert full.status_code == 409 and full.json()["error"]["code"] == "table_full"
    assert logged_in(bob).post(base + "start/", **LIVE).json()["error"]["code"] == "not_host"
    started = host.post(base + "start/", **LIVE)
    assert started.status_code == 200 and started.json()["ok"] is True
    table = Table.objects.get(pk=table_id)
    assert table.status == "active"
    # The bot has played its turns, as after an API move.
    assert table.state is not None and table.seats.get(number=table.state["current"]).user


# --- the table -----------------------------------------------------------------------


def running(players: int = 2, bots: int = 1, **options: Any) -> tuple[Table, list[User]]:
    users = [make_user() for _ in range(players)]
    table = start_table(users[0], *users[1:], bots=bots, **options)
    services.table_run_bots(table_id=table.pk)
    return Table.objects.get(pk=table.pk), users


def test_the_live_fragment_answers_304_until_the_table_changes() -> None:
    table, (alice, bob) = running()
    client = logged_in(alice)
    first = client.get(f"/tables/{table.pk}/live/")
    etag = first["ETag"]
    assert first.status_code == 200 and etag == f'"{table.seq}.active.0"'
    again = client.get(f"/tables/{table.pk}/live/", HTTP_IF_NONE_MATCH=etag)
    assert again.status_code == 304 and again.content == b""
    # Another seat's ETag is its own.
    assert logged_in(bob).get(f"/tables/{table.pk}/live/")["ETag"] != etag
    play_to_the_end(table.pk, {0: client, 1: logged_in(bob)})
    after = client.get(f"/tables/{table.pk}/live/", HTTP_IF_NONE_MATCH=etag)
    assert after.status_code == 200 and after["ETag"] != etag


def test_a_lobby_fragment_changes_when_someone_takes_a_seat() -> None:
    host = logged_in(make_user())
    table_id = new_table(host)
    etag = host.get(f"/tables/{table_id}/live/")["ETag"]
    logged_in(make_user()).post(f"/tables/{table_id}/join/")
    changed = host.get(f"/tables/{table_id}/live/", HTTP_IF_NONE_MATCH=etag)
    assert changed.status_code == 200 and "2 of 3 seats taken" in changed.content.decode()


def test_a_refused_move_answers_the_rules_sentence_and_changes_nothing() -> None:
    table, (alice, bob) = running()
    state = table.state
    assert state is not None
    idle = logged_in([alice, bob][1 - state["current"]] if state["current"] < 2 else alice)
    html = idle.get(f"/tables/{table.pk}/live/").content.decode()
    card = re.search(r'data-card="([0-9a-f]+)"', html)
    assert card is not None
    before = table.seq
    answer = idle.post(f"/tables/{table.pk}/act/", {"type": "play", "card": card.group(1)}, **LIVE)
    assert answer.status_code == 422
    body = answer.json()
    assert body["error"] == {"code": "not_your_turn", "detail": "It is not your turn."}
    assert f'data-seq="{before}"' in body["html"]
    assert Table.objects.get(pk=table.pk).seq == before
    assert Move.objects.filter(table=table).count() == before
    # Without the script, the same refusal comes back as a message on the table page.
    plain = idle.post(f"/tables/{table.pk}/act/", {"type": "draw"}, follow=True)
    assert "It is not your turn." in plain.content.decode()


def test_a_move_naming_a_socket_that_cannot_be_one_is_refused_and_changes_nothing() -> None:
    table, (alice, bob) = running(bots=0)
    assert table.state is not None
    mover = logged_in([alice, bob][table.state["current"]])
    before = table.seq
    answer = mover.post(
        f"/tables/{table.pk}/act/",
        {"type": "draw", "expected_seq": before},
        HTTP_X_GAMENOOK_SOCKET="not a socket",
        **LIVE,
    )
    assert answer.status_code == 400
    assert answer.json()["error"]["code"] == "invalid_socket"
    assert Table.objects.get(pk=table.pk).seq == before


def test_a_move_on_a_stale_page_shows_the_table_as_it_is_now() -> None:
    table, (alice, bob) = running()
    clients = {0: logged_in(alice), 1: logged_in(bob)}
    assert table.state is not None
    mover = clients[table.state["current"]]
    html = mover.get(f"/tables/{table.pk}/live/").content.decode()
    card = re.search(r'data-card="([0-9a-f]+)"', html)
    assert card is not None
    answer = mover.post(
        f"/tables/{table.pk}/act/",
        {"type": "play", "card": card.group(1), "expected_seq": table.seq - 1},
        **LIVE,
    )
    assert answer.status_code == 409
    body = answer.json()
    assert body["error"]["code"] == "stale_seq" and "nothing was played" in body["error"]["detail"]
    assert f'data-seq="{table.seq}"' in body["html"]


def test_watching_needs_a_table_that_allows_it_except_for_moderators() -> None:
    closed, _ = running()
    open_, _ = running(allow_watchers=True)
    stranger = logged_in(make_user())
    assert stranger.get(f"/tables/{closed.pk}/").status_code == 403
    assert stranger.get(f"/tables/{closed.pk}/live/").status_code == 403
    guessed = f'"{closed.seq}.active.w"'  # not even a 304 for a guessed ETag
    assert stranger.get(f"/tables/{closed.pk}/live/", HTTP_IF_NONE_MATCH=guessed).status_code == 403
    page = stranger.get(f"/tables/{open_.pk}/")
    assert page.status_code == 200 and "You are watching" in page.content.decode()
    moderator = make_user()
    moderator.user_permissions.add(Permission.objects.get(codename="change_table"))
    watched = logged_in(User.objects.get(pk=moderator.pk)).get(f"/tables/{closed.pk}/")
    assert watched.status_code == 200 and "You are watching" in watched.content.decode()


def test_conceding_asks_first_then_leaves_the_game() -> None:
    table, (alice, bob) = running(players=2, bots=1)
    client = logged_in(alice)
    confirm = client.get(f"/tables/{table.pk}/concede/")
    assert confirm.status_code == 200 and "Yes, concede the game" in confirm.content.decode()
    assert table.seats.get(number=0).left_at is None
    client.post(f"/tables/{table.pk}/concede/")
    assert table.seats.get(number=0).left_at is not None
    assert "you left the game" in client.get(f"/tables/{table.pk}/").content.decode()


def test_the_moves_are_told_in_words() -> None:
    table, (alice, bob) = running()
    play_to_the_end(table.pk, {0: logged_in(alice), 1: logged_in(bob)})
    page = logged_in(alice).get(f"/tables/{table.pk}/").content.decode()
    moves = re.findall(r'<li data-move="\d+">([^<]+)', page)
    assert moves and all(m.strip().endswith(".") for m in moves)
    assert any(" played " in m for m in moves)
    assert "Final ranking" in page and "Watch the replay" in page
    assert "Round results" in page and "Scores per round" in page


# --- the replay and the e-mails ------------------------------------------------------


def test_the_replay_opens_once_the_game_is_over_and_steps_through_it() -> None:
    table, (alice, bob) = running()
    client = logged_in(alice)
    not_yet = client.get(f"/tables/{table.pk}/replay/")
    assert not_yet.status_code == 409
    play_to_the_end(table.pk, {0: client, 1: logged_in(bob)})
    first = client.get(f"/tables/{table.pk}/replay/").content.decode()
    assert "Step 0 of" in first and "Round 1 is dealt by" in first
    total = int(re.search(r"Step 0 of (\d+)", first).group(1))  # type: ignore[union-attr]
    assert total == Move.objects.filter(table=table).count() - 1
    step = client.get(f"/tables/{table.pk}/replay/?step=1", **LIVE).content.decode()
    assert "Step 1 of" in step and "<html" not in step
    last = client.get(f"/tables/{table.pk}/replay/?step=99999").content.decode()
    assert f"Step {total} of {total}" in last and "Final ranking" in last
    assert client.get(f"/tables/{table.pk}/replay/?round=1").status_code == 200
    # Face up: a card anybody drew is named in the replay, not only counted.
    steps = (
        client.get(f"/tables/{table.pk}/replay/?step={n}", **LIVE).content.decode()
        for n in range(1, total + 1)
    )
    assert any(re.search(r"drew 1 card \([A-Z]", step) for step in steps)


def test_the_e_mails_link_the_table_page_and_the_game_over_mail_the_replay() -> None:
    table, (alice, bob) = running()
    assert notifications.table_url(table.pk).endswith(f"/tables/{table.pk}/")
    play_to_the_end(table.pk, {0: logged_in(alice), 1: logged_in(bob)})
    table.refresh_from_db()
    # "Game over" goes to the player who did not end the game, once their page is closed
    # (issue 38: the one who ended it, or who has the table open, saw the end there).
    last = Move.objects.filter(table=table).order_by("-seq").first()
    assert last is not None
    reader = bob if last.seat == 0 else alice
    with time_machine.travel(timezone.now() + timedelta(minutes=2)):
        notifications.table_followups(
            table_id=table.pk, seq=table.seq, new_turn=False, finished=True
        )
    message = OutboxMessage.objects.get(kind="game_over", user=reader)
    replay = notifications.replay_url(table.pk)
    assert replay.endswith(f"/tables/{table.pk}/replay/")
    assert replay in message.text and replay in message.html
    assert logged_in(reader).get(replay.split("8000", 1)[1]).status_code == 200


def test_a_moderators_table_page_in_the_admin_links_to_the_watcher_page() -> None:
    table, _ = running()
    admin = User.objects.create_superuser("mod", "mod@example.com", PASSWORD)
    client = logged_in(admin)
    page = client.get(f"/admin/games/table/{table.pk}/change/").content.decode()
    assert f'href="/tables/{table.pk}/"' in page
    watched = client.get(f"/tables/{table.pk}/").content.decode()
    assert "You are watching" in watched and 'data-zone="hand"' not in watched


def test_the_direction_ring_turns_round_with_the_direction_of_play() -> None:
    table, (alice, _) = running()
    client = logged_in(alice)
    assert (
        'aria-label="Direction of play: clockwise"'
        in client.get(f"/tables/{table.pk}/").content.decode()
    )
    # As after a Reverse: the view says counterclockwise, and so does the ring.
    assert table.state is not None
    Table.objects.filter(pk=table.pk).update(
        state={**table.state, "direction": -1}, seq=table.seq + 1
    )
    page = client.get(f"/tables/{table.pk}/").content.decode()
    assert "direction-counterclockwise" in page
    assert 'aria-label="Direction of play: counterclockwise"' in page
