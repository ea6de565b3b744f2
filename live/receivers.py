"""Listens to ``games.signals.table_changed``: tells the table's sockets that it changed.

The message names the table's seq and, after a player's action, carries the
table and its seats as committed (``games.selectors.pack_rows``), so the
processes holding the sockets need not read them. It never carries a view: the
sockets that receive it build their views in their own process, each deciding
for its own user which seat's view that is
(``live.consumers.TableConsumer.table_changed``, ``live.fanout``), so one
seat's view cannot reach another's socket.

It also tells users what happened to them, for their event streams
(``live.streams``, issue 40): on ``table_changed`` a ``turn`` event to the
user whose turn began, ``game_start`` and ``game_over`` to every seated user;
on ``games.signals.invitation_made`` an ``invitation`` to the invitee. The
bodies are ``games.events``'; each goes to the group ``events.{id}`` as a
``stream.event`` message (the event streams join it and ``user.{id}``, for
the credentials; the sockets only ``user.{id}``). A change costs at most one read (none when it
carries its rows), and a finished game the ranking's.

It also listens to ``accounts.signals.credentials_changed`` and Django's
``user_logged_out``: it tells the user's sockets which token or session
stopped working, or to check theirs again (``TableConsumer.credentials_changed``).
"""

from __future__ import annotations

import asyncio
import logging
import os
import threading
from collections.abc import Coroutine
from typing import Any

from asgiref.sync import async_to_sync
from channels.layers import InMemoryChannelLayer, get_channel_layer
from channels_redis.pubsub import RedisPubSubChannelLayer
from django.contrib.auth.signals import user_logged_out
from django.dispatch import receiver

from accounts.signals import credentials_changed
from games import events, selectors
from games.selectors import pack_rows
from games.signals import invitation_made, table_changed

from .auth import session_tag

logger = logging.getLogger(__name__)


def group_name(table_id: int) -> str:
    """The channel-layer group of the sockets open at ``table_id``."""
    return f"table.{table_id}"


def user_group(user_id: int) -> str:
    """The channel-layer group of every socket ``user_id`` holds, at any table."""
    return f"user.{user_id}"


def events_group(user_id: int) -> str:
    """The channel-layer group of ``user_id``'s event streams (``live.streams``): apart
    from ``user_group``, whose sockets take no events (and need not be woken by them)."""
    return f"events.{user_id}"


@receiver(table_changed, dispatch_uid="live.push")
def on_table_changed(
    sender: Any,  # noqa: ARG001 (a receiver is called with its sender)
    *,
    table_id: int,
    seq: int,
    watched: bool = True,
    rows: tuple[Any, list[Any]] | None = None,
    answered: tuple[int, str] | None = None,
    **kwargs: Any,
) -> None:
    if not watched:
        return  # no socket was open on the table when it changed (games.signals)
    # Sent on commit: the change is there for whoever reads the table now. A failure
    # here must not fail the request or the job that made it; the sockets' recheck
    # (live.ticker) finds the change later.
    layer = get_channel_layer()
    if layer is None:
        return
    message: dict[str, Any] = {"type": "table.changed", "seq": seq}
    if rows is not None:
        # The table as committed, so the sockets' processes need not read it (live.fanout).
        message["rows"] = pack_rows(*rows)
    if answered is not None:
        # The socket the acting user's answer reaches: it is not sent this view
        # (live.consumers.TableConsumer._answered).
        message["answered"] = list(answered)
    try:
        group_send(layer, group_name(table_id), message)
    except Exception:
        logger.exception("the push of table %s at seq %s failed", table_id, seq)


@receiver(table_changed, dispatch_uid="live.user_events")
def on_table_changed_tell_users(
    sender: Any,  # noqa: ARG001
    *,
    table_id: int,
    seq: int,
    new_turn: bool = False,
    finished: bool = False,
    rows: tuple[Any, list[Any]] | None = None,
    **kwargs: Any,
) -> None:
    """The events of a change for the users it concerns (their event streams): sent
    whether or not a socket is open at the table (``watched`` is about sockets)."""
    started = seq == 1  # the start is the table's first change (games.services.table_start)
    if not (new_turn or finished or started):
        return
    layer = get_channel_layer()
    if layer is None:
        return
    try:
        for user_id, event in user_events(table_id, started=started, finished=finished, rows=rows):
            group_send(layer, events_group(user_id), {"type": "stream.event", "event": event})
    except Exception:  # as for a push: the change is made, the streams' clients read it later
        logger.exception("telling the users of table %s at seq %s failed", table_id, seq)


def user_events(
    table_id: int, *, started: bool, finished: bool, rows: tuple[Any, list[Any]] | None
) -> list[tuple[int, dict[str, Any]]]:
    """(user id, event) for each user a change at ``table_id`` concerns, from ``rows`` (the
    table and its seats as committed) or one read of them."""
    table, seats = rows if rows is not None else selectors.table_with_seats(table_id)
    users = [(seat, int(seat.user_id)) for seat in seats if seat.user_id is not None]
    seated = [(seat, user_id) for seat, user_id in users if seat.left_at is None]
    out: list[tuple[int, dict[str, Any]]] = []
    if started:
        out += [
            (
                user_id,
                events.game_start_event(table_id=table_id, game=table.game, seat=seat.number),
            )
            for seat, user_id in seated
        ]
    if finished:
        ranking, _rounds = selectors.final_ranking(table_id)
        out += [
            (
                user_id,
                events.game_over_event(
                    table_id=table_id, game=table.game, seat=seat.number, ranking=ranking
                ),
            )
            for seat, user_id in users
        ]
    elif table.to_act is not None:
        acting = next((pair for pair in seated if pair[0].number == table.to_act), None)
        if acting is not None:
            seat, user_id = acting
            turn = events.turn_event(
                table_id=table_id,
                game=table.game,
                seq=table.seq,
                turn=table.turn,
                seat=seat.number,
                deadline=table.deadline_at,
            )
            out.append((user_id, turn))
    return out


@receiver(invitation_made, dispatch_uid="live.invitation")
def on_invitation_made(
    sender: Any,  # noqa: ARG001
    *,
    invitation_id: int,
    user_id: int,
    **kwargs: Any,
) -> None:
    """An ``invitation`` event for the invitee's event streams (one read)."""
    layer = get_channel_layer()
    if layer is None:
        return
    try:
        found = next(
            (one for one in selectors.invitations_pending(user_id) if one.id == invitation_id),
            None,
        )
        if found is None:
            return  # declined or lapsed already
        event = events.invitation_event(
            invitation_id=found.id,
            table_id=found.table_id,
            game=found.game,
            host=found.host,
            seats=found.seat_count,
        )
        group_send(layer, events_group(user_id), {"type": "stream.event", "event": event})
    except Exception:
        logger.exception("telling user %s of invitation %s failed", user_id, invitation_id)


@receiver(credentials_changed, dispatch_uid="live.credentials")
def on_credentials_changed(
    sender: Any,  # noqa: ARG001
    *,
    user_id: int,
    revoked_tokens: list[int] | tuple[int, ...] = (),
    ended_session: str | None = None,
    recheck: bool = False,
    **kwargs: Any,
) -> None:
    """Tell ``user_id``'s sockets which of their credentials stopped working (sent on
    commit: a socket that checks its own then sees the change)."""
    _tell_user(user_id, revoked_tokens, ended_session, recheck=recheck)


@receiver(user_logged_out, dispatch_uid="live.logged_out")
def on_logged_out(
    sender: Any,  # noqa: ARG001
    *,
    request: Any = None,
    user: Any = None,
    **kwargs: Any,
) -> None:
    """A session logged out (the web's log-out, the API's with a session): its sockets
    end. Sent before the session is flushed, so its key is still there."""
    session = getattr(request, "session", None)
    key = getattr(session, "session_key", None)
    if user is None or user.pk is None or not key:
        return  # nobody was logged in, or no session to name (Channels' own logout)
    _tell_user(user.pk, (), key, recheck=False)


def _tell_user(user_id: int, tokens: Any, session: str | None, *, recheck: bool) -> None:
    layer = get_channel_layer()
    if layer is None:
        return
    message = {
        "type": "credentials.changed",
        "tokens": [int(token) for token in tokens],
        # A digest, not the key: a message on Redis never carries a credential.
        "session": None if session is None else session_tag(session),
        "recheck": recheck,
    }
    # As for a push, a failure must not fail the request that changed the credentials:
    # each socket checks its credential before it acts, and the ticker every heartbeat.
    try:
        group_send(layer, user_group(user_id), message)
    except Exception:
        logger.exception("telling the sockets of user %s their credentials changed failed", user_id)


def group_send(layer: Any, group: str, message: dict[str, Any]) -> None:
    """``layer.group_send`` from sync code (a request, a job), the cheapest way there is."""
    if isinstance(layer, InMemoryChannelLayer):
        # Its consumers live on this process's event loop (make run's daphne).
        async_to_sync(layer.group_send)(group, message)
    elif (direct := publish_direct(layer)) is not None:
        direct.group_send(group, message)
    else:
        publisher.send(layer.group_send(group, message))


class Publisher:
    """One event loop per process, in a thread of its own, for publishing from sync code.

    ``async_to_sync`` called from a web request or a Celery job (no event loop
    there) makes a new loop per call, and Redis's layer a new connection for it:
    that cost a move about 10 ms (docs/performance.md). This loop lives as long
    as the process (a forked child makes its own), and so does its connection.
    """

    TIMEOUT = 5.0

    def __init__(self) -> None:
        self.loop: asyncio.AbstractEventLoop | None = None
        self.pid = 0
        self.lock = threading.Lock()

    def _running_loop(self) -> asyncio.AbstractEventLoop:
        with self.lock:
            if self.loop is None or self.pid != os.getpid():
                loop = asyncio.new_event_loop()
                thread = threading.Thread(target=loop.run_forever, name="live-publish", daemon=True)
                thread.start()
                self.loop, self.pid = loop, os.getpid()
            return self.loop

    def send(self, coroutine: Coroutine[Any, Any, None]) -> None:
        """Run ``coroutine`` on the publishing loop and wait for it (at most ``TIMEOUT``)."""
        asyncio.run_coroutine_threadsafe(coroutine, self._running_loop()).result(self.TIMEOUT)


publisher = Publisher()


class DirectPublisher:
    """``group_send`` of Redis's publish-and-subscribe layer, from sync code, as one PUBLISH.

    The layer's own ``group_send`` is a coroutine: from a web request it runs
    on the ``Publisher`` loop above, a hop to another thread and back. On the
    publish-and-subscribe layer a group's message is one ``PUBLISH`` of the
    layer's serialized message to the group's Redis channel, which redis-py
    sends from this thread as well (``tests/live/test_receivers.py`` checks
    that a subscribed consumer gets it).
    """

    def __init__(self, layer: RedisPubSubChannelLayer, address: str, prefix: str) -> None:
        import redis

        self.layer = layer
        self.prefix = prefix
        self.client = redis.Redis.from_url(
            address, socket_timeout=Publisher.TIMEOUT, socket_connect_timeout=Publisher.TIMEOUT
        )

    def group_send(self, group: str, message: dict[str, Any]) -> None:
        # RedisPubSubLoopLayer._get_group_channel_name's name for the group.
        self.client.publish(f"{self.prefix}__group__{group}", self.layer.serialize(message))


_direct_lock = threading.Lock()


def publish_direct(layer: Any) -> DirectPublisher | None:
    """This process's ``DirectPublisher`` for ``layer``, kept on it; None unless it is
    the publish-and-subscribe layer on one Redis server named by a URL."""
    # From the instance's own dict: the layer hands any attribute it lacks to its
    # loop's layer, which needs a running loop.
    kept: tuple[int, DirectPublisher | None] | None = vars(layer).get("gamenook_direct")
    if kept is None or kept[0] != os.getpid():  # a forked child makes its own
        with _direct_lock:
            found = None
            if isinstance(layer, RedisPubSubChannelLayer):
                kwargs = layer._kwargs  # noqa: SLF001 (the layer's CONFIG: its hosts, its prefix)
                hosts = kwargs.get("hosts") or []
                host = hosts[0] if len(hosts) == 1 else None
                address = host.get("address") if isinstance(host, dict) else host
                if isinstance(address, str) and not layer._args:  # noqa: SLF001
                    found = DirectPublisher(layer, address, kwargs.get("prefix", "asgi"))
            kept = (os.getpid(), found)
            layer.gamenook_direct = kept
    return kept[1]
