"""Issue 40: invitations to a table and the selectors that say who is a bot account."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest
from django.contrib.auth.models import User
from django.db import connection
from django.test import TestCase
from django.test.utils import CaptureQueriesContext
from django.urls import reverse
from rest_framework.test import APIClient

from games import selectors, services
from games.errors import Conflict, Forbidden, NotFound, ServiceError
from games.models import BotAccount, Invitation, Table
from games.signals import invitation_made
from tests.factories import make_user
from tests.games.conftest import assert_error

pytestmark = pytest.mark.django_db


def make_bot(owner: User, name: str, *, disabled: bool = False) -> User:
    """A bot account of ``owner`` as the accounts layer makes one (no password, no address)."""
    user = User.objects.create_user(name, "")
    user.set_unusable_password()
    user.is_active = not disabled
    user.save()
    BotAccount.objects.create(user=user, owner=owner)
    if disabled:
        BotAccount.objects.filter(user=user).update(disabled_at=user.date_joined)
    return user


def test_bot_account_ids_in_one_query_disabled_ones_too() -> None:
    owner = make_user("owner")
    bot = make_bot(owner, "robo")
    off = make_bot(owner, "offbot", disabled=True)
    with CaptureQueriesContext(connection) as queries:
        found = selectors.bot_account_ids([owner.pk, bot.pk, off.pk, 999_999])
    assert found == {bot.pk, off.pk}
    assert len(queries) == 1
    with CaptureQueriesContext(connection) as queries:
        assert selectors.bot_account_ids([]) == set()
    assert len(queries) == 0


def test_is_bot_account_and_owner() -> None:
    owner = make_user("owner")
    bot = make_bot(owner, "robo")
    assert selectors.is_bot_account(bot.pk)
    assert not selectors.is_bot_account(owner.pk)
    assert selectors.bot_owner(bot.pk) == owner
    assert selectors.bot_owner(owner.pk) is None
    assert selectors.bot_owners([bot.pk, owner.pk]) == {bot.pk: "owner"}


def test_invitations_pending_only_lobby_tables_newest_first() -> None:
    host = make_user("host")
    guest = make_user("guest")
    older = Table.objects.create(host=host, seat_count=2)
    newer = Table.objects.create(host=host, seat_count=3)
    started = Table.objects.create(host=host, seat_count=2, status=Table.Status.ACTIVE)
    first = Invitation.objects.create(table=older, user=guest, invited_by=host)
    second = Invitation.objects.create(table=newer, user=guest, invited_by=host)
    Invitation.objects.create(table=started, user=guest, invited_by=host)
    Invitation.objects.create(
        table=Table.objects.create(host=host, seat_count=2),
        user=guest,
        invited_by=host,
        status=Invitation.Status.DECLINED,
    )
    facts = selectors.invitations_pending(guest.pk)
    assert [fact.id for fact in facts] == [second.pk, first.pk]
    assert facts[0].table_id == newer.pk
    assert facts[0].host == "host"
    assert facts[0].seat_count == 3
    assert facts[0].game == "flip"
    assert selectors.invitations_pending(host.pk) == []


# ----------------------------------------------------------------------------
# The service


def test_invite_then_join_accepts_and_start_withdraws_the_rest() -> None:
    host, guest, other = make_user("host"), make_user("guest"), make_user("other")
    table = services.table_create(host=host, seat_count=3)
    heard: list[dict[str, Any]] = []

    def listen(**kwargs: Any) -> None:
        heard.append(kwargs)

    invitation_made.connect(listen, dispatch_uid="test_invitations")
    try:
        with TestCase.captureOnCommitCallbacks(execute=True):
            first = services.invitation_create(table_id=table.pk, host=host, username="guest")
        second = services.invitation_create(table_id=table.pk, host=host, username="other")
    finally:
        invitation_made.disconnect(dispatch_uid="test_invitations")
    assert [(h["invitation_id"], h["table_id"], h["user_id"]) for h in heard] == [
        (first.pk, table.pk, guest.pk)
    ]
    services.table_join(table_id=table.pk, user=guest)
    first.refresh_from_db()
    assert first.status == Invitation.Status.ACCEPTED
    assert first.answered_at is not None
    services.table_start(table_id=table.pk, user=host)
    second.refresh_from_db()
    assert second.status == Invitation.Status.WITHDRAWN
    assert selectors.invitations_pending(other.pk) == []


def test_host_leaving_the_lobby_withdraws_invitations() -> None:
    host = make_user("host")
    make_user("guest")
    table = services.table_create(host=host, seat_count=2)
    invitation = services.invitation_create(table_id=table.pk, host=host, username="guest")
    services.table_leave_lobby(table_id=table.pk, user=host)
    invitation.refresh_from_db()
    assert invitation.status == Invitation.Status.WITHDRAWN


def test_abort_withdraws_invitations() -> None:
    host = make_user("host")
    make_user("guest")
    table = services.table_create(host=host, seat_count=2)
    invitation = services.invitation_create(table_id=table.pk, host=host, username="guest")
    services.table_abort(table_id=table.pk)
    invitation.refresh_from_db()
    assert invitation.status == Invitation.Status.WITHDRAWN


@pytest.mark.parametrize(
    ("who", "username", "exc", "code"),
    [
        ("stranger", "guest", Forbidden, "not_host"),
        ("host", "nobody-here", NotFound, "no_such_user"),
        ("host", "host", Conflict, "invite_self"),
        ("host", "seated", Conflict, "already_seated"),
        ("host", "gone", NotFound, "no_such_user"),
    ],
)
def test_invitation_create_refusals(
    who: str, username: str, exc: type[ServiceError], code: str
) -> None:
    users = {name: make_user(name) for name in ("host", "guest", "stranger", "seated", "gone")}
    User.objects.filter(username="gone").update(is_active=False)
    table = services.table_create(host=users["host"], seat_count=3)
    services.table_join(table_id=table.pk, user=users["seated"])
    with pytest.raises(exc) as raised:
        services.invitation_create(table_id=table.pk, host=users[who], username=username)
    assert raised.value.code == code
    assert not Invitation.objects.exists()


def test_invitation_refused_when_full_started_twice_or_to_a_refusing_table() -> None:
    host, guest = make_user("host"), make_user("guest")
    make_user("third")
    bot = make_bot(host, "robo")
    table = services.table_create(host=host, seat_count=2, bot_accounts="refused")
    with pytest.raises(Forbidden) as refused:
        services.invitation_create(table_id=table.pk, host=host, username=bot.username)
    assert refused.value.code == "bot_accounts_refused"
    services.invitation_create(table_id=table.pk, host=host, username="guest")
    with pytest.raises(Conflict) as raised:
        services.invitation_create(table_id=table.pk, host=host, username="guest")
    assert raised.value.code == "already_invited"
    services.table_join(table_id=table.pk, user=guest)
    with pytest.raises(Conflict) as raised:
        services.invitation_create(table_id=table.pk, host=host, username="third")
    assert raised.value.code == "table_full"
    services.table_start(table_id=table.pk, user=host)
    with pytest.raises(Conflict) as raised:
        services.invitation_create(table_id=table.pk, host=host, username="third")
    assert raised.value.code == "not_in_lobby"


def test_decline_is_the_invitees_only_and_once() -> None:
    host, guest, other = make_user("host"), make_user("guest"), make_user("other")
    table = services.table_create(host=host, seat_count=2)
    invitation = services.invitation_create(table_id=table.pk, host=host, username="guest")
    for someone in (other, host):
        with pytest.raises(NotFound):
            services.invitation_decline(invitation_id=invitation.pk, user=someone)
    services.invitation_decline(invitation_id=invitation.pk, user=guest)
    invitation.refresh_from_db()
    assert invitation.status == Invitation.Status.DECLINED
    with pytest.raises(Conflict) as raised:
        services.invitation_decline(invitation_id=invitation.pk, user=guest)
    assert raised.value.code == "invitation_answered"
    # Declined, the host may ask again.
    services.invitation_create(table_id=table.pk, host=host, username="guest")


def test_withdraw_is_the_hosts_only_and_once_and_closes_the_door_to_a_bot() -> None:
    host, other = make_user("host"), make_user("other")
    bot = make_bot(make_user("owner"), "robo")
    table = services.table_create(host=host, seat_count=3)  # bot accounts: invited only
    elsewhere = services.table_create(host=other, seat_count=2)
    invitation = services.invitation_create(table_id=table.pk, host=host, username="robo")
    for someone in (other, bot):  # not the host: as if there were no such invitation
        with pytest.raises(NotFound) as missing:
            services.invitation_withdraw(invitation_id=invitation.pk, host=someone)
        assert missing.value.code == "no_such_invitation"
    with pytest.raises(NotFound):
        services.invitation_withdraw(invitation_id=invitation.pk + 1000, host=host)
    invitation.refresh_from_db()
    assert invitation.status == Invitation.Status.PENDING

    services.invitation_withdraw(invitation_id=invitation.pk, host=host)
    invitation.refresh_from_db()
    assert invitation.status == Invitation.Status.WITHDRAWN
    assert invitation.answered_at is not None
    assert selectors.invitations_pending(bot.pk) == []
    with pytest.raises(Conflict) as answered:
        services.invitation_withdraw(invitation_id=invitation.pk, host=host)
    assert answered.value.code == "invitation_answered"
    with pytest.raises(ServiceError):  # withdrawn, the bot may no longer sit here
        services.table_join(table_id=table.pk, user=bot)
    assert not table.seats.filter(user=bot).exists()
    # The host may ask again, and the new invitation lets the bot in.
    services.invitation_create(table_id=table.pk, host=host, username="robo")
    services.table_join(table_id=table.pk, user=bot)
    assert table.seats.filter(user=bot).exists()
    # An accepted invitation cannot be withdrawn; another host's is not found.
    accepted = Invitation.objects.get(table=table, user=bot, status=Invitation.Status.ACCEPTED)
    with pytest.raises(Conflict):
        services.invitation_withdraw(invitation_id=accepted.pk, host=host)
    theirs = services.invitation_create(table_id=elsewhere.pk, host=other, username="host")
    with pytest.raises(NotFound):
        services.invitation_withdraw(invitation_id=theirs.pk, host=host)


def test_pending_invitations_per_table_are_capped() -> None:
    host = make_user("host")
    table = services.table_create(host=host, seat_count=2)
    for n in range(services.MAX_PENDING_INVITATIONS):
        make_user(f"guest{n}")
        services.invitation_create(table_id=table.pk, host=host, username=f"guest{n}")
    make_user("one-more")
    with pytest.raises(Conflict) as raised:
        services.invitation_create(table_id=table.pk, host=host, username="one-more")
    assert raised.value.code == "too_many_invitations"


# ----------------------------------------------------------------------------
# The API


def _url(name: str, *args: int) -> str:
    return reverse(name, args=args)


def test_api_invite_list_and_decline(api: Callable[[User | None], APIClient]) -> None:
    host, guest = make_user("host"), make_user("guest")
    owner = make_user("owner")
    bot = make_bot(owner, "robo")
    table = services.table_create(host=host, seat_count=3)
    hosting = api(host)
    answer = hosting.post(_url("table-invitations", table.pk), {"username": "guest"}, format="json")
    assert answer.status_code == 201, answer.content
    assert answer.json()["username"] == "guest"
    assert answer.json()["status"] == "pending"
    assert answer.json()["bot_account"] is False
    answer = hosting.post(_url("table-invitations", table.pk), {"username": "robo"}, format="json")
    assert answer.status_code == 201, answer.content
    assert answer.json()["bot_account"] is True

    listed = hosting.get(_url("table-invitations", table.pk)).json()
    assert listed["count"] == 2
    assert [item["username"] for item in listed["results"]] == ["robo", "guest"]

    mine = api(guest).get(_url("invitations")).json()
    assert mine["count"] == 1
    (item,) = mine["results"]
    assert item["table"] == table.pk
    assert item["host"] == "host"
    assert item["seat_count"] == 3
    assert item["game"] == "flip"
    assert item["url"] == f"/api/v1/tables/{table.pk}/join/"

    robo = api(bot)
    (bot_item,) = robo.get(_url("invitations")).json()["results"]
    declined = robo.post(_url("invitation-decline", bot_item["id"]), format="json")
    assert declined.status_code == 200, declined.content
    assert declined.json()["status"] == "declined"
    assert robo.get(_url("invitations")).json()["count"] == 0


def test_api_withdraw(api: Callable[[User | None], APIClient]) -> None:
    host, guest = make_user("host"), make_user("guest")
    table = services.table_create(host=host, seat_count=3)
    invitation = services.invitation_create(table_id=table.pk, host=host, username="guest")
    url = _url("invitation-withdraw", invitation.pk)
    for someone in (guest, make_user("other")):
        refused = api(someone).post(url, format="json")
        assert_error(refused, 404, "no_such_invitation")
    assert api(None).post(url, format="json").status_code == 401
    answer = api(host).post(url, format="json")
    assert answer.status_code == 200, answer.content
    assert answer.json()["status"] == "withdrawn"
    assert answer.json()["username"] == "guest"
    assert api(guest).get(_url("invitations")).json()["count"] == 0
    assert api(host).get(_url("table-invitations", table.pk)).json()["results"][0]["status"] == (
        "withdrawn"
    )
    assert_error(api(host).post(url, format="json"), 409, "invitation_answered")
    assert_error(api(host).post(url, [1], format="json"), 400, "invalid")
    hosting = api(host)
    deep = "[" * 100_000 + "]" * 100_000
    assert_error(hosting.post(url, deep, content_type="application/json"), 400, "json_too_deep")
    for raw in ('{"note": "' + "x" * 100_000 + '"}', '{"n": 1' + "0" * 400 + "}"):
        answer = hosting.post(url, raw, content_type="application/json")
        assert answer.status_code in (400, 409), answer.content  # never a 5xx
    huge = api(host).post("/api/v1/invitations/99999999999999999999/withdraw/", format="json")
    assert huge.status_code == 404
    assert api(host).get(url).status_code == 405


def test_api_hostile_inputs(api: Callable[[User | None], APIClient]) -> None:
    host, guest, other = make_user("host"), make_user("guest"), make_user("other")
    table = services.table_create(host=host, seat_count=2)
    url = _url("table-invitations", table.pk)
    hosting = api(host)
    bodies: list[Any] = [{}, {"username": 5}, {"username": ""}, {"username": "x" * 5000}, [], None]
    bodies += [{"username": "a\x00b"}, {"username": ["guest"]}, {"username": None}]
    for body in bodies:
        assert_error(hosting.post(url, body, format="json"), 400, "invalid")
    assert_error(
        hosting.post(url, {"username": "guest", "seat": 1}, format="json"), 400, "unknown_field"
    )
    assert_error(hosting.post(url, {"username": "host"}, format="json"), 409, "invite_self")
    assert_error(hosting.post(url, {"username": "nobody"}, format="json"), 404, "no_such_user")
    assert_error(api(other).post(url, {"username": "guest"}, format="json"), 403, "not_host")
    assert_error(api(other).get(url), 403, "not_host")
    assert_error(api(None).get(url), 401, "not_authenticated")
    assert_error(api(None).get(_url("invitations")), 401, "not_authenticated")
    missing = "/api/v1/tables/99999999/invitations/"
    assert_error(hosting.post(missing, {"username": "guest"}, format="json"), 404, "not_found")
    assert_error(hosting.get(missing), 404, "not_found")
    for query in ("?limit=0", "?limit=abc", "?offset=-1", "?limit="):
        assert_error(api(guest).get(_url("invitations") + query), 400, "invalid")

    made = hosting.post(url, {"username": "guest"}, format="json").json()
    # Someone else's invitation is not found, as one that does not exist.
    assert_error(api(other).post(_url("invitation-decline", made["id"])), 404, "no_such_invitation")
    assert_error(api(guest).post(_url("invitation-decline", 99999999)), 404, "no_such_invitation")
    assert_error(
        api(guest).post(_url("invitation-decline", made["id"]), {"x": 1}, format="json"),
        400,
        "unknown_field",
    )
    assert api(guest).post("/api/v1/invitations/99999999999999999999/decline/").status_code == 404
    assert_error(hosting.post(url, {"username": "guest"}, format="json"), 409, "already_invited")
    # Another user's pending list shows nothing of it.
    assert api(other).get(_url("invitations")).json() == {"count": 0, "results": []}
