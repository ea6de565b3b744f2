"""Rating a finished game, in its follow-up (never on a move's request), and resets.

``table_rate`` runs once per finished game from the game-over follow-up
(``notifications.followups``) and the sweep's safety net: it counts the
seats' turns from the log (``games.services.table_tally``), reads the final
ranking from the log's last move, and writes one ``Result`` per seat and, at
a rated table, the seats' new ratings. The arithmetic is ``ratings.model``'s,
shared with the rebuild (``ratings.rebuild``), which makes the same numbers
from the log alone.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from datetime import datetime

from django.contrib.auth.models import User
from django.db import transaction

from games import selectors as games_selectors
from games import services as games_services
from games.selectors import FinishedGame

from . import conf, model
from .models import Mode, Rating, RatingReset, Result, Rules

#: (game, mode, rules): one ladder.
Ladder = tuple[str, str, str]
#: (user id, "") for a person, (None, level) for a bot level.
Subject = tuple[int | None, str]


def ladder_of(game: FinishedGame) -> Ladder:
    """The ladder a game is rated on: its game, its mode, standard or house rules."""
    mode = Mode.REALTIME if game.realtime else Mode.CORRESPONDENCE
    rules = Rules.HOUSE if game.house_rules else Rules.STANDARD
    return (game.game, str(mode), str(rules))


@dataclass(frozen=True, slots=True)
class SeatInput:
    """What rating one seat of a finished game takes."""

    seat: int
    subject: Subject
    rank: int
    left: bool
    weight: float


def game_inputs(game: FinishedGame, stand_in_weight: float) -> list[SeatInput]:
    """Each seat of a game, in seat order, as the rating takes it.

    A seat is its person's (the one a moderator replaced by a bot too), or its
    bot level's. A person who (impossibly) held two seats is rated on the first.
    """
    out: list[SeatInput] = []
    seen: set[Subject] = set()
    for seat in game.seats:
        subject: Subject = (
            (seat.person_id, "") if seat.person_id is not None else (None, seat.bot_level)
        )
        if seat.number not in game.ranking or (subject[0] is not None and subject in seen):
            continue
        seen.add(subject)
        tally = seat.tally
        out.append(
            SeatInput(
                seat=seat.number,
                subject=subject,
                rank=game.ranking[seat.number],
                left=seat.left,
                weight=model.weight(tally.turns, tally.stand_in_turns, stand_in_weight),
            )
        )
    return out


def rate_game(
    inputs: Sequence[SeatInput], current: dict[Subject, tuple[float, float]]
) -> dict[Subject, tuple[float, float]]:
    """Every subject's (mu, sigma) after the game, from ``current`` before it.

    A bot level that sat in several seats moves by the mean of its seats'
    updates (one rating, several results).
    """
    after = model.rate(
        [model.Entry(*current[i.subject], rank=i.rank, weight=i.weight) for i in inputs]
    )
    moves: dict[Subject, list[tuple[float, float]]] = {}
    for seat, (mu, sigma) in zip(inputs, after, strict=True):
        moves.setdefault(seat.subject, []).append((mu, sigma))
    new = {}
    for subject, outs in moves.items():
        mu0, sigma0 = current[subject]
        if len(outs) == 1:
            new[subject] = outs[0]
            continue
        mu = mu0 + sum(mu - mu0 for mu, _ in outs) / len(outs)
        variance = sigma0**2 + sum(sigma**2 - sigma0**2 for _, sigma in outs) / len(outs)
        new[subject] = (mu, variance**0.5)
    return new


def _lock_ratings(ladder: Ladder, subjects: Sequence[Subject]) -> dict[Subject, Rating]:
    """The ladder's rating rows of ``subjects``, made if missing, locked in id order."""
    game, mode, rules = ladder
    fresh = [
        Rating(
            game=game,
            mode=mode,
            rules=rules,
            user_id=user_id,
            bot_level=level,
            mu=model.MU,
            sigma=model.SIGMA,
            ordinal=model.ordinal(model.MU, model.SIGMA),
        )
        for user_id, level in subjects
    ]
    Rating.objects.bulk_create(fresh, ignore_conflicts=True)
    users = [user_id for user_id, _ in subjects if user_id is not None]
    levels = [level for user_id, level in subjects if user_id is None]
    rows = Rating.objects.select_for_update().filter(game=game, mode=mode, rules=rules)
    found = list(rows.filter(user_id__in=users).order_by("pk")) + list(
        rows.filter(user__isnull=True, bot_level__in=levels).order_by("pk")
    )
    return {(row.user_id, row.bot_level): row for row in found}


def table_rate(*, table_id: int) -> list[Result]:
    """Write a finished game's results and, at a rated table, its seats' new ratings.

    Once per game: a second call finds the results and returns them. A table
    whose log has no ``game_over`` (aborted) has no results. ``Conflict`` for a
    game that has not ended.
    """
    with transaction.atomic():
        # The log is read once: its counts are written on the seats and rated alike.
        game = games_selectors.finished_games([table_id]).get(table_id)
        tallies = None if game is None else {(table_id, s.number): s.tally for s in game.seats}
        games_services.table_tally(table_id=table_id, tallies=tallies)  # locks the table
        done = list(Result.objects.filter(table_id=table_id).order_by("seat"))
        if done or game is None:
            return done
        inputs = game_inputs(game, conf.stand_in_weight())
        ladder = ladder_of(game)
        before: dict[Subject, tuple[float, float]] = {}
        after: dict[Subject, tuple[float, float]] = {}
        if game.rated:
            rows = _lock_ratings(ladder, sorted({i.subject for i in inputs}, key=_order))
            before = {subject: (row.mu, row.sigma) for subject, row in rows.items()}
            after = rate_game(inputs, before)
            for subject, (mu, sigma) in after.items():
                row = rows[subject]
                row.mu, row.sigma, row.ordinal = mu, sigma, model.ordinal(mu, sigma)
                row.games += 1
                row.last_game_at = game.finished_at
            Rating.objects.bulk_update(
                list(rows.values()),
                ["mu", "sigma", "ordinal", "games", "last_game_at", "updated_at"],
            )
        results = [
            _result(game, ladder, i, before.get(i.subject), after.get(i.subject)) for i in inputs
        ]
        return Result.objects.bulk_create(results)


def _order(subject: Subject) -> tuple[int, int, str]:
    user_id, level = subject
    return (0, user_id, "") if user_id is not None else (1, 0, level)


def _result(
    game: FinishedGame,
    ladder: Ladder,
    seat: SeatInput,
    before: tuple[float, float] | None,
    after: tuple[float, float] | None,
) -> Result:
    user_id, level = seat.subject
    name, mode, rules = ladder
    return Result(
        table_id=game.table_id,
        seat=seat.seat,
        user_id=user_id,
        bot_level=level,
        game=name,
        mode=mode,
        rules=rules,
        seats=len(game.seats),
        rank=seat.rank,
        left=seat.left,
        weight=seat.weight,
        rated=after is not None,
        mu_before=None if before is None else before[0],
        sigma_before=None if before is None else before[1],
        mu_after=None if after is None else after[0],
        sigma_after=None if after is None else after[1],
        finished_at=game.finished_at,
    )


def tables_to_rate(*, finished_after: datetime, finished_before: datetime) -> Iterator[int]:
    """Games that ended in [finished_after, finished_before) with no results: their
    follow-up should have rated them by now (the sweep's safety net, a lost job)."""
    for page in games_selectors.tables_finished_between(
        after=finished_after, before=finished_before, batch=500
    ):
        ids = [table_id for table_id, _ in page]
        rated = set(Result.objects.filter(table_id__in=ids).values_list("table_id", flat=True))
        yield from (table_id for table_id in ids if table_id not in rated)


def rating_reset(*, rating_id: int, moderator: User, reason: str) -> Rating:
    """A moderator sets a rating back to a newcomer's; recorded in ``RatingReset``."""
    reason = reason.strip()
    if not reason:
        raise ValueError("a reset needs a reason")
    with transaction.atomic():
        rating = Rating.objects.select_for_update().get(pk=rating_id)
        last = Result.objects.order_by("-pk").values_list("pk", flat=True).first() or 0
        RatingReset.objects.create(
            rating=rating,
            moderator=moderator,
            reason=reason[:500],
            mu_before=rating.mu,
            sigma_before=rating.sigma,
            after_result=last,
        )
        rating.mu, rating.sigma = model.MU, model.SIGMA
        rating.ordinal = model.ordinal(model.MU, model.SIGMA)
        rating.save(update_fields=["mu", "sigma", "ordinal", "updated_at"])
        return rating
