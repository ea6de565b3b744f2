"""Caps per user (issue 35 §8): open tables, running games and bot seats.

Each refusal is a 409 whose code names the cap and whose sentence says what
to do, and it changes nothing.
"""

from __future__ import annotations

from typing import Any

import pytest
from django.conf import settings as django_settings
from django.contrib.auth.models import User

from games import services
from games.errors import Conflict
from games.models import Seat, Table
from tests.games.conftest import assert_error, client_for, make_user

pytestmark = pytest.mark.django_db

NEW_TABLE = {"seat_count": 2}


def _refused(code: str) -> Any:
    """The service refuses with a 409 of this code (pytest.raises' check)."""
    return pytest.raises(Conflict, match=f"^{code}: ")


def _open(user: User) -> int:
    return Seat.objects.filter(user=user, table__status=Table.Status.LOBBY).count()


def _running_count(user: User) -> int:
    return Seat.objects.filter(
        user=user, left_at__isnull=True, table__status=Table.Status.ACTIVE
    ).count()


def _bots(user: User) -> int:
    return Seat.objects.filter(
        table__host=user, table__status__in=["lobby", "active"], user__isnull=True
    ).count()


def _snapshot() -> tuple[list[tuple[Any, ...]], list[tuple[Any, ...]]]:
    """Every table's status and every seat: what a refusal must leave as it was."""
    tables = list(Table.objects.order_by("pk").values_list("pk", "status", "seq"))
    seats = list(
        Seat.objects.order_by("pk").values_list("pk", "table_id", "number", "user_id", "bot_level")
    )
    return tables, seats


def _lobby(host: User, seats: int = 2) -> Table:
    return services.table_create(host=host, seat_count=seats)


def _running(host: User, guest: User) -> Table:
    table = _lobby(host)
    services.table_join(table_id=table.pk, user=guest)
    services.table_start(table_id=table.pk, user=host)
    return table


def test_the_default_caps_leave_room_for_a_correspondence_player() -> None:
    assert django_settings.GAMENOOK_MAX_OPEN_TABLES == 10
    assert django_settings.GAMENOOK_MAX_RUNNING_TABLES == 50
    assert django_settings.GAMENOOK_MAX_BOT_SEATS == 20


def test_an_eleventh_open_table_is_refused_with_409_and_nothing_changes() -> None:
    alice, bob = make_user("alice"), make_user("bob")
    api = client_for(alice)
    for _ in range(10):
        assert api.post("/api/v1/tables/", NEW_TABLE, format="json").status_code == 201
    theirs = _lobby(bob)
    before = _snapshot()

    body = assert_error(
        api.post("/api/v1/tables/", NEW_TABLE, format="json"), 409, "too_many_open_tables"
    )
    assert "10 tables in the lobby" in body["detail"]
    assert "start one, or leave one" in body["detail"]
    # Sitting at someone else's table counts as an open table too.
    assert_error(api.post(f"/api/v1/tables/{theirs.pk}/join/"), 409, "too_many_open_tables")
    assert _snapshot() == before

    # Leaving one (the host leaving closes it) makes room again.
    mine = Table.objects.filter(host=alice, status=Table.Status.LOBBY).first()
    assert mine is not None
    assert api.post(f"/api/v1/tables/{mine.pk}/leave/").status_code == 200
    assert api.post(f"/api/v1/tables/{theirs.pk}/join/").status_code == 201


def test_a_table_one_was_invited_to_counts_like_a_hosted_one() -> None:
    alice, bob = make_user("alice"), make_user("bob")
    for _ in range(10):
        services.table_join(table_id=_lobby(bob, seats=10).pk, user=alice)
    with _refused("too_many_open_tables"):
        services.table_create(host=alice, seat_count=2)
    assert _open(alice) == 10


def test_running_games_are_capped_when_opening_joining_and_starting(settings: Any) -> None:
    settings.GAMENOOK_MAX_RUNNING_TABLES = 2
    alice, bob, carol = make_user("alice"), make_user("bob"), make_user("carol")
    waiting = _lobby(alice)  # opened before the cap was reached
    services.table_join(table_id=waiting.pk, user=carol)
    theirs = _lobby(bob)
    first = _running(alice, bob)
    _running(bob, alice)
    assert _running_count(alice) == 2
    api = client_for(alice)
    before = _snapshot()

    body = assert_error(
        api.post("/api/v1/tables/", NEW_TABLE, format="json"), 409, "too_many_running_tables"
    )
    assert "playing 2 games" in body["detail"]
    assert "finish one, or concede one" in body["detail"]
    assert_error(api.post(f"/api/v1/tables/{theirs.pk}/join/"), 409, "too_many_running_tables")
    assert_error(api.post(f"/api/v1/tables/{waiting.pk}/start/"), 409, "too_many_running_tables")
    assert _snapshot() == before

    # A game over frees its place.
    services.table_concede(table_id=first.pk, user=alice)
    assert _running_count(alice) == 1
    assert api.post(f"/api/v1/tables/{waiting.pk}/start/").status_code == 200
    assert Table.objects.get(pk=waiting.pk).status == Table.Status.ACTIVE


def test_a_game_the_player_left_no_longer_counts_as_running(settings: Any) -> None:
    settings.GAMENOOK_MAX_RUNNING_TABLES = 1
    alice, bob, carol = make_user("alice"), make_user("bob"), make_user("carol")
    table = _lobby(bob, seats=3)
    services.table_join(table_id=table.pk, user=alice)
    services.table_join(table_id=table.pk, user=carol)
    services.table_start(table_id=table.pk, user=bob)
    with _refused("too_many_running_tables"):
        services.table_create(host=alice, seat_count=2)
    services.table_concede(table_id=table.pk, user=alice)  # the game goes on without her
    assert Table.objects.get(pk=table.pk).status == Table.Status.ACTIVE
    services.table_create(host=alice, seat_count=2)


def test_bot_seats_are_capped_across_the_hosts_tables(settings: Any) -> None:
    settings.GAMENOOK_MAX_BOT_SEATS = 3
    alice, bob = make_user("alice"), make_user("bob")
    running = _lobby(alice, seats=3)
    for _ in range(2):
        services.table_add_bot(table_id=running.pk, user=alice, level="hard")
    services.table_start(table_id=running.pk, user=alice)
    lobby = _lobby(alice, seats=4)
    services.table_add_bot(table_id=lobby.pk, user=alice, level="easy")
    assert _bots(alice) == 3
    api = client_for(alice)
    before = _snapshot()

    body = assert_error(
        api.post(f"/api/v1/tables/{lobby.pk}/bots/", {"level": "hard"}, format="json"),
        409,
        "too_many_bot_seats",
    )
    assert "3 bots" in body["detail"]
    assert _snapshot() == before
    # Another host's bots are theirs: bob is not refused.
    services.table_add_bot(table_id=_lobby(bob).pk, user=bob, level="hard")

    # A game over gives its bots back.
    services.table_abort(table_id=running.pk)
    assert _bots(alice) == 1
    assert api.post(f"/api/v1/tables/{lobby.pk}/bots/", {}, format="json").status_code == 201


def test_a_bot_a_moderator_seated_is_not_the_hosts(settings: Any) -> None:
    settings.GAMENOOK_MAX_BOT_SEATS = 1
    alice, bob, carol = make_user("alice"), make_user("bob"), make_user("carol")
    table = _lobby(alice, seats=3)
    services.table_join(table_id=table.pk, user=bob)
    services.table_join(table_id=table.pk, user=carol)
    services.table_start(table_id=table.pk, user=alice)
    services.seat_replace_with_bot(table_id=table.pk, number=2, level="easy")
    services.table_add_bot(table_id=_lobby(alice).pk, user=alice, level="easy")
    with _refused("too_many_bot_seats"):  # the cap is one: that bot was the host's first
        services.table_add_bot(table_id=_lobby(alice).pk, user=alice, level="easy")
