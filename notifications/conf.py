"""The settings notifications reads, each in one place (defaults: gamenook/settings/base.py)."""

from __future__ import annotations

from datetime import timedelta

from django.conf import settings


def site_url() -> str:
    return str(settings.SITE_URL).rstrip("/")


def table_url_template() -> str:
    """The link to a table in e-mails; ``{table_id}`` is filled in."""
    return str(settings.GAMENOOK_TABLE_URL)


def replay_url_template() -> str:
    """The link to a finished game's replay in the game-over e-mail; ``{table_id}`` is filled in."""
    return str(settings.GAMENOOK_REPLAY_URL)


def reload_templates() -> bool:
    """Whether the e-mail templates are read again when their files change: with ``DEBUG``."""
    return bool(settings.DEBUG)


def email_max_attempts() -> int:
    return int(settings.GAMENOOK_EMAIL_MAX_ATTEMPTS)


def email_backoff_cap() -> float:
    return float(settings.GAMENOOK_EMAIL_BACKOFF_MAX_SECONDS)


def sweep_batch() -> int:
    return int(settings.GAMENOOK_SWEEP_BATCH)


def timeout_page() -> int:
    """How many overdue turns one job of the sweep applies, in one transaction."""
    return int(settings.GAMENOOK_TIMEOUT_PAGE)


def outbox_grace() -> timedelta:
    return timedelta(seconds=float(settings.GAMENOOK_OUTBOX_GRACE_SECONDS))


def realtime_grace() -> timedelta:
    """How long the real-time sweep leaves an overdue move timer to its own job."""
    return timedelta(seconds=float(settings.GAMENOOK_REALTIME_GRACE_SECONDS))


def presence_stale() -> timedelta:
    """A connection whose heartbeat is older than this counts as closed."""
    return timedelta(seconds=float(settings.GAMENOOK_PRESENCE_STALE_SECONDS))


def bot_grace() -> timedelta:
    return timedelta(seconds=float(settings.GAMENOOK_BOT_GRACE_SECONDS))


def your_turn_quiet() -> timedelta:
    """Ruling 19: how long a player must neither move nor have a table open to be mailed."""
    return timedelta(seconds=float(settings.GAMENOOK_YOUR_TURN_QUIET_SECONDS))


def account_url() -> str:
    """The account page (the web client's ``/account/``), whose preferences every e-mail links."""
    return str(settings.GAMENOOK_ACCOUNT_URL)


def vapid_public_key() -> str:
    """The VAPID public key (base64url, 65 bytes decoded): the browser's applicationServerKey."""
    return str(settings.GAMENOOK_VAPID_PUBLIC_KEY).strip()


def vapid_private_key() -> str:
    """The VAPID private key, as py-vapid's ``Vapid.from_string`` takes it."""
    return str(settings.GAMENOOK_VAPID_PRIVATE_KEY).strip()


def vapid_subject() -> str:
    """Who runs the site (the VAPID ``sub`` claim), a ``mailto:`` address."""
    return str(settings.GAMENOOK_VAPID_SUBJECT)


def push_max_devices() -> int:
    return int(settings.GAMENOOK_PUSH_MAX_DEVICES)


def push_ttl() -> int:
    """Seconds a push service keeps a message for a device that is offline."""
    return int(settings.GAMENOOK_PUSH_TTL_SECONDS)


def push_max_attempts() -> int:
    return int(settings.GAMENOOK_PUSH_MAX_ATTEMPTS)


def push_allow_http_loopback() -> bool:
    """Whether a device's endpoint may be http to a loopback address (the tests' push service)."""
    return bool(settings.GAMENOOK_PUSH_ALLOW_HTTP_LOOPBACK)


def webhook_rotation() -> timedelta:
    """How long a webhook's old secret still signs after a rotation."""
    return timedelta(hours=float(settings.GAMENOOK_WEBHOOK_ROTATION_HOURS))


def webhook_disable_after() -> timedelta:
    """How long an endpoint may fail without a success before it is disabled."""
    return timedelta(hours=float(settings.GAMENOOK_WEBHOOK_DISABLE_AFTER_HOURS))


def webhook_allow_loopback() -> bool:
    """Whether a webhook URL may be http, and its host a loopback address (tests, development)."""
    return bool(settings.GAMENOOK_WEBHOOK_ALLOW_LOOPBACK)
