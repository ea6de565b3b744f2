"""Away with autopilot (PRODUCT.md ruling 20) and the player's play settings.

A player marks themselves away, now or from a date, until a date or until they
return, and picks the bot that plays for them (Normal by default). While the
time away runs, every running turn-by-turn seat of theirs at a table that allows
it (``Table.autopilot``) has ``Seat.autopilot`` set to that level and
``Seat.autopilot_until`` to when it stops: the seat's turns are then a bot's
(``Seat.bot_plays``), played at once by the bot follow-ups, and its moves are
logged with source ``autopilot`` (ruling 21). Real-time tables are governed by
rulings 17 and 18 alone, and never touched here.

The allowance: at most ``GAMENOOK_AWAY_DAYS_PER_YEAR`` days (30) away in any
365, counted from the times away that ran (``Away.began_at`` to ``ended_at``).
A time away that would outlast the days left stops when they run out
(``Away.EndReason.ALLOWANCE``); the seat shows that instant as its end.

Every seat change locks its table, one table at a time in id order (as every
other write does: ``games.services``), and counts as a change of presence, so
the table's sockets and follow-ups see it: a turn now the autopilot's is played
by the bot job that the follow-ups queue. ``aways_due`` (the sweep, each minute)
begins the planned times away whose start has come and ends the ones whose end
has come. Any action of the player at a table, or "I am back", ends it at once.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass
from datetime import datetime, timedelta

from django.contrib.auth.models import User
from django.db import transaction
from django.utils import timezone

from . import conf
from .errors import Conflict, ServiceError
from .models import Away, PlaySettings, Seat, Table

logger = logging.getLogger(__name__)

#: The window the allowance counts in.
YEAR = timedelta(days=365)
DAY = timedelta(days=1)
#: How far ahead a time away may be planned, and how long one may be asked for.
LONGEST_AHEAD = timedelta(days=365)
#: The levels a player may choose for their autopilot.
LEVELS = tuple(Seat.BotLevel.values)


class InvalidAway(ServiceError):
    """Well-formed, but not a time away that can be: 422, as the rules' refusals are."""

    status = 422
    code = "invalid_away"
    message = "That time away cannot be set."


@dataclass(frozen=True)
class AwayStatus:
    """Where a player stands: away now, planned, or not (``state``), and their allowance."""

    #: "away" (the autopilot plays now), "planned" (it begins at ``starts_at``) or "off".
    state: str
    starts_at: datetime | None
    #: The end the player asked for; None: until they return.
    ends_at: datetime | None
    level: str | None
    #: When the autopilot will stop: ``ends_at``, or sooner when the days left run out
    #: first; None: until they return (and the allowance lasts).
    autopilot_until: datetime | None
    days_used: float
    days_left: float
    allowance_days: int

    def as_dict(self) -> dict[str, object]:
        return {
            "state": self.state,
            "starts_at": self.starts_at,
            "ends_at": self.ends_at,
            "level": self.level,
            "autopilot_until": self.autopilot_until,
            "days_used": round(self.days_used, 2),
            "days_left": round(self.days_left, 2),
            "allowance_days": self.allowance_days,
        }


def _used(user_id: int, now: datetime) -> timedelta:
    """The time ``user_id`` spent away within the 365 days up to ``now``."""
    since = now - YEAR
    used = timedelta()
    rows = Away.objects.filter(user_id=user_id, began_at__isnull=False).exclude(ended_at__lt=since)
    for began, ended in rows.values_list("began_at", "ended_at"):
        if began is None:  # excluded by the query; for the type checker
            continue
        start, end = max(began, since), min(ended or now, now)
        if end > start:
            used += end - start
    return used


def _left(user_id: int, now: datetime) -> timedelta:
    return max(timedelta(), DAY * conf.away_days_per_year() - _used(user_id, now))


def _effective_end(away: Away, now: datetime) -> datetime | None:
    """When ``away``'s autopilot stops: its end, or sooner when the days left run out.

    For a planned one, the days left are those that will be left when it begins
    (nothing is used meanwhile: one time away at a time). Days used more than a
    year before free up as time goes on; the end named here does not count them,
    so it errs early, never late.
    """
    # Running, what it used already counts in ``_used``: the days left run from now.
    begins = now if away.began_at is not None else max(away.starts_at, now)
    limit = begins + _left(away.user_id, now)
    if away.ends_at is None:
        return limit
    return min(away.ends_at, limit)


def _open(user_id: int, *, lock: bool = False) -> Away | None:
    rows = Away.objects.filter(user_id=user_id, ended_at__isnull=True)
    if lock:
        rows = rows.select_for_update()
    return rows.first()


def away_status(user: User, *, now: datetime | None = None) -> AwayStatus:
    """The player's time away, if any, and their allowance of days."""
    now = now or timezone.now()
    away = _open(user.pk)
    allowance = conf.away_days_per_year()
    used = _used(user.pk, now) / DAY
    left = max(0.0, allowance - used)
    if away is None:
        return AwayStatus("off", None, None, None, None, used, left, allowance)
    return AwayStatus(
        "away" if away.began_at is not None else "planned",
        away.starts_at,
        away.ends_at,
        away.level,
        _effective_end(away, now),
        used,
        left,
        allowance,
    )


def away_set(
    *,
    user: User,
    starts_at: datetime | None = None,
    ends_at: datetime | None = None,
    level: str = Seat.BotLevel.NORMAL,
    now: datetime | None = None,
) -> AwayStatus:
    """Mark ``user`` away from ``starts_at`` (None or a past instant: now) until ``ends_at``
    (None: until they return), their turns played by a bot of ``level``.

    A time away already planned is replaced; one already running keeps its start
    and takes the new end and level. ``InvalidAway`` (422) with a sentence when
    the end is not after the start or now, the start is more than a year ahead, the
    level is unknown, or no days of the allowance are left.
    """
    now = now or timezone.now()
    if level not in LEVELS:
        raise InvalidAway(
            f"The autopilot's level must be one of {', '.join(LEVELS)}.", fields={"level": level}
        )
    if starts_at is not None and starts_at > now + LONGEST_AHEAD:
        raise InvalidAway("A time away can be planned at most a year ahead.", code="invalid_away")
    start = now if starts_at is None or starts_at <= now else starts_at
    if ends_at is not None and ends_at <= max(start, now):
        raise InvalidAway("The time away must end after it begins, and in the future.")
    if ends_at is not None and ends_at > start + YEAR:
        raise InvalidAway("A time away lasts at most a year: leave the end open instead.")
    with transaction.atomic():
        # The user's row orders concurrent changes of their time away.
        User.objects.select_for_update().filter(pk=user.pk).first()
        if _left(user.pk, now) <= timedelta():
            raise Conflict(
                f"You have used your {conf.away_days_per_year()} days away of the last 365: "
                "your tables run on their deadlines until days free up.",
                code="away_allowance_used",
            )
        away = _open(user.pk, lock=True)
        if away is not None and away.began_at is None:
            away.ended_at, away.end_reason = now, Away.EndReason.CANCELLED
            away.save(update_fields=["ended_at", "end_reason"])
            away = None
        if away is None:
            away = Away.objects.create(user=user, starts_at=start, ends_at=ends_at, level=level)
        else:
            away.ends_at, away.level = ends_at, level
            away.save(update_fields=["ends_at", "level"])
        if away.began_at is None and away.starts_at <= now:
            away.began_at = now
            away.save(update_fields=["began_at"])
        running = away.began_at is not None
        until = _effective_end(away, now)
        level_now = away.level
    if running:
        _seats_set(user.pk, level_now, until)
    return away_status(user, now=now)


def away_end(
    *, user: User, reason: str = Away.EndReason.RETURNED, now: datetime | None = None
) -> AwayStatus:
    """``user`` is back (or their planned time away is called off): their seats are theirs
    again from their next decision on. Harmless when they were not away."""
    now = now or timezone.now()
    with transaction.atomic():
        away = _open(user.pk, lock=True)
        if away is not None:
            away.ended_at = now
            away.end_reason = reason if away.began_at is not None else Away.EndReason.CANCELLED
            away.save(update_fields=["ended_at", "end_reason"])
    _seats_set(user.pk, "", None)
    return away_status(user, now=now)


def autopilot_seat_values(
    user_id: int, table: Table, now: datetime
) -> tuple[bool, str, datetime | None]:
    """What a seat of ``user_id`` at ``table`` takes as its game starts: whether its
    player is away now, and the autopilot's level and end ("" and None at a real-time
    table, or one whose host turned the autopilot off)."""
    running = Away.objects.filter(
        user_id=user_id, ended_at__isnull=True, began_at__isnull=False
    ).first()
    if running is None:
        return False, "", None
    if table.realtime or not table.autopilot:
        return True, "", None
    return True, running.level, _effective_end(running, now)


def _seats_set(user_id: int, level: str, until: datetime | None) -> int:
    """Mark (``level``) or unmark ("") ``user_id`` away on every running seat of theirs,
    and put or take the autopilot where the table allows it (turn by turn, the host's
    choice): one table locked at a time, in id order. How many seats changed."""
    from .services import lock_and_mark_presence  # noqa: PLC0415 (services imports this module)

    seats = Seat.objects.filter(
        user_id=user_id, left_at__isnull=True, table__status=Table.Status.ACTIVE
    )
    if not level:
        seats = seats.filter(player_away=True)
    changed = 0
    for table_id in sorted(set(seats.values_list("table_id", flat=True))):
        with transaction.atomic():
            table = lock_and_mark_presence(table_id)
            if table is None:
                continue
            mine = Seat.objects.filter(table=table, user_id=user_id, left_at__isnull=True)
            plays = bool(level) and table.autopilot and not table.realtime
            changed += mine.update(
                player_away=bool(level),
                autopilot=level if plays else "",
                autopilot_until=until if plays else None,
            )
    return changed


def aways_due(*, now: datetime | None = None) -> int:
    """Begin the planned times away whose start has come, end the ones whose end (or
    allowance) has come; how many changed. The sweep calls it every minute."""
    now = now or timezone.now()
    changed = 0
    for away in Away.objects.filter(ended_at__isnull=True, starts_at__lte=now).select_related(
        "user"
    ):
        if away.began_at is None:
            if _left(away.user_id, now) <= timedelta():
                away.ended_at, away.end_reason = now, Away.EndReason.ALLOWANCE
                away.save(update_fields=["ended_at", "end_reason"])
                changed += 1
                continue
            with transaction.atomic():
                locked = _open(away.user_id, lock=True)
                if locked is None or locked.pk != away.pk or locked.began_at is not None:
                    continue
                locked.began_at = now
                locked.save(update_fields=["began_at"])
            _seats_set(away.user_id, away.level, _effective_end(locked, now))
            changed += 1
            continue
        end = _effective_end(away, now)
        if end is not None and end <= now:
            reason = (
                Away.EndReason.UNTIL
                if away.ends_at is not None and away.ends_at <= now
                else Away.EndReason.ALLOWANCE
            )
            away_end(user=away.user, reason=reason, now=now)
            logger.info("away_ended user=%s reason=%s", away.user_id, reason)
            changed += 1
    return changed


# ----------------------------------------------------------------------------
# Play settings


def play_settings_get(user: User) -> dict[str, bool]:
    """How the player wants the table to play for them: ``forced_moves``."""
    stored = PlaySettings.objects.filter(user=user).first()
    return {"forced_moves": bool(stored and stored.forced_moves)}


def play_settings_update(*, user: User, forced_moves: bool) -> dict[str, bool]:
    """Change the player's play settings; the seats of their running games follow at once."""
    with transaction.atomic():
        PlaySettings.objects.update_or_create(user=user, defaults={"forced_moves": forced_moves})
        Seat.objects.filter(
            user=user, left_at__isnull=True, table__status=Table.Status.ACTIVE
        ).update(forced_moves=forced_moves)
    return play_settings_get(user)


def forced_moves_of(user_id: int) -> bool:
    """The player's "forced moves at once" setting, as a seat copies it when a game starts."""
    return PlaySettings.objects.filter(user_id=user_id, forced_moves=True).exists()
