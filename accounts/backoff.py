"""Log-in backoff: failed passwords slow down further tries, per username and per address.

The web's log-in page and the API's token endpoint both log in through
``authenticate`` here. Two counts of failures live in the cache (Redis in
production, so every web process shares them): one per username, one per
client address. Past ``GAMENOOK_LOGIN_FREE_FAILURES`` for a username (or
``..._PER_ADDRESS`` for an address), each attempt takes a lock for
``GAMENOOK_LOGIN_BACKOFF_SECONDS``, doubling with every further failure up
to ``GAMENOOK_LOGIN_BACKOFF_MAX_SECONDS``; until the lock ends, an attempt
is refused (``LoginLocked``, 429) without its password being looked at, the
right one included.

What this promises:

- a guesser gets a few tries, then one per lock, and never more than one at
  a time: an attempt takes the lock (an atomic ``add``) before its password
  is checked, so a burst of concurrent tries cannot slip past together;
- no lock lasts longer than the longest; and an address a username logged
  in from successfully (within ``GAMENOOK_LOGIN_KNOWN_ADDRESS_DAYS``) is not
  held back by that username's failures elsewhere, so an attacker guessing
  at alice's password does not keep alice out at home (her address's own
  count still applies there);
- the answer is the same whether or not the username has an account: a name
  nobody has is counted and locked exactly like a real one;
- a success clears its username's count, not its address's: an attacker
  with an account of their own would otherwise log in to it between guesses.

A count is forgotten ``GAMENOOK_LOGIN_WINDOW_SECONDS`` after its last failure.
"""

from __future__ import annotations

import contextlib
import hashlib
import math
import time
import unicodedata
from dataclasses import dataclass

from django.contrib.auth import authenticate as django_authenticate
from django.contrib.auth.models import User
from django.core.cache import cache
from django.http import HttpRequest

from games.errors import ServiceError
from games.throttles import client_address

from . import conf

#: The longest wait doubles from the first this many times at most (no huge powers).
_MAX_DOUBLINGS = 32


class LoginLocked(ServiceError):
    """Too many failed log-ins for a username or from an address: try later."""

    status = 429
    code = "login_locked"

    def __init__(self, wait: float) -> None:
        self.retry_after = max(1, math.ceil(wait))
        unit = "second" if self.retry_after == 1 else "seconds"
        super().__init__(
            "Too many failed log-ins for this username or from your address. "
            f"Try again in {self.retry_after} {unit}."
        )


@dataclass(frozen=True)
class _Count:
    """One count of failures (a username's or an address's) and its lock."""

    failures: str
    lock: str
    free: int


@dataclass(frozen=True)
class _Attempt:
    """The counts one log-in attempt is held to, and the mark of a known address."""

    by_name: _Count
    by_address: _Count
    known: str  # set when this username logged in from this address

    def counts(self, *, known: bool) -> tuple[_Count, ...]:
        return (self.by_address,) if known else (self.by_name, self.by_address)


def _user_key(username: str) -> str:
    # Usernames differing in case or width count as one: a guesser gains nothing by
    # varying them. A hash keeps the key short and the name out of the cache.
    name = unicodedata.normalize("NFKC", username).casefold()
    return hashlib.sha256(name.encode()).hexdigest()


def _name_count(user_key: str) -> _Count:
    return _Count(
        f"login:fail:user:{user_key}", f"login:lock:user:{user_key}", conf.login_free_failures()
    )


def _attempt(request: HttpRequest, username: str) -> _Attempt:
    user_key = _user_key(username)
    addr_key = hashlib.sha256(client_address(request).encode()).hexdigest()
    return _Attempt(
        by_name=_name_count(user_key),
        by_address=_Count(
            f"login:fail:addr:{addr_key}",
            f"login:lock:addr:{addr_key}",
            conf.login_free_failures_per_address(),
        ),
        known=f"login:known:{user_key}:{addr_key}",
    )


def _wait(counts: tuple[_Count, ...], now: float) -> float:
    """Seconds until every lock of ``counts`` is over; 0 when none holds."""
    untils = cache.get_many([count.lock for count in counts]).values()
    if not untils:
        return 0.0
    # The lock's entry expires when it ends; its value only says when, for the message.
    return max(1.0, *(float(until) - now for until in untils))


def _count_failure(count: _Count) -> int:
    """One more failure in ``count``; returns the new total."""
    window = math.ceil(conf.login_window_seconds())
    cache.add(count.failures, 0, timeout=window)
    try:
        total = cache.incr(count.failures)
    except ValueError:  # expired between the two calls
        cache.set(count.failures, 1, timeout=window)
        total = 1
    cache.touch(count.failures, timeout=window)
    return int(total)


def _lock_seconds(failures: int, free: int) -> float:
    """The lock an attempt takes after ``failures`` (itself counted); 0 while still free."""
    if failures <= free:
        return 0.0
    doublings = min(failures - free - 1, _MAX_DOUBLINGS)
    first, longest = conf.login_backoff_seconds(), conf.login_backoff_max_seconds()
    return min(first * float(2**doublings), longest)


def authenticate(*, request: HttpRequest, username: str, password: str) -> User | None:
    """Django's ``authenticate`` behind the backoff: the user, or None for a wrong password.

    Raises ``LoginLocked`` while a lock holds for ``username`` or for the
    request's address. An attempt is counted as a failure before its
    password is checked (and taken back when it was right), and past the
    free failures it takes the lock itself, so concurrent attempts never
    test more than one password per lock.
    """
    attempt = _attempt(request, username)
    counts = attempt.counts(known=bool(cache.get(attempt.known)))
    now = time.time()
    wait = _wait(counts, now)
    if wait > 0:
        raise LoginLocked(wait)
    taken: list[str] = []
    for count in counts:
        seconds = _lock_seconds(_count_failure(count), count.free)
        if not seconds:
            continue
        if not cache.add(count.lock, now + seconds, timeout=math.ceil(seconds)):
            # Another attempt took the lock since we looked: it goes first, and the
            # locks this one took are let go, since it tests no password.
            cache.delete_many(taken)
            raise LoginLocked(_wait(counts, now))
        taken.append(count.lock)
    user = django_authenticate(request, username=username, password=password)
    if not isinstance(user, User) or not user.is_active:
        return None
    cache.delete_many([attempt.by_name.failures, *taken])
    with contextlib.suppress(ValueError):  # unless forgotten meanwhile
        cache.decr(attempt.by_address.failures)  # this attempt was no failure
    cache.set(attempt.known, 1, timeout=conf.login_known_address_days() * 86400)
    return user


def password_check(*, user: User, password: str) -> bool:
    """Whether ``password`` is ``user``'s, asked of a signed-in user, behind the backoff.

    Changing the address or the password asks for the current one (issue 35 §3),
    so a stolen session or token must not become a way round the log-in
    backoff: each wrong answer counts with the failed log-ins of that username,
    and while its lock holds the answer is ``LoginLocked``, the right password
    included. A right answer clears the username's count, as a log-in does.
    """
    count = _name_count(_user_key(user.get_username()))
    now = time.time()
    wait = _wait((count,), now)
    if wait > 0:
        raise LoginLocked(wait)
    taken: list[str] = []
    seconds = _lock_seconds(_count_failure(count), count.free)
    if seconds:
        if not cache.add(count.lock, now + seconds, timeout=math.ceil(seconds)):
            raise LoginLocked(_wait((count,), now))
        taken.append(count.lock)
    if not user.check_password(password):
        return False
    cache.delete_many([count.failures, *taken])
    return True
