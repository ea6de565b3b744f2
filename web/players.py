"""A player's page, two players head to head, and the leaderboards (issue 39).

Every figure comes from ``ratings.selectors`` (ratings, history, win rates,
recent games, leaderboards) and ``games.selectors`` (reliability, the times
to move, read from the log); this module only puts them in words and in the
shape the plots take. The plots are drawn in the browser by Chart.js
(``static/web/vendor/``, driven by ``static/web/player.js``) from the data
the page carries as ``json_script``; each plot's figures are also a table
beside it, the source a screen reader reads and the page without script shows.
Nothing here reads a table's state: no card of anyone's hand can be shown.
"""

from __future__ import annotations

import statistics
from collections.abc import Iterable, Sequence
from typing import Any

from django.contrib.auth.decorators import login_required
from django.contrib.auth.models import User
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.urls import reverse
from django.views.decorators.http import require_GET

from accounts.validators import MAX_LENGTH
from games import selectors
from ratings import conf as ratings_conf
from ratings import selectors as ratings

from . import bot_marks
from .present import signed

Context = dict[str, Any]

#: The modes and rules of a ladder as the pages say them (``ratings.models.Mode``, ``Rules``).
MODES = {"correspondence": "turn by turn", "realtime": "real time"}
RULES = {"standard": "standard rules", "house": "house rules"}
#: The bot levels, weakest first (``games.models.Seat.BotLevel``).
BOT_LEVELS = ("easy", "normal", "hard")
#: The rated games of each ladder a player's page plots and lists (the newest).
HISTORY_POINTS = 100
#: The finished games a player's page lists.
RECENT_GAMES = 20
#: A leaderboard page's lines, and the last page anyone may ask for (an offset in range).
LEADERBOARD_SIZE = 50
#: The leaderboard's tabs (``?players=``): people, and the bot accounts' own ladder.
PEOPLE, BOTS = "people", "bots"
PLAYER_TABS = (PEOPLE, BOTS)
MAX_PAGE = 10_000

HOUR = 3600
MINUTE = 60


def game_names() -> dict[str, str]:
    """The games offered, by id: "flip" is "Flip"."""
    return {game["id"]: game["name"] for game in selectors.games_offered()}


def ladder_words(game: str, mode: str, rules: str) -> str:
    """A ladder as a person says it.

    >>> ladder_words("flip", "realtime", "house")
    'Wild Cards Flip, real time, house rules'
    """
    return f"{game_names().get(game, game)}, {MODES.get(mode, mode)}, {RULES.get(rules, rules)}"


def percent(share: float | None) -> str:
    """A share in whole percent, rounded down as reliability is ("—": nothing to count).

    >>> percent(0.955), percent(None), percent(1.0)
    ('95%', '—', '100%')
    """
    return "—" if share is None else f"{int(share * 100 + 1e-9)}%"


def ordinal(rank: int) -> str:
    """1st, 2nd, 3rd, 4th ... 11th, 12th, 13th, 21st.

    >>> [ordinal(n) for n in (1, 2, 3, 4, 11, 12, 13, 21, 22)]
    ['1st', '2nd', '3rd', '4th', '11th', '12th', '13th', '21st', '22nd']
    """
    if 10 <= rank % 100 <= 20:  # noqa: PLR2004 (the teens take "th")
        return f"{rank}th"
    return f"{rank}{({1: 'st', 2: 'nd', 3: 'rd'}).get(rank % 10, 'th')}"


def think_time(seconds: float, mode: str) -> str:
    """A time to move as a player of that mode counts it: turn by turn in hours and
    minutes, real time in seconds.

    >>> think_time(11_100, "correspondence"), think_time(600, "correspondence")
    ('3 h 05 min', '10 min')
    >>> think_time(20, "correspondence"), think_time(7.26, "realtime")
    ('under 1 min', '7.3 s')
    """
    if mode == "realtime":
        return f"{seconds:.1f} s"
    minutes = int(seconds // MINUTE)
    if minutes < 1:
        return "under 1 min"
    if seconds < HOUR:
        return f"{minutes} min"
    return f"{minutes // 60} h {minutes % 60:02d} min"


# ----------------------------------------------------------------------------
# The player's page


def _bots_by_ladder() -> dict[tuple[str, str, str], list[str]]:
    """Each ladder's bot levels as the page says them beside a rating: "Hard bot: 1320"."""
    found: dict[tuple[str, str, str], dict[str, str]] = {}
    for level, shown in ratings.bot_ratings():
        found.setdefault((shown.game, shown.mode, shown.rules), {})[level] = shown.label
    return {
        ladder: [
            f"{level.capitalize()} bot: {levels[level]}" for level in BOT_LEVELS if level in levels
        ]
        for ladder, levels in found.items()
    }


def _rating_rows(shown: Sequence[ratings.Shown]) -> list[Context]:
    bots = _bots_by_ladder()
    return [
        {
            "ladder": ladder_words(r.game, r.mode, r.rules),
            "game": game_names().get(r.game, r.game),
            "mode": MODES.get(r.mode, r.mode),
            "rules": RULES.get(r.rules, r.rules),
            "label": r.label,
            "provisional": r.provisional,
            "games": r.games,
            "last_game_at": r.last_game_at,
            "bots": bots.get((r.game, r.mode, r.rules), []),
        }
        for r in shown
    ]


def _history(person: User, shown: Sequence[ratings.Shown]) -> list[Context]:
    """Each ladder's rating after each of its rated games (the newest ``HISTORY_POINTS``),
    numbered from the ladder's first game."""
    series = []
    for r in shown:
        points = ratings.history(person, (r.game, r.mode, r.rules), limit=HISTORY_POINTS)
        if not points:
            continue
        first = max(1, r.games - len(points) + 1)
        series.append(
            {
                "label": ladder_words(r.game, r.mode, r.rules),
                "points": [
                    {
                        "number": first + index,
                        "table_id": point.table_id,
                        "finished_at": point.finished_at,
                        "rating": point.rating,
                        "change": signed(point.change),
                        "place": f"{ordinal(point.rank)} of {point.seats}",
                    }
                    for index, point in enumerate(points)
                ],
            }
        )
    return series


def _history_summary(series: Sequence[Context]) -> str:
    """What the history plot shows, in one sentence per line: the canvas's label."""
    if not series:
        return "No rated game yet."
    lines = []
    for one in series:
        points = one["points"]
        games = len(points)
        lines.append(
            f"{one['label']}: from {points[0]['rating']} to {points[-1]['rating']} over "
            f"{games} rated game{'s' if games != 1 else ''}"
        )
    return "Rating after each rated game. " + "; ".join(lines) + ". The figures are in the table."


def _rates(rows: Iterable[ratings.Rate], words: Any) -> list[Context]:
    return [
        {
            "key": row.key,
            "label": words(row.key),
            "games": row.games,
            "wins": row.wins,
            "share": percent(row.share) if row.games else "—",
            "value": round(100 * row.share, 1) if row.games else None,
        }
        for row in rows
    ]


def _rates_summary(title: str, rows: Sequence[Context], noun: str) -> str:
    said = [
        f"{row['label']}: {row['share']} of {row['games']} {noun}" for row in rows if row["games"]
    ]
    if not said:
        return f"{title}: no game yet."
    return f"{title}. " + "; ".join(said) + ". The figures are in the table."


def _think_times(person: User) -> list[Context]:
    """Average and median time to move, per mode, over the player's recent finished games."""
    out = []
    times = selectors.think_times(person.pk)
    for mode in MODES:
        seconds = times.get(mode) or []
        if not seconds:
            continue
        out.append(
            {
                "mode": MODES[mode].capitalize(),
                "moves": len(seconds),
                "average": think_time(statistics.fmean(seconds), mode),
                "median": think_time(statistics.median(seconds), mode),
            }
        )
    return out


def _recent(person: User) -> list[Context]:
    return [
        {
            "table_id": game.table_id,
            "finished_at": game.finished_at,
            "ladder": ladder_words(game.game, game.mode, game.rules),
            "place": f"{ordinal(game.rank)} of {game.seats}",
            "left": game.left,
            "rated": game.rated,
            "change": None if game.change is None else signed(game.change),
            "up": (game.change or 0) > 0,
            "down": (game.change or 0) < 0,
        }
        for game in ratings.recent_games(person, limit=RECENT_GAMES)
    ]


def _reliability(person: User) -> Context:
    record = selectors.reliability([person.pk])[person.pk]
    return {
        "percent": record.percent,
        "on_time": percent(record.on_time),
        "finished": percent(record.finished),
        "turns": record.turns,
        "timeouts": record.timeouts,
        "games": record.games,
        "left": record.left,
        "days": record.days,
    }


def _person(username: str) -> User | None:
    """The account called ``username``, or None; a name no account can have (a NUL,
    which PostgreSQL cannot even compare, or too long) is not looked up."""
    if "\x00" in username or len(username) > MAX_LENGTH:
        return None
    return User.objects.filter(username=username).first()


def _notice(request: HttpRequest, heading: str, message: str, status: int) -> HttpResponse:
    return render(
        request, "web/notice.html", {"heading": heading, "message": message}, status=status
    )


def _no_player(request: HttpRequest, username: str) -> HttpResponse:
    return _notice(request, "No such player", f"No player is called “{username}”.", 404)


@login_required
@require_GET
def player(request: HttpRequest, username: str) -> HttpResponse:
    """``/players/<username>/``: ratings, their history, win rates, times, reliability,
    recent games, and a form to compare with another player."""
    person = _person(username)
    if person is None:
        return _no_player(request, username)
    shown = ratings.ratings_of(person)
    history = _history(person, shown)
    sizes = _rates(ratings.win_rates_by_size(person), lambda seats: f"{seats} seats")
    bots = _rates(ratings.against_bots(person), lambda level: f"{str(level).capitalize()} bot")
    charts = {
        "history": {
            "x": "Rated game on the ladder",
            "y": "Rating",
            "series": [
                {"label": s["label"], "points": [[p["number"], p["rating"]] for p in s["points"]]}
                for s in history
            ],
        },
        "sizes": {
            "x": "Seats at the table",
            "y": "Games won (%)",
            "labels": [row["label"] for row in sizes],
            "values": [row["value"] for row in sizes],
        },
        "bots": {
            "x": "Bot level",
            "y": "Finished ahead (%)",
            "labels": [row["label"] for row in bots],
            "values": [row["value"] for row in bots],
        },
    }
    return render(
        request,
        "web/player.html",
        {
            "person": person,
            "person_bot_owner": bot_marks.owners([person.pk]).get(person.pk),
            "is_me": person.pk == request.user.pk,
            "ratings": _rating_rows(shown),
            "history": history,
            "history_summary": _history_summary(history),
            "sizes": sizes,
            "sizes_plotted": any(row["games"] for row in sizes),
            "sizes_summary": _rates_summary("Share of games won by table size", sizes, "games"),
            "bots": bots,
            "bots_plotted": any(row["games"] for row in bots),
            "bots_summary": _rates_summary(
                "Share of games finished ahead of each bot level", bots, "meetings"
            ),
            "think_times": _think_times(person),
            "reliability": _reliability(person),
            "recent": _recent(person),
            "charts": charts,
        },
    )


@login_required
@require_GET
def versus_form(request: HttpRequest, username: str) -> HttpResponse:
    """The player page's form: ``?other=<name>`` goes to the two players' page."""
    other = request.GET.get("other", "").strip()
    if not other:
        return _notice(request, "Whom to compare with?", "Enter another player's name.", 400)
    rival = _person(other)
    if rival is None:
        return _no_player(request, other)
    return redirect("web:player-versus", username=username, other=rival.username)


@login_required
@require_GET
def versus(request: HttpRequest, username: str, other: str) -> HttpResponse:
    """``/players/<username>/versus/<other>/``: every finished game the two sat in."""
    person, rival = _person(username), _person(other)
    if person is None:
        return _no_player(request, username)
    if rival is None:
        return _no_player(request, other)
    if person.pk == rival.pk:
        return _notice(
            request, "Choose another player", "A player cannot be compared with themselves.", 400
        )
    meeting = ratings.head_to_head(person, rival)
    bots = bot_marks.owners([person.pk, rival.pk])
    return render(
        request,
        "web/versus.html",
        {
            "person": person,
            "rival": rival,
            "person_bot_owner": bots.get(person.pk),
            "rival_bot_owner": bots.get(rival.pk),
            "meeting": meeting,
            "recent": [
                {
                    "table_id": table_id,
                    "finished_at": finished_at,
                    "mine": ordinal(mine),
                    "theirs": ordinal(theirs),
                    "outcome": "ahead" if mine < theirs else "behind" if mine > theirs else "level",
                }
                for table_id, finished_at, mine, theirs in meeting.recent
            ],
        },
    )


# ----------------------------------------------------------------------------
# The leaderboards


def _ladder_choices() -> Context:
    return {
        "games": list(game_names().items()),
        "modes": list(MODES.items()),
        "rules_choices": list(RULES.items()),
    }


@login_required
@require_GET
def leaderboards(request: HttpRequest) -> HttpResponse:
    """``/leaderboards/``: choose a game, a mode and the rules (``?game=&mode=&rules=``
    goes to that leaderboard); every ladder of standard rules linked."""
    game, mode = request.GET.get("game"), request.GET.get("mode")
    if game is not None or mode is not None:
        rules = request.GET.get("rules", "standard")
        if game not in game_names() or mode not in MODES or rules not in RULES:
            return _notice(
                request, "No such leaderboard", "Choose a game, a mode and the rules.", 400
            )
        url = reverse("web:leaderboard", args=[game, mode])
        return redirect(f"{url}?rules={rules}")
    ladders = [
        {"game": g, "mode": m, "words": ladder_words(g, m, "standard")}
        for g in game_names()
        for m in MODES
    ]
    return render(request, "web/leaderboard.html", {"ladders": ladders, **_ladder_choices()})


def _page_number(value: str | None) -> int | None:
    """``?page=``: 1 when absent, None when it is no page number (1 to ``MAX_PAGE``)."""
    if value is None:
        return 1
    if not value.isdigit() or not 1 <= int(value) <= MAX_PAGE:
        return None
    return int(value)


@login_required
@require_GET
def leaderboard(request: HttpRequest, game: str, mode: str) -> HttpResponse:
    """``/leaderboards/<game>/<mode>/?rules=&page=``: a page of the ladder, best first."""
    if game not in game_names() or mode not in MODES:
        return _notice(request, "No such leaderboard", "There is no such game or mode.", 404)
    rules = request.GET.get("rules", "standard")
    page = _page_number(request.GET.get("page"))
    # Issue 40: people by default; ?players=bots, the bot accounts' own ladder (a tab).
    players = request.GET.get("players", PEOPLE)
    if rules not in RULES or page is None or players not in PLAYER_TABS:
        return _notice(
            request,
            "No such leaderboard page",
            f"The rules are standard or house, the page a number from 1 to {MAX_PAGE:,}, "
            "the players people or bots.",
            400,
        )
    bots_tab = players == BOTS
    entries, more = ratings.leaderboard(
        (game, mode, rules), page=page, size=LEADERBOARD_SIZE, bot_accounts=bots_tab
    )
    if not entries and page > 1:
        return _notice(request, "No such page", "This leaderboard has fewer pages.", 404)
    url = reverse("web:leaderboard", args=[game, mode])
    tab = f"&players={BOTS}" if bots_tab else ""
    owners = bot_marks.owners_by_name(e.username for e in entries) if bots_tab else {}
    return render(
        request,
        "web/leaderboard.html",
        {
            "ladder": {"game": game, "mode": mode, "rules": rules},
            "title": ladder_words(game, mode, rules),
            "entries": [{**vars(e), "bot_owner": owners.get(e.username)} for e in entries],
            "page": page,
            "bots_tab": bots_tab,
            "tabs": [
                {"label": "People", "url": f"{url}?rules={rules}", "current": not bots_tab},
                {
                    "label": "Bots",
                    "url": f"{url}?rules={rules}&players={BOTS}",
                    "current": bots_tab,
                },
            ],
            "previous_url": f"{url}?rules={rules}{tab}&page={page - 1}" if page > 1 else None,
            "next_url": f"{url}?rules={rules}{tab}&page={page + 1}" if more else None,
            "min_games": ratings_conf.leaderboard_min_games(),
            "active_days": ratings_conf.leaderboard_active_days(),
            **_ladder_choices(),
        },
    )
