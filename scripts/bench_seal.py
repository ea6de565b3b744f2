"""What sealing the channel layer's messages costs: a table change's message, sealed or not.

    .venv/bin/python scripts/bench_seal.py [--messages 2000] [--batches 5]

Builds, on an in-memory SQLite test database, the message ``live.receivers``
publishes after a player's action (the table and its seats as committed,
``games.selectors.pack_rows``) for tables of 2, 4 and 10 seats, and times the
layer's ``serialize`` (what the publishing process does) and ``deserialize``
(what each process with sockets at the table does) with the layer the settings
build unsealed and sealed (``gamenook.settings.base.channel_layers``, Fernet).
No Redis is contacted. Prints, per table size, kind and step, the microseconds
per message: min, median and max over the batches, alternated; and the sizes.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--messages", type=int, default=2000, help="per batch")
    parser.add_argument("--batches", type=int, default=5)
    args = parser.parse_args()
    os.environ["DJANGO_SETTINGS_MODULE"] = "gamenook.settings.test"
    os.environ.pop("DATABASE_URL", None)
    import django

    django.setup()
    from channels_redis.pubsub import RedisPubSubChannelLayer
    from django.db import connection

    from gamenook.settings.base import channel_layers
    from games import selectors
    from tests.factories import make_user, start_table

    connection.creation.create_test_db(verbosity=0)
    url = "redis://127.0.0.1:6379/0"  # never contacted: only the serializer runs
    layers = {
        "plain": RedisPubSubChannelLayer(**channel_layers(url)["default"]["CONFIG"]),
        "sealed": RedisPubSubChannelLayer(
            **channel_layers(url, secret_key="k" * 50, database="bench")["default"]["CONFIG"]
        ),
    }
    print(f"load {' '.join(f'{x:.2f}' for x in os.getloadavg())}")
    for seats in (2, 4, 10):
        users = [make_user() for _ in range(seats)]
        table = start_table(users[0], *users[1:])
        rows = selectors.pack_rows(*selectors.table_with_seats(table.pk))
        message: dict[str, Any] = {"type": "table.changed", "seq": table.seq, "rows": rows}
        sizes = ", ".join(
            f"{name} {len(layer.serialize(message))}" for name, layer in layers.items()
        )
        print(f"{seats} seats: bytes {sizes}")
        times: dict[tuple[str, str], list[float]] = {}
        for _ in range(args.batches):
            for name, layer in layers.items():
                data = layer.serialize(message)
                started = time.perf_counter()
                for _ in range(args.messages):
                    layer.serialize(message)
                middle = time.perf_counter()
                for _ in range(args.messages):
                    layer.deserialize(data)
                ended = time.perf_counter()
                times.setdefault((name, "serialize"), []).append(middle - started)
                times.setdefault((name, "deserialize"), []).append(ended - middle)
        for (name, step), spans in times.items():
            per = [span / args.messages * 1e6 for span in spans]
            print(
                f"  {name:6} {step:11} µs a message: min {min(per):.1f}, "
                f"median {statistics.median(per):.1f}, max {max(per):.1f}"
            )
    print(f"load {' '.join(f'{x:.2f}' for x in os.getloadavg())}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
