"""Which channel layer each environment gets, and what daphne answers a refused move with."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent.parent


def _setting(module: str, expression: str, **env: str) -> object:
    code = f"import json, gamenook.settings.{module} as s; print(json.dumps({expression}))"
    result = subprocess.run(
        [sys.executable, "-c", code],
        cwd=ROOT,
        env={
            "PATH": "/usr/bin:/bin",
            "DJANGO_SECRET_KEY": "x" * 50,
            "DJANGO_ALLOWED_HOSTS": "example.com",
            **env,
        },
        capture_output=True,
        text=True,
        check=True,
    )
    return json.loads(result.stdout)


def _backend(module: str, **env: str) -> object:
    return _setting(module, 's.CHANNEL_LAYERS["default"]["BACKEND"]', **env)


@pytest.mark.parametrize(
    ("module", "env", "backend"),
    [
        ("local", {}, "channels.layers.InMemoryChannelLayer"),
        (
            "local",
            {"CHANNEL_LAYER_URL": "redis://127.0.0.1:6379/5"},
            "channels_redis.pubsub.RedisPubSubChannelLayer",
        ),
        ("production", {}, "channels_redis.pubsub.RedisPubSubChannelLayer"),
    ],
)
def test_each_environment_gets_its_channel_layer(
    module: str, env: dict[str, str], backend: str
) -> None:
    assert _backend(module, **env) == backend


def test_make_run_serves_through_daphne_and_production_needs_no_daphne_app() -> None:
    assert _setting("local", "s.INSTALLED_APPS[0]") == "daphne"
    assert "daphne" not in str(_setting("production", "s.INSTALLED_APPS"))
    assert _setting("production", "s.CHANNEL_LAYERS['default']['CONFIG']['hosts']") == [
        {"address": "redis://127.0.0.1:6379/1", "socket_timeout": 15}
    ]


def test_daphne_names_the_status_of_a_refused_move() -> None:
    from twisted.web import http

    import gamenook.asgi  # noqa: F401 (names the statuses)

    assert http.RESPONSES[422] == b"Unprocessable Entity"
