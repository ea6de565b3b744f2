"""Accounts: register, obtain a token, read and change ``/me``."""

from __future__ import annotations

from typing import Any

from django.contrib.auth import authenticate
from django.contrib.auth.models import User
from django.contrib.auth.validators import UnicodeUsernameValidator
from drf_spectacular.utils import extend_schema, extend_schema_field, extend_schema_serializer
from rest_framework import serializers, status
from rest_framework.permissions import AllowAny
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from games.apis.common import AccountThrottle, parse_input, request_user
from games.apis.errors import ErrorSerializer
from games.apis.idempotency import idempotent
from games.errors import ServiceError
from notifications import services as notifications

from . import services

TAG = ["accounts"]


class RegisterApi(APIView):
    authentication_classes = ()
    permission_classes = (AllowAny,)
    throttle_classes = (AccountThrottle,)

    @extend_schema_serializer(component_name="RegisterInput")
    class InputSerializer(serializers.Serializer[Any]):
        username = serializers.CharField(max_length=150, validators=[UnicodeUsernameValidator()])
        email = serializers.EmailField()
        password = serializers.CharField(write_only=True, max_length=128)

    @extend_schema_serializer(component_name="RegisterOutput")
    class OutputSerializer(serializers.Serializer[Any]):
        id = serializers.IntegerField()
        username = serializers.CharField()
        email = serializers.EmailField()

    @extend_schema(
        tags=TAG,
        summary="Register a new account",
        request=InputSerializer,
        responses={201: OutputSerializer, 400: ErrorSerializer, 429: ErrorSerializer},
        auth=[],
    )
    def post(self, request: Request) -> Response:
        data = parse_input(self.InputSerializer, request.data)
        user = services.user_register(**data)
        return Response(self.OutputSerializer(user).data, status=status.HTTP_201_CREATED)


class TokenApi(APIView):
    authentication_classes = ()
    permission_classes = (AllowAny,)
    throttle_classes = (AccountThrottle,)

    @extend_schema_serializer(component_name="TokenInput")
    class InputSerializer(serializers.Serializer[Any]):
        username = serializers.CharField(max_length=150)
        password = serializers.CharField(write_only=True, max_length=128)

    @extend_schema_serializer(component_name="TokenOutput")
    class OutputSerializer(serializers.Serializer[Any]):
        token = serializers.CharField(
            help_text='Send it as the header "Authorization: Token <token>".'
        )

    @extend_schema(
        tags=TAG,
        summary="Obtain the API token for a username and password",
        request=InputSerializer,
        responses={200: OutputSerializer, 400: ErrorSerializer, 429: ErrorSerializer},
        auth=[],
    )
    def post(self, request: Request) -> Response:
        data = parse_input(self.InputSerializer, request.data)
        user = authenticate(request._request, **data)
        if not isinstance(user, User) or not user.is_active:
            raise ServiceError("Wrong username or password.", code="invalid_credentials")
        return Response({"token": services.user_token_obtain(user=user)})


class NotificationPreferencesSerializer(serializers.Serializer[Any]):
    """Which e-mails the user gets; every switch is on until they change it."""

    your_turn = serializers.BooleanField(required=False, help_text="A turn starts for you.")
    reminder = serializers.BooleanField(required=False, help_text="Half your time is gone.")
    timeout = serializers.BooleanField(
        required=False, help_text="Your time ran out: what the table did."
    )
    game_over = serializers.BooleanField(required=False, help_text="The ranking and scores.")
    unsubscribed_all = serializers.BooleanField(
        required=False, help_text="No e-mail at all (the one-click unsubscribe link sets it)."
    )

    def to_internal_value(self, data: Any) -> Any:
        if isinstance(data, dict):
            unknown = sorted(str(key) for key in data if key not in self.fields)
            if unknown:
                raise serializers.ValidationError(
                    {key: ["This field is not accepted here."] for key in unknown}
                )
        return super().to_internal_value(data)


class MeApi(APIView):
    """The signed-in user and their e-mail preferences (``notifications``)."""

    throttle_classes = (AccountThrottle,)

    @extend_schema_serializer(component_name="MeInput")
    class InputSerializer(serializers.Serializer[Any]):
        email = serializers.EmailField(required=False)
        notifications = NotificationPreferencesSerializer(required=False)

    @extend_schema_serializer(component_name="MeOutput")
    class OutputSerializer(serializers.Serializer[Any]):
        id = serializers.IntegerField()
        username = serializers.CharField()
        email = serializers.EmailField()
        notifications = serializers.SerializerMethodField()

        @extend_schema_field(NotificationPreferencesSerializer)
        def get_notifications(self, user: User) -> dict[str, Any]:
            return notifications.preferences_get(user)

    @extend_schema(
        tags=TAG,
        summary="The signed-in user",
        responses={200: OutputSerializer, 401: ErrorSerializer, 429: ErrorSerializer},
    )
    def get(self, request: Request) -> Response:
        return Response(self.OutputSerializer(request.user).data)

    @extend_schema(
        tags=TAG,
        summary="Change the signed-in user's e-mail address or e-mail preferences",
        request=InputSerializer,
        responses={
            200: OutputSerializer,
            400: ErrorSerializer,
            401: ErrorSerializer,
            409: ErrorSerializer,
            422: ErrorSerializer,
            429: ErrorSerializer,
        },
    )
    @idempotent
    def patch(self, request: Request) -> Response:
        data = parse_input(self.InputSerializer, request.data, partial=True)
        changes = data.pop("notifications", None)
        user = services.user_update(
            user=request_user(request), notifications_changes=changes, **data
        )
        return Response(self.OutputSerializer(user).data)
