"""One job onto Redis: Celery's send_task beside notifications.queue's LPUSH, alternated.

    .venv/bin/python scripts/bench_publish.py [--broker redis://127.0.0.1:6379/15] [--jobs 2000]

Both write the same message (``tests/notifications/test_queue.py``) for the
follow-ups job to an unused Redis database (``--broker``, else
``BENCH_PUBLISH_BROKER_URL``; refused unless empty, emptied afterwards).
Prints this process's CPU and the wall time per job, in microseconds: min,
median and max over ``--rounds`` alternated rounds, and the load average.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))


def _spread(values: list[float]) -> str:
    return f"min {min(values):.0f}, median {statistics.median(values):.0f}, max {max(values):.0f}"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument(
        "--broker", default=os.environ.get("BENCH_PUBLISH_BROKER_URL", "redis://127.0.0.1:6379/15")
    )
    parser.add_argument("--jobs", type=int, default=2000, help="jobs per side and round")
    parser.add_argument("--rounds", type=int, default=5)
    args = parser.parse_args()
    os.environ.update(
        DJANGO_SETTINGS_MODULE="gamenook.settings.production",
        DJANGO_SECRET_KEY="bench-only-" + "x" * 50,
        DJANGO_ALLOWED_HOSTS="127.0.0.1",
        CELERY_BROKER_URL=args.broker,
    )
    import django

    django.setup()
    import redis
    from celery import current_app

    from notifications import jobs
    from notifications.queue import pusher

    client = redis.Redis.from_url(args.broker)
    if client.dbsize():
        parser.error(f"the broker {args.broker} is not empty: pass an unused Redis database")
    fast = pusher(current_app)
    if fast is None:
        parser.error("notifications.queue does not publish to this broker")

    def timed(publish: Callable[[int], None]) -> tuple[float, float]:
        cpu, wall = time.process_time(), time.perf_counter()
        for i in range(args.jobs):
            publish(i)
        return (
            (time.process_time() - cpu) / args.jobs * 1e6,
            (time.perf_counter() - wall) / args.jobs * 1e6,
        )

    sides: dict[str, Callable[[int], None]] = {
        "send_task": lambda i: current_app.send_task(jobs.FOLLOWUPS, args=(1, i, 1, 0)),
        "LPUSH (notifications.queue)": lambda i: fast.push(jobs.FOLLOWUPS, (1, i, 1, 0)),
    }
    figures: dict[str, tuple[list[float], list[float]]] = {name: ([], []) for name in sides}
    try:
        for _ in range(args.rounds):
            for name, publish in sides.items():
                cpu, wall = timed(publish)
                figures[name][0].append(cpu)
                figures[name][1].append(wall)
    finally:
        client.flushdb()
    print(f"{args.jobs} jobs per side and round, {args.rounds} rounds, microseconds per job")
    for name, (cpu, wall) in figures.items():
        print(f"{name:<28} CPU {_spread(cpu)}; wall {_spread(wall)}")
    print(f"load average: {' '.join(f'{x:.2f}' for x in os.getloadavg())}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
