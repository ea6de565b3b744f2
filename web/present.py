"""Turn what the selectors return into what the templates show: words, not rules.

Everything about a game comes in as a seat's view or the watcher view
(``games.selectors.table_view``), the log as that seat may see it
(``selectors.table_log``) or, once the game is over, its record. This module
only renames: a face code becomes its colour, symbol and name in words, a
refusal code the rules' sentence, a move's events a sentence. It decides
nothing about what may be played.
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from datetime import UTC, datetime
from functools import lru_cache
from typing import Any

from games import selectors

Context = dict[str, Any]

#: How many of the latest moves a table page lists.
RECENT_MOVES = 12


#: The first game of the registry: what a caller that names no game means.
DEFAULT_GAME: str = selectors.games_offered()[0]["id"]

#: What the corner of a card shows besides a number: its draw, by the face's kind.
_CORNERS = {
    "draw-one": "+1",
    "draw-five": "+5",
    "wild-draw-two": "+2",
    "wild-draw-color": "+?",
    "draw2": "+2",
    "wild-draw4": "+4",
}
#: The action symbol printed on a card, by the face's kind (``_symbols.svg``).
_ACTS = {
    "reverse": "reverse",
    "skip": "skip",
    "skip-everyone": "skip-everyone",
    "flip": "flip",
    **{kind: "draw" for kind in _CORNERS},
}


@lru_cache(maxsize=1024)
def face(code: str, game: str = DEFAULT_GAME) -> Context:
    """A face code of ``game`` in words (``selectors.face_words``), with what its
    picture shows (the corner's draw, the action's symbol), cached: a game has a
    hundred-odd faces. A game of one side prints its cards as a light face."""
    words = {"side": "light", **selectors.face_words(code, game)}
    words["corner"] = (
        words["number"] if words["number"] is not None else _CORNERS.get(words["kind"])
    )
    words["act"] = _ACTS.get(words["kind"])
    return words


def faces(codes: list[str], game: str = DEFAULT_GAME) -> list[Context]:
    return [face(code, game) for code in codes]


@lru_cache(maxsize=256)
def refusal(code: str, game: str = DEFAULT_GAME) -> str:
    return selectors.refusal_sentence(code, game)


def color_choice(color: str, game: str = DEFAULT_GAME) -> Context:
    return {
        "color": color,
        "name": color.capitalize(),
        "symbol": selectors.color_symbol(color, game),
    }


def game_options(game: str, options: Mapping[str, Any]) -> Context:
    """A table's game and options in words, from the game's ``OptionSpec``s: its name,
    each setting ("Scoring: Single round") and the house rules that are on.

    The target score is said only when the game is played to one.
    """
    offered = next((g for g in selectors.games_offered() if g["id"] == game), None)
    if offered is None:
        return {"game_id": game, "game_name": game, "option_words": [], "house_rules": []}
    words: list[str] = []
    house: list[str] = []
    for spec in offered["options"]:
        value = options.get(spec.name, spec.default)
        if spec.name == "target" and options.get("scoring", "target") != "target":
            continue
        if spec.kind == "bool":
            if spec.house_rule:
                if value:
                    house.append(spec.label)
            else:
                words.append(f"{spec.label}: {'on' if value else 'off'}")
        elif spec.kind == "choice":
            words.append(f"{spec.label}: {choice_words(value)}")
        else:
            words.append(f"{spec.label}: {value}")
    return {
        "game_id": game,
        "game_name": offered["name"],
        "option_words": words,
        "house_rules": house,
    }


#: Words for the values of a ``choice`` option (the new-table form's too).
CHOICE_WORDS = {"single": "single round", "target": "rounds to a target score"}


def choice_words(value: object) -> str:
    """A ``choice`` option's value in words; any other is shown as it is spelt."""
    return CHOICE_WORDS.get(str(value), str(value).replace("_", " "))


def seat_name(seat: Context | None, number: int) -> str:
    """The seat's name as the table gives it (``selectors.seat_names``)."""
    if seat is None:
        return f"Seat {number + 1}"
    if seat.get("name"):
        return str(seat["name"])
    if seat["username"]:
        return str(seat["username"])
    if seat.get("previous_username"):  # a bot took the seat from its player for good
        return f"{seat['previous_username']} (bot)"
    return f"Bot ({seat['bot_level']})"


def realtime_seat(seat: Context | None, strikes_for_bot: int) -> Context:
    """A seat's public facts of real-time play as the page shows them (rulings 17, 18).

    The facts are the selectors' (``games.selectors.seat_presence``); this only
    lays them out: the strikes as marks (``strikes_for_bot`` of them, filled
    for each strike) and which one sentence describes the seat now.
    """
    if seat is None:
        return {"strike_marks": [], "state": None, "held_until": None}
    strikes = int(seat["strikes"])
    marks = [n < strikes for n in range(max(strikes_for_bot, strikes))]
    state = None
    if seat["replaced"]:
        state = "replaced"
    elif seat["away"]:
        state = "away"
    elif seat["held_until"] is not None:
        state = "held"
    elif seat["connected"] is False:
        state = "offline"
    return {
        "strikes": strikes,
        "strikes_for_bot": strikes_for_bot,
        "strike_marks": marks,
        "state": state,
        "held_until": seat["held_until"],
        "bot_plays": state in ("replaced", "away"),
    }


def local_time(instant: datetime) -> str:
    """An instant as the page prints it before the browser puts it in the reader's own
    time (``clock.js``, ``data-local-time``): in UTC, and saying so.

    >>> from datetime import UTC
    >>> local_time(datetime(2026, 12, 12, 18, 0, tzinfo=UTC))
    '12 Dec, 18:00 UTC'
    """
    utc = instant.astimezone(UTC)
    return f"{utc.day} {utc:%b}, {utc:%H:%M} UTC"


def autopilot(seat: Mapping[str, Any] | None, *, you: bool = False) -> Context | None:
    """A seat on autopilot (ruling 20) as every page says it, to everyone at the table and
    every watcher: "On autopilot (Normal bot) until 12 Dec, 18:00 UTC", or "... until they
    return"; None when its player plays it.

    The facts are the selectors' (``games.selectors.seat_presence``: ``autopilot``, the
    bot's level, and ``autopilot_until``, None for "until they return").

    >>> autopilot({"autopilot": "normal", "autopilot_until": None})["text"]
    'On autopilot (Normal bot) until they return'
    >>> autopilot({"autopilot": None, "autopilot_until": None}) is None
    True
    """
    if seat is None or not seat.get("autopilot"):
        return None
    level = str(seat["autopilot"])
    until: datetime | None = seat.get("autopilot_until")
    bot = f"{level.capitalize()} bot"
    returns = "you return" if you else "they return"
    when = returns if until is None else local_time(until)
    return {
        "level": level,
        "bot": bot,
        "until": until,
        "until_text": when,
        "returns": returns,
        "text": f"On autopilot ({bot}) until {when}",
    }


def move_timer(deadline_at: datetime | None, move_seconds: int, now: datetime) -> Context | None:
    """The move timer's ring at ``now``: the instant it runs out and what is left of it.

    The page counts down from ``deadline_ms`` against the server's clock
    (``now_ms`` on the live part gives the offset), so a browser whose clock is
    wrong still shows the table's time.
    """
    if deadline_at is None:
        return None
    left = max(0.0, (deadline_at - now).total_seconds())
    return {
        "deadline_ms": int(deadline_at.timestamp() * 1000),
        "seconds": move_seconds,
        "left": math.ceil(left),
        "fraction": f"{min(1.0, left / move_seconds):.3f}",
    }


class Names:
    """How a page names each seat: "You" for the viewer, else the name or the bot's level."""

    def __init__(
        self,
        seats: list[Context],
        viewer: int | None,
        *,
        open_faces: bool = False,
        game: str = DEFAULT_GAME,
    ) -> None:
        self.by_number = {seat["number"]: seat for seat in seats}
        self.viewer = viewer
        #: The replay: every card is public, so every drawn card is named.
        self.open_faces = open_faces
        #: The game whose faces the events name.
        self.game = game

    def __call__(self, number: int | None, *, start: bool = False) -> str:
        if number is None:
            return "Nobody"
        if number == self.viewer:
            return "You" if start else "you"
        return seat_name(self.by_number.get(number), number)

    def is_you(self, number: int | None) -> bool:
        return number is not None and number == self.viewer


MINUTE = 60


def duration(seconds: float) -> str:
    """A length of time as a person says it: "two minutes" is "2 minutes", 90 s "90 seconds".

    >>> duration(120), duration(60), duration(90), duration(3)
    ('2 minutes', '1 minute', '90 seconds', '3 seconds')
    """
    whole = round(seconds)
    if whole >= MINUTE and whole % MINUTE == 0:
        return _plural(whole // MINUTE, "minute")
    return _plural(whole, "second")


def _plural(count: int, word: str) -> str:
    return f"{count} {word}" if count == 1 else f"{count} {word}s"


def _verb(names: Names, seat: int | None, you: str, other: str) -> str:
    return you if names.is_you(seat) else other


@dataclass(frozen=True)
class _Said:
    """One event to put in words: the event, how the page names seats, and who did it.

    ``who`` is the event's seat by name, or who acted for it when the table
    made the move (``by_table``), then ``for_whom`` says for whom.
    """

    event: Context
    names: Names
    who: str
    for_whom: str = ""
    #: The seat whose move this is (None: the table's own, as a deal).
    mover: int | None = None

    def verb(self, seat: int | None, you: str, other: str) -> str:
        return _verb(self.names, seat, you, other)


def _face_name(s: _Said, code: str) -> str:
    return str(face(code, s.names.game)["name"])


def _play(s: _Said) -> str:
    card = _face_name(s, s.event["face"])
    if s.event.get("jump_in"):
        text = f"{s.who} jumped in with {card}{s.for_whom}"
    else:
        text = f"{s.who} played {card}{s.for_whom}"
    if s.event.get("color"):
        text += f" and chose {s.event['color'].capitalize()}"
    return text


def _swap(s: _Said) -> str:
    first, second = s.event["seats"]
    counts = s.event.get("counts", [])
    text = f"{s.names(first)} and {s.names(second)} swapped hands"
    if len(counts) == 2:  # noqa: PLR2004 (the two hands' sizes)
        text += (
            f" ({s.names(first)} now {s.verb(first, 'hold', 'holds')} "
            f"{_plural(counts[0], 'card')}, {s.names(second)} {_plural(counts[1], 'card')})"
        )
    return text


def _penalty(s: _Said) -> str:
    seat, count = s.event["seat"], s.event["count"]
    return (
        f"{_plural(count, 'card')} of penalty now {'wait' if count != 1 else 'waits'} for "
        f"{s.names(seat)}, who may pass them on with a draw card or take them"
    )


def _draw(s: _Said) -> str:
    seat, count = s.event.get("seat"), s.event["count"]
    if count == 0:
        return f"{s.who} could draw nothing{s.for_whom}: the piles are empty"
    verb = "drew" if s.event["reason"] == "draw" else s.verb(seat, "draw", "draws")
    if s.event["reason"] == "penalty" and s.mover == seat:  # a waiting penalty taken
        verb = "took"
        text = f"{s.who} {verb} the penalty: {_plural(count, 'card')}{s.for_whom}"
    else:
        text = f"{s.who} {verb} {_plural(count, 'card')}{s.for_whom}"
    if (s.names.is_you(seat) or s.names.open_faces) and s.event.get("faces"):
        text += " (" + ", ".join(_face_name(s, code) for code in s.event["faces"]) + ")"
    return text


def _round_end(s: _Said) -> str:
    result = s.event["result"]
    if result["blocked"]:
        return f"round {result['round']} is blocked: nobody wins it and nobody scores"
    number = result["winner"]
    winner, wins = s.names(number), s.verb(number, "win", "wins")
    if result["interrupted"]:
        return f"{winner} {wins} the round: every other player left"
    scores = s.verb(number, "score", "scores")
    return f"{winner} {wins} round {result['round']} and {scores} " + _plural(
        result["points"], "point"
    )


def _game_over(s: _Said) -> str:
    number = s.event["winner"]
    if number is None:
        return "the game is over with no winner"
    return f"the game is over: {s.names(number)} {s.verb(number, 'win', 'wins')}"


#: Each event type in words.
_CLAUSES: dict[str, Callable[[_Said], str]] = {
    "round_start": lambda s: f"Round {s.event['round']} is dealt by {s.names(s.event['dealer'])}",
    "starter": lambda s: f"the starter card is {_face_name(s, s.event['face'])}",
    "starter_returned": lambda s: (
        f"{_face_name(s, s.event['face'])} cannot start: it goes back and the pile is shuffled"
    ),
    "play": _play,
    "choose_color": lambda s: f"{s.who} chose {s.event['color'].capitalize()}{s.for_whom}",
    "turn_lost": lambda s: (
        f"{s.who} {s.verb(s.event.get('seat'), 'lose your', 'loses their')} turn"
    ),
    "draw": _draw,
    "flip": lambda s: f"the table flipped to the {s.event['side']} side",
    "reverse": lambda s: f"play now goes {s.event['direction']}",
    "swap": _swap,
    "rotate": lambda s: f"every hand moved on to the next player, {s.event['direction']}",
    "penalty": _penalty,
    "pass": lambda s: f"{s.who} passed{s.for_whom}: nothing to play and nothing to draw",
    "leave": lambda s: (
        f"{s.who} left the game; {_plural(s.event['count'], 'card')} went under the draw pile"
    ),
    "reshuffle": lambda _s: "the discard pile was shuffled into a new draw pile",
    "round_end": _round_end,
    "game_over": _game_over,
    "replaced_by_bot": lambda s: f"{s.who} is now played by a bot ({s.event['level']})",
    "aborted": lambda _s: "a moderator stopped the table",
}


@dataclass(frozen=True)
class ByTable:
    """A move the table made for a seat (PRODUCT.md ruling 21), in words.

    ``lead`` says why ("bob's time ran out"), ``actor`` who chose the move
    ("the table", "a bot") and ``for_whom`` for whom (" for them").
    """

    seat: int
    lead: str
    actor: str
    for_whom: str


#: Who made a move for a seat and why, by the move's (source, stand_in): the lead for
#: another seat and for the viewer's own, and who acted. The one place these words live.
_BY_TABLE: dict[tuple[str, str | None], tuple[str, str, str]] = {
    ("timeout", None): ("{name}'s time ran out", "Your time ran out", "the table"),
    ("bot", "away"): ("{name} was away", "You were away", "a bot"),
    ("bot", "struck_out"): ("{name} was struck out", "You were struck out", "a bot"),
    # Ruling 20: the player marked themselves away; the bot of their choice played.
    ("autopilot", None): ("{name} was on autopilot", "You were on autopilot", "a bot"),
    # Issue 38: the only legal action, played at once because the player asked for it.
    ("forced", None): ("{name} had only one move", "You had only one move", "the table"),
}


def by_table(
    names: Names, seat: int | None, source: str, stand_in: str | None = None
) -> ByTable | None:
    """How a move of ``seat`` from ``source`` is marked as the table's, or None: its own.

    ``source`` is the move log's (``games.models.Move.Source``) or the
    record's, ``stand_in`` why a bot played for a person (``games.selectors
    .move_stand_ins``; the record's ``stand_in``).

    >>> names = Names([{"number": 1, "name": "bob"}], viewer=0)
    >>> by_table(names, 1, "timeout").lead, by_table(names, 0, "bot", "away").lead
    ("bob's time ran out", 'You were away')
    >>> by_table(names, 1, "autopilot").lead, by_table(names, 0, "forced").actor
    ('bob was on autopilot', 'the table')
    >>> by_table(names, 1, "bot") is None
    True
    """
    words = _BY_TABLE.get((source, stand_in))
    if words is None or seat is None:
        return None
    other, yours, actor = words
    you = names.is_you(seat)
    return ByTable(
        seat=seat,
        lead=yours if you else other.format(name=names(seat)),
        actor=actor,
        for_whom=" for you" if you else " for them",
    )


#: The events by which a seat makes its own move: the one the table makes for it.
_OWN_MOVES = {"play", "choose_color", "pass"}


def _is_own_move(event: Context, seat: int) -> bool:
    if event.get("seat") != seat:
        return False
    return event["type"] in _OWN_MOVES or (event["type"] == "draw" and event["reason"] == "draw")


def _event_clause(
    event: Context, names: Names, first: bool, by: ByTable | None, mover: int | None = None
) -> str | None:
    """One event in words (None when it says nothing worth a line)."""
    clause = _CLAUSES.get(event["type"])
    if clause is None:
        return None
    if by is not None and _is_own_move(event, by.seat):
        return clause(_Said(event, names, by.actor, by.for_whom, mover))
    return clause(_Said(event, names, names(event.get("seat"), start=first), mover=mover))


def _skip_everyone(event: Context, events: list[Context], names: Names) -> list[str]:
    """What a Skip Everyone did, as the turn_lost events say it for a Skip: everyone else
    loses their turn and its player plays again. Its kind is the card's
    (``selectors.face_words``); a last card has no effect: the round ended on it."""
    if event["type"] != "play" or face(event["face"], names.game)["kind"] != "skip-everyone":
        return []
    if any(other["type"] == "round_end" for other in events):
        return []
    seat = event.get("seat")
    again = _verb(names, seat, "play", "plays")
    return ["everyone else loses their turn", f"{names(seat)} {again} again"]


_LOWER_STARTS = {"the", "round", "play", "a"}


def move_sentence(
    events: list[Context],
    names: Names,
    *,
    seat: int | None = None,
    source: str = "player",
    stand_in: str | None = None,
) -> str:
    """A move's events as one sentence: "bob played Yellow Skip: carol loses their turn.".

    ``seat``, ``source`` and ``stand_in``: who moved and who chose the move;
    a move the table made for the seat says so first (``by_table``):
    "bob's time ran out: the table drew 1 card for them."
    """
    by = by_table(names, seat, source, stand_in)
    clauses: list[str] = []
    for event in events:
        clause = _event_clause(event, names, first=not clauses and by is None, by=by, mover=seat)
        if clause:
            clauses.append(clause)
            clauses.extend(_skip_everyone(event, events, names))
    if not clauses:
        return ""
    if by is not None:
        return f"{by.lead}: " + "; ".join(clauses) + "."
    text = clauses[0]
    if text.split(" ", 1)[0] in _LOWER_STARTS:  # never a player's name: those keep their case
        text = text[0].upper() + text[1:]
    if len(clauses) > 1:
        text += ": " + "; ".join(clauses[1:])
    return text + "."


def moves(log: list[Context], names: Names) -> list[Context]:
    """The log's moves in words, newest first, each with its seq and source."""
    out = []
    for move in log:
        text = move_sentence(
            move["events"],
            names,
            seat=move["seat"],
            source=move["source"],
            stand_in=move.get("stand_in"),
        )
        if text:
            out.append({"seq": move["seq"], "text": text, "source": move["source"]})
    out.reverse()
    return out


def covers_round(log: list[Context], round_number: int) -> bool:
    """True when ``log`` reaches back to the deal of round ``round_number``: it holds
    the whole round, and the page needs no "Show the whole round"."""
    return any(
        event["type"] == "round_start" and event["round"] == round_number
        for move in log
        for event in move["events"]
    )


def ranking(entries: list[Context], names: Names, winner: int | None) -> tuple[list[Context], bool]:
    """The final ranking's rows, and whether any says why it stands where it does.

    The order and ranks are flip's (``flip.engine.ranking``: stayers first, the
    winner first, then by score, then by fewer points left in hand in the last
    round; equals share a rank); this only says, for each player whose points
    equal another's, the points left in their hand (ruling 16: for a player who
    left, the hand they gave up) and that level players share their rank.
    """
    rows = []
    for entry in entries:
        equal = [
            other
            for other in entries
            if other is not entry
            and other["score"] == entry["score"]
            and other["left"] == entry["left"]
        ]
        why = None
        if equal:
            points = _plural(int(entry.get("points_in_hand", 0)), "point")
            if entry["seat"] == winner:
                why = "won the game"
            elif entry["left"]:
                why = f"{points} in the hand given up on leaving"
            else:
                why = f"{points} left in hand"
            if any(other["rank"] == entry["rank"] for other in equal):
                why += ", level: the rank is shared"
        seat = names.by_number.get(entry["seat"]) or {}
        rows.append(
            {
                **entry,
                "name": names(entry["seat"], start=True),
                # The seat's person, whose page the name links to (None: a bot's seat).
                "username": seat.get("username"),
                "why": why,
            }
        )
    return rows, any(row["why"] for row in rows)


def _result_card(card: Any, game: str) -> Context:
    """A card left in a hand at a round's end: a face code, or a face with its points
    (a game whose points depend on the side counted says them with each card)."""
    if isinstance(card, str):
        return face(card, game)
    return {**face(card["face"], game), "points": card["points"]}


def _round_rows(game: Mapping[str, Any], names: Names) -> list[Context]:
    rows = []
    for result in game["rounds"]:
        hands = []
        for hand in result.get("hands", []):
            hands.append(
                {
                    "seat": hand["seat"],
                    "name": names(hand["seat"], start=True),
                    "cards": [_result_card(card, names.game) for card in hand["cards"]],
                    "points": hand["points"],
                }
            )
        per_seat = [
            result["points"] if result["winner"] == number else 0 for number in range(game["seats"])
        ]
        rows.append(
            {
                "round": result["round"],
                "winner": None if result["winner"] is None else names(result["winner"], start=True),
                "points": result["points"],
                "side": result.get("side"),
                "blocked": result["blocked"],
                "interrupted": result["interrupted"],
                "hands": hands,
                "per_seat": per_seat,
            }
        )
    return rows


#: What a struck-out player's cards say: the table's bot plays them now.
STOOD_IN = "A bot plays your seat for the rest of the game: your time ran out three times."


def game(
    view: Mapping[str, Any],
    seats: list[Context],
    log: list[Context],
    *,
    strikes_for_bot: int | None = None,
    whole_round: bool = False,
    game_id: str = DEFAULT_GAME,
) -> Context:
    """The template context of a running or finished game, from a view and the log.

    ``strikes_for_bot``: a real-time table, whose seats show their strikes and
    presence (None turn by turn). ``whole_round``: ``log`` holds the whole
    round (``selectors.table_log(round_of=...)``), else its newest moves.
    ``game_id``: the table's game, whose faces and refusals the view names.

    What a game's view holds and another's does not is read where it is: a
    side (Flip), a waiting penalty, a 7's targets, a card that may jump in
    (the classic game's house rules). The rules decided them all.
    """
    g = view
    viewer = g["seat"]
    names = Names(seats, viewer, game=game_id)
    by_number = {seat["number"]: seat for seat in seats}
    # A player struck out (ruling 17) still holds the seat and sees its hand, but the
    # table's bot makes its moves (games.services refuses theirs): nothing to offer them.
    stood_in = viewer is not None and bool(by_number.get(viewer, {}).get("replaced"))
    legal = [] if stood_in else g["legal_actions"]
    plays = {entry["card"]: entry for entry in legal if entry["type"] == "play"}
    hand = []
    for card in g["hand"]:
        playable = card["playable"] and not stood_in
        entry = {**face(card["face"], game_id), "handle": card["card"], "playable": playable}
        if stood_in:
            entry["refusal"] = STOOD_IN
        elif not playable:
            entry["refusal"] = refusal(card.get("refusal", ""), game_id)
        legal_play = plays.get(card["card"], {})
        colors = legal_play.get("colors")
        entry["colors"] = [color_choice(c, game_id) for c in colors] if colors else []
        # A 7 under the 7-0 rule: the seats it may swap with, by name.
        targets = legal_play.get("targets")
        entry["targets"] = (
            [{"seat": t, "name": names(t, start=True)} for t in targets] if targets else []
        )
        # A card this seat may play out of turn now (jump-in): the view says so.
        entry["jump_in"] = playable and bool(card.get("jump_in") or legal_play.get("jump_in"))
        hand.append(entry)
    players = []
    for player in g["players"]:
        number = player["seat"]
        seat = by_number.get(number)
        players.append(
            {
                "number": number,
                "name": names(number, start=True),
                "username": seat_name(seat, number),
                "is_bot": bool(seat and seat["bot_level"]),
                "bot_level": seat["bot_level"] if seat else None,
                "is_you": number == viewer,
                "count": player["count"],
                "in_game": player["in_game"],
                "faces": faces(player.get("faces", []), game_id),
                "to_act": number == g["to_act"],
                "dealer": number == g["dealer"],
                "score": g["scores"][number],
                "rt": None if strikes_for_bot is None else realtime_seat(seat, strikes_for_bot),
                "autopilot": autopilot(seat, you=number == viewer),
            }
        )
    # One sentence for the whole hand for the reason most refused cards share (as "It is
    # not your turn."), instead of the same words under each card; a card refused for
    # another reason keeps its own words (a jump-in too late, beside cards never identical).
    reasons = Counter(card["refusal"] for card in hand if "refusal" in card)
    ranked = reasons.most_common(2)
    common = (
        ranked[0][0]
        if ranked and (len(ranked) == 1 or ranked[0][1] > max(1, ranked[1][1]))
        else None
    )
    choose = next((entry for entry in legal if entry["type"] == "choose_color"), None)
    types = {entry["type"] for entry in legal}
    side = g.get("side")
    options = g.get("options", {})
    pending = g["pending"]
    top = g["top"]
    my_turn = viewer is not None and g["to_act"] == viewer and not stood_in
    # The card just drawn, when the rules say it must be played now: the page moves
    # the focus to it (the view's pending decision and its one playable card).
    must_play_drawn = my_turn and pending is not None and pending["type"] == "play_drawn"
    for entry in hand:
        entry["autofocus"] = must_play_drawn and entry["playable"]
    hint = turn_hint(
        penalty=g.get("penalty", 0) if "take_penalty" in types else 0,
        my_turn=my_turn,
        playable=[card["name"] for card in hand if card["playable"]],
        can_draw="draw" in types,
        can_pass="pass" in types,
        choosing=choose is not None,
        must_play_drawn=must_play_drawn,
        refusal=common,
    )
    jumping = [card["name"] for card in hand if card["jump_in"]]
    if jumping and not my_turn:
        # The view offers this seat a jump-in: only its own hand says so, never another's.
        hint = (
            f"You may jump in: your {jumping[0]} is identical to the top card. "
            "Play it before the next move to take the turn."
        )
    return {
        "seat": viewer,
        "watcher": viewer is None,
        "round": g["round"],
        "game_id": game_id,
        "side": side,
        "other_side": None if side is None else "dark" if side == "light" else "light",
        "color": None if g["color"] is None else color_choice(g["color"], game_id),
        "direction": g["direction"],
        "to_act": g["to_act"],
        "to_act_name": None if g["to_act"] is None else names(g["to_act"], start=True),
        "my_turn": my_turn,
        "hint": hint,
        # Why the other cards cannot be played, when some can and the rest share a reason.
        "others_hint": common
        if (my_turn or bool(jumping))
        and common
        and any(card["playable"] for card in hand)
        and not must_play_drawn
        else None,
        "pending": pending,
        "pending_name": None if pending is None else names(pending["seat"], start=True),
        # Whom a waiting penalty is for, mid-sentence ("you", or the seat's name).
        "pending_for": None if pending is None else names(pending["seat"]),
        "top": None if top is None else face(top, game_id),
        "discard_pile": faces(g["discard_pile"], game_id),
        "draw_count": g["draw_pile"]["count"],
        "draw_top": None
        if g["draw_pile"].get("top") is None
        else face(g["draw_pile"]["top"], game_id),
        "players": players,
        "hand": hand,
        "common_refusal": common,
        "choose_colors": [color_choice(c, game_id) for c in choose["colors"]] if choose else [],
        "can_draw": "draw" in types,
        "can_pass": "pass" in types,
        # A waiting draw penalty (stacking): its size, and whether this seat may take it.
        "penalty": g.get("penalty", 0),
        "can_take_penalty": "take_penalty" in types,
        # The jump-in window: someone may play an identical card out of turn now.
        "jump_in_open": bool(g.get("jump_in_open")),
        "can_jump_in": any(card["jump_in"] for card in hand),
        "draw_until_playable": bool(options.get("draw_until_playable")),
        "scores": g["scores"],
        "rounds": _round_rows(g, names),
        "over": g["over"],
        "winner": None if g["winner"] is None else names(g["winner"], start=True),
        **_ranking_context(g["ranking"], names, g["winner"]),
        "options": g["options"],
        "moves": moves(log, names),
        "whole_round": whole_round,
        # The newest moves reach back to the round's deal: nothing more to show.
        "round_shown": whole_round or covers_round(log, g["round"]),
    }


#: Under a ranking where some players' points are equal: how the rules order them
#: (the specification's ranking section; ruling 16 for a player who left).
RANKING_NOTE = (
    "Equal points: the player with fewer points left in hand at the end of the last round"
    " ranks higher (for a player who left, the hand they gave up); players still level"
    " share a rank."
)


def _ranking_context(entries: list[Context], names: Names, winner: int | None) -> Context:
    rows, told = ranking(entries, names, winner)
    return {"ranking": rows, "ranking_note": RANKING_NOTE if told else None}


def turn_hint(  # noqa: PLR0911 (one answer per situation)
    *,
    my_turn: bool,
    playable: list[str],
    can_draw: bool,
    can_pass: bool,
    choosing: bool,
    must_play_drawn: bool,
    refusal: str | None,
    penalty: int = 0,
) -> str:
    """The line over the hand that says what the player may do now, from the view's facts.

    ``playable``: the names of the cards the view marks playable; ``refusal``:
    the one reason shared by every card that cannot be played, if they share
    one (said on its own line, ``others_hint``, when some card is playable).

    >>> turn_hint(my_turn=True, playable=[], can_draw=True, can_pass=False,
    ...     choosing=False, must_play_drawn=False, refusal="No card matches.")
    'No card in your hand can be played: draw a card.'
    """
    if not my_turn:
        return refusal or ""
    if choosing:
        return "Choose the colour in play."
    if penalty:
        cards = _plural(penalty, "card")
        if playable:
            return (
                f"{cards} of penalty wait for you: pass them on with a card marked "
                "playable, or take them."
            )
        return f"{cards} of penalty wait for you: take them."
    if playable:
        if must_play_drawn:
            return f"You drew {playable[0]}, which you can play: play it now."
        return "Play a card marked playable" + (", or draw." if can_draw else ".")
    if can_draw:
        return "No card in your hand can be played: draw a card."
    return "Nothing to play and nothing to draw: pass." if can_pass else refusal or ""


def replay_step(
    position: Mapping[str, Any], seats: list[Context], total: int, game_id: str = DEFAULT_GAME
) -> Context:
    """The template context of one replay position (every hand face up)."""
    names = Names(seats, None, open_faces=True, game=game_id)
    by_number = {seat["number"]: seat for seat in seats}
    hands = []
    for number, codes in enumerate(position["hands"]):
        hands.append(
            {
                "number": number,
                "name": seat_name(by_number.get(number), number),
                "cards": faces(codes, game_id),
                "in_game": position["in_game"][number],
                "to_act": number == position["to_act"],
                "dealer": number == position["dealer"],
                "score": position["scores"][number],
            }
        )
    top = position["discard_pile"][-1] if position["discard_pile"] else None
    action = position["action"]
    sentence = ""
    if position["events"]:
        sentence = move_sentence(
            position["events"],
            names,
            seat=None if action is None else action["seat"],
            source="player" if action is None else action["source"],
            stand_in=None if action is None else action.get("stand_in"),
        )
    return {
        "step": position["step"],
        "total": total,
        "round": position["round"],
        "side": position.get("side"),
        "color": None if position["color"] is None else color_choice(position["color"], game_id),
        "direction": position["direction"],
        "hands": hands,
        "top": None if top is None else face(top, game_id),
        "discard_pile": faces(position["discard_pile"], game_id),
        "draw_count": position["draw_pile"]["count"],
        "draw_top": None
        if position["draw_pile"].get("top") is None
        else face(position["draw_pile"]["top"], game_id),
        "sentence": sentence,
        "over": position["over"],
        "rounds": _round_rows(
            {"rounds": position["rounds"], "seats": len(position["hands"])}, names
        ),
        **_ranking_context(position["ranking"], names, position["winner"]),
    }


# ----------------------------------------------------------------------------
# Ratings and reliability (issue 39): the figures as the pages print them.

#: The minus sign, not a hyphen: "−8" reads as a negative number, aloud too.
MINUS = "\u2212"


def signed(change: int) -> str:
    """A rating's change with its sign in text, never in colour alone.

    >>> signed(12), signed(-8), signed(0)
    ('+12', '\u22128', '±0')
    """
    if change > 0:
        return f"+{change}"
    if change < 0:
        return f"{MINUS}{-change}"
    return "±0"


def seat_reliability(seats: list[Context], records: Mapping[int, Any]) -> dict[int, int | None]:
    """Each person's seat's reliability percent by seat number, from
    ``games.selectors.reliability`` (None: no record yet); a bot's seat has none."""
    out: dict[int, int | None] = {}
    for seat in seats:
        record = records.get(seat["user_id"]) if seat.get("user_id") else None
        if record is not None:
            out[seat["number"]] = record.percent
    return out


def with_rating_changes(ranking: list[Context], changes: Mapping[int, Any]) -> list[Context]:
    """The final ranking's rows, each with its seat's new rating and the game's change
    (``ratings.selectors.table_changes``; a seat not rated has none).

    >>> from types import SimpleNamespace as S
    >>> rows = with_rating_changes([{"seat": 0}, {"seat": 1}],
    ...     {0: S(rating=1012, change=12, provisional=True)})
    >>> rows[0]["rating"], rows[1]["rating"]
    ({'rating': 1012, 'label': '1012?', 'change': '+12', 'up': True, 'down': False}, None)
    """
    out = []
    for row in ranking:
        change = changes.get(row["seat"])
        rating = None
        if change is not None:
            rating = {
                "rating": change.rating,
                "label": f"{change.rating}?" if change.provisional else str(change.rating),
                "change": signed(change.change),
                "up": change.change > 0,
                "down": change.change < 0,
            }
        out.append({**row, "rating": rating})
    return out
