"""A job straight onto the Redis list a Celery worker reads: one LPUSH, Celery's own message.

``current_app.send_task`` spends about half a millisecond of CPU in the web
process per job (routing, the producer pool, kombu's envelope, a new Redis
client object each time) around one LPUSH of about 0.04 ms. For the common
case, a job with ids for arguments and no ETA on a plain ``redis://`` broker
with Celery's defaults, this module writes the very message ``send_task``
would: Celery's task message protocol 2 (headers, and a body of
``[args, kwargs, embed]``) in kombu's Redis envelope (base64 body, delivery
info for the anonymous exchange, routing key = queue name), pushed with one
client kept per process. ``tests/notifications/test_queue.py`` compares the
two messages field by field and has a real worker run one.

``pusher`` answers None (use ``send_task``) for any other broker (the
filesystem broker of ``make run``, the tests' memory broker), a key prefix or
priority steps in the transport options, or another serializer, compression
or protocol: then nothing here is used.
"""

from __future__ import annotations

import base64
import json
import os
import socket
import threading
import uuid
from typing import Any

from celery import Celery

#: Transport options that change which Redis key a queue is: leave those to kombu.
_KEY_OPTIONS = frozenset({"global_keyprefix", "sep", "priority_steps"})
_EMBED = {"callbacks": None, "errbacks": None, "chain": None, "chord": None}


def _plain_redis(app: Celery) -> str | None:
    """The broker URL if ``app`` publishes as ``send_task`` does with Celery's defaults."""
    conf = app.conf
    url = conf.broker_write_url or conf.broker_url
    if not isinstance(url, str) or not url.startswith("redis://") or ";" in url:
        return None
    options = conf.broker_transport_options or {}
    if _KEY_OPTIONS & set(options):
        return None
    if (conf.task_serializer, conf.task_compression, conf.task_protocol) != ("json", None, 2):
        return None
    if conf.task_send_sent_event or conf.task_always_eager:
        return None
    return url


class RedisPusher:
    """Pushes jobs for one Celery app from one process (thread-safe)."""

    def __init__(self, app: Celery, url: str) -> None:
        import redis

        self.app = app
        self.client = redis.Redis.from_url(url)
        self.origin = f"gen{os.getpid()}@{socket.gethostname()}"
        # Celery's reply_to is an id of the publishing thread; a result is never asked for.
        self.reply_to = str(uuid.uuid4())
        self.queues: dict[str, str] = {}

    def queue_of(self, name: str) -> str:
        """The queue Celery's router sends job ``name`` to (``CELERY_TASK_ROUTES``)."""
        queue = self.queues.get(name)
        if queue is None:
            routed = self.app.amqp.router.route({}, name, (), {})
            found = routed.get("queue")
            queue = found.name if found is not None else self.app.conf.task_default_queue
            self.queues[name] = queue
        return queue

    def message(self, name: str, args: tuple[int, ...], queue: str) -> dict[str, Any]:
        """What ``send_task(name, args=args)`` writes to ``queue``'s list."""
        task_id = str(uuid.uuid4())
        body = json.dumps([list(args), {}, _EMBED]).encode()
        return {
            "body": base64.b64encode(body).decode("ascii"),
            "content-encoding": "utf-8",
            "content-type": "application/json",
            "headers": {
                "lang": "py",
                "task": name,
                "id": task_id,
                "shadow": None,
                "eta": None,
                "expires": None,
                "group": None,
                "group_index": None,
                "retries": 0,
                "timelimit": [None, None],
                "root_id": task_id,
                "parent_id": None,
                "argsrepr": repr(args),
                "kwargsrepr": "{}",
                "origin": self.origin,
                "ignore_result": None,
                "replaced_task_nesting": 0,
                "stamped_headers": None,
                "stamps": {},
            },
            "properties": {
                "correlation_id": task_id,
                "reply_to": self.reply_to,
                "delivery_mode": 2,
                "delivery_info": {"exchange": "", "routing_key": queue},
                "priority": 0,
                "body_encoding": "base64",
                "delivery_tag": str(uuid.uuid4()),
            },
        }

    def push(self, name: str, args: tuple[int, ...]) -> None:
        queue = self.queue_of(name)
        self.client.lpush(queue, json.dumps(self.message(name, args, queue)))


_lock = threading.Lock()


def pusher(app: Celery) -> RedisPusher | None:
    """This process's pusher for ``app``, or None when ``send_task`` must publish.

    Kept on the app, one per process: a forked worker child makes its own.
    """
    pid = os.getpid()
    kept: tuple[int, RedisPusher | None] | None = getattr(app, "gamenook_pusher", None)
    if kept is None or kept[0] != pid:
        with _lock:
            url = _plain_redis(app)
            kept = (pid, None if url is None else RedisPusher(app, url))
            app.gamenook_pusher = kept  # type: ignore[attr-defined]
    return kept[1]
