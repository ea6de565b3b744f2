"""The players, the leaderboards and a game's rating changes in the API (issue 39).

Reads only, mounted at /api/v1/ by gamenook.urls. Like every read of the API
(``GET /api/v1/tables/`` among them) they need a token or a session, answer
401 without one, and are not throttled. A table's rating changes may be read
by anyone who may read the table, and ``GET /tables/{id}/`` shows any table
to any signed-in user: so may these.

Each answer is built from ``ratings.selectors`` and ``games.selectors``:
ratings, ranks, counts and times, never a card. The API names a mode as the
tables do (``turn_by_turn``, ``real_time``); the ratings keep theirs
(``ratings.models.Mode``), and ``API_MODES`` translates.
"""

from __future__ import annotations

import dataclasses
import statistics
from typing import Any

from django.contrib.auth.models import User
from django.urls import reverse
from django.utils.http import urlencode
from drf_spectacular.utils import (
    OpenApiParameter,
    extend_schema,
    extend_schema_field,
    extend_schema_serializer,
)
from rest_framework import exceptions, serializers
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from games import rulesets
from games import selectors as games_selectors
from games.apis.common import parse_query
from games.apis.errors import ErrorSerializer
from games.apis.fields import INT_MAX, QueryIntegerField
from games.apis.tables import MODES, REAL_TIME, TURN_BY_TURN
from games.errors import Conflict, NotFound

from . import conf
from . import selectors as ratings_selectors
from .models import BOT_LEVELS, Mode, Rules

PLAYERS, LEADERBOARDS, TABLES = ["players"], ["leaderboards"], ["tables"]

#: The API's name of each mode (as a table answer's ``mode``), and back.
API_MODES = {Mode.CORRESPONDENCE.value: TURN_BY_TURN, Mode.REALTIME.value: REAL_TIME}
RATING_MODES = {api: mode for mode, api in API_MODES.items()}

#: The longest username an account can have (``auth.User.username``): a longer one is no one's.
USERNAME_MAX = 150

LEVELS = [level for level, _ in BOT_LEVELS]

#: A leaderboard's ``?players=``: people (the default), or bot accounts on their own ladder.
PEOPLE, BOTS = "people", "bots"
PLAYER_KINDS = [PEOPLE, BOTS]


def _errors(*codes: int) -> dict[int, Any]:
    return {code: ErrorSerializer for code in codes}


def _player(username: str) -> User:
    """The account named ``username`` exactly, else 404 ``not_found``.

    A name no account could have (too long, or with a NUL, which PostgreSQL
    cannot even compare: a 500 otherwise) finds no one without asking the
    database.
    """
    if len(username) > USERNAME_MAX or "\x00" in username:
        raise NotFound("No such player.")
    user = User.objects.filter(username=username).first()
    if user is None:
        raise NotFound("No such player.")
    return user


def _username_parameter(name: str, description: str) -> OpenApiParameter:
    return OpenApiParameter(
        name,
        {"type": "string", "minLength": 1, "maxLength": USERNAME_MAX},
        OpenApiParameter.PATH,
        description=description,
    )


USERNAME = _username_parameter("username", "The player's username, exactly as it is written.")


# One component each for the choices the answers below share, rather than an enum per
# answer: drf-spectacular names an enum that several components use by a hash.
@extend_schema_field({"type": "string", "enum": MODES}, component_name="Mode")
class ModeField(serializers.ChoiceField):
    """A ladder's mode as the API names it: ``turn_by_turn`` or ``real_time``."""

    def __init__(self, **kwargs: Any) -> None:
        kwargs.setdefault("help_text", "turn_by_turn or real_time, as a table answer's mode says.")
        super().__init__(choices=MODES, **kwargs)

    def to_representation(self, value: Any) -> str:
        return API_MODES.get(str(value), str(value))


@extend_schema_field({"type": "string", "enum": rulesets.game_ids()}, component_name="Game")
class GameField(serializers.ChoiceField):
    """One of the games the service hosts (``games.rulesets``)."""

    def __init__(self, **kwargs: Any) -> None:
        kwargs.setdefault("help_text", "flip (Wild Cards Flip) or wildcards (classic Wild Cards).")
        super().__init__(choices=rulesets.game_ids(), **kwargs)


def _rules_field(**kwargs: Any) -> serializers.ChoiceField:
    kwargs.setdefault(
        "help_text",
        "standard, or house: a table with a house rule set away from its default is "
        "rated on a ladder of its own.",
    )
    return serializers.ChoiceField(choices=Rules.values, **kwargs)


_LABEL = "The rating as people see it: the figure, and a question mark while provisional."


# ----------------------------------------------------------------------------
# A player


@extend_schema_serializer(component_name="PlayerRating")
class RatingOutputSerializer(serializers.Serializer[Any]):
    """A player's rating on one ladder (a game, a mode and its rules)."""

    game = GameField()
    mode = ModeField()
    rules = _rules_field()
    rating = serializers.IntegerField(
        help_text="The conservative figure: 1000 for a newcomer, 40 points per unit of "
        "mu - 3 sigma above zero (openskill's Plackett-Luce)."
    )
    provisional = serializers.BooleanField(
        help_text="The rating is still uncertain (sigma above GAMENOOK_RATING_PROVISIONAL_SIGMA): "
        "shown with a question mark, and off the leaderboards."
    )
    label = serializers.CharField(help_text=_LABEL)  # type: ignore[assignment]  # as ErrorSerializer
    games = serializers.IntegerField(help_text="Rated games on this ladder.")
    last_game_at = serializers.DateTimeField(allow_null=True)


@extend_schema_serializer(component_name="Reliability")
class ReliabilityOutputSerializer(serializers.Serializer[Any]):
    """Turns on time and games finished over the last ``days`` days of finished games."""

    percent = serializers.IntegerField(
        allow_null=True,
        help_text="The lower of on_time and finished, in whole percent rounded down: what a "
        "table's min_reliability is compared with. Null: no record yet.",
    )
    on_time = serializers.FloatField(
        allow_null=True,
        help_text="The share (0 to 1) of their turns played before the deadline or the move "
        "timer; null: no turn.",
    )
    finished = serializers.FloatField(
        allow_null=True,
        help_text="The share (0 to 1) of their games played to the end; null: no game.",
    )
    turns = serializers.IntegerField()
    timeouts = serializers.IntegerField(help_text="Turns the deadline or the move timer played.")
    games = serializers.IntegerField()
    left = serializers.IntegerField(help_text="Games they left before the end.")
    days = serializers.IntegerField(help_text="The window, in days (GAMENOOK_RELIABILITY_DAYS).")


@extend_schema_serializer(component_name="WinRateBySize")
class SizeRateOutputSerializer(serializers.Serializer[Any]):
    seats = serializers.IntegerField(source="key", help_text="The seats at the table.")
    games = serializers.IntegerField()
    wins = serializers.IntegerField(help_text="Games finished first (a shared first place too).")
    share = serializers.FloatField(help_text="wins / games.")


@extend_schema_serializer(component_name="AgainstBot")
class BotRateOutputSerializer(serializers.Serializer[Any]):
    level = serializers.ChoiceField(choices=LEVELS, source="key")
    games = serializers.IntegerField(
        help_text="Bots of this level they sat with: one per bot seat of each finished game."
    )
    wins = serializers.IntegerField(help_text="Of those, the ones they finished ahead of.")
    share = serializers.FloatField(help_text="wins / games.")


@extend_schema_serializer(component_name="TimeToMove")
class ThinkTimeOutputSerializer(serializers.Serializer[Any]):
    """The time from the move before (anyone's) to theirs, over their last 50 finished games."""

    mode = ModeField()
    moves = serializers.IntegerField(
        help_text="Moves they made themselves (not a timeout's, a bot's or an autopilot's)."
    )
    average_seconds = serializers.FloatField(allow_null=True)
    median_seconds = serializers.FloatField(allow_null=True)


@extend_schema_serializer(component_name="RecentGame")
class RecentGameOutputSerializer(serializers.Serializer[Any]):
    table = serializers.IntegerField(source="table_id")
    game = GameField()
    mode = ModeField()
    rules = _rules_field()
    seats = serializers.IntegerField(help_text="The seats at the table.")
    rank = serializers.IntegerField(help_text="Their place: 1 is first; tied seats share one.")
    left = serializers.BooleanField(help_text="They left before the end.")
    rated = serializers.BooleanField()
    change = serializers.IntegerField(
        allow_null=True, help_text="What the game did to their rating; null when unrated."
    )
    finished_at = serializers.DateTimeField()
    table_url = serializers.SerializerMethodField()
    record_url = serializers.SerializerMethodField()
    replay_url = serializers.SerializerMethodField()

    def _url(self, name: str, table_id: int) -> str:
        request: Request = self.context["request"]
        return request.build_absolute_uri(reverse(name, args=[table_id]))

    @extend_schema_field(serializers.URLField(help_text="The table: GET /api/v1/tables/{id}/."))
    def get_table_url(self, played: ratings_selectors.Played) -> str:
        return self._url("table", played.table_id)

    @extend_schema_field(
        serializers.URLField(help_text="The full game record: GET /api/v1/tables/{id}/record/.")
    )
    def get_record_url(self, played: ratings_selectors.Played) -> str:
        return self._url("table-record", played.table_id)

    @extend_schema_field(
        serializers.URLField(help_text="The game's replay on the web site, one position at a time.")
    )
    def get_replay_url(self, played: ratings_selectors.Played) -> str:
        return self._url("web:table-replay", played.table_id)


@extend_schema_serializer(component_name="Player")
class PlayerOutputSerializer(serializers.Serializer[Any]):
    username = serializers.CharField()
    bot_account = serializers.BooleanField(
        help_text="True for a bot account: a program a person runs (shown BOT), rated on "
        "its own leaderboards (?players=bots)."
    )
    owner = serializers.CharField(
        allow_null=True, help_text="A bot account's owner, who runs it; null for a person."
    )
    ratings = RatingOutputSerializer(
        many=True, help_text="Each ladder they have a rating on, most games first."
    )
    reliability = ReliabilityOutputSerializer()
    win_rates = SizeRateOutputSerializer(
        many=True, help_text="Their finished games and wins by the number of seats."
    )
    against_bots = BotRateOutputSerializer(
        many=True, help_text="How often they finished ahead of each bot level."
    )
    time_to_move = ThinkTimeOutputSerializer(many=True, help_text="One entry per mode.")
    recent_games = RecentGameOutputSerializer(
        many=True, help_text="Their last 20 finished games, newest first."
    )


def _think_times(user: User) -> list[dict[str, Any]]:
    seconds = games_selectors.think_times(user.pk)
    out = []
    for mode in (Mode.CORRESPONDENCE, Mode.REALTIME):
        times = seconds.get(mode.value, [])
        out.append(
            {
                "mode": mode.value,
                "moves": len(times),
                "average_seconds": round(statistics.fmean(times), 3) if times else None,
                "median_seconds": round(statistics.median(times), 3) if times else None,
            }
        )
    return out


def _reliability(user: User) -> dict[str, Any]:
    record = games_selectors.reliability([user.pk])[user.pk]
    return {
        "percent": record.percent,
        "on_time": None if record.on_time is None else round(record.on_time, 4),
        "finished": None if record.finished is None else round(record.finished, 4),
        "turns": record.turns,
        "timeouts": record.timeouts,
        "games": record.games,
        "left": record.left,
        "days": record.days,
    }


class PlayerApi(APIView):
    @extend_schema(
        tags=PLAYERS,
        summary="A player: ratings, reliability, win rates, time to move, recent games",
        parameters=[USERNAME],
        responses={200: PlayerOutputSerializer, **_errors(401, 404)},
    )
    def get(self, request: Request, username: str) -> Response:
        user = _player(username)
        owner = games_selectors.bot_owner(user.pk)
        body = {
            "username": user.username,
            "bot_account": owner is not None,
            "owner": None if owner is None else owner.username,
            "ratings": ratings_selectors.ratings_of(user),
            "reliability": _reliability(user),
            "win_rates": ratings_selectors.win_rates_by_size(user),
            "against_bots": ratings_selectors.against_bots(user),
            "time_to_move": _think_times(user),
            "recent_games": ratings_selectors.recent_games(user),
        }
        return Response(PlayerOutputSerializer(body, context={"request": request}).data)


# ----------------------------------------------------------------------------
# A player's rating history on one ladder


@extend_schema_serializer(component_name="HistoryPoint")
class PointOutputSerializer(serializers.Serializer[Any]):
    table = serializers.IntegerField(source="table_id")
    finished_at = serializers.DateTimeField()
    rating = serializers.IntegerField(help_text="Their rating after the game.")
    change = serializers.IntegerField(help_text="What the game did to it.")
    rank = serializers.IntegerField()
    seats = serializers.IntegerField()


@extend_schema_serializer(component_name="History")
class HistoryOutputSerializer(serializers.Serializer[Any]):
    username = serializers.CharField()
    game = GameField()
    mode = ModeField()
    rules = _rules_field()
    points = PointOutputSerializer(
        many=True, help_text="Their rated games on the ladder, oldest first (the last 500)."
    )


class PlayerHistoryApi(APIView):
    class FilterSerializer(serializers.Serializer[Any]):
        game = GameField(required=False, help_text="Default: see the endpoint.")
        mode = ModeField(required=False, help_text="turn_by_turn or real_time.")
        rules = _rules_field(required=False, help_text="standard or house.")

    @extend_schema(
        tags=PLAYERS,
        summary="A player's rating after each rated game on one ladder",
        description="The ladder is the game, mode and rules given; each one left out is "
        "taken from the player's ladder with the most games that matches the ones given "
        "(and, when none does, is flip, turn_by_turn and standard). 400 invalid for an "
        "unknown game, mode or rules.",
        parameters=[USERNAME, FilterSerializer],
        responses={200: HistoryOutputSerializer, **_errors(400, 401, 404)},
    )
    def get(self, request: Request, username: str) -> Response:
        params = parse_query(self.FilterSerializer, request.query_params)
        user = _player(username)
        given = {
            "game": params.get("game"),
            "mode": None if params.get("mode") is None else RATING_MODES[params["mode"]],
            "rules": params.get("rules"),
        }
        best = next(
            (
                shown
                for shown in ratings_selectors.ratings_of(user)  # most games first
                if all(value in (None, getattr(shown, key)) for key, value in given.items())
            ),
            None,
        )
        game = given["game"] or (best.game if best else rulesets.DEFAULT_GAME)
        mode = given["mode"] or (best.mode if best else Mode.CORRESPONDENCE.value)
        rules = given["rules"] or (best.rules if best else Rules.STANDARD.value)
        body = {
            "username": user.username,
            "game": game,
            "mode": mode,
            "rules": rules,
            "points": ratings_selectors.history(user, (game, mode, rules)),
        }
        return Response(HistoryOutputSerializer(body).data)


# ----------------------------------------------------------------------------
# Head to head


@extend_schema_serializer(component_name="Meeting")
class MeetingOutputSerializer(serializers.Serializer[Any]):
    table = serializers.IntegerField()
    finished_at = serializers.DateTimeField()
    rank = serializers.IntegerField(help_text="The player's place.")
    other_rank = serializers.IntegerField(help_text="The other player's place.")


@extend_schema_serializer(component_name="HeadToHead")
class VersusOutputSerializer(serializers.Serializer[Any]):
    username = serializers.CharField()
    other = serializers.CharField()
    games = serializers.IntegerField(help_text="Finished games they both sat in.")
    ahead = serializers.IntegerField(help_text="Games the player finished ahead of the other.")
    behind = serializers.IntegerField()
    tied = serializers.IntegerField()
    recent = MeetingOutputSerializer(many=True, help_text="The last 10 of them, newest first.")


class PlayerVersusApi(APIView):
    @extend_schema(
        tags=PLAYERS,
        summary="Two players' finished games together: who finished ahead",
        description="400 invalid when both names are the same player's.",
        parameters=[USERNAME, _username_parameter("other", "The other player's username.")],
        responses={200: VersusOutputSerializer, **_errors(400, 401, 404)},
    )
    def get(self, request: Request, username: str, other: str) -> Response:  # noqa: ARG002
        user, rival = _player(username), _player(other)
        if user.pk == rival.pk:
            raise exceptions.ValidationError(
                {"other": ["A player against themself has no record."]}
            )
        meeting = ratings_selectors.head_to_head(user, rival)
        body = {
            "username": user.username,
            "other": rival.username,
            "games": meeting.games,
            "ahead": meeting.ahead,
            "behind": meeting.behind,
            "tied": meeting.tied,
            "recent": [
                {"table": table, "finished_at": at, "rank": mine, "other_rank": theirs}
                for table, at, mine, theirs in meeting.recent
            ],
        }
        return Response(VersusOutputSerializer(body).data)


# ----------------------------------------------------------------------------
# Leaderboards


@extend_schema_serializer(component_name="LeaderboardEntry")
class EntryOutputSerializer(serializers.Serializer[Any]):
    position = serializers.IntegerField(help_text="1 is the best.")
    username = serializers.CharField()
    bot_account = serializers.BooleanField(
        help_text="True on the bot accounts' leaderboard (?players=bots), false on the people's."
    )
    rating = serializers.IntegerField()
    games = serializers.IntegerField()
    last_game_at = serializers.DateTimeField(allow_null=True)


@extend_schema_serializer(component_name="BotRating")
class BotRatingOutputSerializer(serializers.Serializer[Any]):
    level = serializers.ChoiceField(choices=LEVELS)
    rating = serializers.IntegerField()
    provisional = serializers.BooleanField()
    label = serializers.CharField(help_text=_LABEL)  # type: ignore[assignment]  # as ErrorSerializer
    games = serializers.IntegerField()


@extend_schema_serializer(component_name="Leaderboard")
class LeaderboardOutputSerializer(serializers.Serializer[Any]):
    game = GameField()
    mode = ModeField()
    rules = _rules_field()
    page = serializers.IntegerField()
    size = serializers.IntegerField()
    min_games = serializers.IntegerField(
        help_text="The rated games on the ladder a player needs to be listed "
        "(GAMENOOK_LEADERBOARD_MIN_GAMES)."
    )
    active_days = serializers.IntegerField(
        help_text="A player is listed with a rated game in this many days "
        "(GAMENOOK_LEADERBOARD_ACTIVE_DAYS); provisional ratings are left out."
    )
    players = serializers.ChoiceField(
        choices=PLAYER_KINDS,
        help_text="people: the leaderboard of people; bots: of bot accounts, their own ladder.",
    )
    next = serializers.URLField(allow_null=True, help_text="The next page; null on the last.")
    previous = serializers.URLField(
        allow_null=True, help_text="The page before; null on the first."
    )
    results = EntryOutputSerializer(many=True)
    bots = BotRatingOutputSerializer(
        many=True,
        help_text="The bot levels' ratings on the ladder, not listed among the players: "
        'what "plays like a Hard bot" means.',
    )


class LeaderboardApi(APIView):
    class PathSerializer(serializers.Serializer[Any]):
        game = GameField()
        mode = ModeField()

    class FilterSerializer(serializers.Serializer[Any]):
        rules = _rules_field(required=False, default=Rules.STANDARD.value)
        players = serializers.ChoiceField(
            choices=PLAYER_KINDS,
            required=False,
            default=PEOPLE,
            help_text="people (the default) or bots: bot accounts are rated apart from people "
            "and listed on their own leaderboard.",
        )
        page = QueryIntegerField(required=False, default=1, min_value=1, max_value=INT_MAX)
        size = QueryIntegerField(required=False, default=50, min_value=1, max_value=100)

    @extend_schema(
        tags=LEADERBOARDS,
        summary="A leaderboard: the best rated players of a game and mode, a page at a time",
        description="Players with at least min_games rated games on the ladder and one in "
        "the last active_days days, provisional ratings left out, best first. 400 invalid "
        "for an unknown game, mode or rules, and for a page or size out of bounds.",
        parameters=[
            OpenApiParameter(
                "game", {"type": "string", "enum": rulesets.game_ids()}, OpenApiParameter.PATH
            ),
            OpenApiParameter("mode", {"type": "string", "enum": MODES}, OpenApiParameter.PATH),
            FilterSerializer,
        ],
        responses={200: LeaderboardOutputSerializer, **_errors(400, 401)},
    )
    def get(self, request: Request, game: str, mode: str) -> Response:
        ladder = parse_query(self.PathSerializer, {"game": game, "mode": mode})
        params = parse_query(self.FilterSerializer, request.query_params)
        rating_mode = RATING_MODES[ladder["mode"]]
        page, size, rules = params["page"], params["size"], params["rules"]
        players = params["players"]
        entries, more = ratings_selectors.leaderboard(
            (ladder["game"], rating_mode, rules), page=page, size=size, bot_accounts=players == BOTS
        )
        bots = [
            {
                "level": level,
                "rating": shown.rating,
                "provisional": shown.provisional,
                "label": shown.label,
                "games": shown.games,
            }
            for level, shown in ratings_selectors.bot_ratings(ladder["game"])
            if (shown.mode, shown.rules) == (rating_mode, rules)
        ]

        def link(number: int) -> str:
            kept = {"players": players} if players == BOTS else {}
            query = urlencode({"rules": rules, **kept, "page": number, "size": size})
            return request.build_absolute_uri(f"{request.path}?{query}")

        body = {
            "game": ladder["game"],
            "mode": rating_mode,
            "rules": rules,
            "page": page,
            "size": size,
            "min_games": conf.leaderboard_min_games(),
            "active_days": conf.leaderboard_active_days(),
            "players": players,
            "next": link(page + 1) if more and page < INT_MAX else None,
            "previous": link(page - 1) if page > 1 else None,
            "results": [
                {**dataclasses.asdict(entry), "bot_account": players == BOTS} for entry in entries
            ],
            "bots": bots,
        }
        return Response(LeaderboardOutputSerializer(body).data)


# ----------------------------------------------------------------------------
# A finished game's rating changes


@extend_schema_serializer(component_name="SeatRatingChange")
class SeatChangeOutputSerializer(serializers.Serializer[Any]):
    number = serializers.IntegerField(help_text="The seat, as in the table's seats.")
    name = serializers.CharField(help_text="How the table names the seat.")
    username = serializers.CharField(
        allow_null=True,
        help_text="Whose rating moved: the seat's player (also when a moderator handed "
        "the seat to a bot); null for a bot's own seat.",
    )
    bot_level = serializers.ChoiceField(
        choices=LEVELS,
        allow_null=True,
        help_text="A bot's own seat: the level whose rating moved; null for a person's.",
    )
    bot_account = serializers.BooleanField(
        help_text="True when username is a bot account's (a program a person runs)."
    )
    rating = serializers.IntegerField(help_text="The seat's rating after the game.")
    change = serializers.IntegerField(help_text="What the game did to it.")
    provisional = serializers.BooleanField()
    label = serializers.CharField(help_text=_LABEL)  # type: ignore[assignment]  # as ErrorSerializer


@extend_schema_serializer(component_name="TableRatings")
class TableRatingsOutputSerializer(serializers.Serializer[Any]):
    table = serializers.IntegerField()
    rated = serializers.BooleanField(help_text="False: an unrated table, whose seats is empty.")
    pending = serializers.BooleanField(
        help_text="True for a few moments after a rated game's end, until its follow-up has "
        "rated it: seats is empty until then, ask again."
    )
    seats = SeatChangeOutputSerializer(
        many=True, help_text="Each rated seat, in seat order (a bot's seat moves its level's)."
    )


class TableRatingsApi(APIView):
    @extend_schema(
        tags=TABLES,
        summary="Each seat's new rating and its change, once the game is over",
        description="Anyone who may read the table (GET /api/v1/tables/{id}/) may read "
        "these. 409 game_not_over until the game has ended.",
        responses={200: TableRatingsOutputSerializer, **_errors(401, 404, 409)},
    )
    def get(self, request: Request, table_id: int) -> Response:  # noqa: ARG002 (DRF's)
        table, rows = games_selectors.table_with_seats(table_id)
        if not games_selectors.facts_of(table).finished:
            raise Conflict(
                "A table's rating changes are shown once its game is over.",
                code="game_not_over",
            )
        changes = ratings_selectors.table_changes(table.pk)
        names = games_selectors.seat_names(rows)
        bot_accounts = games_selectors.seats_bot_accounts(rows)
        seats = []
        for seat in sorted(rows, key=lambda one: one.number):
            change = changes.get(seat.number)
            if change is None:
                continue
            # Whose rating moved: the seat's player, or the one a moderator replaced by a bot.
            person = seat.user if seat.user_id is not None else seat.previous_user
            seats.append(
                {
                    "number": seat.number,
                    "name": names[seat.number],
                    "username": None if person is None else person.username,
                    "bot_level": (seat.bot_level or None) if person is None else None,
                    "bot_account": seat.user_id in bot_accounts,
                    "rating": change.rating,
                    "change": change.change,
                    "provisional": change.provisional,
                    "label": f"{change.rating}?" if change.provisional else str(change.rating),
                }
            )
        body = {
            "table": table.pk,
            "rated": table.rated,
            "pending": table.rated and not changes,
            "seats": seats,
        }
        return Response(TableRatingsOutputSerializer(body).data)
