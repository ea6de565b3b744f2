"""The daily digest (issue 38): one e-mail a day at the hour the player chose, in their zone.

``digest_schedule`` keeps ``Preferences.digest_due_at`` at the next such instant
(None while the digest is off); the sweep picks up the digests due through its index.
"""

from __future__ import annotations

import zoneinfo
from datetime import UTC, datetime, time, timedelta

from django.utils import timezone

from .models import Preferences


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
