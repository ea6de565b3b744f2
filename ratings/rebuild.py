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

from django.db import transaction
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


def _write(standings: dict[Key, Standing], games: list[_Game]) -> None:
    with transaction.atomic():
        live = {_key(rating): rating for rating in Rating.objects.select_for_update()}
        fresh = []
        for key, standing in standings.items():
            rating = live.get(key)
            if rating is None:
                name, mode, rules, user_id, level = key
                rating = Rating(game=name, mode=mode, rules=rules, user_id=user_id, bot_level=level)
                fresh.append(rating)
            rating.mu, rating.sigma = standing.mu, standing.sigma
            rating.ordinal = model.ordinal(standing.mu, standing.sigma)
            rating.games, rating.last_game_at = standing.games, standing.last_game_at
        Rating.objects.bulk_update(
            [r for r in live.values()],
            ["mu", "sigma", "ordinal", "games", "last_game_at"],
            batch_size=2000,
        )
        Rating.objects.bulk_create(fresh, batch_size=2000)
        results = {(r.table_id, r.seat): r for r in Result.objects.select_for_update()}
        changed = []
        for game in games:
            for seat in game.inputs:
                result = results.get((game.table_id, seat.seat))
                if result is None or seat.subject not in game.after:
                    continue
                (result.mu_before, result.sigma_before) = game.before[seat.subject]
                (result.mu_after, result.sigma_after) = game.after[seat.subject]
                result.weight, result.rank = seat.weight, seat.rank
                changed.append(result)
        Result.objects.bulk_update(
            changed,
            ["mu_before", "sigma_before", "mu_after", "sigma_after", "weight", "rank"],
            batch_size=2000,
        )
