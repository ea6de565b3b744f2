"""After each committed change (``games.signals.table_changed``): a bot turn or an e-mail."""

from __future__ import annotations

from django.db import transaction

from games import selectors as games_selectors

from . import jobs
from .models import OutboxMessage
from .outbox import outbox_enqueue

Kind = OutboxMessage.Kind


def table_followups(*, table_id: int, seq: int, new_turn: bool, finished: bool) -> None:
    """Queue what a committed change calls for: a bot turn, "your turn", "game over".

    Runs in a worker (job ``FOLLOWUPS``, queued on commit by the receiver),
    so the request that made the change does not wait for e-mail to be
    composed.
    """
    table = games_selectors.table_facts(table_id)
    if table is None or table.seq != seq:
        return  # a later change has committed; its own follow-ups take over
    if finished:
        if table.finished:
            _game_over_mail(table)
        return
    if not table.running:
        return
    seat = games_selectors.turn_seat(table_id)
    if seat is None or seat.left:
        return
    if seat.is_bot:
        jobs.dispatch(jobs.BOT_TURN, (table_id, seq))
    elif new_turn and seat.user is not None:
        with transaction.atomic():
            outbox_enqueue(
                user=seat.user,
                kind=Kind.YOUR_TURN,
                table=table,
                turn=table.turn,
                context={"deadline_at": table.deadline_at, "hours": table.turn_hours},
            )


def _game_over_mail(table: games_selectors.TableFacts) -> None:
    ranking, rounds = games_selectors.final_ranking(table.id)
    with transaction.atomic():
        for seat in games_selectors.seats_at(table.id):
            if seat.user is None:
                continue
            mine = next((e for e in ranking if e["seat"] == seat.number), None)
            outbox_enqueue(
                user=seat.user,
                kind=Kind.GAME_OVER,
                table=table,
                turn=table.turn,
                context={"ranking": ranking, "mine": mine, "rounds": rounds},
            )
