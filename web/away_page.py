"""The account page's "Away" and "Play" sections (issue 38, parts 1 and 5).

Every write is ``games.away``'s: ``away_set`` and ``away_end`` for a time away
with autopilot (PRODUCT.md ruling 20), ``play_settings_update`` for the forced
moves played at once. This module only reads the forms, puts a refusal's
sentence next to its form, and says the player's status in words. Dates and
times are read and shown in the player's own time zone, the one of their daily
digest (``notifications.preferences_get``).
"""

from __future__ import annotations

import zoneinfo
from datetime import datetime
from typing import Any

from django.contrib.auth.models import User
from django.http import HttpRequest

from games import away
from games.errors import ServiceError

from .forms import AUTOPILOT_LEVELS, AwayForm, PlayForm

Context = dict[str, Any]

_LEVEL_NAMES = dict(AUTOPILOT_LEVELS)


def initial_forms(user: User, zone: str) -> Context:
    """The two sections' forms as a GET shows them: the player's settings filled in."""
    status = away.away_status(user)
    initial: Context = {"level": status.level or "normal"}
    if status.state != "off":
        # Changing a time away starts from the one there is.
        local = zoneinfo.ZoneInfo(zone)
        if status.state == "planned" and status.starts_at is not None:
            initial.update(start="at", starts_at=status.starts_at.astimezone(local))
        if status.ends_at is not None:
            initial.update(end="at", ends_at=status.ends_at.astimezone(local))
    return {
        "away_form": AwayForm(initial=initial, zone=zone),
        "play_form": PlayForm(initial=away.play_settings_get(user)),
    }


def _zone(forms: Context) -> str:
    form = forms.get("away_form")
    return str(form.zone) if isinstance(form, AwayForm) else "UTC"


def save_away(request: HttpRequest, user: User, forms: Context) -> str | None:
    """Mark the player away, or change their time away; None with the errors on the form."""
    form = forms["away_form"] = AwayForm(request.POST, zone=_zone(forms))
    if not form.is_valid():
        return None
    try:
        status = away.away_set(user=user, **form.service_kwargs())
    except ServiceError as error:
        form.add_error(None, error.message)
        return None
    bot = f"your autopilot ({_LEVEL_NAMES.get(status.level or '', status.level)} bot)"
    if status.state == "planned":
        return f"Your time away is planned: {bot} will play your turns from its start."
    return f"You are away: {bot} plays your turns at turn-by-turn tables at once."


def end_away(request: HttpRequest, user: User, forms: Context) -> str | None:  # noqa: ARG001
    """The player is back (or calls off a planned time away)."""
    was = away.away_status(user).state
    away.away_end(user=user)
    if was == "planned":
        return "Your planned time away is called off."
    return "Welcome back: your turns are yours again."


def save_play(request: HttpRequest, user: User, forms: Context) -> str | None:
    form = forms["play_form"] = PlayForm(request.POST)
    if not form.is_valid():
        return None
    settings = away.play_settings_update(user=user, forced_moves=form.cleaned_data["forced_moves"])
    if settings["forced_moves"]:
        return "Your forced moves will be played at once."
    return "Your forced moves will wait for you to play them."


def _when(instant: datetime | None, zone: zoneinfo.ZoneInfo) -> str | None:
    if instant is None:
        return None
    local = instant.astimezone(zone)
    return f"{local.day} {local:%b %Y}, {local:%H:%M}"


def days(count: float) -> str:
    """A number of days as the page says it: whole, or to one decimal.

    >>> days(0), days(1), days(2.25), days(29.96)
    ('0 days', '1 day', '2.2 days', '30 days')
    """
    rounded = round(count, 1)
    if rounded == int(rounded):
        whole = int(rounded)
        return f"{whole} day" if whole == 1 else f"{whole} days"
    return f"{rounded} days"


def status_context(user: User, zone: str) -> Context:
    """The player's time away in words: its state, from and until when, the bot, the
    allowance's days used and left (``games.away.away_status``)."""
    status = away.away_status(user)
    local = zoneinfo.ZoneInfo(zone)
    # The allowance may end the autopilot before the end asked for.
    cut_short = status.autopilot_until is not None and (
        status.ends_at is None or status.autopilot_until < status.ends_at
    )
    return {
        "state": status.state,
        "bot": _LEVEL_NAMES.get(status.level or "", status.level),
        "starts": _when(status.starts_at, local),
        "ends": _when(status.ends_at, local),
        "autopilot_until": _when(status.autopilot_until, local),
        "cut_short": cut_short,
        "days_used": days(status.days_used),
        "days_left": days(status.days_left),
        "allowance": days(status.allowance_days),
        "zone": zone,
    }
