"""Away with autopilot (PRODUCT.md ruling 20) and forced moves played at once (issue 38).

Each test drives the service as the page and the API do, with the follow-up jobs
captured and run here (``Jobs``), so what a worker would do is what is checked.
"""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from typing import Any

import pytest
import time_machine
from django.contrib.auth.models import User
from django.test import override_settings
from rest_framework.test import APIClient

from games import away
from games import selectors as games_selectors
from games import services as games
from games.models import Away, Move, Seat, Table
from notifications.models import TurnNotice
from tests.factories import legal_request

from .conftest import Jobs, make_user, started_table

T0 = datetime(2030, 5, 6, 9, 0, tzinfo=UTC)

# The follow-ups run on commit, as in production.
pytestmark = pytest.mark.django_db(transaction=True)


def _seat(table: Table, user: User) -> Seat:
    return Seat.objects.get(table=table, user=user)


def _to_act(table: Table) -> int:
    table.refresh_from_db()
    assert table.to_act is not None
    return table.to_act


def _play_as(table: Table, user: User) -> None:
    """``user`` makes one legal move, as the page would (their seat's view's first one)."""
    seat = _seat(table, user)
    view = games_selectors.table_view(table, seat.number)
    games.table_apply_action(
        table_id=table.pk, user=user, data=legal_request(view), expected_seq=None
    )


def _until_turn_of(table: Table, user: User, other: User, jobs: Jobs) -> None:
    """Let ``other`` play until it is ``user``'s turn (or the game ends)."""
    for _ in range(200):
        jobs.drain()
        table.refresh_from_db()
        if table.status != Table.Status.ACTIVE or _to_act(table) == _seat(table, user).number:
            return
        _play_as(table, other)
    raise AssertionError("it never became their turn")


def test_ruling_20_away_now_her_turns_are_played_at_once_and_marked(jobs: Jobs) -> None:
    alice, bob = make_user("alice"), make_user("bob")
    with time_machine.travel(T0, tick=False):
        table = started_table(alice, bob)
        status = away.away_set(user=alice, ends_at=T0 + timedelta(days=3), level="hard")
        assert status.state == "away" and status.autopilot_until == T0 + timedelta(days=3)
        seat = _seat(table, alice)
        assert (seat.autopilot, seat.autopilot_until, seat.player_away) == (
            "hard",
            T0 + timedelta(days=3),
            True,
        )
        for _ in range(6):
            _until_turn_of(table, alice, bob, jobs)
            if table.status != Table.Status.ACTIVE:
                break
            # Her turn is played at once by the follow-up, not at the deadline.
            assert _to_act(table) != _seat(table, alice).number
        mine = Move.objects.filter(table=table, seat=_seat(table, alice).number).exclude(
            action__in=["start"]
        )
        assert mine.exists()
        assert set(mine.values_list("source", flat=True)) == {"autopilot"}
        # Everyone sees the seat is on autopilot, and until when.
        seats = games_selectors.table_seats(table)
        hers = next(s for s in seats if s["number"] == _seat(table, alice).number)
        assert hers["autopilot"] == "hard" and hers["autopilot_until"] == T0 + timedelta(days=3)
        # Nobody tells her it is her turn: the autopilot plays it.
        assert not TurnNotice.objects.filter(user=alice, due_at__isnull=False).exists()


def test_ruling_20_any_action_of_hers_brings_her_back_everywhere(jobs: Jobs) -> None:
    alice, bob, carol = make_user("alice"), make_user("bob"), make_user("carol")
    with time_machine.travel(T0, tick=False):
        autopiloted = started_table(alice, bob)
        waiting = started_table(carol, alice, autopilot=False)
        away.away_set(user=alice)
        assert _seat(autopiloted, alice).autopilot == "normal"
        # The host of ``waiting`` chose that away seats wait: marked away, no autopilot.
        assert _seat(waiting, alice).autopilot == ""
        assert _seat(waiting, alice).player_away is True
        _until_turn_of(waiting, alice, carol, jobs)
        _play_as(waiting, alice)
        jobs.drain()
    assert away.away_status(alice).state == "off"
    assert Away.objects.get(user=alice).end_reason == Away.EndReason.RETURNED
    for table in (autopiloted, waiting):
        seat = _seat(table, alice)
        assert (seat.autopilot, seat.player_away) == ("", False)


def test_ruling_20_a_planned_time_away_begins_and_ends_with_the_sweep(jobs: Jobs) -> None:
    alice, bob = make_user("alice"), make_user("bob")
    start, end = T0 + timedelta(days=2), T0 + timedelta(days=4)
    with time_machine.travel(T0, tick=False):
        table = started_table(alice, bob)
        status = away.away_set(user=alice, starts_at=start, ends_at=end)
        assert status.state == "planned" and _seat(table, alice).autopilot == ""
    with time_machine.travel(start + timedelta(seconds=30), tick=False):
        assert away.aways_due() == 1
        assert _seat(table, alice).autopilot == "normal"
        assert away.away_status(alice).state == "away"
    with time_machine.travel(end + timedelta(seconds=30), tick=False):
        assert away.aways_due() == 1
        assert _seat(table, alice).autopilot == ""
        assert Away.objects.get(user=alice).end_reason == Away.EndReason.UNTIL
        # Two days used of thirty.
        status = away.away_status(alice)
        assert status.state == "off" and round(status.days_used) == 2


@override_settings(GAMENOOK_AWAY_DAYS_PER_YEAR=2)
def test_ruling_20_the_allowance_ends_the_autopilot_and_refuses_more(jobs: Jobs) -> None:
    alice, bob = make_user("alice"), make_user("bob")
    with time_machine.travel(T0, tick=False):
        table = started_table(alice, bob)
        status = away.away_set(user=alice, ends_at=T0 + timedelta(days=5))
        # Two days left: the seat shows the instant they run out, not the end asked for.
        assert status.autopilot_until == T0 + timedelta(days=2)
        assert _seat(table, alice).autopilot_until == T0 + timedelta(days=2)
    with time_machine.travel(T0 + timedelta(days=2, minutes=1), tick=False):
        away.aways_due()
        assert Away.objects.get(user=alice).end_reason == Away.EndReason.ALLOWANCE
        assert _seat(table, alice).autopilot == ""
        response = _api(alice).put("/api/v1/me/away/", {}, format="json")
        assert response.status_code == 409 and response.json()["code"] == "away_allowance_used"


def test_ruling_20_real_time_tables_are_governed_by_rulings_17_and_18_alone(jobs: Jobs) -> None:
    alice, bob = make_user("alice"), make_user("bob")
    table = started_table(alice, bob, move_timer="relaxed")
    away.away_set(user=alice)
    seat = _seat(table, alice)
    assert seat.autopilot == "" and seat.player_away is True


def test_ruling_20_a_game_that_starts_while_she_is_away_takes_her_autopilot(jobs: Jobs) -> None:
    alice, bob = make_user("alice"), make_user("bob")
    away.away_set(user=alice, level="easy")
    table = started_table(bob, alice)
    assert _seat(table, alice).autopilot == "easy"
    assert games_selectors.seat_public_level(_seat(table, alice)) == "easy"


def _api(user: User) -> APIClient:
    client = APIClient()
    client.force_authenticate(user)
    return client


def test_the_away_endpoint_sets_shows_and_ends_a_time_away() -> None:
    alice = make_user("alice")
    client = _api(alice)
    assert client.get("/api/v1/me/away/").json()["state"] == "off"
    until = (datetime.now(UTC) + timedelta(days=1)).isoformat()
    body = client.put("/api/v1/me/away/", {"ends_at": until, "level": "hard"}, format="json")
    assert body.status_code == 200
    assert body.json()["state"] == "away" and body.json()["level"] == "hard"
    me = client.get("/api/v1/me/").json()
    assert me["away"]["state"] == "away" and me["play"] == {"forced_moves": False}
    assert client.delete("/api/v1/me/away/").json()["state"] == "off"


@pytest.mark.parametrize(
    ("body", "status", "code"),
    [
        ({"ends_at": "2000-01-01T00:00:00Z"}, 422, "invalid_away"),
        ({"starts_at": "2999-01-01T00:00:00Z"}, 422, "invalid_away"),
        ({"level": "godlike"}, 400, "invalid"),
        ({"ends_at": "tomorrow"}, 400, "invalid"),
        ({"level": ["hard"]}, 400, "invalid"),
        ({"until": "2031-01-01T00:00:00Z"}, 400, "unknown_field"),
        ([], 400, "invalid"),
    ],
)
def test_the_away_endpoint_refuses_what_it_cannot_take(body: Any, status: int, code: str) -> None:
    alice = make_user("alice")
    response = _api(alice).put("/api/v1/me/away/", body, format="json")
    assert response.status_code == status, response.content
    assert response.json()["code"] == code
    assert not Away.objects.filter(user=alice).exists()


def test_forced_moves_are_played_at_once_and_only_when_forced(jobs: Jobs) -> None:
    """A whole game: bob asked for his forced moves at once. Every move marked ``forced``
    is his and was his only legal action; he is never left to click a forced one."""
    alice, bob = make_user("alice"), make_user("bob")
    away.play_settings_update(user=bob, forced_moves=True)
    table = started_table(alice, bob)
    assert _seat(table, bob).forced_moves is True
    rules = games_selectors.ruleset_of(table)
    bob_number = _seat(table, bob).number
    for _ in range(2000):
        jobs.drain()
        table.refresh_from_db()
        if table.status != Table.Status.ACTIVE:
            break
        state = games_selectors.table_state(table)
        assert state is not None
        if state.current == bob_number:
            # Whatever waits for bob is a choice: his forced moves were played already.
            assert rules.forced_action(state, bob_number) is None
            _play_as(table, bob)
        else:
            _play_as(table, alice)
    assert table.status == Table.Status.FINISHED
    forced = list(Move.objects.filter(table=table, source="forced"))
    assert forced and {move.seat for move in forced} == {bob_number}
    # The record marks them, and replays to the same end.
    record = games_selectors.table_record(table)
    assert any(entry["source"] == "forced" for entry in record["actions"])
    assert rules.replay(record).to_dict() == games_selectors.table_state(table).to_dict()  # type: ignore[union-attr]
