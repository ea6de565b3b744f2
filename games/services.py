"""Every write to a table goes through this module.

The one way a game changes is ``_apply_locked``: with the table row locked
(``SELECT ... FOR UPDATE``) inside a transaction, the table's ruleset validates and applies
the action, the move is appended to the log, the snapshot is saved, and the
follow-ups (``games.signals.table_changed``) are sent on commit. The public
functions below look up, lock and check, then call it.

``tables_timeout_batch`` is the same steps for a page of tables at once (the
deadline sweep's case): one lock query, one insert of every move, one update
of every table, the same signal per table on commit.
"""

from __future__ import annotations

import itertools
import logging
import math
import re
import secrets
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, replace
from datetime import datetime, timedelta
from typing import Any

from django.contrib.auth.models import User
from django.db import IntegrityError, connection, transaction
from django.db.models import Exists, F, OuterRef, Q
from django.utils import timezone

from tabletop import realtime
from tabletop.ruleset import Action, GameState, RuleError, Ruleset

from . import away, conf, limits, rows, rulesets
from .errors import BotGamesCapped, Conflict, Forbidden, InvalidSocket, NotFound, StaleSequence
from .models import BotAccount, Connection, IdempotencyKey, Invitation, Move, Seat, Table
from .selectors import (
    SeatFacts,
    Tally,
    bot_account_ids,
    last_call_lead,
    reliability,
    seat_facts_of,
    seat_public_level,
    table_state,
    turn_tallies,
)
from .signals import invitation_made, seat_held, table_changed

logger = logging.getLogger(__name__)


@dataclass(frozen=True)
class MoveResult:
    """What one service call did: the table after it and the events it caused."""

    table: Table
    state: GameState
    events: list[dict[str, Any]]
    moves: list[Move]
    #: True when the change began a new turn (a new deadline).
    new_turn: bool = False
    #: The table's seats (with their users) as they stand after the change, when the
    #: service read them anyway and knows them current; None: read them if needed.
    seats: list[Seat] | None = None

    @property
    def seat(self) -> int | None:
        """The seat that acted (None for the deal, which no seat makes)."""
        return self.moves[0].seat if self.moves else None


# ----------------------------------------------------------------------------
# Looking up and locking


def _lock_table(table_id: int) -> Table:
    try:
        return Table.objects.select_for_update().get(pk=table_id)
    except Table.DoesNotExist:
        raise NotFound() from None


def _seen_sql() -> str:
    """The table row's ``seq.presence_version`` as the statement's snapshot saw it.

    A subquery on the row the outer query locks, which the lock does not
    refresh; every name comes from the models' metadata.
    """
    quote = connection.ops.quote_name
    table, seat = quote(Table._meta.db_table), quote(Seat._meta.db_table)
    seq, presence = quote("seq"), quote("presence_version")
    return (
        f"SELECT {seq} || '.' || {presence} FROM {table} AS {quote('seen')}"  # noqa: S608
        f" WHERE {quote('seen')}.{quote('id')} = {seat}.{quote('table_id')}"
    )


_SEEN_SQL = _seen_sql()


def _lock_table_with_seats(table_id: int, user: User) -> tuple[Table, Seat, list[Seat]]:
    """Lock the table row and read its seats with their users, current, in one statement.

    Returns the table, ``user``'s seat and every seat in number order (each
    seat's ``table`` is the one locked instance). The seats are not locked,
    so the statement sees them as its snapshot did. Every change to a
    table's seats is made under this row lock and changes the row too
    (``seq``, or ``presence_version`` for presence), so the statement also
    reads those two columns as its snapshot saw them (a subquery, which the
    lock does not refresh): when they equal the locked row's, nothing
    committed between the snapshot and the lock and the seats are current.
    Otherwise another transaction changed the table while this one waited
    for the lock, and the seats are read again, under the lock.
    """
    # Written once per process (games.rows), not compiled by the ORM per action.
    seats, seen = rows.seats_with_table(table_id, lock=True, also=_SEEN_SQL)
    if not seats:
        if not Table.objects.filter(pk=table_id).exists():
            raise NotFound()
        raise Forbidden("You hold no seat at this table.", code="not_seated")
    table = seats[0].table
    if seen != f"{table.seq}.{table.presence_version}":
        seats = list(Seat.objects.select_related("user").filter(table=table).order_by())
    seats.sort(key=lambda one: one.number)
    for one in seats:
        one.table = table
    seat = next((one for one in seats if one.user_id == user.pk), None)
    if seat is None:
        raise Forbidden("You hold no seat at this table.", code="not_seated")
    return table, seat, seats


def _seat_of(table: Table, user: User) -> Seat:
    seat = table.seats.filter(user=user).first()
    if seat is None:
        raise Forbidden("You hold no seat at this table.", code="not_seated")
    return seat


# ----------------------------------------------------------------------------
# The one way a game changes


#: What a move changes on the table row (``_append`` and ``_save_snapshot``).
_SNAPSHOT_FIELDS = [
    "state",
    "seq",
    "turn",
    "to_act",
    "bot_errors",
    "presence_version",
    "status",
    "finished_at",
    "turn_started_at",
    "deadline_at",
    "remind_at",
    "last_call_at",
    "updated_at",
]


def _save_snapshot(table: Table, before: GameState | None, after: GameState) -> bool:
    """Write ``after`` into ``table`` (not saved yet); True when a new turn began."""
    now = timezone.now()
    table.state = after.to_dict()
    new_turn = before is None or after.turn != before.turn
    table.turn = after.turn
    table.to_act = None if after.over else after.current
    if after.over:
        table.status = Table.Status.FINISHED
        table.finished_at = now
        table.turn_started_at = table.deadline_at = table.remind_at = None
        table.last_call_at = None
    elif new_turn and table.move_seconds is not None:
        # Real time: a move timer of seconds and no reminder (ruling 17).
        table.turn_started_at = now
        table.deadline_at = now + timedelta(seconds=table.move_seconds)
        table.remind_at = table.last_call_at = None
    elif new_turn:
        length = timedelta(seconds=table.turn_hours * conf.seconds_per_hour())
        table.turn_started_at = now
        table.deadline_at = now + length
        table.remind_at = now + length / 2
        table.last_call_at = table.deadline_at - last_call_lead(table.turn_hours)
    return new_turn


def _append(
    table: Table,
    *,
    round_number: int,
    seat: int | None,
    action: str,
    payload: dict[str, Any],
    source: str,
) -> Move:
    table.seq += 1
    return Move.objects.create(
        table=table,
        seq=table.seq,
        round=round_number,
        seat=seat,
        action=action,
        payload=payload,
        source=source,
    )


def _notify_on_commit(
    table: Table,
    *,
    new_turn: bool,
    followups_written: bool = False,
    watched: bool = True,
    seats: list[Seat] | None = None,
    answered: tuple[int, str] | None = None,
) -> None:
    """Send ``table_changed`` once the transaction commits.

    ``seats``: the table's seats with their users, when the caller holds them
    current as committed (read under the lock, changed only as written); the
    signal then carries them and the table (``rows``), so that a listener
    need not read what this process already holds. They are handed over at
    the commit, before the caller can change them again. ``answered``: the
    acting user's id and the socket of theirs that the answer reaches
    (``games.signals``).
    """
    table_id, seq, turn = table.pk, table.seq, table.turn
    finished = table.status in (Table.Status.FINISHED, Table.Status.ABORTED)
    # A real-time turn's move timer is queued for its very instant (games.signals).
    timer_at = table.deadline_at if new_turn and table.realtime and not finished else None
    transaction.on_commit(
        lambda: table_changed.send(
            sender=Table,
            table_id=table_id,
            seq=seq,
            turn=turn,
            new_turn=new_turn,
            finished=finished,
            followups_written=followups_written,
            timer_at=timer_at,
            watched=watched,
            rows=None if seats is None else (table, seats),
            answered=answered,
        )
    )


#: One ``UPDATE`` per list of fields, written once per process (``games.rows``).
_UPDATES: dict[tuple[str, ...], rows.Update] = {}
_MOVE_INSERT = rows.Insert(Move)


def _commit_locked(table: Table, *, new_turn: bool, fields: list[str]) -> None:
    """Save the locked table's changed ``fields`` and signal the change on commit.

    As ``table.save(update_fields=fields)`` (``auto_now`` fields take the time
    now), without compiling the statement on every move. The signal says
    whether a socket may be open on the table (``_is_watched``), so that
    ``live`` pushes only where someone can hear it.
    """
    key = tuple(fields)
    update = _UPDATES.get(key)
    if update is None:
        update = _UPDATES[key] = rows.Update(Table, fields)
    update.run(table)
    _notify_on_commit(table, new_turn=new_turn, watched=_is_watched(table.pk))


def _play(
    table: Table,
    state: GameState,
    seat: int,
    next_action: Callable[[GameState], Action | None],
    source: str,
) -> MoveResult:
    """Apply ``next_action(state)`` for ``seat`` until it returns None, in memory only.

    The moves are built but not saved, and the snapshot fields of ``table``
    are set but not saved: the caller writes them (``_apply_locked`` for one
    table, ``tables_timeout_batch`` for a page). A ``RuleError``
    propagates with nothing written.
    """
    before = state
    rules = ruleset_of(table)
    moves: list[Move] = []
    events: list[dict[str, Any]] = []
    while (action := next_action(state)) is not None:
        round_number = state.round
        state, caused = rules.apply(state, seat, action)
        table.seq += 1
        moves.append(
            Move(
                table=table,
                seq=table.seq,
                round=round_number,
                seat=seat,
                action=action.type,
                payload={"action": action.to_dict(), "events": caused},
                source=source,
            )
        )
        events.extend(caused)
    new_turn = _save_snapshot(table, before, state)
    return MoveResult(table=table, state=state, events=events, moves=moves, new_turn=new_turn)


def _apply_locked(
    table: Table,
    state: GameState,
    seat: int,
    next_action: Callable[[GameState], Action | None],
    source: str,
    seats: list[Seat] | None = None,
    answered: tuple[int, str] | None = None,
) -> MoveResult:
    """Apply ``next_action(state)`` for ``seat`` until it returns None, one move each.

    The caller holds the row lock inside ``transaction.atomic()``. A
    ``RuleError`` from any action propagates and the transaction rolls
    back: nothing is written. The moves, the snapshot and the question
    whether anyone watches go in one statement on PostgreSQL (``_PLAY_SAVE``).
    ``seats``: the table's seats, current; ``answered``: the socket the answer
    reaches (``_notify_on_commit``).
    """
    result = _play(table, state, seat, next_action, source)
    # The moves, the snapshot and whether anyone watches: one statement (games.rows).
    watched = _PLAY_SAVE.run(result.moves, table, [table.pk])
    _notify_on_commit(
        table, new_turn=result.new_turn, watched=bool(watched), seats=seats, answered=answered
    )
    return result


#: The header in which a client names its socket at the table, the one its answer
#: reaches, so that the socket is not sent the same view again (docs/api.md).
SOCKET_HEADER = "X-Gamenook-Socket"

#: What such an id is (``live.consumers`` makes them): the API schema's pattern too.
SOCKET_ID_PATTERN = r"^[A-Za-z0-9_-]{16,64}$"
_SOCKET_ID = re.compile(SOCKET_ID_PATTERN)


def socket_id(value: str) -> str:
    """``value`` as a socket id (``live.consumers``' hello frame); ``InvalidSocket`` if it
    cannot be one. Whether such a socket is open is not asked: one that is not, or is
    another user's, simply gets its views."""
    if not _SOCKET_ID.fullmatch(value):
        raise InvalidSocket()
    return value


def _once(action: Action) -> Callable[[GameState], Action | None]:
    """A ``next_action`` that gives ``action`` once."""
    pending = [action]
    return lambda _state: pending.pop() if pending else None


def _active_state(table: Table) -> GameState:
    state = table_state(table)
    if table.status != Table.Status.ACTIVE or state is None:
        raise Conflict("The game at this table is not running.", code="table_not_active")
    return state


def ruleset_of(table: Table) -> Ruleset:
    """The rules of ``table``'s game (``games.rulesets``)."""
    return rulesets.ruleset(table.game)


def action_from_request(table: Table, state: GameState, seat: int, data: dict[str, Any]) -> Action:
    """A client's request (``{"type", "card", ...}``) as an action of ``table``'s game.

    ``RuleError`` for a request the game does not take, ``leave`` included:
    leaving is the concession's own door (``table_concede``).
    """
    rules = ruleset_of(table)
    action = rules.parse_request(state, seat, data)
    if action.type not in rules.request_types:
        raise RuleError(UNKNOWN_ACTION, rules.messages.get(UNKNOWN_ACTION, NOT_SENT))
    return action


#: The refusal of a request that is no action a client may send (both games' code).
UNKNOWN_ACTION = "unknown_action"
NOT_SENT = "That is not an action a player sends: to leave the game, concede."


def table_apply_action(
    *,
    table_id: int,
    user: User,
    data: dict[str, Any],
    expected_seq: int | None,
    source: str = Move.Source.PLAYER,
    socket: str | None = None,
) -> MoveResult:
    """Apply a seated user's action: the API's play, draw, choose_color and pass.

    Locks the table row and reads its seats in one statement
    (``_lock_table_with_seats``); refuses with ``StaleSequence`` when
    ``expected_seq`` is not the table's sequence number, and with
    ``RuleError`` when the rules refuse the action. Nothing is written
    unless everything succeeds. The result carries the seats for the answer.

    ``socket``: the id of one of the user's sockets at the table (its ``hello``
    frame), which the caller's answer reaches: that socket is not sent this
    change's view (``SOCKET_HEADER``, ``games.signals``). ``InvalidSocket`` if
    it cannot be one.
    """
    answered = None if socket is None else (user.pk, socket_id(socket))
    with transaction.atomic():
        table, seat, seats = _lock_table_with_seats(table_id, user)
        if seat.is_bot or seat.left_at is not None:
            raise Forbidden("You no longer hold a seat in this game.", code="not_seated")
        state = _active_state(table)
        if seat.struck_out:
            raise Conflict(STRUCK_OUT, code="struck_out")
        if expected_seq is not None and expected_seq != table.seq:
            raise StaleSequence()
        action = action_from_request(table, state, seat.number, data)
        if seat.away or seat.held_until is not None or seat.autopilot:
            # Playing is coming back (rulings 18 and 20): the seat is the player's again.
            # The move's own commit signals the change, with the new presence in its ETag.
            _seat_returns(table, seat, signal=False)
        if seat.player_away:
            # Ruling 20: any action of theirs ends their time away, at every table,
            # once this move has committed (each table is locked on its own).
            transaction.on_commit(lambda: away.away_end(user=user))
        result = _apply_locked(table, state, seat.number, _once(action), source, seats, answered)
    # The seats read with the lock are current (``_lock_table_with_seats``); ours
    # changed above in memory as in the database, and an action changes no other.
    return replace(result, seats=seats)


#: The refusal of a struck-out player's action (ruling 17: the bot plays for them).
STRUCK_OUT = (
    "A bot plays your seat for the rest of this game: your move timer ran out three times."
    " You can follow the game from your seat, or concede."
)


def _leave_locked(table: Table, state: GameState, seat: Seat, source: str) -> MoveResult:
    leave = _once(ruleset_of(table).leave_action())
    result = _apply_locked(table, state, seat.number, leave, source)
    seat.left_at = timezone.now()
    seat.save(update_fields=["left_at"])
    return result


def table_concede(*, table_id: int, user: User) -> MoveResult:
    """The user leaves a running game: cards under the draw pile, no further part."""
    with transaction.atomic():
        table = _lock_table(table_id)
        seat = _seat_of(table, user)
        state = _active_state(table)
        if seat.left_at is not None:
            raise Conflict("You have already left this game.", code="already_left")
        return _leave_locked(table, state, seat, Move.Source.LEAVE)


def table_run_bot_turn(*, table_id: int, seq: int | None = None) -> MoveResult | None:
    """Let a bot make one action, in its own transaction.

    First a bot that may play out of turn (a jump-in, where the game has one:
    ``Ruleset.legal_actions`` gives a seat not to act something to do) is
    asked whether it does; then the bot whose turn it is. Each is given only
    what its seat may see, through its game's ruleset
    (``Ruleset.bot_request``), and who plays each seat as the table shows it
    to everyone (``selectors.seat_public_level``). Returns None when no bot
    acts (the game is over, or a human is to act and no bot jumps in) or,
    with ``seq``, when the table has moved on from that sequence number, so
    calling it again is harmless. A bot decides once per position: its seed
    is the table's and the sequence number's. A person on autopilot (ruling
    20) is played by the level they chose, marked ``autopilot``; a person to
    act who asked for their forced moves at once has them played here
    (``_forced_moves``), marked ``forced``.

    A bot that raises, or answers something the rules refuse, must not leave
    the table waiting for a deadline: the plain move of ruling 4
    (``Ruleset.timeout_action``) is played for it at once, the error is
    logged with the table and turn, and ``Table.bot_errors`` counts it. A
    jump-in that fails is simply not made.
    """
    with transaction.atomic():
        table = _lock_table(table_id)
        if seq is not None and table.seq != seq:
            return None
        state = table_state(table)
        if table.status != Table.Status.ACTIVE or state is None or state.over:
            return None
        rules = ruleset_of(table)
        seats = {s.number: s for s in table.seats.all()}
        levels = [seat_public_level(seats[i]) if i in seats else None for i in range(state.seats)]
        seed = f"{table.pk}:{table.seq}"
        for number, other in sorted(seats.items()):
            if number == state.current or not other.bot_plays or other.left_at is not None:
                continue
            if not rules.legal_actions(state, number):
                continue
            level = _bot_level(other, rules)
            try:
                choice = rules.bot_request(state, number, level=level, seed=seed, levels=levels)
                if choice is None:
                    continue
                action = action_from_request(table, state, number, dict(choice))
                rules.check(state, number, action)
            except Exception:
                logger.exception(
                    "bot_error table=%s turn=%s seat=%s level=%s: no jump-in",
                    table.pk,
                    table.turn,
                    number,
                    level,
                )
                continue
            return _apply_locked(table, state, number, _once(action), _bot_source(other))
        seat = seats.get(state.current)
        if seat is None or not seat.bot_plays:
            return _forced_moves(table, state, seat)
        level = _bot_level(seat, rules)
        try:
            choice = rules.bot_request(state, seat.number, level=level, seed=seed, levels=levels)
            if choice is None:
                raise RuleError("no_answer", "The bot did not answer on its turn.")
            action = action_from_request(table, state, seat.number, dict(choice))
            rules.check(state, seat.number, action)
        except Exception:
            logger.exception(
                "bot_error table=%s turn=%s seat=%s level=%s: playing the plain move instead",
                table.pk,
                table.turn,
                seat.number,
                level,
            )
            table.bot_errors += 1
            action = rules.timeout_action(state)
        return _apply_locked(table, state, seat.number, _once(action), _bot_source(seat))


def _bot_level(seat: Seat, rules: Ruleset) -> str:
    """The level of the bot that decides for ``seat``: a bot's own; the level its player
    chose for their autopilot (ruling 20); the stand-in's for a player whose hold ran out
    or who struck out (rulings 17 and 18)."""
    if seat.bot_level:
        return seat.bot_level
    if seat.autopilot and not (seat.away or seat.struck_out):
        return seat.autopilot
    return rules.stand_in_level


def _bot_source(seat: Seat) -> str:
    """How the log marks a bot's move for ``seat`` (ruling 21): ``autopilot`` for a player
    on autopilot, ``bot`` otherwise (a stand-in's move is told apart by
    ``selectors.move_stand_ins``)."""
    if not seat.is_bot and seat.autopilot and not (seat.away or seat.struck_out):
        return Move.Source.AUTOPILOT
    return Move.Source.BOT


def _forced_moves(table: Table, state: GameState, seat: Seat | None) -> MoveResult | None:
    """Play the forced moves of the person to act at a turn-by-turn table, when they asked
    for that (``Seat.forced_moves``): each the only legal action the rules leave them
    (``Ruleset.forced_action``), one after the other while there is one (a draw, then the
    drawn card that must be played). Marked ``forced`` (ruling 21). None when nothing is
    forced."""
    if seat is None or not seat.forced_moves or seat.left_at is not None or table.realtime:
        return None
    rules = ruleset_of(table)
    number = seat.number

    def next_forced(now: GameState) -> Action | None:
        if now.over or now.current != number:
            return None
        return rules.forced_action(now, number)

    if next_forced(state) is None:
        return None
    return _apply_locked(table, state, number, next_forced, Move.Source.FORCED)


def bots_may_act(table: Table, state: GameState, seats: Sequence[Seat]) -> bool:
    """Whether a bot may act at ``table`` now: the seat to act is played by a bot, or a
    bot's seat may play out of turn (a jump-in: the game gives it legal actions)."""
    if state.over:
        return False
    rules = ruleset_of(table)
    return any(
        seat.number == state.current or bool(rules.legal_actions(state, seat.number))
        for seat in seats
        if seat.bot_plays and seat.left_at is None
    )


def table_run_bots(*, table_id: int, limit: int = 1000) -> int:
    """Run bot turns until a human is to act or the game ends; returns how many."""
    done = 0
    while done < limit and table_run_bot_turn(table_id=table_id) is not None:
        done += 1
    return done


def _timeout_due(table: Table, turn: int, now: datetime) -> GameState | None:
    """The game at the locked ``table`` if turn ``turn`` is still running past its deadline."""
    state = table_state(table)
    if table.status != Table.Status.ACTIVE or table.turn != turn or state is None:
        return None
    if table.deadline_at is None or table.deadline_at > now:
        return None
    return state


def _rest_of_turn(table: Table, turn: int) -> Callable[[GameState], Action | None]:
    """A ``next_action`` playing turn ``turn`` to its end by ruling 4
    (``Ruleset.timeout_action``)."""
    rules = ruleset_of(table)

    def next_action(now: GameState) -> Action | None:
        return None if now.over or now.turn != turn else rules.timeout_action(now)

    return next_action


def table_timeout(*, table_id: int, turn: int) -> MoveResult | None:
    """Apply the table's missed-deadline policy to turn ``turn``, once.

    Acts only if ``turn`` is still the table's current turn and its deadline
    has passed, so a late, repeated or racing call changes nothing.
    "bot plays the turn" plays the turn to its end with ``Ruleset.timeout_action``
    (a colour first if needed, then a play or draw, then a drawn card);
    "treated as having left" makes the seat leave. Either way the moves carry
    source ``timeout``. Waits for the row lock (``tables_timeout_batch``,
    the sweep's way, skips a locked row and leaves it to this function).
    """
    with transaction.atomic():
        table = _lock_table(table_id)
        state = _timeout_due(table, turn, timezone.now())
        if state is None:
            return None
        seat = table.seats.get(number=state.current)
        if table.realtime:
            return _timeout_realtime_locked(table, state, seat, turn)
        if table.timeout_policy == Table.TimeoutPolicy.LEAVE:
            return _leave_locked(table, state, seat, Move.Source.TIMEOUT)
        return _apply_locked(
            table, state, seat.number, _rest_of_turn(table, turn), Move.Source.TIMEOUT
        )


def _timeout_realtime_locked(table: Table, state: GameState, seat: Seat, turn: int) -> MoveResult:
    """A real-time move timer ran out (ruling 17): ruling 4's move, then a strike.

    On the third strike a Normal bot plays the seat for the rest of the game,
    after that move and in the same transaction; the player stays the seat's
    (``Seat.struck_out``, ruling 18 revised). A seat a bot already plays (its
    turn was lost on the way) takes no strike, nor does a seat held for a
    player whose connection dropped (ruling 18: the hold must not end in a
    strike-out before its two minutes are over).
    """
    result = _play(table, state, seat.number, _rest_of_turn(table, turn), Move.Source.TIMEOUT)
    moves, events = list(result.moves), list(result.events)
    if not seat.bot_plays:
        strike = realtime.after_timeout(strikes=seat.strikes, held=seat.held_until is not None)
        seat.strikes = strike.strikes
        fields = ["strikes"]
        if strike.replaced and not result.state.over:
            seat.struck_out = True
            seat.away = False
            replaced = _bot_takes_over(
                table,
                result.state,
                seat,
                level=ruleset_of(table).stand_in_level,
                source=Move.Source.TIMEOUT,
                user=seat.user_id,
            )
            moves.append(replaced)
            events.extend(replaced.payload["events"])
            fields += ["struck_out", "away"]
        seat.save(update_fields=fields)
    Move.objects.bulk_create(moves)
    _commit_locked(table, new_turn=result.new_turn, fields=_SNAPSHOT_FIELDS)
    return MoveResult(
        table=table, state=result.state, events=events, moves=moves, new_turn=result.new_turn
    )


@dataclass(frozen=True)
class TimedOut:
    """One timeout that ``tables_timeout_batch`` applied."""

    result: MoveResult
    #: The turn that ran out.
    turn: int
    #: Who ran out of time (``left`` once the leave policy made them leave).
    seat: SeatFacts
    #: Whose turn it is now; None once the game is over.
    to_act: SeatFacts | None


@dataclass(frozen=True)
class TimeoutBatch:
    """What ``tables_timeout_batch`` did with a page of (table id, turn)."""

    applied: list[TimedOut]
    #: (table id, turn) left for ``table_timeout``, which waits for the lock: rows
    #: another transaction held (a player moving, another batch), and any whose
    #: timeout raised here (logged).
    singly: list[tuple[int, int]]
    #: (table id, seq) of tables whose overdue turn is a bot's: not a timeout, the
    #: bot's own turn (its queued job was lost) for ``table_run_bot_turn``.
    bots: list[tuple[int, int]]


def tables_timeout_batch(
    *, due: Sequence[tuple[int, int]], followups_written: bool = False
) -> TimeoutBatch:
    """Apply the missed-deadline policy to each (table id, turn) of ``due``, once, together.

    One transaction for the page. Locks the rows with ``SELECT ... FOR UPDATE
    SKIP LOCKED``: a row another transaction holds is not waited for but
    handed back in ``singly``. Each locked table is checked again as
    ``table_timeout`` checks it (the turn still current, its deadline passed)
    and timed out by the same rules; then every move goes in with one INSERT,
    every table with one UPDATE, the leavers' seats with one UPDATE, and each
    table's ``table_changed`` is sent on commit, ``watched`` only where a
    connection was counted (one query for the page). A caller that writes the
    follow-ups (mail, bot turns) in the same transaction says so with
    ``followups_written``, which the signals carry.

    >>> page = tables_timeout_batch(due=[(12, 7), (15, 3)])  # doctest: +SKIP
    >>> [done.result.table.pk for done in page.applied], page.singly, page.bots  # doctest: +SKIP
    ([12, 15], [], [])
    """
    wanted = dict(due)
    now = timezone.now()
    applied: list[TimedOut] = []
    singly: list[tuple[int, int]] = []
    bots: list[tuple[int, int]] = []
    # No savepoint inside a caller's transaction: an error rolls the caller back anyway.
    with transaction.atomic(savepoint=False):
        locked = (
            Table.objects.select_for_update(skip_locked=True)
            .filter(pk__in=list(wanted))
            .order_by()  # the model's ordering would sort the page for nothing
        )
        tables: list[tuple[Table, GameState]] = []
        found: set[int] = set()
        for table in locked:
            found.add(table.pk)
            state = _timeout_due(table, wanted[table.pk], now)
            if state is not None:
                tables.append((table, state))
        singly.extend((pk, turn) for pk, turn in wanted.items() if pk not in found)
        seats: dict[int, dict[int, Seat]] = {table.pk: {} for table, _ in tables}
        for one in Seat.objects.select_related("user").filter(table_id__in=list(seats)):
            seats[one.table_id][one.number] = one
        leavers: list[Seat] = []
        for table, state in tables:
            seat = seats[table.pk].get(state.current)
            if seat is not None and seat.bot_plays:
                bots.append((table.pk, table.seq))
                continue
            if table.realtime:
                # Strikes and a seat handed to a bot: the single-table job's work.
                singly.append((table.pk, wanted[table.pk]))
                continue
            try:
                if seat is None:
                    raise Seat.DoesNotExist(f"no seat {state.current} at table {table.pk}")
                result = _timeout_in_memory(table, state, seat, now)
            except Exception:
                logger.exception("timeout of table %s turn %s failed", table.pk, state.turn)
                singly.append((table.pk, wanted[table.pk]))
                continue
            if seat.left_at is not None:
                leavers.append(seat)
            after = None if result.state.over else seats[table.pk].get(result.state.current)
            applied.append(
                TimedOut(
                    result=result,
                    turn=wanted[table.pk],
                    seat=seat_facts_of(seat),
                    to_act=None if after is None else seat_facts_of(after),
                )
            )
        _write_batch(applied, leavers, now, followups_written=followups_written)
    return TimeoutBatch(applied=applied, singly=singly, bots=bots)


def _timeout_in_memory(table: Table, state: GameState, seat: Seat, now: datetime) -> MoveResult:
    """``table_timeout``'s moves for ``seat``, built in memory (``_play``), nothing saved."""
    if table.timeout_policy == Table.TimeoutPolicy.LEAVE:
        leave = _once(ruleset_of(table).leave_action())
        result = _play(table, state, seat.number, leave, Move.Source.TIMEOUT)
        seat.left_at = now
        return result
    return _play(table, state, seat.number, _rest_of_turn(table, state.turn), Move.Source.TIMEOUT)


#: The page's UPDATE of its tables, written once per process (``games.rows``).
_SNAPSHOT_UPDATE = rows.UpdateMany(Table, _SNAPSHOT_FIELDS)


def _write_batch(
    applied: list[TimedOut], leavers: list[Seat], now: datetime, *, followups_written: bool
) -> None:
    """Save what ``tables_timeout_batch`` built: a statement per kind of row, not per row."""
    if not applied:
        return
    # One JSON parameter a statement, bound on the server: no value quoted into the SQL
    # (games.rows.Records).
    _MOVE_INSERT.run([move for done in applied for move in done.result.moves], bound=True)
    tables = [done.result.table for done in applied]
    for table in tables:
        table.updated_at = now  # UpdateMany writes auto_now fields as they are held, as bulk_update
    _SNAPSHOT_UPDATE.run(tables)
    if leavers:
        Seat.objects.filter(pk__in=[seat.pk for seat in leavers]).update(left_at=now)
    # Read under the page's row locks: a socket counted after this waited for the lock
    # (presence_open takes it) and reads the committed change when it opens.
    watched = _watched([table.pk for table in tables])
    for done in applied:
        _notify_on_commit(
            done.result.table,
            new_turn=done.result.new_turn,
            followups_written=followups_written,
            watched=done.result.table.pk in watched,
        )


def _watched(table_ids: list[int]) -> set[int]:
    """Which of ``table_ids`` have a connection counted (a socket may be open on them).

    Call with their rows locked. ``live`` pushes a change only to those: a
    correspondence table's page of timeouts mostly has nobody watching, and each
    push is a round trip to the channel layer (docs/performance.md, "Deadline sweep").
    """
    found = Connection.objects.filter(table_id__in=table_ids).values_list("table_id", flat=True)
    return set(found.distinct())


def _connection_sql() -> str:
    """Whether a connection to the table (``%s``) is counted; every name from the models."""
    quote = connection.ops.quote_name
    return (
        f"SELECT 1 FROM {quote(Connection._meta.db_table)}"  # noqa: S608
        f" WHERE {quote(Connection._meta.get_field('table').column)} = %s LIMIT 1"
    )


_CONNECTION_SQL = _connection_sql()
#: An action's writes: its moves, the table's snapshot, and the question ``_is_watched`` asks.
_PLAY_SAVE = rows.InsertAndUpdate(
    _MOVE_INSERT,
    rows.Update(Table, _SNAPSHOT_FIELDS),
    key="seq",
    also=f"EXISTS ({_CONNECTION_SQL})",
)


def _is_watched(table_id: int) -> bool:
    """``_watched`` for one table, as one statement written once per process.

    Call with the table's row locked, after the lock was taken (a statement of
    its own, so it sees every connection committed while this transaction
    waited for the lock): a socket counted later waited for the lock itself
    (``presence_open`` takes it) and reads the committed change when it opens.
    """
    return bool(rows.fetch(_CONNECTION_SQL, [table_id]))


def table_claim_reminder(*, table_id: int, turn: int) -> Table | None:
    """Claim turn ``turn``'s halfway reminder, once, and return the locked table.

    Call inside ``transaction.atomic()``: the row lock is held until the
    caller commits, so it records the reminder in the same transaction.
    Returns None (nothing to do) unless the table is active, ``turn`` is its
    current turn, the reminder instant has passed and the deadline has not.
    Clears ``remind_at`` so the sweep's index stops finding the table.
    """
    table = _lock_table_no_key(table_id)
    now = timezone.now()
    if table.status != Table.Status.ACTIVE or table.turn != turn or table.remind_at is None:
        return None
    if table.remind_at > now or (table.deadline_at is not None and table.deadline_at <= now):
        return None
    table.remind_at = None
    table.save(update_fields=["remind_at"])
    return table


# ----------------------------------------------------------------------------
# Presence at real-time tables (rulings 17 and 18)
#
# A connection is an open WebSocket (``live``); who is connected is public.
# These change no card and append nothing to the log: they count the change in
# ``Table.presence_version`` (part of a view's ETag) and send ``table_changed``
# on commit, so every connection's seats list is pushed again and, when a bot
# now plays a seat whose turn it is, its turn is queued.


def _presence_changed(table: Table, *, signal: bool = True) -> None:
    """Count a change of presence; ``signal``: send ``table_changed`` for it on commit.

    Without ``signal`` the caller saves the table row and signals the change itself
    (a move that also brings its player back).
    """
    table.presence_version += 1
    if signal:
        table.save(update_fields=["presence_version"])
        _notify_on_commit(table, new_turn=False)


def _live_seat(table: Table, user_id: int) -> Seat | None:
    return table.seats.filter(user_id=user_id, left_at__isnull=True).first()


def _seat_returns(table: Table, seat: Seat, *, signal: bool = True) -> None:
    """The player is back: no hold, no stand-in, no autopilot, from their next decision on
    (rulings 18 and 20)."""
    seat.held_until = None
    seat.away = False
    seat.autopilot, seat.autopilot_until = "", None
    seat.save(update_fields=["held_until", "away", "autopilot", "autopilot_until"])
    _presence_changed(table, signal=signal)


def presence_open(
    *, table_id: int, user: User, channel: str, max_sockets: int | None = None
) -> bool:
    """``user`` opened connection ``channel`` to the table; False, and nothing
    recorded, when they hold ``max_sockets`` connections there already.

    Counted under the table's lock from the records that are not stale
    (``GAMENOOK_PRESENCE_STALE_SECONDS``), so every process sees one count. A
    player whose seat was held, or played by a bot while they were away, has
    it back from their next decision on. Raises ``NotFound`` for a table that
    does not exist; who may connect is the caller's check (the same as who may
    read the view).
    """
    now = timezone.now()
    with transaction.atomic():
        table = _lock_table(table_id)
        mine = Connection.objects.filter(table=table, user=user)
        first = not mine.exists()
        if max_sockets is not None and not first:
            fresh = mine.filter(seen_at__gte=now - timedelta(seconds=conf.presence_stale_seconds()))
            if fresh.exclude(channel=channel).count() >= max_sockets:
                return False
        # One statement (INSERT ... ON CONFLICT), not update_or_create's locked read,
        # savepoint and INSERT: a channel opens once, this runs at every handshake.
        Connection.objects.bulk_create(
            [Connection(channel=channel, table=table, user=user, seen_at=now)],
            update_conflicts=True,
            unique_fields=["channel"],
            update_fields=["table", "user", "seen_at"],
        )
        seat = _live_seat(table, user.pk)
        if seat is None or not table.realtime:
            return True  # presence is a fact of real-time play only (selectors.connected_users)
        if seat.away or seat.held_until is not None:
            _seat_returns(table, seat)
        elif first:
            _presence_changed(table)
    return True


def presence_close(*, channel: str) -> None:
    """Connection ``channel`` closed; when it was its player's last, the seat is held.

    At a running real-time table the seat is held for
    ``GAMENOOK_SEAT_HOLD_SECONDS`` (two minutes, ruling 18): ``seat_held`` is
    sent on commit so a job ends the hold at its instant
    (``seat_hold_expire``). Closing a connection twice changes nothing.
    """
    known = Connection.objects.filter(channel=channel).values_list("table_id", "user_id").first()
    if known is None:
        return
    table_id, user_id = known
    with transaction.atomic():
        table = _lock_table(table_id)
        deleted, _ = Connection.objects.filter(channel=channel).delete()
        if not deleted or Connection.objects.filter(table=table, user_id=user_id).exists():
            return
        seat = _live_seat(table, user_id)
        if seat is None or not table.realtime:
            return  # presence is a fact of real-time play only (selectors.connected_users)
        if table.status == Table.Status.ACTIVE and not seat.bot_plays:
            until = timezone.now() + timedelta(seconds=conf.seat_hold_seconds())
            seat.held_until = until
            seat.save(update_fields=["held_until"])
            number = seat.number
            transaction.on_commit(
                lambda: seat_held.send(sender=Table, table_id=table_id, seat=number, until=until)
            )
        _presence_changed(table)


def presence_touch(*, channels: Sequence[str]) -> int:
    """The connections ``channels`` are alive (their heartbeat); how many are known."""
    return Connection.objects.filter(channel__in=list(channels)).update(seen_at=timezone.now())


def presence_close_stale(*, before: datetime) -> int:
    """Close every connection whose heartbeat stopped before ``before`` (its server died)."""
    stale = list(Connection.objects.filter(seen_at__lt=before).values_list("channel", flat=True))
    for channel in stale:
        presence_close(channel=channel)
    return len(stale)


def seat_hold_expire(*, table_id: int, number: int) -> bool:
    """End seat ``number``'s hold if its instant has passed; True when a bot now plays it.

    The player did not connect again within the hold: a Normal bot plays the
    seat until they do (ruling 18). A hold already ended (the player came
    back, the job ran before) or not yet due changes nothing.
    """
    now = timezone.now()
    with transaction.atomic():
        table = _lock_table(table_id)
        seat = table.seats.filter(number=number).first()
        if seat is None or seat.held_until is None or seat.held_until > now:
            return False
        seat.held_until = None
        connected = (
            seat.user_id is not None
            and Connection.objects.filter(table=table, user_id=seat.user_id).exists()
        )
        running = table.status == Table.Status.ACTIVE and seat.left_at is None
        seat.away = running and not seat.is_bot and not seat.struck_out and not connected
        seat.save(update_fields=["held_until", "away"])
        _presence_changed(table)
        if seat.away:
            logger.info("seat_away table=%s seat=%s: a bot plays it", table.pk, number)
        return seat.away


# ----------------------------------------------------------------------------
# The lobby


def new_game_seed() -> str:
    """Ruling 14: a seed per game from ``secrets``.

    It never leaves the server while the game runs (it is in the record
    published at the end). Tests replace this function to deal known games;
    the API transcript of ``docs/api.md`` sets ``GAMENOOK_GAME_SEED`` (local
    settings only) to deal the same game every time.
    """
    return conf.fixed_game_seed() or secrets.token_hex(16)


def table_create(  # noqa: PLR0913 (one keyword per option a host picks, as the API's fields)
    *,
    host: User,
    seat_count: int,
    game: str = rulesets.DEFAULT_GAME,
    options: Mapping[str, Any] | None = None,
    turn_hours: int = 24,
    timeout_policy: str = Table.TimeoutPolicy.BOT,
    allow_watchers: bool = False,
    move_timer: str | None = None,
    autopilot: bool = True,
    rated: bool = True,
    min_reliability: int = 0,
    bot_accounts: str = Table.BotAccounts.INVITED,
    **option_values: Any,
) -> Table:
    """Open a table of ``game`` in the lobby with the host in seat 0.

    ``options`` (and any other keyword, one option each: ``scoring="target"``)
    are the game's options; the game's ruleset checks them and fills in the
    defaults (``Ruleset.make_options``), and ``ValueError`` says what is
    wrong. ``move_timer`` (``relaxed``, ``normal`` or ``fast``) makes it a
    real-time table; None, turn by turn with ``turn_hours`` and
    ``timeout_policy``. ``autopilot``: a player who is away has their turns
    played at once by their autopilot (ruling 20); False, their seat waits for
    its deadline like anyone's (real-time tables have no autopilot). ``rated``:
    the game moves its players' ratings (issue 39); ``min_reliability``: the
    reliability, in percent, a player needs to join (``selectors.reliability``).
    ``bot_accounts``: whether bot accounts may join (issue 40): ``refused``,
    ``invited`` (only those the host invites, the default) or ``welcome``.
    """
    if bot_accounts not in Table.BotAccounts.values:
        raise ValueError("bot accounts are refused, invited or welcome")
    if type(min_reliability) is not int or not 0 <= min_reliability <= 100:  # noqa: PLR2004 (percent)
        raise ValueError("the minimum reliability is a whole number of percent from 0 to 100")
    try:
        rules = rulesets.ruleset(game)
    except rulesets.UnknownGame:
        raise ValueError(f"the games are {', '.join(rulesets.game_ids())}") from None
    made = rules.options_dict(rules.make_options(seat_count, {**(options or {}), **option_values}))
    # The options a host may set, each with its value (defaults filled in): the rest of a
    # game's options (the seat count, a first dealer) are the table's or the rules' own.
    chosen = {spec.name: made[spec.name] for spec in rules.options}
    if turn_hours not in Table.TURN_HOURS:
        raise ValueError("the turn deadline is 12, 24 or 72 hours")
    move_seconds = None if move_timer is None else realtime.move_seconds(move_timer)
    with transaction.atomic():
        limits.lock_user(host)
        limits.check_open_tables(host)
        limits.check_running_tables(host)
        table = Table.objects.create(
            host=host,
            seat_count=seat_count,
            game=rules.id,
            game_version=rules.version,
            options=chosen,
            turn_hours=turn_hours,
            timeout_policy=timeout_policy,
            allow_watchers=allow_watchers,
            move_seconds=move_seconds,
            autopilot=bool(autopilot) and move_seconds is None,
            rated=bool(rated),
            min_reliability=min_reliability,
            bot_accounts=bot_accounts,
        )
        Seat.objects.create(table=table, number=0, user=host)
    return table


def _lobby_locked(table_id: int) -> Table:
    table = _lock_table(table_id)
    if table.status != Table.Status.LOBBY:
        raise Conflict("The table is no longer in the lobby.", code="not_in_lobby")
    return table


def _take_seat(table: Table, **who: Any) -> Seat:
    taken = table.seats.count()
    if taken >= table.seat_count:
        raise Conflict("Every seat at this table is taken.", code="table_full")
    try:
        with transaction.atomic():
            return Seat.objects.create(table=table, number=taken, **who)
    except IntegrityError:
        raise Conflict("You already hold a seat at this table.", code="already_seated") from None


def table_join(*, table_id: int, user: User) -> Seat:
    """Take the next free seat; refused at the caps on open and running tables, and
    below the table's minimum reliability."""
    with transaction.atomic():
        limits.lock_user(user)
        table = _lobby_locked(table_id)
        if table.seats.filter(user=user).exists():
            raise Conflict("You already hold a seat at this table.", code="already_seated")
        _check_bot_account_may_join(table, user)
        if table.min_reliability:
            record = reliability([user.pk])[user.pk]
            if not record.meets(table.min_reliability):
                raise Forbidden(
                    f"This table's host asks for a reliability of {table.min_reliability}%; "
                    f"yours is {record.percent}% over the last {record.days} days.",
                    code="reliability_too_low",
                )
        limits.check_open_tables(user)
        limits.check_running_tables(user)
        seat = _take_seat(table, user=user)
        # Joining accepts the user's invitation to this table, if they had one.
        Invitation.objects.filter(table=table, user=user, status=Invitation.Status.PENDING).update(
            status=Invitation.Status.ACCEPTED, answered_at=timezone.now()
        )
        return seat


def _check_bot_account_may_join(table: Table, user: User) -> None:
    """Refuse a bot account the table does not admit (``Table.bot_accounts``, issue 40).

    People are not concerned. A disabled bot account cannot sign in, but a
    caller holding its user (a script, the admin) is refused here too.
    """
    bot = BotAccount.objects.filter(user_id=user.pk).values_list("disabled_at", flat=True)
    if not bot:
        return
    if bot[0] is not None or not user.is_active:
        raise Forbidden("This bot account is disabled.", code="bot_account_disabled")
    if table.bot_accounts == Table.BotAccounts.REFUSED:
        raise Forbidden(
            "This table does not admit bot accounts: its host chose people only.",
            code="bot_accounts_refused",
        )
    if table.bot_accounts == Table.BotAccounts.INVITED and not (
        Invitation.objects.filter(table=table, user=user, status=Invitation.Status.PENDING).exists()
    ):
        raise Forbidden(
            "This table admits only the bot accounts its host invited; ask the host for "
            "an invitation.",
            code="invitation_needed",
        )


def table_add_bot(*, table_id: int, user: User, level: str) -> Seat:
    """The host seats a bot; refused at the cap on bot seats."""
    if level not in Seat.BotLevel.values:
        raise ValueError("a bot is easy, normal or hard")
    with transaction.atomic():
        limits.lock_user(user)
        table = _lobby_locked(table_id)
        if table.host_id != user.pk:
            raise Forbidden("Only the host can add a bot.", code="not_host")
        limits.check_bot_seats(user)
        return _take_seat(table, bot_level=level)


def table_leave_lobby(*, table_id: int, user: User) -> None:
    """Give up a lobby seat; later seats move up so the numbers stay 0..N-1.

    When the host leaves, the lobby closes (status aborted) for everyone.
    """
    with transaction.atomic():
        table = _lobby_locked(table_id)
        _give_up_seat(table, _seat_of(table, user))
        if table.host_id == user.pk:
            # The host walking away closes the lobby for everyone.
            table.status = Table.Status.ABORTED
            table.finished_at = timezone.now()
            table.save(update_fields=["status", "finished_at", "updated_at"])
            _invitations_lapse(table)


def _give_up_seat(table: Table, seat: Seat) -> None:
    """Free a lobby seat; later seats move up so the numbers stay 0..N-1 (ruling 1)."""
    number = seat.number
    seat.delete()
    for later in table.seats.filter(number__gt=number).order_by("number"):
        Seat.objects.filter(pk=later.pk).update(number=F("number") - 1)


def table_remove_bot(*, table_id: int, user: User, number: int) -> None:
    """The host takes the bot in seat ``number`` off a table before the start.

    Later seats move up, as when a player gives up a lobby seat. Refuses with
    ``Conflict`` once the game has started (``not_in_lobby``) or when that seat
    is a person's (``not_a_bot``), ``Forbidden`` for anyone but the host
    (``not_host``) and ``NotFound`` for a seat nobody holds (``no_such_seat``).
    """
    with transaction.atomic():
        table = _lobby_locked(table_id)
        if table.host_id != user.pk:
            raise Forbidden("Only the host can remove a bot.", code="not_host")
        # Looked for among the table's seats, not by a query: ``number`` may be any
        # size a URL can carry.
        seat = next((one for one in table.seats.all() if one.number == number), None)
        if seat is None:
            raise NotFound("No seat of this table has that number.", code="no_such_seat")
        if not seat.is_bot:
            raise Conflict("That seat is a player's, not a bot's.", code="not_a_bot")
        _give_up_seat(table, seat)


def table_start(*, table_id: int, user: User) -> MoveResult:
    """Deal the first round. Only the host; at least two seats filled.

    Refused when the host plays as many running games as one player may, and
    a game with no person at it when a bot account of it is at the day's cap
    (``_check_bot_games_cap``). The table's pending invitations lapse.
    """
    with transaction.atomic():
        limits.lock_user(user)
        table = _lobby_locked(table_id)
        if table.host_id != user.pk:
            raise Forbidden("Only the host can start the game.", code="not_host")
        limits.check_running_tables(user)
        _check_bot_games_cap(table)
        rules = ruleset_of(table)
        try:
            # The game decides how many players it takes; its other options were
            # checked when the table was opened.
            options = rules.make_options(table.seats.count(), table.options)
        except ValueError:
            raise Conflict(
                "At least two seats must be filled.", code="not_enough_players"
            ) from None
        state, events = rules.new_game(options, new_game_seed())
        move = _append(
            table,
            round_number=state.round,
            seat=None,
            action="start",
            # The log names its game and the version of its rules at its start.
            payload={
                "action": {"type": "start"},
                "game": table.game,
                "version": table.game_version,
                "events": events,
            },
            source=Move.Source.PLAYER,
        )
        table.status = Table.Status.ACTIVE
        table.started_at = timezone.now()
        _seats_take_settings(table)
        _invitations_lapse(table)
        new_turn = _save_snapshot(table, None, state)
        _commit_locked(table, new_turn=new_turn, fields=[*_SNAPSHOT_FIELDS, "started_at"])
        return MoveResult(table=table, state=state, events=events, moves=[move])


def _seats_take_settings(table: Table) -> None:
    """As the game starts, each player's seat takes their play settings: "forced moves at
    once", and the autopilot of a player away now (ruling 20, ``games.away``)."""
    now = timezone.now()
    for seat in table.seats.filter(user__isnull=False):
        if seat.user_id is None:  # excluded by the query; for the type checker
            continue
        marked, level, until = away.autopilot_seat_values(seat.user_id, table, now)
        forced = away.forced_moves_of(seat.user_id)
        if marked or forced:
            seat.player_away, seat.autopilot, seat.autopilot_until = marked, level, until
            seat.forced_moves = forced
            seat.save(update_fields=["player_away", "autopilot", "autopilot_until", "forced_moves"])


def _check_bot_games_cap(table: Table) -> None:
    """Refuse to start a game with no person at it when one of its bot accounts is at the
    day's cap (``GAMENOOK_BOT_GAMES_PER_DAY``, issue 40): 429 ``bot_games_capped``.

    Such a game is one whose seats are all bot accounts or built-in bots; the
    cap counts, per bot account, the such games it sat at that started in the
    last 24 hours. ``Retry-After`` is when the first of its bots drops under it.
    """
    seats = list(table.seats.values_list("user_id", "previous_user_id"))
    users = {user_id for user_id, _ in seats if user_id is not None}
    bots = bot_account_ids(users)
    if users - bots or any(previous is not None for _, previous in seats) or not bots:
        return  # a person plays (or played) here, or no bot account does
    _lock_bot_games(bots)
    cap = conf.bot_games_per_day()
    now = timezone.now()
    since = now - _BOT_GAMES_WINDOW
    waits = []
    for bot_id in sorted(bots):
        started = _bot_games_started(bot_id, since)
        if len(started) >= cap:
            # It may play again when enough of them have left the window.
            frees_at = started[len(started) - cap] + _BOT_GAMES_WINDOW
            waits.append(max(1, math.ceil((frees_at - now).total_seconds())))
    if waits:
        raise BotGamesCapped(
            f"A bot account at this table has played {cap} games with no person at the "
            "table in the last 24 hours, as many as one may; try again later or invite "
            "a person.",
            retry_after=max(waits),
        )


_BOT_GAMES_WINDOW = timedelta(hours=24)
#: The first key of the advisory locks of ``_lock_bot_games`` (the second is the bot's id).
_BOT_GAMES_LOCK = 40


def _lock_bot_games(bots: set[int]) -> None:
    """Count each bot's games alone until the transaction ends: two such games starting at
    once, at two tables, would each count the other's bot one game short and both start.

    PostgreSQL's transaction-scoped advisory locks, one a bot, in the order of their
    ids; nothing else takes them, so they wait on no other lock (no table's, no
    user's) and two starts never wait on each other in a circle. SQLite's transactions
    begin IMMEDIATE (gamenook/settings/base.py): one writes at a time already.
    """
    if connection.vendor != "postgresql":
        return
    with connection.cursor() as cursor:
        for bot_id in sorted(bots):
            cursor.execute("SELECT pg_advisory_xact_lock(%s, %s)", [_BOT_GAMES_LOCK, bot_id])


def _bot_games_started(bot_id: int, since: datetime) -> list[datetime]:
    """When the games with no person at them that ``bot_id`` sat at started, since
    ``since``, oldest first."""
    person = Seat.objects.filter(table_id=OuterRef("table_id")).filter(
        Q(user__isnull=False, user__bot_account__isnull=True) | Q(previous_user__isnull=False)
    )
    started = (
        Seat.objects.filter(user_id=bot_id, table__started_at__gte=since)
        .exclude(Exists(person))
        .order_by("table__started_at")
        .values_list("table__started_at", flat=True)
    )
    return [instant for instant in started if instant is not None]


def lock_and_mark_presence(table_id: int) -> Table | None:
    """Lock a running table whose seats' public facts are about to change (``games.away``)
    and count the change, signalled on commit; None when no game runs there. Call it in
    a transaction."""
    table = Table.objects.select_for_update().filter(pk=table_id).first()
    if table is None or table.status != Table.Status.ACTIVE:
        return None
    _presence_changed(table)
    return table


# ----------------------------------------------------------------------------
# Invitations (issue 40)

#: How many invitations one table may have pending at once: a host invites the few
#: players they want, never a crowd.
MAX_PENDING_INVITATIONS = 20


def invitation_create(*, table_id: int, host: User, username: str) -> Invitation:
    """The host of a table in the lobby invites ``username`` (a person or a bot account).

    Locks the host's row, then the table's (the lobby's order). Refused for
    anyone but the host (403 ``not_host``), a table that has started or
    closed (409 ``not_in_lobby``) or is full (409 ``table_full``), an unknown
    or disabled name (404 ``no_such_user``), oneself (409 ``invite_self``),
    someone seated already (409 ``already_seated``) or invited already (409
    ``already_invited``), a bot account at a table that refuses them (403
    ``bot_accounts_refused``). ``invitation_made`` is sent on commit.
    """
    with transaction.atomic():
        limits.lock_user(host)
        table = _lobby_locked(table_id)
        if table.host_id != host.pk:
            raise Forbidden("Only the host can invite players to this table.", code="not_host")
        invitee = User.objects.filter(username=username, is_active=True).first()
        if invitee is None:
            raise NotFound("No player has that name.", code="no_such_user")
        if invitee.pk == host.pk:
            raise Conflict("You already sit at your own table.", code="invite_self")
        seated = list(table.seats.values_list("user_id", flat=True))
        if invitee.pk in seated:
            raise Conflict("That player already holds a seat here.", code="already_seated")
        if len(seated) >= table.seat_count:
            raise Conflict("Every seat at this table is taken.", code="table_full")
        if table.bot_accounts == Table.BotAccounts.REFUSED and bot_account_ids([invitee.pk]):
            raise Forbidden(
                "This table does not admit bot accounts: its host chose people only.",
                code="bot_accounts_refused",
            )
        pending = Invitation.objects.filter(table=table, status=Invitation.Status.PENDING)
        if pending.filter(user=invitee).exists():
            raise Conflict(
                "That player has an invitation to this table already.", code="already_invited"
            )
        if pending.count() >= MAX_PENDING_INVITATIONS:
            raise Conflict(
                f"A table may have {MAX_PENDING_INVITATIONS} invitations waiting at once; "
                "wait for some answers first.",
                code="too_many_invitations",
            )
        invitation = Invitation.objects.create(table=table, user=invitee, invited_by=host)
        invitation_id, invitee_id = invitation.pk, invitee.pk
        transaction.on_commit(
            lambda: invitation_made.send(
                sender=Invitation,
                invitation_id=invitation_id,
                table_id=table_id,
                user_id=invitee_id,
            )
        )
        return invitation


def invitation_decline(*, invitation_id: int, user: User) -> Invitation:
    """``user`` declines their pending invitation ``invitation_id``.

    Someone else's invitation is not found (404 ``no_such_invitation``), as
    one that does not exist: its id says nothing. One already answered, or
    lapsed, is a 409 ``invitation_answered``.
    """
    with transaction.atomic():
        invitation = (
            Invitation.objects.select_for_update().filter(pk=invitation_id, user_id=user.pk).first()
        )
        return _invitation_end(
            invitation, Invitation.Status.DECLINED, "You have no invitation with that id."
        )


def invitation_withdraw(*, invitation_id: int, host: User) -> Invitation:
    """The host withdraws their table's pending invitation ``invitation_id``.

    An invitation to a table ``host`` does not host is not found (404
    ``no_such_invitation``), as one that does not exist. One already answered,
    or lapsed, is a 409 ``invitation_answered``. Withdrawn, it no longer lets a
    bot account sit at a table that admits invited bots only; the host may
    invite the same player again.
    """
    with transaction.atomic():
        invitation = (
            Invitation.objects.select_for_update()
            .filter(pk=invitation_id, table__host_id=host.pk)
            .first()
        )
        return _invitation_end(
            invitation,
            Invitation.Status.WITHDRAWN,
            "Your tables have no invitation with that id.",
        )


def _invitation_end(invitation: Invitation | None, status: str, missing: str) -> Invitation:
    """End ``invitation`` (found under its row lock, or None: 404 ``no_such_invitation``
    with ``missing``) as ``status``; one no longer pending is a 409 ``invitation_answered``."""
    if invitation is None:
        raise NotFound(missing, code="no_such_invitation")
    if invitation.status != Invitation.Status.PENDING:
        raise Conflict(
            f"That invitation is {invitation.status} already.", code="invitation_answered"
        )
    invitation.status = status
    invitation.answered_at = timezone.now()
    invitation.save(update_fields=["status", "answered_at"])
    return invitation


def _invitations_lapse(table: Table) -> None:
    """The table started or closed: its pending invitations are withdrawn."""
    Invitation.objects.filter(table=table, status=Invitation.Status.PENDING).update(
        status=Invitation.Status.WITHDRAWN, answered_at=timezone.now()
    )


# ----------------------------------------------------------------------------
# Moderation (the admin calls these)


def table_abort(*, table_id: int) -> Table:
    """Stop a table for good. The log records it with source admin."""
    with transaction.atomic():
        table = _lock_table(table_id)
        if table.status in (Table.Status.FINISHED, Table.Status.ABORTED):
            raise Conflict("The table has already ended.", code="table_ended")
        state = table_state(table)
        round_number = 0 if state is None else state.round
        _append(
            table,
            round_number=round_number,
            seat=None,
            action="abort",
            payload={"action": {"type": "abort"}, "events": [{"type": "aborted"}]},
            source=Move.Source.ADMIN,
        )
        table.status = Table.Status.ABORTED
        table.finished_at = timezone.now()
        _invitations_lapse(table)
        table.deadline_at = table.remind_at = table.turn_started_at = None
        table.last_call_at = None
        table.to_act = None
        _commit_locked(table, new_turn=False, fields=_SNAPSHOT_FIELDS)
        return table


def seat_remove(*, table_id: int, number: int) -> MoveResult:
    """A moderator removes the player in seat ``number``, as if they left."""
    with transaction.atomic():
        table = _lock_table(table_id)
        state = _active_state(table)
        seat = table.seats.get(number=number)
        if seat.left_at is not None:
            raise Conflict("That player has already left.", code="already_left")
        return _leave_locked(table, state, seat, Move.Source.ADMIN)


def seat_replace_with_bot(*, table_id: int, number: int, level: str) -> Seat:
    """A bot of ``level`` takes over seat ``number`` (cards and all) from now on."""
    if level not in Seat.BotLevel.values:
        raise ValueError("a bot is easy, normal or hard")
    with transaction.atomic():
        table = _lock_table(table_id)
        state = _active_state(table)
        seat = table.seats.get(number=number)
        if seat.left_at is not None:
            raise Conflict("That player has already left.", code="already_left")
        # A sanction, unlike a third strike (Seat.struck_out): the player loses the seat
        # (and so its hand, which a cheater could pass on) and keeps the watcher view.
        previous = seat.user_id
        if previous is not None:
            seat.previous_user_id = previous
        seat.user = None
        seat.bot_level = level
        seat.away = seat.struck_out = False
        move = _bot_takes_over(
            table, state, seat, level=level, source=Move.Source.ADMIN, user=previous
        )
        seat.save(
            update_fields=["user", "bot_level", "previous_user", "held_until", "away", "struck_out"]
        )
        move.save()
        _commit_locked(table, new_turn=False, fields=["seq", "updated_at"])
        return seat


def _bot_takes_over(
    table: Table,
    state: GameState,
    seat: Seat,
    *,
    level: str,
    source: str,
    user: int | None,
) -> Move:
    """The log entry of a bot of ``level`` taking ``seat`` for good, not saved; ends its hold.

    A moderator's replacement (``seat_replace_with_bot``) and a real-time
    seat's third strike (``_timeout_realtime_locked``) each set whom the seat
    stays with; ``user``: who played it until now (None: a bot).
    """
    seat.held_until = None
    table.seq += 1
    return Move(
        table=table,
        seq=table.seq,
        round=state.round,
        seat=seat.number,
        action="replace_with_bot",
        payload={
            "action": {"type": "replace_with_bot", "level": level, "user": user},
            "events": [{"type": "replaced_by_bot", "seat": seat.number, "level": level}],
        },
        source=source,
    )


def player_leave_all_tables(*, user: User) -> int:
    """``user`` leaves every running game they still play in, as a moderator's removal.

    Each table is its own transaction under its row lock. Returns how many
    games they left. ``accounts.services.user_deactivate`` calls this.
    """
    left = 0
    table_ids = list(
        Seat.objects.filter(
            user=user, left_at__isnull=True, table__status=Table.Status.ACTIVE
        ).values_list("table_id", flat=True)
    )
    for table_id in table_ids:
        with transaction.atomic():
            table = _lock_table(table_id)
            if table.status != Table.Status.ACTIVE:
                continue
            seat = table.seats.get(user=user)
            if seat.left_at is None:
                _leave_locked(table, _active_state(table), seat, Move.Source.ADMIN)
                left += 1
    return left


# ----------------------------------------------------------------------------
# Housekeeping (the sweep calls these)


def idempotency_keys_purge(*, now: datetime | None = None, batch: int = 1000) -> int:
    """Delete the ``Idempotency-Key`` records older than ``GAMENOOK_IDEMPOTENCY_KEEP_SECONDS``.

    Oldest first, at most ``batch`` a statement; returns how many went. The
    records are read in id order, which is the order they were made in (the
    id and ``created_at`` are both set at the insert), through the primary
    key's index; when the oldest record is young, that one row was the whole
    cost, whatever the table's size. A record made a moment out of order
    waits for the next sweep; none goes before its time.
    """
    before = (now or timezone.now()) - conf.idempotency_keep()
    oldest = IdempotencyKey.objects.order_by("pk").values_list("pk", "created_at")
    purged = 0
    size = 1
    while True:
        old = [pk for pk, _ in itertools.takewhile(lambda row: row[1] < before, oldest[:size])]
        if old:
            purged += IdempotencyKey.objects.filter(pk__in=old).delete()[0]
        if len(old) < size:  # a young record, or none left
            return purged
        size = batch


def _lock_table_no_key(table_id: int) -> Table:
    """Lock the table row against every other writer, but not against rows that refer to it.

    ``FOR NO KEY UPDATE``: a move, a timeout or another claim waits for it as
    for ``_lock_table``, but an insert elsewhere of a row whose foreign key
    names the table (its share lock on the key) does not. The claims of the
    reminder and the last call hold it while they wait for the player's
    "your turn" notice (notifications), whose holder inserts messages about
    this table: with ``FOR UPDATE`` the two would deadlock.
    """
    try:
        return Table.objects.select_for_update(no_key=True).get(pk=table_id)
    except Table.DoesNotExist:
        raise NotFound() from None


def table_claim_last_call(*, table_id: int, turn: int) -> Table | None:
    """Lock the table for turn ``turn``'s last call and return it, or None (nothing to do).

    Call inside ``transaction.atomic()``: the row lock is held until the caller
    commits, so it records the last call (notifications' ``LastCall``, unique on
    table and turn) and its message in the same transaction, as the reminder
    does. None unless the table is active and turn by turn, ``turn`` is its
    current turn and the deadline has not passed; the moment the player chose
    is the caller's to check (``table_last_call_later`` puts the table off to
    it), and the caller clears ``last_call_at`` with ``table_last_call_done``.
    The lock is ``_lock_table_no_key``'s.
    """
    table = _lock_table_no_key(table_id)
    if table.status != Table.Status.ACTIVE or table.turn != turn or table.move_seconds is not None:
        return None
    if table.deadline_at is None or table.deadline_at <= timezone.now():
        return None
    return table


def table_last_call_later(table: Table, at: datetime) -> None:
    """Put a claimed table's last call off to ``at``, the moment its player chose: the
    sweep's index finds it again then, not before."""
    table.last_call_at = at
    table.save(update_fields=["last_call_at"])


def table_last_call_done(table: Table) -> None:
    """A claimed table's last call is handled: the sweep's index stops finding it."""
    table.last_call_at = None
    table.save(update_fields=["last_call_at"])


# ----------------------------------------------------------------------------
# When a game has ended (issue 39): each seat's turns, counted from the move log.


def table_tally(
    *, table_id: int, tallies: Mapping[tuple[int, int], Tally] | None = None
) -> list[Seat]:
    """Write each seat's turns of a finished game (``selectors.turn_tallies``); the seats.

    ``Seat.turns``, ``Seat.timeouts`` and ``Seat.stand_in_turns`` feed the
    reliability record and the ratings' weights. ``tallies``: the counts
    already read from the log (``selectors.finished_games``), by (table id,
    seat number), so the log is not counted twice. Writing the same counts
    again changes nothing, so a follow-up that runs twice is harmless.
    """
    with transaction.atomic():
        table = _lock_table(table_id)
        if table.status != Table.Status.FINISHED:
            raise Conflict("The game is not over yet.", code="game_not_over")
        seats = list(table.seats.order_by("number"))
        if tallies is None:
            tallies = turn_tallies(seats)
        for seat in seats:
            tally = tallies[(table.pk, seat.number)]
            seat.turns = tally.turns
            seat.timeouts = tally.timeouts
            seat.stand_in_turns = tally.stand_in_turns
        Seat.objects.bulk_update(seats, ["turns", "timeouts", "stand_in_turns"])
        return seats


# ----------------------------------------------------------------------------
# Bot accounts (issue 40): ``accounts.services`` makes the user and decides; these write
# the row, which only games may touch.


def bot_account_register(*, owner: User, user: User, description: str = "") -> BotAccount:
    """``user`` becomes a bot account run by ``owner``; in the caller's transaction."""
    return BotAccount.objects.create(user=user, owner=owner, description=description)


def bot_account_change(
    *,
    user_id: int,
    description: str | None = None,
    disabled: bool | None = None,
    by_moderator: bool = False,
) -> None:
    """Change a bot account's description, or disable it (``disabled_at`` now) or enable it.

    None leaves a field as it is. ``accounts.services`` deactivates the user with it.
    A bot a moderator disabled (``by_moderator``) is marked so: its owner may not
    enable it again (``accounts.services.bot_enable``).
    """
    changes: dict[str, Any] = {}
    if description is not None:
        changes["description"] = description
    if disabled is not None:
        changes["disabled_at"] = timezone.now() if disabled else None
        changes["disabled_by_moderator"] = bool(disabled and by_moderator)
    if changes:
        BotAccount.objects.filter(user_id=user_id).update(**changes)
