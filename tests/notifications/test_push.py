"""Web push end to end: a real turn, a real push service of the test's own, decrypted.

What is real: the subscription goes through the API, the turn is played with
the games' services, the sweep and the jobs decide "your turn" after the
quiet delay (ruling 19, time moved on with time_machine), pywebpush encrypts
and signs, and an HTTP server in a thread receives the POST. The test then
holds the browser's side: it made the ECDH key pair and auth secret a browser
makes, decrypts the body with http_ece (aes128gcm) and checks the VAPID
signature with the server's public key. What is substituted: the push service
(Google's or Mozilla's) is the test's server, reached over http on loopback,
which ``GAMENOOK_PUSH_ALLOW_HTTP_LOOPBACK`` allows for the test only.
"""

from __future__ import annotations

from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from urllib.parse import urlsplit

import pytest
import time_machine
from django.contrib.auth.models import User
from django.core.cache import cache
from django.test import Client, override_settings
from rest_framework.test import APIClient

from games.models import Move, Seat, Table
from notifications import services
from notifications.models import OutboxMessage, PushMessage, PushSubscription, Reminder

from .conftest import Jobs, make_user, play_turn, seat_to_act, started_table
from .push_service import Device, PushService, vapid_pair, vapid_verified

T0 = datetime(2030, 5, 6, 9, 0, tzinfo=UTC)
PUBLIC, PRIVATE = vapid_pair()
SUBJECT = "mailto:push-test@example.com"

pytestmark = pytest.mark.django_db(transaction=True)


@pytest.fixture(autouse=True)
def _push_on() -> Iterator[None]:
    cache.clear()
    with override_settings(
        GAMENOOK_VAPID_PUBLIC_KEY=PUBLIC,
        GAMENOOK_VAPID_PRIVATE_KEY=PRIVATE,
        GAMENOOK_VAPID_SUBJECT=SUBJECT,
        GAMENOOK_PUSH_ALLOW_HTTP_LOOPBACK=True,
    ):
        yield
    cache.clear()


@pytest.fixture
def service() -> Iterator[PushService]:
    running = PushService().start()
    yield running
    running.stop()


def subscribe(user: User, endpoint: str, device: Device) -> int:
    """Turn push on for ``device`` through the API, as the account page's script does."""
    client = APIClient()
    client.force_authenticate(user)
    body = {"endpoint": endpoint, "expirationTime": None, "keys": device.keys, "name": "phone"}
    response = client.post("/api/v1/me/push-devices/", body, format="json")
    assert response.status_code == 201, response.content
    device_id: int = response.json()["id"]
    return device_id


def sweep(jobs: Jobs) -> None:
    """One tick of the periodic sweep, its jobs run here, then the pushes they queued."""
    services.sweep(run=services.run_inline)
    jobs.drain()


def her_turn(table: Table, user: User, jobs: Jobs) -> None:
    for _ in range(50):
        jobs.drain()
        table.refresh_from_db()
        if table.status != Table.Status.ACTIVE or seat_to_act(table).user == user:
            return
    raise AssertionError("the bots never gave the turn back")


def away_for_the_quiet_delay(user: User, jobs: Jobs, clock: time_machine.Traveller) -> Table:
    """A table where it is ``user``'s turn, and eleven minutes in which she did not look."""
    table = started_table(user, bots=1, turn_hours=24)
    her_turn(table, user, jobs)
    clock.shift(timedelta(minutes=11))
    sweep(jobs)
    return table


def test_your_turn_reaches_the_device_encrypted_for_its_keys_and_signed_with_vapid(
    jobs: Jobs, service: PushService
) -> None:
    alice = make_user()
    device = Device()
    subscribe(alice, service.endpoint("alice-phone"), device)
    with time_machine.travel(T0, tick=False) as clock:
        table = away_for_the_quiet_delay(alice, jobs, clock)
        clock.shift(timedelta(hours=1))
        sweep(jobs)  # nothing new: nothing more
    (posted,) = service.posted
    assert posted.path == "/push/alice-phone"
    payload = device.decrypt(posted)
    assert payload == {
        "title": f"Your turn at table {table.pk}",
        "body": payload["body"],
        "url": f"http://127.0.0.1:8000/tables/{table.pk}/",
        "tag": f"table-{table.pk}",
        "kind": "your_turn",
    }
    # The e-mail's words: the time left, then the deadline in UTC.
    assert payload["body"].startswith("You have 23 hours 49 minutes left to move: until ")
    claims = vapid_verified(posted.headers["authorization"], PUBLIC)
    assert claims["aud"] == service.origin
    assert claims["sub"] == SUBJECT
    assert posted.headers["ttl"] == "86400"
    assert posted.headers["urgency"] == "normal"
    assert posted.headers["topic"] == f"table-{table.pk}"
    message = PushMessage.objects.get()
    assert message.status == PushMessage.Status.SENT
    assert PushSubscription.objects.get().last_sent_at is not None
    # The e-mail went too: push and e-mail are each the user's choice.
    assert OutboxMessage.objects.filter(user=alice, kind="your_turn").count() == 1


def test_another_device_gets_its_own_copy_it_alone_can_read(
    jobs: Jobs, service: PushService
) -> None:
    alice = make_user()
    phone, laptop = Device(), Device()
    subscribe(alice, service.endpoint("phone"), phone)
    subscribe(alice, service.endpoint("laptop"), laptop)
    with time_machine.travel(T0, tick=False) as clock:
        away_for_the_quiet_delay(alice, jobs, clock)
    by_path = {posted.path: posted for posted in service.posted}
    assert set(by_path) == {"/push/phone", "/push/laptop"}
    assert phone.decrypt(by_path["/push/phone"]) == laptop.decrypt(by_path["/push/laptop"])
    with pytest.raises(Exception):  # noqa: B017, PT011 (http_ece raises its own or InvalidTag)
        phone.decrypt(by_path["/push/laptop"])


def test_a_device_the_push_service_says_is_gone_is_deleted_with_its_messages(
    jobs: Jobs, service: PushService
) -> None:
    alice = make_user()
    subscribe(alice, service.endpoint("old-phone"), Device())
    service.status = 410
    with time_machine.travel(T0, tick=False) as clock:
        away_for_the_quiet_delay(alice, jobs, clock)
    assert len(service.posted) == 1
    assert not PushSubscription.objects.exists()
    assert not PushMessage.objects.exists()


def test_a_404_deletes_the_device_too(jobs: Jobs, service: PushService) -> None:
    alice = make_user()
    subscribe(alice, service.endpoint("lost"), Device())
    service.status = 404
    with time_machine.travel(T0, tick=False) as clock:
        away_for_the_quiet_delay(alice, jobs, clock)
    assert not PushSubscription.objects.exists()


def test_a_push_service_in_trouble_is_tried_again_after_a_backoff_then_it_is_sent(
    jobs: Jobs, service: PushService
) -> None:
    alice = make_user()
    device = Device()
    subscribe(alice, service.endpoint("phone"), device)
    service.status = 500
    with time_machine.travel(T0, tick=False) as clock:
        away_for_the_quiet_delay(alice, jobs, clock)
        message = PushMessage.objects.get()
        assert message.status == PushMessage.Status.PENDING
        assert message.attempts == 1
        assert "500" in message.last_error
        assert message.next_attempt_at is not None
        assert message.next_attempt_at - T0 == timedelta(minutes=11, seconds=10)
        # Its own job would retry after the backoff (the Celery task raises Retry); a sending
        # job handed the message early does not send it.
        assert services.push_send(message_id=message.pk) == services.PushOutcome(sent=False)
        assert len(service.posted) == 1
        service.status = 201
        # The job was lost: the sweep hands the message out once it is overdue.
        clock.shift(timedelta(seconds=30))
        sweep(jobs)
        assert len(service.posted) == 1
        clock.shift(timedelta(seconds=45))
        sweep(jobs)
    assert len(service.posted) == 2  # noqa: PLR2004
    message.refresh_from_db()
    assert message.status == PushMessage.Status.SENT
    assert message.attempts == 2  # noqa: PLR2004
    assert device.decrypt(service.posted[1])["kind"] == "your_turn"


def test_a_push_that_keeps_failing_is_given_up_after_the_attempts_allowed(
    jobs: Jobs, service: PushService
) -> None:
    alice = make_user()
    subscribe(alice, service.endpoint("phone"), Device())
    service.status = 503
    with override_settings(GAMENOOK_PUSH_MAX_ATTEMPTS=2), time_machine.travel(T0) as clock:
        away_for_the_quiet_delay(alice, jobs, clock)
        message = PushMessage.objects.get()
        clock.shift(timedelta(minutes=2))
        outcome = services.push_send(message_id=message.pk)
    assert outcome == services.PushOutcome(sent=False)
    message.refresh_from_db()
    assert message.status == PushMessage.Status.FAILED
    assert PushSubscription.objects.exists()  # trouble is not "gone"


def test_with_its_push_switch_off_a_kind_is_not_pushed_but_still_mailed(
    jobs: Jobs, service: PushService
) -> None:
    alice = make_user()
    subscribe(alice, service.endpoint("phone"), Device())
    services.preferences_update(alice, your_turn_push=False)
    with time_machine.travel(T0, tick=False) as clock:
        away_for_the_quiet_delay(alice, jobs, clock)
    assert service.posted == []
    assert not PushMessage.objects.exists()
    assert OutboxMessage.objects.filter(user=alice, kind="your_turn").count() == 1


def test_unsubscribing_from_all_email_leaves_push_on(jobs: Jobs, service: PushService) -> None:
    alice = make_user()
    subscribe(alice, service.endpoint("phone"), Device())
    services.user_unsubscribe(alice)
    with time_machine.travel(T0, tick=False) as clock:
        away_for_the_quiet_delay(alice, jobs, clock)
    assert len(service.posted) == 1
    assert not OutboxMessage.objects.filter(user=alice, kind="your_turn").exists()


def test_a_player_at_the_table_gets_no_push_ruling_19(jobs: Jobs, service: PushService) -> None:
    alice = make_user()
    subscribe(alice, service.endpoint("phone"), Device())
    page = Client()
    with time_machine.travel(T0, tick=False) as clock:
        page.force_login(alice)
        table = started_table(alice, bots=1, turn_hours=24)
        for _ in range(3):
            her_turn(table, alice, jobs)
            if table.status != Table.Status.ACTIVE:
                break
            # She has the table open and thinks twelve minutes, the sweep running meanwhile.
            for _ in range(12):
                assert page.get(f"/tables/{table.pk}/live/").status_code == 200  # noqa: PLR2004
                clock.shift(timedelta(minutes=1))
                sweep(jobs)
            play_turn(table)
        jobs.drain()
    assert service.posted == []
    assert not PushMessage.objects.exists()


def test_a_turn_she_moves_on_within_the_delay_is_not_pushed(
    jobs: Jobs, service: PushService
) -> None:
    alice = make_user()
    subscribe(alice, service.endpoint("phone"), Device())
    with time_machine.travel(T0, tick=False) as clock:
        table = started_table(alice, bots=1, turn_hours=24)
        her_turn(table, alice, jobs)
        clock.shift(timedelta(minutes=5))
        play_turn(table)
        jobs.drain()
        her_turn(table, alice, jobs)
        play_turn(table)  # at once again: never away
        clock.shift(timedelta(minutes=3))
        sweep(jobs)
    assert service.posted == []


def test_the_halfway_reminder_is_pushed_only_to_a_player_away_from_the_table(
    jobs: Jobs, service: PushService
) -> None:
    alice, bob = make_user(), make_user()
    alice_phone, bob_phone = Device(), Device()
    subscribe(alice, service.endpoint("alice"), alice_phone)
    subscribe(bob, service.endpoint("bob"), bob_phone)
    services.preferences_update(alice, your_turn_push=False)
    services.preferences_update(bob, your_turn_push=False)
    page = Client()
    with time_machine.travel(T0, tick=False) as clock:
        page.force_login(alice)
        looked_at = started_table(alice, bots=1, turn_hours=12)
        her_turn(looked_at, alice, jobs)
        left_alone = started_table(bob, bots=1, turn_hours=12)
        her_turn(left_alone, bob, jobs)
        clock.shift(timedelta(hours=5, minutes=55))
        assert page.get(f"/tables/{looked_at.pk}/live/").status_code == 200  # noqa: PLR2004
        clock.shift(timedelta(minutes=6))  # past both halfway instants
        sweep(jobs)
    assert Reminder.objects.filter(table__in=[looked_at, left_alone]).count() == 2  # noqa: PLR2004
    (posted,) = service.posted
    assert posted.path == "/push/bob"
    payload = bob_phone.decrypt(posted)
    assert payload["kind"] == "reminder"
    assert payload["title"] == f"Half your time is gone at table {left_alone.pk}"
    assert payload["tag"] == f"table-{left_alone.pk}"


def test_game_over_is_pushed_with_the_replay_link(jobs: Jobs, service: PushService) -> None:
    alice, bob = make_user(), make_user()
    devices = {alice: Device(), bob: Device()}
    for person, device in devices.items():
        subscribe(person, service.endpoint(f"phone-{person.pk}"), device)
        services.preferences_update(person, your_turn_push=False)
    table = started_table(alice, bob, bots=1, turn_hours=24)
    for _ in range(500):
        jobs.drain()
        table.refresh_from_db()
        if table.status != Table.Status.ACTIVE:
            break
        if seat_to_act(table).user in devices:
            play_turn(table)
    jobs.drain()
    assert table.status == Table.Status.FINISHED
    # Whoever ended the game with their own move saw the end (issue 38): no push to them.
    last = Move.objects.filter(table=table).order_by("-seq").first()
    assert last is not None
    ender = Seat.objects.get(table=table, number=last.seat).user_id
    told = [p for p in devices if not (p.pk == ender and last.source == Move.Source.PLAYER)]
    assert sorted(posted.path for posted in service.posted) == sorted(
        urlsplit(service.endpoint(f"phone-{person.pk}")).path for person in told
    )
    reader = told[0]
    (posted,) = [p for p in service.posted if p.path.endswith(f"phone-{reader.pk}")]
    payload = devices[reader].decrypt(posted)
    assert payload["kind"] == "game_over"
    assert payload["url"] == f"http://127.0.0.1:8000/tables/{table.pk}/replay/"
    assert payload["title"].startswith(f"The game at table {table.pk} is over: you placed ")
    # The ranking of the others is the e-mail's; the push says only her place.
    assert set(payload) == {"title", "body", "url", "tag", "kind"}


def test_without_vapid_keys_nothing_is_pushed_and_the_api_says_push_is_off(
    jobs: Jobs, service: PushService
) -> None:
    alice = make_user()
    subscribe(alice, service.endpoint("phone"), Device())
    with override_settings(GAMENOOK_VAPID_PRIVATE_KEY=""):
        client = APIClient()
        client.force_authenticate(alice)
        listed = client.get("/api/v1/me/push-devices/").json()
        assert listed["enabled"] is False
        assert listed["vapid_public_key"] is None
        refused = client.post(
            "/api/v1/me/push-devices/",
            {"endpoint": service.endpoint("laptop"), "keys": Device().keys},
            format="json",
        )
        assert refused.status_code == 409  # noqa: PLR2004
        assert refused.json()["code"] == "push_off"
        with time_machine.travel(T0, tick=False) as clock:
            away_for_the_quiet_delay(alice, jobs, clock)
    assert service.posted == []
    assert not PushMessage.objects.exists()


def test_a_push_service_name_that_resolves_into_a_private_network_is_never_posted_to(
    jobs: Jobs, service: PushService, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The API takes a public-looking name; resolved just before the post, it points at
    10.0.0.5: the push fails for good, and nothing is posted anywhere."""
    import socket  # noqa: PLC0415

    alice = make_user()
    subscribe(alice, "https://push.example.net/send/abc", Device())

    def private(host: str, *args: object, **kwargs: object) -> list[tuple[object, ...]]:
        assert host == "push.example.net"
        return [(socket.AF_INET, socket.SOCK_STREAM, 6, "", ("10.0.0.5", 0))]

    monkeypatch.setattr(socket, "getaddrinfo", private)
    with time_machine.travel(T0, tick=False) as clock:
        away_for_the_quiet_delay(alice, jobs, clock)
    (message,) = PushMessage.objects.all()
    assert message.status == PushMessage.Status.FAILED
    assert "not public" in message.last_error
    assert service.posted == []
