"""Every write to a table goes through this module.

The one way a game changes is ``_apply_locked``: with the table row locked
(``SELECT ... FOR UPDATE``) inside a transaction, flip validates and applies
the action, the move is appended to the log, the snapshot is saved, and the
follow-ups (``games.signals.table_changed``) are sent on commit. The public
functions below look up, lock and check, then call it.
"""

from __future__ import annotations

import logging
import secrets
from collections.abc import Callable
from dataclasses import dataclass
from datetime import timedelta
from typing import Any

from django.contrib.auth.models import User
from django.db import IntegrityError, transaction
from django.db.models import F
from django.utils import timezone

import flip

from . import conf
from .errors import Conflict, Forbidden, NotFound, StaleSequence
from .models import Move, Seat, Table
from .selectors import table_state
from .signals import table_changed

logger = logging.getLogger(__name__)


@dataclass(frozen=True)
class MoveResult:
    """What one service call did: the table after it and the events it caused."""

    table: Table
    state: flip.GameState
    events: list[flip.Event]
    moves: list[Move]

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


def _lock_table_with_seat(table_id: int, user: User) -> tuple[Table, Seat]:
    """Lock the table row and read ``user``'s seat at it, in one statement."""
    seat = (
        Seat.objects.select_related("table")
        .select_for_update(of=("table",))
        .filter(table_id=table_id, user=user)
        .first()
    )
    if seat is None:
        if not Table.objects.filter(pk=table_id).exists():
            raise NotFound()
        raise Forbidden("You hold no seat at this table.", code="not_seated")
    return seat.table, seat


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
    "status",
    "finished_at",
    "turn_started_at",
    "deadline_at",
    "remind_at",
    "updated_at",
]


def _save_snapshot(table: Table, before: flip.GameState | None, after: flip.GameState) -> bool:
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
    elif new_turn:
        length = timedelta(seconds=table.turn_hours * conf.seconds_per_hour())
        table.turn_started_at = now
        table.deadline_at = now + length
        table.remind_at = now + length / 2
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


def _notify_on_commit(table: Table, *, new_turn: bool) -> None:
    table_id, seq, turn = table.pk, table.seq, table.turn
    finished = table.status in (Table.Status.FINISHED, Table.Status.ABORTED)
    transaction.on_commit(
        lambda: table_changed.send(
            sender=Table,
            table_id=table_id,
            seq=seq,
            turn=turn,
            new_turn=new_turn,
            finished=finished,
        )
    )


def _commit_locked(table: Table, *, new_turn: bool, fields: list[str]) -> None:
    """Save the locked table's changed ``fields`` and signal the change on commit."""
    table.save(update_fields=fields)
    _notify_on_commit(table, new_turn=new_turn)


def _apply_locked(
    table: Table,
    state: flip.GameState,
    seat: int,
    next_action: Callable[[flip.GameState], flip.Action | None],
    source: str,
) -> MoveResult:
    """Apply ``next_action(state)`` for ``seat`` until it returns None, one move each.

    The caller holds the row lock inside ``transaction.atomic()``. A
    ``flip.RuleError`` from any action propagates and the transaction rolls
    back: nothing is written.
    """
    before = state
    moves: list[Move] = []
    events: list[flip.Event] = []
    while (action := next_action(state)) is not None:
        round_number = state.round
        state, caused = flip.apply(state, seat, action)
        moves.append(
            _append(
                table,
                round_number=round_number,
                seat=seat,
                action=action.type,
                payload={"action": action.to_dict(), "events": caused},
                source=source,
            )
        )
        events.extend(caused)
    new_turn = _save_snapshot(table, before, state)
    _commit_locked(table, new_turn=new_turn, fields=_SNAPSHOT_FIELDS)
    return MoveResult(table=table, state=state, events=events, moves=moves)


def _once(action: flip.Action) -> Callable[[flip.GameState], flip.Action | None]:
    """A ``next_action`` that gives ``action`` once."""
    pending = [action]
    return lambda _state: pending.pop() if pending else None


def _active_state(table: Table) -> flip.GameState:
    state = table_state(table)
    if table.status != Table.Status.ACTIVE or state is None:
        raise Conflict("The game at this table is not running.", code="table_not_active")
    return state


def action_from_request(state: flip.GameState, seat: int, data: dict[str, Any]) -> flip.Action:
    """Turn a client's ``{"type", "card", "color"}`` into a flip action (``flip.parse_request``)."""
    return flip.parse_request(state, seat, data)


def table_apply_action(
    *,
    table_id: int,
    user: User,
    data: dict[str, Any],
    expected_seq: int | None,
    source: str = Move.Source.PLAYER,
) -> MoveResult:
    """Apply a seated user's action: the API's play, draw, choose_color and pass.

    Locks the table row; refuses with ``StaleSequence`` when ``expected_seq``
    is not the table's sequence number, and with ``flip.RuleError`` when the
    rules refuse the action. Nothing is written unless everything succeeds.
    """
    with transaction.atomic():
        table, seat = _lock_table_with_seat(table_id, user)
        if seat.is_bot or seat.left_at is not None:
            raise Forbidden("You no longer hold a seat in this game.", code="not_seated")
        state = _active_state(table)
        if expected_seq is not None and expected_seq != table.seq:
            raise StaleSequence()
        action = action_from_request(state, seat.number, data)
        if action.type == flip.LEAVE:
            raise flip.RuleError("unknown_action")
        return _apply_locked(table, state, seat.number, _once(action), source)


def _leave_locked(table: Table, state: flip.GameState, seat: Seat, source: str) -> MoveResult:
    result = _apply_locked(table, state, seat.number, _once(flip.Action(flip.LEAVE)), source)
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
    """Let the bot whose turn it is make one action, in its own transaction.

    The bot is given only its seat's view, what that seat saw when the table
    last turned over (``flip.flip_memory``) and what it saw happen this round
    (``flip.public_history``). Returns None when no bot
    is to act (the game is over, or a human is to act) or, with ``seq``, when
    the table has moved on from that sequence number, so calling it again is
    harmless.

    A bot that raises, or answers something the rules refuse, must not leave
    the table waiting for a deadline: the plain move of ruling 4
    (``flip.timeout_action``) is played for it at once, the error is logged
    with the table and turn, and ``Table.bot_errors`` counts it.
    """
    from flip.bots import make_bot

    with transaction.atomic():
        table = _lock_table(table_id)
        if seq is not None and table.seq != seq:
            return None
        state = table_state(table)
        if table.status != Table.Status.ACTIVE or state is None:
            return None
        seat = table.seats.filter(number=state.current).first()
        if seat is None or not seat.is_bot or state.over:
            return None
        bot = make_bot(seat.bot_level, f"{table.pk}:{table.seq}")
        try:
            # What the seat sees now, what it saw at the last flip and what it saw
            # happen this round: a person in the seat would remember that much
            # (flip.flip_memory, flip.public_history; never served).
            choice = bot.choose(
                flip.view(state, seat.number),
                flip.flip_memory(state, seat.number),
                flip.public_history(state, seat.number),
            )
            action = action_from_request(state, seat.number, choice)
            flip.check(state, seat.number, action)
        except Exception:
            logger.exception(
                "bot_error table=%s turn=%s seat=%s level=%s: playing the plain move instead",
                table.pk,
                table.turn,
                seat.number,
                seat.bot_level,
            )
            table.bot_errors += 1
            action = flip.timeout_action(state)
        return _apply_locked(table, state, seat.number, _once(action), Move.Source.BOT)


def table_run_bots(*, table_id: int, limit: int = 1000) -> int:
    """Run bot turns until a human is to act or the game ends; returns how many."""
    done = 0
    while done < limit and table_run_bot_turn(table_id=table_id) is not None:
        done += 1
    return done


def table_timeout(*, table_id: int, turn: int) -> MoveResult | None:
    """Apply the table's missed-deadline policy to turn ``turn``, once.

    Acts only if ``turn`` is still the table's current turn and its deadline
    has passed, so a late, repeated or racing call changes nothing.
    "bot plays the turn" plays the turn to its end with ``flip.timeout_action``
    (a colour first if needed, then a play or draw, then a drawn card);
    "treated as having left" makes the seat leave. Either way the moves carry
    source ``timeout``.
    """
    with transaction.atomic():
        table = _lock_table(table_id)
        state = table_state(table)
        if table.status != Table.Status.ACTIVE or table.turn != turn or state is None:
            return None
        if table.deadline_at is None or table.deadline_at > timezone.now():
            return None
        seat = table.seats.get(number=state.current)
        if table.timeout_policy == Table.TimeoutPolicy.LEAVE:
            return _leave_locked(table, state, seat, Move.Source.TIMEOUT)

        def rest_of_turn(now: flip.GameState) -> flip.Action | None:
            return None if now.over or now.turn != turn else flip.timeout_action(now)

        return _apply_locked(table, state, seat.number, rest_of_turn, Move.Source.TIMEOUT)


def table_claim_reminder(*, table_id: int, turn: int) -> Table | None:
    """Claim turn ``turn``'s halfway reminder, once, and return the locked table.

    Call inside ``transaction.atomic()``: the row lock is held until the
    caller commits, so it records the reminder in the same transaction.
    Returns None (nothing to do) unless the table is active, ``turn`` is its
    current turn, the reminder instant has passed and the deadline has not.
    Clears ``remind_at`` so the sweep's index stops finding the table.
    """
    table = _lock_table(table_id)
    now = timezone.now()
    if table.status != Table.Status.ACTIVE or table.turn != turn or table.remind_at is None:
        return None
    if table.remind_at > now or (table.deadline_at is not None and table.deadline_at <= now):
        return None
    table.remind_at = None
    table.save(update_fields=["remind_at"])
    return table


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


def table_create(
    *,
    host: User,
    seat_count: int,
    two_seat_reverse_skips: bool = True,
    scoring: str = Table.Scoring.SINGLE,
    target: int = 500,
    turn_hours: int = 24,
    timeout_policy: str = Table.TimeoutPolicy.BOT,
    allow_watchers: bool = False,
) -> Table:
    """Open a table in the lobby with the host in seat 0."""
    # flip checks the game options; the table's own ones are checked here.
    flip.Options(
        seats=seat_count,
        two_seat_reverse_skips=two_seat_reverse_skips,
        scoring=scoring,
        target=target,
    )
    if turn_hours not in Table.TURN_HOURS:
        raise ValueError("the turn deadline is 12, 24 or 72 hours")
    with transaction.atomic():
        table = Table.objects.create(
            host=host,
            seat_count=seat_count,
            two_seat_reverse_skips=two_seat_reverse_skips,
            scoring=scoring,
            target=target,
            turn_hours=turn_hours,
            timeout_policy=timeout_policy,
            allow_watchers=allow_watchers,
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
    with transaction.atomic():
        table = _lobby_locked(table_id)
        if table.seats.filter(user=user).exists():
            raise Conflict("You already hold a seat at this table.", code="already_seated")
        return _take_seat(table, user=user)


def table_add_bot(*, table_id: int, user: User, level: str) -> Seat:
    if level not in Seat.BotLevel.values:
        raise ValueError("a bot is easy, normal or hard")
    with transaction.atomic():
        table = _lobby_locked(table_id)
        if table.host_id != user.pk:
            raise Forbidden("Only the host can add a bot.", code="not_host")
        return _take_seat(table, bot_level=level)


def table_leave_lobby(*, table_id: int, user: User) -> None:
    """Give up a lobby seat; later seats move up so the numbers stay 0..N-1.

    When the host leaves, the lobby closes (status aborted) for everyone.
    """
    with transaction.atomic():
        table = _lobby_locked(table_id)
        seat = _seat_of(table, user)
        number = seat.number
        seat.delete()
        for later in table.seats.filter(number__gt=number).order_by("number"):
            Seat.objects.filter(pk=later.pk).update(number=F("number") - 1)
        if table.host_id == user.pk:
            # The host walking away closes the lobby for everyone.
            table.status = Table.Status.ABORTED
            table.finished_at = timezone.now()
            table.save(update_fields=["status", "finished_at", "updated_at"])


def table_start(*, table_id: int, user: User) -> MoveResult:
    """Deal the first round. Only the host; at least two seats filled."""
    with transaction.atomic():
        table = _lobby_locked(table_id)
        if table.host_id != user.pk:
            raise Forbidden("Only the host can start the game.", code="not_host")
        try:
            # flip decides how many players a game takes; the table's other options
            # were checked when it was opened.
            options = flip.Options(
                seats=table.seats.count(),
                two_seat_reverse_skips=table.two_seat_reverse_skips,
                scoring=table.scoring,
                target=table.target,
            )
        except ValueError:
            raise Conflict(
                "At least two seats must be filled.", code="not_enough_players"
            ) from None
        state, events = flip.new_game(options, new_game_seed())
        move = _append(
            table,
            round_number=state.round,
            seat=None,
            action="start",
            payload={"action": {"type": "start"}, "events": events},
            source=Move.Source.PLAYER,
        )
        table.status = Table.Status.ACTIVE
        table.started_at = timezone.now()
        new_turn = _save_snapshot(table, None, state)
        _commit_locked(table, new_turn=new_turn, fields=[*_SNAPSHOT_FIELDS, "started_at"])
        return MoveResult(table=table, state=state, events=events, moves=[move])


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
        table.deadline_at = table.remind_at = table.turn_started_at = None
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
        previous = seat.user_id
        if previous is not None:
            seat.previous_user_id = previous
        seat.user = None
        seat.bot_level = level
        seat.save(update_fields=["user", "bot_level", "previous_user"])
        _append(
            table,
            round_number=state.round,
            seat=number,
            action="replace_with_bot",
            payload={
                "action": {"type": "replace_with_bot", "level": level, "user": previous},
                "events": [{"type": "replaced_by_bot", "seat": number, "level": level}],
            },
            source=Move.Source.ADMIN,
        )
        _commit_locked(table, new_turn=False, fields=["seq", "updated_at"])
        return seat


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
