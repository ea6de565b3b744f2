"""The settings games reads, each in one place (defaults: gamenook/settings/base.py)."""

from __future__ import annotations

from datetime import timedelta

from django.conf import settings


def seconds_per_hour() -> int:
    """How long an "hour" of a turn deadline lasts; only tests and demos shorten it."""
    return int(settings.GAMENOOK_SECONDS_PER_HOUR)


def run_bots_inline() -> bool:
    """Play bot turns inside the request that handed them the turn (tests, no worker)."""
    return bool(settings.GAMENOOK_RUN_BOTS_INLINE)


def bench_endpoints() -> bool:
    """Serve the API load benchmark's baseline endpoint (never in production)."""
    return bool(settings.GAMENOOK_BENCH_ENDPOINTS)


def fixed_game_seed() -> str:
    """A seed every new game uses instead of a random one: demos only, never production."""
    return str(settings.GAMENOOK_GAME_SEED)


def max_body_bytes() -> int:
    """The largest request body the API reads (Django's ``DATA_UPLOAD_MAX_MEMORY_SIZE``)."""
    limit = settings.DATA_UPLOAD_MAX_MEMORY_SIZE
    return int(limit) if limit is not None else 2_621_440


def seat_hold_seconds() -> float:
    """How long a real-time seat is held after its player's last connection closed."""
    return float(settings.GAMENOOK_SEAT_HOLD_SECONDS)


def presence_stale_seconds() -> float:
    """A connection whose heartbeat is older than this is treated as closed."""
    return float(settings.GAMENOOK_PRESENCE_STALE_SECONDS)


def max_open_tables() -> int:
    """How many tables in the lobby one user may host or sit at (``games.limits``)."""
    return int(settings.GAMENOOK_MAX_OPEN_TABLES)


def max_running_tables() -> int:
    """How many running games one user may play in at once (``games.limits``)."""
    return int(settings.GAMENOOK_MAX_RUNNING_TABLES)


def max_bot_seats() -> int:
    """How many bot seats one user may have at the tables they host, in the lobby or running."""
    return int(settings.GAMENOOK_MAX_BOT_SEATS)


def idempotency_keep() -> timedelta:
    """How long an ``Idempotency-Key`` record is kept; the sweep deletes older ones."""
    return timedelta(seconds=float(settings.GAMENOOK_IDEMPOTENCY_KEEP_SECONDS))


def game_rulesets() -> list[str]:
    """The dotted paths of the rulesets of the games the service hosts (``games.rulesets``)."""
    return [str(path) for path in settings.GAMENOOK_GAMES]


def away_days_per_year() -> int:
    """The allowance of days away with autopilot in any 365 (ruling 20, ``games.away``)."""
    return int(settings.GAMENOOK_AWAY_DAYS_PER_YEAR)


def reliability_days() -> int:
    """The window of the reliability record (issue 39), in days."""
    return int(settings.GAMENOOK_RELIABILITY_DAYS)


def bot_games_per_day() -> int:
    """How many games with no person at them one bot account may start in 24 hours (issue 40)."""
    return int(settings.GAMENOOK_BOT_GAMES_PER_DAY)
