"""``/api/v1/me/push-devices/``: turning web push on for a device, and a hostile client.

Every bad input is a 4xx in the API's one error shape and changes nothing;
an endpoint another account holds is never moved over; a user has at most
``GAMENOOK_PUSH_MAX_DEVICES`` devices.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any

import pytest
from django.contrib.auth.models import User
from django.test import override_settings
from rest_framework.test import APIClient

from notifications import services as notifications
from notifications.models import PushSubscription
from tests.games.conftest import assert_error
from tests.notifications.push_service import Device, b64url, vapid_pair

pytestmark = pytest.mark.django_db

Api = Callable[[User | None], APIClient]
DEVICES = "/api/v1/me/push-devices/"
PUBLIC, PRIVATE = vapid_pair()
ENDPOINT = "https://push.example.com/send/abc123"


@pytest.fixture(autouse=True)
def _push_on() -> Iterator[None]:
    with override_settings(GAMENOOK_VAPID_PUBLIC_KEY=PUBLIC, GAMENOOK_VAPID_PRIVATE_KEY=PRIVATE):
        yield


def body(endpoint: str = ENDPOINT, **changes: Any) -> dict[str, Any]:
    return {"endpoint": endpoint, "expirationTime": None, "keys": Device().keys, **changes}


def test_a_device_is_added_listed_updated_and_removed(alice: User, api: Api) -> None:
    client = api(alice)
    listed = client.get(DEVICES).json()
    assert listed == {
        "enabled": True,
        "vapid_public_key": PUBLIC,
        "max_devices": 10,
        "devices": [],
    }
    created = client.post(DEVICES, body(name="phone"), format="json")
    assert created.status_code == 201, created.content
    device = created.json()
    assert device["endpoint"] == ENDPOINT
    assert device["name"] == "phone"
    # The same endpoint again: its keys and name are updated, not a second device.
    keys = Device().keys
    again = client.post(DEVICES, body(keys=keys, name="my phone"), format="json")
    assert again.status_code == 200
    assert again.json()["id"] == device["id"]
    stored = PushSubscription.objects.get()
    assert (stored.p256dh, stored.auth, stored.name) == (keys["p256dh"], keys["auth"], "my phone")
    assert [d["id"] for d in client.get(DEVICES).json()["devices"]] == [device["id"]]
    # A browser's expirationTime is milliseconds since 1970: taken, not kept.
    later = body(f"{ENDPOINT}/tablet", expirationTime=1_900_000_000_000)
    assert client.post(DEVICES, later, format="json").status_code == 201
    assert client.delete(f"{DEVICES}{device['id']}/").status_code == 204
    assert PushSubscription.objects.count() == 1


def test_another_accounts_endpoint_is_refused_not_moved(alice: User, bob: User, api: Api) -> None:
    assert api(alice).post(DEVICES, body(), format="json").status_code == 201
    assert_error(api(bob).post(DEVICES, body(), format="json"), 409, "endpoint_taken")
    assert PushSubscription.objects.get().user == alice


def test_nobody_removes_or_sees_another_accounts_device(alice: User, bob: User, api: Api) -> None:
    device = api(alice).post(DEVICES, body(), format="json").json()
    assert_error(api(bob).delete(f"{DEVICES}{device['id']}/"), 404, "not_found")
    assert api(bob).get(DEVICES).json()["devices"] == []
    assert PushSubscription.objects.filter(user=alice).exists()


def test_anonymous_is_refused(api: Api) -> None:
    assert_error(api(None).get(DEVICES), 401, "not_authenticated")
    assert_error(api(None).post(DEVICES, body(), format="json"), 401, "not_authenticated")


@override_settings(GAMENOOK_PUSH_MAX_DEVICES=2)
def test_one_device_past_the_limit_is_refused(alice: User, api: Api) -> None:
    client = api(alice)
    for n in range(2):
        assert client.post(DEVICES, body(f"{ENDPOINT}/{n}"), format="json").status_code == 201
    assert_error(
        client.post(DEVICES, body(f"{ENDPOINT}/2"), format="json"), 409, "too_many_devices"
    )
    # Re-subscribing one of the two is still fine.
    assert client.post(DEVICES, body(f"{ENDPOINT}/0"), format="json").status_code == 200
    assert PushSubscription.objects.count() == 2  # noqa: PLR2004


POINT = Device().keys["p256dh"]
SECRET = Device().keys["auth"]


def _shape_error(changes: dict[str, Any]) -> bool:
    """Whether the serializer itself refuses ``changes`` (a type, a length, a field missing)."""
    endpoint = changes.get("endpoint", "https://x.example")
    keys = changes.get("keys", {"p256dh": "p", "auth": "a"})
    return (
        not isinstance(endpoint, str)
        or not endpoint
        or len(endpoint) > 2048  # noqa: PLR2004
        or not isinstance(keys, dict)
        or "auth" not in keys
        or "name" in changes
        or "expirationTime" in changes
    )


@pytest.mark.parametrize(
    ("changes", "field"),
    [
        ({"endpoint": "http://push.example.com/x"}, "endpoint"),
        ({"endpoint": "http://127.0.0.1:8000/x"}, "endpoint"),  # loopback, not allowed here
        ({"endpoint": "https://127.0.0.1/x"}, "endpoint"),
        ({"endpoint": "https://10.1.2.3/x"}, "endpoint"),
        ({"endpoint": "https://[::1]/x"}, "endpoint"),
        ({"endpoint": "https://169.254.169.254/latest"}, "endpoint"),
        ({"endpoint": "https://localhost/x"}, "endpoint"),
        ({"endpoint": "https://intranet/x"}, "endpoint"),
        ({"endpoint": "https://user:pw@push.example.com/x"}, "endpoint"),
        ({"endpoint": "https://push.example.com:99999/x"}, "endpoint"),
        ({"endpoint": "https://push.example.com/a b"}, "endpoint"),
        ({"endpoint": "ftp://push.example.com/x"}, "endpoint"),
        ({"endpoint": "javascript:alert(1)"}, "endpoint"),
        ({"endpoint": ""}, "endpoint"),
        ({"endpoint": "https://push.example.com/" + "a" * 2100}, "endpoint"),
        ({"endpoint": 12}, "endpoint"),
        ({"keys": {"p256dh": POINT[:-2], "auth": SECRET}}, "keys.p256dh"),
        ({"keys": {"p256dh": POINT + "AA", "auth": SECRET}}, "keys.p256dh"),
        ({"keys": {"p256dh": "*" * 87, "auth": SECRET}}, "keys.p256dh"),
        ({"keys": {"p256dh": "BA" + "A" * 85, "auth": SECRET}}, "keys.p256dh"),  # not on the curve
        ({"keys": {"p256dh": b64url(b"\x04" + b"\xff" * 64), "auth": SECRET}}, "keys.p256dh"),
        ({"keys": {"p256dh": POINT, "auth": SECRET[:-3]}}, "keys.auth"),
        ({"keys": {"p256dh": POINT, "auth": b64url(bytes(17))}}, "keys.auth"),
        ({"keys": {"p256dh": POINT, "auth": "é" * 22}}, "keys.auth"),
        ({"keys": {"p256dh": POINT}}, "keys.auth"),
        ({"keys": {"p256dh": POINT, "auth": SECRET, "extra": "1"}}, "keys.extra"),
        ({"keys": "nope"}, "keys"),
        ({"keys": None}, "keys"),
        ({"name": "x" * 101}, "name"),
        ({"name": 5}, "name"),
        ({"expirationTime": "soon"}, "expirationTime"),
        ({"owner": 1}, "owner"),
    ],
)
def test_bad_input_is_a_4xx_that_names_the_field_and_changes_nothing(
    alice: User, api: Api, changes: dict[str, Any], field: str
) -> None:
    # A field the API does not take is named as such; a value of the wrong shape is 400
    # invalid; a well-formed one no push could be sent to is 422 invalid_device.
    if field in ("keys.extra", "owner"):
        status, code = 400, "unknown_field"
    elif _shape_error(changes):
        status, code = 400, "invalid"
    else:
        status, code = 422, "invalid_device"
    refused = assert_error(api(alice).post(DEVICES, body(**changes), format="json"), status, code)
    assert field in refused["fields"] or field in refused["detail"], refused
    assert not PushSubscription.objects.exists()


@pytest.mark.parametrize(
    "raw",
    [
        "[" * 100_000 + "]" * 100_000,
        '{"endpoint": ' + "[" * 5000 + "]" * 5000 + "}",
        '{"endpoint": "\\ud800"}',
        "null",
        "[]",
        "{",
    ],
)
def test_a_malformed_body_is_a_4xx_not_a_server_error(alice: User, api: Api, raw: str) -> None:
    response = api(alice).generic("POST", DEVICES, raw, content_type="application/json")
    assert 400 <= response.status_code < 500, (response.status_code, response.content[:300])  # noqa: PLR2004
    assert set(response.json()) == {"code", "detail", "fields"}
    assert not PushSubscription.objects.exists()


def test_an_id_past_any_row_is_a_404(alice: User, api: Api) -> None:
    assert api(alice).delete(f"{DEVICES}99999999999999999999/").status_code == 404  # noqa: PLR2004
    assert_error(api(alice).delete(f"{DEVICES}9223372036854775807/"), 404, "not_found")


def test_http_to_loopback_only_with_the_test_setting(alice: User, api: Api) -> None:
    local = body("http://127.0.0.1:8123/push")
    assert_error(api(alice).post(DEVICES, local, format="json"), 422, "invalid_device")
    with override_settings(GAMENOOK_PUSH_ALLOW_HTTP_LOOPBACK=True):
        assert api(alice).post(DEVICES, local, format="json").status_code == 201
        outside = body("http://push.example.com/push")
        assert_error(api(alice).post(DEVICES, outside, format="json"), 422, "invalid_device")


def test_forgetting_a_user_forgets_their_push_devices(alice: User, bob: User, api: Api) -> None:
    api(alice).post(DEVICES, body(), format="json")
    api(bob).post(DEVICES, body(f"{ENDPOINT}/bob"), format="json")
    notifications.preferences_forget(alice)
    assert list(PushSubscription.objects.values_list("user__username", flat=True)) == ["bob"]
