"""The settings accounts reads, each in one place (defaults: gamenook/settings/base.py)."""

from __future__ import annotations

from django.conf import settings


def site_url() -> str:
    """The public address links in e-mails start with."""
    return str(settings.SITE_URL).rstrip("/")


def verify_days() -> int:
    """How long a link confirming an address works."""
    return int(settings.GAMENOOK_VERIFY_DAYS)
