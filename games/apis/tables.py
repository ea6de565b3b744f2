"""Tables: the lobby, the game as each user may see it, actions, the log and the record.

Every game fact in a response comes from its game's view (``games.selectors``);
nothing is built from the raw state.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterable, Mapping
from datetime import datetime
from typing import Any

from django.contrib.auth.models import User
from django.utils.http import parse_etags
from drf_spectacular.utils import (
    OpenApiParameter,
    OpenApiResponse,
    PolymorphicProxySerializer,
    extend_schema,
    extend_schema_field,
    extend_schema_serializer,
)
from rest_framework import exceptions, serializers, status
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from games import rulesets, selectors, services
from games.followups import run_bots_after_commit
from games.models import Seat, Table
from games.services import MoveResult
from tabletop import realtime
from tabletop.ruleset import GameState, OptionError

from . import typed
from .common import ActionThrottle, parse_input, parse_query, request_user
from .errors import ErrorSerializer
from .fields import (
    INT_MAX,
    QueryBooleanField,
    QueryIntegerField,
    StrictBooleanField,
    StrictCharField,
    StrictChoiceField,
    StrictIntegerField,
)
from .idempotency import idempotent
from .typed import GameViewSerializer

TAG = ["tables"]

TURN_BY_TURN, REAL_TIME = "turn_by_turn", "real_time"
MODES = [TURN_BY_TURN, REAL_TIME]


def _errors(*codes: int) -> dict[int, Any]:
    return {code: ErrorSerializer for code in codes}


# ----------------------------------------------------------------------------
# Output: the shapes every endpoint shares


class SeatOutputSerializer(serializers.Serializer[Any]):
    number = serializers.IntegerField()
    name = serializers.CharField(
        help_text="How the table names the seat, as its pages and e-mails do: the "
        "username, or for a bot its place among the table's bots and its level "
        '("Bot 2 (easy)"); a seat a moderator handed to a bot, its player\'s name and "(bot)".'
    )
    username = serializers.CharField(
        allow_null=True,
        help_text="Null for a bot. A player struck out (replaced true) still holds the seat.",
    )
    bot_level = serializers.CharField(allow_null=True, help_text="Null for a person.")
    bot_account = serializers.BooleanField(
        help_text="True when the seat's player is a bot account: a program a person runs "
        "(shown BOT). False for a person and for a built-in bot (bot_level)."
    )
    left = serializers.BooleanField(help_text="True once the seat has left the game.")
    # Real-time play (rulings 17 and 18): public, in every seat's view and the watcher's.
    strikes = serializers.IntegerField(
        help_text="Real time: turns this seat's player ran out of time on; the third "
        "hands the seat to a Normal bot for good."
    )
    connected = serializers.BooleanField(
        allow_null=True,
        help_text="Real time: whether the player has a connection open. Null turn by "
        "turn, and for a bot.",
    )
    held_until = serializers.DateTimeField(
        allow_null=True,
        help_text="Real time: the player's last connection closed; the seat is held for "
        "them until this instant, then a bot plays it until they return.",
    )
    away = serializers.BooleanField(
        help_text="Real time: a Normal bot plays this seat until its player connects again."
    )
    replaced = serializers.BooleanField(
        help_text="A bot plays this seat for the rest of the game: after three strikes "
        "(its player keeps the seat, its view and its place in the ranking, and may "
        "concede but not act), or in the stead of a player a moderator removed."
    )
    # Away with autopilot (ruling 20): public, shown to everyone at the table.
    autopilot = serializers.ChoiceField(
        choices=["easy", "normal", "hard"],
        allow_null=True,
        help_text="Turn by turn: its player is away, and a bot of this level plays their turns "
        "at once (the moves are marked `autopilot`). Null when not.",
    )
    autopilot_until = serializers.DateTimeField(
        allow_null=True,
        help_text="Until when the autopilot plays: the end of its player's time away, or "
        "sooner, when their allowance of days away runs out (a time away until they return "
        "ends there at the latest). Null when not on autopilot.",
    )


class TableSeatOutputSerializer(SeatOutputSerializer):
    """A seat in a table answer: a view's seat, and its player's reliability."""

    reliability = serializers.IntegerField(
        allow_null=True,
        min_value=0,
        max_value=100,
        help_text="The seat's player's reliability in percent: the lower of their share of "
        "turns played before the deadline and of games played to the end, over the last "
        "90 days (GAMENOOK_RELIABILITY_DAYS). Null for a bot, and for a player with no "
        "finished game in that time.",
    )


def _seats(
    table: Table,
    rows: list[Seat] | None = None,
    reliability: Mapping[int, int | None] | None = None,
    bots: set[int] | None = None,
) -> list[dict[str, Any]]:
    """The seats as every answer shows them; with ``reliability`` (percent by user id,
    ``_reliabilities``), each seat's player's too, as a table answer shows them.
    ``bots``: the bot accounts among the players (``selectors.bot_account_ids``), when
    the caller read them for several tables at once; None, one query here."""
    connected = selectors.connected_users(table)
    seats = sorted(_seat_rows(table) if rows is None else rows, key=lambda s: s.number)
    if bots is None:
        bots = selectors.seats_bot_accounts(seats)
    names = selectors.seat_names(seats)
    return [
        {
            "number": seat.number,
            "name": names[seat.number],
            "username": seat.user.username if seat.user is not None else None,
            "bot_level": seat.bot_level or None,
            "bot_account": seat.user_id in bots,
            "left": seat.left_at is not None,
            **selectors.seat_presence(seat, connected),
            **(
                {}
                if reliability is None
                else {
                    "reliability": None if seat.user_id is None else reliability.get(seat.user_id)
                }
            ),
        }
        for seat in seats
    ]


def _reliabilities(seats: Iterable[Seat]) -> dict[int, int | None]:
    """The reliability in percent of the players in ``seats``, by user id: one query for
    them all (``selectors.reliability``), none when only bots sit there."""
    users = sorted({seat.user_id for seat in seats if seat.user_id is not None})
    if not users:
        return {}
    return {user_id: record.percent for user_id, record in selectors.reliability(users).items()}


def _seat_rows(table: Table) -> list[Seat]:
    if "seats" in getattr(table, "_prefetched_objects_cache", {}):
        return list(table.seats.all())  # the list prefetched them with their users
    return list(table.seats.select_related("user"))


#: Every action type a client may send, in any game (each game's ruleset refuses the
#: ones it does not have, with its own code).
_request_types = sorted({kind for rules in rulesets.rulesets() for kind in rules.request_types})


def _sentence(error: ValueError) -> str:
    """A rules' ``ValueError`` as a sentence: "target is ..." -> "Target is ...."."""
    text = str(error)
    return (text[:1].upper() + text[1:]).rstrip(".") + "."


class TableOutputSerializer(serializers.Serializer[Any]):
    id = serializers.IntegerField()
    host = serializers.CharField(source="host.username")
    status = serializers.ChoiceField(choices=Table.Status.choices)
    seat_count = serializers.IntegerField()
    game = serializers.CharField(
        help_text="The game the table plays: flip (Wild Cards Flip) or wildcards (classic "
        "Wild Cards), chosen when it was opened."
    )
    game_version = serializers.IntegerField(help_text="The version of the game's rules.")
    options = serializers.SerializerMethodField()
    scoring = serializers.SerializerMethodField()
    target = serializers.SerializerMethodField()
    two_seat_reverse_skips = serializers.SerializerMethodField()
    turn_hours = serializers.IntegerField(help_text="Turn by turn: the deadline of a turn.")
    timeout_policy = serializers.ChoiceField(
        choices=Table.TimeoutPolicy.choices,
        help_text="Turn by turn: what a missed deadline does.",
    )
    mode = serializers.SerializerMethodField()
    move_timer = serializers.SerializerMethodField()
    move_seconds = serializers.IntegerField(
        allow_null=True, help_text="Real time: the move timer in seconds; null turn by turn."
    )
    allow_watchers = serializers.BooleanField()
    autopilot = serializers.BooleanField(
        help_text="Turn by turn: an away player's turns are played at once by their "
        "autopilot (ruling 20); false, their seat waits for its deadline. False in real time."
    )
    rated = serializers.BooleanField(
        help_text="The game's result moves its players' ratings (GET /players/{username}/); "
        "false: an unrated table."
    )
    min_reliability = serializers.IntegerField(
        help_text="The reliability in percent a player needs to take a seat (403 "
        "reliability_too_low below it); 0: anyone may."
    )
    bot_accounts = serializers.ChoiceField(
        choices=Table.BotAccounts.choices,
        help_text="Whether bot accounts may take a seat: refused (403 bot_accounts_refused), "
        "invited (only those the host invited: 403 invitation_needed otherwise) or welcome.",
    )
    seats = serializers.SerializerMethodField()
    open_seats = serializers.SerializerMethodField()
    seq = serializers.IntegerField()
    created_at = serializers.DateTimeField()
    started_at = serializers.DateTimeField(allow_null=True)
    finished_at = serializers.DateTimeField(allow_null=True)
    turn_started_at = serializers.DateTimeField(allow_null=True)
    deadline_at = serializers.DateTimeField(allow_null=True)

    @extend_schema_field(typed.options_answer_schema())
    def get_options(self, table: Table) -> dict[str, Any]:
        return dict(table.options)

    @extend_schema_field(
        serializers.ChoiceField(
            choices=["single", "target"], help_text="The same as options.scoring."
        )
    )
    def get_scoring(self, table: Table) -> str:
        return str(table.options.get("scoring", "single"))

    @extend_schema_field(serializers.IntegerField(help_text="The same as options.target."))
    def get_target(self, table: Table) -> int:
        return int(table.options.get("target", 500))

    @extend_schema_field(
        serializers.BooleanField(
            allow_null=True,
            help_text="Wild Cards Flip only (options.two_seat_reverse_skips); null for "
            "another game.",
        )
    )
    def get_two_seat_reverse_skips(self, table: Table) -> bool | None:
        value = table.options.get("two_seat_reverse_skips")
        return None if value is None else bool(value)

    @extend_schema_field(serializers.ChoiceField(choices=MODES))
    def get_mode(self, table: Table) -> str:
        return REAL_TIME if table.realtime else TURN_BY_TURN

    @extend_schema_field(
        serializers.ChoiceField(choices=list(realtime.MOVE_TIMERS), allow_null=True)
    )
    def get_move_timer(self, table: Table) -> str | None:
        return None if table.move_seconds is None else realtime.timer_name(table.move_seconds)

    @extend_schema_field(TableSeatOutputSerializer(many=True))
    def get_seats(self, table: Table) -> list[dict[str, Any]]:
        rows = _seat_rows(table)
        # A list's answer reads every table's players' reliability at once (its context).
        reliability = self.context.get("reliability")
        if reliability is None:
            reliability = _reliabilities(rows)
        return _seats(table, rows, reliability, self.context.get("bots"))

    def get_open_seats(self, table: Table) -> int:
        if table.status != Table.Status.LOBBY:
            return 0
        return table.seat_count - len(_seat_rows(table))


class ViewOutputSerializer(serializers.Serializer[Any]):
    table = serializers.IntegerField()
    seq = serializers.IntegerField(
        help_text="The table's sequence number; the ETag is it (with a count of presence "
        "changes at a real-time table)."
    )
    status = serializers.ChoiceField(choices=Table.Status.choices)
    seats = SeatOutputSerializer(many=True)
    deadline_at = serializers.DateTimeField(allow_null=True)
    turn_started_at = serializers.DateTimeField(allow_null=True)
    # Generated from each game's view types: the API serves the game's dict as it is.
    game = GameViewSerializer


class MoveOutputSerializer(serializers.Serializer[Any]):
    seq = serializers.IntegerField()
    events = serializers.ListField(
        child=serializers.DictField(), help_text="What the move caused, as you may see it."
    )
    view = ViewOutputSerializer()


def _table_out(table: Table) -> dict[str, Any]:
    return dict(TableOutputSerializer(table).data)


_DATETIME = serializers.DateTimeField()  # the same rendering as the serializers'


def _datetime(value: datetime | None) -> str | None:
    return None if value is None else _DATETIME.to_representation(value)


def _view_out(
    table: Table,
    seat: int | None,
    rows: list[Seat] | None = None,
    state: GameState | None = None,
    seats_out: list[dict[str, Any]] | None = None,
) -> dict[str, Any]:
    """The view endpoint's body; ``state``: the game in ``table``'s snapshot, if held
    already; ``seats_out``: its ``seats``, if built already (``seats_answer``)."""
    return {
        "table": table.pk,
        "seq": table.seq,
        "status": table.status,
        "seats": _seats(table, rows) if seats_out is None else seats_out,
        "deadline_at": _datetime(table.deadline_at),
        "turn_started_at": _datetime(table.turn_started_at),
        "game": selectors.table_view(table, seat, state),
    }


def _etag(table: Table, body: dict[str, Any] | None = None) -> str:
    """``"<seq>"`` once the game runs (``"<seq>.<n>"`` after n changes of presence at a
    real-time table); in the lobby (seq 0) seats come and go, so a digest."""
    if table.seq > 0:
        return f'"{selectors.view_version(table)}"'
    digest = hashlib.sha256(json.dumps(body, sort_keys=True, default=str).encode()).hexdigest()
    return f'"0-{digest[:16]}"'


def _with_view_headers(response: Response, etag: str) -> Response:
    response["ETag"] = etag
    # The same URL answers each user with their own view: never share a cached copy.
    response["Cache-Control"] = "private, no-cache"
    response["Vary"] = "Authorization, Cookie"
    return response


def _move_out(table_id: int, result: MoveResult, user: User) -> tuple[dict[str, Any], str]:
    """The answer to a move: its events as the caller sees them and the view after bots.

    The seats come from the service when it read them current with the lock, and
    the view from the game it holds, unless bots played after it.
    """
    rows = _seat_rows(result.table) if result.seats is None else result.seats
    seat = result.moves[0].seat if result.moves else None
    if seat is None:  # the start: the host's seat
        seat = next(row.number for row in rows if row.user_id == user.pk)
    events = selectors.events_seen_by(result.table, result.events, seat)
    table = result.table
    state: GameState | None = result.state
    if services.bots_may_act(result.table, result.state, rows):
        run_bots_after_commit(table_id)
        table, state = selectors.table_get(table_id), None
    view = _view_out(table, seat, rows, state)
    return {"seq": result.table.seq, "events": events, "view": view}, _etag(table, view)


def view_answer(
    table: Table,
    seat: int | None,
    rows: list[Seat] | None = None,
    state: GameState | None = None,
    seats_out: list[dict[str, Any]] | None = None,
) -> tuple[dict[str, Any], str]:
    """The body of ``GET /tables/{id}/view/`` for ``seat`` (None: a watcher) and its ETag.

    The WebSocket layer (``live.fanout``) sends the same body after each change;
    ``rows`` (the table's seats with their users), ``state`` (the game in its
    snapshot) and ``seats_out`` (``seats_answer``), when the caller holds them already.
    """
    body = _view_out(table, seat, rows, state, seats_out)
    return body, _etag(table, body)


def seats_answer(table: Table, rows: list[Seat]) -> list[dict[str, Any]]:
    """The ``seats`` of every view of ``table`` (the same for each seat and watcher)."""
    return _seats(table, rows)


def move_answer(table_id: int, result: MoveResult, user: User) -> tuple[dict[str, Any], str]:
    """The answer to a move (its events as ``user`` sees them, the view after bots), ETag.

    What the actions endpoint answers; the WebSocket layer answers an action the same way.
    """
    return _move_out(table_id, result, user)


class _Empty(serializers.Serializer[Any]):
    """A body with no fields: anything sent is refused as unknown."""


# ----------------------------------------------------------------------------
# The lobby


class TableListApi(APIView):
    def get_throttles(self) -> list[Any]:
        return [ActionThrottle()] if self.request.method == "POST" else []

    class FilterSerializer(serializers.Serializer[Any]):
        status = serializers.ChoiceField(choices=Table.Status.choices, required=False)
        mine = QueryBooleanField(
            required=False, default=False, help_text="Only tables you host or hold a seat at."
        )
        open = QueryBooleanField(
            required=False, default=False, help_text="Only lobby tables with a free seat."
        )
        limit = QueryIntegerField(required=False, default=50, min_value=1, max_value=200)
        offset = QueryIntegerField(required=False, default=0, min_value=0, max_value=INT_MAX)

    @extend_schema_serializer(component_name="TableList")
    class ListOutputSerializer(serializers.Serializer[Any]):
        count = serializers.IntegerField()
        results = TableOutputSerializer(many=True)

    class _TableInput(serializers.Serializer[Any]):
        """The table's own fields, whichever the game and the mode."""

        seat_count = StrictIntegerField(min_value=2, max_value=10)
        allow_watchers = StrictBooleanField(required=False, default=False)
        rated = StrictBooleanField(
            required=False,
            default=True,
            help_text="The game's result moves its players' ratings; false: an unrated table.",
        )
        min_reliability = StrictIntegerField(
            required=False,
            default=0,
            min_value=0,
            max_value=100,
            help_text="The reliability in percent a player needs to join (their turns on "
            "time and games finished over the last 90 days); 0, the default: anyone. A "
            "player with no record yet may join.",
        )
        bot_accounts = StrictChoiceField(
            choices=Table.BotAccounts.choices,
            required=False,
            default=Table.BotAccounts.INVITED,
            help_text="Bot accounts (programs people run, marked BOT): refused; invited, the "
            "default (only those you invite, POST /tables/{id}/invitations/); or welcome.",
        )

    class _TurnByTurn(serializers.Serializer[Any]):
        """A turn-by-turn table: a deadline of hours per turn, a policy when it passes."""

        mode = StrictChoiceField(
            choices=[TURN_BY_TURN],
            required=False,
            default=TURN_BY_TURN,
            help_text="turn_by_turn, the default: each turn has a deadline of hours.",
        )
        turn_hours = StrictChoiceField(choices=list(Table.TURN_HOURS), required=False, default=24)
        timeout_policy = StrictChoiceField(
            choices=Table.TimeoutPolicy.choices,
            required=False,
            default=Table.TimeoutPolicy.BOT,
        )
        autopilot = StrictBooleanField(
            required=False,
            default=True,
            help_text="A player who is away has their turns played at once by the bot they "
            "chose (ruling 20); false: their seat waits for its deadline like anyone's.",
        )

    class _RealTime(serializers.Serializer[Any]):
        """A real-time table: a move timer of seconds, three strikes (rulings 17 and 18)."""

        mode = StrictChoiceField(
            choices=[REAL_TIME], help_text="real_time: each move has a timer of seconds."
        )
        move_timer = StrictChoiceField(
            choices=list(realtime.MOVE_TIMERS),
            required=False,
            default="normal",
            help_text="Relaxed (45 s), normal (30 s) or fast (15 s).",
        )

    #: The request body's serializer for each (game, mode): one shape per game and mode.
    create_inputs: dict[tuple[str, str], type[serializers.Serializer[Any]]] = typed.table_inputs(
        _TableInput, {TURN_BY_TURN: _TurnByTurn, REAL_TIME: _RealTime}
    )

    #: The request body: one game's and one mode's fields (``game`` and ``mode`` tell which).
    create_input = PolymorphicProxySerializer(
        component_name="TableCreateInput",
        serializers=list(create_inputs.values()),
        resource_type_field_name=None,
    )

    def parse_create(self, data: Any) -> dict[str, Any]:
        """A table's options from the body, by the fields of its game and mode."""
        game = data.get("game", rulesets.DEFAULT_GAME) if isinstance(data, dict) else None
        if game not in rulesets.game_ids():
            games = ", ".join(rulesets.game_ids())
            raise exceptions.ValidationError({"game": [f"The games are {games}."]})
        mode = REAL_TIME if isinstance(data, dict) and data.get("mode") == REAL_TIME else None
        parsed = parse_input(self.create_inputs[game, mode or TURN_BY_TURN], data)
        parsed.pop("mode")
        options = dict(parsed.pop("options", None) or {})
        top_level = set(typed.TOP_LEVEL_OPTIONS) & set(parsed)
        for name in top_level:  # Flip's fields from before there were several games:
            value = parsed.pop(name)  # options.<name>, when given too, is the one that counts
            options.setdefault(name, value)
        rules = rulesets.ruleset(game)
        try:
            rules.make_options(parsed["seat_count"], options)
        except OptionError as error:
            field = error.option if error.option in top_level else f"options.{error.option}"
            raise exceptions.ValidationError({field: [_sentence(error)]}) from None
        except ValueError as error:
            raise exceptions.ValidationError({"seat_count": [_sentence(error)]}) from None
        parsed["game"], parsed["options"] = game, options
        return parsed

    @extend_schema(
        tags=TAG,
        summary="List tables",
        operation_id="tables_list",
        parameters=[FilterSerializer],
        responses={200: ListOutputSerializer, **_errors(400, 401)},
    )
    def get(self, request: Request) -> Response:
        params = parse_query(self.FilterSerializer, request.query_params)
        tables = selectors.tables_list(
            user=request_user(request),
            status=params.get("status"),
            mine=params["mine"],
            open_seats=params["open"],
        )
        count = tables.count()
        page = list(
            tables.select_related("host").prefetch_related("seats__user", "seats__previous_user")[
                params["offset"] : params["offset"] + params["limit"]
            ]
        )
        players = [s for t in page for s in _seat_rows(t)]
        context = {
            "reliability": _reliabilities(players),
            "bots": selectors.bot_account_ids(s.user_id for s in players if s.user_id),
        }
        results = TableOutputSerializer(page, many=True, context=context).data
        return Response({"count": count, "results": results})

    @extend_schema(
        tags=TAG,
        summary="Open a table; you take seat 0 and host it",
        description="Turn by turn (deadlines of 12, 24 or 72 hours) unless `mode` is "
        "`real_time` (a move timer): each mode takes its own fields and refuses the other's.",
        request=create_input,
        responses={201: TableOutputSerializer, **_errors(400, 401, 409, 422, 429)},
    )
    @idempotent
    def post(self, request: Request) -> Response:
        data = self.parse_create(request.data)
        table = services.table_create(host=request_user(request), **data)
        return Response(_table_out(table), status=status.HTTP_201_CREATED)


class TableDetailApi(APIView):
    @extend_schema(
        tags=TAG,
        summary="A table's options and seats (public)",
        responses={200: TableOutputSerializer, **_errors(401, 404)},
    )
    def get(self, request: Request, table_id: int) -> Response:  # noqa: ARG002 (DRF's signature)
        return Response(_table_out(selectors.table_get(table_id)))


class TableJoinApi(APIView):
    throttle_classes = (ActionThrottle,)

    @extend_schema(
        tags=TAG,
        summary="Take the next free seat",
        description="Accepts your pending invitation to the table, if any. A bot account "
        "is refused with 403 bot_accounts_refused at a table that refuses them, 403 "
        "invitation_needed at one that admits only those invited and 403 "
        "bot_account_disabled once disabled; anyone, 403 reliability_too_low below the "
        "table's minimum.",
        request=None,
        responses={201: TableOutputSerializer, **_errors(400, 401, 403, 404, 409, 422, 429)},
    )
    @idempotent
    def post(self, request: Request, table_id: int) -> Response:
        parse_input(_Empty, request.data)
        services.table_join(table_id=table_id, user=request_user(request))
        return Response(_table_out(selectors.table_get(table_id)), status=status.HTTP_201_CREATED)


class TableAddBotApi(APIView):
    throttle_classes = (ActionThrottle,)

    @extend_schema_serializer(component_name="AddBotInput")
    class InputSerializer(serializers.Serializer[Any]):
        level = StrictChoiceField(
            choices=Seat.BotLevel.choices, required=False, default=Seat.BotLevel.EASY
        )

    @extend_schema(
        tags=TAG,
        summary="Seat a bot (host only)",
        request=InputSerializer,
        responses={201: TableOutputSerializer, **_errors(400, 401, 403, 404, 409, 422, 429)},
    )
    @idempotent
    def post(self, request: Request, table_id: int) -> Response:
        data = parse_input(self.InputSerializer, request.data)
        services.table_add_bot(table_id=table_id, user=request_user(request), level=data["level"])
        return Response(_table_out(selectors.table_get(table_id)), status=status.HTTP_201_CREATED)


class TableRemoveBotApi(APIView):
    throttle_classes = (ActionThrottle,)

    @extend_schema(
        tags=TAG,
        summary="Take a bot off the table before the start (host only)",
        description="Removes the bot in seat `seat` (0-based, as `number` in `seats`); "
        "later seats move up one, and the bots' names follow their new places. 403 "
        "not_host for anyone but the host, 404 no_such_seat for a seat nobody holds, "
        "409 not_a_bot for a person's seat and not_in_lobby once the game "
        "has started. Send an Idempotency-Key to retry safely: the same request again "
        "would remove the bot that moved up into that seat.",
        request=None,
        responses={200: TableOutputSerializer, **_errors(400, 401, 403, 404, 409, 422, 429)},
    )
    @idempotent
    def delete(self, request: Request, table_id: int, seat: int) -> Response:
        parse_input(_Empty, request.data)
        services.table_remove_bot(table_id=table_id, user=request_user(request), number=seat)
        return Response(_table_out(selectors.table_get(table_id)))


class TableLeaveApi(APIView):
    throttle_classes = (ActionThrottle,)

    @extend_schema(
        tags=TAG,
        summary="Give up your lobby seat (the host leaving closes the table)",
        request=None,
        responses={200: TableOutputSerializer, **_errors(400, 401, 403, 404, 409, 422, 429)},
    )
    @idempotent
    def post(self, request: Request, table_id: int) -> Response:
        parse_input(_Empty, request.data)
        services.table_leave_lobby(table_id=table_id, user=request_user(request))
        return Response(_table_out(selectors.table_get(table_id)))


class TableStartApi(APIView):
    throttle_classes = (ActionThrottle,)

    @extend_schema(
        tags=TAG,
        summary="Deal the first round (host only; at least two seats filled)",
        description="429 bot_games_capped, with Retry-After, for a game with no person at "
        "it when one of its bot accounts has started GAMENOOK_BOT_GAMES_PER_DAY such games "
        "(100 by default) in the last 24 hours.",
        request=None,
        responses={200: MoveOutputSerializer, **_errors(400, 401, 403, 404, 409, 422, 429)},
    )
    @idempotent
    def post(self, request: Request, table_id: int) -> Response:
        parse_input(_Empty, request.data)
        user = request_user(request)
        result = services.table_start(table_id=table_id, user=user)
        body, etag = _move_out(table_id, result, user)
        return _with_view_headers(Response(body), etag)


# ----------------------------------------------------------------------------
# Play


class TableViewApi(APIView):
    @extend_schema(
        tags=TAG,
        summary="The game as you may see it (your seat, or a watcher's view)",
        description="Answers 304 when If-None-Match holds the current ETag. A user "
        "without a seat gets the watcher view if the table allows watching, 403 otherwise.",
        responses={
            200: ViewOutputSerializer,
            304: OpenApiResponse(description="Not modified since the ETag you sent."),
            **_errors(401, 403, 404),
        },
    )
    def get(self, request: Request, table_id: int) -> Response:
        table, rows = selectors.table_with_seats(table_id)
        seat = selectors.viewer_seat(table, request_user(request), rows)
        # If-None-Match compares weakly: W/"5" matches "5".
        wanted = {
            tag.removeprefix("W/") for tag in parse_etags(request.headers.get("If-None-Match", ""))
        }
        if table.seq > 0 and (_etag(table) in wanted or "*" in wanted):
            return _with_view_headers(Response(status=status.HTTP_304_NOT_MODIFIED), _etag(table))
        body = _view_out(table, seat, rows)
        etag = _etag(table, body)
        if etag in wanted or "*" in wanted:
            return _with_view_headers(Response(status=status.HTTP_304_NOT_MODIFIED), etag)
        return _with_view_headers(Response(body), etag)


class TableActionApi(APIView):
    throttle_classes = (ActionThrottle,)

    @extend_schema_serializer(component_name="ActionInput")
    class InputSerializer(serializers.Serializer[Any]):
        type = StrictChoiceField(
            choices=_request_types,
            help_text="One of the game's actions: play, draw, choose_color, pass; the classic "
            "game adds take_penalty.",
        )
        card = StrictCharField(
            required=False,
            allow_null=True,
            min_length=1,
            max_length=64,
            help_text="A handle from your hand.",
        )
        color = StrictCharField(
            required=False,
            allow_null=True,
            min_length=1,
            max_length=16,
            help_text="For a Wild or a choice.",
        )
        target = StrictIntegerField(
            required=False,
            allow_null=True,
            min_value=0,
            max_value=INT_MAX,
            help_text="Classic Wild Cards with the 7-0 rule: the seat a 7 swaps hands with.",
        )
        expected_seq = StrictIntegerField(
            required=False,
            allow_null=True,
            min_value=0,
            help_text="The seq of the view you acted on; a stale one answers 409.",
        )

    @extend_schema(
        tags=TAG,
        summary="Play, draw, choose a colour, take a penalty or pass",
        description="Answers 201 with the events the move caused (as you may see them) "
        "and your view after it and any bot turns that followed: what GET .../view/ would "
        "answer now, with its ETag in the ETag header, so the client need not read the view "
        "again before its next action. With the header X-Gamenook-Socket naming one of "
        "your sockets at the table (the id of its hello frame), that socket is not sent "
        "this view again: 400 invalid_socket if the header cannot be such an id. 409 when "
        "expected_seq is stale, 409 struck_out when a bot plays your seat for the rest of "
        "the game (three strikes at a real-time table: you keep your seat's view and may "
        "concede), 422 with the rule's code when the rules refuse the move.",
        request=InputSerializer,
        parameters=[
            OpenApiParameter(
                services.SOCKET_HEADER,
                {"type": "string", "pattern": services.SOCKET_ID_PATTERN},
                OpenApiParameter.HEADER,
                description="The id your socket at this table sent in its hello frame: "
                "that socket is not sent the view this answer carries.",
            )
        ],
        responses={201: MoveOutputSerializer, **_errors(400, 401, 403, 404, 409, 422, 429)},
    )
    @idempotent
    def post(self, request: Request, table_id: int) -> Response:
        data = parse_input(self.InputSerializer, request.data)
        expected_seq = data.pop("expected_seq", None)
        if data.get("target") is None:
            data.pop("target", None)  # null is the same as leaving it out
        user = request_user(request)
        result = services.table_apply_action(
            table_id=table_id,
            user=user,
            data=data,
            expected_seq=expected_seq,
            socket=request.headers.get(services.SOCKET_HEADER),
        )
        body, etag = _move_out(table_id, result, user)
        return _with_view_headers(Response(body, status=status.HTTP_201_CREATED), etag)


class TableConcedeApi(APIView):
    throttle_classes = (ActionThrottle,)

    @extend_schema(
        tags=TAG,
        summary="Leave the running game: your cards go under the draw pile",
        request=None,
        responses={200: MoveOutputSerializer, **_errors(400, 401, 403, 404, 409, 422, 429)},
    )
    @idempotent
    def post(self, request: Request, table_id: int) -> Response:
        parse_input(_Empty, request.data)
        user = request_user(request)
        result = services.table_concede(table_id=table_id, user=user)
        body, etag = _move_out(table_id, result, user)
        return _with_view_headers(Response(body), etag)


class LogMoveSerializer(serializers.Serializer[Any]):
    seq = serializers.IntegerField()
    round = serializers.IntegerField()
    seat = serializers.IntegerField(allow_null=True)
    action = serializers.CharField()
    source = serializers.CharField()  # type: ignore[assignment]  # see ErrorSerializer
    created_at = serializers.DateTimeField()
    events = serializers.ListField(
        child=serializers.DictField(), help_text="What the move caused, as you may see it."
    )


class TableLogApi(APIView):
    class FilterSerializer(serializers.Serializer[Any]):
        after = QueryIntegerField(
            required=False,
            default=0,
            min_value=0,
            max_value=INT_MAX,
            help_text="Only moves with a greater seq.",
        )

    @extend_schema_serializer(component_name="LogOutput")
    class OutputSerializer(serializers.Serializer[Any]):
        table = serializers.IntegerField()
        seq = serializers.IntegerField()
        moves = LogMoveSerializer(many=True)

    @extend_schema(
        tags=TAG,
        summary="The moves as you may see them, oldest first",
        parameters=[FilterSerializer],
        responses={200: OutputSerializer, **_errors(400, 401, 403, 404)},
    )
    def get(self, request: Request, table_id: int) -> Response:
        after = parse_query(self.FilterSerializer, request.query_params)["after"]
        table = selectors.table_get(table_id)
        seat = selectors.viewer_seat(table, request_user(request))
        moves = selectors.table_log(table, seat, after=after)
        return Response(
            {
                "table": table.pk,
                "seq": table.seq,
                "moves": LogMoveSerializer(moves, many=True).data,
            }
        )


class TableRecordApi(APIView):
    @extend_schema(
        tags=TAG,
        summary="The full game record, once the game is over",
        responses={
            200: OpenApiResponse(description="The record: see docs/record-format.md."),
            **_errors(401, 403, 404, 409),
        },
    )
    def get(self, request: Request, table_id: int) -> Response:
        table = selectors.table_get(table_id)
        selectors.viewer_seat(table, request_user(request))
        return Response(selectors.table_record(table))
