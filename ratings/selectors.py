"""Reads for the player's page, the leaderboards and a finished game's rating changes."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timedelta

from django.contrib.auth.models import User
from django.db.models import Count, Q
from django.utils import timezone

from games import selectors as games_selectors

from . import conf, model
from .models import Rating, Result

#: (game, mode, rules)
Ladder = tuple[str, str, str]


@dataclass(frozen=True)
class Shown:
    """A rating as people see it: the conservative figure, and "?" while provisional."""

    game: str
    mode: str
    rules: str
    rating: int
    provisional: bool
    mu: float
    sigma: float
    games: int
    last_game_at: datetime | None

    @property
    def label(self) -> str:
        """``1480`` or ``1000?``."""
        return f"{self.rating}?" if self.provisional else str(self.rating)


def shown_of(rating: Rating) -> Shown:
    return Shown(
        game=rating.game,
        mode=rating.mode,
        rules=rating.rules,
        rating=model.shown(rating.mu, rating.sigma),
        provisional=rating.sigma > conf.provisional_sigma(),
        mu=rating.mu,
        sigma=rating.sigma,
        games=rating.games,
        last_game_at=rating.last_game_at,
    )


def ratings_of(user: User) -> list[Shown]:
    """Every ladder ``user`` has a rating on, most games first."""
    rows = Rating.objects.filter(user=user).order_by("-games", "game", "mode", "rules")
    return [shown_of(row) for row in rows]


def bot_ratings(game: str | None = None) -> list[tuple[str, Shown]]:
    """The bot levels' ratings (what "rated like a Hard bot" means), by ladder."""
    rows = Rating.objects.filter(user__isnull=True)
    if game is not None:
        rows = rows.filter(game=game)
    return [(row.bot_level, shown_of(row)) for row in rows.order_by("game", "mode", "rules", "mu")]


@dataclass(frozen=True)
class Point:
    """One rated game on a player's history: the rating after it and what it changed."""

    table_id: int
    finished_at: datetime
    rating: int
    change: int
    rank: int
    seats: int


def history(user: User, ladder: Ladder, *, limit: int = 500) -> list[Point]:
    """``user``'s rated games on ``ladder``, oldest first (the last ``limit``)."""
    game, mode, rules = ladder
    rows = list(
        Result.objects.filter(
            user=user, rated=True, game=game, mode=mode, rules=rules, mu_after__isnull=False
        ).order_by("-finished_at", "-pk")[:limit]
    )
    rows.reverse()
    return [
        Point(
            table_id=row.table_id,
            finished_at=row.finished_at,
            rating=model.shown(row.mu_after or 0.0, row.sigma_after or 0.0),
            change=_change(row) or 0,
            rank=row.rank,
            seats=row.seats,
        )
        for row in rows
    ]


@dataclass(frozen=True)
class Entry:
    """A line of a leaderboard."""

    position: int
    username: str
    rating: int
    games: int
    last_game_at: datetime | None


def leaderboard(
    ladder: Ladder,
    *,
    page: int = 1,
    size: int = 50,
    now: datetime | None = None,
    bot_accounts: bool = False,
) -> tuple[list[Entry], bool]:
    """A page of ``ladder``'s leaderboard, best first, and whether another page follows.

    People only (bot accounts are rated apart, issue 40: ``bot_accounts`` lists
    them alone, their own ladder), with at least ``GAMENOOK_LEADERBOARD_MIN_GAMES`` rated games
    and one in the last ``GAMENOOK_LEADERBOARD_ACTIVE_DAYS`` days, provisional
    ratings left out. Read through the partial index ``rating_leaderboard``
    (ladder, ordinal descending, id, with the filter's columns).
    """
    game, mode, rules = ladder
    now = now or timezone.now()
    ranked = Rating.objects.filter(
        game=game,
        mode=mode,
        rules=rules,
        user__isnull=False,
        games__gte=conf.leaderboard_min_games(),
        last_game_at__gte=now - timedelta(days=conf.leaderboard_active_days()),
        sigma__lte=conf.provisional_sigma(),
    )
    # A hashed subplan over the few bot accounts: the scan stays the index's, in its order.
    bots = Q(user_id__in=games_selectors.bot_account_users())
    ranked = ranked.filter(bots if bot_accounts else ~bots).order_by("-ordinal", "pk")
    start = (page - 1) * size
    # The page is taken among the ratings alone (an index-only scan), and only its rows
    # are joined to their users: joining first made the planner sort every listed player.
    found = list(
        Rating.objects.filter(pk__in=ranked.values("pk")[start : start + size + 1])
        .order_by("-ordinal", "pk")
        .values_list("user__username", "mu", "sigma", "games", "last_game_at")
    )
    entries = [
        Entry(
            position=start + index + 1,
            username=username,
            rating=model.shown(mu, sigma),
            games=games,
            last_game_at=last,
        )
        for index, (username, mu, sigma, games, last) in enumerate(found[:size])
    ]
    return entries, len(found) > size


@dataclass(frozen=True)
class Rate:
    """Games and wins (first place, shared or not) in some group of games."""

    key: str | int
    games: int
    wins: int

    @property
    def share(self) -> float:
        return self.wins / self.games if self.games else 0.0


def win_rates_by_size(user: User) -> list[Rate]:
    """``user``'s games and wins by the number of seats at the table."""
    rows = (
        Result.objects.filter(user=user)
        .values("seats")
        .annotate(n=Count("pk"), won=Count("pk", filter=Q(rank=1)))
        .order_by("seats")
    )
    return [Rate(key=row["seats"], games=row["n"], wins=row["won"]) for row in rows]


def against_bots(user: User) -> list[Rate]:
    """For each bot level: how often ``user`` finished ahead of a bot of that level at the
    same table (``games``: the comparisons, one per bot seat; ``wins``: those ahead)."""
    out = []
    mine = Result.objects.filter(user=user)
    for level in ("easy", "normal", "hard"):
        bots = Result.objects.filter(table__in=mine.values("table"), bot_level=level)
        ranks = dict(mine.filter(table__in=bots.values("table")).values_list("table_id", "rank"))
        games = wins = 0
        for table_id, bot_rank in bots.values_list("table_id", "rank"):
            games += 1
            wins += ranks[table_id] < bot_rank
        out.append(Rate(key=level, games=games, wins=wins))
    return out


@dataclass(frozen=True)
class Meeting:
    """Two players' games together: how often each finished ahead of the other."""

    games: int
    ahead: int
    behind: int
    tied: int
    recent: list[tuple[int, datetime, int, int]]  # (table, finished, my rank, their rank)


def head_to_head(user: User, other: User, *, recent: int = 10) -> Meeting:
    """``user`` against ``other`` over every finished game they both sat in."""
    theirs = dict(Result.objects.filter(user=other).values_list("table_id", "rank"))
    rows = list(
        Result.objects.filter(user=user, table_id__in=list(theirs))
        .order_by("-finished_at")
        .values_list("table_id", "finished_at", "rank")
    )
    ahead = sum(rank < theirs[t] for t, _, rank in rows)
    behind = sum(rank > theirs[t] for t, _, rank in rows)
    return Meeting(
        games=len(rows),
        ahead=ahead,
        behind=behind,
        tied=len(rows) - ahead - behind,
        recent=[(t, at, rank, theirs[t]) for t, at, rank in rows[:recent]],
    )


@dataclass(frozen=True)
class Played:
    """A game on a player's recent list."""

    table_id: int
    game: str
    mode: str
    rules: str
    seats: int
    rank: int
    left: bool
    rated: bool
    change: int | None
    finished_at: datetime


def recent_games(user: User, *, limit: int = 20) -> list[Played]:
    """``user``'s last finished games, newest first (through ``result_user_recent``)."""
    rows = Result.objects.filter(user=user).order_by("-finished_at", "-pk")[:limit]
    return [
        Played(
            table_id=row.table_id,
            game=row.game,
            mode=row.mode,
            rules=row.rules,
            seats=row.seats,
            rank=row.rank,
            left=row.left,
            rated=row.rated,
            change=_change(row),
            finished_at=row.finished_at,
        )
        for row in rows
    ]


def _change(row: Result) -> int | None:
    if row.mu_before is None or row.sigma_before is None:
        return None
    if row.mu_after is None or row.sigma_after is None:
        return None
    return model.change(row.mu_before, row.sigma_before, row.mu_after, row.sigma_after)


def table_rated(table_id: int) -> bool:
    """Whether the game at ``table_id`` has been rated (its results written): one indexed read."""
    return Result.objects.filter(table_id=table_id).exists()


@dataclass(frozen=True)
class TableChange:
    """What a finished game did to one seat's rating (shown at the game's end)."""

    seat: int
    rating: int
    change: int
    provisional: bool


def table_changes(table_id: int) -> dict[int, TableChange]:
    """Each rated seat's new rating and its change, by seat number ({} until rated)."""
    out = {}
    for row in Result.objects.filter(table_id=table_id, rated=True):
        change = _change(row)
        if change is None or row.mu_after is None or row.sigma_after is None:
            continue
        out[row.seat] = TableChange(
            seat=row.seat,
            rating=model.shown(row.mu_after, row.sigma_after),
            change=change,
            provisional=row.sigma_after > conf.provisional_sigma(),
        )
    return out
