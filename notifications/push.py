"""Web push: the devices a user turned push on for, and an outbox of pushes to them.

A push is decided where its e-mail is decided (ruling 19 for "your turn" and
the reminder, the end of a game for "game over", the last call by its own
job): ``push_enqueue`` writes one ``PushMessage`` per device of the user, in
the caller's transaction, when the user wants that kind by push
(``Preferences.<kind>_push``). After the commit a sending job (``jobs.PUSH``)
encrypts the payload for the device's keys (RFC 8291, aes128gcm) and posts it
to the device's push service with a VAPID signature (RFC 8292), through
pywebpush. As with e-mail: the message is locked while it is sent and marked
sent in the same transaction; a failure is retried with an exponential
backoff; the sweep re-queues a pending message whose job was lost. A push
service that answers 404 or 410 says the device is gone: its subscription is
deleted, and its messages with it.

The payload says what the e-mail of the same kind says and no more: a title,
a sentence, the table's link, a tag (``table-<id>``: a new notification about
a table replaces the last one on the device) and the kind. A push service
stores and forwards it encrypted; only the device reads it.

Push is off while ``GAMENOOK_VAPID_PUBLIC_KEY`` or ``GAMENOOK_VAPID_PRIVATE_KEY``
is empty: nothing is written and the API refuses new devices.
"""

from __future__ import annotations

import base64
import binascii
import functools
import ipaddress
import json
import logging
import socket
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from urllib.parse import urlsplit

import requests
from cryptography.hazmat.primitives.asymmetric import ec
from django.contrib.auth.models import User
from django.db import IntegrityError, transaction
from django.utils import timezone
from py_vapid import Vapid
from pywebpush import WebPushException, webpush

from games.errors import Conflict, NotFound, ServiceError
from games.selectors import TableFacts

from . import conf, jobs
from .models import Preferences, PushMessage, PushSubscription
from .outbox import replay_url, table_url

logger = logging.getLogger(__name__)

#: The kinds that may be pushed, each with its switch ``Preferences.<kind>_push``.
KINDS = ("your_turn", "reminder", "last_call", "game_over")
#: RFC 8030's Urgency per kind: a device on battery may hold back a low one.
URGENCY = {"your_turn": "normal", "reminder": "normal", "last_call": "high", "game_over": "low"}
#: Bounds of what the API takes (the model's columns, and what a browser sends).
MAX_ENDPOINT = 2048
MAX_NAME = 100
P256DH_BYTES = 65  # an uncompressed P-256 point
AUTH_BYTES = 16
#: The push services' own limit on an encrypted payload is about 4 kB; ours stays far below.
MAX_TEXT = 300


def push_enabled() -> bool:
    """Whether the site can push: both VAPID keys are set."""
    return bool(conf.vapid_public_key() and conf.vapid_private_key())


def push_public_key() -> str | None:
    """The VAPID public key a browser subscribes with, or None while push is off."""
    return conf.vapid_public_key() if push_enabled() else None


def push_max_devices() -> int:
    """How many devices a user may turn push on for (``GAMENOOK_PUSH_MAX_DEVICES``)."""
    return conf.push_max_devices()


class PushOff(Conflict):
    code = "push_off"
    message = (
        "Web push is off on this server: it has no VAPID keys "
        "(GAMENOOK_VAPID_PUBLIC_KEY and GAMENOOK_VAPID_PRIVATE_KEY)."
    )


class EndpointTaken(Conflict):
    code = "endpoint_taken"
    message = (
        "This browser's push subscription belongs to another account. Remove it there, or "
        "unsubscribe the browser and subscribe again (it then gets a new endpoint)."
    )


class TooManyDevices(Conflict):
    code = "too_many_devices"


class DeviceNotFound(NotFound):
    message = "No such push device of yours."


# ----------------------------------------------------------------------------
# Devices


class InvalidDevice(ServiceError):
    """A subscription well-formed as JSON that no push could be sent to (a private host,
    keys that are not a P-256 point and a 16-byte secret): 422, naming the field."""

    status = 422
    code = "invalid_device"


def _invalid(name: str, why: str) -> ServiceError:
    return InvalidDevice(f"{name}: {why}", fields={name: [why]})


def _b64url(value: str, size: int, name: str) -> bytes:
    """``value`` decoded from base64url (padding optional), exactly ``size`` bytes long."""
    why = f"must be base64url of {size} bytes."
    bare = value.rstrip("=")
    if not bare or len(value) > 2 * size or not bare.isascii() or "=" in bare:
        raise _invalid(name, why)
    try:
        raw = base64.urlsafe_b64decode(bare + "=" * (-len(bare) % 4))
    except (binascii.Error, ValueError):
        raise _invalid(name, why) from None
    # The decoder skips characters outside the alphabet: encoding back must give the same text.
    if len(raw) != size or base64.urlsafe_b64encode(raw).rstrip(b"=") != bare.encode():
        raise _invalid(name, why)
    return raw


def _checked_keys(p256dh: str, auth: str) -> None:
    """Refuse keys no push could be encrypted for (a point off the curve, a short secret)."""
    point = _b64url(p256dh, P256DH_BYTES, "keys.p256dh")
    try:
        ec.EllipticCurvePublicKey.from_encoded_point(ec.SECP256R1(), point)
    except ValueError:
        raise _invalid("keys.p256dh", "not a point of the P-256 curve.") from None
    _b64url(auth, AUTH_BYTES, "keys.auth")


def _loopback(host: str) -> bool:
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def endpoint_check(endpoint: str) -> str:
    """``endpoint`` if the server may post pushes to it; ``ServiceError`` (400) otherwise.

    https to a named host or a public address; no credentials in it, no
    address of this machine or a private network (the server would post
    there). http only to a loopback address, and only with
    ``GAMENOOK_PUSH_ALLOW_HTTP_LOOPBACK`` (the tests' push service).
    """

    def refuse(why: str) -> ServiceError:
        return _invalid("endpoint", why)

    if len(endpoint) > MAX_ENDPOINT or any(ord(c) <= 0x20 or ord(c) == 0x7F for c in endpoint):  # noqa: PLR2004
        raise refuse(f"must be a URL of at most {MAX_ENDPOINT} characters, without spaces.")
    try:
        parts = urlsplit(endpoint)
        host = parts.hostname or ""
        parts.port  # noqa: B018 (a port out of range raises here)
    except ValueError:
        raise refuse("not a URL.") from None
    if parts.username is not None or parts.password is not None or not host:
        raise refuse("must be an https URL of a push service, without credentials.")
    if parts.scheme == "http" and _loopback(host) and conf.push_allow_http_loopback():
        return endpoint
    if parts.scheme != "https":
        raise refuse("must be an https URL.")
    try:
        address = ipaddress.ip_address(host)
    except ValueError:
        if host == "localhost" or host.endswith(".localhost") or "." not in host:
            raise refuse("must be a push service's public host.") from None
        return endpoint
    if not address.is_global:
        raise refuse("must be a push service's public host.")
    return endpoint


@dataclass(frozen=True)
class Saved:
    """What ``push_subscription_save`` did: the device, and whether it is new."""

    subscription: PushSubscription
    created: bool


def push_subscription_save(
    *, user: User, endpoint: str, p256dh: str, auth: str, name: str = ""
) -> Saved:
    """Turn push on for a device of ``user`` (the browser's ``PushSubscription.toJSON()``).

    The same endpoint again updates its keys and name. An endpoint another
    account holds is refused (``EndpointTaken``), never moved over silently: the
    page then unsubscribes the browser and subscribes again, which gives it a
    new endpoint. At most ``GAMENOOK_PUSH_MAX_DEVICES`` devices a user
    (``TooManyDevices``). Locks the user's devices while it counts them.
    """
    if not push_enabled():
        raise PushOff()
    endpoint_check(endpoint)
    _checked_keys(p256dh, auth)
    if len(name) > MAX_NAME:
        raise _invalid("name", f"at most {MAX_NAME} characters.")
    with transaction.atomic():
        # The user's row serialises two subscriptions of theirs racing past the count.
        User.objects.select_for_update().filter(pk=user.pk).first()
        existing = PushSubscription.objects.select_for_update().filter(endpoint=endpoint).first()
        if existing is not None:
            if existing.user_id != user.pk:
                raise EndpointTaken()
            existing.p256dh, existing.auth, existing.name = p256dh, auth, name
            existing.save(update_fields=["p256dh", "auth", "name"])
            return Saved(existing, created=False)
        limit = conf.push_max_devices()
        if PushSubscription.objects.filter(user=user).count() >= limit:
            raise TooManyDevices(
                f"You have push on for {limit} devices, the most there may be: remove one first."
            )
        try:
            with transaction.atomic():
                created = PushSubscription.objects.create(
                    user=user, endpoint=endpoint, p256dh=p256dh, auth=auth, name=name
                )
        except IntegrityError:  # another account took the endpoint meanwhile
            raise EndpointTaken() from None
    return Saved(created, created=True)


def push_subscriptions_of(*, user: User) -> list[PushSubscription]:
    """The devices ``user`` turned push on for, the oldest first."""
    return list(PushSubscription.objects.filter(user=user).order_by("created_at", "pk"))


def push_subscription_delete(*, user: User, subscription_id: int) -> None:
    """Turn push off for one of ``user``'s devices (its queued pushes go with it)."""
    deleted, _ = PushSubscription.objects.filter(pk=subscription_id, user=user).delete()
    if not deleted:
        raise DeviceNotFound()


# ----------------------------------------------------------------------------
# Writing pushes


def _wants_push(user: User, kind: str) -> bool:
    """Whether ``user`` wants ``kind`` by push: the switch, on until they turn it off.

    "Unsubscribe from all e-mail" is about e-mail: push is the device's own switch.
    """
    if not user.is_active:
        return False
    prefs = Preferences.objects.filter(user=user).first()
    return prefs is None or bool(getattr(prefs, f"{kind}_push"))


def push_payload(*, kind: str, title: str, body: str, url: str, tag: str) -> dict[str, str]:
    """What the device receives, as JSON: only what the e-mail of the same kind says."""
    return {
        "title": title[:MAX_TEXT],
        "body": body[:MAX_TEXT],
        "url": url,
        "tag": tag,
        "kind": kind,
    }


def push_enqueue(
    *,
    user: User,
    kind: str,
    table: TableFacts | int | None = None,
    turn: int | None = None,
    title: str,
    body: str,
    url: str,
) -> list[PushMessage]:
    """Write one push to each of ``user``'s devices, once per (device, kind, table, turn).

    Nothing when push is off on the server, the user turned ``<kind>_push``
    off, or has no device. Call it inside the transaction that made the
    decision (as ``outbox_enqueue``): the pushes exist exactly when it
    committed, and their sending jobs are queued after the commit. Returns
    the messages written.

    >>> push_enqueue(user=alice, kind="your_turn", table=facts, turn=12,
    ...              title="Your turn at table 7", body="You have 23 hours left.",
    ...              url="https://gamenook.example/tables/7/")  # doctest: +SKIP
    [<PushMessage: Push your_turn to device 3 (pending)>]
    """
    if kind not in KINDS:
        raise ValueError(f"not a kind of push: {kind}")
    if not push_enabled() or not _wants_push(user, kind):
        return []
    table_id = table if isinstance(table, int) or table is None else table.id
    tag = f"table-{table_id}" if table_id is not None else f"gamenook-{kind}"
    payload = push_payload(kind=kind, title=title, body=body, url=url, tag=tag)
    now = timezone.now()
    written = []
    for subscription in PushSubscription.objects.filter(user=user):
        message = PushMessage(
            subscription=subscription,
            user=user,
            kind=kind,
            table_id=table_id,
            turn=turn,
            tag=tag,
            payload=payload,
            next_attempt_at=now,
        )
        try:
            with transaction.atomic():
                message.save()
        except IntegrityError:
            continue  # the same decision was taken before: its push exists
        written.append(message)
        jobs.dispatch_on_commit(jobs.PUSH, (message.pk,))
    return written


def _minute(instant: datetime | None) -> str:
    """An instant as the e-mails print it: ``2030-05-06 21:01`` (UTC)."""
    return "" if instant is None else f"{instant.astimezone(UTC):%Y-%m-%d %H:%M}"


def push_your_turns(*, user: User, turns: Sequence[tuple[TableFacts, str]]) -> list[PushMessage]:
    """The "your turn" pushes of one decision (``away.turn_notice_decide``): one per table.

    ``turns`` are the tables the e-mail names with their time left in words
    ("3 hours 20 minutes"). Each is its own notification, tagged with its
    table; a turn pushed before (a table the last message named too) is not
    pushed again: the outbox holds one per (device, kind, table, turn).
    """
    written: list[PushMessage] = []
    for table, left in turns:
        when = f"until {_minute(table.deadline_at)} UTC" if table.deadline_at else ""
        if left:
            body = f"You have {left} left to move: {when}." if when else f"You have {left} left."
        else:
            body = f"You have {table.turn_hours} hours to move."
        written += push_enqueue(
            user=user,
            kind="your_turn",
            table=table,
            turn=table.turn,
            title=f"Your turn at table {table.id}",
            body=body,
            url=table_url(table.id),
        )
    return written


def push_reminder(*, user: User, table: TableFacts, turn: int) -> list[PushMessage]:
    """The halfway reminder's push (``turns.table_remind``), as its e-mail says it."""
    then = (
        "treat you as having left the game"
        if table.timeout_policy == "leave"
        else "let a bot play this turn for you"
    )
    return push_enqueue(
        user=user,
        kind="reminder",
        table=table,
        turn=turn,
        title=f"Half your time is gone at table {table.id}",
        body=f"Move before {_minute(table.deadline_at)} UTC, or the table will {then}.",
        url=table_url(table.id),
    )


def push_game_over(*, user: User, table: TableFacts, rank: int | None) -> list[PushMessage]:
    """The "game over" push (``followups``): the player's place and the replay's link."""
    placed = f": you placed {rank}" if rank is not None else ""
    return push_enqueue(
        user=user,
        kind="game_over",
        table=table,
        turn=table.turn,
        title=f"The game at table {table.id} is over{placed}",
        body="Watch the replay, move by move.",
        url=replay_url(table.id),
    )


# ----------------------------------------------------------------------------
# Sending


@dataclass(frozen=True)
class PushOutcome:
    """What one sending attempt did; ``retry_in`` (seconds) when it should be tried again."""

    sent: bool
    retry_in: float | None = None


@functools.cache
def _vapid(private_key: str) -> Vapid:
    return Vapid.from_string(private_key=private_key)


@functools.cache
def _session() -> requests.Session:
    """One HTTP session per process: its connections to the push services are kept.

    It follows no redirect: a push service answers, it does not send the server on
    elsewhere (a redirect could point it at a private address)."""
    session = requests.Session()
    session.max_redirects = 0
    return session


class NotPublic(ValueError):
    """A device's push service resolves to an address that is not public."""


def _public_host(endpoint: str) -> None:
    """``NotPublic`` unless every address the endpoint's host resolves to is public.

    The API refused private addresses written as such (``endpoint_check``); a name
    is resolved here, just before each post, so that a name pointing into this
    machine's network is never posted to. (A name that changes its answer between
    this look-up and the post's own is the gap left: the post resolves again.)
    """
    host = urlsplit(endpoint).hostname or ""
    if _loopback(host) and conf.push_allow_http_loopback():
        return
    for info in socket.getaddrinfo(host, None, proto=socket.IPPROTO_TCP):
        address = ipaddress.ip_address(str(info[4][0]).split("%")[0])
        if not address.is_global:
            raise NotPublic(f"the push service's host {host} resolves to {address}, not public")


def _backoff(attempts: int, retry_after: str | None) -> float:
    wait = float(min(conf.email_backoff_cap(), 10 * 2 ** max(0, attempts - 1)))
    if retry_after is not None and retry_after.isdigit():
        wait = max(wait, min(float(retry_after), conf.email_backoff_cap()))
    return wait


# A retry that arrives a little before its instant (clocks of two workers) still sends.
_EARLY_TOLERANCE = timedelta(seconds=5)
#: Answers that mean the device is gone for good (RFC 8030, section 7.3).
GONE = (404, 410)


def _post(message: PushMessage) -> None:
    subscription = message.subscription
    _public_host(subscription.endpoint)
    webpush(
        subscription_info={
            "endpoint": subscription.endpoint,
            "keys": {"p256dh": subscription.p256dh, "auth": subscription.auth},
        },
        data=json.dumps(message.payload, ensure_ascii=False),
        vapid_private_key=_vapid(conf.vapid_private_key()),
        vapid_claims={"sub": conf.vapid_subject()},
        content_encoding="aes128gcm",
        ttl=conf.push_ttl(),
        # A push service keeps one waiting message per Topic: the newest about a table.
        headers={"Urgency": URGENCY.get(message.kind, "normal"), "Topic": message.tag[:32]},
        timeout=10,
        requests_session=_session(),
    )


def push_send(*, message_id: int) -> PushOutcome:  # noqa: PLR0911 (one return per outcome)
    """Send one pending push, once; what happened and when to try again.

    The message is locked (skip locked: a copy of this job already sending it
    makes this one return at once) for the whole attempt and marked sent in
    the same transaction. A 404 or 410 deletes the device and its messages.
    Any other failure (an error status, no answer) leaves the message pending
    with ``next_attempt_at`` pushed back exponentially, until
    ``GAMENOOK_PUSH_MAX_ATTEMPTS`` failures mark it failed. A push whose user
    has since turned that kind off, or whose server lost its keys, fails
    without being sent.
    """
    now = timezone.now()
    retry_after: str | None = None
    with transaction.atomic():
        message = (
            PushMessage.objects.select_for_update(skip_locked=True, of=("self",))
            .select_related("subscription", "user")
            .filter(pk=message_id, status=PushMessage.Status.PENDING)
            .first()
        )
        if message is None:
            return PushOutcome(sent=False)
        if message.next_attempt_at is not None and message.next_attempt_at > now + _EARLY_TOLERANCE:
            return PushOutcome(sent=False)  # an early copy; the scheduled retry will come
        if not push_enabled() or not _wants_push(message.user, message.kind):
            message.status = PushMessage.Status.FAILED
            message.next_attempt_at = None
            message.last_error = "Not sent: push is off on the server, or the user turned it off."
            message.save(update_fields=["status", "next_attempt_at", "last_error"])
            return PushOutcome(sent=False)
        try:
            _post(message)
        except NotPublic as exc:
            # Never worth a retry: the device's endpoint points into a private network.
            message.status = PushMessage.Status.FAILED
            message.next_attempt_at = None
            message.last_error = str(exc)[:2000]
            message.save(update_fields=["status", "next_attempt_at", "last_error"])
            logger.warning("push %s not sent: %s", message_id, exc)
            return PushOutcome(sent=False)
        except (WebPushException, requests.RequestException, OSError, ValueError) as exc:
            status = exc.status_code if isinstance(exc, WebPushException) else None
            if status in GONE:
                # The push service forgot the device: so do we (its messages go with it).
                message.subscription.delete()
                logger.info("push device %s is gone (%s)", message.subscription_id, status)
                return PushOutcome(sent=False)
            retry_after = exc.retry_after if isinstance(exc, WebPushException) else None
            message.attempts += 1
            message.last_error = f"{type(exc).__name__}: {exc}"[:2000]
            if message.attempts >= conf.push_max_attempts():
                message.status = PushMessage.Status.FAILED
                message.next_attempt_at = None
            else:
                wait = _backoff(message.attempts, retry_after)
                message.next_attempt_at = now + timedelta(seconds=wait)
            message.save(update_fields=["attempts", "last_error", "status", "next_attempt_at"])
        else:
            sent_at = timezone.now()
            message.status = PushMessage.Status.SENT
            message.sent_at = sent_at
            message.attempts += 1
            message.next_attempt_at = None
            message.save(update_fields=["status", "sent_at", "attempts", "next_attempt_at"])
            PushSubscription.objects.filter(pk=message.subscription_id).update(last_sent_at=sent_at)
            return PushOutcome(sent=True)
    logger.warning("sending push %s failed: %s", message_id, message.last_error)
    if message.status == PushMessage.Status.FAILED:
        return PushOutcome(sent=False)
    return PushOutcome(sent=False, retry_in=_backoff(message.attempts, retry_after))


def pushes_overdue(*, before: datetime, batch: int) -> list[int]:
    """Pending pushes whose attempt is due before ``before`` (their job was lost), oldest first."""
    overdue = (
        PushMessage.objects.filter(status=PushMessage.Status.PENDING, next_attempt_at__lte=before)
        .order_by("next_attempt_at")
        .values_list("pk", flat=True)
    )
    return list(overdue[:batch])
