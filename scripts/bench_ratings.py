"""The ratings benchmark of issue 39 ("Measured"): 100,000 finished games rated from their logs.

    .venv/bin/python scripts/bench_ratings.py [--database-url URL] [--games 100000]
        [--players 100000] [--sample 1000] [--runs 25] [--seed 39] [--plan FILE]
        [--check] [--profile FILE] [--proposed-write] [--proposed-leaderboard]
        [--keep] [--quick]

What it does, with the production settings (``DEBUG`` off, ``CONN_MAX_AGE=0``,
nothing published: the broker, the channel layer and the cache are in memory):

1. Drops and creates the database of ``--database-url`` (its name must contain
   "bench") and migrates it.
2. Fills it with COPY: ``--players`` users and ``--games`` finished tables of 2
   to 10 seats, each with its log as the service writes it (``fill``): the
   start (its real shuffle, from the game's ruleset), per seat a number of
   moves drawn per game and seat, by the seat's hand (``player``, ``forced``,
   ``timeout``, ``autopilot``, ``bot``; a third real-time strike and a
   moderator's replacement as ``replace_with_bot`` moves, a concession as
   ``leave``, the leave policy's timeout as a ``timeout`` leave), the rounds'
   ends, and a last move carrying the ``game_over`` event with the ranking
   (stayers first, equals sharing a rank: ``tabletop.ranking.shared_ranks``).
   People and bots of the three levels, some unrated tables, some Classic Wild
   Cards with house rules, some real time. Those games were rated live before
   (their ``Result`` rows, their seats' tallies and a ``Rating`` row per
   player and ladder exist); ``--sample`` more, finished last, are not yet.
   The fill is timed but is not one of the figures.
3. Measures, and checks the counts each step reports:

   a. ``ratings.rebuild.rebuild(write=True)`` over every rated game: the total,
      seconds per game, and the ``Report``'s split into reading the logs,
      rating, and writing; the SQL time by statement kind. ``--profile FILE``
      runs it once more under cProfile and prints where the time went;
      ``--proposed-write`` once more (the write this benchmark proposed, one
      ``UPDATE ... FROM unnest`` per 20,000 rows instead of ``bulk_update``,
      is now the rebuild's own on PostgreSQL: the two runs do the same work).
   b. the live path, ``ratings.services.table_rate``, on each of the sample's
      games in the order they ended: min / median / max milliseconds a game.
      ``--check`` then runs ``rebuild(write=False)``: the live ratings and the
      rebuilt ones (and so the proposed write's, when it ran) must not differ.
   c. ``ratings.selectors.leaderboard`` on a ladder of its own (game
      ``bench``) filled directly with one ``Rating`` per player (``--players``
      rows: mu, sigma and games as the model makes them after that many games,
      a last game within the last year, most within the leaderboard's 30
      days): page 1, page 200 (places 9,951 to 10,000) and the last page, and
      page 1 of the largest ladder the rebuild made, alternated ``--runs``
      times: min / median / max milliseconds of the call (the query and its
      50 entries). The plan of each (``EXPLAIN (ANALYZE, BUFFERS)`` of the very
      SQL the call ran) goes to ``--plan``; page 1's is printed.
      ``--proposed-leaderboard`` runs the same cases again (the index and the
      query this benchmark proposed are now the model's and the selector's own).

The commit, the machine, PostgreSQL's version and the load average at the
start and at the end are printed. The database is dropped at the end unless
``--keep``. ``--quick``: 2,000 games, 2,000 players, a sample of 100.
"""

from __future__ import annotations

import argparse
import cProfile
import io
import json
import math
import os
import platform
import pstats
import random
import re
import statistics
import subprocess
import sys
import time
from collections import Counter, defaultdict
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit, urlunsplit

ROOT = Path(__file__).resolve().parent.parent
DEFAULT_DATABASE = "postgres://postgres@127.0.0.1:5432/gamenook_bench_ratings"
DEFAULT_PLAN = "build/bench-ratings-leaderboard-plan.txt"
#: The ladder ``fill_ladder`` fills directly (no game is rated there): (game, mode, rules).
BENCH_LADDER = ("bench", "correspondence", "standard")
#: The leaderboard's page size (``ratings.selectors.leaderboard``'s default).
PAGE_SIZE = 50
#: The deep page measured: places 9,951 to 10,000.
DEEP_PAGE = 200

# ----------------------------------------------------------------------------
# The games: a plan per finished game, drawn from one seeded generator. No Django.

#: One character per move of a seat's log, in order (``Move.source``, ``Move.action``):
#: the seat's hands, and the moves that are not plays or draws.
SOURCE_OF = {
    "p": "player",
    "f": "forced",
    "t": "timeout",
    "a": "autopilot",
    "b": "bot",
    "L": "leave",  # a concession: action leave
    "T": "timeout",  # the leave policy's timeout: action leave
    "S": "timeout",  # a third real-time strike: action replace_with_bot
    "A": "admin",  # a moderator's replacement: action replace_with_bot
}
PLAYS = frozenset("pftab")
#: Seats in a game, and how often (most tables are small).
SEAT_WEIGHTS = {2: 26, 3: 20, 4: 22, 5: 10, 6: 8, 7: 5, 8: 4, 9: 3, 10: 2}
BOT_LEVELS = ("easy", "normal", "hard")
#: The house rules of Classic Wild Cards (``wildcards.ruleset.OPTIONS``).
HOUSE_RULES = ("stacking", "seven_zero", "jump_in", "draw_until_playable")
FLIP_OPTIONS = {"scoring": "single", "target": 500, "two_seat_reverse_skips": True}
WILDCARDS_OPTIONS = {
    "scoring": "single",
    "target": 500,
    "stacking": False,
    "seven_zero": False,
    "jump_in": False,
    "draw_until_playable": False,
}


@dataclass(slots=True)
class SeatPlan:
    number: int
    #: The person's index among the players: its player, or the one a moderator
    #: replaced by a bot. None at a bot's own seat.
    person: int | None
    #: A bot's own seat's level, or the level a moderator gave the seat.
    bot_level: str
    replaced: bool = False
    struck_out: bool = False
    forced_moves: bool = False
    #: The seat's moves in order, one character each (``SOURCE_OF``).
    moves: str = ""

    @property
    def left(self) -> bool:
        return self.moves[-1:] in ("L", "T")

    @property
    def bots_own(self) -> bool:
        return self.person is None

    def tally(self) -> tuple[int, int, int]:
        """(turns, timeouts, stand-in turns) as ``games.selectors.turn_tallies`` counts them."""
        counts = Counter(self.moves)
        # A bot taking the seat for good (a strike's or a moderator's) is no turn.
        turns = len(self.moves) - counts["L"] - counts["A"] - counts["S"]
        timeouts = counts["t"] + counts["T"]
        stand_in = 0 if self.bots_own else counts["b"] + counts["a"]
        return turns, timeouts, stand_in


@dataclass(slots=True)
class GamePlan:
    index: int
    game: str
    move_seconds: int | None
    options: dict[str, Any]
    house_rules: bool
    rated: bool
    timeout_policy: str
    turn_hours: int
    rounds: int
    seats: list[SeatPlan]
    #: The ``game_over`` event's ranking, best first.
    ranking: list[dict[str, Any]]
    winner: int
    finished_at: datetime
    started_at: datetime

    @property
    def ladder(self) -> tuple[str, str, str]:
        mode = "correspondence" if self.move_seconds is None else "realtime"
        return (self.game, mode, "house" if self.house_rules else "standard")

    def ranks(self) -> dict[int, int]:
        return {entry["seat"]: entry["rank"] for entry in self.ranking}

    def subjects(self) -> set[tuple[int | None, str]]:
        """Who is rated here: (person, "") or (None, bot level) (``services.game_inputs``)."""
        return {
            (seat.person, "") if seat.person is not None else (None, seat.bot_level)
            for seat in self.seats
        }


def _spread(rng: random.Random, count: int, share: float) -> set[int]:
    """About ``share`` of the positions ``0 .. count - 1``, drawn."""
    return {i for i in range(count) if rng.random() < share}


def _person_moves(rng: random.Random, count: int, realtime: bool, seat: SeatPlan) -> str:
    """A person's seat's hands, move by move: mostly theirs, some timeouts, and (turn by
    turn) some autopilot and forced moves; (real time) a hold that ran out, or three
    strikes and a bot for the rest of the game."""
    moves = ["p"] * count
    if rng.random() < 0.3:
        for i in _spread(rng, count, rng.uniform(0.02, 0.2 if realtime else 0.3)):
            moves[i] = "t"
    if realtime:
        if rng.random() < 0.04 and count > 4:  # the hold ran out: a bot played a while
            start = rng.randrange(1, count - 2)
            for i in range(start, min(count, start + rng.randint(1, 6))):
                moves[i] = "b"
        if rng.random() < 0.03 and count > 6:  # three strikes, then a bot to the end
            at = rng.randrange(3, count - 2)
            head = [m if m != "t" else "p" for m in moves[:at]]
            for i in rng.sample(range(at), 2):
                head[i] = "t"
            moves = [*head, "t", "S", *["b"] * (count - at - 1)]
            seat.struck_out = True
    else:
        if rng.random() < 0.2:
            seat.forced_moves = True
            for i in _spread(rng, count, rng.uniform(0.05, 0.25)):
                if moves[i] == "p":
                    moves[i] = "f"
        if rng.random() < 0.05 and count > 3:  # away: the autopilot played a stretch
            start = rng.randrange(count // 3 + 1)
            for i in range(start, start + max(1, round(count * rng.uniform(0.2, 0.6)))):
                if i < count:
                    moves[i] = "a"
    if rng.random() < 0.002 and count > 4:  # a moderator gave the seat to a bot
        at = rng.randrange(1, count - 2)
        moves = [*moves[:at], "A", *["b"] * (count - at)]
        seat.replaced = True
        seat.bot_level = rng.choice(BOT_LEVELS)
        seat.struck_out = False
    return "".join(moves)


def plan_game(rng: random.Random, index: int, players: int, finished_at: datetime) -> GamePlan:
    """One finished game: its table, its seats and who sat there, each seat's moves, the ranking."""
    seat_count = rng.choices(list(SEAT_WEIGHTS), weights=list(SEAT_WEIGHTS.values()))[0]
    game = "flip" if rng.random() < 0.6 else "wildcards"
    move_seconds = rng.choice((15, 30, 45)) if rng.random() < 0.25 else None
    options = dict(FLIP_OPTIONS if game == "flip" else WILDCARDS_OPTIONS)
    house = game == "wildcards" and rng.random() < 0.35
    if house:
        for name in rng.sample(HOUSE_RULES, rng.randint(1, 2)):
            options[name] = True
    target = rng.random() < 0.15
    if target:
        options["scoring"] = "target"
    rounds = rng.randint(2, 6) if target else 1
    # The host in seat 0; the other seats people or bots. Some people play a lot: the
    # first players are drawn far more often than the last.
    people: set[int] = set()
    seats: list[SeatPlan] = []
    for number in range(seat_count):
        if number and rng.random() < 0.25:
            seats.append(SeatPlan(number, None, rng.choice(BOT_LEVELS)))
            continue
        person = int(players * rng.random() ** 2.2)
        while person in people:
            person = rng.randrange(players)
        people.add(person)
        seats.append(SeatPlan(number, person, ""))
    realtime = move_seconds is not None
    per_seat = rng.lognormvariate(math.log(18 if game == "flip" else 10), 0.5) * rounds
    for seat in seats:
        count = max(2, round(per_seat * rng.uniform(0.85, 1.15)))
        seat.moves = (
            "b" * count if seat.person is None else _person_moves(rng, count, realtime, seat)
        )
    # A few people leave before the end: they concede, or (the leave policy) their deadline
    # passes; a moderator's replacement or a struck-out player stays in the ranking.
    policy = "leave" if not realtime and rng.random() < 0.15 else "bot"
    stayers = [seat for seat in seats if seat.person is not None and not seat.replaced]
    for seat in stayers:
        if rng.random() < 0.04 and len(seat.moves) > 3 and not seat.struck_out:
            cut = rng.randrange(1, len(seat.moves) - 1)
            seat.moves = seat.moves[:cut] + ("T" if policy == "leave" else "L")
    staying = [seat for seat in seats if not seat.left]
    if not staying:  # everyone left: the host stayed after all
        seats[0].moves = seats[0].moves[:-1] + "p"
        staying = [seats[0]]
    winner = rng.choice(staying)
    if winner.moves[-1] not in PLAYS:
        winner.moves += "p"
    ranking = _ranking(rng, seats, winner.number, target)
    hours_a_move = rng.uniform(0.5, 8.0) if not realtime else rng.uniform(0.002, 0.006)
    moves = sum(len(seat.moves) for seat in seats)
    return GamePlan(
        index=index,
        game=game,
        move_seconds=move_seconds,
        options=options,
        house_rules=house,
        rated=rng.random() < 0.85,
        timeout_policy=policy,
        turn_hours=rng.choice((12, 24, 24, 24, 72)),
        rounds=rounds,
        seats=seats,
        ranking=ranking,
        winner=winner.number,
        finished_at=finished_at,
        started_at=finished_at - timedelta(hours=hours_a_move * moves),
    )


def _ranking(
    rng: random.Random, seats: list[SeatPlan], winner: int, target: bool
) -> list[dict[str, Any]]:
    """The ``game_over`` ranking as the engines make it (``flip.engine.ranking``): stayers
    before leavers, the winner first, then by score and fewer points in hand; equals share."""
    from tabletop.ranking import shared_ranks

    keyed = []
    for seat in seats:
        score = rng.randrange(0, 400, 10) if target else 0
        if seat.number == winner:
            score = rng.randrange(500, 900, 10) if target else rng.randrange(40, 400)
        points = 0 if seat.number == winner else rng.randint(1, 40)
        key = (1 if seat.left else 0, 0 if seat.number == winner else 1, -score, points)
        keyed.append((key, seat.number))
    keyed.sort()
    ranked = dict(shared_ranks(keyed))
    return [
        {
            "left": bool(key[0]),
            "rank": ranked[number],
            "seat": number,
            "score": -key[2],
            "points_in_hand": key[3],
        }
        for key, number in keyed
    ]


def plan_games(
    *, games: int, players: int, seed: int, now: datetime, days: float = 180.0
) -> Iterator[GamePlan]:
    """``games`` finished games, the last ended ``now``, the first ``days`` before, evenly."""
    rng = random.Random(seed)
    step = timedelta(days=days) / max(1, games)
    first = now - step * games
    for index in range(games):
        yield plan_game(rng, index, players, first + step * (index + 1))


def interleave(plan: GamePlan) -> list[tuple[int, str]]:
    """The game's moves in order, (seat, code): the seats in turn, each until its moves run
    out (a leaver stops at its leave), the winner's last move ending the game."""
    left = {seat.number: list(seat.moves) for seat in plan.seats}
    last = left[plan.winner].pop()
    out: list[tuple[int, str]] = []
    while any(left.values()):
        for seat in plan.seats:
            pending = left[seat.number]
            if pending:
                out.append((seat.number, pending.pop(0)))
    out.append((plan.winner, last))
    return out


# ----------------------------------------------------------------------------
# The fill: COPY into a migrated database, through Django's connection.


@dataclass
class Filled:
    """What ``fill`` wrote, counted as it wrote it."""

    users: int = 0
    tables: int = 0
    seats: int = 0
    moves: int = 0
    results: int = 0
    ratings: int = 0
    #: The games rated before (with results), and the sample's tables (without).
    rated_tables: list[int] = field(default_factory=list)
    sample_tables: list[int] = field(default_factory=list)
    user_ids: list[int] = field(default_factory=list)
    #: The plans of every game, by table id (kept only when asked: ``keep_plans``).
    plans: dict[int, GamePlan] = field(default_factory=dict)
    #: The mix, for the report: seats per table, moves by source, and so on.
    mix: Counter[str] = field(default_factory=Counter)
    seconds: float = 0.0


def _text(value: Any) -> str:
    """One value in COPY's text format."""
    if value is None:
        return "\\N"
    if value is True:
        return "t"
    if value is False:
        return "f"
    if isinstance(value, datetime):
        return value.isoformat()
    return str(value).replace("\\", "\\\\").replace("\t", "\\t").replace("\n", "\\n")


class _Copy:
    """Rows for one COPY, sent in chunks of about a megabyte."""

    def __init__(self, copy: Any) -> None:
        self.copy = copy
        self.lines: list[str] = []
        self.size = 0

    def row(self, *values: Any) -> None:
        line = "\t".join(map(_text, values)) + "\n"
        self.lines.append(line)
        self.size += len(line)
        if self.size > 1 << 20:
            self.flush()

    def line(self, line: str) -> None:
        self.lines.append(line)
        self.size += len(line)
        if self.size > 1 << 20:
            self.flush()

    def flush(self) -> None:
        if self.lines:
            self.copy.write("".join(self.lines))
        self.lines, self.size = [], 0


@contextmanager
def _copy(cursor: Any, sql: str) -> Iterator[_Copy]:
    with cursor.copy(sql) as copy:
        rows = _Copy(copy)
        yield rows
        rows.flush()


def _ids(cursor: Any, table: str, count: int) -> list[int]:
    """``count`` ids from ``table``'s own sequence (safe in any database, the tests' too)."""
    cursor.execute(
        "SELECT nextval(pg_get_serial_sequence(%s, 'id')) FROM generate_series(1, %s)",
        [table, count],
    )
    return [row[0] for row in cursor.fetchall()]


_START_CACHE: dict[tuple[str, int, bool], tuple[str, str]] = {}


def _start(plan: GamePlan) -> tuple[str, str]:
    """(the start move's payload in COPY's text, the snapshot as JSON) of a real new game of
    the plan's game, seats and options, from its ruleset: the start's shuffle is a real one."""
    key = (plan.game, len(plan.seats), plan.house_rules)
    if key not in _START_CACHE:
        from games import rulesets

        rules = rulesets.ruleset(plan.game)
        options = rules.make_options(len(plan.seats), plan.options)
        state, events = rules.new_game(options, f"bench-ratings-{plan.game}-{len(plan.seats)}")
        payload = {"action": {"type": "start"}, "game": plan.game, "version": 1, "events": events}
        _START_CACHE[key] = (_text(json.dumps(payload)), json.dumps(state.to_dict()))
    return _START_CACHE[key]


def _move_payload(seat: int, code: str, position: int, level: str, user: int | None) -> str:
    """A move's payload as the engines write it (card numbers and the events it caused)."""
    card = (position * 37 + seat * 11) % 108
    payload: dict[str, Any]
    if code in "LT":
        count = 1 + position % 12
        payload = {
            "action": {"type": "leave"},
            "events": [{"seat": seat, "type": "leave", "count": count}],
        }
    elif code in "SA":
        payload = {
            "action": {"type": "replace_with_bot", "level": level, "user": user},
            "events": [{"type": "replaced_by_bot", "seat": seat, "level": level}],
        }
    elif position % 3 == 2:
        payload = {
            "action": {"type": "draw"},
            "events": [{"seat": seat, "type": "draw", "cards": [card], "reason": "draw"}],
        }
    else:
        payload = {
            "action": {"card": card, "type": "play"},
            "events": [{"card": card, "seat": seat, "type": "play"}],
        }
    return json.dumps(payload)


def _round_end(plan: GamePlan, seat: int, round_number: int) -> list[dict[str, Any]]:
    hands = [
        {"seat": s.number, "cards": [], "points": 0 if s.number == seat else 7 * s.number + 3}
        for s in plan.seats
        if not s.left
    ]
    return [
        {"card": 5, "seat": seat, "type": "play"},
        {
            "type": "round_end",
            "result": {
                "hands": hands,
                "round": round_number,
                "points": sum(h["points"] for h in hands),
                "winner": seat,
                "blocked": False,
                "interrupted": False,
            },
        },
    ]


def _action(code: str, position: int) -> str:
    if code in "LT":
        return "leave"
    if code in "SA":
        return "replace_with_bot"
    return "draw" if position % 3 == 2 else "play"


def _write_moves(
    rows: _Copy, table_id: int, plan: GamePlan, user_ids: Sequence[int], mix: Counter[str]
) -> int:
    """The game's log: the start, every seat's moves in turn, the rounds' ends, and the last
    move with ``game_over`` (``games.selectors._final_rankings`` reads it there)."""
    start_payload, _ = _start(plan)
    order = interleave(plan)
    seats = {seat.number: seat for seat in plan.seats}
    total = len(order) + 1
    span = (plan.finished_at - plan.started_at) / total
    per_round = max(1, math.ceil(len(order) / plan.rounds))
    rows.line(
        f"{table_id}\t1\t1\t\\N\tstart\t{start_payload}\tplayer\t{plan.started_at.isoformat()}\n"
    )
    for position, (number, code) in enumerate(order):
        round_number = min(plan.rounds, position // per_round + 1)
        last = position == len(order) - 1
        if last or ((position + 1) % per_round == 0 and code in PLAYS):
            events = _round_end(plan, number, round_number)
            if last:
                events.append({"type": "game_over", "winner": number, "ranking": plan.ranking})
            action = "play"
            payload = json.dumps({"action": {"card": 5, "type": "play"}, "events": events})
        else:
            seat = seats[number]
            user = None if seat.person is None else user_ids[seat.person]
            action = _action(code, position)
            payload = _move_payload(number, code, position, seat.bot_level or "normal", user)
        source = SOURCE_OF[code]
        mix[f"moves {source}"] += 1
        created = plan.started_at + span * (position + 1)
        rows.line(
            f"{table_id}\t{position + 2}\t{round_number}\t{number}\t{action}\t{_text(payload)}\t"
            f"{source}\t{created.isoformat()}\n"
        )
    return total


def fill(
    *,
    games: int,
    players: int,
    sample: int,
    seed: int = 39,
    now: datetime | None = None,
    keep_plans: bool = False,
    progress: Callable[[str], None] | None = None,
) -> Filled:
    """Users, finished tables with their logs, and (for all but the sample's) the results,
    seat tallies and rating rows the live path wrote when each game ended.

    The ratings' values are a newcomer's: the measured rebuild writes the real ones,
    as a rebuild after a change to the model would.
    """
    from django.db import connection

    from ratings import model

    started = time.perf_counter()
    now = now or datetime.now(UTC)
    out = Filled()
    connection.ensure_connection()
    raw = connection.connection
    assert raw is not None
    stand_in_weight = 0.25  # written again by the rebuild, from the setting
    with raw.cursor() as cursor:
        user_ids = _ids(cursor, "auth_user", players)
        out.user_ids = user_ids
        with _copy(
            cursor,
            "COPY auth_user (id, password, last_login, is_superuser, username, first_name,"
            " last_name, email, is_staff, is_active, date_joined) FROM STDIN",
        ) as rows:
            for index, user_id in enumerate(user_ids):
                name = f"rated{user_id}"
                joined = now - timedelta(days=400, seconds=index)
                email = f"{name}@example.com"
                rows.row(user_id, "!", None, False, name, "", "", email, False, True, joined)
        out.users = players
        total = games + sample
        table_ids = _ids(cursor, "games_table", total)
        plans = list(plan_games(games=total, players=players, seed=seed, now=now))
        if progress:
            progress(f"planned {total:,} games in {time.perf_counter() - started:.1f} s")
        with _copy(
            cursor,
            "COPY games_table (id, created_at, updated_at, status, seat_count, turn_hours,"
            " timeout_policy, allow_watchers, state, seq, turn, started_at, finished_at,"
            " host_id, bot_errors, move_seconds, presence_version, game, game_version, options,"
            " autopilot, min_reliability, rated, bot_accounts) FROM STDIN",
        ) as rows:
            for table_id, plan in zip(table_ids, plans, strict=True):
                _, snapshot = _start(plan)
                moves = sum(len(seat.moves) for seat in plan.seats) + 1
                host = plan.seats[0].person
                assert host is not None
                rows.row(
                    table_id,
                    plan.started_at - timedelta(minutes=10),
                    plan.finished_at,
                    "finished",
                    len(plan.seats),
                    plan.turn_hours,
                    plan.timeout_policy,
                    False,
                    snapshot,
                    moves,
                    moves,
                    plan.started_at,
                    plan.finished_at,
                    user_ids[host],
                    0,
                    plan.move_seconds,
                    0,
                    plan.game,
                    1,
                    json.dumps(plan.options),
                    True,
                    0,
                    plan.rated,
                    "invited",
                )
                out.mix[f"seats {len(plan.seats)}"] += 1
                out.mix["rated" if plan.rated else "unrated"] += 1
                out.mix["real time" if plan.move_seconds else "turn by turn"] += 1
                out.mix["house rules" if plan.house_rules else "standard rules"] += 1
                out.mix[plan.game] += 1
                places = [entry["rank"] for entry in plan.ranking]
                if len(set(places)) < len(places):
                    out.mix["games with a shared rank"] += 1
        out.tables = total
        if progress:
            progress(f"tables written at {time.perf_counter() - started:.1f} s")
        with _copy(
            cursor,
            "COPY games_seat (table_id, number, user_id, bot_level, previous_user_id, joined_at,"
            " left_at, away, strikes, struck_out, autopilot, forced_moves, player_away, turns,"
            " timeouts, stand_in_turns) FROM STDIN",
        ) as rows:
            for position, (table_id, plan) in enumerate(zip(table_ids, plans, strict=True)):
                tallied = position < games
                for seat in plan.seats:
                    person = None if seat.person is None else user_ids[seat.person]
                    turns, timeouts, stand_in = seat.tally() if tallied else (0, 0, 0)
                    rows.row(
                        table_id,
                        seat.number,
                        None if seat.replaced else person,
                        seat.bot_level,
                        person if seat.replaced else None,
                        plan.started_at - timedelta(minutes=5),
                        plan.finished_at - timedelta(minutes=1) if seat.left else None,
                        False,
                        3 if seat.struck_out else 0,
                        seat.struck_out,
                        "",
                        seat.forced_moves,
                        False,
                        turns,
                        timeouts,
                        stand_in,
                    )
                    out.seats += 1
                    kind = "seats of bots" if seat.person is None else "seats of people"
                    out.mix[kind] += 1
                    if seat.left:
                        out.mix["seats left"] += 1
                    if seat.replaced:
                        out.mix["seats a moderator gave a bot"] += 1
                    if seat.struck_out:
                        out.mix["seats struck out"] += 1
        if progress:
            progress(f"seats written at {time.perf_counter() - started:.1f} s")
        with _copy(
            cursor,
            "COPY games_move (table_id, seq, round, seat, action, payload, source, created_at)"
            " FROM STDIN",
        ) as rows:
            for count, (table_id, plan) in enumerate(zip(table_ids, plans, strict=True)):
                out.moves += _write_moves(rows, table_id, plan, user_ids, out.mix)
                if progress and count and count % 20000 == 0:
                    progress(
                        f"  {count:,} logs, {out.moves:,} moves at "
                        f"{time.perf_counter() - started:.1f} s"
                    )
        if progress:
            progress(f"{out.moves:,} moves written at {time.perf_counter() - started:.1f} s")
        # What each game's follow-up wrote when it ended (``services.table_rate``): a result
        # per seat, in the order the games ended, and a rating per player and ladder.
        subjects: set[tuple[str, str, str, int | None, str]] = set()
        with _copy(
            cursor,
            "COPY ratings_result (table_id, seat, user_id, bot_level, game, mode, rules, seats,"
            ' rank, "left", weight, rated, mu_before, sigma_before, mu_after, sigma_after,'
            " finished_at, created_at) FROM STDIN",
        ) as rows:
            for table_id, plan in zip(table_ids[:games], plans[:games], strict=True):
                ranks = plan.ranks()
                game, mode, rules = plan.ladder
                newcomer = (model.MU, model.SIGMA) if plan.rated else (None, None)
                for seat in plan.seats:
                    person = None if seat.person is None else user_ids[seat.person]
                    level = "" if person is not None else seat.bot_level
                    turns, _, stand_in = seat.tally()
                    rows.row(
                        table_id,
                        seat.number,
                        person,
                        level,
                        game,
                        mode,
                        rules,
                        len(plan.seats),
                        ranks[seat.number],
                        seat.left,
                        model.weight(turns, stand_in, stand_in_weight),
                        plan.rated,
                        *newcomer,
                        *newcomer,
                        plan.finished_at,
                        plan.finished_at + timedelta(seconds=2),
                    )
                    out.results += 1
                    if plan.rated:
                        subjects.add((game, mode, rules, person, level))
        with _copy(
            cursor,
            "COPY ratings_rating (game, mode, rules, user_id, bot_level, mu, sigma, ordinal,"
            " games, last_game_at, updated_at) FROM STDIN",
        ) as rows:
            for game, mode, rules, person, level in sorted(subjects, key=repr):
                rows.row(
                    game,
                    mode,
                    rules,
                    person,
                    level,
                    model.MU,
                    model.SIGMA,
                    model.ordinal(model.MU, model.SIGMA),
                    0,
                    None,
                    now,
                )
        out.ratings = len(subjects)
        cursor.execute("ANALYZE")
    out.rated_tables = table_ids[:games]
    out.sample_tables = table_ids[games:]
    if keep_plans:
        out.plans = dict(zip(table_ids, plans, strict=True))
    out.seconds = time.perf_counter() - started
    return out


# ----------------------------------------------------------------------------
# The leaderboard's own ladder: a rating per player, as the model leaves them.


def sigma_after_games(limit: int = 400) -> list[float]:
    """A player's sigma after 0 .. ``limit`` four-seat games against settled players, by the
    model itself (``ratings.model.rate``): how fast the uncertainty falls."""
    from ratings import model

    rng = random.Random(0)
    mu, sigma, out = model.MU, model.SIGMA, [model.SIGMA]
    for _ in range(limit):
        ranks = [1, 2, 3, 4]
        rng.shuffle(ranks)
        entries = [model.Entry(mu, sigma, ranks[0], 1.0)] + [
            model.Entry(25.0, 3.0, rank, 1.0) for rank in ranks[1:]
        ]
        mu, sigma = model.rate(entries)[0]
        mu = model.MU + (mu - model.MU) * 0.5  # the player's own level, not a drift
        out.append(sigma)
    return out


@dataclass
class LadderFill:
    rows: int
    #: The rows the leaderboard lists (enough games, a recent one, not provisional).
    listed: int


def fill_ladder(
    ladder: tuple[str, str, str],
    user_ids: Sequence[int],
    *,
    seed: int = 39,
    now: datetime | None = None,
) -> LadderFill:
    """One rating per user on ``ladder``, spread as a real ladder's: games drawn log-normal
    (median 30, a few under ten), sigma as the model leaves it after that many games, mu
    around the newcomer's, the last game within a year and mostly within 30 days."""
    from django.db import connection

    from ratings import conf, model

    now = now or datetime.now(UTC)
    rng = random.Random(f"ladder:{seed}")
    sigmas = sigma_after_games()
    game, mode, rules = ladder
    active = timedelta(days=conf.leaderboard_active_days())
    listed = 0
    connection.ensure_connection()
    raw = connection.connection
    assert raw is not None
    with (
        raw.cursor() as cursor,
        _copy(
            cursor,
            "COPY ratings_rating (game, mode, rules, user_id, bot_level, mu, sigma, ordinal,"
            " games, last_game_at, updated_at) FROM STDIN",
        ) as rows,
    ):
        for user_id in user_ids:
            games = max(1, round(rng.lognormvariate(math.log(30), 1.0)))
            sigma = sigmas[min(games, len(sigmas) - 1)] * rng.uniform(0.95, 1.05)
            mu = rng.gauss(model.MU, 4.0)
            if rng.random() < 0.9:
                last = now - timedelta(seconds=rng.uniform(0, active.total_seconds() * 0.98))
            else:
                last = now - active - timedelta(days=rng.uniform(1, 335))
            rows.row(
                game,
                mode,
                rules,
                user_id,
                "",
                mu,
                sigma,
                model.ordinal(mu, sigma),
                games,
                last,
                now,
            )
            listed += (
                games >= conf.leaderboard_min_games()
                and last >= now - active
                and sigma <= conf.provisional_sigma()
            )
        rows.flush()
    return LadderFill(rows=len(user_ids), listed=listed)


# ----------------------------------------------------------------------------
# The measurements


#: Statements run while a measurement is on, and the seconds they took, by kind.
_sql_count: Counter[str] = Counter()
_sql_seconds: dict[str, float] = defaultdict(float)


_TABLE = re.compile(r'(?:FROM|UPDATE|INTO)\s+"?(\w+)"?', re.IGNORECASE)


def _kind(sql: str) -> str:
    """A statement's verb and first table: "SELECT games_move"."""
    verb = sql.split(None, 1)[0].upper() if sql.strip() else "?"
    table = _TABLE.search(sql)
    return f"{verb} {table.group(1) if table else ''}".strip()


def _timed(execute: Callable[..., Any], sql: str, params: Any, many: bool, context: Any) -> Any:
    began = time.perf_counter()
    try:
        return execute(sql, params, many, context)
    finally:
        kind = _kind(sql)
        _sql_count[kind] += 1
        _sql_seconds[kind] += time.perf_counter() - began


@contextmanager
def sql_timed() -> Iterator[tuple[Counter[str], dict[str, float]]]:
    """The statements run inside the block, and their seconds, by kind ("SELECT games_move")."""
    from django.db import connection

    _sql_count.clear()
    _sql_seconds.clear()
    with connection.execute_wrapper(_timed):
        yield _sql_count, _sql_seconds


@dataclass
class Rebuilt:
    report: Any  # ratings.rebuild.Report
    seconds: float
    sql_count: Counter[str]
    sql_seconds: dict[str, float]


def measure_rebuild(*, batch: int = 500) -> Rebuilt:
    """``rebuild(write=True)`` over every rated game, timed, its statements counted."""
    from ratings.rebuild import rebuild

    with sql_timed() as (count, seconds):
        began = time.perf_counter()
        report = rebuild(write=True, batch=batch)
        took = time.perf_counter() - began
    return Rebuilt(report, took, Counter(count), dict(seconds))


def unnest_write(standings: dict[Any, Any], games: list[Any]) -> None:
    """This benchmark's proposal for the rebuild's write, one ``UPDATE ... FROM unnest`` per
    20,000 rows instead of ``bulk_update``: it landed as ``ratings.rebuild._write`` itself
    (its PostgreSQL path), so ``--proposed-write`` now runs the same write once more."""
    from ratings import rebuild

    rebuild._write(standings, games)  # noqa: SLF001 (the rebuild's own write, measured alone)


def measure_proposed_rebuild(*, batch: int = 500) -> Rebuilt:
    """``rebuild(write=True)`` once more: the write this benchmark proposed is the rebuild's
    own now (``unnest_write``)."""
    return measure_rebuild(batch=batch)


def profile_rebuild(path: str, *, batch: int = 500, top: int = 30) -> str:
    """``rebuild(write=True)`` once more under cProfile: the profile to ``path``, the top
    functions by their own time and by cumulative time as text."""
    from ratings.rebuild import rebuild

    profiler = cProfile.Profile()
    profiler.enable()
    rebuild(write=True, batch=batch)
    profiler.disable()
    profiler.dump_stats(path)
    text = io.StringIO()
    stats = pstats.Stats(profiler, stream=text)
    stats.sort_stats("tottime").print_stats(top)
    stats.sort_stats("cumulative").print_stats(top)
    return text.getvalue()


@dataclass
class Live:
    seconds: list[float]
    results: int
    sql_count: Counter[str]
    sql_seconds: dict[str, float]


def measure_live(table_ids: Sequence[int]) -> Live:
    """``table_rate`` on each table in turn, as each game's follow-up runs it: seconds a game."""
    from ratings.services import table_rate

    times, results = [], 0
    with sql_timed() as (count, seconds):
        for table_id in table_ids:
            began = time.perf_counter()
            done = table_rate(table_id=table_id)
            times.append(time.perf_counter() - began)
            results += len(done)
    return Live(times, results, Counter(count), dict(seconds))


def listed(ladder: tuple[str, str, str]) -> int:
    """How many players ``ladder``'s leaderboard lists (its filter, counted)."""
    from django.utils import timezone

    from ratings import conf
    from ratings.models import Rating

    game, mode, rules = ladder
    return Rating.objects.filter(
        game=game,
        mode=mode,
        rules=rules,
        user__isnull=False,
        games__gte=conf.leaderboard_min_games(),
        last_game_at__gte=timezone.now() - timedelta(days=conf.leaderboard_active_days()),
        sigma__lte=conf.provisional_sigma(),
    ).count()


def leaderboard_runs(
    cases: Sequence[tuple[str, tuple[str, str, str], int]], runs: int
) -> tuple[dict[str, list[float]], dict[str, int]]:
    """Each case (name, ladder, page) called ``runs`` times, the cases alternated: the
    seconds of each call, and the entries its page had."""
    from ratings.selectors import leaderboard

    times: dict[str, list[float]] = {name: [] for name, _, _ in cases}
    entries: dict[str, int] = {}
    for name, ladder, page in cases:  # one call each first: the caches as a served page finds them
        entries[name] = len(leaderboard(ladder, page=page)[0])
    for _ in range(runs):
        for name, ladder, page in cases:
            began = time.perf_counter()
            found, _ = leaderboard(ladder, page=page)
            times[name].append(time.perf_counter() - began)
            entries[name] = len(found)
    return times, entries


def leaderboard_plan(ladder: tuple[str, str, str], page: int) -> str:
    """``EXPLAIN (ANALYZE, BUFFERS)`` of the SQL ``leaderboard(ladder, page=page)`` ran."""
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    from ratings.selectors import leaderboard

    with CaptureQueriesContext(connection) as captured:
        leaderboard(ladder, page=page)
    (query,) = [q["sql"] for q in captured.captured_queries if "ratings_rating" in q["sql"]]
    with connection.cursor() as cursor:
        cursor.execute("EXPLAIN (ANALYZE, BUFFERS) " + query)
        plan = "\n".join(row[0] for row in cursor.fetchall())
    return f"{query}\n\n{plan}"


#: The index this benchmark proposed for ``rating_leaderboard`` (the ladder's order complete,
#: the filter's columns carried along) landed as the model's own index: nothing to make.
PROPOSED_INDEX = "SELECT 1"


def proposed_leaderboard(
    ladder: tuple[str, str, str], *, page: int = 1, size: int = PAGE_SIZE, now: Any = None
) -> tuple[list[Any], bool]:
    """The query this benchmark proposed (the page among the ratings alone, then its users)
    landed as ``ratings.selectors.leaderboard`` itself."""
    from ratings.selectors import leaderboard

    return leaderboard(ladder, page=page, size=size, now=now)


def measure_proposed_leaderboard(
    cases: Sequence[tuple[str, tuple[str, str, str], int]], runs: int
) -> tuple[dict[str, list[float]], dict[str, int], list[tuple[str, str]], bool]:
    """The same runs and plans once more, and whether ``proposed_leaderboard`` pages as the
    selector does: the index and the query this benchmark proposed are the model's and the
    selector's own now."""
    from django.db import connection

    from ratings.selectors import leaderboard

    wanted = {name: leaderboard(ladder, page=page) for name, ladder, page in cases}
    with connection.cursor() as cursor:
        cursor.execute(PROPOSED_INDEX)
        cursor.execute("ANALYZE ratings_rating")
    same = all(
        proposed_leaderboard(ladder, page=page) == wanted[name] for name, ladder, page in cases
    )
    times, entries = leaderboard_runs(cases, runs)
    plans = [(name, leaderboard_plan(ladder, page)) for name, ladder, page in cases]
    return times, entries, plans, same


def biggest_ladder() -> tuple[tuple[str, str, str], int]:
    """The ladder the rebuild made with the most people's ratings, and their number."""
    from django.db.models import Count

    from ratings.models import Rating

    row = (
        Rating.objects.filter(user__isnull=False)
        .exclude(game=BENCH_LADDER[0])
        .values("game", "mode", "rules")
        .annotate(n=Count("pk"))
        .order_by("-n")
        .first()
    )
    assert row is not None
    return (row["game"], row["mode"], row["rules"]), row["n"]


# ----------------------------------------------------------------------------
# The run


def _spread_ms(values: Sequence[float]) -> str:
    return (
        f"min {min(values) * 1000:.2f}, median {statistics.median(values) * 1000:.2f}, "
        f"max {max(values) * 1000:.2f} ms"
    )


def _load() -> str:
    return " ".join(f"{x:.2f}" for x in os.getloadavg())


def _sql_lines(count: Counter[str], seconds: dict[str, float], per: int, unit: str) -> list[str]:
    lines = []
    for kind, spent in sorted(seconds.items(), key=lambda item: -item[1])[:8]:
        lines.append(
            f"    {kind:<32} {count[kind]:>8,} statements {spent:8.2f} s "
            f"({spent / max(1, per) * 1000:.3f} ms a {unit})"
        )
    return lines


def _say_rebuild(say: Callable[[str], None], rebuilt: Rebuilt) -> None:
    report = rebuilt.report
    games = max(1, report.games)
    say(
        f"  {report.games:,} games, {report.ratings:,} ratings in {rebuilt.seconds:.1f} s:"
        f" {rebuilt.seconds / games * 1000:.3f} ms a game"
    )
    say(
        f"  reading the logs {report.reading:.1f} s ({report.reading / games * 1000:.3f} ms a"
        f" game), rating {report.rating:.1f} s ({report.rating / games * 1000:.3f} ms),"
        f" writing {report.writing:.1f} s ({report.writing / games * 1000:.3f} ms)"
    )
    say(f"  SQL {sum(rebuilt.sql_seconds.values()):.1f} s of it, by statement:")
    for line in _sql_lines(rebuilt.sql_count, rebuilt.sql_seconds, games, "game"):
        say(line)


def _environment(database_url: str) -> None:
    """The production settings on the scratch database, every connection closed after use,
    nothing published anywhere (before Django)."""
    os.environ.update(
        DJANGO_SETTINGS_MODULE="gamenook.settings.production",
        DJANGO_SECRET_KEY="bench-only-" + "x" * 50,
        DJANGO_ALLOWED_HOSTS="127.0.0.1,localhost",
        DJANGO_LOG_LEVEL="WARNING",
        DATABASE_URL=database_url,
        CONN_MAX_AGE="0",
        CELERY_BROKER_URL="memory://",
        CHANNEL_LAYER_URL="",
        CACHE_URL="locmemcache://",
        EMAIL_URL="consolemail://",
    )
    sys.path.insert(0, str(ROOT))


def _with_name(url: str, name: str) -> str:
    return urlunsplit(urlsplit(url)._replace(path=f"/{name}"))


def _admin(url: str, *statements: str) -> None:
    import psycopg

    with psycopg.connect(_with_name(url, "postgres"), autocommit=True) as conn:
        for statement in statements:
            conn.execute(statement)


def _vacuum() -> None:
    """VACUUM ANALYZE the filled tables (outside a transaction): hint bits set, visibility
    map and statistics up to date, as autovacuum leaves a long-lived database."""
    from django.db import connection

    with connection.cursor() as cursor:
        cursor.execute(
            "VACUUM ANALYZE auth_user, games_table, games_seat, games_move, ratings_result,"
            " ratings_rating"
        )


def main(argv: list[str] | None = None) -> int:  # noqa: PLR0915 (one run, step by step)
    parser = argparse.ArgumentParser(description=(__doc__ or "").split("\n\n")[0])
    parser.add_argument(
        "--database-url",
        default=os.environ.get("BENCH_RATINGS_DATABASE_URL", DEFAULT_DATABASE),
        help="a scratch PostgreSQL database, its name containing 'bench' (dropped and made)",
    )
    parser.add_argument("--games", type=int, default=100_000, help="finished games rated before")
    parser.add_argument("--players", type=int, default=100_000, help="users")
    parser.add_argument("--sample", type=int, default=1000, help="games rated by the live path")
    parser.add_argument("--runs", type=int, default=25, help="leaderboard calls per case")
    parser.add_argument("--seed", type=int, default=39)
    parser.add_argument("--batch", type=int, default=500, help="the rebuild's games per read")
    parser.add_argument("--plan", default=DEFAULT_PLAN, help="where the leaderboard's plans go")
    parser.add_argument(
        "--check", action="store_true", help="then rebuild(write=False): live equals rebuilt"
    )
    parser.add_argument("--profile", metavar="FILE", help="profile a second rebuild (cProfile)")
    parser.add_argument(
        "--proposed-write",
        action="store_true",
        help="then rebuild again with the write this benchmark proposes (unnest_write)",
    )
    parser.add_argument(
        "--proposed-leaderboard",
        action="store_true",
        help="then the leaderboard with the index and query this benchmark proposes",
    )
    parser.add_argument("--keep", action="store_true", help="keep the scratch database")
    parser.add_argument(
        "--quick", action="store_true", help="2,000 games, 2,000 players, a sample of 100"
    )
    args = parser.parse_args(argv)
    if args.quick:
        args.games, args.players, args.sample = 2000, 2000, 100
    name = urlsplit(args.database_url).path.lstrip("/")
    if "bench" not in name or not name.replace("_", "").isalnum():
        parser.error("the database's name must contain 'bench' (it is dropped and created)")
    if args.runs < 1 or args.games < 1 or args.players < 10 or args.sample < 1:
        parser.error("--runs, --games and --sample at least 1, --players at least 10")
    _environment(args.database_url)
    _admin(args.database_url, f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
    _admin(args.database_url, f'CREATE DATABASE "{name}"')
    try:
        return _run(args)
    finally:
        from django.db import connections

        connections.close_all()
        if not args.keep:
            _admin(args.database_url, f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')


def _run(args: argparse.Namespace) -> int:  # noqa: PLR0915 (one run, step by step)
    import django

    django.setup()
    from django.core.management import call_command
    from django.db import connection

    from ratings.models import Result

    def say(line: str) -> None:
        print(line, flush=True)

    call_command("migrate", verbosity=0)
    commit = subprocess.run(
        ["git", "rev-parse", "--short", "HEAD"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=False,
    ).stdout.strip()
    with connection.cursor() as cursor:
        cursor.execute("SHOW server_version")
        (server,) = cursor.fetchone()
    say(
        f"{datetime.now(UTC):%Y-%m-%d %H:%M} UTC, commit {commit}; {os.cpu_count()} cores, "
        f"{platform.system()} {platform.machine()}, Python {platform.python_version()}, "
        f"PostgreSQL {server}; load at the start {_load()}"
    )
    filled = fill(
        games=args.games,
        players=args.players,
        sample=args.sample,
        seed=args.seed,
        progress=lambda line: say(f"  fill: {line}"),
    )
    began = time.perf_counter()
    _vacuum()
    say(
        f"filled in {filled.seconds:.1f} s (and VACUUM ANALYZE {time.perf_counter() - began:.1f} s;"
        f" not measured): {filled.users:,} users, {filled.tables:,} finished tables"
        f" ({args.games:,} rated before, {args.sample:,} not yet), {filled.seats:,} seats,"
        f" {filled.moves:,} moves, {filled.results:,} results, {filled.ratings:,} ratings"
    )
    mix = filled.mix
    say(
        "  seats per table: "
        + ", ".join(f"{n}: {mix[f'seats {n}']:,}" for n in SEAT_WEIGHTS)
        + f"; seats of people {mix['seats of people']:,}, of bots {mix['seats of bots']:,}"
    )
    say(
        f"  rated {mix['rated']:,}, unrated {mix['unrated']:,}; turn by turn"
        f" {mix['turn by turn']:,}, real time {mix['real time']:,}; flip {mix['flip']:,},"
        f" wildcards {mix['wildcards']:,} ({mix['house rules']:,} with house rules);"
        f" {mix['games with a shared rank']:,} games with a shared rank"
    )
    say(
        "  moves by source: "
        + ", ".join(
            f"{source} {mix[f'moves {source}']:,}"
            for source in ("player", "forced", "timeout", "autopilot", "bot", "leave", "admin")
        )
        + f"; seats left {mix['seats left']:,}, struck out {mix['seats struck out']:,},"
        f" given a bot by a moderator {mix['seats a moderator gave a bot']:,}"
    )

    # (a) The rebuild.
    say(f"\n(a) rebuild(write=True) over {args.games:,} games; load before {_load()}")
    rebuilt = measure_rebuild(batch=args.batch)
    report = rebuilt.report
    _say_rebuild(say, rebuilt)
    checked = "checked" if report.games == args.games else "MISMATCH"
    say(f"  games rated: {report.games:,} of {args.games:,} ({checked})")
    failed = report.games != args.games
    if args.profile:
        say(f"  profile of a second rebuild (cProfile: slower than the run above), {args.profile}:")
        say(profile_rebuild(args.profile, batch=args.batch))
    if args.proposed_write:
        say(f"\n(a') the same with the proposed write (unnest_write); load before {_load()}")
        proposed = measure_proposed_rebuild(batch=args.batch)
        _say_rebuild(say, proposed)
        failed |= proposed.report.games != args.games

    # (b) The live path.
    say(f"\n(b) table_rate on {args.sample:,} games, one at a time; load before {_load()}")
    live = measure_live(filled.sample_tables)
    seats = Result.objects.filter(table_id__in=filled.sample_tables).count()
    say(f"  a game: {_spread_ms(live.seconds)} (mean {statistics.fmean(live.seconds) * 1000:.2f})")
    say(f"  SQL {sum(live.sql_seconds.values()):.2f} s of {sum(live.seconds):.2f} s:")
    for line in _sql_lines(live.sql_count, live.sql_seconds, len(live.seconds), "game"):
        say(line)
    checked = "checked" if live.results == seats and seats > 0 else "MISMATCH"
    say(f"  results written: {live.results:,}, a seat each ({checked})")
    failed |= checked != "checked"
    if args.check:
        from ratings.rebuild import rebuild

        began = time.perf_counter()
        compared = rebuild(write=False, batch=args.batch)
        say(
            f"  rebuild(write=False) over {compared.games:,} games in"
            f" {time.perf_counter() - began:.1f} s: {len(compared.differences)} differences"
            f" with the live ratings"
        )
        for line in compared.differences[:10]:
            say(f"    {line}")
        failed |= bool(compared.differences)

    # (c) The leaderboard.
    main_ladder, main_rows = biggest_ladder()
    say(
        f"\n(c) leaderboard; the rebuild's largest ladder {'/'.join(main_ladder)}:"
        f" {main_rows:,} people, {listed(main_ladder):,} listed"
    )
    began = time.perf_counter()
    ladder = fill_ladder(BENCH_LADDER, filled.user_ids, seed=args.seed)
    with connection.cursor() as cursor:
        cursor.execute("VACUUM ANALYZE ratings_rating")
    counted = listed(BENCH_LADDER)
    last_page = max(1, math.ceil(counted / PAGE_SIZE))
    say(
        f"  ladder {'/'.join(BENCH_LADDER)} filled with {ladder.rows:,} ratings in"
        f" {time.perf_counter() - began:.1f} s: {counted:,} listed"
        f" ({'checked' if counted == ladder.listed else 'MISMATCH'}), {last_page:,} pages"
    )
    failed |= counted != ladder.listed
    deep_page = min(DEEP_PAGE, last_page)
    cases = [
        ("page 1", BENCH_LADDER, 1),
        (f"page {deep_page}", BENCH_LADDER, deep_page),
        (f"last page ({last_page})", BENCH_LADDER, last_page),
        (f"page 1 of {'/'.join(main_ladder)}", main_ladder, 1),
    ]
    say(f"  {args.runs} runs of each, alternated; load before {_load()}")
    times, entries = leaderboard_runs(cases, args.runs)
    for name, _, _ in cases:
        say(f"  {name:<40} {entries[name]:>3} entries: {_spread_ms(times[name])}")
    headline = statistics.median(times["page 1"]) * 1000
    deep = statistics.median(times[f"page {deep_page}"]) * 1000
    say(
        f"  target under 50 ms at {counted:,} listed players: page 1"
        f" {'met' if headline < 50 else 'MISSED'} ({headline:.2f} ms),"
        f" page {deep_page} {'met' if deep < 50 else 'MISSED'} ({deep:.2f} ms)"
    )
    plans = [(name, leaderboard_plan(ladder_of, page)) for name, ladder_of, page in cases]
    say(f"  plan of page 1 (all four in {args.plan}):")
    for line in plans[0][1].splitlines():
        say(f"    {line}")
    if args.proposed_leaderboard:
        say(
            f"\n(c') the same with the proposed index and query (proposed_leaderboard);"
            f" load before {_load()}"
        )
        times, entries, proposed_plans, same = measure_proposed_leaderboard(cases, args.runs)
        for name, _, _ in cases:
            say(f"  {name:<40} {entries[name]:>3} entries: {_spread_ms(times[name])}")
        say(f"  every page the same as the selector's: {'checked' if same else 'MISMATCH'}")
        failed |= not same
        plans += [(f"{name}, proposed", plan) for name, plan in proposed_plans]
    Path(args.plan).parent.mkdir(parents=True, exist_ok=True)
    Path(args.plan).write_text(
        "".join(f"-- {name}\n{plan}\n\n" for name, plan in plans), encoding="utf-8"
    )
    say(f"\nload at the end {_load()}")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
