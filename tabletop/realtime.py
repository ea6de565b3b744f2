"""Real-time play: the move timers, strikes and the seat held after a disconnect.

The same in the texts of both games ("Time limits", "If you disconnect") and
PRODUCT.md rulings 17 and 18, so it lives here, once. These rules decide
nothing about the cards: a timed-out turn is played with ``timeout_action``
like any other, and a seat played by a bot is played through the seat's own
view. What is decided here is who makes a
seat's decisions and when a player loses the seat.

>>> MOVE_TIMERS["fast"]
15
>>> after_timeout(strikes=2)
Strike(strikes=3, replaced=True)
>>> decides(replaced=False, away=True)
'bot'
"""

from __future__ import annotations

from typing import Final, Literal, NamedTuple

#: The move timers a host may pick, in seconds ("Time limits").
MOVE_TIMERS: Final[dict[str, int]] = {"relaxed": 45, "normal": 30, "fast": 15}

#: Running out of time this many times, not necessarily in a row, gives the seat to a bot.
STRIKES_FOR_BOT: Final = 3

#: How long a seat is held after its player's last connection closed (ruling 18).
HOLD_SECONDS: Final = 120

#: The level of the bot that plays a seat for a player who struck out or is away.
STAND_IN_LEVEL: Final = "normal"

#: Who makes a seat's decisions.
Decider = Literal["player", "bot"]


class Strike(NamedTuple):
    """A seat's strikes after a timed-out turn, and whether a bot now takes it for good."""

    strikes: int
    replaced: bool


def move_seconds(timer: str) -> int:
    """The seconds of move timer ``timer`` (``relaxed``, ``normal`` or ``fast``).

    >>> move_seconds("relaxed")
    45
    >>> move_seconds("slow")
    Traceback (most recent call last):
    ...
    ValueError: a move timer is relaxed, normal or fast
    """
    try:
        return MOVE_TIMERS[timer]
    except KeyError:
        raise ValueError("a move timer is relaxed, normal or fast") from None


def timer_name(seconds: int) -> str:
    """The name of the move timer of ``seconds`` (the inverse of ``move_seconds``).

    >>> timer_name(30)
    'normal'
    """
    for name, length in MOVE_TIMERS.items():
        if length == seconds:
            return name
    raise ValueError(f"no move timer lasts {seconds} seconds")


def after_timeout(*, strikes: int, held: bool = False) -> Strike:
    """A turn ran out of time (ruling 17): one strike more; the third replaces the player.

    The strike is counted once per timed-out turn, after the table's plain
    move for it; the caller hands the seat to the bot after that move, and
    the player stays the seat's (ruling 18, revised). ``held``: the seat is
    held for a player whose connection dropped; the turn counts no strike, so
    that a dropped connection cannot strike a player out before the hold ends
    (ruling 18, revised).

    >>> after_timeout(strikes=0)
    Strike(strikes=1, replaced=False)
    >>> after_timeout(strikes=2, held=True)
    Strike(strikes=2, replaced=False)
    """
    if not 0 <= strikes < STRIKES_FOR_BOT:
        raise ValueError(
            f"a seat still played by its player has 0 to {STRIKES_FOR_BOT - 1} strikes"
        )
    if held:
        return Strike(strikes=strikes, replaced=False)
    strikes += 1
    return Strike(strikes=strikes, replaced=strikes >= STRIKES_FOR_BOT)


def decides(*, replaced: bool, away: bool) -> Decider:
    """Who makes the seat's next decision (rulings 17 and 18).

    ``replaced``: the player struck out, a bot has the seat for the rest of
    the game. ``away``: the player's hold ran out and they have not
    connected again; a bot plays for them meanwhile, and from the next
    decision after they return the seat is theirs again.

    >>> decides(replaced=False, away=False)
    'player'
    >>> decides(replaced=True, away=False)
    'bot'
    """
    return "bot" if replaced or away else "player"
