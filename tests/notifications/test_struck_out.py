"""A struck-out or disconnected player is still a player (issue 36 §3; PRODUCT.md rulings
17 and 18, revised).

After three strikes a Normal bot plays the seat for the rest of the game and the
person stays its player: their seat's view, their moves in the history, their lobby,
the finished game and its replay, the game-over mail and the ranking stay theirs;
they may concede, not act. A turn that times out while the seat is held (the
connection dropped) gets the plain move and no strike. The timers and holds are
driven as in ``test_realtime.py``: by time travel and the jobs a worker would hold.
"""

from __future__ import annotations

import re
from datetime import timedelta
from typing import Any

import pytest
import time_machine
from django.contrib.auth.models import User
from django.test import Client
from rest_framework.test import APIClient

import flip
from games import selectors
from games import services as games
from games.models import Move, Seat, Table
from notifications.models import OutboxMessage
from tabletop import realtime
from web import present

from .conftest import Jobs, make_user, play_turn
from .test_realtime import T0, fast_table, run_out, to_act, until_turn_of

pytestmark = pytest.mark.django_db(transaction=True)


def strike_out(table: Table, jobs: Jobs, clock: Any) -> tuple[Seat, User]:
    """Let the seat to act run out of time three times, playing one turn of its own in
    between (a move that stays theirs); returns the seat and its player."""
    slow = to_act(table)
    player = slow.user
    assert player is not None
    for strike in (1, 2, 3):
        until_turn_of(table, slow, jobs)
        run_out(table, clock, jobs)
        slow.refresh_from_db()
        assert slow.strikes == strike
        if strike == 1:
            until_turn_of(table, slow, jobs)
            play_turn(table)
    slow.refresh_from_db()
    return slow, player


def api(user: User) -> APIClient:
    client = APIClient()
    client.force_authenticate(user)
    return client


def web(user: User) -> Client:
    client = Client()
    client.force_login(user)
    return client


def section(page: str, heading: str) -> str:
    """The lobby page's section under ``heading``."""
    return next(part for part in page.split("<h2") if heading in part[:60])


def play_to_the_end(table: Table, jobs: Jobs) -> None:
    """The humans play their turns (the first legal action), the bots theirs, to the end."""
    for _ in range(3000):
        jobs.drain()
        table.refresh_from_db()
        if table.status != Table.Status.ACTIVE:
            return
        seat = to_act(table)
        if not seat.bot_plays:
            play_turn(table)
    raise AssertionError("the game did not end")


def test_a_struck_out_player_keeps_their_seat_view_history_lobby_mail_and_rank(
    jobs: Jobs,
) -> None:
    alice, bob = make_user(), make_user()
    with time_machine.travel(T0, tick=False) as clock:
        table = fast_table(alice, bob)
        seat, player = strike_out(table, jobs, clock)
        other = bob if player == alice else alice
        jobs.drain()  # the bot plays the seat's turns from now on
        table.refresh_from_db()

        # The seat is still theirs; a Normal bot plays it for the rest of the game.
        assert (seat.user, seat.bot_level, seat.previous_user) == (player, "", None)
        assert seat.struck_out
        assert selectors.seat_public_level(seat) == realtime.STAND_IN_LEVEL

        # Their own seat's view, with their hand, and never another seat's.
        body = api(player).get(f"/api/v1/tables/{table.pk}/view/").json()
        state = selectors.table_state(table)
        assert state is not None
        assert body["game"] == flip.view(state, seat.number)
        assert body["game"]["seat"] == seat.number and body["game"]["hand"]
        mine = body["seats"][seat.number]
        assert (mine["username"], mine["name"], mine["replaced"], mine["strikes"]) == (
            player.username,
            player.username,
            True,
            3,
        )
        page = web(player).get(f"/tables/{table.pk}/live/").content.decode()
        assert 'data-zone="hand"' in page and "You are watching" not in page
        # ... and the page offers them no move: the table's bot makes them now.
        assert 'data-playable="true"' not in page and "Your turn" not in page
        assert present.STOOD_IN in page

        # Their earlier moves stay theirs in everybody's history, never "(bot)".
        log = selectors.table_log(table, None)
        names = present.Names(selectors.table_seats(table), None)
        lines = {move["seq"]: move for move in present.moves(log, names)}
        before = Move.objects.get(table=table, action="replace_with_bot").seq
        own = [
            lines[move["seq"]]["text"]
            for move in log
            if move["seat"] == seat.number and move["seq"] < before and move["seq"] in lines
        ]
        name = re.compile(rf"{re.escape(player.username)}\b")
        assert own and all(name.match(line) for line in own), own
        sources = set(
            Move.objects.filter(table=table, seat=seat.number, seq__lt=before).values_list(
                "source", flat=True
            )
        )
        assert sources == {Move.Source.PLAYER, Move.Source.TIMEOUT}
        assert "(bot)" not in web(other).get(f"/tables/{table.pk}/live/").content.decode()
        assert "(bot)" not in " ".join(line["text"] for line in lines.values())

        # The table stays in their lobby, on the page and through the API.
        assert table in selectors.lobby_for(player)["active"]
        lobby = web(player).get("/").content.decode()
        assert f"/tables/{table.pk}/" in section(lobby, "Your other games")
        listed = api(player).get("/api/v1/tables/?mine=true").json()["results"]
        assert table.pk in [entry["id"] for entry in listed]

        # They close the page; the game ends a while later, with nobody looking.
        clock.shift(timedelta(minutes=2))
        play_to_the_end(table, jobs)

    # The finished game and its replay, the game-over mail, their rank by their seat.
    assert table.status == Table.Status.FINISHED
    assert table in selectors.lobby_for(player)["finished"]
    lobby = web(player).get("/").content.decode()
    assert f"/tables/{table.pk}/replay/" in section(lobby, "Finished games")
    assert web(player).get(f"/tables/{table.pk}/replay/").status_code == 200
    assert api(player).get(f"/api/v1/tables/{table.pk}/record/").status_code == 200
    mail = OutboxMessage.objects.get(user=player, kind=OutboxMessage.Kind.GAME_OVER)
    ranking, _ = selectors.final_ranking(table.pk)
    entry = next(one for one in ranking if one["seat"] == seat.number)
    assert entry["name"] == player.username
    assert re.search(rf"\d+\. {re.escape(player.username)}: ", mail.text), mail.text


def test_a_struck_out_player_is_refused_a_move_and_may_concede(jobs: Jobs) -> None:
    alice, bob, carol = make_user(), make_user(), make_user()
    with time_machine.travel(T0, tick=False) as clock:
        table = fast_table(alice, bob, carol)
        seat, player = strike_out(table, jobs, clock)
        table.refresh_from_db()

        # Never their turn in the lobby: the bot plays it.
        turn = table.to_act
        Table.objects.filter(pk=table.pk).update(to_act=seat.number)
        lists = selectors.lobby_for(player)
        assert table not in lists["my_turn"] and table in lists["active"]
        Table.objects.filter(pk=table.pk).update(to_act=turn)

        seq = Table.objects.get(pk=table.pk).seq
        refused = api(player).post(
            f"/api/v1/tables/{table.pk}/actions/", {"type": "draw"}, format="json"
        )
        assert refused.status_code == 409
        assert refused.json()["code"] == "struck_out"
        assert "bot plays your seat for the rest of this game" in refused.json()["detail"]
        page = web(player).post(
            f"/tables/{table.pk}/act/", {"type": "draw"}, HTTP_X_GAMENOOK_LIVE="1"
        )
        assert page.status_code == 409 and page.json()["error"]["code"] == "struck_out"
        assert Table.objects.get(pk=table.pk).seq == seq

        conceded = api(player).post(f"/api/v1/tables/{table.pk}/concede/", format="json")
        assert conceded.status_code == 200
        seat.refresh_from_db()
        assert seat.left_at is not None and seat.user == player
        assert Move.objects.filter(
            table=table, seat=seat.number, action="leave", source=Move.Source.LEAVE
        ).exists()


def test_ruling_18_a_held_seat_takes_no_strike_however_many_turns_time_out(
    jobs: Jobs,
) -> None:
    """The report's case: on a Fast table a player whose connection dropped was struck out
    50 s later, before the two-minute hold could protect him."""
    alice, bob = make_user(), make_user()
    with time_machine.travel(T0, tick=False) as clock:
        table = fast_table(alice, bob)
        held = to_act(table)
        assert held.user is not None
        player = held.user
        games.presence_open(table_id=table.pk, user=player, channel="dropped")
        games.presence_close(channel="dropped")
        held.refresh_from_db()
        assert held.held_until == T0 + timedelta(seconds=realtime.HOLD_SECONDS)

        for _ in range(realtime.STRIKES_FOR_BOT + 1):
            until_turn_of(table, held, jobs)
            assert table.deadline_at is not None and table.deadline_at < held.held_until
            assert table.state is not None
            expected = flip.timeout_action(flip.GameState.from_dict(table.state))
            seq = table.seq
            run_out(table, clock, jobs)
            # The plain move of ruling 4 was played for the seat, and no strike counted.
            first = Move.objects.filter(table=table, seq__gt=seq).order_by("seq").first()
            assert first is not None
            assert (first.seat, first.source, first.payload["action"]) == (
                held.number,
                Move.Source.TIMEOUT,
                expected.to_dict(),
            )
            held.refresh_from_db()
            assert held.strikes == 0
            assert (held.struck_out, held.user) == (False, player)
            assert held.held_until is not None
        assert not Move.objects.filter(table=table, action="replace_with_bot").exists()

        # The hold ends: a bot plays the seat until the player connects again.
        clock.move_to(held.held_until)
        jobs.run_due()
        held.refresh_from_db()
        assert held.away and not held.struck_out and held.strikes == 0


def test_a_player_who_conceded_no_longer_sees_the_table_among_their_other_games(
    jobs: Jobs,  # noqa: ARG001 (the jobs the start queues stay here)
) -> None:
    alice, bob, carol = make_user(), make_user(), make_user()
    table = fast_table(alice, bob, carol, timer="relaxed")
    games.table_concede(table_id=table.pk, user=bob)

    assert table.pk not in [t.pk for t in selectors.lobby_for(bob)["active"]]
    assert table.pk not in [t.pk for t in selectors.lobby_for(bob)["my_turn"]]
    page = web(bob).get("/").content.decode()
    assert f"/tables/{table.pk}/" not in section(page, "Your other games")
    # The players still in it see it as before.
    lists = selectors.lobby_for(alice)
    assert table.pk in [t.pk for t in [*lists["active"], *lists["my_turn"]]]
