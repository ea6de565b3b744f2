"""Accounts: register, tokens, log out, addresses, passwords, ``/me``.

Every endpoint here is in the ``accounts`` rate-limit scope. Request bodies
use the strict fields of ``games.apis.fields``: a value of the wrong JSON
type is refused, never coerced.
"""

from __future__ import annotations

from typing import Any

from django.contrib.auth import logout, update_session_auth_hash
from django.contrib.auth.models import User
from drf_spectacular.utils import extend_schema, extend_schema_field, extend_schema_serializer
from rest_framework import serializers, status
from rest_framework.permissions import AllowAny
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from games import away
from games.apis.common import AccountThrottle, parse_input, request_user
from games.apis.errors import ErrorSerializer
from games.apis.fields import (
    StrictBooleanField,
    StrictCharField,
    StrictChoiceField,
    StrictEmailField,
    StrictIntegerField,
)
from games.apis.idempotency import idempotent
from games.errors import ServiceError
from notifications import services as notifications

from . import backoff, selectors, services
from .models import ApiToken
from .validators import MAX_LENGTH, UsernameValidator

TAG = ["accounts"]

#: The password rules the server applies (AUTH_PASSWORD_VALIDATORS), for the schema.
RULES_HELP = (
    "8 to 128 characters; not mostly digits, not a common password, "
    "not too close to the username or the address."
)


def _errors(*codes: int) -> dict[int, Any]:
    return {code: ErrorSerializer for code in codes}


_user = request_user  # IsAuthenticated has run: the user is a real one


def _password(**kwargs: Any) -> StrictCharField:
    return StrictCharField(
        write_only=True, min_length=8, max_length=128, help_text=RULES_HELP, **kwargs
    )


def _detail(text: str) -> dict[str, str]:
    return {"detail": text}


_DATETIME = serializers.DateTimeField()


class DetailSerializer(serializers.Serializer[Any]):
    detail = serializers.CharField(help_text="What happened, for a person.")


_EMAIL_NULL = serializers.EmailField(
    allow_null=True, help_text="The account's address: confirmed, or null while it has none."
)
_PENDING = serializers.EmailField(
    allow_null=True,
    help_text="The address asked for and not confirmed yet (it becomes `email` once the link "
    "mailed to it is followed), or null. The same whether or not the address was free.",
)


class RegisterApi(APIView):
    authentication_classes = ()
    permission_classes = (AllowAny,)
    throttle_classes = (AccountThrottle,)

    @extend_schema_serializer(component_name="RegisterInput")
    class InputSerializer(serializers.Serializer[Any]):
        username = StrictCharField(
            min_length=1,
            max_length=MAX_LENGTH,
            validators=[UsernameValidator()],
            help_text="Kept in its NFKC form. Letters of one script (or a mix a language "
            "writes with, as Latin with Han and kana), digits and . @ + - _; no spaces, no "
            "invisible, control or direction characters. Taken if another name is the same "
            "once case and look-alike letters are set aside (Alice, ＡＬＩＣＥ, alice).",
        )
        email = StrictEmailField(
            help_text="It waits for confirmation: a mail to it says how. The answer is the "
            "same whether or not an account has the address."
        )
        password = _password()

    @extend_schema_serializer(component_name="RegisterOutput")
    class OutputSerializer(serializers.Serializer[Any]):
        id = serializers.IntegerField()
        username = serializers.CharField(help_text="As kept: the NFKC form of the name sent.")
        email = _EMAIL_NULL
        pending_email = _PENDING
        email_verified = serializers.BooleanField()

    @extend_schema(
        tags=TAG,
        summary="Register a new account (its address waits for confirmation)",
        description="The account is made with no address of its own and `email` waiting: a "
        "mail to that address holds a link that confirms it, or, when another account has "
        "it already, says so to its owner. The answer does not tell which. 429 "
        "`mail_throttled` (nothing made) when the address was mailed less than "
        "`GAMENOOK_CONFIRM_MAIL_INTERVAL` seconds ago.",
        request=InputSerializer,
        responses={201: OutputSerializer, **_errors(400, 413, 429)},
        auth=[],
    )
    def post(self, request: Request) -> Response:
        data = parse_input(self.InputSerializer, request.data)
        # MailHeld answers 429 mail_throttled with Retry-After (games.apis.errors).
        user = services.user_register(**data)
        body = {"id": user.pk, "username": user.username, "email": user.email or None}
        body |= {"pending_email": data["email"], "email_verified": False}
        return Response(body, status=status.HTTP_201_CREATED)


class TokenApi(APIView):
    authentication_classes = ()
    permission_classes = (AllowAny,)
    throttle_classes = (AccountThrottle,)

    @extend_schema_serializer(component_name="TokenInput")
    class InputSerializer(serializers.Serializer[Any]):
        username = StrictCharField(max_length=150)
        password = StrictCharField(write_only=True, max_length=128)
        name = StrictCharField(
            required=False,
            default="default",
            min_length=1,
            max_length=64,
            help_text="Which client the token is for; a token of the same name is replaced.",
        )

    @extend_schema_serializer(component_name="TokenOutput")
    class OutputSerializer(serializers.Serializer[Any]):
        token = serializers.CharField(
            help_text='Send it as the header "Authorization: Token <token>". '
            "Shown only now: the server keeps only its hash."
        )
        id = serializers.IntegerField()
        name = serializers.CharField()
        prefix = serializers.CharField(help_text="Its first characters, to tell tokens apart.")

    @extend_schema(
        tags=TAG,
        summary="Make a named API token with a username and password",
        description="After a few wrong passwords for one username, or from one address, "
        "each further try must wait, doubling up to a bound: 429 `login_locked` with "
        "Retry-After, the right password included. The web's log-in page counts with it.",
        request=InputSerializer,
        responses={200: OutputSerializer, **_errors(400, 409, 413, 429)},
        auth=[],
    )
    def post(self, request: Request) -> Response:
        data = parse_input(self.InputSerializer, request.data)
        # The web's log-in page counts failures with this endpoint (accounts.backoff); a
        # lock answers 429 login_locked with Retry-After (games.apis.errors).
        user = backoff.authenticate(
            request=request._request, username=data["username"], password=data["password"]
        )
        if user is None:
            raise ServiceError("Wrong username or password.", code="invalid_credentials")
        token, key = services.token_create(user=user, name=data["name"])
        return Response({"token": key, "id": token.pk, "name": token.name, "prefix": token.prefix})


class LogoutApi(APIView):
    throttle_classes = (AccountThrottle,)

    @extend_schema(
        tags=TAG,
        summary="Log out: revoke the token this request carries (or end the session)",
        request=None,
        responses={204: None, **_errors(400, 401, 403, 429)},
    )
    def post(self, request: Request) -> Response:
        parse_input(_Empty, request.data)
        if isinstance(request.auth, ApiToken):
            services.token_revoke(user=_user(request), token_id=request.auth.pk)
        else:
            logout(request._request)
        return Response(status=status.HTTP_204_NO_CONTENT)


class _Empty(serializers.Serializer[Any]):
    """A body with no fields."""


class TokenListApi(APIView):
    throttle_classes = (AccountThrottle,)

    @extend_schema_serializer(component_name="TokenInfo")
    class OutputSerializer(serializers.Serializer[Any]):
        id = serializers.IntegerField()
        name = serializers.CharField()
        prefix = serializers.CharField()
        created_at = serializers.DateTimeField()
        last_used_at = serializers.DateTimeField(
            allow_null=True, help_text="To within five minutes."
        )
        current = serializers.BooleanField(help_text="The token this request carries.")

    @extend_schema(
        tags=TAG,
        summary="Your API tokens (names and prefixes; never the tokens)",
        responses={200: OutputSerializer(many=True), **_errors(401, 429)},
    )
    def get(self, request: Request) -> Response:
        current = request.auth.pk if isinstance(request.auth, ApiToken) else None
        rows = [
            {
                "id": t.pk,
                "name": t.name,
                "prefix": t.prefix,
                "created_at": _DATETIME.to_representation(t.created_at),
                "last_used_at": _DATETIME.to_representation(t.last_used_at)
                if t.last_used_at
                else None,
                "current": t.pk == current,
            }
            for t in selectors.tokens_of(user=_user(request))
        ]
        return Response(rows)


class TokenDetailApi(APIView):
    throttle_classes = (AccountThrottle,)

    @extend_schema(
        tags=TAG,
        summary="Revoke one of your tokens",
        responses={204: None, **_errors(401, 403, 404, 429)},
    )
    def delete(self, request: Request, token_id: int) -> Response:
        services.token_revoke(user=_user(request), token_id=token_id)
        return Response(status=status.HTTP_204_NO_CONTENT)


class VerifyEmailApi(APIView):
    """The token from the confirmation link; no login needed (the token is the proof)."""

    authentication_classes = ()
    permission_classes = (AllowAny,)
    throttle_classes = (AccountThrottle,)

    @extend_schema_serializer(component_name="VerifyEmailInput")
    class InputSerializer(serializers.Serializer[Any]):
        token = StrictCharField(max_length=500, help_text="The last part of the mailed link.")

    @extend_schema(
        tags=TAG,
        summary="Confirm an e-mail address with the token of the mailed link",
        request=InputSerializer,
        responses={200: DetailSerializer, **_errors(400, 413, 429)},
        auth=[],
    )
    def post(self, request: Request) -> Response:
        data = parse_input(self.InputSerializer, request.data)
        user = services.email_verify(token=data["token"])
        return Response(_detail(f"{user.email} is confirmed: game e-mail goes to it."))


class PasswordResetApi(APIView):
    authentication_classes = ()
    permission_classes = (AllowAny,)
    throttle_classes = (AccountThrottle,)

    @extend_schema_serializer(component_name="PasswordResetInput")
    class InputSerializer(serializers.Serializer[Any]):
        email = StrictEmailField()

    @extend_schema(
        tags=TAG,
        summary="Mail a password reset link to an account's confirmed address",
        description="Answers 202 whether or not an account has the address, in the same "
        "time: a worker looks the address up. The link goes only to an account's confirmed "
        "address, never to one waiting for confirmation; an account that never confirmed an "
        "address cannot reset its password by mail. At most one a minute per account.",
        request=InputSerializer,
        responses={202: DetailSerializer, **_errors(400, 413, 429)},
        auth=[],
    )
    def post(self, request: Request) -> Response:
        data = parse_input(self.InputSerializer, request.data)
        services.password_reset_request(email=data["email"])
        text = "If an account has this address, a link to reset its password is on its way."
        return Response(_detail(text), status=status.HTTP_202_ACCEPTED)


class PasswordResetConfirmApi(APIView):
    authentication_classes = ()
    permission_classes = (AllowAny,)
    throttle_classes = (AccountThrottle,)

    @extend_schema_serializer(component_name="PasswordResetConfirmInput")
    class InputSerializer(serializers.Serializer[Any]):
        uid = StrictCharField(max_length=64)
        token = StrictCharField(max_length=128)
        password = _password()

    @extend_schema(
        tags=TAG,
        summary="Set a new password with the uid and token of a reset link",
        description="Revokes every API token of the account; the address is told.",
        request=InputSerializer,
        responses={200: DetailSerializer, **_errors(400, 413, 429)},
        auth=[],
    )
    def post(self, request: Request) -> Response:
        data = parse_input(self.InputSerializer, request.data)
        services.password_reset_confirm(**data)
        return Response(_detail("Your password is changed; make a new token to sign in."))


class PasswordChangeApi(APIView):
    throttle_classes = (AccountThrottle,)

    @extend_schema_serializer(component_name="PasswordChangeInput")
    class InputSerializer(serializers.Serializer[Any]):
        current_password = StrictCharField(write_only=True, max_length=128)
        new_password = _password()

    @extend_schema(
        tags=TAG,
        summary="Change your password (your other tokens are revoked; your address is told)",
        request=InputSerializer,
        responses={200: DetailSerializer, **_errors(400, 401, 403, 413, 429)},
    )
    def post(self, request: Request) -> Response:
        data = parse_input(self.InputSerializer, request.data)
        user = _user(request)
        keep = request.auth if isinstance(request.auth, ApiToken) else None
        services.password_change(user=user, keep=keep, **data)
        if keep is None:
            update_session_auth_hash(request._request, user)
        return Response(_detail("Your password is changed; your other tokens are revoked."))


class NotificationPreferencesSerializer(serializers.Serializer[Any]):
    """What the user is told, and how: e-mail and web push per kind, the last call's
    moment and the daily digest. Every switch is on until they change it, except
    the digest, which is opt-in. E-mail and push follow ruling 19: a player at the
    table is not sent one."""

    your_turn = StrictBooleanField(required=False, help_text="E-mail: a turn starts for you.")
    reminder = StrictBooleanField(required=False, help_text="E-mail: half your time is gone.")
    last_call = StrictBooleanField(
        required=False, help_text="E-mail: the last call, at `last_call_when`."
    )
    timeout = StrictBooleanField(required=False, help_text="Your time ran out: what the table did.")
    game_over = StrictBooleanField(required=False, help_text="E-mail: the ranking and scores.")
    unsubscribed_all = StrictBooleanField(
        required=False, help_text="No e-mail at all (the one-click unsubscribe link sets it)."
    )
    your_turn_push = StrictBooleanField(
        required=False, help_text="Web push, to every device you turned push on for."
    )
    reminder_push = StrictBooleanField(required=False, help_text="Web push: the halfway reminder.")
    last_call_push = StrictBooleanField(required=False, help_text="Web push: the last call.")
    game_over_push = StrictBooleanField(required=False, help_text="Web push: a game is over.")
    last_call_when = StrictChoiceField(
        choices=[("off", "off"), ("tenth", "tenth"), ("hour", "hour")],
        required=False,
        help_text="When the last call comes: `off`, `tenth` (a tenth of the turn's time is "
        "left) or `hour` (one hour is left).",
    )
    digest = StrictBooleanField(
        required=False,
        help_text="One e-mail a day at `digest_hour` in `time_zone`: the tables where it is your "
        "turn, most urgent first, and the games that ended since the last one. None when "
        "there is nothing to say.",
    )
    digest_hour = StrictIntegerField(
        min_value=0, max_value=23, required=False, help_text="The digest's hour, 0 to 23."
    )
    time_zone = StrictCharField(
        max_length=64,
        required=False,
        help_text="Your time zone, an IANA name such as `Europe/Paris` (the digest's hour).",
    )

    def validate_time_zone(self, value: str) -> str:
        if not notifications.valid_time_zone(value):
            raise serializers.ValidationError("Not a time zone: use a name such as Europe/Paris.")
        return value


class PlaySettingsSerializer(serializers.Serializer[Any]):
    """How the table plays for you."""

    forced_moves = StrictBooleanField(
        required=False,
        help_text="At turn-by-turn tables, play your turn's only legal action at once (a "
        "draw when nothing can be played, the one card you may play, the drawn card that must "
        "be played when it needs no colour or target), marked `forced` in the history.",
    )


_AWAY_LEVELS = [("easy", "easy"), ("normal", "normal"), ("hard", "hard")]


@extend_schema_serializer(component_name="AwayStatus")
class AwayStatusSerializer(serializers.Serializer[Any]):
    """Your time away (ruling 20) and your allowance of days."""

    state = serializers.ChoiceField(
        choices=[("off", "off"), ("planned", "planned"), ("away", "away")],
        help_text="`away`: your turns at turn-by-turn tables are played at once by your "
        "autopilot; `planned`: it begins at `starts_at`; `off`: you are not away.",
    )
    starts_at = serializers.DateTimeField(allow_null=True)
    ends_at = serializers.DateTimeField(
        allow_null=True, help_text="The end you asked for; null: until you return."
    )
    level = serializers.ChoiceField(choices=_AWAY_LEVELS, allow_null=True)
    autopilot_until = serializers.DateTimeField(
        allow_null=True,
        help_text="When the autopilot stops: `ends_at`, or sooner when your days left run "
        "out first. Past it your tables run on their deadlines as usual.",
    )
    days_used = serializers.FloatField(help_text="Days away within the last 365.")
    days_left = serializers.FloatField()
    allowance_days = serializers.IntegerField(
        help_text="Days away allowed in any 365 (`GAMENOOK_AWAY_DAYS_PER_YEAR`)."
    )


class AwayApi(APIView):
    """Away with autopilot (ruling 20): your time away, set, changed or ended."""

    throttle_classes = (AccountThrottle,)

    @extend_schema_serializer(component_name="AwayInput")
    class InputSerializer(serializers.Serializer[Any]):
        starts_at = serializers.DateTimeField(
            required=False,
            allow_null=True,
            help_text="When it begins; absent, null or past: now. At most a year ahead.",
        )
        ends_at = serializers.DateTimeField(
            required=False,
            allow_null=True,
            help_text="When it ends; absent or null: until you return (or act at a table).",
        )
        level = StrictChoiceField(
            choices=_AWAY_LEVELS,
            required=False,
            help_text="The bot that plays your turns: `normal` unless you say.",
        )

    @extend_schema(
        tags=TAG,
        summary="Your time away and your allowance of days",
        responses={200: AwayStatusSerializer, **_errors(401, 429)},
    )
    def get(self, request: Request) -> Response:
        return Response(AwayStatusSerializer(away.away_status(_user(request)).as_dict()).data)

    @extend_schema(
        tags=TAG,
        summary="Mark yourself away, now or from a date, until a date or until you return",
        description="While you are away, your turns at every turn-by-turn table that allows "
        "it are played at once by a bot of `level`, and everyone at the table sees it. A "
        "time away already planned is replaced; a running one takes the new end and level. "
        "422 `invalid_away` for an end not after the start or now, or a start more than a "
        "year ahead; 409 `away_allowance_used` when no days are left. Any action of yours "
        "at a table ends it, as does `DELETE`.",
        request=InputSerializer,
        responses={200: AwayStatusSerializer, **_errors(400, 401, 409, 413, 422, 429)},
    )
    @idempotent
    def put(self, request: Request) -> Response:
        data = parse_input(self.InputSerializer, request.data)
        status_now = away.away_set(
            user=_user(request),
            starts_at=data.get("starts_at"),
            ends_at=data.get("ends_at"),
            level=data.get("level") or "normal",
        )
        return Response(AwayStatusSerializer(status_now.as_dict()).data)

    @extend_schema(
        tags=TAG,
        summary="You are back (or call off a planned time away)",
        responses={200: AwayStatusSerializer, **_errors(401, 429)},
    )
    def delete(self, request: Request) -> Response:
        status_now = away.away_end(user=_user(request))
        return Response(AwayStatusSerializer(status_now.as_dict()).data)


class MeApi(APIView):
    """The signed-in user, their address and their e-mail preferences (``notifications``)."""

    throttle_classes = (AccountThrottle,)

    @extend_schema_serializer(component_name="MeInput")
    class InputSerializer(serializers.Serializer[Any]):
        email = StrictEmailField(
            required=False,
            help_text="A new address (needs `current_password`). It waits for confirmation and "
            "becomes `email` once the link mailed to it is followed; the answer is the same "
            "whether or not another account has it. Your own address again drops the one "
            "waiting.",
        )
        current_password = StrictCharField(
            required=False,
            write_only=True,
            max_length=128,
            help_text="Your password: needed to change `email` (a token or session alone is not "
            "enough).",
        )
        notifications = NotificationPreferencesSerializer(required=False)
        play = PlaySettingsSerializer(required=False)

    @extend_schema_serializer(component_name="MeOutput")
    class OutputSerializer(serializers.Serializer[Any]):
        id = serializers.IntegerField()
        username = serializers.CharField()
        email = serializers.SerializerMethodField()
        email_verified = serializers.SerializerMethodField()
        pending_email = serializers.SerializerMethodField()
        email_status = serializers.SerializerMethodField()
        notifications = serializers.SerializerMethodField()
        play = serializers.SerializerMethodField()
        away = serializers.SerializerMethodField()
        bot_account = serializers.SerializerMethodField()
        owner = serializers.SerializerMethodField()

        @extend_schema_field(
            serializers.BooleanField(help_text="Whether this is a bot account (issue 40).")
        )
        def get_bot_account(self, user: User) -> bool:
            return selectors.owner_of(user) is not None

        @extend_schema_field(
            serializers.CharField(
                allow_null=True,
                help_text="A bot account's owner (their username); null for a person.",
            )
        )
        def get_owner(self, user: User) -> str | None:
            owner = selectors.owner_of(user)
            return None if owner is None else owner.username

        @extend_schema_field(_EMAIL_NULL)
        def get_email(self, user: User) -> str | None:
            return user.email or None

        @extend_schema_field(
            serializers.BooleanField(
                help_text="Whether `email` is confirmed: game e-mail and "
                "password reset links go only to a confirmed address."
            )
        )
        def get_email_verified(self, user: User) -> bool:
            return notifications.email_is_verified(user)

        @extend_schema_field(_PENDING)
        def get_pending_email(self, user: User) -> str | None:
            return selectors.pending_email_of(user=user)

        @extend_schema_field(
            serializers.CharField(help_text="Whether game e-mail reaches you, and if not why.")
        )
        def get_email_status(self, user: User) -> str:
            return selectors.email_status(user=user)

        @extend_schema_field(NotificationPreferencesSerializer)
        def get_notifications(self, user: User) -> dict[str, Any]:
            return notifications.preferences_get(user)

        @extend_schema_field(PlaySettingsSerializer)
        def get_play(self, user: User) -> dict[str, Any]:
            return away.play_settings_get(user)

        @extend_schema_field(AwayStatusSerializer)
        def get_away(self, user: User) -> dict[str, Any]:
            return dict(AwayStatusSerializer(away.away_status(user).as_dict()).data)

    @extend_schema(
        tags=TAG,
        summary="The signed-in user",
        responses={200: OutputSerializer, **_errors(401, 429)},
    )
    def get(self, request: Request) -> Response:
        return Response(self.OutputSerializer(request.user).data)

    @extend_schema(
        tags=TAG,
        summary="Change the signed-in user's e-mail address or e-mail preferences",
        description="A new `email` needs `current_password` (400 `invalid` naming it "
        "otherwise) and waits for confirmation: see `pending_email`. The address confirmed "
        "before is told once the new one is confirmed. 429 `mail_throttled` (nothing "
        "changed) past `GAMENOOK_CONFIRM_MAILS_PER_DAY` confirmation mails a day for the "
        "account, or when the address was mailed less than `GAMENOOK_CONFIRM_MAIL_INTERVAL` "
        "seconds ago.",
        request=InputSerializer,
        responses={200: OutputSerializer, **_errors(400, 401, 403, 409, 413, 422, 429)},
    )
    @idempotent
    def patch(self, request: Request) -> Response:
        data = parse_input(self.InputSerializer, request.data, partial=True)
        changes = data.pop("notifications", None)
        play = data.pop("play", None)
        user = services.user_update(
            user=request_user(request), notifications_changes=changes, play_changes=play, **data
        )
        return Response(self.OutputSerializer(user).data)


class MeVerifyEmailApi(APIView):
    throttle_classes = (AccountThrottle,)

    @extend_schema(
        tags=TAG,
        summary="Mail the address waiting for confirmation again",
        description="The address waiting (`pending_email`), or your own address if it is not "
        "confirmed. 409 `already_verified` when nothing waits; 429 `mail_throttled` past the "
        "limits of confirmation mail (per account a day, per address every few minutes).",
        request=None,
        responses={202: DetailSerializer, **_errors(400, 401, 403, 409, 429)},
    )
    def post(self, request: Request) -> Response:
        parse_input(_Empty, request.data)
        address = services.email_verification_send(user=_user(request))
        return Response(
            _detail(f"A message to {address} is on its way: it says how to confirm it."),
            status=status.HTTP_202_ACCEPTED,
        )
