"""Which e-mails a user wants, and the one-click unsubscribe."""

from __future__ import annotations

import re
import zoneinfo
from collections.abc import Iterable
from typing import Any

from django.contrib.auth.models import User
from django.core import signing
from django.db import transaction
from django.urls import URLResolver, get_resolver, get_script_prefix, get_urlconf, reverse

from . import conf
from .models import LastCallWhen, OutboxMessage, Preferences, PushSubscription

#: The e-mail switches, one per kind of game mail, and "no e-mail at all".
SWITCHES = ("your_turn", "reminder", "last_call", "timeout", "game_over", "unsubscribed_all")
#: The same kinds by web push (issue 38), to every device the user turned push on for.
PUSH_SWITCHES = ("your_turn_push", "reminder_push", "last_call_push", "game_over_push")
#: Every preference a user may change, with its type (``preferences_update`` checks).
PREFERENCE_FIELDS = (
    *SWITCHES,
    *PUSH_SWITCHES,
    "last_call_when",
    "digest",
    "digest_hour",
    "time_zone",
)
PREFERENCES_DEFAULT: dict[str, Any] = {
    **{name: name != "unsubscribed_all" for name in SWITCHES},
    **dict.fromkeys(PUSH_SWITCHES, True),
    "last_call_when": LastCallWhen.TENTH.value,
    "digest": False,
    "digest_hour": 8,
    "time_zone": "UTC",
}
_UNSUBSCRIBE_SALT = "notifications.unsubscribe"
#: The longest time zone name stored (``Preferences.time_zone``), and the digest's hours.
MAX_ZONE_LENGTH = 64
HOURS = range(24)


def _preferences(user: User) -> Preferences:
    prefs, _ = Preferences.objects.get_or_create(user=user)
    return prefs


def preferences_get(user: User) -> dict[str, Any]:
    """The user's notification preferences, the defaults until they change them.

    >>> preferences_get(user)  # doctest: +SKIP
    {'your_turn': True, 'reminder': True, 'last_call': True, 'timeout': True,
     'game_over': True, 'unsubscribed_all': False, 'your_turn_push': True, ...,
     'last_call_when': 'tenth', 'digest': False, 'digest_hour': 8, 'time_zone': 'UTC'}
    """
    return preferences_dict(_preferences(user))


def preferences_dict(prefs: Preferences) -> dict[str, Any]:
    return {name: getattr(prefs, name) for name in PREFERENCE_FIELDS}


def valid_time_zone(name: str) -> bool:
    """True when ``name`` is an IANA time zone this machine knows ("Europe/Paris")."""
    if not isinstance(name, str) or not name or len(name) > MAX_ZONE_LENGTH or name.startswith("/"):
        return False
    try:
        zoneinfo.ZoneInfo(name)
    except (zoneinfo.ZoneInfoNotFoundError, ValueError, OSError):
        return False
    return True


def _checked(name: str, value: Any) -> Any:
    """``value`` for preference ``name``; ``ValueError`` with a sentence if it cannot be."""
    if name in SWITCHES or name in PUSH_SWITCHES or name == "digest":
        if not isinstance(value, bool):
            raise ValueError(f"{name}: must be true or false.")
        return value
    if name == "last_call_when":
        if value not in LastCallWhen.values:
            raise ValueError(f"last_call_when: must be one of {', '.join(LastCallWhen.values)}.")
        return value
    if name == "digest_hour":
        if isinstance(value, bool) or not isinstance(value, int) or value not in HOURS:
            raise ValueError("digest_hour: must be a whole hour from 0 to 23.")
        return value
    if not valid_time_zone(value):
        raise ValueError("time_zone: must be a time zone such as Europe/Paris or UTC.")
    return value


def preferences_update(user: User, **changes: Any) -> dict[str, Any]:
    """Change some of the user's preferences; ``ValueError`` for an unknown name or a
    value a preference cannot take (nothing is changed then).

    Turning any kind of e-mail on again also lifts an earlier "unsubscribe from
    everything", unless that very call sets ``unsubscribed_all`` itself. A change
    to the digest's switch, hour or zone schedules its next one (``digest``).
    """
    unknown = set(changes) - set(PREFERENCE_FIELDS)
    if unknown:
        raise ValueError(f"unknown preference: {', '.join(sorted(unknown))}")
    checked = {name: _checked(name, value) for name, value in changes.items()}
    with transaction.atomic():
        _preferences(user)
        prefs = Preferences.objects.select_for_update().get(user=user)
        for name, value in checked.items():
            setattr(prefs, name, value)
        if "unsubscribed_all" not in checked and any(
            checked.get(name) is True for name in SWITCHES
        ):
            prefs.unsubscribed_all = False
        if {"digest", "digest_hour", "time_zone"} & set(checked):
            from .digest import digest_schedule  # noqa: PLC0415 (digest reads preferences)

            digest_schedule(prefs)
        prefs.save()
    return preferences_dict(prefs)


def unsubscribe_token(user: User) -> str:
    """A token that unsubscribes ``user`` from all mail: their id, signed with the secret key.

    The same for every message to the user, so any link they ever got keeps working.
    """
    return signing.Signer(salt=_UNSUBSCRIBE_SALT).sign(str(user.pk))


#: A token of these characters only is the same in a URL path, unquoted by ``reverse``.
_PLAIN_TOKEN = re.compile(r"[0-9A-Za-z_:-]+")
_MARK = "0"
#: The unsubscribe path around a token, per (URL resolver, script prefix): ``(before, after)``.
_AROUND: dict[tuple[URLResolver, str], tuple[str, str]] = {}


def _unsubscribe_path(token: str) -> str:
    """``reverse("notifications:unsubscribe", args=[token])``, reversed once per process.

    ``reverse`` walks the URL resolver for every message, a fifth of composing
    one; the path is the same around every token, and a signed token holds only
    characters that ``reverse`` leaves as they are. Anything else goes through
    ``reverse`` itself.
    """
    if not _PLAIN_TOKEN.fullmatch(token):
        return reverse("notifications:unsubscribe", args=[token])
    # A new URLconf (override_settings) is a new resolver: Django caches one per URLconf.
    key = (get_resolver(get_urlconf()), get_script_prefix())
    around = _AROUND.get(key)
    if around is None:
        path = reverse("notifications:unsubscribe", args=[_MARK])
        start = path.rindex(f"/{_MARK}/") + 1
        around = _AROUND[key] = (path[:start], path[start + len(_MARK) :])
    return around[0] + token + around[1]


def unsubscribe_url(user: User) -> str:
    return conf.site_url() + _unsubscribe_path(unsubscribe_token(user))


def user_for_unsubscribe_token(token: str) -> User | None:
    """The user a token was made for, or None when it is forged or the user is gone."""
    try:
        pk = signing.Signer(salt=_UNSUBSCRIBE_SALT).unsign(token)
    except signing.BadSignature:
        return None
    if not pk.isdigit():
        return None
    return User.objects.filter(pk=int(pk)).first()


def user_unsubscribe(user: User) -> None:
    """Stop every e-mail to ``user`` (the one-click unsubscribe); push is the device's
    own switch (``push``)."""
    preferences_update(user, unsubscribed_all=True)


def email_verified_set(user: User, email: str) -> None:
    """Record that ``user`` proved they read ``email`` (accounts calls this on a valid link)."""
    with transaction.atomic():
        _preferences(user)
        Preferences.objects.filter(user=user).update(verified_email=email)


def email_is_verified(user: User) -> bool:
    """True when the account's current address is the one the user confirmed."""
    if not user.email:
        return False
    verified = _preferences(user).verified_email
    return bool(verified) and verified.lower() == user.email.lower()


def preferences_forget(user: User) -> None:
    """Drop what notifications keeps about ``user``: switches, address, queued and sent mail,
    push devices.

    For an account being anonymised: the outbox rows hold the address and the
    texts sent to it.
    """
    Preferences.objects.filter(user=user).delete()
    OutboxMessage.objects.filter(user=user).delete()
    # Web push: the devices (their endpoints reach the person) and, with them, their pushes.
    PushSubscription.objects.filter(user=user).delete()


def wants(user: User, kind: str) -> bool:
    """True when ``user`` can be mailed and wants e-mail of ``kind`` (an ``OutboxMessage.Kind``).

    Game mail goes only to a confirmed address (``email_is_verified``).
    """
    if not (user.is_active and user.email):
        return False
    return wants_given(user, _preferences(user), kind)


def preferences_of(user_ids: Iterable[int]) -> dict[int, Preferences]:
    """The stored preferences of these users by user id, in one query (some may have none)."""
    stored = Preferences.objects.filter(user_id__in=list(user_ids))
    return {prefs.user_id: prefs for prefs in stored}


def wants_given(user: User, preferences: Preferences | None, kind: str) -> bool:
    """``wants`` for a user whose preferences were read already (``preferences_of``).

    A user with no stored preferences has confirmed no address, so gets no
    game mail; nothing is written here.
    """
    if not (user.is_active and user.email) or preferences is None:
        return False
    verified = preferences.verified_email
    return bool(verified) and verified.lower() == user.email.lower() and preferences.wants(kind)
