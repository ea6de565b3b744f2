"""A Gamenook bot that plays by webhook: the standard library only.

Gamenook posts the bot's events to its URL, signed by the Standard Webhooks
specification (https://www.standardwebhooks.com/). This server checks each
signature, answers at once, then acts: on ``turn`` it reads its seat's view
and sends random legal actions until the turn is over; on ``invitation`` it
joins the table. Register its URL once with the bot's token::

    curl -X PUT -H "Authorization: Token $GAMENOOK_TOKEN" -H "Content-Type: application/json" \\
         -d '{"url": "https://bot.example/"}' $GAMENOOK_URL/api/v1/me/webhook/

and give it the secret that answer shows. Configuration, by environment:
GAMENOOK_URL (the site, e.g. ``https://gamenook.example``), GAMENOOK_TOKEN
(the bot account's token), WEBHOOK_SECRET (``whsec_...``), PORT (default 8000).
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import json
import os
import random
import threading
import time
import urllib.error
import urllib.request
from collections.abc import Mapping
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

#: A delivery signed longer ago than this (or this far ahead) is refused: a replay.
TOLERANCE_SECONDS = 5 * 60
#: The largest delivery read; an event is a few hundred bytes.
MAX_BODY = 64 * 1024
#: Actions sent for one turn at most (a draw, then a play or a pass, a colour...).
MAX_ACTIONS = 10


class InvalidSignature(Exception):
    """A delivery that Gamenook did not sign with our secret, or signed too long ago."""


def verify(secret: str, headers: Mapping[str, str], body: bytes, now: float | None = None) -> Any:
    """The delivery's JSON if ``headers`` carry a valid signature of ``body``; else raise.

    Standard Webhooks: HMAC-SHA256, keyed with the secret's base64 after
    ``whsec_``, of ``"{webhook-id}.{webhook-timestamp}.{body}"``; the header
    ``webhook-signature`` holds one or more ``v1,<base64>`` (several during a
    key rotation), any one of which may match.
    """
    lower = {name.lower(): value for name, value in headers.items()}
    msg_id = lower.get("webhook-id", "")
    stamp = lower.get("webhook-timestamp", "")
    signatures = lower.get("webhook-signature", "")
    if not (msg_id and stamp.isdigit() and signatures):
        raise InvalidSignature("missing webhook headers")
    if abs((time.time() if now is None else now) - int(stamp)) > TOLERANCE_SECONDS:
        raise InvalidSignature("timestamp too old or too new")
    key = base64.b64decode(secret.removeprefix("whsec_"))
    signed = f"{msg_id}.{stamp}.".encode() + body
    expected = base64.b64encode(hmac.new(key, signed, hashlib.sha256).digest()).decode()
    for candidate in signatures.split():
        version, _, signature = candidate.partition(",")
        if version == "v1" and hmac.compare_digest(signature, expected):
            return json.loads(body)
    raise InvalidSignature("no signature matches")


def api(method: str, path: str, body: dict[str, Any] | None = None) -> tuple[int, Any]:
    """Call the Gamenook API with the bot's token: the status and the JSON answer."""
    request = urllib.request.Request(
        os.environ["GAMENOOK_URL"].rstrip("/") + path,
        method=method,
        data=None if body is None else json.dumps(body).encode(),
        headers={
            "Authorization": f"Token {os.environ['GAMENOOK_TOKEN']}",
            "Content-Type": "application/json",
        },
    )
    try:
        with urllib.request.urlopen(request, timeout=30) as answer:
            return answer.status, json.loads(answer.read() or b"null")
    except urllib.error.HTTPError as error:
        return error.code, json.loads(error.read() or b"null")


def pick(view: Mapping[str, Any]) -> dict[str, Any] | None:
    """A random legal action of the seat's view, as the actions endpoint takes it."""
    legal = (view.get("game") or {}).get("legal_actions") or []
    if not legal:
        return None
    choice = random.choice(legal)
    action: dict[str, Any] = {"type": choice["type"], "expected_seq": view["seq"]}
    if "card" in choice:
        action["card"] = choice["card"]
    for many, one in (("colors", "color"), ("targets", "target")):
        if choice.get(many):
            action[one] = random.choice(choice[many])
    return action


def play_turn(table: int) -> None:
    """Send random legal actions at ``table`` until the seat has none left (its turn ended)."""
    status, view = api("GET", f"/api/v1/tables/{table}/view/")
    for _ in range(MAX_ACTIONS):
        action = pick(view) if status in (200, 201) else None
        if action is None:
            return
        status, answer = api("POST", f"/api/v1/tables/{table}/actions/", action)
        if status == 201:
            view = answer["view"]
        else:  # another change came first (409 stale_seq) or the rules said no: look again
            print(f"table {table}: {status} {answer}")
            status, view = api("GET", f"/api/v1/tables/{table}/view/")


def handle(event: Mapping[str, Any]) -> None:
    """Act on one event (``data`` of a delivery)."""
    kind = event.get("type")
    if kind == "turn":
        play_turn(event["table"])
    elif kind == "invitation":
        status, _ = api("POST", event["url"])
        print(f"joined table {event['table']}: {status}")
    elif kind == "game_over":
        print(f"table {event['table']} is over: rank {event.get('rank')}")


class Handler(BaseHTTPRequestHandler):
    def do_POST(self) -> None:
        size = int(self.headers.get("Content-Length") or 0)
        if not 0 < size <= MAX_BODY:
            self.send_error(413)
            return
        body = self.rfile.read(size)
        try:
            delivery = verify(os.environ["WEBHOOK_SECRET"], dict(self.headers), body)
        except (InvalidSignature, ValueError) as error:
            self.send_error(401, str(error))
            return
        # Answer at once (Gamenook waits 10 seconds at most), then act.
        self.send_response(204)
        self.end_headers()
        threading.Thread(target=handle, args=(delivery["data"],), daemon=True).start()


def main() -> None:
    port = int(os.environ.get("PORT", "8000"))
    print(f"webhook bot listening on port {port}")
    ThreadingHTTPServer(("", port), Handler).serve_forever()


if __name__ == "__main__":
    main()
