"""Users and running tables for the database tests in tests/games and tests/notifications."""

from __future__ import annotations

import itertools
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from typing import Any

import pytest
from django.contrib.auth.models import User

import flip
from games import services
from games.models import Table
from games.signals import table_changed
from notifications import services as notifications

_names = itertools.count()


def make_user(name: str | None = None, *, verified: bool = True) -> User:
    """A user whose address ``name@example.com`` is confirmed (game mail reaches it) unless not."""
    name = name or f"player{next(_names)}"
    user = User.objects.create_user(name, f"{name}@example.com", "correct horse battery")
    if verified:
        notifications.email_verified_set(user, user.email)
    return user


def start_table(
    host: User, *others: User, bots: int = 0, level: str = "easy", **options: Any
) -> Table:
    """A running table: the host in seat 0, then ``others``, then ``bots`` bots.

    No bot has moved yet, even if one is to act.
    """
    table = services.table_create(host=host, seat_count=1 + len(others) + bots, **options)
    for other in others:
        services.table_join(table_id=table.pk, user=other)
    for _ in range(bots):
        services.table_add_bot(table_id=table.pk, user=host, level=level)
    services.table_start(table_id=table.pk, user=host)
    return Table.objects.get(pk=table.pk)


def first_legal_request(state: flip.GameState, seat: int) -> dict[str, Any]:
    """``seat``'s first legal action as a client sends it (``card`` a handle, ``color`` a name)."""
    action = flip.legal_actions(state, seat)[0]
    return {
        "type": action.type,
        "card": flip.handle(state, action.card) if action.card >= 0 else None,
        "color": flip.COLORS[action.color] if action.color >= 0 else None,
    }


def legal_request(view: Mapping[str, Any], pick: int = 0) -> dict[str, Any]:
    """The ``pick``-th legal action of a seat's game view as a client sends it, any game.

    Built from the view's ``legal_actions`` only (a handle, the first colour and
    target listed), as a client would: it works for every ruleset, out of turn too.
    """
    legal = view["legal_actions"]
    choice = legal[pick % len(legal)]
    request: dict[str, Any] = {"type": choice["type"]}
    if "card" in choice:
        request["card"] = choice["card"]
    if choice.get("colors"):
        request["color"] = choice["colors"][pick % len(choice["colors"])]
    if choice.get("targets"):
        request["target"] = choice["targets"][pick % len(choice["targets"])]
    return request


@contextmanager
def table_changes_heard() -> Iterator[list[dict[str, Any]]]:
    """The keyword arguments of every ``table_changed`` sent inside the block, in order."""
    heard: list[dict[str, Any]] = []

    def listen(**kwargs: Any) -> None:
        heard.append(kwargs)

    table_changed.connect(listen, dispatch_uid="tests.table_changes_heard")
    try:
        yield heard
    finally:
        table_changed.disconnect(dispatch_uid="tests.table_changes_heard")


@pytest.fixture(autouse=True)
def known_deals(monkeypatch: pytest.MonkeyPatch) -> None:
    """Every test deals the same games, run after run: a failure shows again.

    Imported by the conftest of each database test package, which makes it
    apply there.
    """
    seeds = itertools.count()
    monkeypatch.setattr(
        "games.services.new_game_seed", lambda: f"test-seed-{next(seeds)}", raising=True
    )
