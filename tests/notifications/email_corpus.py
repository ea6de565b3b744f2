"""Every e-mail Gamenook writes, for a corpus of contexts: the golden messages' source.

``test_email_golden`` composes the corpus and compares each message with the one
stored in ``email_golden.json``, byte for byte. The file was first written with
the Django templates, before the e-mail moved to Jinja2, so it pins what every
message said then. After a deliberate change to a template, write it again and
read the diff:

    DJANGO_SETTINGS_MODULE=gamenook.settings.test \
        .venv/bin/python -m tests.notifications.email_corpus

The corpus takes each branch of every template: "your turn" at one table or
several (ruling 19), the timeout with the seat left
or kept, with and without the lines saying what the table did, ending the game
or not; the game over with rankings (a seat that left, scores of 0, 1 and
more, one round or several, no ranking at all); both timeout policies of the
reminder; the last call (both policies, the time left in words or not); the
daily digest (turns, games ended, both); names with ``<>&'"``, non-ASCII
letters and spaces; variables the warm-up of ``scripts/bench_sweep.py`` leaves
out, which render empty; and the account messages ``accounts.services`` writes.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta, timezone
from pathlib import Path
from typing import Any
from zoneinfo import ZoneInfo

GOLDEN = Path(__file__).with_name("email_golden.json")

#: The settings a message's links and unsubscribe token come from, fixed for the corpus.
SETTINGS = {
    "SECRET_KEY": "golden-email-corpus-not-a-secret-0123456789abcdefghijklmnopqrstuvwxyz",
    "SITE_URL": "https://gamenook.example",
    "GAMENOOK_TABLE_URL": "https://gamenook.example/tables/{table_id}/",
    "GAMENOOK_REPLAY_URL": "https://gamenook.example/tables/{table_id}/replay/",
    "GAMENOOK_ACCOUNT_URL": "https://gamenook.example/account/",
}

#: Usernames that escaping, encodings or whitespace could change.
NAMES = {
    "plain": "ann",
    "markup": '<b>O\'Neil & "Bob"</b>',
    "unicode": "Zoë Ångström 名人 🃏",
    "spaces": "  two  spaces \t tab ",
}

DEADLINE = datetime(2030, 1, 2, 3, 4, 59, tzinfo=UTC)


@dataclass(frozen=True)
class Case:
    """One message of the corpus: a kind, its recipient, its table and its context."""

    name: str
    kind: str
    username: str = NAMES["plain"]
    policy: str = "bot"
    context: dict[str, Any] = field(default_factory=dict)


def _ranking(*entries: tuple[str, int, bool]) -> list[dict[str, Any]]:
    """A ranking as ``games.selectors.final_ranking`` gives it: (name, score, left) in order."""
    return [
        {"seat": seat, "rank": seat + 1, "name": name, "score": score, "left": left}
        for seat, (name, score, left) in enumerate(entries)
    ]


def _turn(table_id: int, deadline: datetime | None, hours: int, left: str) -> dict[str, Any]:
    """One table of a "your turn" message, as ``notifications.away`` lists it."""
    url = f"https://gamenook.example/tables/{table_id}/"
    return {"table_id": table_id, "url": url, "deadline_at": deadline, "hours": hours, "left": left}


def _your_turn(deadline: datetime | None, hours: int, left: str) -> dict[str, Any]:
    """The context of a "your turn" message about table 31337 alone."""
    turns = [_turn(31337, deadline, hours, left)]
    return {"turns": turns, "deadline_at": deadline, "hours": hours, "left": left}


#: The digest's turns as ``notifications.digest`` lists them: deadlines in the player's zone.
_NEW_YORK = ZoneInfo("America/New_York")
_DIGEST_TURNS = [
    {
        "table_id": 31337,
        "url": "https://gamenook.example/tables/31337/",
        "deadline_at": DEADLINE.astimezone(_NEW_YORK),
        "left": "3 hours",
    },
    {
        "table_id": 7,
        "url": "https://gamenook.example/tables/7/",
        "deadline_at": (DEADLINE + timedelta(days=2, minutes=1)).astimezone(_NEW_YORK),
        "left": "2 days 1 minute",
    },
]
#: The games ended, as the digest lists them: a win, a loss to two winners, not ranked.
_DIGEST_ENDED: list[dict[str, Any]] = [
    {
        "table_id": 12,
        "replay_url": "https://gamenook.example/tables/12/replay/",
        "rank": 1,
        "won": True,
        "winners": NAMES["markup"],
    },
    {
        "table_id": 13,
        "replay_url": "https://gamenook.example/tables/13/replay/",
        "rank": 3,
        "won": False,
        "winners": f"Bot 1 (easy) and {NAMES['unicode']}",
    },
    {
        "table_id": 14,
        "replay_url": "https://gamenook.example/tables/14/replay/",
        "rank": None,
        "won": False,
        "winners": "",
    },
]


def _digest(
    turns: list[dict[str, Any]], ended: list[dict[str, Any]], zone: str = "America/New_York"
) -> dict[str, Any]:
    return {"turns": turns, "ended": ended, "zone": zone, "at": "08:00"}


def _cases() -> Iterator[Case]:
    for label, username in NAMES.items():
        yield Case(
            f"your_turn-{label}",
            "your_turn",
            username,
            context=_your_turn(DEADLINE, 24, "23 hours 59 minutes"),
        )
    yield Case(
        "your_turn-1h-offset-deadline",
        "your_turn",
        context=_your_turn(
            datetime(2031, 12, 31, 23, 0, tzinfo=timezone(timedelta(hours=2))), 1, "1 minute"
        ),
    )
    # Several tables (ruling 19): one message, the least time left first.
    yield Case(
        "your_turn-three-tables",
        "your_turn",
        NAMES["markup"],
        context={
            "turns": [
                _turn(31337, DEADLINE, 12, "less than a minute"),
                _turn(7, DEADLINE + timedelta(hours=5), 24, "5 hours"),
                _turn(12, DEADLINE + timedelta(days=2, minutes=1), 72, "2 days 1 minute"),
            ],
            "deadline_at": DEADLINE,
            "hours": 12,
            "left": "less than a minute",
        },
    )
    # The warm-up in scripts/bench_sweep.py gives neither a deadline nor hours.
    yield Case("your_turn-missing-deadline-and-hours", "your_turn")
    yield Case("your_turn-none-deadline", "your_turn", context=_your_turn(None, 24, ""))
    for policy in ("bot", "leave"):
        for label in ("plain", "markup"):
            yield Case(
                f"reminder-{policy}-{label}",
                "reminder",
                NAMES[label],
                policy,
                {"deadline_at": DEADLINE, "hours": 72},
            )
    yield Case("reminder-missing-deadline-and-hours", "reminder")
    # The last call (issue 38): both timeout policies, the time left in words or not known.
    for policy in ("bot", "leave"):
        for label in ("plain", "markup"):
            yield Case(
                f"last_call-{policy}-{label}",
                "last_call",
                NAMES[label],
                policy,
                {"deadline_at": DEADLINE, "hours": 24, "left": "2 hours 24 minutes"},
            )
    yield Case(
        "last_call-no-time-left-in-words",
        "last_call",
        NAMES["unicode"],
        context={"deadline_at": DEADLINE, "hours": 12, "left": ""},
    )
    # The daily digest (issue 38): turns only, games ended only, both; deadlines in the
    # player's zone; a game won, one lost to several winners, one not ranked.
    yield Case("digest-one-turn", "digest", context=_digest([_DIGEST_TURNS[0]], []))
    yield Case("digest-two-turns", "digest", NAMES["spaces"], context=_digest(_DIGEST_TURNS, []))
    yield Case("digest-one-game", "digest", context=_digest([], [_DIGEST_ENDED[0]], "UTC"))
    yield Case(
        "digest-turns-and-games",
        "digest",
        NAMES["markup"],
        context=_digest(_DIGEST_TURNS, _DIGEST_ENDED),
    )
    yield Case(
        "digest-unicode", "digest", NAMES["unicode"], context=_digest([], _DIGEST_ENDED, "UTC")
    )
    what_lines = {
        "no-what": [],
        "one-what": ["played wild and chose red"],
        "what": ["drew 1 card", "played red 7 & <blue> 'x' \"y\"", "passed"],
    }
    for left in (False, True):
        policy = "leave" if left else "bot"
        seat = "left" if left else "kept"
        for what_label, what in what_lines.items():
            yield Case(
                f"timeout-{seat}-{what_label}",
                "timeout",
                NAMES["markup"] if what_label == "what" else NAMES["plain"],
                policy,
                {"policy": policy, "left": left, "what": what},
            )
    for label in ("unicode", "spaces"):
        yield Case(
            f"timeout-kept-what-{label}",
            "timeout",
            NAMES[label],
            context={"policy": "bot", "left": False, "what": ["passed"]},
        )
    # The warm-up in scripts/bench_sweep.py: what empty, the rest missing.
    yield Case("timeout-missing-left", "timeout", context={"what": []})
    ranking = _ranking(
        (NAMES["markup"], 0, False),
        (NAMES["unicode"], 1, False),
        ("Bot (easy)", 2, True),
        (NAMES["spaces"], 1234, True),
    )
    for place, entry in enumerate(ranking):
        yield Case(
            f"game_over-four-seats-mine-{place + 1}",
            "game_over",
            entry["name"],
            context={"ranking": ranking, "mine": entry, "rounds": 11},
        )
    two = _ranking(("ann", 500, False), ("Bot (hard)", 1, True))
    yield Case(
        "game_over-one-round", "game_over", context={"ranking": two, "mine": two[0], "rounds": 1}
    )
    # Issue 39: the game was rated; the player's new rating and the game's change.
    yield Case(
        "game_over-rated",
        "game_over",
        context={
            "ranking": two,
            "mine": two[0],
            "rounds": 1,
            "rating": {"rating": "1012?", "change": "+12"},
        },
    )
    # Issue 38: their timeout ended the game; "game over" tells of both.
    for policy in ("bot", "leave"):
        yield Case(
            f"game_over-timed-out-{policy}",
            "game_over",
            policy=policy,
            context={"ranking": two, "mine": two[1], "rounds": 3, "timed_out": policy},
        )
    yield Case(
        "game_over-not-ranked",
        "game_over",
        "watcher",
        context={"ranking": two, "mine": None, "rounds": 2},
    )
    yield Case(
        "game_over-no-ranking", "game_over", context={"ranking": [], "mine": None, "rounds": 0}
    )
    # The warm-up in scripts/bench_sweep.py.
    yield Case(
        "game_over-warm-up",
        "game_over",
        context={"what": [], "ranking": [], "mine": None, "rounds": 1},
    )
    # Issue 40: a bot's webhook failed for a day and was disabled; told to its owner.
    yield Case(
        "webhook_disabled",
        "webhook_disabled",
        context={
            "bot": "robo<&>",
            "url": "https://bot.example/h?a=1&b=2",
            "error": "HTTP 500: <b>oops</b>",
            "hours": "24",
            "since": datetime(2030, 5, 6, 9, 0, tzinfo=UTC),
        },
    )
    when = {"when": "2030-01-02 03:04"}
    for label, username in NAMES.items():
        yield Case(f"verify_email-{label}", "verify_email", username, context={"days": 3})
        yield Case(f"password_reset-{label}", "password_reset", username)
        changed = {"masked": "n***@example.net", **when}
        yield Case(f"email_changed-{label}", "email_changed", username, context=changed)
        reset = {"reset": False, **when}
        yield Case(f"password_changed-{label}", "password_changed", username, context=reset)
    yield Case("password_changed-reset", "password_changed", context={"reset": True, **when})
    # Issue 35 §5: to an address another account holds, for a sign-up or an address change.
    for purpose, signup in (("signup", True), ("change", False)):
        for state, confirmed in (("confirmed", True), ("unconfirmed", False)):
            yield Case(
                f"email_in_use-{purpose}-{state}",
                "email_in_use",
                context={
                    "signup": signup,
                    "holder": NAMES["markup"],
                    "holder_confirmed": confirmed,
                },
            )


CASES = list(_cases())

#: The messages ``accounts.services`` writes: its own text, no HTML, a fixed subject.
ACCOUNT_TEMPLATES = {
    kind: f"accounts/email/{kind}.txt"
    for kind in (
        "verify_email",
        "password_reset",
        "email_in_use",
        "email_changed",
        "password_changed",
    )
}


@contextmanager
def fixed_settings() -> Iterator[None]:
    from django.test import override_settings

    with override_settings(**SETTINGS):
        yield


def compose(case: Case) -> dict[str, Any]:
    """The message of ``case``, as the code of this tree writes it (call in ``fixed_settings``)."""
    from django.contrib.auth.models import User
    from django.template.loader import render_to_string

    from games.selectors import TableFacts
    from notifications.outbox import _compose

    user = User(pk=4242, username=case.username, email="player@example.com")
    if case.kind in ACCOUNT_TEMPLATES:
        # As accounts.services renders them: the link, and the reset's uid and token.
        link = f"https://gamenook.example/accounts/{case.kind}/tok-<&'\">/"
        context = {
            "user": user,
            "email": user.email,
            "link": link,
            "uid": "NDI0Mg",
            "token": "c4x-9f&'\"<>",
            "forgot_url": "https://gamenook.example/password-reset/",
            "site_url": SETTINGS["SITE_URL"],
            **case.context,
        }
        return {"text": render_to_string(ACCOUNT_TEMPLATES[case.kind], context)}
    table = TableFacts(
        id=31337,
        seq=57,
        turn=12,
        status="active",
        turn_hours=24,
        timeout_policy=case.policy,
        deadline_at=DEADLINE,
    )
    # The digest is about no one table.
    return _compose(case.kind, user, None if case.kind == "digest" else table, dict(case.context))


def compose_all() -> dict[str, dict[str, Any]]:
    with fixed_settings():
        return {case.name: compose(case) for case in CASES}


def main() -> None:
    import django

    django.setup()
    messages = compose_all()
    GOLDEN.write_text(
        json.dumps(messages, indent=1, ensure_ascii=False, sort_keys=True) + "\n", encoding="utf-8"
    )
    print(f"{len(messages)} messages written to {GOLDEN}")


if __name__ == "__main__":
    main()
