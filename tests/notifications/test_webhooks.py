"""Webhooks end to end: a bot account's turns, game over and invitations, posted and signed.

What is real: the bot account and its endpoint are made by the services, the
game is played with the games' services and the bot's moves through the API
with its own token, the jobs and the sweep run (captured, then run here), and
an HTTP server in a thread of the test's own receives each post, which the
test verifies with the Standard Webhooks reference library
(``standardwebhooks.Webhook(secret).verify``). The receiver listens on
127.0.0.1, which ``GAMENOOK_WEBHOOK_ALLOW_LOOPBACK`` (tests' settings) allows;
the tests of refusals turn it off. Time moves with time_machine.
"""

from __future__ import annotations

import functools
import importlib.util
import json
import socket
import ssl
import tempfile
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import httpx
import pytest
import time_machine
from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.x509.oid import NameOID
from django.contrib.auth.models import User
from django.core import mail
from django.test import Client, override_settings
from rest_framework.test import APIClient
from standardwebhooks import Webhook
from standardwebhooks.webhooks import WebhookVerificationError

from accounts import services as accounts
from games import services as games
from games.models import Move, Table
from notifications import services, webhooks
from notifications.models import OutboxMessage, WebhookDelivery, WebhookEndpoint
from tests.factories import legal_request

from .conftest import Jobs, make_user, play_turn, seat_to_act
from .push_service import Posted, PushService

T0 = datetime(2030, 5, 6, 9, 0, tzinfo=UTC)

pytestmark = pytest.mark.django_db(transaction=True)


@pytest.fixture
def receiver() -> Iterator[PushService]:
    """An HTTP server of the test's own that records each post (201 unless told)."""
    running = PushService().start()
    yield running
    running.stop()


class Bot:
    """A bot account: its user, its owner, its token and its webhook's secret."""

    def __init__(self, owner: User, name: str) -> None:
        self.owner = owner
        self.user, self.token = accounts.bot_create(owner=owner, username=name)
        self.secret = ""

    def listen(self, url: str) -> str:
        saved = services.webhook_set(user=self.user, url=url)
        assert saved.secret is not None
        self.secret = saved.secret
        return self.secret

    def api(self) -> APIClient:
        client = APIClient()
        client.credentials(HTTP_AUTHORIZATION=f"Token {self.token}")
        return client


@pytest.fixture
def bot(receiver: PushService) -> Bot:
    made = Bot(make_user("owner"), "robot")
    made.listen(receiver.endpoint("hook"))
    return made


def verified(posted: Posted, secret: str) -> dict[str, Any]:
    """The delivery's JSON, verified as a receiver would; fails the test otherwise."""
    payload: dict[str, Any] = Webhook(secret).verify(posted.body, posted.headers)
    return payload


def table_with(host: User, bot: Bot, **options: Any) -> Table:
    """A running two-seat table: ``host`` in seat 0, the bot account in seat 1."""
    table = games.table_create(host=host, seat_count=2, bot_accounts="welcome", **options)
    games.table_join(table_id=table.pk, user=bot.user)
    games.table_start(table_id=table.pk, user=host)
    return Table.objects.get(pk=table.pk)


def until_bot_to_act(table: Table, bot: Bot, jobs: Jobs) -> None:
    """Play the host's turns (and run the jobs) until the bot account is to act."""
    for _ in range(20):
        jobs.drain()
        table.refresh_from_db()
        if table.status != Table.Status.ACTIVE or seat_to_act(table).user == bot.user:
            return
        play_turn(table)
    raise AssertionError("the bot account's turn never came")


def bot_plays_its_turn(table: Table, bot: Bot) -> None:
    """What examples/webhook_bot.py does on ``turn``: view, legal action, post, until done."""
    client = bot.api()
    for _ in range(10):
        view = client.get(f"/api/v1/tables/{table.pk}/view/").json()
        if not view["game"]["legal_actions"]:
            return
        body = {**legal_request(view["game"]), "expected_seq": view["seq"]}
        answer = client.post(f"/api/v1/tables/{table.pk}/actions/", body, format="json")
        assert answer.status_code == 201, answer.content  # noqa: PLR2004
    raise AssertionError("the turn never ended")


# ----------------------------------------------------------------------------
# Delivery


def test_a_bot_accounts_turn_is_posted_at_once_signed_and_verifiable(
    jobs: Jobs, receiver: PushService, bot: Bot
) -> None:
    alice = make_user("alice")
    table = table_with(alice, bot)
    until_bot_to_act(table, bot, jobs)
    turns = [verified(posted, bot.secret) for posted in receiver.posted]
    assert [payload["type"] for payload in turns] == ["turn"]
    data = turns[0]["data"]
    table.refresh_from_db()
    assert table.deadline_at is not None
    assert data == {
        "type": "turn",
        "table": table.pk,
        "game": "flip",
        "seq": table.seq,
        "turn": table.turn,
        "seat": 1,
        "deadline": table.deadline_at.isoformat().replace("+00:00", "Z"),
        "url": f"/api/v1/tables/{table.pk}/",
    }
    (delivery,) = WebhookDelivery.objects.all()
    assert receiver.posted[0].headers["webhook-id"] == delivery.msg_id
    assert delivery.status == WebhookDelivery.Status.SENT
    assert (delivery.attempts, delivery.last_status_code) == (1, 201)
    # No card in it: a program reads its seat's view for those.
    assert "hand" not in json.dumps(turns[0])


def test_a_whole_game_played_by_a_bot_that_hears_only_its_webhook(
    jobs: Jobs, receiver: PushService, bot: Bot
) -> None:
    """The bot moves only when a ``turn`` reaches it; the end comes as ``game_over``."""
    alice = make_user("alice")
    table = table_with(alice, bot)
    heard = 0
    for _ in range(500):
        jobs.drain()
        table.refresh_from_db()
        if table.status != Table.Status.ACTIVE:
            break
        if seat_to_act(table).user == bot.user:
            news = [verified(posted, bot.secret) for posted in receiver.posted[heard:]]
            heard = len(receiver.posted)
            assert [payload["data"]["turn"] for payload in news] == [table.turn]
            bot_plays_its_turn(table, bot)
        else:
            play_turn(table)
    jobs.drain()
    assert table.status == Table.Status.FINISHED
    last = verified(receiver.posted[-1], bot.secret)
    assert last["type"] == "game_over"
    assert last["data"]["seat"] == 1
    assert last["data"]["rank"] in (1, 2)
    assert {entry["seat"] for entry in last["data"]["ranking"]} == {0, 1}
    # One delivery per turn of the bot's and one game over, every one delivered.
    statuses = set(WebhookDelivery.objects.values_list("status", flat=True))
    assert statuses == {WebhookDelivery.Status.SENT}
    assert WebhookDelivery.objects.filter(event="game_over").count() == 1


def test_a_turn_decided_twice_is_posted_once(jobs: Jobs, receiver: PushService, bot: Bot) -> None:
    table = table_with(make_user("alice"), bot)
    until_bot_to_act(table, bot, jobs)
    table.refresh_from_db()
    services.table_followups(table_id=table.pk, seq=table.seq, new_turn=True, finished=False)
    jobs.drain()
    assert WebhookDelivery.objects.count() == 1
    assert len(receiver.posted) == 1


def test_a_person_without_an_endpoint_costs_no_delivery(jobs: Jobs, receiver: PushService) -> None:
    alice, bob = make_user("alice"), make_user("bob")
    table = games.table_create(host=alice, seat_count=2)
    games.table_join(table_id=table.pk, user=bob)
    games.table_start(table_id=table.pk, user=alice)
    for _ in range(3):
        jobs.drain()
        play_turn(Table.objects.get(pk=table.pk))
    jobs.drain()
    assert not WebhookDelivery.objects.exists()
    assert receiver.posted == []


def test_a_disabled_endpoint_is_not_written_to(jobs: Jobs, receiver: PushService, bot: Bot) -> None:
    endpoint = WebhookEndpoint.objects.get(user=bot.user)
    assert services.webhook_endpoint_disable(endpoint_id=endpoint.pk, reason="a test")
    table = table_with(make_user("alice"), bot)
    until_bot_to_act(table, bot, jobs)
    assert not WebhookDelivery.objects.exists()
    assert receiver.posted == []


def test_an_invitation_is_posted_with_the_join_url(
    jobs: Jobs, receiver: PushService, bot: Bot
) -> None:
    alice = make_user("alice")
    table = games.table_create(host=alice, seat_count=3)
    invitation = games.invitation_create(table_id=table.pk, host=alice, username="robot")
    jobs.drain()
    (posted,) = receiver.posted
    payload = verified(posted, bot.secret)
    assert payload["type"] == "invitation"
    assert payload["data"] == {
        "type": "invitation",
        "id": invitation.pk,
        "table": table.pk,
        "game": "flip",
        "from": "alice",
        "seats": 3,
        "url": f"/api/v1/tables/{table.pk}/join/",
    }
    # The bot answers as examples/webhook_bot.py does: it posts the join URL.
    joined = bot.api().post(payload["data"]["url"])
    assert joined.status_code == 201, joined.content  # noqa: PLR2004
    # The same signal again (a retried on-commit) writes nothing more.
    webhooks.on_invitation_made(None, invitation_id=invitation.pk, table_id=table.pk, user_id=0)
    webhooks.webhook_invitation(invitation_id=invitation.pk, user_id=bot.user.pk)
    assert WebhookDelivery.objects.count() == 1


def test_the_bot_missing_its_deadline_gets_the_tables_policy_as_anyone(
    jobs: Jobs, receiver: PushService, bot: Bot
) -> None:
    """Nothing special for a bot account: the sweep plays its turn as the table's policy
    says; a bot turn that follows a timeout is written in the sweep's page of timeouts."""
    with time_machine.travel(T0, tick=False) as clock:
        table = table_with(make_user("alice"), bot, turn_hours=12)
        until_bot_to_act(table, bot, jobs)
        table.refresh_from_db()
        bot_turns = [table.turn]
        posted = [verified(receiver.posted[0], bot.secret)["data"]["turn"]]
        for _ in range(4):  # whoever is to act sleeps through their turn
            clock.shift(timedelta(hours=12, minutes=1))
            services.sweep(run=services.run_inline)
            jobs.drain()
            table.refresh_from_db()
            if seat_to_act(table).user == bot.user:
                bot_turns.append(table.turn)
            # Verified as they arrive (a signature is good for five minutes).
            news = receiver.posted[len(posted) :]
            posted += [verified(one, bot.secret)["data"]["turn"] for one in news]
    timeouts = Move.objects.filter(table=table, source=Move.Source.TIMEOUT)
    assert timeouts.filter(seat=1).exists()
    assert timeouts.count() >= 4  # noqa: PLR2004
    assert len(bot_turns) > 1
    assert posted == bot_turns


# ----------------------------------------------------------------------------
# Retries, disabling


def drain_but_mail(jobs: Jobs) -> None:
    """``jobs.drain()`` but for sending e-mail: the owner's message waits in the outbox
    (sending it is ``test_the_owners_message_is_sent``'s)."""
    for _ in range(1000):
        picked = [job for job in jobs if job[0] != services.SEND]
        if not picked:
            return
        jobs[:] = [job for job in jobs if job[0] == services.SEND]
        for name, args in picked:
            services.run_inline(name, args)
    raise AssertionError("the jobs never ran out")


def attempt_due(jobs: Jobs, clock: time_machine.Traveller, delivery: WebhookDelivery) -> None:
    """Move time to the delivery's next attempt and let the sweep hand it out."""
    delivery.refresh_from_db()
    assert delivery.next_attempt_at is not None
    clock.move_to(delivery.next_attempt_at + timedelta(seconds=61))  # the outbox grace
    services.sweep(run=services.run_inline)
    drain_but_mail(jobs)


def test_a_failing_receiver_is_retried_with_backoff_until_it_answers(
    jobs: Jobs, receiver: PushService, bot: Bot
) -> None:
    receiver.status = 500
    with time_machine.travel(T0, tick=False) as clock:
        table = table_with(make_user("alice"), bot)
        until_bot_to_act(table, bot, jobs)
        (delivery,) = WebhookDelivery.objects.all()
        waits = []
        for _ in range(7):
            delivery.refresh_from_db()
            assert delivery.status == WebhookDelivery.Status.PENDING
            assert delivery.next_attempt_at is not None
            waits.append((delivery.next_attempt_at - datetime.now(UTC)).total_seconds())
            attempt_due(jobs, clock, delivery)
        endpoint = WebhookEndpoint.objects.get(user=bot.user)
        assert endpoint.failing_since == T0
        delivery.refresh_from_db()
        assert (delivery.attempts, delivery.last_status_code) == (8, 500)
        assert delivery.last_error == "HTTP 500"
        receiver.status = 204
        attempt_due(jobs, clock, delivery)
    assert waits == [5, 30, 120, 600, 1800, 3600, 3600]
    delivery.refresh_from_db()
    assert delivery.status == WebhookDelivery.Status.SENT
    assert (delivery.attempts, delivery.last_status_code) == (9, 204)
    endpoint.refresh_from_db()
    assert endpoint.failing_since is None
    # The same webhook-id on every attempt: the receiver can drop a repeat.
    assert {posted.headers["webhook-id"] for posted in receiver.posted} == {delivery.msg_id}
    assert len(receiver.posted) == 9  # noqa: PLR2004


def test_a_job_retries_a_soon_failure_itself_and_leaves_a_late_one_to_the_sweep(
    receiver: PushService, bot: Bot
) -> None:
    receiver.status = 503
    endpoint = WebhookEndpoint.objects.get(user=bot.user)
    event = {"type": "turn", "table": 0}
    with time_machine.travel(T0, tick=False) as clock:
        delivery = webhooks._write(endpoint, event, table_id=None, turn=None)
        assert delivery is not None
        outcomes = []
        for _ in range(6):
            outcomes.append(services.webhook_send(delivery_id=delivery.pk).retry_in)
            delivery.refresh_from_db()
            assert delivery.next_attempt_at is not None
            clock.move_to(delivery.next_attempt_at)
    assert outcomes == [5, 30, 120, 600, None, None]


def test_a_redirect_is_not_followed(receiver: PushService, bot: Bot) -> None:
    receiver.status = 302
    endpoint = WebhookEndpoint.objects.get(user=bot.user)
    delivery = webhooks._write(endpoint, {"type": "turn"}, table_id=None, turn=None)
    assert delivery is not None
    assert not services.webhook_send(delivery_id=delivery.pk).sent
    delivery.refresh_from_db()
    assert delivery.last_status_code == 302  # noqa: PLR2004
    assert "redirects are not followed" in delivery.last_error
    assert len(receiver.posted) == 1


def test_after_a_day_of_failures_the_endpoint_is_disabled_and_the_owner_told(
    jobs: Jobs, receiver: PushService, bot: Bot
) -> None:
    receiver.status = 500
    with time_machine.travel(T0, tick=False) as clock:
        table = table_with(make_user("alice"), bot)
        until_bot_to_act(table, bot, jobs)
        endpoint = WebhookEndpoint.objects.get(user=bot.user)
        other = webhooks._write(endpoint, {"type": "turn"}, table_id=None, turn=None)
        assert other is not None
        first = WebhookDelivery.objects.get(event="turn", table=table)
        for _ in range(100):
            endpoint.refresh_from_db()
            if endpoint.disabled_at is not None:
                break
            assert datetime.now(UTC) - T0 < timedelta(hours=24)
            attempt_due(jobs, clock, first)
        disabled_at = endpoint.disabled_at
    assert disabled_at is not None
    assert disabled_at - T0 >= timedelta(hours=24)
    assert "24 hours" in endpoint.disabled_reason
    statuses = set(WebhookDelivery.objects.values_list("status", flat=True))
    assert statuses == {WebhookDelivery.Status.FAILED}
    (told,) = OutboxMessage.objects.filter(kind=OutboxMessage.Kind.WEBHOOK_DISABLED)
    assert (told.user, told.to) == (bot.owner, bot.owner.email)
    assert told.subject == "The webhook of your bot robot was disabled"
    assert endpoint.url in told.text
    assert "Last error: HTTP 500" in told.text
    assert "PUT /api/v1/me/webhook/" in told.text
    assert endpoint.url in told.html
    assert bot.secret not in told.text
    # Disabled: a new turn of the bot's writes nothing, however its receiver is doing.
    receiver.status = 201
    posted = len(receiver.posted)
    for _ in range(3):
        play_turn(table)
        bot_plays_its_turn(table, bot)
        drain_but_mail(jobs)
    assert len(receiver.posted) == posted
    # The bot registers its URL again: on, the failing run forgotten, the secret kept.
    again = services.webhook_set(user=bot.user, url=endpoint.url)
    assert (again.created, again.secret) == (False, None)
    endpoint.refresh_from_db()
    assert (endpoint.disabled_at, endpoint.failing_since) == (None, None)
    assert services.live_secrets(endpoint) == [bot.secret]


def test_the_owners_message_is_sent(receiver: PushService, bot: Bot) -> None:
    receiver.status = 500
    endpoint = WebhookEndpoint.objects.get(user=bot.user)
    with time_machine.travel(T0, tick=False) as clock:
        delivery = webhooks._write(endpoint, {"type": "turn"}, table_id=None, turn=None)
        assert delivery is not None
        services.webhook_send(delivery_id=delivery.pk)
        clock.shift(timedelta(hours=24))
        services.webhook_send(delivery_id=delivery.pk)
        (told,) = OutboxMessage.objects.filter(kind=OutboxMessage.Kind.WEBHOOK_DISABLED)
        assert services.outbox_send(message_id=told.pk).sent
    (sent,) = mail.outbox
    assert sent.to == [bot.owner.email]


# ----------------------------------------------------------------------------
# Rotation


def test_a_rotation_signs_with_both_secrets_until_the_old_one_expires(
    receiver: PushService, bot: Bot
) -> None:
    endpoint = WebhookEndpoint.objects.get(user=bot.user)
    old = bot.secret
    with time_machine.travel(T0, tick=False) as clock:
        rotated = services.webhook_rotate(user=bot.user)
        assert rotated.previous_expire_at == T0 + timedelta(hours=24)
        first = webhooks._write(endpoint, {"type": "turn", "n": 1}, table_id=None, turn=None)
        assert first is not None
        assert services.webhook_send(delivery_id=first.pk).sent
        both = receiver.posted[-1]
        assert len(both.headers["webhook-signature"].split(" ")) == 2  # noqa: PLR2004
        assert verified(both, old) == verified(both, rotated.secret)
        clock.shift(timedelta(hours=24, seconds=1))
        later = webhooks._write(endpoint, {"type": "turn", "n": 2}, table_id=None, turn=None)
        assert later is not None
        assert services.webhook_send(delivery_id=later.pk).sent
        new_only = receiver.posted[-1]
        assert len(new_only.headers["webhook-signature"].split(" ")) == 1
        assert verified(new_only, rotated.secret)["data"]["n"] == 2  # noqa: PLR2004
        with pytest.raises(WebhookVerificationError):
            Webhook(old).verify(new_only.body, new_only.headers)
        # A rotation drops the expired secret.
        services.webhook_rotate(user=bot.user)
    endpoint.refresh_from_db()
    assert old not in webhooks.live_secrets(endpoint, T0 + timedelta(hours=24, seconds=1))
    assert len(endpoint.secrets) == 2  # noqa: PLR2004


def test_the_database_keeps_no_secret_that_signs(bot: Bot) -> None:
    """A copy of the database signs nothing: the secrets are sealed with the secret key."""
    rotated = services.webhook_rotate(user=bot.user)
    endpoint = WebhookEndpoint.objects.get(user=bot.user)
    stored = json.dumps([endpoint.secrets, endpoint.secrets_expire])
    assert bot.secret not in stored and rotated.secret not in stored
    assert "whsec_" not in stored
    assert webhooks.live_secrets(endpoint)[:2] == [rotated.secret, bot.secret]


def test_rotations_in_a_row_keep_a_few_secrets_at_most(bot: Bot) -> None:
    for _ in range(10):
        services.webhook_rotate(user=bot.user)
    endpoint = WebhookEndpoint.objects.get(user=bot.user)
    assert len(endpoint.secrets) == len(endpoint.secrets_expire) == webhooks.MAX_SECRETS


# ----------------------------------------------------------------------------
# Addresses


def resolving(monkeypatch: pytest.MonkeyPatch, names: dict[str, list[str]]) -> None:
    """Make ``socket.getaddrinfo`` answer ``names`` (anything else does not resolve)."""

    def answer(host: str, port: object, *args: object, **kwargs: object) -> list[Any]:
        if host not in names:
            raise socket.gaierror(socket.EAI_NONAME, "Name or service not known")
        return [
            (
                socket.AF_INET6 if ":" in address else socket.AF_INET,
                socket.SOCK_STREAM,
                6,
                "",
                (address, port),
            )
            for address in names[host]
        ]

    monkeypatch.setattr(socket, "getaddrinfo", answer)


@pytest.mark.parametrize(
    "url",
    [
        "https://10.0.0.1/hook",
        "https://127.0.0.1/hook",
        "https://[::1]/hook",
        "https://169.254.169.254/latest/meta-data/",
        "https://[::ffff:10.0.0.1]/hook",
        "https://[::ffff:127.0.0.1]/hook",
        "https://0.0.0.0/hook",
        "https://224.0.0.1/hook",
        "https://100.64.0.1/hook",
        "https://[fe80::1]/hook",
        "https://[fc00::1]/hook",
        "https://240.0.0.1/hook",
        "https://localhost/hook",
        "https://inside.example/hook",
        "https://mixed.example/hook",
        "https://nowhere.example/hook",
        "http://bot.example/hook",
        "ftp://bot.example/hook",
        "https://user:pw@bot.example/hook",
        "https://bot.example:99999/hook",
        "https://bot.example/hook#x",
        "https://bücher.example/hook",
        "https:///hook",
        "https://bot.example/ho ok",
        "https://bot.example/" + "a" * 2048,
        "not a url",
    ],
)
def test_urls_that_are_not_public_https_are_refused(
    url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    resolving(
        monkeypatch,
        {
            "bot.example": ["93.184.216.34"],
            "inside.example": ["10.1.2.3"],
            "mixed.example": ["93.184.216.34", "192.168.1.10"],
            "localhost": ["127.0.0.1", "::1"],
            **{ip: [ip] for ip in ("10.0.0.1", "127.0.0.1", "169.254.169.254", "0.0.0.0")},  # noqa: S104
            **{ip: [ip] for ip in ("224.0.0.1", "100.64.0.1", "240.0.0.1")},
            **{ip: [ip] for ip in ("::1", "::ffff:10.0.0.1", "::ffff:127.0.0.1")},
            **{ip: [ip] for ip in ("fe80::1", "fc00::1")},
        },
    )
    with (
        override_settings(GAMENOOK_WEBHOOK_ALLOW_LOOPBACK=False),
        pytest.raises(services.WebhookUrlRefused) as refused,
    ):
        services.webhook_url_check(url)
    assert refused.value.code == "webhook_url_refused"
    assert refused.value.message.startswith("The webhook URL ")


def test_a_public_https_url_is_taken(monkeypatch: pytest.MonkeyPatch) -> None:
    resolving(monkeypatch, {"bot.example": ["93.184.216.34", "2606:2800:220:1::1"]})
    with override_settings(GAMENOOK_WEBHOOK_ALLOW_LOOPBACK=False):
        url = "https://bot.example:8443/hook?v=1"
        assert services.webhook_url_check(url) == url


def test_a_name_that_turns_private_after_registration_is_never_posted_to(
    receiver: PushService, monkeypatch: pytest.MonkeyPatch
) -> None:
    bot = Bot(make_user("owner"), "robot")
    resolving(monkeypatch, {"bot.example": ["93.184.216.34"]})
    with override_settings(GAMENOOK_WEBHOOK_ALLOW_LOOPBACK=False):
        bot.listen("https://bot.example/hook")
        resolving(monkeypatch, {"bot.example": ["10.0.0.5"]})
        endpoint = WebhookEndpoint.objects.get(user=bot.user)
        delivery = webhooks._write(endpoint, {"type": "turn"}, table_id=None, turn=None)
        assert delivery is not None
        assert not services.webhook_send(delivery_id=delivery.pk).sent
    delivery.refresh_from_db()
    assert delivery.status == WebhookDelivery.Status.PENDING  # a failure like any other
    assert delivery.last_error == (
        "Refused: the host bot.example resolves to 10.0.0.5, a private address."
    )
    assert delivery.last_status_code is None
    assert receiver.posted == []


def test_the_post_goes_to_the_address_checked_with_the_name_in_the_host_header(
    receiver: PushService, monkeypatch: pytest.MonkeyPatch
) -> None:
    """bot.example resolves (here) to the receiver's 127.0.0.1: the post reaches that
    address, named bot.example; no second look-up could send it elsewhere."""
    port = receiver.server.server_port
    # The client connects to the literal address: resolving it gives itself back.
    resolving(monkeypatch, {"bot.example": ["127.0.0.1"], "127.0.0.1": ["127.0.0.1"]})
    bot = Bot(make_user("owner"), "robot")
    bot.listen(f"http://bot.example:{port}/hook?id=7")
    endpoint = WebhookEndpoint.objects.get(user=bot.user)
    delivery = webhooks._write(endpoint, {"type": "turn"}, table_id=None, turn=None)
    assert delivery is not None
    assert services.webhook_send(delivery_id=delivery.pk).sent
    (posted,) = receiver.posted
    assert posted.path == "/hook?id=7"
    assert posted.headers["host"] == f"bot.example:{port}"
    assert posted.headers["content-type"] == "application/json"
    assert verified(posted, bot.secret)["data"] == {"type": "turn"}


def test_a_person_has_no_webhook(receiver: PushService) -> None:
    alice = make_user("alice")
    with pytest.raises(services.NotABot):
        services.webhook_set(user=alice, url=receiver.endpoint("hook"))
    assert not WebhookEndpoint.objects.exists()


def test_the_admin_pages_show_no_secret(bot: Bot, jobs: Jobs, receiver: PushService) -> None:

    staff = User.objects.create_superuser("staff", "staff@example.com", "pw-staff-123")
    client = Client()
    client.force_login(staff)
    endpoint = WebhookEndpoint.objects.get(user=bot.user)
    delivery = webhooks._write(endpoint, {"type": "turn"}, table_id=None, turn=None)
    assert delivery is not None
    pages = [
        "/admin/notifications/webhookendpoint/",
        f"/admin/notifications/webhookendpoint/{endpoint.pk}/change/",
        "/admin/notifications/webhookdelivery/?status__exact=pending",
        f"/admin/notifications/webhookdelivery/{delivery.pk}/change/",
    ]
    for page in pages:
        answer = client.get(page)
        assert answer.status_code == 200, page  # noqa: PLR2004
        assert bot.secret.encode() not in answer.content
        assert bot.secret.removeprefix("whsec_").encode() not in answer.content
    assert b"owner" in client.get(pages[0]).content
    # No lookup on the secrets column.
    probe = client.get("/admin/notifications/webhookendpoint/?secrets__icontains=whsec")
    assert probe.status_code == 400  # noqa: PLR2004
    answer = client.post(
        pages[0], {"action": "disable", "_selected_action": [endpoint.pk]}, follow=True
    )
    assert answer.status_code == 200  # noqa: PLR2004
    endpoint.refresh_from_db()
    assert endpoint.disabled_at is not None
    delivery.refresh_from_db()
    assert delivery.status == WebhookDelivery.Status.FAILED
    client.post(pages[0], {"action": "enable", "_selected_action": [endpoint.pk]})
    endpoint.refresh_from_db()
    assert endpoint.disabled_at is None


# ----------------------------------------------------------------------------
# examples/webhook_bot.py's verifier


def example_bot() -> Any:
    """The example, imported from its file (``examples`` is not a package)."""

    path = Path(__file__).resolve().parents[2] / "examples" / "webhook_bot.py"
    spec = importlib.util.spec_from_file_location("webhook_bot", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def signed_by_the_service(secrets_: list[str], at: datetime) -> tuple[dict[str, str], bytes]:
    """A delivery as ``webhook_send`` signs it: its headers and body."""
    event = {"type": "turn", "table": 7, "turn": 3}
    body = json.dumps(webhooks._envelope(event, at), separators=(",", ":"))
    headers = webhooks.signed_headers(msg_id="msg_abc", timestamp=at, body=body, secrets_=secrets_)
    return headers, body.encode()


def test_the_example_bot_accepts_what_the_service_signs_and_nothing_else() -> None:
    bot = example_bot()
    secret, other = webhooks._new_secret(), webhooks._new_secret()
    now = datetime.now(UTC)
    headers, body = signed_by_the_service([secret], now)
    assert bot.verify(secret, headers, body)["data"]["table"] == 7  # noqa: PLR2004
    # Header names in any case, as an HTTP server hands them over.
    assert bot.verify(secret, {k.title(): v for k, v in headers.items()}, body)
    # During a rotation either secret is enough.
    both, body2 = signed_by_the_service([other, secret], now)
    assert bot.verify(secret, both, body2) == bot.verify(other, both, body2)
    refusals = [
        (secret, headers, body.replace(b'"table":7', b'"table":8')),  # a tampered body
        (other, headers, body),  # another secret
        (secret, {**headers, "webhook-id": "msg_other"}, body),  # another message's id
        (secret, {k: v for k, v in headers.items() if k != "webhook-signature"}, body),
        (secret, {**headers, "webhook-signature": "v2," + headers["webhook-signature"][3:]}, body),
        (secret, {**headers, "webhook-timestamp": "soon"}, body),
    ]
    for key, sent, data in refusals:
        with pytest.raises(bot.InvalidSignature):
            bot.verify(key, sent, data)
    # Signed six minutes ago (a replay), or six minutes ahead: refused; four minutes: fine.
    for minutes, good in ((-6, False), (6, False), (-4, True)):
        old_headers, old_body = signed_by_the_service([secret], now + timedelta(minutes=minutes))
        if good:
            assert bot.verify(secret, old_headers, old_body)
        else:
            with pytest.raises(bot.InvalidSignature):
                bot.verify(secret, old_headers, old_body)


# ----------------------------------------------------------------------------
# TLS to the address checked


class TlsReceiver(PushService):
    """The receiver over TLS, with a certificate for ``bot.example`` only; records SNI."""

    def __init__(self) -> None:

        super().__init__()
        key = ec.generate_private_key(ec.SECP256R1())
        name = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, "bot.example")])
        now = datetime.now(UTC)
        cert = (
            x509.CertificateBuilder()
            .subject_name(name)
            .issuer_name(name)
            .public_key(key.public_key())
            .serial_number(x509.random_serial_number())
            .not_valid_before(now - timedelta(days=1))
            .not_valid_after(now + timedelta(days=1))
            .add_extension(x509.SubjectAlternativeName([x509.DNSName("bot.example")]), False)
            .add_extension(x509.BasicConstraints(ca=True, path_length=None), True)
            .sign(key, hashes.SHA256())
        )
        self.ca = cert.public_bytes(serialization.Encoding.PEM).decode()
        pem = (
            self.ca
            + key.private_bytes(
                serialization.Encoding.PEM,
                serialization.PrivateFormat.PKCS8,
                serialization.NoEncryption(),
            ).decode()
        )

        context = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
        with tempfile.NamedTemporaryFile("w", suffix=".pem") as file:
            file.write(pem)
            file.flush()
            context.load_cert_chain(file.name)
        self.sni: list[str | None] = []
        context.sni_callback = lambda _sock, server_name, _ctx: self.sni.append(server_name)
        self.server.socket = context.wrap_socket(self.server.socket, server_side=True)


@pytest.fixture
def tls_receiver() -> Iterator[TlsReceiver]:
    running = TlsReceiver()
    running.start()
    yield running
    running.stop()


def trusting(monkeypatch: pytest.MonkeyPatch, ca: str) -> None:
    """Make the webhook client trust ``ca`` (as a real one trusts the public CAs)."""

    context = ssl.create_default_context(cadata=ca)
    monkeypatch.setattr(httpx, "Client", functools.partial(httpx.Client, verify=context))


@pytest.mark.parametrize(
    ("name", "trusted", "error"),
    [
        ("bot.example", True, None),
        ("evil.example", True, "certificate verify failed: Hostname mismatch"),
        ("bot.example", False, "certificate verify failed"),
    ],
)
def test_https_goes_to_the_address_checked_and_verifies_the_names_certificate(
    tls_receiver: TlsReceiver,
    monkeypatch: pytest.MonkeyPatch,
    name: str,
    trusted: bool,  # noqa: FBT001
    error: str | None,
) -> None:
    """Both names resolve (here) to the receiver's 127.0.0.1; the certificate is for
    bot.example. The post reaches that address with the name in SNI and Host, and TLS
    checks the certificate against the name, not the address."""
    port = tls_receiver.server.server_port
    resolving(monkeypatch, {name: ["127.0.0.1"], "127.0.0.1": ["127.0.0.1"]})
    if trusted:
        trusting(monkeypatch, tls_receiver.ca)
    bot = Bot(make_user("owner"), "robot")
    bot.listen(f"https://{name}:{port}/hook")
    endpoint = WebhookEndpoint.objects.get(user=bot.user)
    delivery = webhooks._write(endpoint, {"type": "turn"}, table_id=None, turn=None)
    assert delivery is not None
    sent = services.webhook_send(delivery_id=delivery.pk).sent
    delivery.refresh_from_db()
    assert tls_receiver.sni == [name]
    if error is None:
        assert sent, delivery.last_error
        (posted,) = tls_receiver.posted
        assert posted.headers["host"] == f"{name}:{port}"
        assert verified(posted, bot.secret)["data"] == {"type": "turn"}
    else:
        assert not sent
        assert error in delivery.last_error
        assert tls_receiver.posted == []
