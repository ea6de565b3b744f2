"""A bot account's webhook: ``/api/v1/me/webhook/`` and ``/api/v1/me/webhook/rotate/``.

The bot registers the https URL its events are posted to (``turn``,
``game_over``, ``invitation``, signed by the Standard Webhooks specification:
``notifications.webhooks``), with its own token. A person's account has no
webhook (403 ``not_a_bot``). A secret is answered once, when it is made (the
first PUT, a rotation); reads never show one. In the ``accounts``
rate-limit scope, with the strict fields of ``games.apis.fields``.
"""

from __future__ import annotations

from typing import Any

from drf_spectacular.utils import extend_schema, extend_schema_serializer
from rest_framework import serializers, status
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from games.apis.common import AccountThrottle, parse_input, request_user
from games.apis.errors import ErrorSerializer
from games.apis.fields import StrictCharField
from notifications import services as notifications

TAG = ["accounts"]
_DATETIME = serializers.DateTimeField()


def _errors(*codes: int) -> dict[int, Any]:
    return {code: ErrorSerializer for code in codes}


def _instant(value: Any) -> str | None:
    return None if value is None else _DATETIME.to_representation(value)


@extend_schema_serializer(component_name="Webhook")
class WebhookSerializer(serializers.Serializer[Any]):
    url = serializers.CharField(help_text="Where the events are posted.")
    created_at = serializers.DateTimeField()
    failing_since = serializers.DateTimeField(
        allow_null=True,
        help_text="The first failed delivery of the current run of failures; null while "
        "deliveries succeed. After a day of failures the webhook is disabled.",
    )
    disabled = serializers.BooleanField(
        help_text="Nothing is posted while true; PUT the URL again to turn it on."
    )
    disabled_at = serializers.DateTimeField(allow_null=True)
    disabled_reason = serializers.CharField(help_text="Why it was disabled, or empty.")


@extend_schema_serializer(component_name="WebhookCreated")
class WebhookCreatedSerializer(WebhookSerializer):
    secret = serializers.CharField(
        help_text="The signing secret (`whsec_` and base64), shown this once: keep it to "
        "verify each delivery's `webhook-signature`."
    )


def _webhook(endpoint: Any) -> dict[str, Any]:
    return {
        "url": endpoint.url,
        "created_at": _instant(endpoint.created_at),
        "failing_since": _instant(endpoint.failing_since),
        "disabled": endpoint.disabled_at is not None,
        "disabled_at": _instant(endpoint.disabled_at),
        "disabled_reason": endpoint.disabled_reason,
    }


class WebhookApi(APIView):
    throttle_classes = (AccountThrottle,)

    @extend_schema_serializer(component_name="WebhookInput")
    class InputSerializer(serializers.Serializer[Any]):
        url = StrictCharField(
            min_length=1,
            max_length=2048,
            help_text="An https URL whose host resolves to public addresses only.",
        )

    @extend_schema(
        tags=TAG,
        summary="Your bot's webhook (never its secret)",
        description="404 `not_found` when the bot has none; 403 `not_a_bot` for a person's "
        "account.",
        responses={200: WebhookSerializer, **_errors(401, 403, 404, 429)},
    )
    def get(self, request: Request) -> Response:
        endpoint = notifications.webhook_of(user=request_user(request))
        return Response(_webhook(endpoint))

    @extend_schema(
        tags=TAG,
        summary="Register your bot's webhook URL, or change it",
        description="201 with the new webhook and its `secret` (shown this once); 200 when "
        "the bot had one already: its URL is changed, its secrets kept, and a disabled "
        "webhook turned on again. 400 `webhook_url_refused` for a URL that is not https, "
        "does not resolve, or resolves to a private, loopback, link-local or otherwise "
        "non-public address; 403 `not_a_bot` for a person's account.",
        request=InputSerializer,
        responses={
            201: WebhookCreatedSerializer,
            200: WebhookSerializer,
            **_errors(400, 401, 403, 413, 429),
        },
    )
    def put(self, request: Request) -> Response:
        data = parse_input(self.InputSerializer, request.data)
        saved = notifications.webhook_set(user=request_user(request), url=data["url"])
        if saved.secret is None:
            return Response(_webhook(saved.endpoint))
        return Response(
            {**_webhook(saved.endpoint), "secret": saved.secret}, status=status.HTTP_201_CREATED
        )

    @extend_schema(
        tags=TAG,
        summary="Remove your bot's webhook (its delivery log with it)",
        responses={204: None, **_errors(401, 403, 404, 429)},
    )
    def delete(self, request: Request) -> Response:
        notifications.webhook_delete(user=request_user(request))
        return Response(status=status.HTTP_204_NO_CONTENT)


class WebhookRotateApi(APIView):
    throttle_classes = (AccountThrottle,)

    @extend_schema_serializer(component_name="WebhookRotated")
    class OutputSerializer(serializers.Serializer[Any]):
        secret = serializers.CharField(help_text="The new signing secret, shown this once.")
        previous_expire_at = serializers.DateTimeField(
            help_text="Until then each delivery is signed with the older secrets too "
            "(`GAMENOOK_WEBHOOK_ROTATION_HOURS` from now)."
        )

    @extend_schema(
        tags=TAG,
        summary="Give your bot's webhook a new secret; the old one signs a day longer",
        request=None,
        responses={200: OutputSerializer, **_errors(401, 403, 404, 429)},
    )
    def post(self, request: Request) -> Response:
        rotated = notifications.webhook_rotate(user=request_user(request))
        return Response(
            {"secret": rotated.secret, "previous_expire_at": _instant(rotated.previous_expire_at)}
        )
