"""The NDJSON streams of issue 40: a user's events, and a table as a seat (or watcher) sees it.

``GET /api/v1/stream/events`` and ``GET /api/v1/tables/{id}/stream`` answer
``application/x-ndjson``: one JSON object per line, a blank line as keep-alive
after ``GAMENOOK_STREAM_KEEPALIVE_SECONDS`` with nothing else sent (a quarter
of it late at most: ``Beat``), and at most ``GAMENOOK_STREAM_MAX_SECONDS`` long
(then ``{"type": "end", "reason": "reconnect"}``). They are async views of the
ASGI site (a uvicorn process of their own in production, docs/deploy.md; the
one daphne of ``make run``): the request is
admitted by the API's own machinery, in the database thread (DRF's
authentication with a token of either scope or a session, its permissions and
throttles, the view API's ``viewer_seat``), and refused BEFORE the stream
starts in the API's one error shape; then the stream holds no thread.

Feeding: each stream has a channel of the channel layer of its own and joins
the groups of ``live.receivers``: ``events.{id}`` for the user's events
(``stream.event`` messages, built by ``games.events``), ``user.{id}`` for the
credentials (``credentials.changed``, as the sockets), ``table.{id}`` for a
table's changes (as the sockets). Nothing is
read per stream per interval: a table's change is read (or unpacked from the
message) once per process and each seat's view built once (``live.fanout``),
the log's moves since the streams' last version read once per process
(``games.selectors.table_log_read``). A table stream is held by the process's
``live.ticker`` as a socket is: its recheck finds a change the layer lost,
its credentials check a revocation the layer lost. The events streams' turns are
read again by ``rechecks``, one query per process and interval.

One events stream per token (or session): a stream joins the group of its
credential and tells it when it opens; an older stream in that group, on any
process, ends with ``{"type": "end", "reason": "replaced"}``. Table streams are
not limited so (a bot may follow several tables).
"""

from __future__ import annotations

import asyncio
import logging
import math
import time
from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from channels.db import database_sync_to_async
from channels.layers import get_channel_layer
from django.contrib.auth import HASH_SESSION_KEY
from django.contrib.auth.models import User
from django.core.exceptions import SynchronousOnlyOperation
from django.http import HttpRequest, HttpResponseBase, JsonResponse, StreamingHttpResponse
from drf_spectacular.utils import OpenApiResponse, extend_schema
from rest_framework import exceptions, serializers
from rest_framework.request import Request
from rest_framework.views import APIView

from games import events, selectors, services
from games.apis.common import parse_query, request_user
from games.apis.errors import ErrorSerializer
from games.apis.fields import INT_MAX, QueryIntegerField
from games.apis.tables import LogMoveSerializer
from games.errors import ServiceError

from . import conf
from .auth import Credential, session_tag, still_works
from .consumers import REFUSALS, TooManySockets
from .consumers import refusal as refusal_of
from .fanout import Shared, View, reads, render
from .receivers import events_group, group_name, user_group
from .ticker import ticker

logger = logging.getLogger(__name__)

CONTENT_TYPE = "application/x-ndjson"
KEEPALIVE = b"\n"
OVER = ("finished", "aborted")  # games.models.Table.Status: no game runs any more
ACTIVE = "active"


def line(body: dict[str, Any]) -> bytes:
    """One line of a stream: the object as the API renders a body, and a newline."""
    return render(body).encode() + b"\n"


def end_line(reason: str) -> bytes:
    return line({"type": "end", "reason": reason})


def _iso(instant: datetime | None) -> str | None:
    return None if instant is None else instant.isoformat().replace("+00:00", "Z")


# --- admission: the API's own checks, in the database thread --------------------------


@dataclass
class Admitted:
    """Who opened a stream, with what, and (a table stream) where and since when."""

    user: User
    credential: Credential
    table_id: int = 0
    since: int | None = None


def _credential(request: Request, user: User) -> Credential:
    """The token or session the request proved itself with (``live.auth.Credential``)."""
    token = request.auth
    token_id = getattr(token, "pk", None)
    if token_id is not None:
        return Credential(user.pk, token_id=int(token_id))
    session = request._request.session  # noqa: SLF001 (Django's request under DRF's)
    return Credential(
        user.pk,
        session_key=session.session_key,
        session_hash=str(session.get(HASH_SESSION_KEY, "")),
    )


class StreamApi(APIView):
    """What a stream's request goes through before it starts: DRF's authentication,
    permissions and throttles, then ``admit``. Never dispatched as DRF's view: the
    URL's view is the async ``stream_view`` (this class gives it its schema)."""

    def perform_content_negotiation(self, request: Request, force: bool = False) -> Any:  # noqa: ARG002
        # A client asking for application/x-ndjson gets it; a refusal is JSON.
        return super().perform_content_negotiation(request, force=True)

    def admit(self, request: Request, **kwargs: Any) -> Admitted:
        user = request_user(request)
        return Admitted(user, _credential(request, user))


def _admission(
    api_class: type[StreamApi], django_request: HttpRequest, kwargs: dict[str, Any]
) -> tuple[HttpResponseBase | None, Admitted | None]:
    """The refusal in the API's shape, or who was admitted (sync: the database thread)."""
    api = api_class()
    api.args, api.kwargs = (), kwargs
    request = api.initialize_request(django_request, **kwargs)
    api.request = request
    api.headers = api.default_response_headers
    try:
        api.initial(request, **kwargs)
        if request.method != "GET":
            raise exceptions.MethodNotAllowed(str(request.method))
        return None, api.admit(request, **kwargs)
    except Exception as exc:  # noqa: BLE001 (DRF's handler answers, or re-raises a bug)
        response = api.finalize_response(request, api.handle_exception(exc), **kwargs)
        response.render()
        return response, None


def stream_view(
    api_class: type[StreamApi], stream_class: Callable[[Admitted], Stream]
) -> Callable[..., Any]:
    """The async Django view of a stream: admitted in the database thread, then streamed."""

    async def view(request: HttpRequest, **kwargs: Any) -> HttpResponseBase:
        refusal, admitted = await database_sync_to_async(_admission)(api_class, request, kwargs)
        if refusal is not None:
            return refusal
        assert admitted is not None  # noqa: S101 (one or the other)
        stream = stream_class(admitted)
        try:
            await stream.prepare()
        except REFUSALS as exc:
            status, body = refusal_of(exc)
            return JsonResponse(body, status=status)
        response = StreamingHttpResponse(stream.lines(), content_type=CONTENT_TYPE)
        response["Cache-Control"] = "no-store"
        response["X-Accel-Buffering"] = "no"  # nginx: pass each line on at once
        return response

    # drf-spectacular finds an API view by its class (the schema's endpoints).
    view.cls = api_class  # type: ignore[attr-defined]
    view.initkwargs = {}  # type: ignore[attr-defined]
    view.csrf_exempt = True  # type: ignore[attr-defined]  # GET only, as DRF's views
    return view


# --- the channel layer: a stream's own channel and groups -----------------------------


class Feed:
    """A stream's channel on the layer, the groups it joined, and its next message.

    The receive waits on across keep-alives, never cancelled but at the close:
    cancelling Redis's publish-and-subscribe layer's receive unsubscribes the channel.
    """

    def __init__(self) -> None:
        self.layer = get_channel_layer()
        self.channel = ""
        self.groups: list[str] = []
        self.pending: asyncio.Future[dict[str, Any]] | None = None

    async def open(self, *groups: str) -> None:
        if self.layer is None:
            raise RuntimeError("the streams need a channel layer")
        self.channel = await self.layer.new_channel()
        for group in groups:
            await self.layer.group_add(group, self.channel)
            self.groups.append(group)

    async def send(self, group: str, message: dict[str, Any]) -> None:
        assert self.layer is not None  # noqa: S101 (opened)
        await self.layer.group_send(group, message)

    async def next(self, beat: asyncio.Future[None]) -> dict[str, Any] | None:
        """The next message, or None if ``beat`` (the stream's next beat) comes first."""
        assert self.layer is not None  # noqa: S101 (opened)
        if self.pending is None:
            self.pending = asyncio.ensure_future(self.layer.receive(self.channel))
        if not self.pending.done():
            await asyncio.wait((self.pending, beat), return_when=asyncio.FIRST_COMPLETED)
            if not self.pending.done():
                return None
        got, self.pending = self.pending, None
        return got.result()

    async def close(self) -> None:
        if self.pending is not None:
            self.pending.cancel()
            self.pending = None
        if self.layer is None:
            return
        for group in self.groups:
            try:
                await self.layer.group_discard(group, self.channel)
            except Exception:  # a stream that ends must not fail for a lost connection
                logger.exception("leaving %s failed", group)
        self.groups = []


class Beat:
    """The keep-alive clock of a process's streams of one keep-alive period.

    A timer a stream would wake the process once a stream a period, each time
    for one blank line. The beat rounds each stream's due time up to a grid of a
    quarter period and holds one future a point of the grid: the streams due at
    one point all wake in one pass of the loop and their lines go out together,
    and no stream holds a timer of its own. A stream silent for a period sends
    its blank line a quarter period late at most; an idle stream, whose line
    was sent on the grid, exactly every period.
    """

    def __init__(self, period: float) -> None:
        self.period = period
        self.step = period / 4
        self.points: dict[float, asyncio.Future[None]] = {}

    def at(self, due: float) -> tuple[float, asyncio.Future[None]]:
        """The first point of the grid at or after ``due`` (the loop's clock), and a
        future done then, shared by every stream due there."""
        loop = asyncio.get_running_loop()
        # A point plus a period is a point: the rounding error of the division is not
        # taken for a step.
        point = math.ceil(due / self.step - 1e-6) * self.step
        coming = self.points.get(point)
        if coming is None or coming.get_loop() is not loop:
            coming = self.points[point] = loop.create_future()
            loop.call_at(point, self._fire, point, coming)
        return point, coming

    def _fire(self, point: float, coming: asyncio.Future[None]) -> None:
        if self.points.get(point) is coming:
            del self.points[point]
        if not coming.done():
            coming.set_result(None)


#: The process's beats, by period (tests change the periods; one per period asked).
_beats: dict[float, Beat] = {}


def beat_of(period: float) -> Beat:
    """The process's beat for streams of keep-alive ``period`` seconds."""
    beat = _beats.get(period)
    if beat is None:
        beat = _beats[period] = Beat(period)
    return beat


class Stream:
    """A stream's loop: its first lines, then a line per message that calls for one,
    keep-alives between, until it ends or has lived ``GAMENOOK_STREAM_MAX_SECONDS``."""

    def __init__(self, admitted: Admitted) -> None:
        self.admitted = admitted
        self.feed = Feed()
        self.ended = False

    async def prepare(self) -> None:
        """What may still refuse the stream (raises one of ``REFUSALS``), before it starts."""

    async def open(self) -> list[bytes]:
        raise NotImplementedError

    async def handle(self, message: dict[str, Any]) -> list[bytes]:
        raise NotImplementedError

    async def close(self) -> None:
        await self.feed.close()

    def end(self, reason: str) -> list[bytes]:
        self.ended = True
        return [end_line(reason)]

    async def credentials(self, message: dict[str, Any]) -> list[bytes]:
        """A ``credentials.changed`` message for our user: end if ours stopped working."""
        credential = self.admitted.credential
        ended = credential.ended_by(message)
        if not ended and message.get("recheck"):
            ended = not await database_sync_to_async(still_works)(credential)
        return self.end("credentials") if ended else []

    def keepalive_seconds(self) -> float:
        """How long the stream stays silent before a blank line."""
        return conf.stream_keepalive_seconds()

    async def lines(self) -> AsyncIterator[bytes]:
        """The stream's lines: its first, then its messages', a blank line after a
        keep-alive period of silence (``Beat``), and its end ("reconnect") once it has
        lived ``GAMENOOK_STREAM_MAX_SECONDS``."""
        loop = asyncio.get_running_loop()
        beat = beat_of(self.keepalive_seconds())
        try:
            for text in await self.open():
                yield text
            until = loop.time() + conf.stream_max_seconds()
            point, due = beat.at(min(loop.time() + beat.period, until))
            while not self.ended:
                message = await self.feed.next(due)
                if message is None:
                    if loop.time() >= until:
                        yield end_line("reconnect")
                        return
                    yield KEEPALIVE
                    # From the point it was due at, not from now: an idle stream's
                    # lines stay on the grid, one a period.
                    point, due = beat.at(min(point + beat.period, until))
                    continue
                out = await self.handle(message)
                for text in out:
                    yield text
                if out:
                    point, due = beat.at(min(loop.time() + beat.period, until))
        finally:
            await self.close()


# --- the events stream ----------------------------------------------------------------


def _credential_group(credential: Credential) -> str:
    """The group of every events stream opened with one token, or one session."""
    if credential.token_id is not None:
        return f"stream.token.{credential.token_id}"
    return f"stream.session.{session_tag(credential.session_key or '')[:32]}"


def _turn_event(turn: selectors.TurnNow) -> dict[str, Any]:
    """The ``turn`` event of a turn read from the database (hello, the recheck)."""
    return events.turn_event(
        table_id=turn.table_id,
        game=turn.game,
        seq=turn.seq,
        turn=turn.turn,
        seat=turn.seat,
        deadline=turn.deadline_at,
    )


def hello(user_id: int) -> dict[str, Any]:
    """The events stream's first line: where it is the user's turn, their invitations."""
    turns = [_turn_event(turn) for turn in selectors.turns_now(user_id)]
    invitations = [
        events.invitation_event(
            invitation_id=invitation.id,
            table_id=invitation.table_id,
            game=invitation.game,
            host=invitation.host,
            seats=invitation.seat_count,
        )
        for invitation in selectors.invitations_pending(user_id)
    ]
    return {"type": "hello", "turns": turns, "invitations": invitations}


class EventStream(Stream):
    stamp: tuple[int, str]

    def __init__(self, admitted: Admitted) -> None:
        super().__init__(admitted)
        #: By table, the version (seq) of the latest turn event this stream sent
        #: (``hello`` included): one told by the layer and by the recheck is sent once.
        self.told: dict[int, int] = {}

    async def open(self) -> list[bytes]:
        admitted = self.admitted
        group = _credential_group(admitted.credential)
        # Joined before the hello is read: no event falls between the two.
        user_id = admitted.user.pk
        await self.feed.open(user_group(user_id), events_group(user_id), group)
        self.stamp = (time.time_ns(), self.feed.channel)
        await self.feed.send(group, {"type": "stream.opened", "stamp": list(self.stamp)})
        if not await database_sync_to_async(still_works)(admitted.credential):
            return self.end("credentials")  # revoked between the admission and the join
        first = await database_sync_to_async(hello)(admitted.user.pk)
        for turn in first["turns"]:
            self.tell(turn)
        rechecks.add(self)
        return [line(first)]

    def tell(self, event: dict[str, Any]) -> bool:
        """Whether a turn event is news to this stream (then it counts as told): not if
        it sent one of this table's as new already, or newer."""
        table, seq = event["table"], event["seq"]
        if self.told.get(table, -1) >= seq:
            return False
        self.told[table] = seq
        return True

    async def close(self) -> None:
        rechecks.remove(self)
        await super().close()

    async def handle(self, message: dict[str, Any]) -> list[bytes]:
        kind = message.get("type")
        if kind == "stream.event":
            event = message["event"]
            if event.get("type") == "turn" and not self.tell(event):
                return []
            return [line(event)]
        if kind == "stream.opened":
            stamp, channel = message.get("stamp") or (0, "")
            # The newest stream of the credential stays; each older one ends.
            return self.end("replaced") if (stamp, channel) > self.stamp else []
        if kind == "credentials.changed":
            return await self.credentials(message)
        return []


class _Rechecks:
    """The process's events streams, and their turns read again now and then.

    Every ``GAMENOOK_LIVE_RECHECK_SECONDS`` one query reads the turns of every user
    with an events stream open here (``selectors.turns_now_of``); a turn a stream
    was not told (its message lost with a Redis connection) is sent to it then,
    late, not never. As the sockets' recheck (``live.ticker``): no query per
    stream, and nothing sent that a stream knows.
    """

    def __init__(self) -> None:
        self.streams: set[EventStream] = set()
        self.task: asyncio.Task[None] | None = None

    def add(self, stream: EventStream) -> None:
        self.streams.add(stream)
        loop = asyncio.get_running_loop()
        if self.task is None or self.task.done() or self.task.get_loop() is not loop:
            self.task = loop.create_task(self._run())

    def remove(self, stream: EventStream) -> None:
        self.streams.discard(stream)
        if not self.streams and self.task is not None:
            self.task.cancel()
            self.task = None

    async def _run(self) -> None:
        while True:
            await asyncio.sleep(conf.recheck_seconds())
            try:
                await self.recheck()
            except Exception:  # the next one tries again; a stream must not die of it
                logger.exception("the events streams' recheck failed")

    async def recheck(self) -> int:
        """Send each stream the turns it was not told; how many were sent."""
        streams = [stream for stream in self.streams if stream.feed.channel]
        if not streams:
            return 0
        users = {stream.admitted.user.pk for stream in streams}
        turns = await database_sync_to_async(selectors.turns_now_of)(users)
        layer = get_channel_layer()
        sent = 0
        for stream in streams:
            for turn in turns.get(stream.admitted.user.pk, ()):
                if stream.told.get(turn.table_id, -1) >= turn.seq or layer is None:
                    continue
                message = {"type": "stream.event", "event": _turn_event(turn)}
                await layer.send(stream.feed.channel, message)
                sent += 1
        return sent


rechecks = _Rechecks()


# --- the table stream -----------------------------------------------------------------


class _Logs:
    """The log's entries since a version, read once per process for every stream at
    the table that was at that version, and shaped once per seat."""

    KEPT = 4096  # the shaped entries kept, at most (each is a change's, for one seat)

    def __init__(self) -> None:
        self.loop: asyncio.AbstractEventLoop | None = None
        self.reads: dict[int, dict[tuple[int, int], asyncio.Task[selectors.LogRead]]] = {}
        self.entries: dict[tuple[int, int, int, int | None], list[dict[str, Any]]] = {}

    async def entries_of(self, shared: Shared, after: int, seat: int | None) -> list[Any]:
        """The log's entries after ``after`` up to the shared table's seq, as the log API
        answers them for ``seat``."""
        loop = asyncio.get_running_loop()
        if self.loop is not loop:  # a new loop (a test's scenario): nothing of the old one
            self.loop, self.reads, self.entries = loop, {}, {}
        table = shared.table
        upto = table.seq
        if upto <= after:
            return []
        key = (table.pk, after, upto, seat)
        kept = self.entries.get(key)
        if kept is not None:
            return kept
        tasks = self.reads.setdefault(table.pk, {})
        task = tasks.get((after, upto))
        if task is None:
            for old in [k for k in tasks if k[1] < upto]:  # the streams moved on
                del tasks[old]
            task = tasks[(after, upto)] = loop.create_task(
                database_sync_to_async(selectors.table_log_read)(table, after=after)
            )
        read = await asyncio.shield(task)
        shaped = await self._shaped(read, seat, upto)
        if len(self.entries) > self.KEPT:
            self.entries.clear()
        self.entries[key] = shaped
        return shaped

    @staticmethod
    async def _shaped(read: selectors.LogRead, seat: int | None, upto: int) -> list[Any]:
        def shape() -> list[Any]:
            entries = [entry for entry in read.entries(seat) if entry["seq"] <= upto]
            return list(LogMoveSerializer(entries, many=True).data)

        try:
            return shape()
        except SynchronousOnlyOperation:  # a stand-in needing its seats: the thread
            shaped: list[Any] = await database_sync_to_async(shape)()
            return shaped

    def forget(self, table_id: int) -> None:
        self.reads.pop(table_id, None)


logs = _Logs()


def _game_over(table_id: int, seat: int | None, view: dict[str, Any]) -> dict[str, Any]:
    """The ``game_over`` line: the final ranking (public once it is over), named."""
    game = view.get("game") or {}
    names = {one.get("number"): one.get("name") for one in view.get("seats", [])}
    ranking = [
        {**entry, "name": names.get(entry.get("seat"), f"Seat {entry.get('seat')}")}
        for entry in game.get("ranking", [])
        if isinstance(entry, dict)
    ]
    body = events.game_over_event(
        table_id=table_id,
        game=str(game.get("game", "")),
        seat=-1 if seat is None else seat,
        ranking=ranking,
    )
    body.update(seat=seat, version=view["seq"], status=view["status"])
    return body


class TableStream(Stream):
    version = -1  # the seq of the last change sent
    last_view = ""

    def keepalive_seconds(self) -> float:
        return conf.table_stream_keepalive_seconds()

    counted = False  # a connection to the table is counted for this stream

    async def prepare(self) -> None:
        """Join the groups, then be counted as connected to the table, as a socket is
        (``games.services.presence_open``): a change is pushed only to tables with a
        connection counted, and a real-time seat's player is there while it streams."""
        admitted = self.admitted
        table_id = admitted.table_id
        # Joined before being counted: a change committed once counted is heard.
        await self.feed.open(user_group(admitted.user.pk), group_name(table_id))
        try:
            counted = await database_sync_to_async(services.presence_open)(
                table_id=table_id,
                user=admitted.user,
                channel=self.feed.channel,
                max_sockets=conf.max_sockets_per_table(),
            )
            if not counted:
                raise TooManySockets()
        except BaseException:
            await self.feed.close()
            raise
        self.counted = True
        ticker.add(self.feed.channel, table_id, admitted.credential)

    async def open(self) -> list[bytes]:
        admitted = self.admitted
        table_id = admitted.table_id
        # Counted and in the groups before the first read: no change falls between.
        shared = await database_sync_to_async(Shared.load)(table_id)
        seat, view = await self._view(shared)
        out: list[bytes] = []
        since = admitted.since
        if since is not None and since < shared.table.seq:
            missed = await logs.entries_of(shared, since, seat)
            out.append(
                line(
                    {
                        "type": "missed",
                        "since": since,
                        "version": shared.table.seq,
                        "events": missed,
                    }
                )
            )
        out.append(line({"type": "view", "version": shared.table.seq, "view": view.body}))
        return out + self._sent(shared, seat, view)

    async def close(self) -> None:
        channel = self.feed.channel
        ticker.remove(channel)
        table_id = self.admitted.table_id
        if not ticker.at_table(table_id):
            reads.forget(table_id)
            logs.forget(table_id)
        await super().close()
        if self.counted:
            self.counted = False
            await database_sync_to_async(services.presence_close)(channel=channel)

    def _sent(self, shared: Shared, seat: int | None, view: View) -> list[bytes]:
        """Note the view sent; after the game's end, the ``game_over`` line and the end."""
        self.version, self.last_view = shared.table.seq, view.text
        ticker.shown(self.feed.channel, shared.version)
        if shared.table.status not in OVER:
            return []
        return [line(_game_over(shared.table.pk, seat, view.body)), *self.end("game_over")]

    async def _view(self, shared: Shared) -> tuple[int | None, View]:
        """Our seat, decided afresh from the read (as the view API does), and its view;
        on the loop when that needs no database, else in the database thread."""

        def build() -> tuple[int | None, View]:
            seat = selectors.viewer_seat(shared.table, self.admitted.user, shared.seats)
            return seat, shared.view(seat)

        if shared.table.status == ACTIVE and not shared.table.realtime:
            try:
                return build()
            except SynchronousOnlyOperation:
                pass
        return await database_sync_to_async(build)()

    async def handle(self, message: dict[str, Any]) -> list[bytes]:
        kind = message.get("type")
        if kind == "table.changed":
            return await self.changed(message)
        if kind == "credentials.changed":
            return await self.credentials(message)
        return []  # the user's events, for their events streams

    async def changed(self, message: dict[str, Any]) -> list[bytes]:
        table_id = self.admitted.table_id
        told_at = asyncio.get_running_loop().time()
        if message.get("seq", 0) < self.version:
            reads.skip(table_id)  # a newer change was sent already
            return []
        rows = message.get("rows")
        shared = None if rows is None else reads.from_rows(table_id, rows)
        if shared is None:
            sockets = 1 if message.get("recheck") else ticker.at_table(table_id)
            shared = await reads.shared(table_id, told_at=told_at, sockets=sockets)
        if shared.table.seq < self.version:
            return []
        try:
            seat, view = await self._view(shared)
        except (ServiceError, selectors.RuleError, exceptions.APIException):
            return self.end("forbidden")  # no longer allowed to see the table, or it is gone
        if shared.table.seq == self.version and view.text == self.last_view:
            ticker.shown(self.feed.channel, shared.version)
            return []
        table = shared.table
        body = {
            "type": "change",
            "version": table.seq,
            "events": await logs.entries_of(shared, self.version, seat),
            "view": view.body,
            "to_act": table.to_act,
            "deadline": _iso(table.deadline_at),
        }
        return [line(body), *self._sent(shared, seat, view)]


# --- the views ------------------------------------------------------------------------

_STREAM_DESCRIPTION = (
    " Answers application/x-ndjson: one JSON object per line, a blank line as keep-alive "
    "every few seconds when nothing else was sent. A stream lasts at most an hour, then "
    'sends {"type": "end", "reason": "reconnect"}; it also ends with an "end" line when '
    "the token or session it was opened with stops working (revoked, logged out, bot "
    "disabled). Refusals (401, 403, 404, 429) come before the stream starts, in the "
    "API's error shape."
)


class EventStreamApi(StreamApi):
    @extend_schema(
        tags=["streams"],
        summary="Your events as they happen (NDJSON)",
        description='First {"type": "hello", "turns": [...], "invitations": [...]}: the '
        "tables where it is your turn and your pending invitations; then turn, game_start, "
        "game_over and invitation events (docs/bots-api.md). One open stream per token "
        '(or session): opening another ends the older with {"type": "end", "reason": '
        '"replaced"}.' + _STREAM_DESCRIPTION,
        responses={
            (200, CONTENT_TYPE): OpenApiResponse(description="The events, one per line."),
            **{code: ErrorSerializer for code in (401, 403, 429)},
        },
    )
    def get(self, request: Request) -> Any:  # noqa: ARG002 (the schema's: the URL's view streams)
        raise exceptions.MethodNotAllowed("GET")


class TableStreamApi(StreamApi):
    class FilterSerializer(serializers.Serializer[Any]):
        since = QueryIntegerField(
            required=False,
            min_value=0,
            max_value=INT_MAX,
            help_text="The last version you saw: the log's moves since it come first.",
        )

    @extend_schema(
        tags=["streams"],
        summary="The table as you may see it, change by change (NDJSON)",
        description='First {"type": "view", "version": seq, "view": {...}} (the body of GET '
        '.../view/, with your legal actions); with ?since=n before it {"type": "missed", '
        '"since": n, "version": seq, "events": [...]}, the log\'s moves after n as GET '
        '.../log/ gives them. Then after each change {"type": "change", "version": seq, '
        '"events": [...the log\'s new moves...], "view": {...}, "to_act": n, "deadline": '
        'iso}; when the game is over a final {"type": "game_over", ...} and {"type": '
        '"end", "reason": "game_over"}. A user without a seat gets the watcher view if the '
        "table allows watching, 403 otherwise." + _STREAM_DESCRIPTION,
        parameters=[FilterSerializer],
        responses={
            (200, CONTENT_TYPE): OpenApiResponse(description="The view, then each change."),
            **{code: ErrorSerializer for code in (400, 401, 403, 404, 429)},
        },
    )
    def get(self, request: Request, table_id: int) -> Any:  # noqa: ARG002 (the schema's)
        raise exceptions.MethodNotAllowed("GET")

    def admit(self, request: Request, **kwargs: Any) -> Admitted:
        since = parse_query(self.FilterSerializer, request.query_params).get("since")
        table_id = int(kwargs["table_id"])
        admitted = super().admit(request)
        table, seats = selectors.table_with_seats(table_id)
        selectors.viewer_seat(table, admitted.user, seats)
        admitted.table_id, admitted.since = table_id, since
        return admitted


stream_events = stream_view(EventStreamApi, EventStream)
table_stream = stream_view(TableStreamApi, TableStream)
