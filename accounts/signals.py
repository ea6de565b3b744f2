"""Signals ``accounts`` sends after a change to a user's credentials has committed.

``credentials_changed`` is sent from ``transaction.on_commit`` with keyword
arguments:

- ``user_id``: whose credentials changed;
- ``revoked_tokens``: ids of the API tokens that no longer work (a token
  revoked, or all of them);
- ``ended_session``: the key of a session that was just ended (a log-out),
  or None;
- ``recheck``: True when any of the user's credentials may have stopped
  working for a reason not listed here (a password changed, which ends the
  user's other sessions; the user deactivated).

``accounts`` does not know who listens: ``live`` closes the sockets opened
with a credential that stopped working (the dependency runs that way round).
Django's own ``user_logged_out`` is not enough: revoking a token or
deactivating a user logs nobody out.
"""

from __future__ import annotations

from collections.abc import Iterable

from django.db import transaction
from django.dispatch import Signal

credentials_changed = Signal()


def credentials_changed_on_commit(
    *,
    user_id: int,
    revoked_tokens: Iterable[int] = (),
    ended_session: str | None = None,
    recheck: bool = False,
) -> None:
    """Send ``credentials_changed`` once the current transaction commits (at once outside one)."""
    kwargs = {
        "user_id": user_id,
        "revoked_tokens": sorted(revoked_tokens),
        "ended_session": ended_session,
        "recheck": recheck,
    }
    transaction.on_commit(lambda: credentials_changed.send(sender=None, **kwargs))
