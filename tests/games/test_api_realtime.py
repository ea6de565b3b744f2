"""Real-time tables through the API: opening one, and its public facts in every view."""

from __future__ import annotations

from collections.abc import Callable
from datetime import UTC, datetime, timedelta

import pytest
import time_machine
from django.contrib.auth.models import User
from rest_framework.test import APIClient

from games import services
from games.models import Seat, Table
from tests.games.conftest import assert_error, started_table

pytestmark = pytest.mark.django_db

Api = Callable[[User | None], APIClient]
TABLES = "/api/v1/tables/"
T0 = datetime(2030, 3, 1, 9, 0, tzinfo=UTC)


@pytest.mark.parametrize(("timer", "seconds"), [("relaxed", 45), ("normal", 30), ("fast", 15)])
def test_time_limits_a_host_opens_a_real_time_table_with_a_move_timer(
    timer: str, seconds: int, alice: User, api: Api
) -> None:
    response = api(alice).post(
        TABLES, {"seat_count": 2, "mode": "real_time", "move_timer": timer}, format="json"
    )
    assert response.status_code == 201, response.content
    body = response.json()
    assert (body["mode"], body["move_timer"], body["move_seconds"]) == (
        "real_time",
        timer,
        seconds,
    )
    assert Table.objects.get(pk=body["id"]).move_seconds == seconds


def test_time_limits_real_time_defaults_to_the_normal_timer(alice: User, api: Api) -> None:
    body = api(alice).post(TABLES, {"seat_count": 2, "mode": "real_time"}, format="json").json()
    assert (body["move_timer"], body["move_seconds"]) == ("normal", 30)


@pytest.mark.parametrize(
    ("body", "field", "code"),
    [
        # Each mode takes its own fields: the other mode's are unknown to it.
        ({"move_timer": "fast"}, "move_timer", "unknown_field"),
        ({"mode": "turn_by_turn", "move_timer": "fast"}, "move_timer", "unknown_field"),
        ({"mode": "real_time", "turn_hours": 12}, "turn_hours", "unknown_field"),
        ({"mode": "real_time", "timeout_policy": "leave"}, "timeout_policy", "unknown_field"),
        ({"mode": "real_time", "move_timer": "slow"}, "move_timer", "invalid"),
        ({"mode": "real_time", "move_timer": 15}, "move_timer", "invalid"),
        ({"mode": "live"}, "mode", "invalid"),
        ({"mode": None}, "mode", "invalid"),
    ],
)
def test_time_limits_options_that_do_not_go_together_are_refused(
    body: dict[str, object], field: str, code: str, alice: User, api: Api
) -> None:
    before = Table.objects.count()
    error = assert_error(
        api(alice).post(TABLES, {"seat_count": 2, **body}, format="json"), 400, code
    )
    assert field in error["fields"], error
    assert Table.objects.count() == before


def test_ruling_18_strikes_holds_and_bots_are_public_in_every_view(
    alice: User, bob: User, carol: User, api: Api
) -> None:
    with time_machine.travel(T0, tick=False):
        table = started_table(alice, bob, move_timer="fast", allow_watchers=True)
        services.presence_open(table_id=table.pk, user=bob, channel="b")
        services.presence_open(table_id=table.pk, user=alice, channel="a")
        services.presence_close(channel="a")
        Seat.objects.filter(table=table, user=bob).update(strikes=2)
        held = (T0 + timedelta(seconds=120)).isoformat().replace("+00:00", "Z")
        # Alice and Bob in their seats, Carol watching: the same public facts.
        for viewer in (alice, bob, carol):
            response = api(viewer).get(f"{TABLES}{table.pk}/view/")
            assert response.status_code == 200
            seats = {s["username"]: s for s in response.json()["seats"]}
            assert seats["alice"]["connected"] is False
            assert seats["alice"]["held_until"] == held
            assert seats["bob"]["connected"] is True
            assert seats["bob"]["strikes"] == 2
            detail = {
                s["username"]: s for s in api(viewer).get(f"{TABLES}{table.pk}/").json()["seats"]
            }
            assert detail["alice"]["held_until"] == held


def test_ruling_18_a_change_of_presence_changes_the_views_etag(
    alice: User, bob: User, api: Api
) -> None:
    table = started_table(alice, bob, move_timer="fast")
    first = api(alice).get(f"{TABLES}{table.pk}/view/")
    etag = first["ETag"]
    again = api(alice).get(f"{TABLES}{table.pk}/view/", HTTP_IF_NONE_MATCH=etag)
    assert again.status_code == 304
    services.presence_open(table_id=table.pk, user=bob, channel="b")
    changed = api(alice).get(f"{TABLES}{table.pk}/view/", HTTP_IF_NONE_MATCH=etag)
    assert changed.status_code == 200
    assert changed["ETag"] != etag
