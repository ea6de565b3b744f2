"""Issue 35 §10: a deployment's channel-layer messages are its own, and sealed.

Redis's database number does not separate publish-and-subscribe channels: two
deployments on one Redis server heard each other's table changes, and each
change carries the table's row, its hidden ``state`` with it. Each
deployment's channels now carry a prefix of their own and every message is
sealed with a key derived from its secret key (``gamenook.settings.base.
channel_layers``). Needs Redis (``GAMENOOK_TEST_CHANNEL_LAYER_URL``).
"""

from __future__ import annotations

import asyncio
import json
import subprocess
import sys
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import msgpack  # type: ignore[import-untyped]
import pytest
import redis
from asgiref.sync import sync_to_async
from channels.db import database_sync_to_async
from channels.layers import get_channel_layer
from channels_redis.pubsub import RedisPubSubChannelLayer
from django.conf import settings
from django.db import connection
from rest_framework.test import APIClient

import flip
from gamenook.settings.base import channel_layers
from games import selectors
from games.models import Table
from live import receivers
from tests.factories import make_user, start_table
from tests.live.conftest import legal_action, run, socket, token_for, view_at, view_now

pytestmark = pytest.mark.django_db(transaction=True)

ROOT = Path(__file__).resolve().parents[2]

#: Moves played while the eavesdropper listens.
MOVES = 6


@pytest.fixture
def url() -> Iterator[str]:
    found: str = settings.CHANNEL_LAYER_URL
    if not found:
        pytest.skip("needs Redis's channel layer (GAMENOOK_TEST_CHANNEL_LAYER_URL)")
    # Channels closes the test's connection around each database call unless it is
    # kept (as tests/live/conftest.py does); a push is sent on commit either way.
    kept = connection.settings_dict["CONN_MAX_AGE"]
    connection.settings_dict["CONN_MAX_AGE"] = None
    yield found
    connection.settings_dict["CONN_MAX_AGE"] = kept
    connection.close()


class Eavesdropper(threading.Thread):
    """Anyone else on the Redis server: subscribed to every channel, keeping what passes."""

    def __init__(self, url: str) -> None:
        super().__init__(daemon=True)
        self.pubsub = redis.Redis.from_url(url).pubsub()  # type: ignore[no-untyped-call]
        self.pubsub.psubscribe("*")
        assert self.pubsub.get_message(timeout=5)["type"] == "psubscribe"
        self.heard: list[tuple[str, bytes]] = []
        self.stopping = threading.Event()

    def run(self) -> None:
        while not self.stopping.is_set():
            message = self.pubsub.get_message(timeout=0.1)
            if message is not None and message["type"] == "pmessage":
                self.heard.append((message["channel"].decode(), message["data"]))

    def stop(self) -> list[tuple[str, bytes]]:
        self.stopping.set()
        self.join(10)
        self.pubsub.close()
        return self.heard


def _secrets(table_id: int) -> list[bytes]:
    """What no one else may read of the table as it stands: its seed and each hand."""
    state = Table.objects.get(pk=table_id).state
    assert state is not None
    game = flip.GameState.from_dict(state)
    found = [game.seed.encode()]
    for hand in game.hands:
        # A hand as the layer's serializer writes it (msgpack), and as JSON would.
        found += [
            msgpack.packb(hand),
            json.dumps(hand).encode(),
            json.dumps(state["hands"]).encode(),
        ]
    return found


def _readable(data: bytes) -> Any:
    """The message as anyone without the key decodes it; None when it does not decode."""
    try:
        return msgpack.unpackb(data)
    except Exception:  # noqa: BLE001 (sealed bytes are not msgpack: any failure will do)
        return None


def test_no_seed_and_no_hand_crosses_redis_in_clear_during_a_game_with_sockets_open(
    url: str,
) -> None:
    alice, bob, carol = make_user("alice"), make_user("bob"), make_user("carol")
    table = start_table(alice, bob, allow_watchers=True)
    users = [alice, bob, carol]
    keys = [token_for(user) for user in users]
    secrets: list[bytes] = []
    eavesdropper = Eavesdropper(url)
    eavesdropper.start()

    async def scenario() -> None:
        comms = [socket(table.pk, token=key) for key in keys]
        for comm in comms:
            assert (await comm.connect(timeout=20))[0]
        views = [await view_now(comm, table.pk) for comm in comms]
        for _ in range(MOVES):
            secrets.extend(await database_sync_to_async(_secrets)(table.pk))
            game = views[0]["view"]["game"]
            if views[0]["view"]["status"] != "active":
                break
            seat = game["to_act"]
            client = APIClient()
            client.force_authenticate(users[seat])
            answer = await database_sync_to_async(client.post)(
                f"/api/v1/tables/{table.pk}/actions/",
                legal_action(views[seat]["view"]),
                format="json",
            )
            assert answer.status_code == 201, answer.content
            seq = answer.json()["seq"]
            views = [await view_at(comm, seq) for comm in comms]
        secrets.extend(await database_sync_to_async(_secrets)(table.pk))
        for comm in comms:
            await comm.disconnect()

    try:
        run(scenario)
    finally:
        heard = eavesdropper.stop()
    prefix = settings.CHANNEL_LAYERS["default"]["CONFIG"].get("prefix", "asgi")
    changes = [data for channel, data in heard if channel == f"{prefix}__group__table.{table.pk}"]
    # The game's changes did cross Redis (the rows with them): what follows is no vacuous pass.
    assert len(changes) >= MOVES, [channel for channel, _ in heard]
    for channel, data in heard:
        for secret in secrets:
            assert secret not in data, f"{channel} carried {secret!r} in clear"
        decoded = _readable(data)
        assert decoded is None, f"{channel} carried a message anyone decodes: {str(decoded)[:300]}"


def _deployment_layer(**env: str) -> RedisPubSubChannelLayer:
    """The layer another deployment's production settings build, with its ``env``."""
    code = "import json, gamenook.settings.production as s; print(json.dumps(s.CHANNEL_LAYERS))"
    done = subprocess.run(
        [sys.executable, "-c", code],
        cwd=ROOT,
        env={"PATH": "/usr/bin:/bin", "DJANGO_ALLOWED_HOSTS": "example.com", **env},
        capture_output=True,
        text=True,
        check=True,
    )
    config = json.loads(done.stdout)["default"]
    assert config["BACKEND"] == "channels_redis.pubsub.RedisPubSubChannelLayer"
    return RedisPubSubChannelLayer(**config["CONFIG"])


def test_another_deployment_on_the_same_redis_hears_nothing_of_this_one(url: str) -> None:
    table = start_table(make_user("alice"), make_user("bob"))
    rows = selectors.table_with_seats(table.pk)
    group = receivers.group_name(table.pk)
    ours = get_channel_layer()
    assert ours is not None
    # Another deployment: its own secret key and database, the same Redis server (another
    # database number, which Redis's publish and subscribe do not tell apart).
    theirs = _deployment_layer(
        DJANGO_SECRET_KEY="another deployment's key " + "x" * 30,
        DATABASE_URL="postgres://postgres@127.0.0.1:5432/another",
        CHANNEL_LAYER_URL=url.rsplit("/", 1)[0] + "/0",
    )
    # Even told this deployment's prefix, a layer without its key reads none of its messages.
    prying = _deployment_layer(
        DJANGO_SECRET_KEY="another deployment's key " + "x" * 30,
        CHANNEL_LAYER_URL=url,
        CHANNEL_LAYER_PREFIX=settings.CHANNEL_LAYERS["default"]["CONFIG"].get("prefix", "asgi"),
    )

    async def scenario() -> tuple[dict[str, Any], bool, bool]:
        our_channel = await ours.new_channel()
        await ours.group_add(group, our_channel)
        their_channel = await theirs.new_channel()
        await theirs.group_add(group, their_channel)
        prying_channel = await prying.new_channel()
        await prying.group_add(group, prying_channel)
        # The receiver's own path from a request's thread: one PUBLISH (DirectPublisher).
        await sync_to_async(receivers.on_table_changed)(
            None, table_id=table.pk, seq=table.seq, rows=rows
        )
        got = await asyncio.wait_for(ours.receive(our_channel), 10)
        try:
            await asyncio.wait_for(theirs.receive(their_channel), 2)
        except TimeoutError:
            they_heard = False
        else:
            they_heard = True
        try:
            await asyncio.wait_for(prying.receive(prying_channel), 2)
        except TimeoutError:
            pried = False  # heard nothing at all: as good
        except Exception:  # noqa: BLE001 (the message would not open without the key)
            pried = False
        else:
            pried = True
        for layer in (ours, theirs, prying):
            await layer.flush()
        return got, they_heard, pried

    got, they_heard, pried = run(scenario)
    assert got["type"] == "table.changed" and got["seq"] == table.seq  # we hear ourselves
    assert not they_heard, "another deployment heard this one's table change"
    assert not pried, "a layer without this deployment's key read its message"


def test_each_deployment_gets_its_own_prefix_and_key_without_being_told() -> None:
    def config(secret: str, database: str) -> dict[str, Any]:
        made = channel_layers("redis://127.0.0.1:6379/1", secret_key=secret, database=database)
        result: dict[str, Any] = made["default"]["CONFIG"]
        return result

    one = config("secret one", "gamenook")
    assert config("secret one", "gamenook") == one  # every process of a deployment agrees
    same_key_other_database = config("secret one", "gamenook_staging")
    other_key = config("secret two", "gamenook")
    assert same_key_other_database["prefix"] != one["prefix"]
    assert other_key["prefix"] != one["prefix"]
    assert other_key["symmetric_encryption_keys"] != one["symmetric_encryption_keys"]
    # Neither the secret key nor the database's name shows in what Redis sees.
    assert "secret one" not in one["prefix"] and "gamenook" not in one["prefix"][9:]
    # A prefix set by hand wins (CHANNEL_LAYER_PREFIX).
    named = channel_layers("redis://x:6379/1", secret_key="s", database="d", prefix="shop.")
    assert named["default"]["CONFIG"]["prefix"] == "shop."
    # What the production settings build: sealed, with the derived prefix.
    assert (
        settings.CHANNEL_LAYERS["default"]["BACKEND"].endswith("InMemoryChannelLayer")
        or (settings.CHANNEL_LAYERS["default"]["CONFIG"]["symmetric_encryption_keys"])
    )
