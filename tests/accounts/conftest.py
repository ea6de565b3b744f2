"""The accounts tests use the API tests' clients and users, and run accounts' jobs here."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from accounts import services, tasks
from tests.games.conftest import _fresh_throttles, alice, api, bob, known_deals, user_factory

__all__ = [
    "AccountJobs",
    "_fresh_throttles",
    "account_jobs",
    "alice",
    "api",
    "bob",
    "known_deals",
    "user_factory",
]


class AccountJobs(list[tuple[str, tuple[int | str, ...]]]):
    """accounts' jobs handed to the broker (``services.publish``), captured instead of sent."""

    def publish(self, name: str, args: tuple[int | str, ...]) -> None:
        self.append((name, args))

    def names(self) -> list[str]:
        return [name for name, _ in self]

    def run(self) -> int:
        """Run every captured job here, as a worker would, in order; returns how many."""
        done = 0
        while self:
            name, args = self.pop(0)
            tasks.run_inline(name, args)
            done += 1
        return done


@pytest.fixture
def account_jobs(monkeypatch: pytest.MonkeyPatch) -> Iterator[AccountJobs]:
    """accounts' jobs, kept for the test to run; they are queued when the request commits.

    A test that reads them needs its transactions to commit: ``django_db(transaction=True)``.
    """
    captured = AccountJobs()
    monkeypatch.setattr(services, "publish", captured.publish)
    yield captured
