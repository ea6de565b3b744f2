"""A socket lives as long as its credential: revoked, logged out, password changed,
deactivated, and it closes; checked again before it acts; `Bearer` as HTTP has it;
a cap on one user's sockets at a table (issue 35, §4, §11, §8)."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from datetime import timedelta
from typing import Any

import pytest
from channels.db import database_sync_to_async
from channels.testing import WebsocketCommunicator
from django.contrib.auth.models import User
from django.contrib.auth.signals import user_logged_out
from django.contrib.auth.tokens import default_token_generator
from django.contrib.sessions.backends.db import SessionStore
from django.test import Client
from django.utils import timezone
from django.utils.encoding import force_bytes
from django.utils.http import urlsafe_base64_encode
from rest_framework.test import APIClient

from accounts import services as accounts
from accounts.models import ApiToken
from accounts.signals import credentials_changed
from games import services
from games.models import Connection, Table
from live import receivers
from live.ticker import ticker
from tests.factories import start_table
from tests.live.conftest import (
    closed_with,
    frame,
    legal_action,
    make_user,
    run,
    send,
    socket,
    view_now,
)

PASSWORD = "correct horse battery"  # tests.factories.make_user's
NEW_PASSWORD = "a wholly new horse battery"


def _players() -> tuple[Table, User, User]:
    """A running two-seat table, the user to act and the other."""
    alice, bob = make_user("alice"), make_user("bob")
    table = start_table(alice, bob)
    mover, other = (alice, bob) if table.to_act == 0 else (bob, alice)
    return table, mover, other


def _token(user: User, name: str) -> tuple[int, str]:
    token, key = accounts.token_create(user=user, name=name)
    return token.pk, key


def _browser(user: User) -> tuple[Client, str]:
    """A logged-in browser and its session's key."""
    client = Client()
    client.force_login(user)
    return client, client.cookies["sessionid"].value


def _token_client(key: str) -> APIClient:
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Token {key}")
    return client


def _table(table_id: int) -> tuple[int, str]:
    table = Table.objects.get(pk=table_id)
    return table.seq, table.status


async def _open(comm: WebsocketCommunicator, table_id: int) -> dict[str, Any]:
    """Connect; the view it is sent first."""
    assert (await comm.connect(timeout=20))[0]
    view: dict[str, Any] = (await view_now(comm, table_id))["view"]
    return view


async def _ended(comm: WebsocketCommunicator) -> None:
    """The socket says its credential stopped working and closes with 4401 (views sent
    before that, of a change made with it, are passed over)."""
    while True:
        got = await frame(comm)
        if got["type"] == "error":
            break
        assert got["type"] in ("view", "moved"), got
    assert got["status"] == 401, got
    assert got["error"]["code"] == "authentication_failed", got
    assert set(got["error"]) == {"code", "detail", "fields"}
    assert await closed_with(comm) == 4401


async def _acts(comm: WebsocketCommunicator, view: dict[str, Any]) -> int:
    """An action over ``comm`` is applied; the new seq."""
    await send(comm, {"type": "action", "action": legal_action(view), "expected_seq": view["seq"]})
    moved = await frame(comm)
    assert moved["type"] == "moved", moved
    return int(moved["seq"])


async def _action_not_applied(
    comm: WebsocketCommunicator, view: dict[str, Any], table_id: int
) -> None:
    """An action sent on a closed socket changes nothing (disconnecting waits until the
    consumer has handled every frame before it)."""
    before = await database_sync_to_async(_table)(table_id)
    await send(comm, {"type": "action", "action": legal_action(view), "expected_seq": before[0]})
    await comm.disconnect()
    assert await database_sync_to_async(_table)(table_id) == before


async def _pong(comm: WebsocketCommunicator) -> None:
    """Still open and answering (views of changes on the way are passed over)."""
    await send(comm, {"type": "ping"})
    while (got := await frame(comm))["type"] != "pong":
        assert got["type"] == "view", got


_RECEIVERS = (
    (credentials_changed, "live.credentials", "on_credentials_changed"),
    (user_logged_out, "live.logged_out", "on_logged_out"),
)


@contextmanager
def _signals_lost() -> Iterator[None]:
    """No credentials message is sent: as if the channel layer lost it."""
    for signal, uid, _name in _RECEIVERS:
        signal.disconnect(dispatch_uid=uid)
    try:
        yield
    finally:
        for signal, uid, name in _RECEIVERS:
            found = getattr(receivers, name, None)  # None before live listened (c12bf7c)
            if found is not None:
                signal.connect(found, dispatch_uid=uid)


# --- tokens ----------------------------------------------------------------------------


@pytest.mark.parametrize("how", ["delete", "logout"])
def test_a_revoked_token_closes_its_sockets_and_another_token_keeps_working(
    layer: str, how: str
) -> None:
    table, mover, _other = _players()
    revoked_id, revoked = _token(mover, "laptop")
    _kept_id, kept = _token(mover, "phone")

    def revoke() -> int:
        if how == "delete":
            client = _token_client(kept)
            return client.delete(f"/api/v1/me/tokens/{revoked_id}/").status_code
        return _token_client(revoked).post("/api/v1/auth/logout/").status_code

    async def scenario() -> None:
        gone, stays = socket(table.pk, token=revoked), socket(table.pk, token=kept)
        view = await _open(gone, table.pk)
        await _open(stays, table.pk)
        assert await database_sync_to_async(revoke)() == 204
        await _ended(gone)
        await _action_not_applied(gone, view, table.pk)
        assert await _acts(stays, view) == table.seq + 1
        await stays.disconnect()

    run(scenario)
    assert ApiToken.objects.filter(user=mover).count() == 1


def test_revoking_every_token_closes_every_token_socket_but_not_the_session(layer: str) -> None:
    table, mover, _other = _players()
    keys = [_token(mover, name)[1] for name in ("one", "two")]
    _browser_client, session = _browser(mover)

    async def scenario() -> None:
        gone = [socket(table.pk, token=key) for key in keys]
        stays = socket(table.pk, session=session)
        for comm in gone:
            view = await _open(comm, table.pk)
        await _open(stays, table.pk)
        await database_sync_to_async(accounts.tokens_revoke_all)(user=mover)
        for comm in gone:
            await _ended(comm)
            await _action_not_applied(comm, view, table.pk)
        assert await _acts(stays, view) == table.seq + 1
        await stays.disconnect()

    run(scenario)


# --- sessions --------------------------------------------------------------------------


@pytest.mark.parametrize("how", ["web", "api"])
def test_logging_out_closes_that_sessions_sockets_only(layer: str, how: str) -> None:
    table, mover, _other = _players()
    leaving, leaving_key = _browser(mover)
    _staying, staying_key = _browser(mover)
    _token_id, key = _token(mover, "laptop")

    def log_out() -> int:
        if how == "web":
            return leaving.post("/logout/").status_code
        client = APIClient()
        client.cookies["sessionid"] = leaving_key
        return client.post("/api/v1/auth/logout/").status_code

    async def scenario() -> None:
        gone = socket(table.pk, session=leaving_key)
        stays = [socket(table.pk, session=staying_key), socket(table.pk, token=key)]
        view = await _open(gone, table.pk)
        for comm in stays:
            await _open(comm, table.pk)
        assert await database_sync_to_async(log_out)() in (204, 302)
        await _ended(gone)
        await _action_not_applied(gone, view, table.pk)
        await _pong(stays[0])
        assert await _acts(stays[1], view) == table.seq + 1
        await view_now(stays[0], table.pk)
        for comm in stays:
            await comm.disconnect()

    run(scenario)


# --- passwords -------------------------------------------------------------------------


def test_an_api_password_change_closes_the_other_credentials_sockets_and_keeps_its_tokens(
    layer: str,
) -> None:
    table, mover, _other = _players()
    _kept_id, kept = _token(mover, "the one changing it")
    _revoked_id, revoked = _token(mover, "another")
    _browser_client, session = _browser(mover)

    def change() -> int:
        body = {"current_password": PASSWORD, "new_password": NEW_PASSWORD}
        return _token_client(kept).post("/api/v1/me/password/", body, format="json").status_code

    async def scenario() -> None:
        gone = [socket(table.pk, token=revoked), socket(table.pk, session=session)]
        stays = socket(table.pk, token=kept)
        for comm in gone:
            view = await _open(comm, table.pk)
        await _open(stays, table.pk)
        assert await database_sync_to_async(change)() == 200
        for comm in gone:
            await _ended(comm)
            await _action_not_applied(comm, view, table.pk)
        assert await _acts(stays, view) == table.seq + 1
        await stays.disconnect()

    run(scenario)


def test_a_web_password_change_closes_the_users_sockets_and_its_browser_connects_again(
    layer: str,
) -> None:
    table, mover, _other = _players()
    changing, changing_key = _browser(mover)
    _elsewhere, elsewhere_key = _browser(mover)
    _token_id, key = _token(mover, "laptop")

    def change() -> int:
        body = {
            "form": "password",
            "current_password": PASSWORD,
            "new_password": NEW_PASSWORD,
            "new_password_again": NEW_PASSWORD,
        }
        return changing.post("/account/", body).status_code

    async def scenario() -> None:
        # Django gives the changing browser's session a new key (update_session_auth_hash):
        # the socket opened with the old one ends too, and the browser connects again
        # with its cookie, as the sessions the change ended cannot.
        keys = (changing_key, elsewhere_key)
        gone = [socket(table.pk, session=k) for k in keys] + [socket(table.pk, token=key)]
        for comm in gone:
            view = await _open(comm, table.pk)
        assert await database_sync_to_async(change)() == 302
        for comm in gone:
            await _ended(comm)
            await _action_not_applied(comm, view, table.pk)
        new_key = changing.cookies["sessionid"].value
        assert new_key != changing_key
        again = socket(table.pk, session=new_key)
        assert (await _open(again, table.pk))["seq"] == table.seq
        assert await _acts(again, view) == table.seq + 1
        await again.disconnect()
        refused = socket(table.pk, session=elsewhere_key)
        assert (await refused.connect(timeout=20))[0]
        assert (await frame(refused))["error"]["code"] == "not_authenticated"
        assert await closed_with(refused) == 4401
        await refused.disconnect()

    run(scenario)


def test_a_password_reset_closes_the_users_sockets_and_not_the_other_players(
    layer: str,
) -> None:
    table, mover, other = _players()
    _token_id, key = _token(mover, "laptop")
    _browser_client, session = _browser(mover)
    other_key = _token(other, "theirs")[1]
    body = {
        "uid": urlsafe_base64_encode(force_bytes(mover.pk)),
        "token": default_token_generator.make_token(mover),
        "password": NEW_PASSWORD,
    }

    def reset() -> int:
        return (
            APIClient()
            .post("/api/v1/auth/password-reset/confirm/", body, format="json")
            .status_code
        )

    async def scenario() -> None:
        gone = [socket(table.pk, token=key), socket(table.pk, session=session)]
        stays = socket(table.pk, token=other_key)
        for comm in gone:
            view = await _open(comm, table.pk)
        await _open(stays, table.pk)
        assert await database_sync_to_async(reset)() == 200
        for comm in gone:
            await _ended(comm)
            await _action_not_applied(comm, view, table.pk)
        await _pong(stays)
        await stays.disconnect()

    run(scenario)


# --- deactivation ----------------------------------------------------------------------


def test_deactivating_a_user_closes_every_socket_of_theirs(layer: str) -> None:
    alice, bob, carol = make_user("alice"), make_user("bob"), make_user("carol")
    table = start_table(alice, bob, carol)
    mover = [alice, bob, carol][table.to_act or 0]
    other = bob if mover is not bob else carol
    _token_id, key = _token(mover, "laptop")
    _browser_client, session = _browser(mover)
    other_key = _token(other, "theirs")[1]

    async def scenario() -> None:
        gone = [socket(table.pk, token=key), socket(table.pk, session=session)]
        stays = socket(table.pk, token=other_key)
        for comm in gone:
            view = await _open(comm, table.pk)
        await _open(stays, table.pk)
        await database_sync_to_async(accounts.user_deactivate)(user=mover)
        for comm in gone:
            await _ended(comm)
            await _action_not_applied(comm, view, table.pk)
        await _pong(stays)
        await stays.disconnect()

    run(scenario)


# --- when no message comes -------------------------------------------------------------


def test_a_token_revoked_without_a_message_is_refused_before_it_acts(layer: str) -> None:
    table, mover, _other = _players()
    revoked_id, revoked = _token(mover, "laptop")
    _kept_id, kept = _token(mover, "phone")

    async def scenario() -> None:
        gone, stays = socket(table.pk, token=revoked), socket(table.pk, token=kept)
        view = await _open(gone, table.pk)
        await _open(stays, table.pk)
        with _signals_lost():
            await database_sync_to_async(ApiToken.objects.filter(pk=revoked_id).delete)()
        assert await gone.receive_nothing(timeout=0.2)  # nobody told it
        await send(gone, {"type": "action", "action": legal_action(view)})
        await _ended(gone)
        await gone.disconnect()
        assert await database_sync_to_async(_table)(table.pk) == (table.seq, "active")
        assert await _acts(stays, view) == table.seq + 1
        await stays.disconnect()

    run(scenario)


def test_a_session_ended_without_a_message_cannot_concede(layer: str) -> None:
    table, mover, _other = _players()
    _browser_client, session = _browser(mover)

    def change_password() -> None:
        mover.set_password(NEW_PASSWORD)
        mover.save()  # no service, no signal: the session's auth hash is stale

    async def scenario() -> None:
        comm = socket(table.pk, session=session)
        await _open(comm, table.pk)
        with _signals_lost():
            await database_sync_to_async(change_password)()
        await send(comm, {"type": "concede"})
        await _ended(comm)
        await comm.disconnect()

    run(scenario)
    assert _table(table.pk) == (table.seq, "active")


def test_the_heartbeat_closes_the_sockets_whose_credential_failed_without_a_message(
    layer: str,
) -> None:
    table, mover, other = _players()
    revoked_id, revoked = _token(mover, "laptop")
    _kept_id, kept = _token(mover, "phone")
    _browser_client, session = _browser(mover)
    _other_client, other_session = _browser(other)

    def lose_them() -> None:
        ApiToken.objects.filter(pk=revoked_id).delete()
        SessionStore(session).delete()  # a log-out whose message was lost

    async def scenario() -> None:
        gone = [socket(table.pk, token=revoked), socket(table.pk, session=session)]
        stays = [socket(table.pk, token=kept), socket(table.pk, session=other_session)]
        views = [await _open(comm, table.pk) for comm in gone + stays]
        view = views[0]  # the mover's
        assert await ticker.check_credentials() == 0
        with _signals_lost():
            await database_sync_to_async(lose_them)()
        await ticker.tick(beat=True, everything=False)
        for comm in gone:
            await _ended(comm)
            await _action_not_applied(comm, view, table.pk)
        for comm in stays:
            assert await comm.receive_nothing(timeout=0.2)
            await _pong(comm)
        assert await ticker.check_credentials() == 0
        assert await _acts(stays[0], view) == table.seq + 1
        for comm in stays:
            await comm.disconnect()

    run(scenario)


def test_the_heartbeat_closes_the_sockets_of_a_user_deactivated_or_a_password_changed() -> None:
    table, mover, other = _players()
    _token_id, key = _token(mover, "laptop")
    _mover_client, mover_session = _browser(mover)
    _other_client, other_session = _browser(other)

    def change_them() -> None:
        User.objects.filter(pk=mover.pk).update(is_active=False)
        other.set_password(NEW_PASSWORD)
        other.save()

    async def scenario() -> None:
        gone = [
            socket(table.pk, token=key),
            socket(table.pk, session=mover_session),
            socket(table.pk, session=other_session),
        ]
        views = [await _open(comm, table.pk) for comm in gone]
        with _signals_lost():
            await database_sync_to_async(change_them)()
        assert await ticker.check_credentials() == 3
        for comm in gone:
            await _ended(comm)
            await _action_not_applied(comm, views[0], table.pk)

    run(scenario)


# --- Bearer: one rule for HTTP and the socket ------------------------------------------


def test_bearer_is_refused_on_the_socket_as_over_http() -> None:
    table, mover, _other = _players()
    _token_id, key = _token(mover, "laptop")
    http = APIClient().get(f"/api/v1/tables/{table.pk}/view/", HTTP_AUTHORIZATION=f"Bearer {key}")
    assert http.status_code == 401
    _browser_client, session = _browser(mover)
    with_session = APIClient()
    with_session.cookies["sessionid"] = session
    both = with_session.get(f"/api/v1/tables/{table.pk}/view/", HTTP_AUTHORIZATION=f"Bearer {key}")
    assert both.status_code == 200  # the session is used, as for any other scheme

    async def scenario() -> None:
        comm = socket(table.pk, authorization=f"Bearer {key}")
        assert (await comm.connect(timeout=20))[0]
        got = await frame(comm)
        assert got == {"type": "error", "status": 401, "error": http.json()}
        assert await closed_with(comm) == 4401
        await comm.disconnect()
        comm = socket(table.pk, authorization=f"Bearer {key}", session=session)
        assert (await _open(comm, table.pk))["game"]["seat"] == table.to_act
        await comm.disconnect()
        comm = socket(table.pk, authorization=f"token {key}")  # the scheme's case, as DRF
        await _open(comm, table.pk)
        await comm.disconnect()

    run(scenario)


# --- a cap on one user's sockets at a table -------------------------------------------


def test_a_user_holds_at_most_the_settings_sockets_at_a_table(layer: str, settings: Any) -> None:
    settings.GAMENOOK_LIVE_MAX_SOCKETS_PER_TABLE = 3
    table, mover, other = _players()
    _token_id, key = _token(mover, "laptop")
    other_key = _token(other, "theirs")[1]
    # Another process's sockets of the same user: counted from the presence records.
    services.presence_open(table_id=table.pk, user=mover, channel="another-process!a")

    def stale(channel: str) -> None:
        long_ago = timezone.now() - timedelta(hours=1)
        Connection.objects.filter(channel=channel).update(seen_at=long_ago)

    async def refused(comm: WebsocketCommunicator) -> None:
        assert (await comm.connect(timeout=20))[0]
        got = await frame(comm)
        assert got["type"] == "error" and got["status"] == 429, got
        assert got["error"]["code"] == "too_many_sockets"
        assert await closed_with(comm) == 4429
        await comm.disconnect()

    async def scenario() -> None:
        mine = [socket(table.pk, token=key) for _ in range(2)]
        for comm in mine:
            view = await _open(comm, table.pk)
        await refused(socket(table.pk, token=key))
        theirs = socket(table.pk, token=other_key)  # another user's count is their own
        await _open(theirs, table.pk)
        # A record whose process stopped touching it counts no more.
        await database_sync_to_async(stale)("another-process!a")
        again = socket(table.pk, token=key)
        await _open(again, table.pk)
        await refused(socket(table.pk, token=key))
        # Closing one makes room; the sockets admitted work.
        await mine[0].disconnect()
        last = socket(table.pk, token=key)
        await _open(last, table.pk)
        assert await _acts(last, view) == table.seq + 1
        for comm in (mine[1], again, last, theirs):
            await comm.disconnect()

    run(scenario)
    assert (
        not Connection.objects.filter(table_id=table.pk)
        .exclude(channel="another-process!a")
        .exists()
    )
