"""Bot accounts (issue 40): a person's bots and their tokens, under ``/api/v1/me/bots/``.

Only the owner sees a bot: another person's bot answers 404, the same as a
name nobody has. A ``play`` token (a bot's) may not call these at all
(``authentication.PLAY_ALLOWED``). A bot is never deleted, its games keep its
name: ``DELETE`` disables it. Every endpoint is in the ``accounts`` rate-limit
scope; bodies use the strict fields (a value of the wrong JSON type is refused).
"""

from __future__ import annotations

from typing import Any

from drf_spectacular.utils import OpenApiParameter, extend_schema, extend_schema_serializer
from rest_framework import serializers, status
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from games.apis.common import AccountThrottle, parse_input, request_user
from games.apis.errors import ErrorSerializer
from games.apis.fields import StrictBooleanField, StrictCharField
from games.errors import NotFound

from . import selectors, services
from .models import ApiToken
from .validators import MAX_LENGTH, UsernameValidator

TAG = ["bots"]


def _errors(*codes: int) -> dict[int, Any]:
    return {code: ErrorSerializer for code in codes}


BOT_NAME = OpenApiParameter(
    "username",
    {"type": "string", "minLength": 1, "maxLength": MAX_LENGTH},
    OpenApiParameter.PATH,
    description="The bot account's username, exactly as it is written.",
)

_DATETIME = serializers.DateTimeField()


def _bot(request: Request, username: str) -> selectors.Bot:
    """The caller's bot named ``username``, else 404 (whoever else's it may be)."""
    # A name no account could have (too long, a NUL PostgreSQL cannot compare) finds no one.
    found = None
    if len(username) <= MAX_LENGTH and "\x00" not in username:
        found = selectors.bot_of(owner=request_user(request), username=username)
    if found is None:
        raise NotFound("No such bot account.")
    return found


@extend_schema_serializer(component_name="BotAccount")
class BotSerializer(serializers.Serializer[Any]):
    username = serializers.CharField()
    description = serializers.CharField()
    created_at = serializers.DateTimeField()
    disabled = serializers.BooleanField(
        help_text="A disabled bot's tokens are refused (401) until it is enabled again."
    )
    disabled_at = serializers.DateTimeField(allow_null=True)
    tokens = serializers.IntegerField(help_text="How many tokens it holds.")


def _bot_body(bot: selectors.Bot) -> dict[str, Any]:
    return {
        "username": bot.username,
        "description": bot.description,
        "created_at": _DATETIME.to_representation(bot.created_at),
        "disabled": bot.disabled,
        "disabled_at": _DATETIME.to_representation(bot.disabled_at) if bot.disabled_at else None,
        "tokens": bot.tokens,
    }


_DESCRIPTION = {
    "max_length": services.BOT_DESCRIPTION_LENGTH,
    "allow_blank": True,
    "help_text": "What the bot is, for people who meet it; no control characters.",
}


@extend_schema_serializer(component_name="BotCreateInput")
class BotCreateInput(serializers.Serializer[Any]):
    username = StrictCharField(
        min_length=1,
        max_length=MAX_LENGTH,
        validators=[UsernameValidator()],
        help_text="As a person's name at sign-up: letters of one script, digits and "
        ". @ + - _, no look-alike of a name taken.",
    )
    description = StrictCharField(required=False, default="", **_DESCRIPTION)


@extend_schema_serializer(component_name="BotCreateOutput")
class BotCreateOutput(BotSerializer):
    token = serializers.CharField(
        help_text='Its first `play` token: send "Authorization: Token <token>". Shown only now.'
    )


class BotListApi(APIView):
    throttle_classes = (AccountThrottle,)

    @extend_schema(
        tags=TAG,
        summary="Your bot accounts",
        responses={200: BotSerializer(many=True), **_errors(401, 403, 429)},
    )
    def get(self, request: Request) -> Response:
        bots = selectors.bots_of(owner=request_user(request))
        return Response([_bot_body(bot) for bot in bots])

    @extend_schema(
        tags=TAG,
        summary="Make a bot account (its first token is in the answer, shown only now)",
        description="The name follows the sign-up rules. 403 `email_not_confirmed` until your "
        "address is confirmed, `bots_not_allowed` for a bot account; 409 `too_many_bots` past "
        "`GAMENOOK_BOTS_PER_OWNER` bots (disabled ones count: a bot is never deleted).",
        request=BotCreateInput,
        responses={201: BotCreateOutput, **_errors(400, 401, 403, 409, 413, 429)},
    )
    def post(self, request: Request) -> Response:
        data = parse_input(BotCreateInput, request.data)
        owner = request_user(request)
        user, key = services.bot_create(owner=owner, **data)
        bot = selectors.bot_of(owner=owner, username=user.username)
        if bot is None:  # disabled or renamed by a moderator since: not this client's to see
            raise NotFound("No such bot account.")
        return Response({**_bot_body(bot), "token": key}, status=status.HTTP_201_CREATED)


@extend_schema_serializer(component_name="BotChangeInput")
class BotChangeInput(serializers.Serializer[Any]):
    description = StrictCharField(required=False, **_DESCRIPTION)
    disabled = StrictBooleanField(
        required=False,
        help_text="true: disable it (its tokens are refused at once, its sockets and streams "
        "end); false: enable it again.",
    )


class BotDetailApi(APIView):
    throttle_classes = (AccountThrottle,)

    @extend_schema(
        tags=TAG,
        summary="One of your bot accounts",
        parameters=[BOT_NAME],
        responses={200: BotSerializer, **_errors(401, 403, 404, 429)},
    )
    def get(self, request: Request, username: str) -> Response:
        return Response(_bot_body(_bot(request, username)))

    @extend_schema(
        tags=TAG,
        summary="Change a bot's description, or disable or enable it",
        description="A field left out is left as it is. Disabling refuses the bot's tokens "
        "at once (401) and ends its sockets and streams; enabling brings its tokens back.",
        parameters=[BOT_NAME],
        request=BotChangeInput,
        responses={200: BotSerializer, **_errors(400, 401, 403, 404, 409, 413, 429)},
    )
    def patch(self, request: Request, username: str) -> Response:
        data = parse_input(BotChangeInput, request.data, partial=True)
        owner, bot = request_user(request), _bot(request, username)
        if "description" in data:
            services.bot_update(owner=owner, bot=bot.user, description=data["description"])
        if data.get("disabled") is True:
            services.bot_disable(bot.user, by=owner)
        elif data.get("disabled") is False:
            services.bot_enable(bot.user, by=owner)
        return Response(_bot_body(_bot(request, username)))

    @extend_schema(
        tags=TAG,
        summary="Disable a bot account (never deleted: its games keep its name)",
        parameters=[BOT_NAME],
        responses={204: None, **_errors(401, 403, 404, 429)},
    )
    def delete(self, request: Request, username: str) -> Response:
        bot = _bot(request, username)
        services.bot_disable(bot.user, by=request_user(request))
        return Response(status=status.HTTP_204_NO_CONTENT)


@extend_schema_serializer(component_name="BotTokenInfo")
class BotTokenSerializer(serializers.Serializer[Any]):
    id = serializers.IntegerField()
    name = serializers.CharField()
    prefix = serializers.CharField(help_text="Its first characters, to tell tokens apart.")
    scope = serializers.CharField(help_text="Always `play` for a bot.")
    created_at = serializers.DateTimeField()
    last_used_at = serializers.DateTimeField(allow_null=True, help_text="To within five minutes.")


@extend_schema_serializer(component_name="BotTokenInput")
class BotTokenInput(serializers.Serializer[Any]):
    name = StrictCharField(
        min_length=1,
        max_length=64,
        help_text="Which program holds it; a token of the same name is replaced.",
    )


@extend_schema_serializer(component_name="BotTokenOutput")
class BotTokenOutput(BotTokenSerializer):
    token = serializers.CharField(help_text="The `play` token. Shown only now.")


def _token_body(token: ApiToken) -> dict[str, Any]:
    return {
        "id": token.pk,
        "name": token.name,
        "prefix": token.prefix,
        "scope": token.scope,
        "created_at": _DATETIME.to_representation(token.created_at),
        "last_used_at": _DATETIME.to_representation(token.last_used_at)
        if token.last_used_at
        else None,
    }


class BotTokenListApi(APIView):
    throttle_classes = (AccountThrottle,)

    @extend_schema(
        tags=TAG,
        summary="A bot's tokens (names and prefixes; never the tokens)",
        parameters=[BOT_NAME],
        responses={200: BotTokenSerializer(many=True), **_errors(401, 403, 404, 429)},
    )
    def get(self, request: Request, username: str) -> Response:
        bot = _bot(request, username)
        return Response([_token_body(t) for t in selectors.tokens_of(user=bot.user)])

    @extend_schema(
        tags=TAG,
        summary="Make a `play` token for a bot (shown only now)",
        description="409 `bot_disabled` while the bot is disabled, `too_many_tokens` past "
        "the tokens one account may hold.",
        parameters=[BOT_NAME],
        request=BotTokenInput,
        responses={201: BotTokenOutput, **_errors(400, 401, 403, 404, 409, 413, 429)},
    )
    def post(self, request: Request, username: str) -> Response:
        data = parse_input(BotTokenInput, request.data)
        bot = _bot(request, username)
        token, key = services.bot_token_create(
            owner=request_user(request), bot=bot.user, name=data["name"]
        )
        return Response({**_token_body(token), "token": key}, status=status.HTTP_201_CREATED)


class BotTokenDetailApi(APIView):
    throttle_classes = (AccountThrottle,)

    @extend_schema(
        tags=TAG,
        summary="Revoke one of a bot's tokens",
        parameters=[BOT_NAME],
        responses={204: None, **_errors(401, 403, 404, 429)},
    )
    def delete(self, request: Request, username: str, token_id: int) -> Response:
        bot = _bot(request, username)
        services.bot_token_revoke(owner=request_user(request), bot=bot.user, token_id=token_id)
        return Response(status=status.HTTP_204_NO_CONTENT)
