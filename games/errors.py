"""Errors the service raises. Each has a stable code, a sentence and an HTTP status.

``tabletop.ruleset.RuleError`` (a game's rules refuse an action) is answered with 422; these
are everything else a request can get wrong.
"""

from __future__ import annotations

from typing import Any


class ServiceError(Exception):
    status = 400
    code = "bad_request"
    message = "The request cannot be carried out."

    def __init__(
        self,
        message: str | None = None,
        *,
        code: str | None = None,
        fields: dict[str, Any] | None = None,
    ) -> None:
        if message is not None:
            self.message = message
        if code is not None:
            self.code = code
        self.fields = fields or {}
        super().__init__(f"{self.code}: {self.message}")


class NotFound(ServiceError):
    status = 404
    code = "not_found"
    message = "No such table."


class Forbidden(ServiceError):
    status = 403
    code = "forbidden"
    message = "You may not do that at this table."


class Conflict(ServiceError):
    status = 409
    code = "conflict"
    message = "The table is not in a state that allows this."


class StaleSequence(Conflict):
    code = "stale_seq"
    message = "The table has moved on since you last looked; fetch the view and try again."


class InvalidSocket(ServiceError):
    code = "invalid_socket"
    message = (
        "X-Gamenook-Socket must be the id a socket at this table sent in its hello frame:"
        " 16 to 64 letters, digits, '-' or '_'."
    )


class BotGamesCapped(ServiceError):
    """Issue 40: a game with no person at it may not start yet (``GAMENOOK_BOT_GAMES_PER_DAY``).

    ``retry_after``: seconds until it may (the API's ``Retry-After``).
    """

    status = 429
    code = "bot_games_capped"
    message = "A bot account at this table has played as many games between bots as one may today."

    def __init__(self, message: str | None = None, *, retry_after: int) -> None:
        super().__init__(message)
        self.retry_after = retry_after
