"""The daily digest (issue 38): one e-mail a day at the hour the player chose, in their zone.

``digest_schedule`` keeps ``Preferences.digest_due_at`` at the next such instant
(None while the digest is off); the sweep picks up the digests due through its
index (``digests_due``) and hands them to ``digest_send`` a page of users a job.

A digest lists the tables where it is the user's turn with time left, the
least first, and the games that ended since the last one (``digest_sent_at``)
with their rank, the winner and the replay's link. Nothing to say: no e-mail,
but the instants move on all the same. It is a summary the user asked for, so
it does not count against one message per table and turn (``away.turn_tell``).
"""

from __future__ import annotations

import zoneinfo
from collections.abc import Iterator
from datetime import UTC, datetime, time, timedelta
from typing import Any

from django.db import transaction
from django.utils import timezone

from games import selectors as games_selectors

from .away import time_left
from .models import OutboxMessage, Preferences
from .outbox import outbox_enqueue_digest, replay_url, table_url
from .paging import pages
from .preferences import wants_given


def next_digest_at(hour: int, zone: str, after: datetime) -> datetime:
    """The first instant after ``after`` that is ``hour`` o'clock in ``zone``, in UTC.

    On a day when that hour does not exist in the zone (a clock going forward),
    the wall time is read as the zone's rules read it, so the digest still comes
    once that day.

    >>> next_digest_at(8, "Europe/Paris", datetime(2026, 12, 5, 6, 59, tzinfo=UTC))
    datetime.datetime(2026, 12, 5, 7, 0, tzinfo=datetime.timezone.utc)
    >>> next_digest_at(8, "Europe/Paris", datetime(2026, 12, 5, 7, 0, tzinfo=UTC))
    datetime.datetime(2026, 12, 6, 7, 0, tzinfo=datetime.timezone.utc)
    """
    tz = zoneinfo.ZoneInfo(zone)
    local = after.astimezone(tz)
    day = local.date()
    for offset in range(3):
        candidate = datetime.combine(day + timedelta(days=offset), time(hour), tzinfo=tz)
        at = candidate.astimezone(UTC)
        if at > after:
            return at
    raise AssertionError("unreachable: a day later is always after")  # pragma: no cover


def digest_schedule(prefs: Preferences, *, after: datetime | None = None) -> None:
    """Set ``prefs.digest_due_at`` to the next digest's instant (not saved)."""
    if not prefs.digest:
        prefs.digest_due_at = None
        return
    prefs.digest_due_at = next_digest_at(
        prefs.digest_hour, prefs.time_zone, after or timezone.now()
    )


def digests_due(*, now: datetime, batch: int) -> Iterator[list[int]]:
    """The users whose digest is due by ``now``, ``batch`` at a time (``prefs_digest_due``)."""
    due = (
        Preferences.objects.filter(digest_due_at__lte=now)
        .order_by("digest_due_at", "user_id")
        .values_list("user_id", flat=True)
    )
    yield from pages(due, batch)


def digest_send(*, user_id: int, now: datetime | None = None) -> bool:
    """Decide ``user_id``'s digest if it is due; True when an e-mail was written.

    Locks the preferences row (``SKIP LOCKED``: a copy of this job deciding it
    already makes this one return at once), composes the digest, and in the
    same transaction records the decision (``digest_sent_at``) and moves
    ``digest_due_at`` to the next day's hour: a digest is decided once per due
    instant, so never twice in a day, whatever runs twice or at once. A sweep
    that comes late sends one digest, not one per day missed.
    """
    now = now or timezone.now()
    with transaction.atomic():
        prefs = (
            Preferences.objects.select_for_update(skip_locked=True, of=("self",))
            .select_related("user")
            .filter(user_id=user_id, digest_due_at__lte=now)
            .first()
        )
        if prefs is None or prefs.digest_due_at is None:
            return False
        # The first digest tells of the day before it.
        since = prefs.digest_sent_at or prefs.digest_due_at - timedelta(days=1)
        written = False
        # Composed only for someone it can reach (not unsubscribed, a confirmed address).
        if wants_given(prefs.user, prefs, OutboxMessage.Kind.DIGEST):
            context = _digest_context(prefs, since, now)
            if context["turns"] or context["ended"]:
                written = outbox_enqueue_digest(user=prefs.user, context=context) is not None
        prefs.digest_sent_at = now
        digest_schedule(prefs, after=now)
        prefs.save(update_fields=["digest_sent_at", "digest_due_at", "updated_at"])
    return written


def digests_send(*, user_ids: Iterator[int] | list[int] | tuple[int, ...]) -> int:
    """``digest_send`` for each user, each its own transaction; how many were mailed."""
    return sum(digest_send(user_id=user_id) for user_id in user_ids)


def _digest_context(prefs: Preferences, since: datetime, now: datetime) -> dict[str, Any]:
    """What the digest says: the turns waiting, the least time left first, and the games ended."""
    zone = zoneinfo.ZoneInfo(prefs.time_zone)
    awaiting = [
        t
        for t in games_selectors.turns_awaiting(user_id=prefs.user_id)
        if t.table.deadline_at is not None and t.table.deadline_at > now
    ]
    awaiting.sort(key=lambda t: (t.table.deadline_at, t.table.id))
    turns = [
        {
            "table_id": t.table.id,
            "url": table_url(t.table.id),
            "deadline_at": t.table.deadline_at.astimezone(zone) if t.table.deadline_at else None,
            "left": time_left(t.table.deadline_at, now),
        }
        for t in awaiting
    ]
    ended = []
    for game in games_selectors.games_ended_for(user_id=prefs.user_id, since=since, until=now):
        ranking, _ = games_selectors.final_ranking(game.table.id)
        mine = next((entry for entry in ranking if entry["seat"] == game.seat), None)
        winners = [entry["name"] for entry in ranking if entry["rank"] == 1]
        ended.append(
            {
                "table_id": game.table.id,
                "replay_url": replay_url(game.table.id),
                "rank": None if mine is None else mine["rank"],
                "won": mine is not None and mine["rank"] == 1,
                "winners": " and ".join(winners),
            }
        )
    return {
        "turns": turns,
        "ended": ended,
        "zone": prefs.time_zone,
        "at": f"{prefs.digest_hour:02d}:00",
    }
