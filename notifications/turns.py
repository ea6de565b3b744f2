"""What the table does by itself when a turn runs long: timeouts, reminders, last calls, bots.

Every function takes ids and leaves the locking and the re-checking to
``games.services``: each acts only if the turn (or sequence number) it was
given is still current, so running one twice, or two at once, is harmless.
The e-mail each one causes is written in the same transaction as what it did.
"""

from __future__ import annotations

import logging
from collections.abc import Iterator, Mapping, Sequence
from datetime import UTC, datetime

from django.contrib.auth.models import User
from django.db import IntegrityError, transaction
from django.utils import timezone

from games import selectors as games_selectors
from games import services as games

from . import jobs
from .away import is_away, time_left, told_turns, turn_tell
from .followups import game_over_mails, rate_game, timeout_followups
from .models import LastCall, LastCallWhen, OutboxMessage, Reminder
from .outbox import Mail, outbox_enqueue, outbox_enqueue_many, table_url
from .preferences import preferences_of
from .push import push_enqueue, push_reminder

logger = logging.getLogger(__name__)

Kind = OutboxMessage.Kind


def describe_timeout(events: Sequence[Mapping[str, object]], seat: int) -> list[str]:
    """What the table did for ``seat``, in words, from the events as that seat sees them.

    Game-neutral: it reads the event shapes the games share (``play``, ``draw``,
    ``choose_color``, ``pass``, ``leave``) and the classic game's own (a waiting
    penalty taken, a 7's swap, a 0's rotation), so a game's timeout mail never
    needs code of its own. Events of other seats (a victim's penalty) say nothing
    of what was done *for* this seat and are left out.
    """
    lines: list[str] = []
    for event in events:
        kind = event["type"]
        if kind == "swap":
            seats = event.get("seats")
            if isinstance(seats, list) and len(seats) == 2 and seats[0] == seat:  # noqa: PLR2004
                lines.append(f"swapped hands with seat {seats[1]}")
            continue
        if kind == "rotate":
            lines.append("moved every hand on to the next player")
            continue
        if event.get("seat") != seat:
            continue
        if kind == "play":
            line = f"played {event['face']}"
            if event.get("color"):
                line += f" and chose {event['color']}"
            lines.append(line)
        elif kind == "choose_color":
            lines.append(f"chose {event.get('color')}")
        elif kind == "draw" and event.get("reason") in ("draw", "penalty"):
            count = event["count"]
            cards = f"{count} card{'s' if count != 1 else ''}"
            # A penalty drawn by the seat itself is one it took (a waiting one, R24).
            lines.append(f"drew {cards}" if event["reason"] == "draw" else f"took {cards}")
        elif kind == "pass":
            lines.append("passed")
        elif kind == "leave":
            lines.append("left the game: your cards went under the draw pile")
    return lines


def table_apply_timeout(*, table_id: int, turn: int) -> bool:
    """Apply the missed-deadline policy to turn ``turn``, once; True when it acted.

    A bot whose turn is overdue (its queued turn was lost) simply plays it.
    The player who ran out of time is told what the table did, in the same
    transaction as the timeout itself.
    """
    table = games_selectors.table_facts(table_id)
    if table is None or table.turn != turn or not table.running:
        return False
    seat = games_selectors.turn_seat(table_id)
    if seat is not None and seat.bot_plays:
        return bot_turn_run(table_id=table_id, seq=table.seq)
    with transaction.atomic():
        result = games.table_timeout(table_id=table_id, turn=turn)
        if result is None:
            return False
        number = result.seat
        if number is None:
            raise RuntimeError("a timeout is always a seat's move")
        mail = _timeout_mail(result, games_selectors.seat_at(table_id, number), turn)
        mails = [] if mail is None or _already_told([mail]) else [mail]
        if result.state.over:
            # The timeout ended the game: "game over" tells its player of both, written
            # here as the batch's way writes it (the follow-ups job finds it written).
            over = games_selectors.facts_of(result.table)
            rate_game(over.id)
            mails.extend(game_over_mails(over))
        for each in mails:
            outbox_enqueue(
                user=each.user,
                kind=each.kind,
                table=each.table,
                turn=each.turn,
                context=each.context,
            )
    return True


def tables_apply_timeouts(*, due: Sequence[tuple[int, int]]) -> int:
    """Apply the missed-deadline policy to a page of (table id, turn), each once; how many acted.

    One transaction for the page (``games.services.tables_timeout_batch``):
    the timeouts, every "your time ran out" message, and what each timeout
    calls for next, decided as the follow-ups job decides it (the next
    player's "your turn", a bot turn, "game over"). Messages go in with one
    INSERT and one sending job; the bot turns in one job; both queued on
    commit. A table another transaction held, or whose timeout failed here,
    gets the single-table job (``table_apply_timeout``), which waits for the
    lock.
    """
    with transaction.atomic():
        page = games.tables_timeout_batch(due=due, followups_written=True)
        mails = [
            mail
            for done in page.applied
            if (mail := _timeout_mail(done.result, done.seat, done.turn)) is not None
        ]
        told = _already_told(mails)
        mails = [mail for mail in mails if id(mail) not in told]
        next_mails, bots = timeout_followups(page.applied)
        outbox_enqueue_many([*mails, *next_mails])
        bots = [*page.bots, *bots]
        if bots:
            jobs.dispatch_on_commit(jobs.BOT_TURNS, jobs.flat(bots))
        for table_id, turn in page.singly:
            jobs.dispatch_on_commit(jobs.TIMEOUT, (table_id, turn))
    return len(page.applied)


def _already_told(mails: Sequence[Mail]) -> set[int]:
    """The ``id()`` of each "your time ran out" mail that would be a second message about
    its turn (issue 38: one message per person, table and turn): the turn was named in
    a message already ("your turn", the reminder or the last call: ``TurnNotice.told``),
    and the table only played the plain move for them (policy ``bot``), which the move
    list marks as the table's (ruling 21). A timeout that made them leave the game is
    news of its own and is always sent. One query for the page."""
    quiet = [mail for mail in mails if not mail.context.get("left")]
    if not quiet:
        return set()
    told = told_turns(user_ids={mail.user.pk for mail in quiet})
    return {
        id(mail)
        for mail in quiet
        if told.get(mail.user.pk, {}).get(str(mail.table.id)) == mail.turn
    }


def _timeout_mail(
    result: games.MoveResult, timed_out: games_selectors.SeatFacts, turn: int
) -> Mail | None:
    """The "your time ran out" message for the seat ``result``'s timeout played for.

    None at a real-time table: its page shows the strike as it happens. None when
    the timeout ended the game: their "game over" tells of it (``followups.
    game_over_mails``), one message about the game's last turn (issue 38).
    """
    after = games_selectors.facts_of(result.table)
    if timed_out.user is None or after.realtime or result.state.over:
        return None
    return Mail(
        user=timed_out.user,
        kind=Kind.TIMEOUT,
        table=after,
        turn=turn,
        context={
            "policy": after.timeout_policy,
            "left": after.leave_on_timeout,
            "what": describe_timeout(
                games_selectors.events_seen_by(result.table, result.events, timed_out.number),
                timed_out.number,
            ),
        },
    )


def _person_to_act(seat: games_selectors.SeatFacts | None) -> User | None:
    """The person whose turn it is, or None: a bot's seat, one left, one a bot plays for them."""
    if seat is None or seat.left or seat.bot_plays:
        return None
    return seat.user


def table_remind(*, table_id: int, turn: int) -> bool:
    """Send turn ``turn``'s halfway reminder, once; True when it was handled now.

    The ``Reminder`` row is written even when nobody is told (a bot's turn,
    a player who opted out, one who had the table open or acted there within
    the quiet delay: ruling 19, ``away.is_away``, or one a message already
    told of this turn: ``away.turn_tell``), so the turn counts as reminded
    either way.
    """
    with transaction.atomic():
        claimed = games.table_claim_reminder(table_id=table_id, turn=turn)
        if claimed is None:
            return False
        table = games_selectors.facts_of(claimed)
        seat = games_selectors.turn_seat(table_id)
        try:
            with transaction.atomic():
                Reminder.objects.create(
                    table_id=table_id, turn=turn, seat=None if seat is None else seat.number
                )
        except IntegrityError:
            return False
        # Ruling 19: a player at the table within the quiet delay sees its time left.
        user = _person_to_act(seat)
        if user is not None and is_away(user_id=user.pk, table_id=table_id):
            person = user

            def tell() -> bool:
                mailed = outbox_enqueue(
                    user=person,
                    kind=Kind.REMINDER,
                    table=table,
                    turn=turn,
                    context={"deadline_at": table.deadline_at, "hours": table.turn_hours},
                )
                pushed = push_reminder(user=person, table=table, turn=turn)
                return mailed is not None or bool(pushed)

            turn_tell(user_id=user.pk, table_id=table_id, turn=turn, tell=tell)
    return True


def last_call_at(
    when: str, *, turn_started_at: datetime, deadline_at: datetime, turn_hours: int
) -> datetime | None:
    """The instant of a turn's last call for a player who chose ``when``; None: "off".

    "tenth": when a tenth of the turn's time is left; "hour": in its last hour,
    an hour of the table's own clock (the turn's length over ``turn_hours``,
    which is an hour unless a benchmark runs time faster).

    >>> from datetime import UTC, timedelta
    >>> start = datetime(2030, 1, 1, tzinfo=UTC)
    >>> last_call_at("tenth", turn_started_at=start, deadline_at=start + timedelta(hours=24),
    ...              turn_hours=24)
    datetime.datetime(2030, 1, 1, 21, 36, tzinfo=datetime.timezone.utc)
    >>> last_call_at("hour", turn_started_at=start, deadline_at=start + timedelta(hours=24),
    ...              turn_hours=24)
    datetime.datetime(2030, 1, 1, 23, 0, tzinfo=datetime.timezone.utc)
    """
    length = deadline_at - turn_started_at
    if when == LastCallWhen.OFF:
        return None
    if when == LastCallWhen.HOUR:
        return deadline_at - length / max(turn_hours, 1)
    return deadline_at - length / 10


def _last_call_when(user: User) -> str:
    prefs = preferences_of([user.pk]).get(user.pk)
    return LastCallWhen.TENTH.value if prefs is None else prefs.last_call_when


def table_last_call(*, table_id: int, turn: int) -> bool:
    """Send turn ``turn``'s last call if its moment came, once; True when it was handled now.

    The moment is the one the player chose (``Preferences.last_call_when``,
    ``last_call_at``); before it nothing is written and the sweep hands the
    turn out again. At it, under the table's row lock
    (``games.services.table_claim_last_call``), the ``LastCall`` row (unique on
    table and turn) is written whether or not anyone is told, as the
    reminder's is: nobody for a bot's seat, one left or on autopilot, a player
    who chose "off", one at the table within the quiet delay (ruling 19), or
    one a message already told of this turn (``away.turn_tell``). Otherwise the
    e-mail (``Preferences.last_call``, a confirmed address) and the push go out
    in the same transaction.
    """
    now = timezone.now()
    with transaction.atomic():
        claimed = games.table_claim_last_call(table_id=table_id, turn=turn)
        if claimed is None:
            return False
        seat = games_selectors.turn_seat(table_id)
        user = _person_to_act(seat)
        when = LastCallWhen.OFF.value if user is None else _last_call_when(user)
        started, deadline = claimed.turn_started_at, claimed.deadline_at
        if started is not None and deadline is not None:
            at = last_call_at(
                when, turn_started_at=started, deadline_at=deadline, turn_hours=claimed.turn_hours
            )
            if at is not None and at > now:
                # Not yet: the sweep's index finds the table again at the player's moment.
                games.table_last_call_later(claimed, at)
                return False
        games.table_last_call_done(claimed)
        try:
            with transaction.atomic():
                LastCall.objects.create(
                    table_id=table_id, turn=turn, seat=None if seat is None else seat.number
                )
        except IntegrityError:
            return False
        if user is None or when == LastCallWhen.OFF:
            return True
        if is_away(user_id=user.pk, table_id=table_id, now=now):
            table = games_selectors.facts_of(claimed)
            person = user

            def tell() -> bool:
                return _last_call_send(person, table, turn, now)

            turn_tell(user_id=user.pk, table_id=table_id, turn=turn, tell=tell)
    return True


def last_calls_due(*, now: datetime, batch: int) -> Iterator[list[tuple[int, int]]]:
    """Pages of (table id, turn) whose earliest last call has come
    (``games.selectors.tables_due_for_last_call``, through its partial index): the
    job checks the moment the player chose, puts the table off to it or handles it."""
    yield from games_selectors.tables_due_for_last_call(now=now, batch=batch)


def _last_call_send(
    user: User, table: games_selectors.TableFacts, turn: int, now: datetime
) -> bool:
    """The last call's e-mail and push; True when either was written."""
    left = time_left(table.deadline_at, now)
    mailed = outbox_enqueue(
        user=user,
        kind=Kind.LAST_CALL,
        table=table,
        turn=turn,
        context={"deadline_at": table.deadline_at, "hours": table.turn_hours, "left": left},
    )
    then = (
        "treat you as having left the game"
        if table.leave_on_timeout
        else "let a bot play this turn for you"
    )
    deadline = table.deadline_at
    before = "" if deadline is None else f" before {deadline.astimezone(UTC):%Y-%m-%d %H:%M} UTC"
    pushed = push_enqueue(
        user=user,
        kind="last_call",
        table=table,
        turn=turn,
        title=f"Last call at table {table.id}: {left} left",
        body=f"Move{before}, or the table will {then}.",
        url=table_url(table.id),
    )
    return mailed is not None or bool(pushed)


def seat_hold_end(*, table_id: int, number: int) -> bool:
    """End a real-time seat's hold if it is over; True when a bot now plays it (ruling 18).

    The bot's turn, if it is the seat's, is queued by the commit like any other.
    """
    return games.seat_hold_expire(table_id=table_id, number=number)


def bot_turn_run(*, table_id: int, seq: int) -> bool:
    """Let the bot to act make one action if the table is still at ``seq``; True if it did.

    The sequence number makes a job act once: a copy delivered again finds
    the table has moved on (checked under the row lock by games). The next
    bot turn is queued by the commit.
    """
    return games.table_run_bot_turn(table_id=table_id, seq=seq) is not None


def bot_turns_run(*, due: Sequence[tuple[int, int]]) -> int:
    """``bot_turn_run`` for each (table id, seq), one after another; how many bots moved.

    Each is its own transaction, as if queued alone. One that fails is logged
    and the others still run; the bot catch-up sweep finds it again.
    """
    moved = 0
    for table_id, seq in due:
        try:
            moved += bot_turn_run(table_id=table_id, seq=seq)
        except Exception:
            logger.exception("bot turn at table %s, seq %s failed", table_id, seq)
    return moved
