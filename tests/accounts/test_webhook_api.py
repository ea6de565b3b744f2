"""Issue 40, part 4: a bot account registers, reads, rotates and removes its webhook.

``/api/v1/me/webhook/`` and ``/api/v1/me/webhook/rotate/``, called with the
bot's own ``play`` token as a bot would, and as a hostile client: a person's
account, no credentials, wrong types, huge and private URLs.
"""

from __future__ import annotations

import socket
from collections.abc import Callable
from typing import Any

import pytest
from django.contrib.auth.models import User
from django.test import override_settings
from rest_framework.test import APIClient
from standardwebhooks import Webhook

from accounts import services
from notifications import webhooks
from notifications.models import WebhookEndpoint
from notifications.webhooks import signed_headers
from tests.games.conftest import assert_error

pytestmark = pytest.mark.django_db

Api = Callable[[User | None], APIClient]
HOOK = "/api/v1/me/webhook/"
ROTATE = "/api/v1/me/webhook/rotate/"
URL = "http://127.0.0.1:9/hook"  # loopback and http: the tests' settings allow both


def token_client(key: str) -> APIClient:
    client = APIClient(enforce_csrf_checks=True)
    client.credentials(HTTP_AUTHORIZATION=f"Token {key}")
    return client


@pytest.fixture
def robo(alice: User) -> APIClient:
    """The bot account ``robo``'s client, with the play token it was made with."""
    _user, key = services.bot_create(owner=alice, username="robo")
    return token_client(key)


def test_a_bot_registers_its_url_and_sees_the_secret_once(robo: APIClient) -> None:
    made = robo.put(HOOK, {"url": URL}, format="json")
    assert made.status_code == 201, made.content  # noqa: PLR2004
    body = made.json()
    assert body["url"] == URL
    assert body["secret"].startswith("whsec_")
    assert (body["disabled"], body["failing_since"], body["disabled_at"]) == (False, None, None)
    read = robo.get(HOOK)
    assert read.status_code == 200  # noqa: PLR2004
    assert "secret" not in read.json()
    assert body["secret"].encode() not in read.content
    assert read.json() == {key: value for key, value in body.items() if key != "secret"}
    # The secret signs as Standard Webhooks says: a receiver's library accepts it.
    from django.utils import timezone  # noqa: PLC0415

    headers = signed_headers(
        msg_id="msg_1", timestamp=timezone.now(), body="{}", secrets_=[body["secret"]]
    )
    assert Webhook(body["secret"]).verify("{}", headers) == {}


def test_a_second_put_changes_the_url_and_keeps_the_secret(robo: APIClient) -> None:
    secret = robo.put(HOOK, {"url": URL}, format="json").json()["secret"]
    changed = robo.put(HOOK, {"url": URL + "/v2"}, format="json")
    assert changed.status_code == 200  # noqa: PLR2004
    assert "secret" not in changed.json()
    assert changed.json()["url"] == URL + "/v2"
    assert webhooks.live_secrets(WebhookEndpoint.objects.get()) == [secret]


def test_put_after_a_disable_turns_it_on_again(robo: APIClient) -> None:
    robo.put(HOOK, {"url": URL}, format="json")
    endpoint = WebhookEndpoint.objects.get()
    from notifications import services as notifications  # noqa: PLC0415

    notifications.webhook_endpoint_disable(endpoint_id=endpoint.pk, reason="failing")
    assert robo.get(HOOK).json()["disabled"] is True
    again = robo.put(HOOK, {"url": URL}, format="json")
    assert again.status_code == 200  # noqa: PLR2004
    assert again.json()["disabled"] is False
    assert again.json()["disabled_reason"] == ""


def test_a_rotation_answers_the_new_secret_once_and_keeps_the_old_a_day(robo: APIClient) -> None:
    old = robo.put(HOOK, {"url": URL}, format="json").json()["secret"]
    rotated = robo.post(ROTATE)
    assert rotated.status_code == 200, rotated.content  # noqa: PLR2004
    new = rotated.json()["secret"]
    assert new.startswith("whsec_") and new != old
    assert rotated.json()["previous_expire_at"]
    endpoint = WebhookEndpoint.objects.get()
    assert webhooks.live_secrets(endpoint) == [new, old]
    assert endpoint.secrets_expire[0] is None
    assert new.encode() not in robo.get(HOOK).content


def test_delete_removes_it_and_then_everything_is_404(robo: APIClient) -> None:
    robo.put(HOOK, {"url": URL}, format="json")
    assert robo.delete(HOOK).status_code == 204  # noqa: PLR2004
    assert not WebhookEndpoint.objects.exists()
    assert_error(robo.get(HOOK), 404, "not_found")
    assert_error(robo.delete(HOOK), 404, "not_found")
    assert_error(robo.post(ROTATE), 404, "not_found")


def test_a_persons_account_has_no_webhook(alice: User, api: Api) -> None:
    client = api(alice)
    assert_error(client.get(HOOK), 403, "not_a_bot")
    assert_error(client.put(HOOK, {"url": URL}, format="json"), 403, "not_a_bot")
    assert_error(client.delete(HOOK), 403, "not_a_bot")
    assert_error(client.post(ROTATE), 403, "not_a_bot")
    assert not WebhookEndpoint.objects.exists()


def test_without_credentials_it_is_401(api: Api) -> None:
    client = api(None)
    assert_error(client.get(HOOK), 401, "not_authenticated")
    assert_error(client.put(HOOK, {"url": URL}, format="json"), 401, "not_authenticated")
    assert_error(client.post(ROTATE), 401, "not_authenticated")


def test_each_bot_sees_only_its_own(alice: User, robo: APIClient) -> None:
    robo.put(HOOK, {"url": URL}, format="json")
    _other, key = services.bot_create(owner=alice, username="robo2")
    other = token_client(key)
    assert_error(other.get(HOOK), 404, "not_found")
    assert_error(other.delete(HOOK), 404, "not_found")
    assert WebhookEndpoint.objects.count() == 1


@pytest.mark.parametrize(
    ("body", "code"),
    [
        ({}, "invalid"),
        ({"url": None}, "invalid"),
        ({"url": 5}, "invalid"),
        ({"url": ["https://bot.example/"]}, "invalid"),
        ({"url": {"href": "https://bot.example/"}}, "invalid"),
        ({"url": True}, "invalid"),
        ({"url": ""}, "invalid"),
        ({"url": "https://bot.example/" + "a" * 5000}, "invalid"),
        ({"url": URL, "secret": "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw"}, "unknown_field"),
        ({"url": URL, "user": 1}, "unknown_field"),
        (["https://bot.example/"], "invalid"),
        ("https://bot.example/", "invalid"),
        ({"url": "https://10.0.0.1/hook"}, "webhook_url_refused"),
        ({"url": "https://169.254.169.254/latest/meta-data/"}, "webhook_url_refused"),
        ({"url": "https://[::ffff:192.168.0.1]/"}, "webhook_url_refused"),
        ({"url": "gopher://127.0.0.1:70/"}, "webhook_url_refused"),
        ({"url": "https://a:b@127.0.0.1/"}, "webhook_url_refused"),
        ({"url": "https://127.0.0.1:0x50/"}, "webhook_url_refused"),
        ({"url": "https://\u0000.example/"}, "invalid"),
        ({"url": "https://bot .example/"}, "webhook_url_refused"),
        ({"url": "https://bot.invalid./hook"}, "webhook_url_refused"),
    ],
)
def test_hostile_bodies_are_refused_with_a_sentence(
    robo: APIClient, body: Any, code: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    def nothing(host: str, *args: object, **kwargs: object) -> list[Any]:
        if host in ("127.0.0.1", "10.0.0.1", "169.254.169.254", "::ffff:192.168.0.1"):
            return [(socket.AF_INET, socket.SOCK_STREAM, 6, "", (host, 0))]
        raise socket.gaierror(socket.EAI_NONAME, "Name or service not known")

    monkeypatch.setattr(socket, "getaddrinfo", nothing)
    answer = robo.put(HOOK, body, format="json")
    error = assert_error(answer, 400, code)
    assert error["detail"].endswith(".")
    assert len(answer.content) < 2000  # noqa: PLR2004
    assert not WebhookEndpoint.objects.exists()


def test_production_refuses_loopback_and_http(robo: APIClient) -> None:
    with override_settings(GAMENOOK_WEBHOOK_ALLOW_LOOPBACK=False):
        loopback = assert_error(
            robo.put(HOOK, {"url": "https://127.0.0.1/hook"}, format="json"),
            400,
            "webhook_url_refused",
        )
        assert "127.0.0.1, a loopback address" in loopback["detail"]
        assert loopback["fields"] == {"url": [loopback["detail"].removeprefix("The webhook URL ")]}
        assert_error(
            robo.put(HOOK, {"url": "http://93.184.216.34/hook"}, format="json"),
            400,
            "webhook_url_refused",
        )


def test_a_disabled_bot_account_is_refused(alice: User, robo: APIClient) -> None:
    robo.put(HOOK, {"url": URL}, format="json")
    User.objects.filter(username="robo").update(is_active=False)
    assert_error(robo.get(HOOK), 401, "authentication_failed")
