"""The moderators' admin: read-only tables and log, moderation through the services.

Every moderation action is driven end to end through HTTP posts with the
``admin_client`` fixture (a logged-in superuser) and checked on three sides:
the table changed as the service says, the table's log got a move with source
``admin``, and Django's admin log (``LogEntry``) records who did it.
"""

from __future__ import annotations

import json
import re

import pytest
from django.contrib.admin.models import CHANGE, LogEntry
from django.contrib.auth.models import Permission, User
from django.db import DatabaseError, connection, transaction
from django.test import Client

import flip
from games import rulesets, services
from games.models import Move, Seat, Table

pytestmark = pytest.mark.django_db

#: The moderation tests run at a table of each game (the admin reaches a game only
#: through its ruleset).
by_game = pytest.mark.parametrize("game", ["flip", "wildcards"])


def _user(name: str) -> User:
    return User.objects.create_user(username=name, email=f"{name}@example.com", password="pw")


def _active_table(*names: str | User, **options: object) -> Table:
    """A running game between the named humans (the first one hosts)."""
    users = [_user(name) if isinstance(name, str) else name for name in names]
    table = services.table_create(host=users[0], seat_count=len(users), **options)  # type: ignore[arg-type]
    for user in users[1:]:
        services.table_join(table_id=table.pk, user=user)
    services.table_start(table_id=table.pk, user=users[0])
    table.refresh_from_db()
    return table


def _last_move(table: Table) -> Move:
    return Move.objects.filter(table=table).order_by("-seq").first()  # type: ignore[return-value]


def _log_entries(obj: object) -> list[LogEntry]:
    return list(
        LogEntry.objects.filter(object_id=str(obj.pk), action_flag=CHANGE).order_by("pk")  # type: ignore[attr-defined]
    )


def _messages(response: object) -> list[str]:
    return [str(m) for m in response.context["messages"]]  # type: ignore[attr-defined]


# ----------------------------------------------------------------------------
# Browsing


def test_table_changelist_lists_filters_and_searches_by_seat_username(
    admin_client: Client,
) -> None:
    table = _active_table("alice", "bob")
    _active_table("carol", "dave")

    everything = admin_client.get("/admin/games/table/")
    by_seat = admin_client.get("/admin/games/table/", {"q": "bob"})
    by_id = admin_client.get("/admin/games/table/", {"q": str(table.pk)})
    active = admin_client.get("/admin/games/table/", {"status__exact": "active"})

    assert everything.status_code == 200
    assert list(by_seat.context["cl"].result_list) == [table]
    assert list(by_id.context["cl"].result_list) == [table]
    assert active.context["cl"].result_count == 2


@by_game
def test_table_page_shows_a_summary_but_never_the_seed_or_hidden_cards(
    admin_client: Client,
    game: str,
) -> None:
    table = _active_table("alice", "bob", game=game)
    state = table.state
    assert state is not None

    response = admin_client.get(f"/admin/games/table/{table.pk}/change/")
    page = response.content.decode()

    assert response.status_code == 200
    counts = ", ".join(f"seat {i}: {len(hand)}" for i, hand in enumerate(state["hands"]))
    assert "Round 1" in page and f"Hand counts: {counts}" in page
    assert state["seed"] not in page
    for secret in (state["hands"][0], state["hands"][1], state["draw"]):
        assert json.dumps(secret) not in page
        assert ", ".join(str(card) for card in secret) not in page
    assert '"seed"' not in page and "shuffle" not in page


def test_table_page_is_view_only_with_moderation_links(admin_client: Client) -> None:
    table = _active_table("alice", "bob")

    response = admin_client.get(f"/admin/games/table/{table.pk}/change/")
    posted = admin_client.post(f"/admin/games/table/{table.pk}/change/", {"status": "finished"})

    assert b'name="_save"' not in response.content
    assert f"/admin/games/table/{table.pk}/remove-player/".encode() in response.content
    assert f"/admin/games/table/{table.pk}/replace-with-bot/".encode() in response.content
    assert posted.status_code == 403
    table.refresh_from_db()
    assert table.status == Table.Status.ACTIVE


def test_tables_cannot_be_added_or_deleted_in_the_admin(admin_client: Client) -> None:
    table = _active_table("alice", "bob")

    assert admin_client.get("/admin/games/table/add/").status_code == 403
    assert admin_client.post(f"/admin/games/table/{table.pk}/delete/").status_code == 403
    assert Table.objects.filter(pk=table.pk).exists()


@by_game
def test_move_admin_is_view_only_and_shows_only_public_events(
    admin_client: Client, game: str
) -> None:
    table = _active_table("alice", "bob", game=game)
    start = _last_move(table)
    hand = table.state["hands"][0]  # type: ignore[index]

    listing = admin_client.get("/admin/games/move/")
    page = admin_client.get(f"/admin/games/move/{start.pk}/change/")

    assert listing.status_code == 200
    assert page.status_code == 200
    assert b"round_start" in page.content or b"starter" in page.content
    assert json.dumps(hand).encode() not in page.content
    assert b"order" not in page.content
    assert admin_client.get("/admin/games/move/add/").status_code == 403
    assert admin_client.post("/admin/games/move/add/", {"seq": 99}).status_code == 403
    assert (
        admin_client.post(f"/admin/games/move/{start.pk}/change/", {"action": "x"}).status_code
        == 403
    )
    assert admin_client.post(f"/admin/games/move/{start.pk}/delete/").status_code == 403
    deleted = admin_client.post(
        "/admin/games/move/", {"action": "delete_selected", "_selected_action": [start.pk]}
    )
    assert deleted.status_code in (200, 302)
    assert Move.objects.filter(pk=start.pk, action="start").exists()


# ----------------------------------------------------------------------------
# Moderation, end to end


def test_abort_selected_tables_action_goes_through_the_service(admin_client: Client) -> None:
    table = _active_table("alice", "bob")
    other = _active_table("carol", "dave")

    response = admin_client.post(
        "/admin/games/table/",
        {"action": "abort_tables", "_selected_action": [table.pk, other.pk]},
        follow=True,
    )

    assert response.status_code == 200
    assert "Aborted 2 table(s)." in _messages(response)
    for aborted in (table, other):
        aborted.refresh_from_db()
        assert aborted.status == Table.Status.ABORTED
        move = _last_move(aborted)
        assert (move.action, move.source) == ("abort", Move.Source.ADMIN)
        [entry] = _log_entries(aborted)
        assert entry.user.username == "admin"
        assert "Aborted the table." in entry.get_change_message()


def test_abort_action_on_a_finished_table_shows_an_error_not_a_500(
    admin_client: Client,
) -> None:
    table = _active_table("alice", "bob")
    services.table_abort(table_id=table.pk)

    response = admin_client.post(
        "/admin/games/table/",
        {"action": "abort_tables", "_selected_action": [table.pk]},
        follow=True,
    )

    assert response.status_code == 200
    assert any(f"Table {table.pk}:" in m for m in _messages(response))
    assert _log_entries(table) == []


@by_game
def test_abort_page_on_the_table(admin_client: Client, game: str) -> None:
    table = _active_table("alice", "bob", game=game)

    confirm = admin_client.get(f"/admin/games/table/{table.pk}/abort/")
    response = admin_client.post(f"/admin/games/table/{table.pk}/abort/", follow=True)

    assert confirm.status_code == 200
    assert response.status_code == 200
    table.refresh_from_db()
    assert table.status == Table.Status.ABORTED
    assert _last_move(table).source == Move.Source.ADMIN
    assert len(_log_entries(table)) == 1


@by_game
def test_remove_a_player_as_if_they_left(admin_client: Client, game: str) -> None:
    table = _active_table("alice", "bob", "carol", game=game)

    form = admin_client.get(f"/admin/games/table/{table.pk}/remove-player/")
    response = admin_client.post(
        f"/admin/games/table/{table.pk}/remove-player/", {"seat": 1}, follow=True
    )

    assert form.status_code == 200 and b"Seat 1: bob" in form.content
    assert response.status_code == 200
    table.refresh_from_db()
    state = rulesets.restore(game, table.state)  # type: ignore[arg-type]
    assert state.active == [True, False, True]  # type: ignore[attr-defined]
    move = _last_move(table)
    leave = rulesets.ruleset(game).leave_action().type
    assert (move.seat, move.action, move.source) == (1, leave, Move.Source.ADMIN)
    assert Seat.objects.get(table=table, number=1).left_at is not None
    [entry] = _log_entries(table)
    assert "seat 1" in entry.get_change_message()
    assert any("Removed the player in seat 1" in m for m in _messages(response))


def test_removing_a_player_who_left_is_refused_by_the_form(admin_client: Client) -> None:
    table = _active_table("alice", "bob", "carol")
    services.seat_remove(table_id=table.pk, number=1)
    seq = Table.objects.get(pk=table.pk).seq

    response = admin_client.post(f"/admin/games/table/{table.pk}/remove-player/", {"seat": 1})

    assert response.status_code == 200  # the form again, with its error
    assert response.context["form"].errors
    assert Table.objects.get(pk=table.pk).seq == seq
    assert _log_entries(table) == []


def test_remove_a_player_when_the_table_was_aborted_meanwhile_shows_the_service_error(
    admin_client: Client,
) -> None:
    table = _active_table("alice", "bob", "carol")
    form = admin_client.get(f"/admin/games/table/{table.pk}/remove-player/")
    assert form.status_code == 200
    # While the moderator looks at the form, another moderator aborts the table.
    services.table_abort(table_id=table.pk)
    seq = Table.objects.get(pk=table.pk).seq

    response = admin_client.post(
        f"/admin/games/table/{table.pk}/remove-player/", {"seat": 0}, follow=True
    )

    assert response.status_code == 200
    assert any("(table_not_active)" in m for m in _messages(response))
    assert Table.objects.get(pk=table.pk).seq == seq
    assert _log_entries(table) == []


@by_game
def test_replace_a_player_by_a_bot_of_a_chosen_level(admin_client: Client, game: str) -> None:
    table = _active_table("alice", "bob", game=game)

    response = admin_client.post(
        f"/admin/games/table/{table.pk}/replace-with-bot/",
        {"seat": 1, "level": "hard"},
        follow=True,
    )

    assert response.status_code == 200
    seat = Seat.objects.get(table=table, number=1)
    assert (seat.user, seat.bot_level) == (None, "hard")
    move = _last_move(table)
    assert (move.seat, move.action, move.source) == (1, "replace_with_bot", Move.Source.ADMIN)
    [entry] = _log_entries(table)
    assert "Replaced bob in seat 1 by a hard bot." in entry.get_change_message()


def test_replace_by_a_bot_refuses_an_unknown_level(admin_client: Client) -> None:
    table = _active_table("alice", "bob")

    response = admin_client.post(
        f"/admin/games/table/{table.pk}/replace-with-bot/", {"seat": 1, "level": "genius"}
    )

    assert response.status_code == 200
    assert "level" in response.context["form"].errors
    assert Seat.objects.get(table=table, number=1).user is not None


def test_moderation_pages_need_the_change_table_permission(client: Client) -> None:
    table = _active_table("alice", "bob")
    viewer = User.objects.create_user(username="viewer", password="pw", is_staff=True)
    viewer.user_permissions.add(Permission.objects.get(codename="view_table"))
    client.force_login(viewer)

    assert client.get(f"/admin/games/table/{table.pk}/change/").status_code == 200
    assert (
        client.post(f"/admin/games/table/{table.pk}/remove-player/", {"seat": 1}).status_code == 403
    )
    assert client.post(f"/admin/games/table/{table.pk}/abort/").status_code == 403
    table.refresh_from_db()
    assert table.status == Table.Status.ACTIVE


def test_deactivate_users_action_leaves_every_active_table(admin_client: Client) -> None:
    alice = _user("alice")
    first = _active_table(alice, "bob", "carol")
    second = _active_table("dave", alice, "erin")
    lobby = services.table_create(host=alice, seat_count=2)

    response = admin_client.post(
        "/admin/auth/user/",
        {"action": "deactivate_users", "_selected_action": [alice.pk]},
        follow=True,
    )

    assert response.status_code == 200
    alice.refresh_from_db()
    assert alice.is_active is False
    for table in (first, second):
        move = _last_move(table)
        assert (move.action, move.source) == (flip.LEAVE, Move.Source.ADMIN)
        assert Seat.objects.get(table=table, user=alice).left_at is not None
    assert Move.objects.filter(table=lobby).count() == 0
    [entry] = _log_entries(alice)
    assert entry.user.username == "admin"
    assert "left 2 active table(s)" in entry.get_change_message()
    assert any("left 2 active table(s)" in m for m in _messages(response))


def test_user_admin_keeps_the_default_pages(admin_client: Client) -> None:
    alice = _user("alice")

    assert admin_client.get("/admin/auth/user/").status_code == 200
    assert admin_client.get(f"/admin/auth/user/{alice.pk}/change/").status_code == 200


# ----------------------------------------------------------------------------
# The log is append-only for real


def test_saving_an_existing_move_again_raises() -> None:
    table = _active_table("alice", "bob")
    move = _last_move(table)
    move.action = "rewritten"

    with pytest.raises(TypeError, match="append-only"):
        move.save()
    with pytest.raises(TypeError, match="append-only"):
        move.delete()


def test_move_queryset_update_and_delete_raise() -> None:
    table = _active_table("alice", "bob")

    with pytest.raises(TypeError, match="append-only"):
        Move.objects.filter(table=table).update(action="rewritten")
    with pytest.raises(TypeError, match="append-only"):
        Move.objects.filter(table=table).delete()
    assert Move.objects.get(table=table, seq=1).action == "start"


def test_log_trigger_refuses_update_and_delete_in_raw_sql() -> None:
    if connection.vendor != "postgresql":
        pytest.skip("the append-only trigger exists on PostgreSQL only (migration 0002)")
    table = _active_table("alice", "bob")
    move = _last_move(table)

    for sql in (
        "UPDATE games_move SET action = 'rewritten' WHERE id = %s",
        "DELETE FROM games_move WHERE id = %s",
    ):
        with (
            pytest.raises(DatabaseError, match="append-only"),
            transaction.atomic(),
            connection.cursor() as cursor,
        ):
            cursor.execute(sql, [move.pk])

    assert Move.objects.get(pk=move.pk).action == "start"


def test_seat_rows_say_who_is_still_in_the_game_reading_the_snapshot_once(
    admin_client: Client, monkeypatch: pytest.MonkeyPatch
) -> None:
    table = _active_table("alice", "bob", "carol")
    services.seat_remove(table_id=table.pk, number=1)
    loads: list[int] = []
    real = flip.GameState.from_dict
    monkeypatch.setattr(
        flip.GameState, "from_dict", classmethod(lambda cls, data: loads.append(1) or real(data))
    )
    response = admin_client.get(f"/admin/games/table/{table.pk}/change/")

    assert response.status_code == 200
    cells = re.findall(r'<td class="field-in_game">\s*<p>(\w+)</p>', response.content.decode())
    assert cells == ["yes", "no", "yes"]
    # The summary and the seat rows each read the game once, not once per seat.
    assert len(loads) <= 2


def test_a_moderator_ending_a_time_away_is_recorded_as_theirs(admin_client: Client) -> None:
    from games import away
    from games.models import Away

    alice = _user("alice")
    away.away_set(user=alice)
    one = Away.objects.get(user=alice)
    assert one.began_at is not None and one.ended_at is None
    response = admin_client.post(
        "/admin/games/away/", {"action": "end_now", "_selected_action": [one.pk]}, follow=True
    )
    assert "1 time(s) away ended." in _messages(response)
    one.refresh_from_db()
    assert one.ended_at is not None
    # The audit trail says who ended it: not "they came back".
    assert one.end_reason == Away.EndReason.MODERATOR
    assert away.away_status(alice).state == "off"
