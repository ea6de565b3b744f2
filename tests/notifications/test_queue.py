"""A job pushed straight onto Redis is the message Celery's send_task writes, and kombu reads it.

Against a real Redis (the database number of ``GAMENOOK_TEST_REDIS_DB``,
emptied after each test); skipped without one. A real worker running pushed
jobs is ``tests/notifications/test_e2e.py`` (the worker queues the bots'
turns this way).
"""

from __future__ import annotations

import base64
import json
import os
from collections.abc import Iterator
from typing import Any

import pytest
from celery import Celery

from notifications import jobs
from notifications.queue import pusher

REDIS_DB = int(os.environ.get("GAMENOOK_TEST_REDIS_DB", "13"))
URL = f"redis://127.0.0.1:6379/{REDIS_DB}"

#: What differs from one message to the next: ids, the publishing process and thread.
_VARYING = {
    "headers": ("id", "root_id", "origin"),
    "properties": ("correlation_id", "reply_to", "delivery_tag"),
}


def _app(url: str = URL) -> Celery:
    # Configured as the project's app is (queues, routes, serializer), on this broker.
    app = Celery(f"test-queue-{url}")
    app.config_from_object("django.conf:settings", namespace="CELERY")
    app.conf.broker_url = url
    return app


@pytest.fixture
def redis_client() -> Iterator[Any]:
    import redis

    client = redis.Redis.from_url(URL, socket_connect_timeout=2)
    try:
        client.ping()
    except redis.RedisError as exc:
        pytest.skip(f"no Redis at {URL}: {exc}")
    client.flushdb()
    yield client
    client.flushdb()
    client.close()


def _comparable(raw: bytes) -> dict[str, Any]:
    message: dict[str, Any] = json.loads(raw)
    for part, keys in _VARYING.items():
        for key in keys:
            assert message[part][key], (part, key)
            message[part][key] = "<varies>"
    message["body"] = json.loads(base64.b64decode(message["body"]))
    return message


@pytest.mark.parametrize(
    ("name", "args", "queue"),
    [
        (jobs.FOLLOWUPS, (12, 34, 1, 0), "gamenook"),
        (jobs.TIMEOUTS, (5, 6, 7, 8), "gamenook-deadlines"),
        (jobs.SEND, (99,), "gamenook"),
    ],
)
def test_a_pushed_job_is_the_message_send_task_writes(
    redis_client: Any, name: str, args: tuple[int, ...], queue: str
) -> None:
    app = _app()
    fast = pusher(app)
    assert fast is not None

    app.send_task(name, args=args)
    fast.push(name, args)

    assert redis_client.llen(queue) == 2
    by_celery, by_us = (_comparable(raw) for raw in redis_client.lrange(queue, 0, -1)[::-1])
    assert by_us == by_celery
    assert by_us["body"][0] == list(args)
    assert by_us["headers"]["task"] == name


def test_kombu_reads_a_pushed_job_as_a_task_message(redis_client: Any) -> None:
    app = _app()
    fast = pusher(app)
    assert fast is not None

    fast.push(jobs.BOT_TURN, (3, 17))

    with app.connection_for_read() as connection:
        queue = connection.SimpleQueue("gamenook")
        message = queue.get(timeout=5)
        message.ack()
        queue.close()
    assert message.headers["task"] == jobs.BOT_TURN
    assert message.content_type == "application/json"
    assert message.decode()[:2] == [[3, 17], {}]
    assert message.delivery_info["routing_key"] == "gamenook"


@pytest.mark.parametrize(
    "url",
    ["memory://", "filesystem://localhost/", "rediss://127.0.0.1:6379/0", "redis://a;redis://b"],
)
def test_other_brokers_are_left_to_send_task(url: str) -> None:
    assert pusher(_app(url)) is None


def test_a_key_prefix_or_another_serializer_is_left_to_send_task() -> None:
    prefixed = _app()
    prefixed.conf.broker_transport_options = {"global_keyprefix": "x:"}
    pickled = _app()
    pickled.conf.task_serializer = "pickle"

    assert pusher(prefixed) is None
    assert pusher(pickled) is None
