"""A bot for Gamenook that plays a random legal action, written on the public API only.

It holds the account's event stream open (``GET /api/v1/stream/events``),
joins every table it is invited to, and on each of its turns reads its seat's
view and sends one of the legal actions the view lists. The standard library
only. See docs/bots-api.md.

    GAMENOOK_URL=https://gamenook.example GAMENOOK_TOKEN=... python examples/random_bot.py

``--games N`` stops it after N games have ended (the tests play one).
"""

from __future__ import annotations

import argparse
import json
import os
import random
import sys
import time
import urllib.error
import urllib.request
from collections.abc import Iterator
from typing import Any

URL = os.environ.get("GAMENOOK_URL", "http://127.0.0.1:8000").rstrip("/")
TOKEN = os.environ.get("GAMENOOK_TOKEN", "")


def call(method: str, path: str, body: dict[str, Any] | None = None) -> tuple[int, Any]:
    """One API request; the status and the decoded JSON answer (None when empty)."""
    request = urllib.request.Request(
        URL + path,
        method=method,
        data=None if body is None else json.dumps(body).encode(),
        headers={"Authorization": f"Token {TOKEN}", "Content-Type": "application/json"},
    )
    try:
        with urllib.request.urlopen(request, timeout=30) as answer:
            status, raw = answer.status, answer.read()
    except urllib.error.HTTPError as refused:
        status, raw = refused.code, refused.read()
    return status, json.loads(raw) if raw else None


def events() -> Iterator[dict[str, Any]]:
    """The event stream's events, one JSON object a line; blank keep-alive lines skipped."""
    request = urllib.request.Request(
        URL + "/api/v1/stream/events", headers={"Authorization": f"Token {TOKEN}"}
    )
    with urllib.request.urlopen(request, timeout=60) as stream:
        for line in stream:
            if line.strip():
                yield json.loads(line)


def choose(legal: dict[str, Any]) -> dict[str, Any]:
    """A request for one legal action: a listed colour or target picked at random."""
    action = {key: legal[key] for key in ("type", "card") if key in legal}
    if legal.get("colors"):
        action["color"] = random.choice(legal["colors"])
    if legal.get("targets"):
        action["target"] = random.choice(legal["targets"])
    return action


def play(table: int) -> None:
    """Act at ``table`` for as long as the seat has something to do (a drawn card to play)."""
    status, view = call("GET", f"/api/v1/tables/{table}/view/")
    while status in (200, 201) and view["game"] and view["game"]["legal_actions"]:
        action = choose(random.choice(view["game"]["legal_actions"]))
        status, answer = call(
            "POST", f"/api/v1/tables/{table}/actions/", {**action, "expected_seq": view["seq"]}
        )
        if status != 201:  # the table moved on meanwhile: its next event tells us
            print(f"table {table}: {action} refused: {answer}", file=sys.stderr)
            return
        view = answer["view"]


def join(invitation: dict[str, Any]) -> None:
    status, answer = call("POST", invitation["url"])
    print(f"joined table {invitation['table']}" if status == 201 else f"join refused: {answer}")


def run(games: int | None) -> None:
    ended = 0
    while games is None or ended < games:
        try:
            for event in events():
                if event["type"] == "hello":
                    for invitation in event["invitations"]:
                        join(invitation)
                    for turn in event["turns"]:
                        play(turn["table"])
                elif event["type"] == "invitation":
                    join(event)
                elif event["type"] == "turn":
                    play(event["table"])
                elif event["type"] == "game_over":
                    ended += 1
                    print(f"table {event['table']}: game over, placed {event['rank']}")
                    if games is not None and ended >= games:
                        return
                elif event["type"] == "end":
                    break  # the server asks us to connect again
        except (OSError, ValueError) as lost:  # the connection dropped: connect again
            print(f"stream lost ({lost}); connecting again", file=sys.stderr)
            time.sleep(2)


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, help="stop after this many games have ended")
    run(parser.parse_args().games)
