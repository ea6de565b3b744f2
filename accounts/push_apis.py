"""The devices a user turned web push on for: ``/api/v1/me/push-devices/``.

A browser subscribes with the site's VAPID public key (``vapid_public_key``
here) and posts what its ``PushSubscription.toJSON()`` gives; the server then
pushes "your turn", the reminder, the last call and "game over" to it, as the
user's ``*_push`` preferences say (``notifications.push``). In the
``accounts`` rate-limit scope, with the strict fields of ``games.apis.fields``.
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
from games.apis.fields import StrictCharField, StrictIntegerField
from notifications import services as notifications

TAG = ["accounts"]
_DATETIME = serializers.DateTimeField()


def _errors(*codes: int) -> dict[int, Any]:
    return {code: ErrorSerializer for code in codes}


class PushDeviceSerializer(serializers.Serializer[Any]):
    id = serializers.IntegerField()
    name = serializers.CharField(help_text="What you called the device, or empty.")
    endpoint = serializers.CharField(
        help_text="The push service's URL for the device: a page compares it with its own "
        "subscription's to tell which device it runs on."
    )
    created_at = serializers.DateTimeField()
    last_sent_at = serializers.DateTimeField(
        allow_null=True, help_text="When a push last reached its push service."
    )


@extend_schema_serializer(component_name="PushKeys")
class PushKeysSerializer(serializers.Serializer[Any]):
    p256dh = StrictCharField(
        min_length=1,
        max_length=130,
        help_text="The device's P-256 public key: base64url of 65 bytes (an uncompressed point).",
    )
    auth = StrictCharField(
        min_length=1,
        max_length=32,
        help_text="The device's authentication secret: base64url of 16 bytes.",
    )


def _device(subscription: Any) -> dict[str, Any]:
    return {
        "id": subscription.pk,
        "name": subscription.name,
        "endpoint": subscription.endpoint,
        "created_at": _DATETIME.to_representation(subscription.created_at),
        "last_sent_at": _DATETIME.to_representation(subscription.last_sent_at)
        if subscription.last_sent_at
        else None,
    }


class PushDeviceListApi(APIView):
    throttle_classes = (AccountThrottle,)

    @extend_schema_serializer(component_name="PushDevices")
    class OutputSerializer(serializers.Serializer[Any]):
        enabled = serializers.BooleanField(
            help_text="Whether the server can push at all: false while it has no VAPID keys."
        )
        vapid_public_key = serializers.CharField(
            allow_null=True,
            help_text="The `applicationServerKey` to subscribe with (base64url), or null "
            "while push is off.",
        )
        max_devices = serializers.IntegerField(help_text="How many devices you may have.")
        devices = PushDeviceSerializer(many=True)

    @extend_schema_serializer(component_name="PushDeviceInput")
    class InputSerializer(serializers.Serializer[Any]):
        endpoint = StrictCharField(
            min_length=1,
            max_length=2048,
            help_text="The push service's URL for the device: https, a public host.",
        )
        keys = PushKeysSerializer()
        expirationTime = StrictIntegerField(  # noqa: N815 (the browser's own name)
            required=False,
            allow_null=True,
            min_value=0,
            # Milliseconds since 1970 (a DOMHighResTimeStamp), past any integer column.
            max_value=2**53,
            help_text="As the browser's `toJSON()` gives it (milliseconds since 1970, or "
            "null); not kept.",
        )
        name = StrictCharField(
            required=False,
            default="",
            allow_blank=True,
            max_length=100,
            help_text='What to call the device ("phone"), to tell it apart in the list.',
        )

    @extend_schema(
        tags=TAG,
        summary="Your push devices, and the key to subscribe a new one with",
        responses={200: OutputSerializer, **_errors(401, 429)},
    )
    def get(self, request: Request) -> Response:
        user = request_user(request)
        key = notifications.push_public_key()
        return Response(
            {
                "enabled": key is not None,
                "vapid_public_key": key,
                "max_devices": notifications.push_max_devices(),
                "devices": [_device(s) for s in notifications.push_subscriptions_of(user=user)],
            }
        )

    @extend_schema(
        tags=TAG,
        summary="Turn web push on for a device (the browser's PushSubscription.toJSON())",
        description="201 with the new device; 200 when this endpoint was yours already (its "
        "keys and name are updated). 409 `endpoint_taken` when another account holds the "
        "endpoint (unsubscribe the browser and subscribe again: it gets a new one), 409 "
        "`too_many_devices` past `max_devices`, 409 `push_off` while the server has no "
        "VAPID keys. 400 `invalid` for a field of the wrong shape; 422 `invalid_device` "
        "(naming the field) for an endpoint that is not https to a public host, or keys that "
        "are not base64url of a P-256 point and a 16-byte secret.",
        request=InputSerializer,
        responses={
            201: PushDeviceSerializer,
            200: PushDeviceSerializer,
            **_errors(400, 401, 403, 409, 413, 422, 429),
        },
    )
    def post(self, request: Request) -> Response:
        data = parse_input(self.InputSerializer, request.data)
        saved = notifications.push_subscription_save(
            user=request_user(request),
            endpoint=data["endpoint"],
            p256dh=data["keys"]["p256dh"],
            auth=data["keys"]["auth"],
            name=data["name"],
        )
        return Response(
            _device(saved.subscription),
            status=status.HTTP_201_CREATED if saved.created else status.HTTP_200_OK,
        )


class PushDeviceDetailApi(APIView):
    throttle_classes = (AccountThrottle,)

    @extend_schema(
        tags=TAG,
        summary="Turn web push off for one of your devices",
        responses={204: None, **_errors(401, 403, 404, 429)},
    )
    def delete(self, request: Request, device_id: int) -> Response:
        user = request_user(request)
        notifications.push_subscription_delete(user=user, subscription_id=device_id)
        return Response(status=status.HTTP_204_NO_CONTENT)
