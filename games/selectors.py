"""Reads: what a user may see of a table. Every answer is built from a flip view."""

from __future__ import annotations

from typing import Any

from django.contrib.auth.models import AnonymousUser, User
from django.db.models import Count, F, Q, QuerySet

import flip

from .errors import Conflict, Forbidden, NotFound
from .models import Seat, Table


def table_get(table_id: int) -> Table:
    try:
        return Table.objects.get(pk=table_id)
    except Table.DoesNotExist:
        raise NotFound() from None


def seat_for(table: Table, user: User | AnonymousUser) -> Seat | None:
    """The seat ``user`` plays at ``table`` (None when they hold none)."""
    if not user.is_authenticated:
        return None
    seat: Seat | None = table.seats.filter(user=user).first()
    return seat


def viewer_seat(table: Table, user: User | AnonymousUser) -> int | None:
    """The flip seat whose view ``user`` gets: their seat, or None for a watcher.

    Raises ``Forbidden`` when the user holds no seat and the table does not
    allow watching.
    """
    seat = seat_for(table, user)
    if seat is not None:
        return seat.number
    if table.allow_watchers:
        return None
    raise Forbidden("This table does not allow watchers.", code="watching_not_allowed")


def table_state(table: Table) -> flip.GameState | None:
    return None if table.state is None else flip.GameState.from_dict(table.state)


def seat_to_act(table: Table) -> Seat | None:
    """The seat whose turn it is (with its user), or None when no game runs."""
    state = table_state(table)
    if state is None or state.over:
        return None
    seat: Seat | None = (
        Seat.objects.select_related("user").filter(table_id=table.pk, number=state.current).first()
    )
    return seat


def table_view(table: Table, seat: int | None) -> flip.SeatView | flip.WatcherView | None:
    """flip's view of the game for ``seat`` (None: watcher); None before the start."""
    state = table_state(table)
    if state is None:
        return None
    return flip.view(state, seat)


def table_log(table: Table, seat: int | None, *, after: int = 0) -> list[dict[str, Any]]:
    """The moves as ``seat`` (None: a watcher) may see them, oldest first."""
    out = []
    for move in table.moves.filter(seq__gt=after).order_by("seq"):
        out.append(
            {
                "seq": move.seq,
                "round": move.round,
                "seat": move.seat,
                "action": move.action,
                "source": move.source,
                "created_at": move.created_at,
                "events": flip.events_view(move.payload["events"], seat),
            }
        )
    return out


def table_record(table: Table) -> flip.GameRecord:
    """The full game record, published only once the game is over."""
    if table.status != Table.Status.FINISHED or table.state is None:
        raise Conflict("The game record is published once the game is over.", code="game_not_over")
    moves = list(table.moves.order_by("seq"))
    state = flip.GameState.from_dict(table.state)
    start = moves[0]
    recorder = flip.Recorder(state.options, state.seed, start.payload["events"])
    for move in moves[1:]:
        if move.seat is None or move.action not in flip.ACTION_TYPES:
            continue  # moderation entries (abort, bot replacement) change no rule state
        recorder.add(
            move.seat,
            flip.Action.from_dict(move.payload["action"]),
            move.source,
            move.payload["events"],
        )
    return recorder.to_dict()


def tables_list(
    *,
    user: User,
    status: str | None = None,
    mine: bool = False,
    open_seats: bool = False,
) -> QuerySet[Table]:
    tables = Table.objects.annotate(taken=Count("seats")).order_by("-created_at")
    if status:
        tables = tables.filter(status=status)
    if mine:
        # A subquery, not a join: joining seats again would multiply the ``taken`` count.
        seated = Seat.objects.filter(user=user).values("table_id")
        tables = tables.filter(Q(pk__in=seated) | Q(host=user))
    if open_seats:
        tables = tables.filter(status=Table.Status.LOBBY).filter(taken__lt=F("seat_count"))
    return tables
