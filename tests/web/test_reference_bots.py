"""Issue 40 §5: the two reference bots of examples/ play a whole game against a live site.

The site is uvicorn (the server of the streams' process in production,
docs/deploy.md), a Celery worker and beat in processes of their own on the
test database (``tests/web/site.py``). A person makes two bot accounts, gives
one its token for ``examples/random_bot.py`` (the event stream) and registers
the other's URL for ``examples/webhook_bot.py`` (signed webhooks, loopback
allowed by the test settings), hosts a table, adds a built-in bot and invites
both bot accounts. Each bot joins on its own, from its invitation; the test
plays the host's turns through the API as a third client would, until the
game ends. Nothing here calls a bot: they act only on what the site sends them.
"""

from __future__ import annotations

import os
import random
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest
import requests

from accounts import services as accounts
from games.models import Table
from notifications.models import WebhookDelivery
from tests.factories import make_user
from tests.web.site import ROOT, Site, _free_port, site

__all__ = ["site"]

pytestmark = [pytest.mark.e2e, pytest.mark.django_db(transaction=True, reset_sequences=True)]


@pytest.fixture
def site_server() -> str:
    """The bots' streams are served as in production: by uvicorn."""
    return "uvicorn"


#: The longest a whole single-round game of four may take here, bots and host included.
GAME_SECONDS = 240


class _Client:
    """The site's API over HTTP with a token, as any client reaches it (not in-process:
    the site's jobs then go to its own worker)."""

    def __init__(self, site: Site, token: str) -> None:
        self.site = site
        self.session = requests.Session()
        self.session.headers["Authorization"] = f"Token {token}"

    def call(self, method: str, path: str, body: Any = None) -> requests.Response:
        return self.session.request(method, self.site.url + path, json=body, timeout=30)

    def get(self, path: str) -> requests.Response:
        return self.call("GET", path)

    def post(self, path: str, body: Any = None) -> requests.Response:
        return self.call("POST", path, body)

    def put(self, path: str, body: Any = None) -> requests.Response:
        return self.call("PUT", path, body)


def _request(view: dict[str, Any]) -> dict[str, Any]:
    legal = random.choice(view["game"]["legal_actions"])
    action = {key: legal[key] for key in ("type", "card") if key in legal}
    if legal.get("colors"):
        action["color"] = random.choice(legal["colors"])
    if legal.get("targets"):
        action["target"] = random.choice(legal["targets"])
    return {**action, "expected_seq": view["seq"]}


def _start(command: list[str], env: dict[str, str], log: Path) -> subprocess.Popen[bytes]:
    with log.open("w") as out:
        return subprocess.Popen(command, cwd=ROOT, env=env, stdout=out, stderr=subprocess.STDOUT)


def _wait(what: str, done: Any, seconds: float, site: Site, logs: list[Path]) -> None:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        site.check()
        if done():
            return
        time.sleep(0.2)
    said = "\n".join(f"--- {log.name}\n{log.read_text()[-3000:]}" for log in logs)
    deliveries = list(
        WebhookDelivery.objects.values("event", "status", "attempts", "last_error")[:20]
    )
    raise AssertionError(f"timed out waiting for {what}\n{said}\ndeliveries: {deliveries}")


@pytest.mark.parametrize("game", ["flip", "wildcards"])
def test_the_reference_bots_join_from_their_invitations_and_play_a_whole_game(
    site: Site, tmp_path: Path, game: str
) -> None:
    owner = make_user("owner")
    streamer, streamer_key = accounts.bot_create(owner=owner, username="streamer")
    hooked, hooked_key = accounts.bot_create(owner=owner, username="hooked")
    port = _free_port()
    answer = _Client(site, hooked_key).put(
        "/api/v1/me/webhook/", {"url": f"http://127.0.0.1:{port}/"}
    )
    assert answer.status_code in (200, 201), answer.content
    secret = answer.json()["secret"]
    assert secret.startswith("whsec_")

    env = {**os.environ, "GAMENOOK_URL": site.url, "PYTHONUNBUFFERED": "1"}
    logs = [tmp_path / "random_bot.log", tmp_path / "webhook_bot.log"]
    bots = [
        _start(
            [sys.executable, "examples/random_bot.py", "--games", "1"],
            {**env, "GAMENOOK_TOKEN": streamer_key},
            logs[0],
        ),
        _start(
            [sys.executable, "examples/webhook_bot.py"],
            {**env, "GAMENOOK_TOKEN": hooked_key, "WEBHOOK_SECRET": secret, "PORT": str(port)},
            logs[1],
        ),
    ]
    try:
        host = make_user("host")
        host_key = accounts.token_create(user=host, name="test")[1]
        api = _Client(site, host_key)
        body: dict[str, Any] = {"seat_count": 4, "turn_hours": 12, "game": game}
        body |= {"scoring": "single"} if game == "flip" else {"options": {"scoring": "single"}}
        made = api.post("/api/v1/tables/", body)
        assert made.status_code == 201, made.content
        table_id = made.json()["id"]
        assert api.post(f"/api/v1/tables/{table_id}/bots/", {"level": "easy"})
        for bot in (streamer, hooked):
            invited = api.post(
                f"/api/v1/tables/{table_id}/invitations/", {"username": bot.username}
            )
            assert invited.status_code == 201, invited.content

        def seated() -> bool:
            seats = api.get(f"/api/v1/tables/{table_id}/").json()["seats"]
            names = {seat["username"] for seat in seats}
            return {"streamer", "hooked"} <= names

        _wait("both bots to join", seated, 60, site, logs)
        seats = api.get(f"/api/v1/tables/{table_id}/").json()["seats"]
        assert all(
            seat["bot_account"] for seat in seats if seat["username"] in {"streamer", "hooked"}
        )
        started = api.post(f"/api/v1/tables/{table_id}/start/")
        assert started.status_code == 200, started.content

        deadline = time.monotonic() + GAME_SECONDS
        while True:
            site.check()
            view = api.get(f"/api/v1/tables/{table_id}/view/").json()
            if time.monotonic() > deadline:
                moves = api.get(f"/api/v1/tables/{table_id}/log/").json()["moves"][-6:]
                said = "\n".join(log.read_text()[-3000:] for log in logs)
                raise AssertionError(f"the game did not end: {view}\n{moves}\n{said}")
            if view["status"] == Table.Status.FINISHED:
                break
            if view["game"] and view["game"]["legal_actions"]:
                api.post(f"/api/v1/tables/{table_id}/actions/", _request(view))
            else:
                time.sleep(0.1)

        # The random bot saw the game end on its stream and stopped, as asked.
        assert bots[0].wait(timeout=30) == 0, logs[0].read_text()
        assert "game over" in logs[0].read_text()
        # Both bots played their own turns: no move of theirs was the table's.
        log = api.get(f"/api/v1/tables/{table_id}/log/").json()["moves"]
        by_seat = {seat["username"]: seat["number"] for seat in seats}
        for name in ("streamer", "hooked"):
            mine = [move for move in log if move["seat"] == by_seat[name]]
            assert mine, name
            assert all(move.get("source", "player") == "player" for move in mine), name
        # The webhook bot's events were delivered, signed, and the game's end with them.
        delivered = WebhookDelivery.objects.filter(endpoint__user=hooked, table_id=table_id)
        assert delivered.filter(event="turn", status=WebhookDelivery.Status.SENT).exists()
        _wait(
            "the game-over delivery",
            lambda: delivered.filter(event="game_over", status="sent").exists(),
            30,
            site,
            logs,
        )
    finally:
        for bot in bots:
            bot.terminate()
            try:
                bot.wait(timeout=10)
            except subprocess.TimeoutExpired:
                bot.kill()
