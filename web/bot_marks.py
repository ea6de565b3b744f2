"""Issue 40: the BOT badge beside a bot account's name, and the invitations a page lists.

Whether a name is a bot account's, and who runs it, is asked of
``games.selectors`` once per page for all its names (``bot_owners``): a page
holds a dict of owner names by user id (or by username where a page knows only
names) and each row carries its ``bot_owner`` (None for a person), which
``web/_bot_badge.html`` turns into the badge.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from django.contrib.auth.models import User

from games import selectors

#: How many of a user's pending invitations the lobby lists (the newest).
LOBBY_INVITATIONS = 20


def owners(user_ids: Iterable[int | None]) -> dict[int, str]:
    """The owner's name of each bot account among ``user_ids``, in one query (none when
    there is no id)."""
    return selectors.bot_owners(user_id for user_id in user_ids if user_id is not None)


def owners_by_name(usernames: Iterable[str]) -> dict[str, str]:
    """The owner's name of each bot account among ``usernames``, in one query."""
    return selectors.bot_owners_by_name(usernames)


def mark_seats(seats: Iterable[dict[str, Any]], bots: Mapping[int, str]) -> None:
    """Give each seat dict (``selectors.table_seats``) its ``bot_owner``."""
    for seat in seats:
        seat["bot_owner"] = bots.get(seat.get("user_id") or 0)


def mark_by_seat(rows: Iterable[dict[str, Any]], key: str, seats: Iterable[dict[str, Any]]) -> None:
    """Give each row whose ``key`` is a seat number the ``bot_owner`` of that seat."""
    by_number = {seat["number"]: seat.get("bot_owner") for seat in seats}
    for row in rows:
        row["bot_owner"] = by_number.get(row.get(key))


def lobby_invitations(user: User) -> list[dict[str, Any]]:
    """The user's pending invitations, newest first, as the lobby lists them."""
    return [
        {
            "id": facts.id,
            "table_id": facts.table_id,
            "game_name": _game_name(facts.game),
            "host": facts.host,
            "seat_count": facts.seat_count,
            "created_at": facts.created_at,
        }
        for facts in selectors.invitations_pending(user.pk, limit=LOBBY_INVITATIONS)
    ]


def _game_name(game: str) -> str:
    names = {one["id"]: one["name"] for one in selectors.games_offered()}
    return str(names.get(game, game))


def table_invitations(table_id: int) -> list[dict[str, Any]]:
    """The table's pending invitations for its host's page, newest first, BOT marked."""
    found = list(selectors.table_invitations(table_id, pending=True)[:50])
    bots = owners(invitation.user_id for invitation in found)
    return [
        {
            "id": invitation.pk,
            "username": invitation.user.username,
            "created_at": invitation.created_at,
            "bot_owner": bots.get(invitation.user_id),
        }
        for invitation in found
    ]
