"""Every rating again, from the finished games' logs: the proof that the live ones are right.

The games are taken in the order they were rated live (each table by its
first ``Result``), and a moderator's reset between the same two games
(``RatingReset.after_result``). For each game the inputs come from the log
alone: the seats' turns (``games.selectors.turn_tallies``) and the final
ranking (``games.selectors.final_rankings``); the table row gives its game,
options, mode and whether it is rated, the seats who sat where. The
arithmetic is the live path's (``services.game_inputs``, ``services.rate_game``),
so a rebuild equals the live ratings to the last bit, and ``check`` says
where it does not.
"""

from __future__ import annotations

import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from django.db import connection, transaction
from django.db.models import Min

from games import selectors as games_selectors

from . import conf, model
from .models import Rating, RatingReset, Result
from .services import Ladder, SeatInput, Subject, game_inputs, ladder_of, rate_game

Key = tuple[str, str, str, int | None, str]


@dataclass
class Standing:
    mu: float = model.MU
    sigma: float = model.SIGMA
    games: int = 0
    last_game_at: datetime | None = None


@dataclass
class Report:
    """What a rebuild found: its games, its ratings, and every disagreement with the live ones."""

    games: int = 0
    ratings: int = 0
    differences: list[str] = field(default_factory=list)
    #: Seconds spent reading the logs, rating, and comparing or writing.
    reading: float = 0.0
    rating: float = 0.0
    writing: float = 0.0


@dataclass
class _Game:
    table_id: int
    ladder: Ladder
    inputs: list[SeatInput]
    before: dict[Subject, tuple[float, float]]
    after: dict[Subject, tuple[float, float]]


def _batches(order: list[int], size: int) -> Iterator[list[int]]:
    for start in range(0, len(order), size):
        yield order[start : start + size]


def rebuild(*, write: bool = False, batch: int = 500) -> Report:
    """Rate every game again from its log; compare with the live ratings, or write them.

    ``write``: replace the live ratings and the results' before and after by
    the rebuilt ones (after a change to the model, or to repair); otherwise
    only report the differences.
    """
    report = Report()
    started = time.perf_counter()
    firsts = list(
        Result.objects.values("table_id")
        .annotate(first=Min("pk"))
        .order_by("first")
        .values_list("table_id", "first")
    )
    resets = list(
        RatingReset.objects.order_by("after_result", "pk").values_list(
            "after_result",
            "rating__game",
            "rating__mode",
            "rating__rules",
            "rating__user_id",
            "rating__bot_level",
        )
    )
    first_of = dict(firsts)
    order = [table_id for table_id, _ in firsts]
    standings: dict[Key, Standing] = {}
    games: list[_Game] = []
    next_reset = 0
    stand_in_weight = conf.stand_in_weight()
    report.reading += time.perf_counter() - started
    for chunk in _batches(order, batch):
        began = time.perf_counter()
        found = games_selectors.finished_games(chunk)
        rated_at = time.perf_counter()
        report.reading += rated_at - began
        for table_id in chunk:
            game = found.get(table_id)
            if game is None:
                continue
            ladder = ladder_of(game)
            inputs = game_inputs(game, stand_in_weight)
            while next_reset < len(resets) and resets[next_reset][0] < first_of[table_id]:
                _, *key = resets[next_reset]
                standing = standings.setdefault(tuple(key), Standing())  # type: ignore[arg-type]
                standing.mu, standing.sigma = model.MU, model.SIGMA
                next_reset += 1
            before: dict[Subject, tuple[float, float]] = {}
            after: dict[Subject, tuple[float, float]] = {}
            if game.rated:
                for subject in {i.subject for i in inputs}:
                    standing = standings.setdefault((*ladder, *subject), Standing())
                    before[subject] = (standing.mu, standing.sigma)
                after = rate_game(inputs, before)
                for subject, (mu, sigma) in after.items():
                    standing = standings[(*ladder, *subject)]
                    standing.mu, standing.sigma = mu, sigma
                    standing.games += 1
                    standing.last_game_at = game.finished_at
            games.append(_Game(table_id, ladder, inputs, before, after))
            report.games += 1
        report.rating += time.perf_counter() - rated_at
    for _, *key in resets[next_reset:]:
        standing = standings.setdefault(tuple(key), Standing())  # type: ignore[arg-type]
        standing.mu, standing.sigma = model.MU, model.SIGMA
    report.ratings = len(standings)
    began = time.perf_counter()
    if write:
        _write(standings, games)
    else:
        report.differences = _compare(standings, games)
    report.writing += time.perf_counter() - began
    return report


def _key(rating: Rating) -> Key:
    return (rating.game, rating.mode, rating.rules, rating.user_id, rating.bot_level)


def _compare(standings: dict[Key, Standing], games: list[_Game]) -> list[str]:
    differences = []
    live = {_key(rating): rating for rating in Rating.objects.all()}
    for key in sorted(set(live) | set(standings), key=repr):
        rating, standing = live.get(key), standings.get(key)
        if rating is None or standing is None:
            differences.append(f"{key}: live {rating is not None}, rebuilt {standing is not None}")
            continue
        if (rating.mu, rating.sigma, rating.games) != (standing.mu, standing.sigma, standing.games):
            differences.append(
                f"{key}: live mu {rating.mu!r} sigma {rating.sigma!r} games {rating.games}, "
                f"rebuilt mu {standing.mu!r} sigma {standing.sigma!r} games {standing.games}"
            )
    results = {
        (r.table_id, r.seat): r
        for r in Result.objects.filter(rated=True).only(
            "table_id", "seat", "mu_before", "sigma_before", "mu_after", "sigma_after"
        )
    }
    for game in games:
        for seat in game.inputs:
            if seat.subject not in game.after:
                continue
            result = results.get((game.table_id, seat.seat))
            want = (*game.before[seat.subject], *game.after[seat.subject])
            got = (
                None
                if result is None
                else (result.mu_before, result.sigma_before, result.mu_after, result.sigma_after)
            )
            if got != want:
                differences.append(
                    f"table {game.table_id} seat {seat.seat}: live {got}, rebuilt {want}"
                )
    return differences


#: Rows per statement of the PostgreSQL write (``_update_rows``).
UNNEST_ROWS = 20_000
_RATING_COLUMNS = {
    "mu": "float8",
    "sigma": "float8",
    "ordinal": "float8",
    "games": "integer",
    "last_game_at": "timestamptz",
}
_RESULT_COLUMNS = {
    "mu_before": "float8",
    "sigma_before": "float8",
    "mu_after": "float8",
    "sigma_after": "float8",
    "weight": "float8",
    "rank": "smallint",
}


def _write(standings: dict[Key, Standing], games: list[_Game]) -> None:
    with transaction.atomic():
        live: dict[Key, int] = {
            (game, mode, rules, user_id, level): pk
            for pk, game, mode, rules, user_id, level in Rating.objects.select_for_update()
            .order_by("pk")
            .values_list("pk", "game", "mode", "rules", "user_id", "bot_level")
        }
        rows = []
        fresh = []
        for key, standing in standings.items():
            values = (
                standing.mu,
                standing.sigma,
                model.ordinal(standing.mu, standing.sigma),
                standing.games,
                standing.last_game_at,
            )
            pk = live.get(key)
            if pk is not None:
                rows.append((pk, *values))
                continue
            name, mode, rules, user_id, level = key
            fresh.append(
                Rating(
                    game=name,
                    mode=mode,
                    rules=rules,
                    user_id=user_id,
                    bot_level=level,
                    **dict(zip(_RATING_COLUMNS, values, strict=True)),
                )
            )
        _update_rows(Rating, _RATING_COLUMNS, rows)
        Rating.objects.bulk_create(fresh, batch_size=2000)
        ids = {
            (table_id, seat): pk
            for pk, table_id, seat in Result.objects.select_for_update()
            .order_by("pk")
            .values_list("pk", "table_id", "seat")
        }
        changed = []
        for game in games:
            for seat in game.inputs:
                pk = ids.get((game.table_id, seat.seat))
                if pk is None or seat.subject not in game.after:
                    continue
                before, after = game.before[seat.subject], game.after[seat.subject]
                changed.append((pk, *before, *after, seat.weight, seat.rank))
        _update_rows(Result, _RESULT_COLUMNS, changed)


def _update_rows(
    table: type[Rating] | type[Result], columns: dict[str, str], rows: list[tuple[Any, ...]]
) -> None:
    """Set ``columns`` of each row (its id first, then one value a column).

    On PostgreSQL one ``UPDATE ... FROM unnest(...)`` per ``UNNEST_ROWS`` rows,
    the values sent as arrays: ``bulk_update`` builds a CASE per field and row in
    Python, nine tenths of a rebuild's time at 100,000 games
    (docs/ratings-performance.md). Elsewhere ``bulk_update``.
    """
    if not rows:
        return
    names = list(columns)
    if connection.vendor != "postgresql":
        objects = [table(pk=row[0], **dict(zip(names, row[1:], strict=True))) for row in rows]
        table.objects.bulk_update(objects, names, batch_size=2000)  # type: ignore[arg-type]
        return
    quote = connection.ops.quote_name
    sets = ", ".join(f"{quote(name)} = v.{quote(name)}" for name in names)
    arrays = ", ".join(f"%s::{kind}[]" for kind in ["bigint", *columns.values()])
    aliases = ", ".join(["id", *(quote(name) for name in names)])
    # Names from the model, quoted; every value a parameter.
    sql = f"UPDATE {quote(table._meta.db_table)} AS r SET {sets} FROM unnest({arrays}) AS v"  # noqa: S608
    sql += f"({aliases}) WHERE r.id = v.id"
    with connection.cursor() as cursor:
        for start in range(0, len(rows), UNNEST_ROWS):
            chunk = rows[start : start + UNNEST_ROWS]
            cursor.execute(sql, [list(column) for column in zip(*chunk, strict=True)])
