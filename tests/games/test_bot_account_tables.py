"""Issue 40: which tables seat a bot account, and the cap on games between bots."""

from __future__ import annotations

import threading
from collections.abc import Callable
from datetime import timedelta
from typing import Any

import pytest
from django.contrib.auth.models import User
from django.db import connection
from django.test import override_settings
from django.urls import reverse
from django.utils import timezone
from rest_framework.test import APIClient

from accounts import services as accounts
from games import services
from games.errors import BotGamesCapped, Forbidden
from games.models import Invitation, Table
from tests.factories import make_user
from tests.games.conftest import assert_error
from tests.games.test_invitations import make_bot

pytestmark = pytest.mark.django_db


def _join(client: APIClient, table: Table) -> object:
    return client.post(reverse("table-join", args=[table.pk]), format="json")


def test_a_refusing_table_refuses_bot_accounts_not_people(
    api: Callable[[User | None], APIClient],
) -> None:
    host, person = make_user("host"), make_user("person")
    bot = make_bot(make_user("owner"), "robo")
    table = services.table_create(host=host, seat_count=3, bot_accounts="refused")
    assert_error(_join(api(bot), table), 403, "bot_accounts_refused")
    assert _join(api(person), table).status_code == 201  # type: ignore[attr-defined]


def test_an_inviting_table_needs_a_pending_invitation(
    api: Callable[[User | None], APIClient],
) -> None:
    host = make_user("host")
    bot = make_bot(make_user("owner"), "robo")
    table = services.table_create(host=host, seat_count=3)  # invited, the default
    assert table.bot_accounts == Table.BotAccounts.INVITED
    assert_error(_join(api(bot), table), 403, "invitation_needed")
    invitation = services.invitation_create(table_id=table.pk, host=host, username="robo")
    services.invitation_decline(invitation_id=invitation.pk, user=bot)
    assert_error(_join(api(bot), table), 403, "invitation_needed")  # declined is not pending
    invitation = services.invitation_create(table_id=table.pk, host=host, username="robo")
    answer = _join(api(bot), table)
    assert answer.status_code == 201, answer.content  # type: ignore[attr-defined]
    seats = answer.json()["seats"]  # type: ignore[attr-defined]
    assert [(seat["username"], seat["bot_account"]) for seat in seats] == [
        ("host", False),
        ("robo", True),
    ]
    invitation.refresh_from_db()
    assert invitation.status == Invitation.Status.ACCEPTED


def test_a_welcoming_table_seats_any_bot_account(api: Callable[[User | None], APIClient]) -> None:
    host = make_user("host")
    bot = make_bot(make_user("owner"), "robo")
    table = services.table_create(host=host, seat_count=2, bot_accounts="welcome")
    assert _join(api(bot), table).status_code == 201  # type: ignore[attr-defined]


def test_a_disabled_bot_account_cannot_join() -> None:
    host = make_user("host")
    bot = make_bot(make_user("owner"), "offbot", disabled=True)
    table = services.table_create(host=host, seat_count=2, bot_accounts="welcome")
    with pytest.raises(Forbidden) as raised:
        services.table_join(table_id=table.pk, user=bot)
    assert raised.value.code == "bot_account_disabled"


def test_create_takes_bot_accounts_and_refuses_others(
    api: Callable[[User | None], APIClient],
) -> None:
    client = api(make_user("host"))
    made = client.post(
        reverse("tables"), {"seat_count": 2, "bot_accounts": "welcome"}, format="json"
    )
    assert made.status_code == 201, made.content
    assert made.json()["bot_accounts"] == "welcome"
    default = client.post(reverse("tables"), {"seat_count": 2}, format="json")
    assert default.json()["bot_accounts"] == "invited"
    for bad in ("maybe", 1, None, ["welcome"]):
        refused = client.post(
            reverse("tables"), {"seat_count": 2, "bot_accounts": bad}, format="json"
        )
        assert_error(refused, 400, "invalid")


def _bots_game(owner: User, *bots: User) -> Table:
    """A lobby of ``bots`` only (the first hosts), with a built-in bot too."""
    table = services.table_create(host=bots[0], seat_count=len(bots) + 1, bot_accounts="welcome")
    for bot in bots[1:]:
        services.table_join(table_id=table.pk, user=bot)
    services.table_add_bot(table_id=table.pk, user=bots[0], level="easy")
    return table


@override_settings(GAMENOOK_BOT_GAMES_PER_DAY=2)
def test_the_cap_on_games_between_bots(api: Callable[[User | None], APIClient]) -> None:
    owner = make_user("owner")
    robo, droid = make_bot(owner, "robo"), make_bot(owner, "droid")
    first = _bots_game(owner, robo, droid)
    services.table_start(table_id=first.pk, user=robo)
    second = _bots_game(owner, robo)
    services.table_start(table_id=second.pk, user=robo)
    # Spread the two games over the window: the older one leaves it first.
    now = timezone.now()
    Table.objects.filter(pk=first.pk).update(started_at=now - timedelta(hours=20))
    Table.objects.filter(pk=second.pk).update(started_at=now - timedelta(hours=2))

    third = _bots_game(owner, droid, robo)
    answer = api(droid).post(reverse("table-start", args=[third.pk]), format="json")
    assert_error(answer, 429, "bot_games_capped")
    retry = int(answer["Retry-After"])
    assert 4 * 3600 - 60 <= retry <= 4 * 3600  # the first game leaves the window in 4 hours
    assert Table.objects.get(pk=third.pk).status == Table.Status.LOBBY

    # droid alone played one such game: a table of droid only may start.
    fourth = _bots_game(owner, droid)
    services.table_start(table_id=fourth.pk, user=droid)

    # Once the older game is more than 24 hours old, robo may play again.
    Table.objects.filter(pk=first.pk).update(started_at=now - timedelta(hours=25))
    Table.objects.filter(pk=fourth.pk).update(started_at=now - timedelta(hours=25))
    services.table_start(table_id=third.pk, user=droid)


@override_settings(GAMENOOK_BOT_GAMES_PER_DAY=1)
def test_a_person_at_the_table_lifts_the_cap() -> None:
    owner = make_user("owner")
    robo = make_bot(owner, "robo")
    services.table_start(table_id=_bots_game(owner, robo).pk, user=robo)
    with pytest.raises(BotGamesCapped):
        services.table_start(table_id=_bots_game(owner, robo).pk, user=robo)
    # A game with a person is not counted, nor capped.
    person = make_user("person")
    table = services.table_create(host=person, seat_count=2, bot_accounts="welcome")
    services.table_join(table_id=table.pk, user=robo)
    services.table_start(table_id=table.pk, user=person)
    assert Table.objects.get(pk=table.pk).status == Table.Status.ACTIVE


@override_settings(GAMENOOK_BOT_GAMES_PER_DAY=1)
@pytest.mark.django_db(transaction=True)
def test_two_starts_at_once_never_take_a_bot_past_the_cap(monkeypatch: Any) -> None:
    """Two games between bots, at two tables, started at once: the first to count robo's
    games holds the count until it commits, so the second counts the first's game."""
    if connection.vendor != "postgresql":
        pytest.skip("two transactions at once: PostgreSQL's row and advisory locks")
    owner = make_user("owner")
    robo, droid = make_bot(owner, "robo"), make_bot(owner, "droid")
    first, second = _bots_game(owner, robo), _bots_game(owner, droid, robo)
    counting, release = threading.Event(), threading.Event()
    count = services._bot_games_started

    def held(bot_id: int, since: Any) -> Any:
        if threading.current_thread().name == "first":
            counting.set()  # the first start is counting: hold it there
            assert release.wait(30)
        return count(bot_id, since)

    monkeypatch.setattr(services, "_bot_games_started", held)
    outcomes: dict[str, str] = {}

    def start(name: str, table: Table, user: User) -> None:
        try:
            services.table_start(table_id=table.pk, user=user)
            outcomes[name] = "started"
        except BotGamesCapped:
            outcomes[name] = "capped"
        finally:
            connection.close()

    one = threading.Thread(target=start, args=("first", first, robo), name="first")
    one.start()
    assert counting.wait(30)
    two = threading.Thread(target=start, args=("second", second, droid), name="second")
    two.start()
    two.join(1.0)  # without the lock it would count robo's games now, and start
    release.set()
    one.join(30)
    two.join(30)
    assert outcomes == {"first": "started", "second": "capped"}
    assert Table.objects.get(pk=second.pk).status == Table.Status.LOBBY


def test_a_bots_play_token_spends_the_same_action_budget_as_a_persons(settings: Any) -> None:
    """Issue 40 §4: rate limits as for people, answered with 429, Retry-After and the
    error shape, through the bot's own ``play`` token."""
    owner = make_user("owner")
    bot, key = accounts.bot_create(owner=owner, username="hasty")
    table = services.table_create(host=owner, seat_count=2, bot_accounts="welcome")
    services.table_join(table_id=table.pk, user=bot)
    services.table_start(table_id=table.pk, user=owner)
    rates = {"accounts": "1000/minute", "actions": "2/minute"}
    settings.REST_FRAMEWORK = {**settings.REST_FRAMEWORK, "DEFAULT_THROTTLE_RATES": rates}
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Token {key}")
    url = reverse("table-actions", args=[table.pk])
    for _ in range(2):
        client.post(url, {"type": "pass"}, format="json")

    answer = client.post(url, {"type": "pass"}, format="json")

    assert_error(answer, 429, "throttled")
    assert int(answer["Retry-After"]) > 0
