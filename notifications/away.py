"""Ruling 19: "your turn" is mailed to a player who is away, once, naming all their tables.

A new turn of a player at a turn-by-turn table does not write a message: it
makes sure the player has a notice waiting (``TurnNotice``, one row a user),
due after the quiet delay (``GAMENOOK_YOUR_TURN_QUIET_SECONDS``, ten
minutes). The sweep hands each due notice to ``turn_notice_decide``, which
locks it and looks at every table where it is the player's turn now:

- a table is *quiet* when, for the whole delay, the player neither acted
  there nor had it open: no socket of theirs open at it now
  (``games.models.Connection``), none closed and no page of it polled within
  the delay (``TableSeen``), and the turn itself began before the delay;
- a turn already named in a message (``TurnNotice.told``) is not news;
- no turn that is news: the notice is dropped (the player moved first, or
  the turn ended otherwise);
- news, but no table that is news is quiet yet: the notice is postponed to
  the first instant one could be;
- otherwise one message goes out, listing every table where it is their
  turn, the least time left first, and every turn in it counts as told.

A page polling the table (``web.views.table_live``) records it with
``table_seen``, at most once a minute per user, table and process (the
cache): so ``seen_at`` may be up to a minute old, and the decision counts
the player as there for a minute after it. A socket counts while its row
exists, and its close is recorded (``connection_closed``), so a table opened
and closed again within the delay postpones the message too.

Reading a table through the API (``GET /api/v1/tables/{id}/view/``) does
not count as having it open: scripts and background refreshes read it with
nobody looking, and a client that shows a table live holds its socket.

The halfway reminder follows the same test (``is_away``): it is mailed only
when the table is quiet at the halfway instant; otherwise it is recorded as
handled (its ``Reminder`` row) and not mailed, since the player was at the
table within the delay and its page shows the time left. It is not put off:
the deadline's own mail still comes if they never move. The last call
(``turns.table_last_call``) is decided the same way.

One message per table and turn (issue 38): "your turn", the reminder and the
last call of a turn are one message, whichever the person wants comes first
while they are away (``turn_tell``); a turn named in a message is in ``told``
until it ends, and the later moments of it are recorded as handled, not sent.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Sequence
from datetime import UTC, datetime, timedelta
from typing import Any

from django.core.cache import cache
from django.db import IntegrityError, transaction
from django.db.models import QuerySet
from django.utils import timezone

from games import selectors as games_selectors

from . import conf
from .models import OutboxMessage, TableSeen, TurnNotice
from .outbox import outbox_enqueue, table_url
from .paging import pages
from .push import push_your_turns

#: A polling page writes ``TableSeen`` at most this often per user, table and process.
SEEN_EVERY = timedelta(minutes=1)

_FAR = datetime.max.replace(tzinfo=UTC)  # no deadline: the least urgent


def table_seen(*, user_id: int, table_id: int) -> bool:
    """``user_id`` has table ``table_id`` open now (its page polled it); True when written.

    Costs a cache look-up; the row is written at most once per ``SEEN_EVERY``
    per user, table and process, so a page polling every second does not
    write every second. Call it for a player of the table (a watcher's turn
    never comes).
    """
    if not cache.add(f"notifications:seen:{user_id}:{table_id}", 1, SEEN_EVERY.total_seconds()):
        return False
    _seen_write(user_id, table_id, timezone.now())
    return True


def _seen_write(user_id: int, table_id: int, now: datetime) -> None:
    row = TableSeen(user_id=user_id, table_id=table_id, seen_at=now)
    try:
        with transaction.atomic():
            # One statement (INSERT ... ON CONFLICT DO UPDATE), not a read and a write.
            TableSeen.objects.bulk_create(
                [row],
                update_conflicts=True,
                unique_fields=["user", "table"],
                update_fields=["seen_at"],
            )
    except IntegrityError:
        pass  # the table (or user) was deleted meanwhile: nobody to mail about it


def connection_closed(sender: Any, *, instance: Any, origin: Any = None, **kwargs: Any) -> None:
    """A socket at a table closed (``post_delete`` of ``games.Connection``): record it as seen.

    Only for a connection deleted for itself (``games.services.presence_close``),
    not one deleted with its table or user, which leave nothing to mail about.
    """
    model = origin.model if isinstance(origin, QuerySet) else type(origin)
    if model is not sender:
        return
    _seen_write(instance.user_id, instance.table_id, timezone.now())


def turn_notices_record(*, user_ids: Iterable[int], now: datetime | None = None) -> None:
    """A turn began for each of ``user_ids`` at a turn-by-turn table: a notice is waiting.

    A notice already waiting keeps its instant (it names every table when it
    is decided); one not waiting is due after the quiet delay. Two
    statements, no read: call it in the transaction of the change (the
    timeouts' page) or after its commit (the follow-ups job).
    """
    ids = sorted(set(user_ids))
    if not ids:
        return
    due = (now or timezone.now()) + conf.your_turn_quiet()
    TurnNotice.objects.bulk_create(
        [TurnNotice(user_id=user_id, due_at=due) for user_id in ids], ignore_conflicts=True
    )
    TurnNotice.objects.filter(user_id__in=ids, due_at__isnull=True).update(due_at=due)


def _there_until(
    turn: games_selectors.TurnAwaiting, seen: datetime | None, now: datetime
) -> datetime:
    """The last instant the player was at ``turn``'s table as far as we know, or its turn began."""
    if turn.connected:
        return now
    instants = [turn.turn_started_at, turn.acted_at, None if seen is None else seen + SEEN_EVERY]
    known = [instant for instant in instants if instant is not None]
    return min(max(known), now) if known else now


def _seen_of(user_id: int, table_ids: Sequence[int]) -> dict[int, datetime]:
    rows = TableSeen.objects.filter(user_id=user_id, table_id__in=table_ids)
    return dict(rows.values_list("table_id", "seen_at"))


def is_away(*, user_id: int, table_id: int, now: datetime | None = None) -> bool:
    """Whether ``user_id`` is away from ``table_id`` (where it is their turn) by ruling 19.

    Away: no socket of theirs open at it, none closed and no page of it
    polled, and no action of theirs there, within the quiet delay. The
    halfway reminder asks this. Not their turn there: not away.
    """
    now = now or timezone.now()
    turns = games_selectors.turns_awaiting(user_id=user_id, table_id=table_id)
    if not turns:
        return False
    seen = _seen_of(user_id, [table_id])
    return _there_until(turns[0], seen.get(table_id), now) + conf.your_turn_quiet() <= now


def at_table_at_end(
    table_id: int, presence: dict[int, games_selectors.PresenceAtEnd], now: datetime | None = None
) -> set[int]:
    """The users of ``presence`` who saw the end of ``table_id``'s game there (issue 38).

    By ruling 19's signs of presence: a socket of theirs open at the table (its
    page or client was pushed the end), a page of it polled within the last
    ``SEEN_EVERY`` (it shows the end at its next poll), or the move that ended
    the game was theirs (its answer showed the end). For them "game over" would
    be a second message about the game's last turn. A player who moved earlier
    and left is mailed at once: the end is news to them.
    """
    now = now or timezone.now()
    seen = dict(
        TableSeen.objects.filter(table_id=table_id, user_id__in=list(presence)).values_list(
            "user_id", "seen_at"
        )
    )
    return {
        user_id
        for user_id, facts in presence.items()
        if facts.connected
        or facts.ended_it
        or (user_id in seen and seen[user_id] + SEEN_EVERY >= now)
    }


def turn_tell(*, user_id: int, table_id: int, turn: int, tell: Callable[[], bool]) -> bool:
    """Send a turn's one message by calling ``tell``, unless a message named the turn already.

    Issue 38: a person gets at most one message per table and turn. "Your
    turn", the halfway reminder and the last call of one turn are the same
    message: whichever comes first while they are away goes out (``tell``
    returns True when it wrote an e-mail or a push), and the turn then counts
    as told (``TurnNotice.told``), so the later moments are handled and not
    sent. Locks the user's notice row, which ``turn_notice_decide`` locks too:
    a reminder racing a "your turn" decision waits, then sees the other's
    message. Call it in the transaction that records the moment (under the
    table's row lock), so the message and the record commit together.
    """
    TurnNotice.objects.bulk_create([TurnNotice(user_id=user_id)], ignore_conflicts=True)
    notice = TurnNotice.objects.select_for_update().get(user_id=user_id)
    if notice.told.get(str(table_id)) == turn or not tell():
        return False
    notice.told = {**notice.told, str(table_id): turn}
    notice.save(update_fields=["told", "updated_at"])
    return True


def told_turns(*, user_ids: Iterable[int]) -> dict[int, dict[str, int]]:
    """The turns each of ``user_ids`` was told of, ``{user id: {table id: turn}}``
    (``TurnNotice.told``), read without a lock, in one query."""
    rows = TurnNotice.objects.filter(user_id__in=list(user_ids)).values_list("user_id", "told")
    return {user_id: dict(told or {}) for user_id, told in rows}


def time_left(deadline: datetime | None, now: datetime) -> str:
    """``deadline - now`` in words, its two largest units: "3 hours 20 minutes"."""
    if deadline is None:
        return ""
    minutes = int((deadline - now).total_seconds() // 60)
    if minutes < 1:
        return "less than a minute"
    days, rest = divmod(minutes, 24 * 60)
    hours, minutes = divmod(rest, 60)
    units = [(days, "day"), (hours, "hour"), (minutes, "minute")]
    words = [f"{n} {unit}{'' if n == 1 else 's'}" for n, unit in units if n]
    return " ".join(words[:2])


def _urgency(turn: games_selectors.TurnAwaiting) -> tuple[datetime, int]:
    return (turn.table.deadline_at or _FAR, turn.table.id)


def turn_notice_decide(*, user_id: int, now: datetime | None = None) -> bool:
    """Decide ``user_id``'s waiting notice if it is due; True when a message was written.

    Locks the notice row (a copy of this job, or the sweep's, waits and then
    finds it decided), reads every table where it is the user's turn, and
    drops, postpones or writes the one message as the module says, in one
    transaction: the message exists exactly when the decision committed.
    """
    now = now or timezone.now()
    quiet = conf.your_turn_quiet()
    with transaction.atomic():
        notice = (
            TurnNotice.objects.select_for_update(of=("self",))
            .select_related("user")
            .filter(user_id=user_id)
            .first()
        )
        if notice is None or notice.due_at is None or notice.due_at > now:
            return False
        turns = sorted(games_selectors.turns_awaiting(user_id=user_id), key=_urgency)
        told = {int(table_id): turn for table_id, turn in notice.told.items()}
        news = [t for t in turns if told.get(t.table.id) != t.table.turn]
        seen = _seen_of(user_id, [t.table.id for t in news])
        there = {t.table.id: _there_until(t, seen.get(t.table.id), now) for t in news}
        ready = [t for t in news if there[t.table.id] + quiet <= now]
        # Forget the turns that are over; keep those still named in the last message.
        still = {
            str(t.table.id): t.table.turn for t in turns if told.get(t.table.id) == t.table.turn
        }
        written = False
        if not news:
            notice.due_at = None  # they moved first, or the turns ended otherwise: dropped
        elif not ready:
            notice.due_at = min(there.values()) + quiet
        else:
            mailed = _write(notice.user, ready[0], turns, now) is not None
            # The same decision by web push: one notification per table that is news (a
            # turn a message named already is not told again, issue 38), each tagged.
            pushed = push_your_turns(
                user=notice.user,
                turns=[(t.table, time_left(t.table.deadline_at, now)) for t in news],
            )
            written = mailed or bool(pushed)
            notice.due_at = None
            if written:
                # One message per table and turn: a later reminder or last call of these
                # turns is not sent (``turn_tell``). A notice nobody was told of (the user
                # wants neither channel) names nothing, so a later moment still may.
                still = {str(t.table.id): t.table.turn for t in turns}
        notice.told = still
        notice.save(update_fields=["due_at", "told", "updated_at"])
    return written


def _write(
    user: Any,
    first: games_selectors.TurnAwaiting,
    turns: Sequence[games_selectors.TurnAwaiting],
    now: datetime,
) -> OutboxMessage | None:
    """The one "your turn" message: every table of ``turns`` (most urgent first).

    Written under the key of ``first``, a turn no message named before, so
    the outbox's (kind, table, turn, user) constraint holds it once too.
    """
    listed: list[dict[str, Any]] = [
        {
            "table_id": t.table.id,
            "url": table_url(t.table.id),
            "deadline_at": t.table.deadline_at,
            "hours": t.table.turn_hours,
            "left": time_left(t.table.deadline_at, now),
        }
        for t in turns
    ]
    return outbox_enqueue(
        user=user,
        kind=OutboxMessage.Kind.YOUR_TURN,
        table=first.table,
        turn=first.table.turn,
        context={
            "turns": listed,
            "deadline_at": first.table.deadline_at,
            "hours": first.table.turn_hours,
            "left": time_left(first.table.deadline_at, now),
        },
    )


def turn_notices_decide(*, user_ids: Sequence[int]) -> int:
    """``turn_notice_decide`` for each user, each its own transaction; how many were mailed."""
    return sum(turn_notice_decide(user_id=user_id) for user_id in user_ids)


def turn_notices_due(*, now: datetime, batch: int) -> Iterator[list[int]]:
    """The users whose notice is due by ``now``, ``batch`` at a time (the partial index)."""
    due = (
        TurnNotice.objects.filter(due_at__lte=now)
        .order_by("due_at", "user_id")
        .values_list("user_id", flat=True)
    )
    yield from pages(due, batch)


def tables_seen_purge(*, now: datetime) -> int:
    """Delete what ``TableSeen`` no longer tells (older than the quiet delay); how many."""
    stale = TableSeen.objects.filter(seen_at__lt=now - conf.your_turn_quiet() - SEEN_EVERY)
    deleted, _ = stale.delete()
    return deleted
