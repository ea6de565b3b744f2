"""The account page's "Push to this device", in a real headless Chromium.

What is real: the page, its script (web/static/web/push.js), the service
worker registered from ``/sw.js`` with scope ``/``, the notifications
permission (granted to the page's origin by Playwright, as a person clicking
"Allow" would), the POST of the subscription to the API with the session and
its CSRF token, the server's push (pywebpush: encrypted for the device's keys,
signed with VAPID) to a push service of the test's own (an HTTP server in a
thread), and the service worker's ``push`` handler showing the notification.

What is substituted, and why: headless Chromium has no push service to
subscribe to, so an init script replaces ``PushManager.prototype.subscribe``
and ``getSubscription`` with functions that return a subscription whose
endpoint is the test's push service and whose keys are the test's own
(made as a browser makes them). The browser's push service would decrypt
the message and hand it to the service worker: here the test decrypts what
the server posted with those keys (http_ece) and hands the plain payload to
the service worker through Chrome DevTools' ``ServiceWorker.deliverPushMessage``.
"""

from __future__ import annotations

import json
import time
from collections.abc import Iterator
from typing import Any

import pytest
from django.test import override_settings

from notifications import services as notifications
from notifications.models import PushSubscription
from tests.factories import start_table
from tests.notifications.push_service import Device, PushService, vapid_pair
from tests.web.browser import browser, new_page, screenshot
from tests.web.conftest import PASSWORD, make_user

__all__ = ["browser", "new_page", "screenshot"]

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

PUBLIC, PRIVATE = vapid_pair()

#: Replaces the browser's push subscription (headless Chromium has no push service).
FAKE_SUBSCRIPTION = """
(subscription) => {
  if (typeof PushManager === "undefined") return;
  // Kept in sessionStorage, as a browser keeps its subscription across reloads.
  const stored = () => sessionStorage.getItem("subscribed-with");
  const fake = () => ({
    endpoint: subscription.endpoint,
    expirationTime: null,
    toJSON: () => JSON.parse(JSON.stringify(subscription)),
    unsubscribe: async () => { sessionStorage.removeItem("subscribed-with"); return true; },
  });
  PushManager.prototype.subscribe = async function (options) {
    const key = btoa(String.fromCharCode(...new Uint8Array(options.applicationServerKey)))
      .replace(/\\+/g, "-").replace(/\\//g, "_").replace(/=+$/, "");
    const asked = {key, userVisibleOnly: options.userVisibleOnly};
    sessionStorage.setItem("subscribed-with", JSON.stringify(asked));
    return fake();
  };
  PushManager.prototype.getSubscription = async function () { return stored() ? fake() : null; };
}
"""


@pytest.fixture
def service() -> Iterator[PushService]:
    running = PushService().start()
    yield running
    running.stop()


@pytest.fixture(autouse=True)
def _push_on() -> Iterator[None]:
    with override_settings(
        GAMENOOK_VAPID_PUBLIC_KEY=PUBLIC,
        GAMENOOK_VAPID_PRIVATE_KEY=PRIVATE,
        GAMENOOK_PUSH_ALLOW_HTTP_LOOPBACK=True,
    ):
        yield


def _registration_id(cdp: Any, scope: str) -> str:
    """The service worker registration of ``scope``, as DevTools names it."""
    found: dict[str, str] = {}

    def updated(event: dict[str, Any]) -> None:
        for registration in event["registrations"]:
            if registration["scopeURL"] == scope and not registration["isDeleted"]:
                found["id"] = registration["registrationId"]

    cdp.on("ServiceWorker.workerRegistrationUpdated", updated)
    cdp.send("ServiceWorker.enable")
    deadline = time.monotonic() + 10
    while "id" not in found and time.monotonic() < deadline:
        cdp.send("Runtime.evaluate", {"expression": "1"})  # lets the events arrive
        time.sleep(0.05)
    assert "id" in found, "no service worker registration for the site"
    return found["id"]


def test_push_to_this_device_subscribes_and_a_push_shows_the_tables_notification(
    new_page: Any, live_server: Any, service: PushService, screenshot: Any
) -> None:
    alice = make_user("alice")
    device = Device()
    subscription = {
        "endpoint": service.endpoint("alice-chromium"),
        "expirationTime": None,
        "keys": device.keys,
    }
    page = new_page()
    page.context.grant_permissions(["notifications"], origin=live_server.url)
    page.context.add_init_script(script=f"({FAKE_SUBSCRIPTION})({json.dumps(subscription)})")

    page.goto("/login/")
    page.get_by_label("Username").fill(alice.username)
    page.get_by_label("Password").fill(PASSWORD)
    page.get_by_role("button", name="Log in").click()
    page.get_by_role("heading", name="Lobby").wait_for()
    page.goto("/account/")
    page.get_by_text("None yet").wait_for()
    page.get_by_role("button", name="Push to this device").click()
    # The page shows itself again with the device listed.
    page.get_by_role("button", name="Remove Chrome on Linux").wait_for()
    page.get_by_text("Push is on for this device.").wait_for()
    assert page.js_errors == []
    screenshot(page, "account-push")

    stored = PushSubscription.objects.get()
    assert stored.user == alice
    assert stored.endpoint == subscription["endpoint"]
    assert (stored.p256dh, stored.auth) == (device.keys["p256dh"], device.keys["auth"])
    subscribed = json.loads(page.evaluate("sessionStorage.getItem('subscribed-with')"))
    assert subscribed == {"key": PUBLIC, "userVisibleOnly": True}
    scope = page.evaluate("navigator.serviceWorker.ready.then(registration => registration.scope)")
    assert scope == f"{live_server.url}/"

    # The server pushes about a table of hers; the push service of the test receives it.
    table = start_table(alice, bots=1)
    (message,) = notifications.push_enqueue(
        user=alice,
        kind="your_turn",
        table=table.pk,
        turn=3,
        title=f"Your turn at table {table.pk}",
        body="You have 23 hours left to move.",
        url=f"{live_server.url}/tables/{table.pk}/",
    )
    assert notifications.push_send(message_id=message.pk).sent
    (posted,) = service.posted
    payload = device.decrypt(posted)

    # The browser's push service would now wake the service worker with it.
    cdp = page.context.new_cdp_session(page)
    cdp.send(
        "ServiceWorker.deliverPushMessage",
        {
            "origin": live_server.url,
            "registrationId": _registration_id(cdp, f"{live_server.url}/"),
            "data": json.dumps(payload),
        },
    )
    page.wait_for_function(
        "navigator.serviceWorker.ready.then(r => r.getNotifications()).then(n => n.length > 0)"
    )
    shown = page.evaluate(
        """navigator.serviceWorker.ready
        .then(registration => registration.getNotifications())
        .then(list => list.map(n => ({title: n.title, body: n.body, tag: n.tag, data: n.data})))"""
    )
    assert shown == [
        {
            "title": f"Your turn at table {table.pk}",
            "body": "You have 23 hours left to move.",
            "tag": f"table-{table.pk}",
            "data": {"url": f"/tables/{table.pk}/", "kind": "your_turn"},
        }
    ]

    # Remove: a plain form; the device is gone from the server and from the list.
    page.get_by_role("button", name="Remove Chrome on Linux").click()
    page.get_by_text("Push is off for that device.").wait_for()
    assert not PushSubscription.objects.exists()
    assert page.js_errors == []
