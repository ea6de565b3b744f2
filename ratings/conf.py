"""The settings ratings reads, each in one place (defaults: gamenook/settings/base.py)."""

from __future__ import annotations

from datetime import timedelta

from django.conf import settings

#: How long after a game's end the sweep's safety net still rates it if its follow-up
#: did not (a lost job); the table page says "ratings are being updated" that long.
RATE_WINDOW = timedelta(hours=6)


def provisional_sigma() -> float:
    """Above this uncertainty a rating is provisional: shown with "?", off the leaderboards."""
    return float(settings.GAMENOOK_RATING_PROVISIONAL_SIGMA)


def stand_in_weight() -> float:
    """What a turn a bot played for a person counts in their weight, against one of theirs."""
    return float(settings.GAMENOOK_RATING_STAND_IN_WEIGHT)


def leaderboard_min_games() -> int:
    """The rated games on a ladder a player needs to be listed on its leaderboard."""
    return int(settings.GAMENOOK_LEADERBOARD_MIN_GAMES)


def leaderboard_active_days() -> int:
    """A leaderboard lists players with a rated game in this many days."""
    return int(settings.GAMENOOK_LEADERBOARD_ACTIVE_DAYS)
