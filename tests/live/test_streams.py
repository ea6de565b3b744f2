"""The NDJSON streams (issue 40, live.streams): admission, first lines, changes, ends.

Each stream is read through the whole ASGI application (``StreamClient``), on the
in-memory layer and on Redis's when configured. Django's test clients read a
streaming answer to its end, and these never end: ``StreamClient`` sends the request to
``gamenook.asgi.application`` itself and
reads the answer's body as it comes, line by line. Run inside a scenario
(``tests.live.conftest.run``): the stream's database work stays in the test's thread.
"""

from __future__ import annotations

import asyncio
import json
from typing import Any

import pytest
from channels.db import database_sync_to_async
from channels.layers import get_channel_layer
from django.contrib.auth.models import User
from django.test import override_settings
from rest_framework.test import APIClient

from accounts import services as accounts
from accounts.models import ApiToken
from gamenook.asgi import application
from games import services
from games.models import Table
from live import receivers, streams
from tests.factories import start_table
from tests.live.conftest import api_view, legal_action, make_user, run, session_for, token_for

#: A bound on each wait for a line: a hung stream fails the test, a slow machine does not.
WAIT = 20.0


class StreamClient:
    def __init__(
        self,
        path: str,
        *,
        token: str | None = None,
        session: str | None = None,
        authorization: str | None = None,
        method: str = "GET",
    ) -> None:
        path, _, query = path.partition("?")
        headers: list[tuple[bytes, bytes]] = [(b"host", b"testserver")]
        if token is not None:
            authorization = f"Token {token}"
        if authorization is not None:
            headers.append((b"authorization", authorization.encode()))
        if session is not None:
            headers.append((b"cookie", f"sessionid={session}".encode()))
        self.scope = {
            "type": "http",
            "asgi": {"version": "3.0"},
            "http_version": "1.1",
            "method": method,
            "scheme": "http",
            "path": path,
            "raw_path": path.encode(),
            "query_string": query.encode(),
            "root_path": "",
            "headers": headers,
            "client": ("127.0.0.1", 50000),
            "server": ("testserver", 80),
        }
        self.sent: asyncio.Queue[dict[str, Any]] = asyncio.Queue()
        self.gone = asyncio.Event()
        self.asked = False
        self.buffer = b""
        self.finished = False
        self.status = 0
        self.headers: dict[str, str] = {}
        self.task: asyncio.Task[Any] | None = None

    async def _receive(self) -> dict[str, Any]:
        if not self.asked:
            self.asked = True
            return {"type": "http.request", "body": b"", "more_body": False}
        await self.gone.wait()
        return {"type": "http.disconnect"}

    async def _send(self, message: dict[str, Any]) -> None:
        await self.sent.put(message)

    async def open(self) -> int:
        """Send the request; the answer's status (its headers in ``headers``)."""
        app: Any = application  # the ASGI callable; its typed scopes are stricter than needed
        self.task = asyncio.ensure_future(app(self.scope, self._receive, self._send))
        start = await asyncio.wait_for(self.sent.get(), WAIT)
        assert start["type"] == "http.response.start", start
        self.status = int(start["status"])
        self.headers = {
            bytes(key).decode().lower(): bytes(value).decode() for key, value in start["headers"]
        }
        return self.status

    async def _more(self) -> bool:
        if self.finished:
            return False
        message = await asyncio.wait_for(self.sent.get(), WAIT)
        assert message["type"] == "http.response.body", message
        self.buffer += message.get("body", b"")
        if not message.get("more_body", False):
            self.finished = True
        return True

    async def raw_line(self) -> bytes | None:
        """The next line as sent (without its newline); None once the answer ended."""
        while b"\n" not in self.buffer:
            if not await self._more():
                if self.buffer:
                    rest, self.buffer = self.buffer, b""
                    return rest
                return None
        text, self.buffer = self.buffer.split(b"\n", 1)
        return text

    async def line(self, *, keepalives: bool = False) -> dict[str, Any] | None:
        """The next object (keep-alive lines passed over unless ``keepalives``: then
        one comes back as ``{}``); None once the answer ended."""
        while True:
            text = await self.raw_line()
            if text is None:
                return None
            if not text.strip():
                if keepalives:
                    return {}
                continue
            body: dict[str, Any] = json.loads(text)
            return body

    async def body(self) -> dict[str, Any]:
        """A refusal's whole body, parsed."""
        while await self._more():
            pass
        body: dict[str, Any] = json.loads(self.buffer)
        return body

    async def ended(self) -> bool:
        """Whether the server ended the answer (after the lines read so far)."""
        while await self._more():
            pass
        return self.finished

    async def close(self) -> None:
        """Hang up, and wait for the application to finish."""
        self.gone.set()
        if self.task is not None:
            await asyncio.wait_for(self.task, WAIT)


# --- helpers --------------------------------------------------------------------------


def _client(user: User) -> APIClient:
    client = APIClient()
    client.force_authenticate(user)
    return client


def api_log(user: User, table_id: int, after: int = 0) -> list[dict[str, Any]]:
    """``GET /tables/{id}/log/?after=n``'s moves for ``user``, as JSON gives them."""
    response = _client(user).get(f"/api/v1/tables/{table_id}/log/?after={after}")
    assert response.status_code == 200
    moves: list[dict[str, Any]] = json.loads(response.content)["moves"]
    return moves


def move(user: User, table_id: int) -> int:
    """``user`` makes their first legal move through the API; the table's seq after it."""
    view, _etag = api_view(user, table_id)
    response = _client(user).post(
        f"/api/v1/tables/{table_id}/actions/", legal_action(view), format="json"
    )
    assert response.status_code == 201, response.content
    return int(Table.objects.get(pk=table_id).seq)


def to_act(table_id: int) -> int | None:
    return Table.objects.get(pk=table_id).to_act


def _players(n: int = 2) -> tuple[list[User], Table]:
    users = [make_user(f"p{i}") for i in range(n)]
    return users, start_table(*users, allow_watchers=True)


def _table_path(table_id: int, query: str = "") -> str:
    return f"/api/v1/tables/{table_id}/stream{query}"


# --- the table stream -----------------------------------------------------------------


def test_a_table_stream_starts_with_the_view_api_body(layer: str) -> None:
    (alice, bob), table = _players()
    key = token_for(bob)

    async def scenario() -> None:
        stream = StreamClient(_table_path(table.pk), token=key)
        assert await stream.open() == 200
        first = await stream.line()
        body, _etag = await database_sync_to_async(api_view)(bob, table.pk)
        await stream.close()
        assert stream.headers["content-type"] == "application/x-ndjson"
        assert stream.headers["cache-control"] == "no-store"
        assert stream.headers["x-accel-buffering"] == "no"
        assert first == {"type": "view", "version": table.seq, "view": body}
        assert first["view"]["game"]["seat"] == 1
        assert first["view"]["game"]["legal_actions"] is not None

    run(scenario)


def test_a_bot_accounts_play_token_opens_both_streams(layer: str) -> None:
    """Issue 40: the streams are a bot's; its ``play`` token opens them (the scope's
    allowlist, ``accounts.authentication.PLAY_ALLOWED``), as it opens the view."""
    owner = make_user("owner")
    bot, key = accounts.bot_create(owner=owner, username="robo")
    other = make_user("other")
    table = start_table(other, bot, bot_accounts="welcome")

    async def scenario() -> None:
        events = StreamClient("/api/v1/stream/events", token=key)
        assert await events.open() == 200
        hello = await events.line()
        await events.close()
        stream = StreamClient(_table_path(table.pk), token=key)
        assert await stream.open() == 200
        first = await stream.line()
        await stream.close()
        assert hello is not None and hello["type"] == "hello"
        assert first is not None and first["type"] == "view"
        assert first["view"]["game"]["seat"] == 1

    run(scenario)


def test_a_move_arrives_as_a_change_with_the_logs_events(layer: str) -> None:
    (alice, bob), table = _players()
    key = token_for(bob)
    mover = alice if to_act(table.pk) == 0 else bob

    async def scenario() -> None:
        stream = StreamClient(_table_path(table.pk), token=key)
        assert await stream.open() == 200
        first = await stream.line()
        assert first is not None
        seq = await database_sync_to_async(move)(mover, table.pk)
        got = await stream.line()
        body, _ = await database_sync_to_async(api_view)(bob, table.pk)
        log = await database_sync_to_async(api_log)(bob, table.pk, first["version"])
        table_now = await database_sync_to_async(Table.objects.get)(pk=table.pk)
        await stream.close()
        assert got is not None
        assert got["type"] == "change"
        assert got["version"] == seq == body["seq"]
        assert got["view"] == body
        assert got["events"] == log and log
        assert got["to_act"] == table_now.to_act
        assert got["deadline"] == body["deadline_at"]

    run(scenario)


def test_a_watcher_stream_gets_the_watcher_view(layer: str) -> None:
    (alice, bob), table = _players()
    carol = make_user("carol")
    key = token_for(carol)
    mover = alice if to_act(table.pk) == 0 else bob

    async def scenario() -> None:
        stream = StreamClient(_table_path(table.pk), token=key)
        assert await stream.open() == 200
        first = await stream.line()
        await database_sync_to_async(move)(mover, table.pk)
        got = await stream.line()
        body, _ = await database_sync_to_async(api_view)(carol, table.pk)
        log = await database_sync_to_async(api_log)(carol, table.pk, table.seq)
        await stream.close()
        assert first is not None and first["view"]["game"]["seat"] is None
        assert got is not None and got["view"] == body and got["events"] == log

    run(scenario)


def test_reconnecting_with_since_sends_the_missed_moves_then_the_view(layer: str) -> None:
    (alice, bob), table = _players()
    key = token_for(bob)
    seen = table.seq
    for _ in range(3):
        mover = alice if to_act(table.pk) == 0 else bob
        move(mover, table.pk)
    log = api_log(bob, table.pk, seen)
    body, _ = api_view(bob, table.pk)

    async def scenario() -> tuple[Any, Any]:
        stream = StreamClient(_table_path(table.pk, f"?since={seen}"), token=key)
        assert await stream.open() == 200
        missed, view = await stream.line(), await stream.line()
        await stream.close()
        return missed, view

    missed, view = run(scenario)
    assert missed == {"type": "missed", "since": seen, "version": body["seq"], "events": log}
    assert len(log) >= 3
    assert view == {"type": "view", "version": body["seq"], "view": body}


def test_a_session_opens_a_stream_too(layer: str) -> None:
    (alice, bob), table = _players()
    session = session_for(bob)

    async def scenario() -> Any:
        stream = StreamClient(_table_path(table.pk), session=session)
        assert await stream.open() == 200
        first = await stream.line()
        await stream.close()
        return first

    first = run(scenario)
    assert first["type"] == "view" and first["view"]["game"]["seat"] == 1


def test_the_game_over_is_the_last_line(layer: str) -> None:
    (alice, bob), table = _players()
    key = token_for(bob)

    async def scenario() -> list[Any]:
        stream = StreamClient(_table_path(table.pk), token=key)
        assert await stream.open() == 200
        await stream.line()
        await database_sync_to_async(services.table_concede)(table_id=table.pk, user=alice)
        lines = []
        while (got := await stream.line()) is not None:
            lines.append(got)
        await stream.close()
        return lines

    lines = run(scenario)
    assert [one["type"] for one in lines] == ["change", "game_over", "end"]
    assert lines[0]["view"]["status"] == "finished"
    assert lines[1]["table"] == table.pk and lines[1]["seat"] == 1
    assert lines[1]["rank"] == 1
    assert [entry["seat"] for entry in lines[1]["ranking"]][0] == 1
    assert lines[2] == {"type": "end", "reason": "game_over"}


# --- refusals, before the stream starts -----------------------------------------------


def _refused(path: str, **auth: Any) -> tuple[int, dict[str, Any], dict[str, str]]:
    async def scenario() -> tuple[int, dict[str, Any], dict[str, str]]:
        stream = StreamClient(path, **auth)
        status = await stream.open()
        body = await stream.body()
        await stream.close()
        return status, body, stream.headers

    result: tuple[int, dict[str, Any], dict[str, str]] = run(scenario)
    return result


@pytest.mark.parametrize("path", ["/api/v1/stream/events", "/api/v1/tables/1/stream"])
def test_no_credentials_is_401_in_the_error_shape(path: str) -> None:
    status, body, headers = _refused(path)
    assert status == 401
    assert set(body) == {"code", "detail", "fields"}  # the API's one error shape
    assert body["code"] == "not_authenticated"
    assert headers["content-type"].startswith("application/json")
    status, body, _ = _refused(path, authorization="Token not-a-token")
    assert status == 401 and body["code"] == "authentication_failed"


def test_a_table_that_refuses_watchers_is_403_and_no_table_404() -> None:
    alice, bob, carol = make_user("alice"), make_user("bob"), make_user("carol")
    table = start_table(alice, bob)  # no watchers
    key = token_for(carol)
    status, body, _ = _refused(_table_path(table.pk), token=key)
    assert status == 403 and body["code"] == "watching_not_allowed"
    status, body, _ = _refused(_table_path(table.pk + 1000), token=key)
    assert status == 404 and body["code"] == "not_found"
    status, body, _ = _refused(_table_path(2**40), token=key)
    assert status == 404 and body["code"] == "not_found"


@pytest.mark.parametrize("method", ["POST", "PUT", "DELETE"])
def test_only_get_opens_a_stream(method: str) -> None:
    (alice, bob), table = _players()
    key = token_for(bob)
    for path in ("/api/v1/stream/events", _table_path(table.pk)):
        status, body, _ = _refused(path, token=key, method=method)
        assert status == 405 and body["code"] == "method_not_allowed", body


@pytest.mark.parametrize("since", ["abc", "-1", "1.5", "", "99999999999", "1e3"])
def test_a_bad_since_is_400(since: str) -> None:
    (alice, bob), table = _players()
    status, body, _ = _refused(_table_path(table.pk, f"?since={since}"), token=token_for(bob))
    assert status == 400 and "since" in body["fields"]


# --- the events stream ----------------------------------------------------------------


def test_the_events_stream_says_hello_then_the_turns(layer: str) -> None:
    (alice, bob), table = _players()
    keys = {0: token_for(alice), 1: token_for(bob)}
    first = to_act(table.pk)
    assert first is not None
    other = 1 - first
    users = [alice, bob]

    async def scenario() -> tuple[Any, Any, Any, Any]:
        waiting = StreamClient("/api/v1/stream/events", token=keys[other])
        acting = StreamClient("/api/v1/stream/events", token=keys[first])
        assert await waiting.open() == 200 and await acting.open() == 200
        hello_waiting, hello_acting = await waiting.line(), await acting.line()
        seq = await database_sync_to_async(move)(users[first], table.pk)
        told = None
        if await database_sync_to_async(to_act)(table.pk) == other:
            told = await waiting.line()
        await waiting.close()
        await acting.close()
        return hello_waiting, hello_acting, told, seq

    hello_waiting, hello_acting, told, seq = run(scenario)
    assert hello_waiting == {"type": "hello", "turns": [], "invitations": []}
    assert hello_acting["type"] == "hello" and hello_acting["invitations"] == []
    [turn] = hello_acting["turns"]
    assert turn["table"] == table.pk and turn["seat"] == first and turn["seq"] == table.seq
    assert turn["url"] == f"/api/v1/tables/{table.pk}/"
    if told is not None:  # the turn passed (a draw may keep it)
        assert told["type"] == "turn" and told["table"] == table.pk
        assert told["seat"] == other and told["seq"] == seq


def test_a_turn_the_layer_lost_is_told_by_the_recheck_once(layer: str, monkeypatch: Any) -> None:
    """The process's recheck reads its events streams' turns in one query and sends a
    stream the turn it was not told, once: not again at the next recheck, not again
    when the lost message turns up after all."""
    (alice, bob), table = _players()
    users = [alice, bob]
    first = to_act(table.pk)
    assert first is not None
    other = 1 - first
    key = token_for(users[other])
    told_by_layer: list[Any] = []

    def lost(*args: Any, **kwargs: Any) -> list[Any]:
        told_by_layer.extend(receivers.user_events(*args, **kwargs))
        return []  # the message never reaches the layer

    user_events = receivers.user_events

    async def scenario() -> tuple[Any, int, int, int, Any]:
        waiting = StreamClient("/api/v1/stream/events", token=key)
        assert await waiting.open() == 200
        await waiting.line()  # hello: nothing to do
        monkeypatch.setattr(receivers, "user_events", lost)
        seq = None
        while await database_sync_to_async(to_act)(table.pk) != other:  # a draw keeps the turn
            seq = await database_sync_to_async(move)(users[first], table.pk)
        monkeypatch.setattr(receivers, "user_events", user_events)
        sent = await streams.rechecks.recheck()
        told = await waiting.line()
        again = await streams.rechecks.recheck()
        # The lost message turns up late: the stream has told that turn already.
        layer = get_channel_layer()
        for user_id, event in told_by_layer:
            if user_id == users[other].pk:
                await layer.group_send(
                    receivers.events_group(user_id), {"type": "stream.event", "event": event}
                )
        late = await waiting.line(keepalives=True)
        await waiting.close()
        assert seq is not None
        return told, sent, again, seq, late

    with override_settings(GAMENOOK_STREAM_KEEPALIVE_SECONDS=1.0):
        told, sent, again, seq, late = run(scenario)
    assert told["type"] == "turn" and told["table"] == table.pk
    assert told["seat"] == other and told["seq"] == seq
    assert sent == 1 and again == 0
    assert late == {}  # the next line is a keep-alive, not the turn again


def test_game_start_and_over_reach_every_seated_user(layer: str) -> None:
    alice, bob = make_user("alice"), make_user("bob")
    table = services.table_create(host=alice, seat_count=2)
    services.table_join(table_id=table.pk, user=bob)
    key = token_for(bob)

    async def scenario() -> list[Any]:
        stream = StreamClient("/api/v1/stream/events", token=key)
        assert await stream.open() == 200
        got = [await stream.line()]
        await database_sync_to_async(services.table_start)(table_id=table.pk, user=alice)
        bobs_turn = await database_sync_to_async(to_act)(table.pk) == 1
        for _ in range(2 if bobs_turn else 1):  # game_start, and a turn if bob begins
            got.append(await stream.line())
        await database_sync_to_async(services.table_concede)(table_id=table.pk, user=alice)
        got.append(await stream.line())
        await stream.close()
        return got

    got = run(scenario)
    kinds = [one["type"] for one in got]
    assert kinds[0] == "hello" and "game_start" in kinds and kinds[-1] == "game_over"
    start = next(one for one in got if one["type"] == "game_start")
    assert start == {
        "type": "game_start",
        "table": table.pk,
        "game": "flip",
        "seat": 1,
        "url": f"/api/v1/tables/{table.pk}/",
    }
    assert got[-1]["rank"] == 1 and got[-1]["seat"] == 1


def test_an_invitation_is_told_and_in_the_hello(layer: str) -> None:
    alice, bob = make_user("alice"), make_user("bob")
    table = services.table_create(host=alice, seat_count=2)
    key = token_for(bob)

    async def scenario() -> Any:
        stream = StreamClient("/api/v1/stream/events", token=key)
        assert await stream.open() == 200
        await stream.line()
        await database_sync_to_async(services.invitation_create)(
            table_id=table.pk, host=alice, username="bob"
        )
        got = await stream.line()
        again = StreamClient("/api/v1/stream/events", token=key)
        assert await again.open() == 200
        hello = await again.line()
        await again.close()
        await stream.close()
        return got, hello

    got, hello = run(scenario)
    assert got["type"] == "invitation" and got["table"] == table.pk and got["from"] == "alice"
    assert got["url"] == f"/api/v1/tables/{table.pk}/join/" and got["seats"] == 2
    assert hello["invitations"] == [got]


def test_one_events_stream_per_token(layer: str) -> None:
    alice = make_user("alice")
    key, other_key = token_for(alice), token_for(alice)

    async def scenario() -> tuple[Any, ...]:
        older = StreamClient("/api/v1/stream/events", token=key)
        assert await older.open() == 200
        await older.line()
        other = StreamClient("/api/v1/stream/events", token=other_key)
        assert await other.open() == 200
        await other.line()
        newer = StreamClient("/api/v1/stream/events", token=key)
        assert await newer.open() == 200
        hello = await newer.line()
        ended = await older.line()
        closed = await older.line()
        # The other token's stream and the newer one stay.
        await database_sync_to_async(services.table_create)(host=alice, seat_count=2)
        for one in (other, newer, older):
            await one.close()
        return hello, ended, closed, other.finished, newer.finished

    hello, ended, closed, other_finished, newer_finished = run(scenario)
    assert hello["type"] == "hello"
    assert ended == {"type": "end", "reason": "replaced"}
    assert closed is None
    assert not other_finished and not newer_finished


@pytest.mark.parametrize("kind", ["events", "table"])
def test_a_revoked_token_ends_its_streams(layer: str, kind: str) -> None:
    (alice, bob), table = _players()
    token, key = accounts.token_create(user=bob, name="bot")
    kept = token_for(bob)
    path = "/api/v1/stream/events" if kind == "events" else _table_path(table.pk)

    async def scenario() -> tuple[Any, Any, bool]:
        gone, stays = StreamClient(path, token=key), StreamClient(path, token=kept)
        assert await gone.open() == 200 and await stays.open() == 200
        await gone.line()
        await stays.line()
        await database_sync_to_async(accounts.token_revoke)(user=bob, token_id=token.pk)
        ended, closed = await gone.line(), await gone.line()
        await gone.close()
        await stays.close()
        return ended, closed, stays.finished

    ended, closed, stays_finished = run(scenario)
    assert ended == {"type": "end", "reason": "credentials"} and closed is None
    assert not stays_finished
    assert not ApiToken.objects.filter(pk=token.pk).exists()


def test_keepalives_and_the_lifetime(layer: str) -> None:
    alice = make_user("alice")
    key = token_for(alice)

    async def scenario() -> list[Any]:
        stream = StreamClient("/api/v1/stream/events", token=key)
        assert await stream.open() == 200
        got = []
        while (one := await stream.line(keepalives=True)) is not None:
            got.append(one)
        await stream.close()
        return got

    with override_settings(GAMENOOK_STREAM_KEEPALIVE_SECONDS=0.2, GAMENOOK_STREAM_MAX_SECONDS=1.0):
        got = run(scenario)
    assert got[0]["type"] == "hello"
    assert got[-1] == {"type": "end", "reason": "reconnect"}
    assert {} in got[1:-1]  # a blank line between


@pytest.mark.parametrize("period", [0.3, 8.0, 10.0, 30.0])
def test_the_keepalive_beat_rounds_a_due_time_up_to_a_quarter_period(period: float) -> None:
    """Streams due at one point of the grid share one future (their lines go out in one
    pass of the loop); a point plus a period is the next period's point, so an idle
    stream keeps one line a period; a stream is never told before it is due, and at
    most a quarter period after."""
    step = period / 4

    async def scenario() -> None:
        beat = streams.Beat(period)
        now = asyncio.get_running_loop().time()
        base, first = beat.at(now + 10 * period)
        assert now + 10 * period <= base <= now + 10 * period + step
        assert beat.at(base - step / 2) == (base, first)  # due within the step before: shared
        later, second = beat.at(base + step / 100)
        assert later == pytest.approx(base + step) and second is not first
        point = base
        for _ in range(500):  # rounding never adds a step to an idle stream's period
            following = beat.at(point + period)[0]
            assert following == pytest.approx(point + period, abs=step / 100)
            point = following
        for fraction in (0.01, 0.3, 0.99, 1.0, 2.7):
            due = base + fraction * step
            assert due - 1e-9 <= beat.at(due)[0] <= due + step
        assert not first.done()
        for coming in beat.points.values():
            coming.cancel()

    asyncio.run(scenario())
