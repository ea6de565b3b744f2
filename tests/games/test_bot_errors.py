"""A bot that fails never leaves its table waiting (issue 9): the plain move is played for it."""

from __future__ import annotations

import logging
from typing import Any

import pytest

import flip
from flip.bots.easy import EasyBot
from games import services
from games.models import Move, Table
from tests.factories import start_table

from .conftest import make_user

pytestmark = pytest.mark.django_db


def _bot_to_act() -> Table:
    """A running table whose seat to act is an easy bot that has not moved yet."""
    for _ in range(20):
        table = start_table(make_user(), bots=1)
        if table.to_act == 1:
            return table
        services.table_abort(table_id=table.pk)
    raise AssertionError("no deal put the bot first")


@pytest.mark.parametrize(
    "answer",
    [
        pytest.param(RuntimeError("the bot broke"), id="raises"),
        pytest.param({"type": "pass"}, id="illegal-answer"),
        pytest.param({"type": "play", "card": "not-a-handle"}, id="unknown-card"),
    ],
)
def test_a_failing_bot_gets_the_plain_move_of_ruling_4_at_once_logged_and_counted(
    monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture, answer: Any
) -> None:
    table = _bot_to_act()
    assert table.state is not None
    before = flip.GameState.from_dict(table.state)
    expected = flip.timeout_action(before)

    def choose(self: EasyBot, view: Any, *inputs: Any, **named: Any) -> Any:
        if isinstance(answer, Exception):
            raise answer
        return answer

    monkeypatch.setattr(EasyBot, "choose", choose)
    with caplog.at_level(logging.ERROR, logger="games.services"):
        result = services.table_run_bot_turn(table_id=table.pk)

    assert result is not None
    (move,) = result.moves
    assert (move.source, move.seat) == (Move.Source.BOT, 1)
    assert move.payload["action"] == expected.to_dict()
    table.refresh_from_db()
    assert table.bot_errors == 1
    assert f"bot_error table={table.pk} turn={before.turn} seat=1 level=easy" in caplog.text
    # No deadline is involved: the next turn started now, with a fresh deadline.
    assert table.turn > before.turn or table.to_act == 1


def test_a_bot_that_answers_well_is_not_counted(caplog: pytest.LogCaptureFixture) -> None:
    table = _bot_to_act()
    with caplog.at_level(logging.ERROR, logger="games.services"):
        assert services.table_run_bot_turn(table_id=table.pk) is not None
    table.refresh_from_db()
    assert table.bot_errors == 0
    assert "bot_error" not in caplog.text


def test_hard_plays_on_after_a_seat_has_left_without_an_error(
    caplog: pytest.LogCaptureFixture,
) -> None:
    """Issue 9's crash: alice, bob and a Hard bot; alice concedes; Hard kept raising."""
    alice, bob = make_user(), make_user()
    table = start_table(alice, bob, bots=1, level="hard")
    services.table_run_bots(table_id=table.pk)
    services.table_concede(table_id=table.pk, user=alice)
    with caplog.at_level(logging.ERROR, logger="games.services"):
        for _ in range(300):
            table.refresh_from_db()
            if table.status != Table.Status.ACTIVE:
                break
            if table.to_act == 2:
                assert services.table_run_bot_turn(table_id=table.pk) is not None
            else:
                assert table.state is not None
                state = flip.GameState.from_dict(table.state)
                action = flip.legal_actions(state, 1)[0]
                services.table_apply_action(
                    table_id=table.pk,
                    user=bob,
                    data={
                        "type": action.type,
                        "card": flip.handle(state, action.card) if action.card >= 0 else None,
                        "color": flip.COLORS[action.color] if action.color >= 0 else None,
                    },
                    expected_seq=None,
                )
    table.refresh_from_db()
    assert table.status == Table.Status.FINISHED
    assert table.bot_errors == 0
    assert "bot_error" not in caplog.text
    assert Move.objects.filter(table=table, source=Move.Source.BOT).count() > 3
