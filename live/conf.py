"""The settings live reads, each in one place (defaults: gamenook/settings/base.py)."""

from __future__ import annotations

from django.conf import settings


def heartbeat_seconds() -> float:
    """How often a process touches the presence records of its open sockets."""
    return float(settings.GAMENOOK_LIVE_HEARTBEAT_SECONDS)


def recheck_seconds() -> float:
    """How often a process reads the versions of the tables its sockets show."""
    return float(settings.GAMENOOK_LIVE_RECHECK_SECONDS)


def lobby_recheck_seconds() -> float:
    """How often a process reads the versions of the lobbies its sockets show."""
    return float(settings.GAMENOOK_LIVE_LOBBY_RECHECK_SECONDS)


def max_frame_bytes() -> int:
    """The largest frame a socket reads; a larger one is answered ``request_too_large``."""
    return int(settings.GAMENOOK_LIVE_MAX_FRAME_BYTES)


def max_sockets_per_table() -> int:
    """How many sockets one user may hold open at one table, counted across processes."""
    return int(settings.GAMENOOK_LIVE_MAX_SOCKETS_PER_TABLE)


def session_engine() -> str:
    """Django's session engine, whose store a session socket's credential is checked in."""
    return str(settings.SESSION_ENGINE)


def stream_keepalive_seconds() -> float:
    """How long the events stream stays silent before it sends a blank line (live.streams)."""
    return float(settings.GAMENOOK_STREAM_KEEPALIVE_SECONDS)


def table_stream_keepalive_seconds() -> float:
    """How long a table's stream stays silent before it sends a blank line (live.streams)."""
    return float(settings.GAMENOOK_TABLE_STREAM_KEEPALIVE_SECONDS)


def stream_max_seconds() -> float:
    """How long an NDJSON stream lasts before it asks its client to reconnect."""
    return float(settings.GAMENOOK_STREAM_MAX_SECONDS)
