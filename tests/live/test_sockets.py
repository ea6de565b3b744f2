"""A table's socket: who may open it, what it sends, what it takes."""

from __future__ import annotations

import asyncio
import json
from datetime import timedelta
from typing import Any

import pytest
from channels.db import database_sync_to_async
from django.contrib.auth.models import Permission
from django.utils import timezone
from rest_framework.test import APIClient

from games import services
from games.models import Table
from games.signals import table_changed
from live.receivers import on_table_changed
from live.ticker import ticker
from tests.factories import start_table
from tests.live.conftest import (
    api_view,
    closed_with,
    frame,
    legal_action,
    make_user,
    run,
    send,
    session_for,
    socket,
    socket_id,
    token_for,
    view_at,
    view_now,
)


def _seq(table_id: int) -> int:
    return Table.objects.get(pk=table_id).seq


def _to_act(table_id: int) -> int | None:
    return Table.objects.get(pk=table_id).to_act


# --- what a socket is sent ------------------------------------------------------------


def test_a_seat_gets_theapi_view_of_its_seat_at_once(layer: str) -> None:
    alice, bob = make_user("alice"), make_user("bob")
    table = start_table(alice, bob)
    key = token_for(bob)

    async def scenario() -> None:
        comm = socket(table.pk, token=key)
        connected, _ = await comm.connect(timeout=20)
        assert connected
        got = await frame(comm)
        body, etag = await database_sync_to_async(api_view)(bob, table.pk)
        await comm.disconnect()
        assert got == {"type": "view", "etag": etag, "view": body}
        assert got["view"]["game"]["seat"] == 1

    run(scenario)


def test_a_watcher_gets_the_watcher_view(layer: str) -> None:
    alice, bob, carol = make_user("alice"), make_user("bob"), make_user("carol")
    table = start_table(alice, bob, allow_watchers=True)
    key = token_for(carol)

    async def scenario() -> None:
        comm = socket(table.pk, token=key)
        assert (await comm.connect(timeout=20))[0]
        got = await frame(comm)
        body, etag = await database_sync_to_async(api_view)(carol, table.pk)
        await comm.disconnect()
        assert got["view"] == body and got["etag"] == etag
        assert got["view"]["game"]["seat"] is None
        assert got["view"]["game"]["hand"] == []

    run(scenario)


def test_a_move_made_through_the_api_is_pushed_to_every_seat(layer: str) -> None:
    alice, bob = make_user("alice"), make_user("bob")
    table = start_table(alice, bob)
    keys = {0: token_for(alice), 1: token_for(bob)}

    async def scenario() -> None:
        comms = {n: socket(table.pk, token=k) for n, k in keys.items()}
        for comm in comms.values():
            assert (await comm.connect(timeout=20))[0]
        first = {n: await view_at(comm, table.seq) for n, comm in comms.items()}
        seat = first[0]["view"]["game"]["to_act"]
        user = alice if seat == 0 else bob
        client = APIClient()
        client.force_authenticate(user)
        answer = await database_sync_to_async(client.post)(
            f"/api/v1/tables/{table.pk}/actions/", legal_action(first[seat]["view"]), format="json"
        )
        assert answer.status_code == 201, answer.content
        seq = answer.json()["seq"]
        for number, comm in comms.items():
            got = await view_at(comm, seq)
            who = alice if number == 0 else bob
            body, etag = await database_sync_to_async(api_view)(who, table.pk)
            assert got["view"] == body and got["etag"] == etag
        for comm in comms.values():
            await comm.disconnect()

    run(scenario)


def test_an_admitted_socket_says_hello_first_with_an_id_of_its_own(layer: str) -> None:
    alice, bob, carol = make_user("alice"), make_user("bob"), make_user("carol")
    table = start_table(alice, bob)  # watchers not allowed
    keys = [token_for(alice), token_for(alice), token_for(bob)]
    refused = token_for(carol)

    async def scenario() -> None:
        comms = [socket(table.pk, token=key) for key in keys]
        for comm in comms:
            assert (await comm.connect(timeout=20))[0]
        ids = [await socket_id(comm) for comm in comms]
        assert len(set(ids)) == len(ids)
        for one in ids:
            assert services.socket_id(one) == one  # what X-Gamenook-Socket takes
        # The hello is the first frame and only the first; the view follows.
        assert (await frame(comms[0]))["type"] == "view"
        # A refused socket gets its error, never an id.
        comm = socket(table.pk, token=refused)
        assert (await comm.connect(timeout=20))[0]
        assert (await frame(comm))["error"]["code"] == "watching_not_allowed"
        assert not hasattr(comm, "hello")
        for comm in comms:
            await comm.disconnect()

    run(scenario)


def _act_over_http(user: Any, table_id: int, view: dict[str, Any], header: str | None) -> Any:
    client = APIClient()
    client.force_authenticate(user)
    extra = {} if header is None else {"HTTP_X_GAMENOOK_SOCKET": header}
    return client.post(
        f"/api/v1/tables/{table_id}/actions/", legal_action(view), format="json", **extra
    )


def test_the_socket_named_in_an_action_is_not_sent_its_view_and_the_others_are(
    layer: str,
) -> None:
    alice, bob = make_user("alice"), make_user("bob")
    table = start_table(alice, bob)
    users = {0: alice, 1: bob}
    keys = {(0, "a"): token_for(alice), (0, "b"): token_for(alice), (1, "a"): token_for(bob)}

    async def scenario() -> None:
        comms = {name: socket(table.pk, token=key) for name, key in keys.items()}
        for comm in comms.values():
            assert (await comm.connect(timeout=20))[0]
        views = {name: await view_now(comm, table.pk) for name, comm in comms.items()}
        seat = views[(0, "a")]["view"]["game"]["to_act"]
        # The mover names a socket of theirs; the other tab and the other seat are told.
        mine = comms[(seat, "a")]
        named = await socket_id(mine)
        answer = await database_sync_to_async(_act_over_http)(
            users[seat], table.pk, views[(seat, "a")]["view"], named
        )
        assert answer.status_code == 201, answer.content
        seq = answer.json()["seq"]
        for name, comm in comms.items():
            if comm is mine:
                continue
            got = await view_at(comm, seq)
            body, etag = await database_sync_to_async(api_view)(users[name[0]], table.pk)
            assert got["view"] == body and got["etag"] == etag
        assert (
            answer.json()["view"]
            == (await database_sync_to_async(api_view)(users[seat], table.pk))[0]
        )
        assert await mine.receive_nothing(timeout=0.3)
        # It counts that view as shown: the recheck finds nothing to send it.
        assert await ticker.recheck() == 0
        assert await mine.receive_nothing(timeout=0.2)
        # The next change, made without the header, reaches it as usual.
        after = answer.json()["view"]["game"]["to_act"]
        view, _etag = await database_sync_to_async(api_view)(users[after], table.pk)
        answer = await database_sync_to_async(_act_over_http)(users[after], table.pk, view, None)
        assert answer.status_code == 201, answer.content
        got = await frame(mine)
        assert got["type"] == "view" and got["view"]["seq"] == answer.json()["seq"]
        for comm in comms.values():
            await comm.disconnect()

    run(scenario)


def test_naming_another_users_socket_does_not_keep_its_view_from_it(layer: str) -> None:
    alice, bob = make_user("alice"), make_user("bob")
    table = start_table(alice, bob)
    users = {0: alice, 1: bob}
    keys = {0: token_for(alice), 1: token_for(bob)}

    async def scenario() -> None:
        comms = {n: socket(table.pk, token=k) for n, k in keys.items()}
        for comm in comms.values():
            assert (await comm.connect(timeout=20))[0]
        views = {n: await view_now(comm, table.pk) for n, comm in comms.items()}
        seat = views[0]["view"]["game"]["to_act"]
        theirs = await socket_id(comms[1 - seat])
        answer = await database_sync_to_async(_act_over_http)(
            users[seat], table.pk, views[seat]["view"], theirs
        )
        assert answer.status_code == 201, answer.content
        seq = answer.json()["seq"]
        for comm in comms.values():  # both are told: the header named no socket of the mover
            assert (await view_at(comm, seq))["view"]["seq"] == seq
        for comm in comms.values():
            await comm.disconnect()

    run(scenario)


def test_the_web_client_socket_uses_the_session_and_a_moderator_may_watch() -> None:
    alice, bob, mod = make_user("alice"), make_user("bob"), make_user("mod")
    mod.user_permissions.add(Permission.objects.get(codename="change_table"))
    table = start_table(alice, bob)  # watchers not allowed
    sessions = {"alice": session_for(alice), "mod": session_for(mod)}

    async def scenario() -> None:
        comm = socket(table.pk, session=sessions["alice"])
        assert (await comm.connect(timeout=20))[0]
        assert (await frame(comm))["view"]["game"]["seat"] == 0
        await comm.disconnect()
        comm = socket(table.pk, session=sessions["mod"])
        assert (await comm.connect(timeout=20))[0]
        assert (await frame(comm))["view"]["game"]["seat"] is None
        await comm.disconnect()
        # The same moderator with a token is an API client: the API's rule, no watching.
        key = await database_sync_to_async(token_for)(mod)
        comm = socket(table.pk, token=key)
        assert (await comm.connect(timeout=20))[0]
        got = await frame(comm)
        assert got["error"]["code"] == "watching_not_allowed"
        assert await closed_with(comm) == 4403
        await comm.disconnect()

    run(scenario)


# --- who may not open one -----------------------------------------------------------


def test_refused_sockets_say_why_and_close_with_the_status() -> None:
    alice, bob, carol = make_user("alice"), make_user("bob"), make_user("carol")
    table = start_table(alice, bob)  # watchers not allowed
    carol_key = token_for(carol)
    cases = [
        ({}, table.pk, "not_authenticated", 4401),
        ({"authorization": "Token not-a-key"}, table.pk, "authentication_failed", 4401),
        ({"authorization": "Token"}, table.pk, "authentication_failed", 4401),
        ({"authorization": "Bearer"}, table.pk, "not_authenticated", 4401),
        ({"token": carol_key}, table.pk, "watching_not_allowed", 4403),
        ({"token": carol_key}, table.pk + 1000, "not_found", 4404),
    ]

    async def scenario() -> None:
        for kwargs, table_id, code, close in cases:
            comm = socket(table_id, **kwargs)
            assert (await comm.connect(timeout=20))[0]
            got = await frame(comm)
            assert got["type"] == "error", got
            assert got["error"]["code"] == code
            assert set(got["error"]) == {"code", "detail", "fields"}
            assert got["status"] == close - 4000
            assert await closed_with(comm) == close
            await comm.disconnect()

    run(scenario)


def test_a_foreign_page_cannot_open_a_socket_with_the_cookie() -> None:
    alice, bob = make_user("alice"), make_user("bob")
    table = start_table(alice, bob)
    session = session_for(alice)

    async def scenario() -> None:
        comm = socket(table.pk, session=session, origin="https://evil.example")
        connected, _ = await comm.connect(timeout=20)
        assert not connected
        await comm.disconnect()
        # No Origin at all is not a browser: it passes the check, and needs its proof.
        comm = socket(table.pk, session=session, origin=None)
        assert (await comm.connect(timeout=20))[0]
        assert (await frame(comm))["type"] == "view"
        await comm.disconnect()

    run(scenario)


# --- actions and errors over the socket ---------------------------------------------


def test_an_action_over_the_socket_is_answered_and_pushed_to_the_other_seat(layer: str) -> None:
    alice, bob = make_user("alice"), make_user("bob")
    table = start_table(alice, bob)
    keys = {0: token_for(alice), 1: token_for(bob)}
    before = table.seq

    async def scenario() -> None:
        comms = {n: socket(table.pk, token=k) for n, k in keys.items()}
        for comm in comms.values():
            assert (await comm.connect(timeout=20))[0]
        views = {n: (await view_at(comm, before))["view"] for n, comm in comms.items()}
        seat = views[0]["game"]["to_act"]
        other = 1 - seat
        action = legal_action(views[seat])
        await send(comms[seat], {"type": "action", "action": action, "expected_seq": before})
        moved = await frame(comms[seat])
        assert moved["type"] == "moved" and moved["seq"] == before + 1
        assert moved["events"]
        mine = await frame(comms[seat])
        assert mine["type"] == "view" and mine["view"]["seq"] == before + 1
        theirs = await view_at(comms[other], before + 1)
        assert theirs["view"]["game"]["seat"] == other
        # The change's push is not sent back to the socket that made it: the answer was it.
        assert await comms[seat].receive_nothing(timeout=0.3)
        assert await ticker.recheck() == 0
        for comm in comms.values():
            await comm.disconnect()

    run(scenario)
    assert _seq(table.pk) == before + 1


def test_bad_frames_are_answered_in_the_api_error_shape_and_change_nothing() -> None:
    alice, bob = make_user("alice"), make_user("bob")
    table = start_table(alice, bob)
    keys = {0: token_for(alice), 1: token_for(bob)}
    seq = table.seq
    to_act = table.to_act
    assert to_act is not None
    deep: Any = 1
    for _ in range(40):
        deep = [deep]
    frames: list[tuple[str, str, int]] = [
        ("not json", "malformed_json", 400),
        (json.dumps([1, 2]), "invalid", 400),
        (json.dumps({"type": "dance"}), "unknown_message", 400),
        (json.dumps({"type": "ping", "extra": 1}), "unknown_field", 400),
        (json.dumps({"type": "action"}), "invalid", 400),
        (json.dumps({"type": "action", "action": "draw"}), "invalid", 400),
        (json.dumps({"type": "action", "action": {"type": "fly"}}), "invalid", 400),
        (
            json.dumps({"type": "action", "action": {"type": "draw", "seat": 0}}),
            "unknown_field",
            400,
        ),
        (
            json.dumps({"type": "action", "action": {"type": "draw"}, "expected_seq": seq - 1}),
            "stale_seq",
            409,
        ),
        (
            json.dumps({"type": "action", "action": {"type": "play", "card": "nope"}}),
            "card_not_in_hand",
            422,
        ),
        (json.dumps({"type": "action", "action": deep}), "json_too_deep", 400),
        ('{"type": "ping", "x": "\\ud800"}', "invalid_text", 400),
        (json.dumps({"type": "ping", "pad": "x" * 20_000}), "request_too_large", 413),
    ]

    async def scenario() -> None:
        comm = socket(table.pk, token=keys[to_act])
        idle = socket(table.pk, token=keys[1 - to_act])
        for c in (comm, idle):
            assert (await c.connect(timeout=20))[0]
        for c in (comm, idle):
            await view_now(c, table.pk)
        for text, code, status in frames:
            await comm.send_to(text_data=text)
            got = await frame(comm)
            assert got["type"] == "error", (text[:60], got)
            assert (got["error"]["code"], got["status"]) == (code, status), (text[:60], got)
        await idle.send_to(bytes_data=b"\xff\xfe")
        assert (await frame(idle))["error"]["code"] == "malformed_json"
        await send(idle, {"type": "action", "action": {"type": "draw"}})
        got = await frame(idle)
        assert (got["error"]["code"], got["status"]) == ("not_your_turn", 422), got
        # Still open, and nothing was played: no view was pushed.
        for c in (comm, idle):
            await send(c, {"type": "ping"})
            assert await frame(c) == {"type": "pong"}
            assert await c.receive_nothing(timeout=0.2)
        for c in (comm, idle):
            await c.disconnect()

    run(scenario)
    assert _seq(table.pk) == seq


def test_conceding_over_the_socket_ends_a_two_seat_game() -> None:
    alice, bob = make_user("alice"), make_user("bob")
    table = start_table(alice, bob)
    key = token_for(bob)

    async def scenario() -> None:
        comm = socket(table.pk, token=key)
        assert (await comm.connect(timeout=20))[0]
        await view_at(comm, table.seq)
        await send(comm, {"type": "concede"})
        moved = await frame(comm)
        assert moved["type"] == "moved"
        view = await frame(comm)
        assert view["view"]["status"] == "finished"
        await comm.disconnect()

    run(scenario)
    assert Table.objects.get(pk=table.pk).status == "finished"


def test_the_recheck_finds_a_change_whose_push_was_lost(layer: str) -> None:
    alice, bob = make_user("alice"), make_user("bob")
    table = start_table(alice, bob)
    key = token_for(bob)
    mover = alice if table.to_act == 0 else bob

    async def scenario() -> None:
        comm = socket(table.pk, token=key)
        assert (await comm.connect(timeout=20))[0]
        await view_at(comm, table.seq)
        assert await ticker.recheck() == 0  # the socket shows its table as it is
        # A change made where no push reaches this process (a worker on the in-memory
        # layer, a message the layer lost): the receiver is not there while it commits.
        view, _etag = await database_sync_to_async(api_view)(mover, table.pk)
        table_changed.disconnect(on_table_changed, dispatch_uid="live.push")
        try:
            await database_sync_to_async(services.table_apply_action)(
                table_id=table.pk, user=mover, data=legal_action(view), expected_seq=None
            )
        finally:
            table_changed.connect(on_table_changed, dispatch_uid="live.push")
        assert await comm.receive_nothing(timeout=0.2)
        assert await ticker.recheck() == 1
        got = await view_at(comm, table.seq + 1)
        assert got["view"]["game"]["seat"] == 1
        await comm.disconnect()

    run(scenario)


def test_a_socket_at_a_lobby_learns_of_a_seat_taken_at_the_next_lobby_recheck() -> None:
    alice, bob = make_user("alice"), make_user("bob")
    table = services.table_create(host=alice, seat_count=3, move_timer="fast")
    key = token_for(alice)

    async def scenario() -> None:
        comm = socket(table.pk, token=key)
        assert (await comm.connect(timeout=20))[0]
        first = await frame(comm)
        assert [s["username"] for s in first["view"]["seats"]] == ["alice"]
        assert await ticker.recheck(lobbies_only=True) == 0
        await database_sync_to_async(services.table_join)(table_id=table.pk, user=bob)
        assert await ticker.recheck(lobbies_only=True) == 1
        got = await frame(comm)
        assert [s["username"] for s in got["view"]["seats"]] == ["alice", "bob"]
        await comm.disconnect()

    run(scenario)


def test_a_socket_idle_for_longer_than_the_layers_wait_stays_open(layer: str) -> None:
    # Redis's layer waits for a socket's messages 5 s at a time; a client read
    # timeout of its own as short once killed every socket idle that long.
    if layer != "redis":
        pytest.skip("the in-memory layer does not wait on Redis")
    alice, bob = make_user("alice"), make_user("bob")
    table = start_table(alice, bob)
    key = token_for(alice)

    async def scenario() -> None:
        comm = socket(table.pk, token=key)
        assert (await comm.connect(timeout=20))[0]
        await frame(comm)
        await asyncio.sleep(12)  # two of the layer's waits and more
        await send(comm, {"type": "ping"})
        assert await frame(comm) == {"type": "pong"}
        await comm.disconnect()

    run(scenario)


def _overdue_page(table_id: int) -> int:
    """Put the table's deadline in the past and time it out with a page; its new seq."""
    Table.objects.filter(pk=table_id).update(deadline_at=timezone.now() - timedelta(seconds=1))
    table = Table.objects.get(pk=table_id)
    page = services.tables_timeout_batch(due=[(table.pk, table.turn)])
    (done,) = page.applied
    return done.result.table.seq


def test_a_timeout_applied_in_a_page_is_pushed_to_a_socket_open_at_the_table(
    layer: str, settings: Any
) -> None:
    settings.GAMENOOK_LIVE_RECHECK_SECONDS = 3600  # only the push can bring the change
    alice, bob = make_user("alice"), make_user("bob")
    table = start_table(alice, bob)
    key = token_for(alice)

    async def scenario() -> None:
        comm = socket(table.pk, token=key)
        assert (await comm.connect(timeout=20))[0]
        await view_at(comm, table.seq)
        seq = await database_sync_to_async(_overdue_page)(table.pk)
        got = await view_at(comm, seq)
        body, etag = await database_sync_to_async(api_view)(alice, table.pk)
        assert got["view"] == body and got["etag"] == etag
        await comm.disconnect()

    run(scenario)
