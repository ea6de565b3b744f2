"""Reads: what a user may see of a table. Every answer is built from its game's views
(``games.rulesets``)."""

from __future__ import annotations

import hashlib
import zlib
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any

from django.contrib.auth.models import AnonymousUser, User
from django.db import models
from django.db.models import Count, Exists, F, OuterRef, Q, QuerySet, Subquery, Sum
from django.utils import timezone

from tabletop import realtime
from tabletop.ruleset import GameState, Ruleset
from tabletop.ruleset import RuleError as RuleError

from . import conf, rows, rulesets
from .errors import Conflict, Forbidden, NotFound
from .models import BotAccount, Connection, Invitation, Move, Seat, Table


def table_get(table_id: int) -> Table:
    try:
        return Table.objects.get(pk=table_id)
    except Table.DoesNotExist:
        raise NotFound() from None


def table_with_seats(table_id: int) -> tuple[Table, list[Seat]]:
    """The table and its seats with their users, in number order, in one statement.

    Each seat's ``table`` is the returned instance. A table with no seat left
    (a lobby its host closed) costs a second statement.
    """
    # Written once per process (games.rows), not compiled by the ORM per read; sorted
    # here, not by an ORDER BY.
    seats, _ = rows.seats_with_table(table_id)
    if not seats:
        return table_get(table_id), []
    seats.sort(key=lambda seat: seat.number)
    return seats[0].table, seats


def seat_for(
    table: Table, user: User | AnonymousUser, seats: list[Seat] | None = None
) -> Seat | None:
    """The seat ``user`` plays at ``table`` (None when they hold none).

    ``seats``: the table's seats, read already (``table_with_seats``).
    """
    if not user.is_authenticated:
        return None
    if seats is not None:
        return next((seat for seat in seats if seat.user_id == user.pk), None)
    seat: Seat | None = table.seats.filter(user=user).first()
    return seat


def viewer_seat(
    table: Table, user: User | AnonymousUser, seats: list[Seat] | None = None
) -> int | None:
    """The seat whose view ``user`` gets: their seat, or None for a watcher.

    A player struck out at a real-time table still holds their seat and sees
    its view (ruling 18, revised); a player whose seat a moderator handed to a
    bot watches their own table whatever its watcher setting. Raises
    ``Forbidden`` when the user holds no seat, held none, and the table does
    not allow watching. ``seats``: the table's seats, read already
    (``table_with_seats``).
    """
    seat = seat_for(table, user, seats)
    if seat is not None:
        return seat.number
    if table.allow_watchers:
        return None
    if user.is_authenticated and (
        any(one.previous_user_id == user.pk for one in seats)
        if seats is not None
        else table.seats.filter(previous_user=user).exists()
    ):
        return None  # their seat went to a bot: they may still watch their own table
    raise Forbidden("This table does not allow watchers.", code="watching_not_allowed")


def ruleset_of(table: Table) -> Ruleset:
    """The rules of ``table``'s game."""
    return rulesets.ruleset(table.game)


def table_state(table: Table) -> GameState | None:
    """The game in ``table``'s snapshot (None before the start): the one place it is read.

    The game's ruleset upgrades a snapshot written by an older version as it loads it.
    """
    return None if table.state is None else rulesets.restore(table.game, table.state)


def bot_may_jump_in(table_id: int) -> bool:
    """Whether a bot's seat at the running table may play out of turn now (a jump-in).

    Reads the snapshot only at a table with a bot's seat that is not to act.
    """
    table = Table.objects.filter(pk=table_id, status=Table.Status.ACTIVE).first()
    if table is None or table.state is None:
        return False
    bots = [
        seat.number
        for seat in table.seats.all()
        if seat.bot_plays and seat.left_at is None and seat.number != table.to_act
    ]
    if not bots:
        return False
    state = table_state(table)
    if state is None or state.over:
        return False
    rules = ruleset_of(table)
    return any(rules.legal_actions(state, number) for number in bots)


def bot_may_jump_in_after(table: Table, state: GameState) -> bool:
    """``bot_may_jump_in`` for a change just made, whose game is ``state``.

    Asks the rules first, which costs no query: only when some seat that is not
    to act has something to do (a jump-in, where the game has one) are the
    seats read, to see whether a bot plays one of them. A game without
    out-of-turn actions (Flip) never reads them.
    """
    if state.over:
        return False
    rules = ruleset_of(table)
    jumpers = [
        number
        for number in range(state.seats)
        if number != state.current and rules.legal_actions(state, number)
    ]
    return bool(jumpers) and any(
        seat.bot_plays
        for seat in Seat.objects.filter(table_id=table.pk, number__in=jumpers, left_at=None)
    )


def seat_to_act(table: Table) -> Seat | None:
    """The seat whose turn it is (with its user), or None when no game runs."""
    if table.to_act is None:
        return None
    seat: Seat | None = (
        Seat.objects.select_related("user").filter(table_id=table.pk, number=table.to_act).first()
    )
    return seat


def table_view(
    table: Table, seat: int | None, state: GameState | None = None
) -> dict[str, Any] | None:
    """The game's view for ``seat`` (None: watcher); None before the start.

    ``state``: the game in ``table``'s snapshot, when the caller holds it already.
    """
    if state is None:
        state = table_state(table)
    if state is None:
        return None
    rules = ruleset_of(table)
    return dict(rules.watcher_view(state) if seat is None else rules.view(state, seat))


def table_log(
    table: Table, seat: int | None, *, after: int = 0, round_of: int | None = None
) -> list[dict[str, Any]]:
    """The moves as ``seat`` (None: a watcher) may see them, oldest first.

    ``after``: only moves with a greater seq. ``round_of``: every move of that
    round instead, from the one that dealt it (``round_dealt_at``). Each move
    says who chose it (``source``) and, for a bot's move made for a person's
    seat, why (``stand_in``: ``move_stand_ins``; None otherwise).
    """
    if round_of is not None:
        after = max(0, round_dealt_at(table, round_of) - 1)
    moves = list(table.moves.filter(seq__gt=after).order_by("seq"))
    events_view = ruleset_of(table).events_view
    stand_ins = move_stand_ins(table, moves, whole_log=after == 0)
    return [
        {
            "seq": move.seq,
            "round": move.round,
            "seat": move.seat,
            "action": move.action,
            "source": move.source,
            "stand_in": stand_ins.get(move.seq),
            "created_at": move.created_at,
            "events": events_view(move.payload["events"], seat),
        }
        for move in moves
    ]


def round_dealt_at(table: Table, round_number: int) -> int:
    """The seq of the move that dealt round ``round_number``: the game's first move for
    round 1, else the move that ended the round before (it deals the next one)."""
    if round_number <= 1:
        return 1
    seq: int | None = (
        table.moves.filter(round=round_number - 1).order_by("-seq").values_list("seq", flat=True)
    ).first()
    return 1 if seq is None else seq


def move_stand_ins(
    table: Table, moves: Sequence[Move], *, whole_log: bool = False
) -> dict[int, StandIn]:
    """Why a bot chose each of ``moves`` that it made for a person's seat, by seq
    (PRODUCT.md ruling 21): ``struck_out`` after the seat's third strike handed it
    to a bot for the rest of the game (its ``replace_with_bot`` entry, source
    ``timeout``), else ``away`` (the player's hold ran out, ruling 18).

    A bot's move at a bot's seat is its own, and so is the move of a bot a
    moderator seated in a person's stead (after their ``replace_with_bot``
    entry, source ``admin``): neither is in the answer. Read from the log and
    the seats, so games played before the mark existed are told the same way.
    ``whole_log``: ``moves`` is the table's whole log (no query for its
    hand-overs). Costs no query unless a bot moved.
    """
    bot_moves = [m for m in moves if m.source == Move.Source.BOT and m.seat is not None]
    if not bot_moves:
        return {}
    people = {
        number
        for number, user, previous in Seat.objects.filter(table=table).values_list(
            "number", "user_id", "previous_user_id"
        )
        if user is not None or previous is not None
    }
    if not any(m.seat in people for m in bot_moves):
        return {}
    handovers: list[tuple[int | None, int, str]] = (
        [(m.seat, m.seq, m.source) for m in moves if m.action == REPLACE_WITH_BOT]
        if whole_log
        else list(
            table.moves.filter(action=REPLACE_WITH_BOT)
            .order_by("seq")
            .values_list("seat", "seq", "source")
        )
    )
    struck_at: dict[int | None, int] = {}
    given_at: dict[int | None, int] = {}
    for number, seq, source in handovers:
        (given_at if source == Move.Source.ADMIN else struck_at).setdefault(number, seq)
    out: dict[int, StandIn] = {}
    for move in bot_moves:
        if move.seat not in people or move.seq > given_at.get(move.seat, move.seq):
            continue
        out[move.seq] = "struck_out" if move.seq > struck_at.get(move.seat, move.seq) else "away"
    return out


#: The log entry of a bot taking a seat for good (``games.services._bot_takes_over``).
REPLACE_WITH_BOT = "replace_with_bot"

#: Log entries that are the table's, not the game's: they change no rule state.
MODERATION_ENTRIES = frozenset({"start", "abort", REPLACE_WITH_BOT})

#: Why a bot moved for a person's seat (PRODUCT.md ruling 21).
StandIn = str


def table_record(table: Table) -> dict[str, Any]:
    """The full game record, published only once the game is over.

    A bot's action made for a person's seat carries why (``stand_in``,
    ``move_stand_ins``): the record marks the table's moves as the pages do.
    """
    state = table_state(table)
    if table.status != Table.Status.FINISHED or state is None:
        raise Conflict("The game record is published once the game is over.", code="game_not_over")
    moves = list(table.moves.order_by("seq"))
    stand_ins = move_stand_ins(table, moves, whole_log=True)
    rules = ruleset_of(table)
    options = rules.make_options(state.seats, table.options)
    played = [
        (
            move.seat,
            rules.action_from_dict(move.payload["action"]),
            move.source,
            move.payload["events"],
            stand_ins.get(move.seq),
        )
        for move in moves[1:]
        # Moderation entries (abort, bot replacement) change no rule state.
        if move.seat is not None and move.action not in MODERATION_ENTRIES
    ]
    return rules.record(options, state.seed, moves[0].payload["events"], played)


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
        seated = Seat.objects.filter(Q(user=user) | Q(previous_user=user)).values("table_id")
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
    #: A real-time table (a move timer of seconds): no reminder, no turn e-mail.
    realtime: bool = False

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
    #: A bot plays the seat while its player is away (ruling 18).
    away: bool = False
    #: A bot plays the seat for the rest of the game; ``user`` is still its player (ruling 17).
    struck_out: bool = False
    #: The level of the bot that plays the seat while its player is on autopilot (ruling 20).
    autopilot: str = ""
    #: The player asked for their forced moves to be played at once (``games.away``).
    forced_moves: bool = False
    #: How the table names the seat (``seat_names``); empty: not known here.
    label: str = ""

    @property
    def is_bot(self) -> bool:
        return bool(self.bot_level)

    @property
    def bot_plays(self) -> bool:
        """A bot makes this seat's decisions (a bot's seat, its player away, on autopilot
        or struck out)."""
        return self.is_bot or self.away or self.struck_out or bool(self.autopilot)

    @property
    def name(self) -> str:
        if self.label:
            return self.label
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
        realtime=table.realtime,
    )


def _seat_facts(seat: Seat, label: str = "") -> SeatFacts:
    return SeatFacts(
        number=seat.number,
        user=seat.user,
        bot_level=seat.bot_level,
        left=seat.left_at is not None,
        away=seat.away,
        struck_out=seat.struck_out,
        autopilot=seat.autopilot,
        forced_moves=seat.forced_moves,
        label=label,
    )


def table_facts(table_id: int) -> TableFacts | None:
    """The table's facts as they are now, or None when there is no such table."""
    table = Table.objects.filter(pk=table_id).first()
    return None if table is None else _table_facts(table)


def seat_facts_of(seat: Seat) -> SeatFacts:
    """The facts of a seat a service has just handed back (``TimedOut.seat``)."""
    return _seat_facts(seat)


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
    """Every seat of the table in number order, each named as the table names it."""
    seats = list(
        Seat.objects.select_related("user", "previous_user")
        .filter(table_id=table_id)
        .order_by("number")
    )
    names = seat_names(seats)
    return [_seat_facts(seat, names[seat.number]) for seat in seats]


def seat_names(seats: Sequence[Seat]) -> dict[int, str]:
    """How every page, answer and e-mail names each seat of one table, by number.

    A person by their username (also when struck out: the seat is still
    theirs); the bots seated in the lobby by their place among them and their
    level, so that two are never named alike ("Bot 1 (easy)", "Bot 2 (hard)");
    a seat a moderator handed to a bot after its name and "(bot)", which
    leaves the lobby bots' numbers as they were.

    >>> seat_names([Seat(number=0, bot_level="easy"), Seat(number=2, bot_level="easy")])
    {0: 'Bot 1 (easy)', 2: 'Bot 2 (easy)'}
    """
    names: dict[int, str] = {}
    bots = 0
    for seat in sorted(seats, key=lambda one: one.number):
        if seat.user_id is not None and seat.user is not None:
            names[seat.number] = seat.user.username
        elif seat.previous_user_id is not None and seat.previous_user is not None:
            names[seat.number] = f"{seat.previous_user.username} (bot)"
        else:
            bots += 1
            names[seat.number] = f"Bot {bots} ({seat.bot_level})"
    return names


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


@dataclass(frozen=True)
class PresenceAtEnd:
    """Where a seated person stood when their game ended (issue 38, "game over" by ruling 19)."""

    #: A socket of theirs is open at the table now (a ``Connection`` row).
    connected: bool
    #: The table's last move was theirs, made by them (not by the table for them).
    ended_it: bool
    #: The table's last move was a timeout of their seat (it may have ended the game).
    timed_out_last: bool


def presence_at_end(table_id: int) -> dict[int, PresenceAtEnd]:
    """Each seated user's presence at ``table_id`` (one query), keyed by user id."""
    connected = Connection.objects.filter(table_id=table_id, user_id=OuterRef("user_id"))
    last = Move.objects.filter(table_id=table_id).order_by("-seq")[:1]
    seats = (
        Seat.objects.filter(table_id=table_id, user__isnull=False)
        .annotate(
            connected=Exists(connected),
            last_seat=Subquery(last.values("seat")),
            last_source=Subquery(last.values("source")),
        )
        .values_list("user_id", "number", "connected", "last_seat", "last_source")
    )
    return {
        user_id: PresenceAtEnd(
            connected=bool(is_connected),
            ended_it=last_seat == number and last_source == Move.Source.PLAYER,
            timed_out_last=last_seat == number and last_source == Move.Source.TIMEOUT,
        )
        for user_id, number, is_connected, last_seat, last_source in seats
    }


def events_seen_by(
    table: Table, events: Sequence[dict[str, Any]], seat: int | None
) -> list[dict[str, Any]]:
    """What a service call caused (``MoveResult.events``), as ``seat`` may see it."""
    return ruleset_of(table).events_view(events, seat)


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
        ~Q(bot_level="") | Q(away=True) | Q(struck_out=True) | ~Q(autopilot=""),
        table=OuterRef("pk"),
        number=OuterRef("to_act"),
        left_at__isnull=True,
    )
    waiting = (
        Table.objects.filter(
            status=Table.Status.ACTIVE, to_act__isnull=False, updated_at__lte=unchanged_since
        )
        .filter(Exists(bot_to_act))
        .values_list("pk", "seq")
    )
    return waiting.iterator(chunk_size=1000)


def realtime_tables_due(*, now: datetime, batch: int) -> Iterator[list[tuple[int, int]]]:
    """Running real-time tables whose move timer ran out by ``now``: pages of (table id, turn)."""
    due = Table.objects.filter(
        status=Table.Status.ACTIVE, move_seconds__isnull=False, deadline_at__lte=now
    )
    return _keyset(due, "deadline_at", batch)


def holds_ended(*, now: datetime) -> list[tuple[int, int]]:
    """(table id, seat number) of every held seat whose two minutes are over by ``now``."""
    rows = Seat.objects.filter(held_until__lte=now).order_by("held_until")
    return list(rows.values_list("table_id", "number"))


def connected_users(table: Table) -> set[int] | None:
    """The ids of the users with a connection open to a real-time table; None turn by turn.

    Presence is a fact of real-time play; a turn-by-turn table shows none.
    """
    if not table.realtime:
        return None
    return set(Connection.objects.filter(table=table).values_list("user_id", flat=True))


def seat_presence(seat: Seat, connected: set[int] | None) -> dict[str, Any]:
    """A seat's public facts of real-time play (ruling 18: shown to every seat and watcher).

    ``strikes``: turns its player ran out of time on; ``connected``: whether
    its player has a connection open (None turn by turn, and for a bot);
    ``held_until``: the instant its hold ends, after the player's last
    connection closed; ``away``: a bot plays it until the player returns;
    ``replaced``: a bot plays the seat for good, after three strikes (the
    player still holds it) or in a moderator's stead; ``autopilot``: the level of
    the bot that plays its player's turns while they are away (ruling 20, turn by
    turn), None when not, and ``autopilot_until`` until when (the end of the time
    away, or sooner the end of the player's allowance of days).
    """
    return {
        "strikes": seat.strikes,
        "connected": None
        if connected is None or seat.user_id is None
        else seat.user_id in connected,
        "held_until": seat.held_until,
        "away": seat.away,
        "replaced": seat.struck_out or (seat.is_bot and seat.previous_user_id is not None),
        "autopilot": seat.autopilot or None,
        "autopilot_until": seat.autopilot_until if seat.autopilot else None,
    }


def seat_public_level(seat: Seat) -> str | None:
    """Who plays ``seat``, as everyone at the table is shown it, in a bot's terms.

    A bot's level for a bot's seat (``bot_level``, served to everyone); for a
    player who is away, the level of the bot that plays the seat meanwhile
    (``away`` is public too, ruling 18); None for a person playing their seat.
    """
    if seat.is_bot:
        return seat.bot_level
    if seat.away or seat.struck_out:
        return realtime.STAND_IN_LEVEL
    if seat.autopilot:
        return seat.autopilot
    return None


# ----------------------------------------------------------------------------
# For the web client (``web/``)
#
# The web client may not import a game. What it needs of the rules comes through
# these thin functions, so every word and every refusal a page shows is the
# game's own, and nothing about a game is decided in a template.


def refusal_sentence(code: str, game: str = rulesets.DEFAULT_GAME) -> str:
    """The sentence a person reads for a refusal code of ``game``'s rules."""
    return rulesets.ruleset(game).messages.get(code, code)


def face_words(code: str, game: str = rulesets.DEFAULT_GAME) -> dict[str, Any]:
    """A face code of ``game`` in words: its colour, symbol, kind, number, name and
    points (``Ruleset.face_words``).

    >>> face_words("sun-draw-one")["name"]
    'Yellow Draw One'
    >>> face_words("wild-draw-color")["color"] is None
    True
    """
    return dict(rulesets.ruleset(game).face_words(code))


def color_symbol(color: str, game: str = rulesets.DEFAULT_GAME) -> str:
    """The symbol printed with ``color`` in ``game`` (red: flame ...)."""
    return rulesets.ruleset(game).color_symbols[color]


def games_offered() -> list[dict[str, Any]]:
    """The games a table can be opened for, with their options (the new-table form's)."""
    return [
        {"id": rules.id, "name": rules.name, "options": list(rules.options)}
        for rules in rulesets.rulesets()
    ]


def table_seats(table: Table) -> list[dict[str, Any]]:
    """The table's seats in order: number, the user's id and name or the bot level, left,
    the public facts of real-time play (``seat_presence``), for a seat a moderator
    handed to a bot, its player's name (``previous_username``, public: they sat there),
    and the name the table gives the seat (``seat_names``)."""
    connected = connected_users(table)
    seats = list(table.seats.select_related("user", "previous_user").order_by("number"))
    names = seat_names(seats)
    return [
        {
            "number": seat.number,
            "user_id": seat.user_id,
            "username": seat.user.username if seat.user is not None else None,
            "bot_level": seat.bot_level or None,
            "left": seat.left_at is not None,
            "previous_username": (
                seat.previous_user.username if seat.previous_user is not None else None
            ),
            "name": names[seat.number],
            **seat_presence(seat, connected),
        }
        for seat in seats
    ]


def table_version(
    table_id: int, user: User | AnonymousUser
) -> tuple[str, str, int | None, bool] | None:
    """``(version, status, seat, allow_watchers)`` of a table for ``user`` in one query.

    None: no such table. ``version`` is what a live page's ETag is made of
    (``view_version``): it changes whenever anything the page shows does
    (every change appends a move or counts a change of presence, except in
    the lobby; see ``table_lobby_digest``).
    """
    user_id = user.pk if user.is_authenticated else 0  # no user has id 0: no seat
    seat = Seat.objects.filter(table_id=OuterRef("pk"), user_id=user_id).values("number")[:1]
    row = (
        Table.objects.filter(pk=table_id)
        .annotate(my_seat=Subquery(seat))
        .values_list("seq", "presence_version", "status", "my_seat", "allow_watchers")
        .first()
    )
    return None if row is None else (_version(row[0], row[1]), row[2], row[3], row[4])


def _version(seq: int, presence: int) -> str:
    return str(seq) if presence == 0 else f"{seq}.{presence}"


def view_version(table: Table) -> str:
    """What changes whenever a table's view does: its seq, and presence at a real-time table.

    >>> view_version(Table(seq=12))
    '12'
    >>> view_version(Table(seq=12, presence_version=3))
    '12.3'
    """
    return _version(table.seq, table.presence_version)


def table_lobby_digest(table_id: int) -> str:
    """A short digest of a lobby's seats: they come and go while ``seq`` stays 0."""
    rows = Seat.objects.filter(table_id=table_id).order_by("number")
    text = ";".join(
        f"{n}:{u}:{b}" for n, u, b in rows.values_list("number", "user_id", "bot_level")
    )
    # Issue 40: the host's page lists the table's invitations, which come and go too.
    invited = Invitation.objects.filter(table_id=table_id).order_by("pk")
    text += "|" + ";".join(f"{i}:{s}" for i, s in invited.values_list("pk", "status"))
    return hashlib.sha256(text.encode()).hexdigest()[:12]


def table_choices() -> dict[str, Any]:
    """The options a table can be opened with, for the web client's form."""
    return {
        "seat_counts": list(range(2, 11)),
        "turn_hours": list(Table.TURN_HOURS),
        "timeout_policies": list(Table.TimeoutPolicy.choices),
        "games": games_offered(),
        # The default game's targets (Wild Cards Flip: 250, 500 or 1000).
        "targets": [
            choice
            for spec in rulesets.ruleset(rulesets.DEFAULT_GAME).options
            if spec.name == "target"
            for choice in spec.choices
        ],
        "bot_levels": list(Seat.BotLevel.choices),
        # Real time (tabletop.realtime, the same for every game): each move timer's name
        # and seconds, and the strikes after which a bot takes the seat for good.
        "move_timers": list(realtime.MOVE_TIMERS.items()),
        "strikes_for_bot": realtime.STRIKES_FOR_BOT,
        # How long a seat is held after a disconnect (ruling 18; a setting, tests shorten it).
        "seat_hold_seconds": conf.seat_hold_seconds(),
    }


def lobby_for(user: User) -> dict[str, list[Any]]:
    """The lobby's lists for ``user``: tables where it is their turn (soonest deadline
    first), their other running tables, the lobbies they sit at, open tables they
    can join, and their finished games (newest first).

    Whose turn it is comes from ``Table.to_act``, written with every snapshot. A
    running game they left (a concession) is no longer theirs to follow here; it is
    back among their finished games once it ends. A seat a bot plays for them after
    three strikes is still theirs, never their turn to act.
    """
    mine = Seat.objects.filter(user=user).values("table_id")
    playing = Seat.objects.filter(user=user, left_at__isnull=True).values("table_id")
    to_act = Seat.objects.filter(
        table=OuterRef("pk"),
        number=OuterRef("to_act"),
        user=user,
        left_at__isnull=True,
        struck_out=False,
        autopilot="",
    )
    base = Table.objects.select_related("host").prefetch_related(
        "seats__user", "seats__previous_user"
    )
    active = base.filter(status=Table.Status.ACTIVE, pk__in=playing).annotate(
        my_turn=Exists(to_act)
    )
    my_turn = list(active.filter(my_turn=True).order_by("deadline_at", "pk"))
    others = list(active.filter(my_turn=False).order_by("-started_at", "-pk"))
    waiting = list(base.filter(status=Table.Status.LOBBY, pk__in=mine).order_by("-created_at"))
    joinable = list(
        base.annotate(taken=Count("seats"))
        .filter(status=Table.Status.LOBBY, taken__lt=F("seat_count"))
        .exclude(pk__in=mine)
        .order_by("-created_at")[:50]
    )
    finished = list(
        base.filter(status=Table.Status.FINISHED, pk__in=mine).order_by("-finished_at")[:50]
    )
    return {
        "my_turn": my_turn,
        "active": others,
        "waiting": waiting,
        "joinable": joinable,
        "finished": finished,
    }


def web_viewer_seat(table: Table, user: User, seats: list[Seat] | None = None) -> int | None:
    """As ``viewer_seat``, except that a moderator may always watch (the admin links here).

    A moderator already sees the watcher view in the admin; this shows them
    the same facts on the table page, never a seat's. ``seats``: as ``viewer_seat``'s.
    """
    moderator = not table.allow_watchers and user.has_perm("games.change_table")
    if moderator and seat_for(table, user, seats) is None:
        return None
    return viewer_seat(table, user, seats)


def table_replay(table: Table) -> list[dict[str, Any]]:
    """Every open position of a finished game, from its record (``Ruleset.positions``).

    The record is published once the game is over, so every hand is shown
    face up. Raises ``Conflict`` (``game_not_over``) before that.
    """
    return [dict(position) for position in ruleset_of(table).positions(table_record(table))]


def user_has_history(*, user: User) -> bool:
    """True when a table, a seat (also one since handed to a bot) or a move names ``user``.

    Those rows are kept for good, so such a user can be anonymised, not deleted.
    """
    return (
        Table.objects.filter(host=user).exists()
        or Seat.objects.filter(Q(user=user) | Q(previous_user=user)).exists()
    )


# ----------------------------------------------------------------------------
# For the WebSocket layer (``live/``)


def tables_versions(table_ids: list[int]) -> dict[int, tuple[int, str, int, int]]:
    """``{table id: (seq, status, presence version, seats taken)}`` of ``table_ids``, one query.

    What a process's open sockets recheck now and then (``live.ticker``): a table
    whose version moved without a push reaching them is pushed again. In the
    lobby, where seq stays 0, the number of seats taken moves instead.
    """
    rows = (
        Table.objects.filter(pk__in=table_ids)
        .annotate(taken=Count("seats"))
        .values_list("pk", "seq", "status", "presence_version", "taken")
    )
    return {pk: (seq, status, presence, taken) for pk, seq, status, presence, taken in rows}


# ----------------------------------------------------------------------------
# The rows a change carries
#
# A player's action holds its table and seats as it committed them
# (``games.signals.table_changed``'s ``rows``); the message that tells the
# table's sockets (``live``) carries them, so that the processes holding those sockets
# build their views from them instead of reading the table again. Only what
# the views and the per-socket admission read travels: the table's and the
# seats' columns and each seated user's id and name, never a password hash or
# an e-mail address. A process of another version (a deploy under way) packs
# another field list: its rows are not used and the socket reads the table.


def _columns(model: type[models.Model]) -> tuple[list[str], list[int]]:
    fields = model._meta.concrete_fields
    names = [one.attname for one in fields]
    dates = [i for i, one in enumerate(fields) if isinstance(one, models.DateTimeField)]
    return names, dates


_TABLE_COLUMNS, _TABLE_DATES = _columns(Table)
_SEAT_COLUMNS, _SEAT_DATES = _columns(Seat)
#: Which columns a packing holds, in which order.
ROWS_FORMAT = zlib.crc32(" ".join([*_TABLE_COLUMNS, "|", *_SEAT_COLUMNS]).encode())


def _values(instance: models.Model, columns: list[str], dates: list[int]) -> list[Any]:
    values = [getattr(instance, name) for name in columns]
    for i in dates:
        if values[i] is not None:
            values[i] = values[i].isoformat()
    return values


def _parsed(values: list[Any], dates: list[int]) -> list[Any]:
    for i in dates:
        if values[i] is not None:
            values[i] = datetime.fromisoformat(values[i])
    return values


def pack_rows(table: Table, seats: list[Seat]) -> dict[str, Any]:
    """``table`` and ``seats`` as a channel-layer message can carry them (msgpack, JSON)."""
    return {
        "format": ROWS_FORMAT,
        "table": _values(table, _TABLE_COLUMNS, _TABLE_DATES),
        "seats": [_values(seat, _SEAT_COLUMNS, _SEAT_DATES) for seat in seats],
        "users": [
            None if seat.user is None else [seat.user.pk, seat.user.username] for seat in seats
        ],
    }


def unpack_rows(packed: dict[str, Any]) -> tuple[Table | None, list[Seat]]:
    """What ``pack_rows`` packed, as model instances; (None, []) for another format.

    A seat's user has its id and username only: any other field would be read
    from the database if asked for (Django's deferred fields), never made up.
    """
    if packed.get("format") != ROWS_FORMAT:
        return None, []
    table = Table.from_db(None, _TABLE_COLUMNS, _parsed(list(packed["table"]), _TABLE_DATES))
    seats = []
    for values, user in zip(packed["seats"], packed["users"], strict=True):
        seat = Seat.from_db(None, _SEAT_COLUMNS, _parsed(list(values), _SEAT_DATES))
        seat.table = table
        seat.user = None if user is None else User.from_db(None, ["id", "username"], user)
        seats.append(seat)
    return table, seats


# ----------------------------------------------------------------------------
# For notifications (ruling 19): is a player whose turn it is away?


@dataclass(frozen=True)
class TurnAwaiting:
    """A turn-by-turn table where it is a user's turn, and what says whether they are there."""

    table: TableFacts
    seat: int
    turn_started_at: datetime | None
    #: A socket of theirs is open at the table now (a ``Connection`` row).
    connected: bool
    #: Their own last action at the table when it is the table's last (a drawn card
    #: still to play: ruling 5), else None.
    acted_at: datetime | None


def turns_awaiting(*, user_id: int, table_id: int | None = None) -> list[TurnAwaiting]:
    """Every running turn-by-turn table (or only ``table_id``) where it is ``user_id``'s turn.

    One query, through the user's seats: the table's facts, whether a socket
    of theirs is open there, and their action in this turn if they made one.
    A seat a bot plays, or one its player left, is nobody's turn to be told of.
    """
    connected = Connection.objects.filter(table_id=OuterRef("table_id"), user_id=user_id)
    acted = Move.objects.filter(
        table_id=OuterRef("table_id"),
        seq=OuterRef("table__seq"),
        seat=OuterRef("number"),
        source=Move.Source.PLAYER,
    ).values("created_at")[:1]
    seats = (
        Seat.objects.filter(
            user_id=user_id,
            left_at__isnull=True,
            away=False,
            autopilot="",
            table__status=Table.Status.ACTIVE,
            table__move_seconds__isnull=True,
            table__to_act=F("number"),
        )
        .select_related("table")
        .only(
            "number",
            "table__id",
            "table__seq",
            "table__turn",
            "table__status",
            "table__turn_hours",
            "table__timeout_policy",
            "table__deadline_at",
            "table__move_seconds",
            "table__turn_started_at",
        )
        .annotate(connected=Exists(connected), acted_at=Subquery(acted))
        .order_by("table_id")
    )
    if table_id is not None:
        seats = seats.filter(table_id=table_id)
    return [
        TurnAwaiting(
            table=_table_facts(seat.table),
            seat=seat.number,
            turn_started_at=seat.table.turn_started_at,
            connected=bool(seat.connected),
            acted_at=seat.acted_at,
        )
        for seat in seats
    ]


# ----------------------------------------------------------------------------
# For notifications (issue 38): the last call and the daily digest.


def last_call_lead(turn_hours: int) -> timedelta:
    """How long before the deadline a turn's earliest last call comes, whatever the player chose.

    A tenth of the turn's time, or its last hour when that is longer, an hour being
    ``GAMENOOK_SECONDS_PER_HOUR`` seconds (a benchmark runs the clock faster). The
    service writes the deadline less this as ``Table.last_call_at`` with every new turn.

    >>> last_call_lead(72) == timedelta(hours=7.2) and last_call_lead(12) == timedelta(hours=1.2)
    True
    """
    hour = timedelta(seconds=conf.seconds_per_hour())
    return max(hour * turn_hours / 10, hour)


def tables_due_for_last_call(*, now: datetime, batch: int) -> Iterator[list[tuple[int, int]]]:
    """Running tables whose turn reached its earliest last call by ``now``: pages of
    (table id, turn).

    Reads the partial index ``table_active_last_call`` on ``Table.last_call_at``,
    which the last call's job puts off to the player's own moment or clears once
    handled (``services.table_claim_last_call``): its cost grows with the last calls
    due, not with the tables. A deadline already passed is left to the timeout.
    """
    due = Table.objects.filter(
        status=Table.Status.ACTIVE, last_call_at__lte=now, deadline_at__gt=now
    )
    return _keyset(due, "last_call_at", batch)


@dataclass(frozen=True)
class GameEnded:
    """A finished game a user played in: the table and the seat that was theirs."""

    table: TableFacts
    seat: int
    finished_at: datetime


def games_ended_for(*, user_id: int, since: datetime, until: datetime) -> list[GameEnded]:
    """The games ``user_id`` played that ended after ``since`` and by ``until``, oldest first.

    Their seat's player to the end, struck out or not (the game-over mail's
    recipients); an aborted game did not end. One query.
    """
    seats = (
        Seat.objects.filter(
            user_id=user_id,
            table__status=Table.Status.FINISHED,
            table__finished_at__gt=since,
            table__finished_at__lte=until,
        )
        .select_related("table")
        .order_by("table__finished_at", "table_id")
    )
    return [
        GameEnded(
            table=_table_facts(seat.table),
            seat=seat.number,
            finished_at=seat.table.finished_at,
        )
        for seat in seats
        if seat.table.finished_at is not None
    ]


# ----------------------------------------------------------------------------
# For the web client (issue 38, "next game"): the table to offer a player next.


@dataclass(frozen=True)
class NextTurn:
    """A running table where it is a user's turn: its id, its deadline and its kind."""

    table_id: int
    #: When the turn's time runs out (a real-time table's move timer included); None: no
    #: deadline is running.
    deadline_at: datetime | None
    realtime: bool


def next_turn_for(user: User, *, exclude_table_id: int | None = None) -> NextTurn | None:
    """The running table, other than ``exclude_table_id``, where it is ``user``'s turn
    with the least time left (ties by id), or None.

    Turn by turn and real time alike, through ``Table.to_act`` (written with
    every snapshot). A seat its player left, one a bot plays for good after
    three strikes, or one on autopilot (ruling 20: its turns are the bot's) is
    not theirs to play. A table without a running deadline comes last. One
    query, through the user's seats.
    """
    seats = Seat.objects.filter(
        user=user,
        left_at__isnull=True,
        struck_out=False,
        autopilot="",
        table__status=Table.Status.ACTIVE,
        table__to_act=F("number"),
    )
    if exclude_table_id is not None:
        seats = seats.exclude(table_id=exclude_table_id)
    row = (
        seats.order_by(F("table__deadline_at").asc(nulls_last=True), "table_id")
        .values_list("table_id", "table__deadline_at", "table__move_seconds")
        .first()
    )
    if row is None:
        return None
    table_id, deadline_at, move_seconds = row
    return NextTurn(table_id=table_id, deadline_at=deadline_at, realtime=move_seconds is not None)


# ----------------------------------------------------------------------------
# The reliability record (issue 39): turns on time and games finished, over a window.


@dataclass(frozen=True)
class Reliability:
    """A player's record over the last ``days`` days of finished games.

    ``turns``: the turns their seats had; ``timeouts``: those the deadline or
    the move timer played; ``games``: the games they sat in; ``left``: those
    they left before the end (conceded, or treated as having left). Counted
    when each game ends (``services.table_tally``).

    >>> r = Reliability(turns=40, timeouts=2, games=4, left=0, days=90)
    >>> r.on_time, r.finished, r.percent, r.meets(95), r.meets(96)
    (0.95, 1.0, 95, True, False)
    >>> Reliability(turns=0, timeouts=0, games=0, left=0, days=90).percent is None
    True
    """

    turns: int
    timeouts: int
    games: int
    left: int
    days: int

    @property
    def on_time(self) -> float | None:
        """The share of their turns they played before the deadline (None: no turn)."""
        return None if not self.turns else 1 - self.timeouts / self.turns

    @property
    def finished(self) -> float | None:
        """The share of their games they played to the end (None: no game)."""
        return None if not self.games else 1 - self.left / self.games

    @property
    def percent(self) -> int | None:
        """The lower of the two shares in whole percent, rounded down (None: no record)."""
        shares = [share for share in (self.on_time, self.finished) if share is not None]
        if not shares:
            return None
        return int(min(shares) * 100 + 1e-9)

    def meets(self, minimum: int) -> bool:
        """At least ``minimum`` percent; a player with no record yet is given the benefit."""
        percent = self.percent
        return percent is None or percent >= minimum


def reliability(user_ids: Sequence[int], *, now: datetime | None = None) -> dict[int, Reliability]:
    """The reliability record of each of ``user_ids`` (one query for them all).

    Over the games that ended in the last ``GAMENOOK_RELIABILITY_DAYS`` days, through
    the seats' index by user.
    """
    days = conf.reliability_days()
    since = (now or timezone.now()) - timedelta(days=days)
    rows = (
        Seat.objects.filter(
            user_id__in=list(user_ids),
            table__status=Table.Status.FINISHED,
            table__finished_at__gte=since,
        )
        .values("user_id")
        .annotate(
            turns_sum=Sum("turns"),
            timeouts_sum=Sum("timeouts"),
            games=Count("id"),
            left=Count("id", filter=Q(left_at__isnull=False)),
        )
    )
    found = {
        row["user_id"]: Reliability(
            turns=row["turns_sum"] or 0,
            timeouts=row["timeouts_sum"] or 0,
            games=row["games"],
            left=row["left"],
            days=days,
        )
        for row in rows
    }
    none = Reliability(turns=0, timeouts=0, games=0, left=0, days=days)
    return {user_id: found.get(user_id, none) for user_id in user_ids}


# ----------------------------------------------------------------------------
# A finished game as its log tells it (issue 39): what the ratings are made from.


@dataclass(frozen=True, slots=True)
class Tally:
    """A seat's turns in a finished game, counted from the log (``Seat.turns``...)."""

    turns: int
    timeouts: int
    stand_in_turns: int


#: Moves that are no turn of the seat: leaving, and a moderator handing it to a bot.
NO_TURN = (Move.Source.LEAVE, Move.Source.ADMIN)
#: The log entry of a bot taking a seat for good (a moderator's replacement, whose source
#: is ``admin``, or a third real-time strike, whose source is ``timeout``): no turn.
HANDOVER = "replace_with_bot"


def turn_tallies(seats: Sequence[Seat]) -> dict[tuple[int, int], Tally]:
    """Each of ``seats``' tally, by (table id, seat number): one aggregate over their logs.

    Every move the seat made counts as a turn but leaving and a bot taking the
    seat for good (``HANDOVER``); ``timeouts`` are those the deadline or the move timer played;
    ``stand_in_turns`` those a bot made for the seat's person (after a hold ran
    out or three strikes, on autopilot, after a moderator's replacement). At a
    bot's own seat its moves are its own.
    """
    table_ids = sorted({seat.table_id for seat in seats})
    counts: dict[tuple[int, int], dict[str, int]] = {}
    rows = (
        Move.objects.filter(table_id__in=table_ids, seat__isnull=False)
        .exclude(source__in=NO_TURN)
        .exclude(action=HANDOVER)
        .values_list("table_id", "seat", "source")
        .annotate(n=Count("pk"))
        .order_by()
    )
    for table_id, number, source, n in rows:
        counts.setdefault((table_id, number), {})[source] = n
    out = {}
    for seat in seats:
        mine = counts.get((seat.table_id, seat.number), {})
        bots_own = seat.is_bot and seat.previous_user_id is None
        stand_in = (
            0 if bots_own else mine.get(Move.Source.BOT, 0) + mine.get(Move.Source.AUTOPILOT, 0)
        )
        out[(seat.table_id, seat.number)] = Tally(
            turns=sum(mine.values()),
            timeouts=mine.get(Move.Source.TIMEOUT, 0),
            stand_in_turns=stand_in,
        )
    return out


def _final_rankings(tables: Sequence[Table]) -> dict[int, dict[int, int]]:
    """Each finished table's ranking, {seat number: rank}, from its log's last move.

    The move that ended a game carries the ``game_over`` event with the
    ranking (both games write it so); a table whose last move has none (an
    aborted table) is left out.
    """
    if not tables:
        return {}
    last = Q()
    for table in tables:
        last |= Q(table_id=table.pk, seq=table.seq)
    out: dict[int, dict[int, int]] = {}
    for table_id, payload in Move.objects.filter(last).values_list("table_id", "payload"):
        for event in payload.get("events", ()):
            if event.get("type") == "game_over":
                out[table_id] = {entry["seat"]: entry["rank"] for entry in event["ranking"]}
    return out


@dataclass(frozen=True, slots=True)
class FinishedSeat:
    """A seat of a finished game: whose it was, whether they left, its turns (from the log).

    ``person_id``: its player, or the one a moderator replaced by a bot; None
    for a bot's own seat, whose level is ``bot_level``.
    """

    number: int
    person_id: int | None
    bot_level: str
    left: bool
    tally: Tally


@dataclass(frozen=True, slots=True)
class FinishedGame:
    """A finished game as its log tells it: what a rating is made from (issue 39)."""

    table_id: int
    game: str
    realtime: bool
    #: One of the table's options is a house rule set away from its default.
    house_rules: bool
    rated: bool
    finished_at: datetime
    seats: tuple[FinishedSeat, ...]
    #: {seat number: rank}, from the ``game_over`` event of the log's last move.
    ranking: dict[int, int]


#: What a finished game's reading takes of its table (never the snapshot).
_FINISHED_FIELDS = ("game", "options", "move_seconds", "rated", "seq", "status", "finished_at")


def finished_games(table_ids: Sequence[int]) -> dict[int, FinishedGame]:
    """The finished games of ``table_ids`` (an aborted table is left out), in three queries.

    The seats' turns are counted from the log (``turn_tallies``) and the
    ranking read from it, whether or not ``services.table_tally`` has written
    them on the seats yet.
    """
    tables = [
        table
        for table in Table.objects.only(*_FINISHED_FIELDS).filter(pk__in=list(table_ids))
        if table.status == Table.Status.FINISHED and table.finished_at is not None
    ]
    seats = list(
        Seat.objects.filter(table_id__in=[t.pk for t in tables])
        .only("table_id", "number", "user_id", "previous_user_id", "bot_level", "left_at")
        .order_by("table_id", "number")
    )
    tallies = turn_tallies(seats)
    rankings = _final_rankings(tables)
    by_table: dict[int, list[FinishedSeat]] = {}
    for seat in seats:
        person = seat.user_id or seat.previous_user_id
        by_table.setdefault(seat.table_id, []).append(
            FinishedSeat(
                number=seat.number,
                person_id=person,
                bot_level="" if seat.user_id is not None else seat.bot_level,
                left=seat.left_at is not None,
                tally=tallies[(seat.table_id, seat.number)],
            )
        )
    out = {}
    for table in tables:
        ranking = rankings.get(table.pk)
        if ranking is None or table.finished_at is None:
            continue
        out[table.pk] = FinishedGame(
            table_id=table.pk,
            game=table.game,
            realtime=table.move_seconds is not None,
            house_rules=house_rules_on(table),
            rated=table.rated,
            finished_at=table.finished_at,
            seats=tuple(by_table.get(table.pk, ())),
            ranking=ranking,
        )
    return out


def tables_finished_between(
    *, after: datetime, before: datetime, batch: int
) -> Iterator[list[tuple[int, int]]]:
    """Pages of (table id, turn) whose game ended in [after, before), oldest first,
    through the partial index ``table_finished``."""
    return _keyset(
        Table.objects.filter(
            status=Table.Status.FINISHED, finished_at__gte=after, finished_at__lt=before
        ),
        "finished_at",
        batch,
    )


def house_rules_on(table: Table) -> bool:
    """True when one of the table's options is a house rule set away from its default."""
    return any(
        spec.house_rule and table.options.get(spec.name, spec.default) != spec.default
        for spec in ruleset_of(table).options
    )


def think_times(user_id: int, *, tables: int = 50) -> dict[str, list[float]]:
    """The seconds ``user_id`` took over each move of theirs, by mode (``correspondence``,
    ``realtime``), over their last ``tables`` finished games.

    From the log: the time from the move before (anyone's) to theirs, for the
    moves they made themselves (not a timeout, a bot or autopilot).
    """
    seats = list(
        Seat.objects.filter(
            user_id=user_id, table__status=Table.Status.FINISHED, table__finished_at__isnull=False
        )
        .order_by("-table__finished_at")
        .values_list("table_id", "number", "table__move_seconds")[:tables]
    )
    if not seats:
        return {}
    mine = {
        table_id: (number, move_seconds is not None) for table_id, number, move_seconds in seats
    }
    out: dict[str, list[float]] = {}
    previous: tuple[int, datetime] | None = None
    moves = (
        Move.objects.filter(table_id__in=list(mine))
        .order_by("table_id", "seq")
        .values_list("table_id", "seat", "source", "created_at")
    )
    for table_id, seat, source, created_at in moves:
        number, realtime_table = mine[table_id]
        if (
            previous is not None
            and previous[0] == table_id
            and seat == number
            and source == Move.Source.PLAYER
        ):
            mode = "realtime" if realtime_table else "correspondence"
            out.setdefault(mode, []).append((created_at - previous[1]).total_seconds())
        previous = (table_id, created_at)
    return out


# Issue 40: bot accounts and invitations. Other layers ask here whether a user is a
# bot account (they may not import games.models).


def bot_account_ids(user_ids: Iterable[int]) -> set[int]:
    """The ids among ``user_ids`` that are bot accounts, disabled ones too, in one query.

    One query for a whole page of names, so that marking each name BOT costs
    nothing per name. An empty ``user_ids`` costs no query.
    """
    wanted = {user_id for user_id in user_ids if user_id is not None}
    if not wanted:
        return set()
    return set(BotAccount.objects.filter(user_id__in=wanted).values_list("user_id", flat=True))


def seats_bot_accounts(seats: Iterable[Seat]) -> set[int]:
    """The users of ``seats`` that are bot accounts: read with the seats when they came
    from ``table_with_seats`` (no query), else in one query."""
    seats = list(seats)
    known = [rows.bot_account_of(seat) for seat in seats]
    if all(flag is not None for flag in known):
        return {
            seat.user_id
            for seat, flag in zip(seats, known, strict=True)
            if flag and seat.user_id is not None
        }
    return bot_account_ids(seat.user_id for seat in seats if seat.user_id is not None)


def bot_account_users() -> QuerySet[BotAccount, Any]:
    """The ids of every bot account, as a subquery (``user_id__in=...``) for the layers that
    may not read ``games.models`` (the leaderboards: people apart from bot accounts)."""
    return BotAccount.objects.values("user_id")


def is_bot_account(user_id: int) -> bool:
    """True when ``user_id`` is a bot account (a disabled one too)."""
    return BotAccount.objects.filter(user_id=user_id).exists()


def bot_owner(user_id: int) -> User | None:
    """The person who runs the bot account ``user_id``; None when it is not a bot account."""
    bot = BotAccount.objects.select_related("owner").filter(user_id=user_id).first()
    return None if bot is None else bot.owner


def bot_owners(user_ids: Iterable[int]) -> dict[int, str]:
    """The owner's username of each bot account among ``user_ids``, in one query.

    People are left out, so ``user_id in bot_owners(...)`` also says BOT.
    """
    wanted = {user_id for user_id in user_ids if user_id is not None}
    if not wanted:
        return {}
    return dict(
        BotAccount.objects.filter(user_id__in=wanted).values_list("user_id", "owner__username")
    )


def bot_owners_by_name(usernames: Iterable[str]) -> dict[str, str]:
    """The owner's username of each bot account among ``usernames``, in one query."""
    wanted = {name for name in usernames if name}
    if not wanted:
        return {}
    return dict(
        BotAccount.objects.filter(user__username__in=wanted).values_list(
            "user__username", "owner__username"
        )
    )


@dataclass(frozen=True)
class InvitationFacts:
    """A pending invitation as its invitee sees it: where, which game, from whom."""

    id: int
    table_id: int
    game: str
    host: str
    seat_count: int
    created_at: datetime


def _pending_for(user_id: int) -> QuerySet[Invitation]:
    return Invitation.objects.filter(
        user_id=user_id, status=Invitation.Status.PENDING, table__status=Table.Status.LOBBY
    )


def invitations_pending_count(user_id: int) -> int:
    """How many pending invitations ``user_id`` has (``invitations_pending``'s length)."""
    return _pending_for(user_id).count()


def invitations_pending(
    user_id: int, *, limit: int | None = None, offset: int = 0
) -> list[InvitationFacts]:
    """``user_id``'s pending invitations to tables still in the lobby, newest first.

    An invitation to a table that has started or closed is not pending any
    more even if its row has not been withdrawn yet (the lapse runs in the
    same transaction as the start; this is the belt to that brace).
    ``limit``/``offset``: one page of them (None: all).
    """
    end = None if limit is None else offset + limit
    rows_ = (
        _pending_for(user_id)
        .order_by("-created_at", "-pk")
        .values_list(
            "pk",
            "table_id",
            "table__game",
            "table__host__username",
            "table__seat_count",
            "created_at",
        )[offset:end]
    )
    return [InvitationFacts(*row) for row in rows_]


def table_invitations(table_id: int, *, pending: bool = False) -> QuerySet[Invitation]:
    """Every invitation of the table (``pending``: those pending only), newest first, with
    its invitee (the host's list)."""
    found = Invitation.objects.filter(table_id=table_id)
    if pending:
        found = found.filter(status=Invitation.Status.PENDING)
    return found.select_related("user").order_by("-created_at", "-pk")


# Issue 40: what the NDJSON streams read (live.streams), read-only.


@dataclass(frozen=True)
class TurnNow:
    """A running table where it is a user's seat's turn now (the event stream's hello)."""

    table_id: int
    game: str
    seq: int
    turn: int
    seat: int
    deadline_at: datetime | None


def turns_now(user_id: int) -> list[TurnNow]:
    """Every running table, of any mode, where it is ``user_id``'s seat's turn, in one query.

    Unlike ``turns_awaiting`` (who is to be reminded) a seat played for the
    moment by the autopilot or away counts: the turn is still the user's.
    """
    return turns_now_of([user_id]).get(user_id, [])


def turns_now_of(user_ids: Iterable[int]) -> dict[int, list[TurnNow]]:
    """``turns_now`` of each of ``user_ids`` (those with a turn), in one query."""
    found = (
        Seat.objects.filter(
            user_id__in=list(user_ids),
            left_at__isnull=True,
            table__status=Table.Status.ACTIVE,
            table__to_act=F("number"),
        )
        .order_by("table_id")
        .values_list(
            "user_id",
            "table_id",
            "table__game",
            "table__seq",
            "table__turn",
            "number",
            "table__deadline_at",
        )
    )
    turns: dict[int, list[TurnNow]] = {}
    for user_id, table_id, game, seq, turn, seat, deadline_at in found:
        turns.setdefault(user_id, []).append(TurnNow(table_id, game, seq, turn, seat, deadline_at))
    return turns


@dataclass(frozen=True)
class LogRead:
    """Some moves of a table as read once, for the log entries of any seat or watcher."""

    table: Table
    moves: list[Move]
    stand_ins: dict[int, StandIn]

    def entries(self, seat: int | None) -> list[dict[str, Any]]:
        """``table_log``'s entries of these moves as ``seat`` (None: a watcher) may see them."""
        events_view = ruleset_of(self.table).events_view
        return [
            {
                "seq": move.seq,
                "round": move.round,
                "seat": move.seat,
                "action": move.action,
                "source": move.source,
                "stand_in": self.stand_ins.get(move.seq),
                "created_at": move.created_at,
                "events": events_view(move.payload["events"], seat),
            }
            for move in self.moves
        ]


def table_log_read(table: Table, *, after: int = 0) -> LogRead:
    """The moves of ``table`` after seq ``after``, read once for every seat's entries:
    the streams of one process share it (``table_log`` reads them again for each seat)."""
    moves = list(table.moves.filter(seq__gt=after).order_by("seq"))
    return LogRead(table, moves, move_stand_ins(table, moves, whole_log=after == 0))


def bot_disabled_by_moderator(user_id: int) -> bool:
    """Whether bot account ``user_id`` was disabled by a moderator (not by its owner)."""
    return BotAccount.objects.filter(user_id=user_id, disabled_by_moderator=True).exists()
