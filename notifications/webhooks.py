"""Webhooks (issue 40): a bot account's events posted to its URL, signed by Standard Webhooks.

A bot account registers one https URL (``webhook_set``) and gets a ``whsec_``
secret. A delivery is decided where the other messages are decided: a turn
of the bot's seat and the end of its game in ``followups`` (at once, any
table mode: a program does not sleep), an invitation on
``games.signals.invitation_made``. ``webhook_events_write`` writes one
``WebhookDelivery`` per (endpoint, event, table, turn) in the caller's
transaction; after the commit a job (``jobs.WEBHOOK``) posts it
(``webhook_send``): the body ``{"type", "timestamp", "data"}`` where ``data``
is the event of ``games.events`` (the event stream sends the same), with the
headers ``webhook-id`` (the delivery's ``msg_id``, the same on every
attempt), ``webhook-timestamp`` and ``webhook-signature``: one ``v1,``
signature per live secret, so a receiver keeps working through a rotation.

A 2xx answer is a delivery. Anything else (another status, a redirect, which
is never followed, no answer in 10 seconds, an address that is not public)
is retried after a backoff (``BACKOFF``: 5 s, 30 s, 2 min, 10 min, 30 min,
then hourly); the sweep re-queues a retry whose job is not queued. The
endpoint's ``failing_since`` marks the first failure of an unbroken run and
a success clears it; after ``GAMENOOK_WEBHOOK_DISABLE_AFTER_HOURS`` of
failures the endpoint is disabled, its pending deliveries failed, and the
bot's owner told by e-mail how to turn it on again.

Production posts only to public addresses: a URL whose host resolves to a
private, loopback, link-local, reserved, multicast or unspecified address is
refused when it is registered, and again when each delivery is posted (the
name may point elsewhere by then). The post goes to the very address that
was checked, with the name in the ``Host`` header and in TLS's SNI (whose
certificate is verified against the name), so a second look-up cannot send
it elsewhere. ``GAMENOOK_WEBHOOK_ALLOW_LOOPBACK`` lets tests and a developer's
machine use http and loopback addresses.
"""

from __future__ import annotations

import base64
import ipaddress
import json
import logging
import secrets
import socket
import uuid
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import Any
from urllib.parse import urlsplit, urlunsplit

import httpx
from django.contrib.auth.models import User
from django.db import IntegrityError, transaction
from django.utils import timezone
from standardwebhooks.webhooks import Webhook

from games import events as game_events
from games import selectors as games_selectors
from games.errors import Forbidden, NotFound, ServiceError
from games.selectors import TableFacts
from games.signals import invitation_made

from . import conf, jobs
from .models import OutboxMessage, WebhookDelivery, WebhookEndpoint
from .outbox import _compose, account_text_seal, account_text_unseal
from .preferences import email_is_verified

logger = logging.getLogger(__name__)

#: The longest URL the model keeps.
MAX_URL = 2048
#: Seconds to wait for a receiver (connecting, and each read).
TIMEOUT = 10.0
#: How much of a receiver's answer is read (into ``last_error``): the rest is never fetched.
MAX_ANSWER = 2048
#: Seconds before each retry, by the number of failed attempts; then the last, again and again.
BACKOFF = (5, 30, 120, 600, 1800, 3600)
#: A retry further away than this is left to the sweep: a broker may re-deliver a task
#: whose countdown outlasts its visibility timeout.
COUNTDOWN_MAX = 600.0
#: At most this many secrets sign at once (a rotation adds one; the oldest go first).
MAX_SECRETS = 3
# A retry that arrives a little before its instant (clocks of two workers) still posts.
_EARLY_TOLERANCE = timedelta(seconds=5)


class WebhookUrlRefused(ServiceError):
    status = 400
    code = "webhook_url_refused"
    message = "This URL cannot receive webhooks."


class NotABot(Forbidden):
    code = "not_a_bot"
    message = (
        "Only a bot account has a webhook: create one on your account page "
        "(POST /api/v1/me/bots/) and use its token."
    )


class WebhookNotFound(NotFound):
    message = "This account has no webhook: PUT /api/v1/me/webhook/ with a URL registers one."


# ----------------------------------------------------------------------------
# Addresses


def address_refusal(address: ipaddress.IPv4Address | ipaddress.IPv6Address) -> str | None:
    """Why the server may not post to ``address``, or None when it may.

    Public addresses only: not private, loopback (unless
    ``GAMENOOK_WEBHOOK_ALLOW_LOOPBACK``), link-local, reserved, multicast or
    unspecified, nor an IPv4 address of those written as IPv6 (``::ffff:10.0.0.1``).
    """
    if isinstance(address, ipaddress.IPv6Address) and address.ipv4_mapped is not None:
        address = address.ipv4_mapped
    if address.is_loopback:
        return None if conf.webhook_allow_loopback() else "a loopback address"
    kinds = (
        ("link-local", address.is_link_local),
        ("multicast", address.is_multicast),
        ("unspecified", address.is_unspecified),
        ("reserved", address.is_reserved),
        ("private", address.is_private or not address.is_global),
    )
    return next((f"a {kind} address" for kind, found in kinds if found), None)


def _resolve(host: str, port: int) -> list[ipaddress.IPv4Address | ipaddress.IPv6Address]:
    """Every address ``host`` resolves to (``OSError`` when it does not)."""
    infos = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM)
    found = [ipaddress.ip_address(str(info[4][0]).split("%")[0]) for info in infos]
    return list(dict.fromkeys(found))


class NotPublic(Exception):
    """The URL's host resolves to an address the server may not post to (or to none)."""


def public_address(host: str, port: int) -> ipaddress.IPv4Address | ipaddress.IPv6Address:
    """The address to post to: ``host``'s first, once every address it has is allowed.

    ``NotPublic`` when the name does not resolve, or when any of its addresses
    is refused (``address_refusal``): a name with one public and one private
    address is refused, since a client may pick either.
    """
    try:
        addresses = _resolve(host, port)
    except (OSError, UnicodeError) as exc:
        raise NotPublic(f"the host {host} does not resolve ({exc})") from None
    if not addresses:
        raise NotPublic(f"the host {host} does not resolve")
    for address in addresses:
        why = address_refusal(address)
        if why is not None:
            raise NotPublic(f"the host {host} resolves to {address}, {why}")
    return addresses[0]


def webhook_url_check(url: str) -> str:
    """``url`` if webhooks may be posted to it; ``WebhookUrlRefused`` (400) otherwise.

    https, no credentials, a host whose every address is public (it is
    resolved here). With ``GAMENOOK_WEBHOOK_ALLOW_LOOPBACK`` http and loopback
    addresses are allowed too.
    """

    def refuse(why: str) -> WebhookUrlRefused:
        return WebhookUrlRefused(f"The webhook URL {why}", fields={"url": [why]})

    if len(url) > MAX_URL or any(ord(c) <= 0x20 or ord(c) == 0x7F for c in url):  # noqa: PLR2004
        raise refuse(f"must be a URL of at most {MAX_URL} characters, without spaces.")
    try:
        parts = urlsplit(url)
        host = parts.hostname or ""
        port = parts.port
    except ValueError:
        raise refuse("is not a URL.") from None
    allowed = ("https", "http") if conf.webhook_allow_loopback() else ("https",)
    if parts.scheme not in allowed:
        raise refuse("must be an https URL.")
    if parts.username is not None or parts.password is not None or not host:
        raise refuse("must name a host, without a user name or password.")
    if parts.fragment:
        raise refuse("must not have a fragment (#...).")
    if not host.isascii():
        raise refuse("must name its host in ASCII (an international name as xn--...).")
    try:
        public_address(host, port or (443 if parts.scheme == "https" else 80))
    except NotPublic as exc:
        raise refuse(f"cannot be used: {exc}. Webhooks go to public addresses only.") from None
    return url


# ----------------------------------------------------------------------------
# Endpoints


def _new_secret() -> str:
    """A signing secret as Standard Webhooks writes it: ``whsec_`` and base64 of 32 random bytes."""
    return "whsec_" + base64.b64encode(secrets.token_bytes(32)).decode("ascii")


def _bot_only(user: User) -> None:
    if not games_selectors.is_bot_account(user.pk):
        raise NotABot()


@dataclass(frozen=True)
class WebhookSet:
    """What ``webhook_set`` did: the endpoint, and its secret when it is new (shown once)."""

    endpoint: WebhookEndpoint
    created: bool
    secret: str | None = None


def webhook_set(*, user: User, url: str) -> WebhookSet:
    """Register ``url`` as bot account ``user``'s webhook, or change it.

    A new endpoint gets a secret, answered here once and never again. A
    change keeps the secrets and turns a disabled endpoint on again (the
    failing run forgotten). ``NotABot`` (403) for a person's account,
    ``WebhookUrlRefused`` (400) for a URL webhooks may not go to. Locks the
    endpoint's row.
    """
    _bot_only(user)
    webhook_url_check(url)
    with transaction.atomic():
        endpoint = WebhookEndpoint.objects.select_for_update().filter(user=user).first()
        if endpoint is not None:
            endpoint.url = url
            endpoint.disabled_at, endpoint.disabled_reason, endpoint.failing_since = None, "", None
            endpoint.save(update_fields=["url", "disabled_at", "disabled_reason", "failing_since"])
            return WebhookSet(endpoint, created=False)
        secret = _new_secret()
        try:
            with transaction.atomic():
                endpoint = WebhookEndpoint.objects.create(
                    user=user, url=url, secrets=[_seal(secret)], secrets_expire=[None]
                )
        except IntegrityError:  # the same bot registering twice at once: the other won
            return webhook_set(user=user, url=url)
    return WebhookSet(endpoint, created=True, secret=secret)


def webhook_of(*, user: User) -> WebhookEndpoint:
    """Bot account ``user``'s webhook; ``WebhookNotFound`` (404) when it has none."""
    _bot_only(user)
    endpoint = WebhookEndpoint.objects.filter(user=user).first()
    if endpoint is None:
        raise WebhookNotFound()
    return endpoint


def webhook_delete(*, user: User) -> None:
    """Remove bot account ``user``'s webhook, its delivery log with it."""
    _bot_only(user)
    deleted, _ = WebhookEndpoint.objects.filter(user=user).delete()
    if not deleted:
        raise WebhookNotFound()


def _expiry(value: str | None) -> datetime | None:
    return None if value is None else datetime.fromisoformat(value)


def _seal(secret: str) -> str:
    """A signing secret as the database keeps it: sealed under a key only the secret key
    gives (``outbox.account_text_seal``), so a copy of the database signs nothing."""
    return account_text_seal(secret)


def live_secrets(endpoint: WebhookEndpoint, now: datetime | None = None) -> list[str]:
    """The secrets that sign a delivery now, newest first (an old one until it expires)."""
    now = now or timezone.now()
    return [
        account_text_unseal(sealed)
        for sealed, expires in zip(endpoint.secrets, endpoint.secrets_expire, strict=False)
        if (when := _expiry(expires)) is None or when > now
    ]


@dataclass(frozen=True)
class Rotated:
    """A rotation's new secret (shown once) and when the secrets before it stop signing."""

    secret: str
    previous_expire_at: datetime


def webhook_rotate(*, user: User) -> Rotated:
    """Give bot account ``user``'s webhook a new secret; the old ones sign a while longer.

    Every delivery is signed with the new secret and, for
    ``GAMENOOK_WEBHOOK_ROTATION_HOURS`` more, with each older one still live,
    so the bot can switch at its own pace. Expired secrets are dropped, and
    at most ``MAX_SECRETS`` are kept. Locks the endpoint's row.
    """
    _bot_only(user)
    now = timezone.now()
    until = now + conf.webhook_rotation()
    with transaction.atomic():
        endpoint = WebhookEndpoint.objects.select_for_update().filter(user=user).first()
        if endpoint is None:
            raise WebhookNotFound()
        kept: list[tuple[str, str | None]] = []
        for secret, expires in zip(endpoint.secrets, endpoint.secrets_expire, strict=False):
            when = _expiry(expires)
            if when is None or when > now:
                kept.append((secret, (min(when, until) if when else until).isoformat()))
        secret = _new_secret()
        kept = [(_seal(secret), None), *kept][:MAX_SECRETS]
        endpoint.secrets = [pair[0] for pair in kept]
        endpoint.secrets_expire = [pair[1] for pair in kept]
        endpoint.save(update_fields=["secrets", "secrets_expire"])
    return Rotated(secret=secret, previous_expire_at=until)


# ----------------------------------------------------------------------------
# Writing deliveries


def _iso(instant: datetime) -> str:
    return instant.astimezone(UTC).isoformat().replace("+00:00", "Z")


def _envelope(event: dict[str, Any], now: datetime) -> dict[str, Any]:
    """What is posted: the event wrapped as Standard Webhooks suggests."""
    return {"type": event["type"], "timestamp": _iso(now), "data": event}


def _endpoints_of(user_ids: Sequence[int]) -> dict[int, WebhookEndpoint]:
    """The enabled endpoints of these users, by user id, in one query."""
    if not user_ids:
        return {}
    found = WebhookEndpoint.objects.filter(user_id__in=set(user_ids), disabled_at__isnull=True)
    return {endpoint.user_id: endpoint for endpoint in found}


def _write(
    endpoint: WebhookEndpoint,
    event: dict[str, Any],
    *,
    table_id: int | None,
    turn: int | None,
    msg_id: str | None = None,
) -> WebhookDelivery | None:
    """Insert one delivery and queue its job after the commit; None when it exists already."""
    now = timezone.now()
    delivery = WebhookDelivery(
        endpoint=endpoint,
        msg_id=msg_id or f"msg_{uuid.uuid4().hex}",
        event=event["type"],
        table_id=table_id,
        turn=turn,
        payload=_envelope(event, now),
        next_attempt_at=now,
    )
    try:
        with transaction.atomic():
            delivery.save()
    except IntegrityError:
        return None  # the same decision was taken before: its delivery exists
    jobs.dispatch_on_commit(jobs.WEBHOOK, (delivery.pk,))
    return delivery


@dataclass(frozen=True)
class TurnBegun:
    """A turn of ``user_id``'s seat ``seat`` began at ``table`` (``game``: None, read it)."""

    user_id: int
    table: TableFacts
    seat: int
    game: str | None = None


def webhook_turns(turns: Sequence[TurnBegun]) -> list[WebhookDelivery]:
    """Write a ``turn`` delivery for each of ``turns`` whose user has an enabled endpoint.

    One query finds the endpoints of all of them (none: nothing more is read).
    Once per (endpoint, table, turn). Call it in the transaction that decided
    the turns (or in a transaction of its own, after the change committed).
    """
    endpoints = _endpoints_of([begun.user_id for begun in turns])
    written = []
    for begun in turns:
        endpoint = endpoints.get(begun.user_id)
        if endpoint is None:
            continue
        table = begun.table
        event = game_events.turn_event(
            table_id=table.id,
            game=begun.game or games_selectors.table_get(table.id).game,
            seq=table.seq,
            turn=table.turn,
            seat=begun.seat,
            deadline=table.deadline_at,
        )
        delivery = _write(endpoint, event, table_id=table.id, turn=table.turn)
        if delivery is not None:
            written.append(delivery)
    return written


def webhook_game_over(*, table: TableFacts) -> list[WebhookDelivery]:
    """Write a ``game_over`` delivery to each seated user of ``table`` with an enabled endpoint.

    Two queries when nobody there has one (the seats, the endpoints). Once per
    (endpoint, table, turn). Call it in the transaction that writes the game's
    other "game over" messages.
    """
    seats = [seat for seat in games_selectors.seats_at(table.id) if seat.user is not None]
    endpoints = _endpoints_of([seat.user.pk for seat in seats if seat.user is not None])
    if not endpoints:
        return []
    ranking, _ = games_selectors.final_ranking(table.id)
    game = games_selectors.table_get(table.id).game
    written = []
    for seat in seats:
        endpoint = None if seat.user is None else endpoints.get(seat.user.pk)
        if endpoint is None:
            continue
        event = game_events.game_over_event(
            table_id=table.id, game=game, seat=seat.number, ranking=ranking
        )
        delivery = _write(endpoint, event, table_id=table.id, turn=table.turn)
        if delivery is not None:
            written.append(delivery)
    return written


def webhook_invitation(*, invitation_id: int, user_id: int) -> WebhookDelivery | None:
    """Write the ``invitation`` delivery of a pending invitation to ``user_id``, once.

    Nothing when the user has no enabled endpoint, or the invitation is no
    longer pending (declined, or its table started) by the time this runs.
    """
    endpoint = _endpoints_of([user_id]).get(user_id)
    if endpoint is None:
        return None
    pending = games_selectors.invitations_pending(user_id)
    facts = next((found for found in pending if found.id == invitation_id), None)
    if facts is None:
        return None
    event = game_events.invitation_event(
        invitation_id=facts.id,
        table_id=facts.table_id,
        game=facts.game,
        host=facts.host,
        seats=facts.seat_count,
    )
    with transaction.atomic():
        # The invitation's own id makes the message once: the signal may come twice.
        return _write(
            endpoint,
            event,
            table_id=facts.table_id,
            turn=None,
            msg_id=f"msg_invitation_{facts.id}",
        )


def on_invitation_made(
    sender: Any,  # noqa: ARG001 (a receiver is called with its sender)
    *,
    invitation_id: int,
    table_id: int,  # noqa: ARG001 (the invitation says which table)
    user_id: int,
    **kwargs: Any,
) -> None:
    """``games.signals.invitation_made`` (after the commit): the invitee's webhook, if any.

    A failure is logged, never raised into the request that invited.
    """
    try:
        webhook_invitation(invitation_id=invitation_id, user_id=user_id)
    except Exception:
        logger.exception("the webhook of invitation %s could not be written", invitation_id)


# Connected when this module is first imported (the admin's and the tasks' imports of the
# services, at start-up); the uid keeps it to one connection however often that is.
invitation_made.connect(on_invitation_made, dispatch_uid="notifications.webhook_invitation")


# ----------------------------------------------------------------------------
# Sending


@dataclass(frozen=True)
class WebhookOutcome:
    """What one attempt did; ``retry_in`` (seconds) when a job should try again that soon."""

    sent: bool
    retry_in: float | None = None


def backoff(attempts: int) -> float:
    """Seconds before the next attempt after ``attempts`` failed ones (5 s ... then hourly)."""
    return float(BACKOFF[min(max(attempts, 1), len(BACKOFF)) - 1])


def signed_headers(
    *, msg_id: str, timestamp: datetime, body: str, secrets_: Sequence[str]
) -> dict[str, str]:
    """The Standard Webhooks headers of one post: one ``v1,`` signature per secret."""
    signatures = [
        Webhook(secret).sign(msg_id=msg_id, timestamp=timestamp, data=body) for secret in secrets_
    ]
    return {
        "webhook-id": msg_id,
        "webhook-timestamp": str(int(timestamp.timestamp())),
        "webhook-signature": " ".join(signatures),
    }


def _answer(status: int, text: str) -> str:
    return f"HTTP {status}: {' '.join(text.split())[:500]}" if text.strip() else f"HTTP {status}"


def post(url: str, body: str, headers: dict[str, str]) -> tuple[int, str]:
    """POST ``body`` to ``url``; the answer's status and the start of its text.

    The host is resolved once and checked (``public_address``); the post goes
    to that address, the name in ``Host`` and, over TLS, in SNI and the
    certificate check. No redirect is followed, no proxy from the environment
    used, and at most ``MAX_ANSWER`` bytes of the answer are read.
    """
    parts = urlsplit(url)
    host = parts.hostname or ""
    https = parts.scheme == "https"
    port = parts.port or (443 if https else 80)
    address = public_address(host, port)
    literal = f"[{address}]" if address.version == 6 else str(address)  # noqa: PLR2004
    target = urlunsplit((parts.scheme, f"{literal}:{port}", parts.path or "/", parts.query, ""))
    named = f"[{host}]" if ":" in host else host
    sent_headers = {
        **headers,
        "content-type": "application/json",
        "user-agent": "Gamenook-Webhooks/1",
        "host": named if parts.port is None else f"{named}:{port}",
    }
    extensions = {"sni_hostname": host} if https else {}
    with (
        httpx.Client(follow_redirects=False, timeout=TIMEOUT, trust_env=False) as client,
        client.stream(
            "POST", target, content=body.encode(), headers=sent_headers, extensions=extensions
        ) as response,
    ):
        kept = b""
        for chunk in response.iter_raw():
            kept += chunk
            if len(kept) >= MAX_ANSWER:
                break
        return response.status_code, kept[:MAX_ANSWER].decode("utf-8", "replace")


def _locked(delivery_id: int) -> WebhookDelivery | None:
    return (
        WebhookDelivery.objects.select_for_update(skip_locked=True, of=("self",))
        .select_related("endpoint")
        .filter(pk=delivery_id, status=WebhookDelivery.Status.PENDING)
        .first()
    )


def webhook_send(*, delivery_id: int) -> WebhookOutcome:
    """Post one pending delivery, once; what happened and when a job should try again.

    The delivery is locked (skip locked: a copy of this job already posting
    it makes this one return at once) for the whole attempt and marked sent
    in the same transaction. A failure leaves it pending with
    ``next_attempt_at`` pushed back (``backoff``), starts the endpoint's
    failing run if none is running, and disables the endpoint once the run
    has lasted ``GAMENOOK_WEBHOOK_DISABLE_AFTER_HOURS`` (``_endpoint_disable``).
    A success ends the run. A delivery whose endpoint was disabled meanwhile
    fails without being posted.
    """
    now = timezone.now()
    with transaction.atomic():
        delivery = _locked(delivery_id)
        if delivery is None:
            return WebhookOutcome(sent=False)
        if (
            delivery.next_attempt_at is not None
            and delivery.next_attempt_at > now + _EARLY_TOLERANCE
        ):
            return WebhookOutcome(sent=False)  # an early copy; the scheduled retry will come
        endpoint = delivery.endpoint
        if endpoint.disabled_at is not None:
            _close(delivery, "Not sent: the endpoint was disabled.")
            return WebhookOutcome(sent=False)
        body = json.dumps(delivery.payload, ensure_ascii=False, separators=(",", ":"))
        headers = signed_headers(
            msg_id=delivery.msg_id, timestamp=now, body=body, secrets_=live_secrets(endpoint, now)
        )
        status: int | None = None
        try:
            status, text = post(endpoint.url, body, headers)
        except NotPublic as exc:
            error = f"Refused: {exc}."
        except (httpx.HTTPError, OSError, ValueError) as exc:
            error = f"{type(exc).__name__}: {exc}" if str(exc) else type(exc).__name__
        else:
            if 200 <= status < 300:  # noqa: PLR2004
                _delivered(delivery, status)
                return WebhookOutcome(sent=True)
            error = _answer(status, text)
            if 300 <= status < 400:  # noqa: PLR2004
                error += " (redirects are not followed: register the final URL)"
        return _failed(delivery, status, error[:2000], now)


def _delivered(delivery: WebhookDelivery, status: int) -> None:
    delivery.status = WebhookDelivery.Status.SENT
    delivery.sent_at = timezone.now()
    delivery.attempts += 1
    delivery.last_status_code = status
    delivery.next_attempt_at = None
    delivery.save(
        update_fields=["status", "sent_at", "attempts", "last_status_code", "next_attempt_at"]
    )
    WebhookEndpoint.objects.filter(pk=delivery.endpoint_id, failing_since__isnull=False).update(
        failing_since=None
    )


def _close(delivery: WebhookDelivery, why: str) -> None:
    delivery.status = WebhookDelivery.Status.FAILED
    delivery.next_attempt_at = None
    delivery.last_error = why
    delivery.save(update_fields=["status", "next_attempt_at", "last_error"])


def _failed(
    delivery: WebhookDelivery, status: int | None, error: str, now: datetime
) -> WebhookOutcome:
    """Note a failed attempt; disable the endpoint after a day of them."""
    delivery.attempts += 1
    delivery.last_status_code = status
    delivery.last_error = error
    wait = backoff(delivery.attempts)
    delivery.next_attempt_at = now + timedelta(seconds=wait)
    delivery.save(update_fields=["attempts", "last_status_code", "last_error", "next_attempt_at"])
    logger.warning("webhook delivery %s failed: %s", delivery.pk, error)
    WebhookEndpoint.objects.filter(pk=delivery.endpoint_id, failing_since__isnull=True).update(
        failing_since=now
    )
    endpoint = WebhookEndpoint.objects.select_for_update().get(pk=delivery.endpoint_id)
    since = endpoint.failing_since
    if since is not None and now - since >= conf.webhook_disable_after():
        _endpoint_disable(endpoint, error, now)
        return WebhookOutcome(sent=False)
    return WebhookOutcome(sent=False, retry_in=wait if wait <= COUNTDOWN_MAX else None)


def _endpoint_disable(endpoint: WebhookEndpoint, error: str, now: datetime) -> None:
    """Disable ``endpoint`` (locked), fail its pending deliveries, tell the bot's owner."""
    hours = conf.webhook_disable_after().total_seconds() / 3600
    endpoint.disabled_at = now
    endpoint.disabled_reason = f"Every delivery failed for {hours:g} hours."[:200]
    endpoint.save(update_fields=["disabled_at", "disabled_reason"])
    WebhookDelivery.objects.filter(endpoint=endpoint, status=WebhookDelivery.Status.PENDING).update(
        status=WebhookDelivery.Status.FAILED,
        next_attempt_at=None,
        last_error=f"Not sent: the endpoint was disabled after {hours:g} hours of failures.",
    )
    logger.warning("webhook endpoint %s disabled: %s", endpoint.pk, error)
    _tell_owner(endpoint, error, hours)


def _tell_owner(endpoint: WebhookEndpoint, error: str, hours: float) -> OutboxMessage | None:
    """The owner's e-mail about a disabled webhook; None when they have no confirmed address."""
    owner = games_selectors.bot_owner(endpoint.user_id)
    if owner is None or not owner.is_active or not email_is_verified(owner):
        return None
    bot = User.objects.filter(pk=endpoint.user_id).values_list("username", flat=True).first()
    context = {
        "bot": bot or "",
        "url": endpoint.url,
        "error": error,
        "hours": f"{hours:g}",
        "since": endpoint.failing_since,
    }
    message = OutboxMessage.objects.create(
        user=owner,
        to=owner.email,
        kind=OutboxMessage.Kind.WEBHOOK_DISABLED,
        next_attempt_at=timezone.now(),
        **_compose(OutboxMessage.Kind.WEBHOOK_DISABLED, owner, None, context),
    )
    jobs.dispatch_on_commit(jobs.SEND, (message.pk,))
    return message


def webhook_endpoint_enable(*, endpoint_id: int) -> bool:
    """Turn a disabled endpoint on again (the admin's action); False when it was on."""
    return bool(
        WebhookEndpoint.objects.filter(pk=endpoint_id, disabled_at__isnull=False).update(
            disabled_at=None, disabled_reason="", failing_since=None
        )
    )


def webhook_endpoint_disable(*, endpoint_id: int, reason: str) -> bool:
    """Turn an endpoint off (the admin's action): nothing more is posted to it."""
    with transaction.atomic():
        updated = WebhookEndpoint.objects.filter(pk=endpoint_id, disabled_at__isnull=True).update(
            disabled_at=timezone.now(), disabled_reason=reason[:200]
        )
        if updated:
            WebhookDelivery.objects.filter(
                endpoint_id=endpoint_id, status=WebhookDelivery.Status.PENDING
            ).update(
                status=WebhookDelivery.Status.FAILED,
                next_attempt_at=None,
                last_error=f"Not sent: the endpoint was disabled ({reason[:100]}).",
            )
    return bool(updated)


def webhooks_overdue(*, before: datetime, batch: int) -> list[int]:
    """Pending deliveries due before ``before`` (``webhook_pending_next_attempt``), oldest first."""
    overdue = (
        WebhookDelivery.objects.filter(
            status=WebhookDelivery.Status.PENDING, next_attempt_at__lte=before
        )
        .order_by("next_attempt_at")
        .values_list("pk", flat=True)
    )
    return list(overdue[:batch])
