"""Fixtures for the notifications tests: users with e-mail, running tables, captured jobs."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import datetime

import pytest
from django.contrib.auth.models import User
from django.test import override_settings
from django.utils import timezone

import flip
from games import services as games
from games.models import Seat, Table
from notifications import jobs as jobs_module
from notifications import services
from tests.factories import first_legal_request, known_deals, make_user, start_table

__all__ = ["known_deals", "make_user", "started_table"]  # the fixture applies here

#: Tests seat bots and start tables here; bot turns then go through the jobs.
started_table = start_table


def seat_to_act(table: Table) -> Seat:
    table.refresh_from_db()
    assert table.state is not None
    return Seat.objects.select_related("user").get(table=table, number=table.state["current"])


def play_turn(table: Table) -> None:
    """The human to act finishes their turn with legal actions (the first one each time)."""
    table.refresh_from_db()
    turn = table.turn
    while table.turn == turn and table.status == Table.Status.ACTIVE:
        assert table.state is not None
        state = flip.GameState.from_dict(table.state)
        seat = seat_to_act(table)
        assert seat.user is not None
        data = first_legal_request(state, seat.number)
        games.table_apply_action(table_id=table.pk, user=seat.user, data=data, expected_seq=None)
        table.refresh_from_db()


class Jobs(list[tuple[str, tuple[int, ...]]]):
    """Jobs handed to the broker, captured instead of sent.

    A job queued for an instant (``jobs.dispatch_at``: a real-time move timer,
    the end of a hold) waits in ``timed`` until ``run_due`` runs it, as a
    worker holding it would at that instant.
    """

    def __init__(self) -> None:
        super().__init__()
        self.timed: list[tuple[datetime, str, tuple[int, ...]]] = []

    def publish(self, name: str, args: tuple[int, ...], eta: datetime | None = None) -> None:
        if eta is None:
            self.append((name, args))
        else:
            self.timed.append((eta, name, args))

    def run_due(self) -> int:
        """Run the timed jobs whose instant has come (by the clock now), then ``drain``."""
        now = timezone.now()
        due = [job for job in self.timed if job[0] <= now]
        self.timed = [job for job in self.timed if job[0] > now]
        for _, name, args in sorted(due):
            services.run_inline(name, args)
        return len(due) + self.drain()

    def names(self) -> list[str]:
        return [name for name, _ in self]

    def run(self, name: str) -> int:
        """Run the captured jobs called ``name`` (not those they queue); returns how many."""
        picked = [job for job in self if job[0] == name]
        self[:] = [job for job in self if job[0] != name]
        for job_name, args in picked:
            services.run_inline(job_name, args)
        return len(picked)

    def drain(self, limit: int = 10_000) -> int:
        """Run every captured job (and those they queue) here, in order; returns how many."""
        done = 0
        while self and done < limit:
            name, args = self.pop(0)
            services.run_inline(name, args)
            done += 1
        return done


@pytest.fixture
def jobs(monkeypatch: pytest.MonkeyPatch) -> Iterator[Jobs]:
    captured = Jobs()
    monkeypatch.setattr(jobs_module, "publish", captured.publish)
    # Bot turns go through Celery here, not inline in the request.
    with override_settings(GAMENOOK_RUN_BOTS_INLINE=False):
        yield captured


@pytest.fixture
def alice() -> User:
    return make_user("alice")


@pytest.fixture
def bob() -> User:
    return make_user("bob")
