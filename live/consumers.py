"""One consumer per socket at ``/ws/tables/<id>/``: the table as this user may see it, live.

The protocol (docs/api.md, "WebSockets"):

- On connect the socket is admitted as the REST API's ``GET /tables/{id}/view/``
  admits a request (``games.selectors.viewer_seat``; the web client's
  ``web_viewer_seat`` for a session, so a moderator may watch), and while its
  user holds fewer than ``GAMENOOK_LIVE_MAX_SOCKETS_PER_TABLE`` at the table, or
  refused with an ``error`` frame and the close code ``4000 + status`` (4401,
  4403, 4404, 4429).
- A socket lives as long as the token or session it was opened with
  (``live.auth.Credential``): told that it was revoked or logged out, or that
  the user's credentials changed and it no longer authenticates (a password
  changed, the user deactivated), the socket sends an ``error`` frame and
  closes with 4401; it checks it again before every action and concession.
- An admitted socket's first frame is ``{"type": "hello", "socket": id}``: a
  client that sends an action over HTTP names the socket in the header
  ``X-Gamenook-Socket`` when the answer reaches it, and that socket is then not
  sent the view of that change, which the answer carried (``answered`` below).
  Only the acting user's own socket is ever skipped so.
- ``{"type": "view", "etag": ..., "view": {...}}`` at once and after every
  committed change: ``view`` is the body of ``GET /tables/{id}/view/`` for this
  user, built by the same function (``games.apis.tables.view_answer``). The
  change reaches the socket as "table N changed" through the channel layer,
  after a player's action with the table's rows; the sockets of one process at
  the table share one read (or unpacking) of it and one view per seat
  (``live.fanout``), each socket deciding afresh from it which seat's view its
  user may have.
- ``{"type": "action", "action": {...}, "expected_seq": n}`` and
  ``{"type": "concede"}`` go through the same service functions, input
  serializer and rate limit as the REST API; the answer is a ``moved`` frame
  (the move's events as this seat may see them) and the new view.
- Whatever a frame gets wrong is answered with ``{"type": "error", "status": n,
  "error": {...}}`` in the API's one error shape, and the socket stays open.
"""

from __future__ import annotations

import asyncio
import logging
import secrets
from types import SimpleNamespace
from typing import Any, cast

from channels.db import database_sync_to_async
from channels.generic.websocket import AsyncWebsocketConsumer
from django.contrib.auth.models import User
from django.core.exceptions import SynchronousOnlyOperation
from rest_framework import exceptions, serializers
from rest_framework.request import Request

from games import selectors, services
from games.apis.common import ActionThrottle, InvalidBody, parse_input
from games.apis.errors import error_body, exception_handler
from games.apis.fields import StrictChoiceField, StrictIntegerField
from games.apis.parsers import RequestTooLarge, parse_json_bytes
from games.apis.tables import TableActionApi, move_answer
from games.errors import ServiceError
from games.services import MoveResult

from . import conf
from .auth import Credential, CredentialsEnded, still_works
from .fanout import Shared, View, reads, render
from .receivers import group_name, user_group
from .ticker import Version, ticker

logger = logging.getLogger(__name__)

#: What a socket answers in the API's error shape (anything else is a server error).
REFUSALS = (ServiceError, selectors.RuleError, exceptions.APIException)

#: An answer to a move: the actions endpoint's body, its ETag, the table's version.
Answer = tuple[dict[str, Any], str, Version]


class UnknownMessage(ServiceError):
    status = 400
    code = "unknown_message"
    message = 'A frame\'s "type" is "action", "concede" or "ping".'

    def __init__(self) -> None:
        super().__init__(fields={"type": ["Not a message this socket takes."]})


class TooManySockets(ServiceError):
    status = 429
    code = "too_many_sockets"
    message = "You have as many sockets open at this table as one user may: close one first."


class ActionFrame(serializers.Serializer[Any]):
    type = StrictChoiceField(choices=["action"])
    # Checked field by field by the actions endpoint's own serializer.
    action = serializers.DictField()
    expected_seq = StrictIntegerField(required=False, allow_null=True, min_value=0)


class BareFrame(serializers.Serializer[Any]):
    """``concede`` and ``ping`` carry nothing but their type."""

    type = StrictChoiceField(choices=["concede", "ping"])


def refusal(exc: Exception) -> tuple[int, dict[str, Any]]:
    """The HTTP status and the API's error body for ``exc`` (a server error if unknown)."""
    response = exception_handler(exc, {})
    if response is None:
        return 500, error_body("server_error", "Something went wrong on our side.")
    return response.status_code, dict(response.data)


class TableConsumer(AsyncWebsocketConsumer):
    table_id: int
    socket_id: str  # in the hello frame; names this socket in X-Gamenook-Socket
    user: User | None
    lock: asyncio.Lock
    last_text: str
    last_seq: int
    admitted: bool
    closing: bool
    credential: Credential | None  # what the user proved themselves with (live.auth)
    groups: list[str]  # the channel-layer groups joined

    async def connect(self) -> None:
        self.table_id = int(self.scope["url_route"]["kwargs"]["table_id"])
        self.socket_id = secrets.token_urlsafe(16)
        self.lock = asyncio.Lock()
        self.last_text, self.last_seq = "", -1
        self.admitted = self.closing = False
        self.credential, self.groups = None, []
        user = self.scope.get("user")
        self.user = user if isinstance(user, User) and user.is_authenticated else None
        try:
            if "auth_error" in self.scope:
                raise cast(dict[str, Any], self.scope)["auth_error"]
            if self.user is None:
                raise exceptions.NotAuthenticated()
            # Joined before the credential is checked again in _admit: a revocation
            # committed since the handshake's check is seen there, one after it is
            # told to this group.
            await self._join(user_group(self.user.pk))
            await database_sync_to_async(self._admit)()
            # Joined before the first view is built: no change can fall between the two.
            await self._join(group_name(self.table_id))
            # Counted as connected before the client learns the socket is open.
            if not await database_sync_to_async(services.presence_open)(
                table_id=self.table_id,
                user=self.user,
                channel=self.channel_name,
                max_sockets=conf.max_sockets_per_table(),
            ):
                raise TooManySockets()
        except REFUSALS as exc:
            await self._leave()
            # Accepted all the same: a refusal is a frame the client can read, then the close.
            await self.accept()
            await self._refuse(exc)
            return
        self.admitted = True
        ticker.add(self.channel_name, self.table_id, self.credential)
        await self.accept()
        await self._send_json({"type": "hello", "socket": self.socket_id})
        await self.push_view()

    async def disconnect(self, code: int) -> None:  # noqa: ARG002 (Channels' signature)
        if not self.admitted:
            return
        self.admitted = False
        ticker.remove(self.channel_name)
        if not ticker.at_table(self.table_id):
            reads.forget(self.table_id)
        await self._leave()
        await database_sync_to_async(services.presence_close)(channel=self.channel_name)

    async def _join(self, group: str) -> None:
        await self.channel_layer.group_add(group, self.channel_name)
        self.groups.append(group)

    async def _leave(self) -> None:
        for group in self.groups:
            await self.channel_layer.group_discard(group, self.channel_name)
        self.groups = []

    # --- frames from the client ------------------------------------------------

    async def receive(self, text_data: str | None = None, bytes_data: bytes | None = None) -> None:
        if not self.admitted or self.closing:
            return  # refused: the close is on its way
        raw = text_data.encode("utf-8", "surrogatepass") if text_data is not None else bytes_data
        try:
            if raw is None or len(raw) > conf.max_frame_bytes():
                raise RequestTooLarge("The frame is larger than the server accepts.")
            await self._handle(parse_json_bytes(raw))
        except CredentialsEnded as exc:  # found before acting: nothing was applied
            await self._refuse(exc)
        except REFUSALS as exc:
            await self._send_error(exc)
        except Exception as exc:  # a bug of ours: answered, logged, and the socket stays
            logger.exception("a frame at table %s failed", self.table_id)
            await self._send_error(exc)

    async def _handle(self, message: Any) -> None:
        if not isinstance(message, dict):
            raise InvalidBody("A frame must be a JSON object.")
        kind = message.get("type")
        if kind == "action":
            frame = parse_input(ActionFrame, message)
            await self._answer(await database_sync_to_async(self._act)(frame))
        elif kind == "concede":
            parse_input(BareFrame, message)
            await self._answer(await database_sync_to_async(self._concede)())
        elif kind == "ping":
            parse_input(BareFrame, message)
            await self._send_json({"type": "pong"})
        else:
            raise UnknownMessage()

    async def dispatch(self, message: dict[str, Any]) -> None:
        """Channels' dispatch, without its hop to the database thread for a push.

        Channels closes the database thread's old connections before every
        message, a round trip to that thread. This consumer touches the database
        only through ``database_sync_to_async``, which does the same in the
        thread itself, and a push built from the change's rows touches it not
        at all: for ``table.changed`` the hop was 13 % of daphne's CPU under
        ``bench_api.py --views socket`` (docs/performance.md, "API load").
        """
        if message.get("type") == "table.changed":
            await self.table_changed(message)
        else:
            await super().dispatch(message)

    # --- pushes from the channel layer -----------------------------------------

    async def credentials_changed(self, event: dict[str, Any]) -> None:
        """Our user's credentials changed (``live.receivers``; ``live.ticker``, which
        found ours failing): close this socket if its own stopped working."""
        if not self.admitted or self.closing or self.credential is None:
            return
        ended = self.credential.ended_by(event)
        if not ended and event.get("recheck"):
            ended = not await database_sync_to_async(still_works)(self.credential)
        if ended:
            await self._refuse(CredentialsEnded())

    async def table_changed(self, event: dict[str, Any]) -> None:
        """The table changed (``live.receivers``, ``live.ticker``): send our view of it now."""
        if not self.admitted:
            return
        told_at = asyncio.get_running_loop().time()
        if self.closing or event.get("seq", 0) < self.last_seq:
            reads.skip(self.table_id)  # closing, or it has sent a newer view already
            return
        rows = event.get("rows")
        # The change brought the table as it committed it: no read (live.fanout).
        shared = None if rows is None else reads.from_rows(self.table_id, rows)
        if self._answered(event, shared):
            reads.skip(self.table_id)
            return
        if shared is not None:
            await self.push_view(shared=shared)
            return
        # A push goes to every socket at the table, the ticker's recheck to some.
        sockets = 1 if event.get("recheck") else ticker.at_table(self.table_id)
        await self.push_view(told_at=told_at, sockets=sockets)

    def _answered(self, event: dict[str, Any], shared: Shared | None) -> bool:
        """Whether the change is our user's action whose answer reached this very socket
        (over HTTP with ``X-Gamenook-Socket``, or this socket's own ``action`` frame):
        the client holds that view already. The socket then counts it as sent, at the
        version of ``shared``, the table the change brought."""
        answered = event.get("answered")
        if not answered or self.user is None or list(answered) != [self.user.pk, self.socket_id]:
            return False
        self.last_seq = max(self.last_seq, event["seq"])
        if shared is not None:
            ticker.shown(self.channel_name, shared.version)
        return True

    async def push_view(
        self, *, told_at: float | None = None, sockets: int = 1, shared: Shared | None = None
    ) -> None:
        """Send this user's view as the table is after ``told_at`` (now, if None), unless
        it is the one last sent; ``sockets``: how many of the process's sockets at the
        table were told with this one (``live.fanout``). ``shared``: the table as a
        change's message brought it, instead of a read."""
        if told_at is None:
            told_at = asyncio.get_running_loop().time()
        async with self.lock:
            try:
                if shared is None:
                    shared = await reads.shared(self.table_id, told_at=told_at, sockets=sockets)
                view = await self._view_of(shared)
            except REFUSALS as exc:  # no longer allowed to see the table, or it is gone
                await self._refuse(exc)
                return
            await self._send_view(view.body, view.etag, shared.version, view.text)

    # --- sync work, in Channels' database thread ------------------------------

    def _seat(self, table: Any, seats: list[Any] | None = None) -> int | None:
        assert self.user is not None  # noqa: S101 (admitted sockets have a user)
        if self.scope.get("auth") == "session":
            return selectors.web_viewer_seat(table, self.user, seats)
        return selectors.viewer_seat(table, self.user, seats)

    def _admit(self) -> None:
        assert self.user is not None  # noqa: S101 (checked before)
        self.credential = Credential.of(cast(dict[str, Any], self.scope), self.user)
        self._check_credential()
        self._seat(selectors.table_get(self.table_id))

    def _check_credential(self) -> None:
        """Raise ``CredentialsEnded`` unless the socket's token or session still works."""
        if self.credential is None or not still_works(self.credential):
            raise CredentialsEnded()

    def _view(self, shared: Shared) -> View:
        """Our view from the process's shared read: the seat decided afresh for our user."""
        return shared.view(self._seat(shared.table, shared.seats))

    async def _view_of(self, shared: Shared) -> View:
        """``_view``, here on the event loop when it needs no database, else in Channels'
        database thread.

        A turn-by-turn table's views and the seat a user gets are built from the
        read alone; a real-time table's seats show presence, a query. Anything
        else that would touch the database (a moderator's permissions not yet
        cached on the user) is refused by Django on the loop before it does, and
        goes to the thread: a hop there and back per push saved
        (docs/performance.md, "API load", 2026-12-03).
        """
        if not shared.table.realtime:
            try:
                return self._view(shared)
            except SynchronousOnlyOperation:
                pass
        return await database_sync_to_async(self._view)(shared)

    def _throttle(self) -> None:
        # The REST API's budget for writes at tables, shared with it: a user's
        # actions count the same whichever way they come.
        throttle = ActionThrottle()
        caller = cast(Request, SimpleNamespace(user=self.user, META={}))
        if not throttle.allow_request(caller, None):  # type: ignore[arg-type]
            raise exceptions.Throttled(throttle.wait())

    def _act(self, frame: dict[str, Any]) -> Answer:
        assert self.user is not None  # noqa: S101
        self._check_credential()
        self._throttle()
        data = parse_input(TableActionApi.InputSerializer, frame["action"])
        expected_seq = data.pop("expected_seq", None)
        if "expected_seq" in frame:
            expected_seq = frame["expected_seq"]
        result = services.table_apply_action(
            table_id=self.table_id,
            user=self.user,
            data=data,
            expected_seq=expected_seq,
            socket=self.socket_id,  # the answer comes back here: no push of it too
        )
        return self._moved(result)

    def _concede(self) -> Answer:
        assert self.user is not None  # noqa: S101
        self._check_credential()
        self._throttle()
        return self._moved(services.table_concede(table_id=self.table_id, user=self.user))

    def _moved(self, result: MoveResult) -> Answer:
        assert self.user is not None  # noqa: S101
        body, etag = move_answer(self.table_id, result, self.user)
        # The table row the answer was built from stays inside move_answer (bots may
        # have moved after the move): a version no table has makes the next recheck
        # rebuild the view once, which sends nothing if it is this one.
        view = body["view"]
        return body, etag, (view["seq"], view["status"], -1, len(view["seats"]))

    # --- frames to the client --------------------------------------------------

    async def _answer(self, answer: Answer) -> None:
        body, etag, version = answer
        async with self.lock:
            await self._send_json({"type": "moved", "seq": body["seq"], "events": body["events"]})
            await self._send_view(body["view"], etag, version)

    async def _send_view(
        self, body: dict[str, Any], etag: str, version: Version, text: str | None = None
    ) -> None:
        """Send a view (the lock is held); never one older than the last sent, nor it again."""
        if body["seq"] < self.last_seq:
            return
        ticker.shown(self.channel_name, version)
        if text is None:
            text = render({"type": "view", "etag": etag, "view": body})
        if text == self.last_text:
            return
        self.last_text, self.last_seq = text, body["seq"]
        await self.send(text_data=text)

    async def _send_error(self, exc: Exception) -> None:
        status, error = refusal(exc)
        await self._send_json({"type": "error", "status": status, "error": error})

    async def _refuse(self, exc: Exception) -> None:
        if self.closing:
            return
        self.closing = True
        status, error = refusal(exc)
        await self._send_json({"type": "error", "status": status, "error": error})
        await self.close(code=4000 + status)

    async def _send_json(self, frame: dict[str, Any]) -> None:
        await self.send(text_data=render(frame))
