"""The events a player's programs are told of (issue 40): one vocabulary, two carriers.

The event stream (``live.streams``, ``GET /api/v1/stream/events``) and the
webhooks (``notifications.webhooks``) send the same bodies, built here from
plain facts so that either layer can build them without reading anything
more. Each body is a JSON object with a ``type``; docs/bots-api.md lists them.

Only public facts and facts about the user's own seat are in an event: where
it is their turn, that a game started or ended and the final ranking (public
once the game is over), who invited them. Never a card: a program reads its
seat's view (``GET /api/v1/tables/{id}/view/`` or the table's stream) for that.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from datetime import datetime
from typing import Any

Event = dict[str, Any]


def _iso(instant: datetime | None) -> str | None:
    return None if instant is None else instant.isoformat().replace("+00:00", "Z")


def table_url(table_id: int) -> str:
    """The table's API address, relative to the site."""
    return f"/api/v1/tables/{table_id}/"


def turn_event(
    *, table_id: int, game: str, seq: int, turn: int, seat: int, deadline: datetime | None
) -> Event:
    """A turn of the user's seat ``seat`` began at ``table_id`` (after change ``seq``)."""
    return {
        "type": "turn",
        "table": table_id,
        "game": game,
        "seq": seq,
        "turn": turn,
        "seat": seat,
        "deadline": _iso(deadline),
        "url": table_url(table_id),
    }


def game_start_event(*, table_id: int, game: str, seat: int) -> Event:
    """The game at ``table_id`` began, with the user in seat ``seat``."""
    return {
        "type": "game_start",
        "table": table_id,
        "game": game,
        "seat": seat,
        "url": table_url(table_id),
    }


def game_over_event(
    *, table_id: int, game: str, seat: int, ranking: Sequence[Mapping[str, Any]]
) -> Event:
    """The game at ``table_id`` ended; ``rank`` is seat ``seat``'s place (None: no place)."""
    mine = next((entry for entry in ranking if entry.get("seat") == seat), None)
    return {
        "type": "game_over",
        "table": table_id,
        "game": game,
        "seat": seat,
        "rank": None if mine is None else mine.get("rank"),
        "ranking": [dict(entry) for entry in ranking],
        "url": table_url(table_id),
    }


def invitation_event(
    *, invitation_id: int, table_id: int, game: str, host: str, seats: int
) -> Event:
    """``host`` invited the user to a seat at ``table_id`` (a table of ``seats`` seats)."""
    return {
        "type": "invitation",
        "id": invitation_id,
        "table": table_id,
        "game": game,
        "from": host,
        "seats": seats,
        "url": f"{table_url(table_id)}join/",
    }
