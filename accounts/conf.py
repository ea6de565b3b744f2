"""The settings accounts reads, each in one place (defaults: gamenook/settings/base.py)."""

from __future__ import annotations

from django.conf import settings


def site_url() -> str:
    """The public address links in e-mails start with."""
    return str(settings.SITE_URL).rstrip("/")


def verify_days() -> int:
    """How long a link confirming an address works."""
    return int(settings.GAMENOOK_VERIFY_DAYS)


def confirm_mails_per_day() -> int:
    """Confirmation mails one account may have sent in a day (sign-up, changes, new links)."""
    return int(settings.GAMENOOK_CONFIRM_MAILS_PER_DAY)


def confirm_mail_interval() -> int:
    """Seconds an address waits between two confirmation mails, whoever asks."""
    return int(settings.GAMENOOK_CONFIRM_MAIL_INTERVAL)


def password_forgot_url() -> str:
    """The page that mails a password reset link (the web client's), linked from account mail."""
    return str(settings.GAMENOOK_PASSWORD_FORGOT_URL)


def login_free_failures() -> int:
    """Failed log-ins of one username before each further attempt must wait."""
    return int(settings.GAMENOOK_LOGIN_FREE_FAILURES)


def login_free_failures_per_address() -> int:
    """Failed log-ins from one address (any usernames) before each further attempt must wait."""
    return int(settings.GAMENOOK_LOGIN_FREE_FAILURES_PER_ADDRESS)


def login_backoff_seconds() -> float:
    """The first wait past the free failures; it doubles with each further failure."""
    return float(settings.GAMENOOK_LOGIN_BACKOFF_SECONDS)


def login_backoff_max_seconds() -> float:
    """The longest wait: how long an attacker can keep anyone out of an account at most."""
    return float(settings.GAMENOOK_LOGIN_BACKOFF_MAX_SECONDS)


def login_window_seconds() -> float:
    """A count of failed log-ins is forgotten this long after its last failure."""
    return float(settings.GAMENOOK_LOGIN_WINDOW_SECONDS)


def login_known_address_days() -> int:
    """How long an address a username logged in from is exempt from that username's locks."""
    return int(settings.GAMENOOK_LOGIN_KNOWN_ADDRESS_DAYS)


def bots_per_owner() -> int:
    """Bot accounts one person may own, disabled ones included (issue 40)."""
    return int(settings.GAMENOOK_BOTS_PER_OWNER)
