"""Reads: what a user may see of a table. Every answer is built from a flip view."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from django.contrib.auth.models import AnonymousUser, User
from django.db.models import Count, Exists, F, OuterRef, Q, QuerySet

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
    """The game in ``table``'s snapshot (None before the start): the one place it is read.

    ``flip`` upgrades a snapshot written by an older version as it loads it.
    """
    return None if table.state is None else flip.GameState.from_dict(table.state)


def seat_to_act(table: Table) -> Seat | None:
    """The seat whose turn it is (with its user), or None when no game runs."""
    if table.to_act is None:
        return None
    seat: Seat | None = (
        Seat.objects.select_related("user").filter(table_id=table.pk, number=table.to_act).first()
    )
    return seat


def table_view(table: Table, seat: int | None) -> dict[str, Any] | None:
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


def table_record(table: Table) -> dict[str, Any]:
    """The full game record, published only once the game is over."""
    state = table_state(table)
    if table.status != Table.Status.FINISHED or state is None:
        raise Conflict("The game record is published once the game is over.", code="game_not_over")
    moves = list(table.moves.order_by("seq"))
    start = moves[0]
    recorder = flip.Recorder(state.options, state.seed, start.payload["events"])
    for move in moves[1:]:
        if move.seat is None or move.action not in flip.engine.ACTION_TYPES:
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


# ----------------------------------------------------------------------------
# For notifications: what the deadline jobs and the e-mails need to know.
# notifications reads games through these and games.services only.


@dataclass(frozen=True)
class TableFacts:
    """What a message or a deadline job needs to know about a table."""

    id: int
    seq: int
    turn: int
    status: str
    turn_hours: int
    timeout_policy: str
    deadline_at: datetime | None

    @property
    def running(self) -> bool:
        return self.status == Table.Status.ACTIVE

    @property
    def finished(self) -> bool:
        return self.status == Table.Status.FINISHED

    @property
    def leave_on_timeout(self) -> bool:
        return self.timeout_policy == Table.TimeoutPolicy.LEAVE


@dataclass(frozen=True)
class SeatFacts:
    """A seat as a message names it: the player (None for a bot) and where they stand."""

    number: int
    user: User | None
    bot_level: str
    left: bool

    @property
    def is_bot(self) -> bool:
        return bool(self.bot_level)

    @property
    def name(self) -> str:
        if self.user is not None:
            return self.user.get_username()
        return f"Bot ({self.bot_level})"


def _table_facts(table: Table) -> TableFacts:
    return TableFacts(
        id=table.pk,
        seq=table.seq,
        turn=table.turn,
        status=table.status,
        turn_hours=table.turn_hours,
        timeout_policy=table.timeout_policy,
        deadline_at=table.deadline_at,
    )


def _seat_facts(seat: Seat) -> SeatFacts:
    return SeatFacts(
        number=seat.number, user=seat.user, bot_level=seat.bot_level, left=seat.left_at is not None
    )


def table_facts(table_id: int) -> TableFacts | None:
    """The table's facts as they are now, or None when there is no such table."""
    table = Table.objects.filter(pk=table_id).first()
    return None if table is None else _table_facts(table)


def facts_of(table: Table) -> TableFacts:
    """The facts of a table a service has just handed back (``MoveResult.table``)."""
    return _table_facts(table)


def turn_seat(table_id: int) -> SeatFacts | None:
    """The seat whose turn it is now, or None when no game runs there."""
    seat = (
        Seat.objects.select_related("user")
        .filter(table_id=table_id, table__to_act__isnull=False, number=F("table__to_act"))
        .first()
    )
    return None if seat is None else _seat_facts(seat)


def seat_at(table_id: int, number: int) -> SeatFacts:
    seat = Seat.objects.select_related("user").get(table_id=table_id, number=number)
    return _seat_facts(seat)


def seats_at(table_id: int) -> list[SeatFacts]:
    seats = Seat.objects.select_related("user").filter(table_id=table_id).order_by("number")
    return [_seat_facts(seat) for seat in seats]


def final_ranking(table_id: int) -> tuple[list[dict[str, Any]], int]:
    """The game's ranking with each seat's name, and how many rounds were played.

    From the watcher view, which carries both: every entry of the ranking is
    public once the game is over.
    """
    table = table_get(table_id)
    view = table_view(table, None)
    if view is None:
        return [], 0
    names = {seat.number: seat.name for seat in seats_at(table_id)}
    ranking = [
        {**entry, "name": names.get(entry["seat"], f"Seat {entry['seat']}")}
        for entry in view["ranking"]
    ]
    return ranking, len(view["rounds"])


def events_seen_by(events: list[flip.Event], seat: int | None) -> list[dict[str, Any]]:
    """What a service call caused (``MoveResult.events``), as ``seat`` may see it."""
    return flip.events_view(events, seat)


def _keyset(queryset: QuerySet[Table], field: str, batch: int) -> Iterator[list[tuple[int, int]]]:
    """Pages of (table id, turn) ordered by (``field``, id), ``batch`` at a time.

    Keyset pagination keeps every query an index range scan, whether or not
    the jobs handed out change the rows meanwhile.
    """
    rows = queryset.order_by(field, "pk").values_list("pk", "turn", field)
    last: tuple[datetime, int] | None = None
    while True:
        page = rows
        if last is not None:
            page = rows.filter(
                Q(**{f"{field}__gt": last[0]}) | Q(**{field: last[0], "pk__gt": last[1]})
            )
        chunk = list(page[:batch])
        if not chunk:
            return
        yield [(pk, turn) for pk, turn, _ in chunk]
        last = (chunk[-1][2], chunk[-1][0])
        if len(chunk) < batch:
            return


def tables_due_for_timeout(*, now: datetime, batch: int) -> Iterator[list[tuple[int, int]]]:
    """Running tables whose turn deadline has passed: pages of (table id, turn).

    Reads through the partial index ``table_active_deadline``, so it costs
    what is due, not what exists.
    """
    due = Table.objects.filter(status=Table.Status.ACTIVE, deadline_at__lte=now)
    return _keyset(due, "deadline_at", batch)


def tables_due_for_reminder(*, now: datetime, batch: int) -> Iterator[list[tuple[int, int]]]:
    """Running tables past their turn's halfway point, deadline not yet passed."""
    due = Table.objects.filter(status=Table.Status.ACTIVE, remind_at__lte=now, deadline_at__gt=now)
    return _keyset(due, "remind_at", batch)


def tables_waiting_for_bot(*, unchanged_since: datetime) -> Iterator[tuple[int, int]]:
    """(table id, seq) of running tables where a bot is to act and nothing moved since."""
    bot_to_act = Seat.objects.filter(
        table=OuterRef("pk"), number=OuterRef("to_act"), left_at__isnull=True
    ).exclude(bot_level="")
    waiting = (
        Table.objects.filter(
            status=Table.Status.ACTIVE, to_act__isnull=False, updated_at__lte=unchanged_since
        )
        .filter(Exists(bot_to_act))
        .values_list("pk", "seq")
    )
    return waiting.iterator(chunk_size=1000)
