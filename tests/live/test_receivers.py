"""How a change reaches the sockets' processes: its rows, one PUBLISH (``live.receivers``)."""

from __future__ import annotations

import time

import msgpack
import pytest
import redis
from channels.layers import get_channel_layer
from django.conf import settings

from games import selectors
from games.apis.tables import view_answer
from games.selectors import ROWS_FORMAT, pack_rows, unpack_rows
from live import receivers
from live.fanout import Shared
from tests.factories import make_user, start_table


def test_a_change_s_rows_unpack_to_the_table_and_seats_that_were_packed() -> None:
    table = start_table(make_user("alice"), make_user("bob"), allow_watchers=True)
    table, seats = selectors.table_with_seats(table.pk)
    # Through the layer's own serializer (msgpack), as the message travels.
    packed = msgpack.unpackb(msgpack.packb(pack_rows(table, seats)))
    got, got_seats = unpack_rows(packed)
    assert got is not None
    for field in type(table)._meta.concrete_fields:
        assert getattr(got, field.attname) == getattr(table, field.attname), field.attname
    assert [(s.pk, s.number, s.user_id, s.user.username) for s in got_seats] == [
        (s.pk, s.number, s.user_id, s.user.username) for s in seats
    ]
    # Never a password hash or an e-mail address: a user travels as id and name.
    assert packed["users"] == [[s.user_id, s.user.username] for s in seats]
    # The views built from the rows are the view endpoint's, seat by seat.
    shared = Shared.unpack(packed)
    assert shared is not None
    for seat in (0, 1, None):
        assert shared.view(seat)[:2] == view_answer(table, seat, seats)


def test_rows_packed_by_another_version_of_the_code_are_not_used() -> None:
    table = start_table(make_user("alice"), make_user("bob"))
    packed = pack_rows(*selectors.table_with_seats(table.pk))
    packed["format"] = ROWS_FORMAT + 1
    assert unpack_rows(packed) == (None, [])
    assert Shared.unpack(packed) is None


def test_a_change_is_published_from_sync_code_as_one_message_to_the_table_s_group() -> None:
    """From a web request's thread (no event loop): the pub/sub layer's message on the
    group's Redis channel, the rows with it."""
    url = settings.CHANNEL_LAYER_URL
    if not url:
        pytest.skip("needs Redis (GAMENOOK_TEST_CHANNEL_LAYER_URL)")
    layer = get_channel_layer()
    assert layer is not None
    direct = receivers.publish_direct(layer)
    assert direct is not None
    table = start_table(make_user("alice"), make_user("bob"))
    listener = redis.Redis.from_url(url).pubsub()
    prefix = settings.CHANNEL_LAYERS["default"]["CONFIG"]["prefix"]
    listener.subscribe(f"{prefix}__group__{receivers.group_name(table.pk)}")
    assert listener.get_message(timeout=5)["type"] == "subscribe"
    rows = selectors.table_with_seats(table.pk)
    receivers.on_table_changed(None, table_id=table.pk, seq=table.seq, rows=rows)
    deadline = time.monotonic() + 5
    message = None
    while message is None and time.monotonic() < deadline:
        message = listener.get_message(timeout=1)
    listener.close()
    assert message is not None
    got = layer.deserialize(message["data"])
    assert got["type"] == "table.changed" and got["seq"] == table.seq
    assert got["rows"] == msgpack.unpackb(msgpack.packb(pack_rows(*rows)))
