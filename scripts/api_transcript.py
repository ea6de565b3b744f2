"""Write the curl session of ``docs/api-transcript.md`` by running it, or check it runs so.

    .venv/bin/python scripts/api_transcript.py            # rewrite docs/api-transcript.md
    .venv/bin/python scripts/api_transcript.py --check    # run it again and compare (CI)

Starts what ``make run`` starts (``scripts/run_dev.py``: web server, Celery
worker and beat) on a fresh SQLite database in a scratch folder, with
``GAMENOOK_GAME_SEED`` set so that the deal is the same every time, and runs
each command of the session below with bash, exactly as printed, in that
folder (where ``.mail/`` collects the e-mail). Only ``$API`` differs: the
server listens on a free port instead of 8000. The answers are printed as
they came, headers cut to the status line and the few that matter, JSON
re-indented, long lists trimmed where marked.

``--check`` compares the fresh run with the file, once values that differ
from run to run are masked: times, tokens and the signed tokens of links.
"""

from __future__ import annotations

import argparse
import contextlib
import difflib
import json
import os
import re
import socket
import subprocess
import sys
import tempfile
import time
import urllib.request
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
DOC = ROOT / "docs" / "api-transcript.md"
BEGIN = "<!-- transcript: written by scripts/api_transcript.py; do not edit by hand -->"
END = "<!-- end of transcript -->"
SEED = "api-transcript"
SHOWN_HEADERS = ("etag", "idempotent-replayed", "retry-after")
VARIABLES = ("API", "ALICE", "BOB", "TABLE", "LINK", "CLASSIC")
JSON = "-H 'Content-Type: application/json'"
AS_ALICE = '-H "Authorization: Token $ALICE"'
AS_BOB = '-H "Authorization: Token $BOB"'


@dataclass
class Step:
    """Prose, then one command and its answer. ``command`` may read earlier answers."""

    prose: str
    command: str | Callable[[dict[str, str]], str]
    trim: int = 12  # lists longer than this are cut in the printed answer
    wait_for_mail: str | None = None  # wait (unprinted) until a mail to this address exists
    name: str = ""  # later steps read this step's answer by its name


PLAY_REST = """python3 - "$API" "$TABLE" "$ALICE" "$BOB" <<'EOF'
import json, sys, urllib.request

api, table, alice, bob = sys.argv[1:]
players = {"alice": alice, "bob": bob}

def call(method, path, token, body=None):
    data = None if body is None else json.dumps(body).encode()
    request = urllib.request.Request(api + path, data, method=method, headers={
        "Authorization": "Token " + token, "Content-Type": "application/json"})
    with urllib.request.urlopen(request) as response:
        return json.load(response)

while True:
    seats = call("GET", f"/tables/{table}/", players["alice"])["seats"]
    names = {seat["number"]: seat["username"] for seat in seats}
    view = call("GET", f"/tables/{table}/view/", players["alice"])
    if view["status"] != "active":
        break
    name = names[view["game"]["to_act"]]
    view = call("GET", f"/tables/{table}/view/", players[name])
    legal = view["game"]["legal_actions"][0]
    body = {"type": legal["type"], "expected_seq": view["seq"]}
    if "card" in legal:
        body["card"] = legal["card"]
    if "colors" in legal:
        body["color"] = legal["colors"][0]
    move = call("POST", f"/tables/{table}/actions/", players[name], body)
    faces = [e.get("face") or ",".join(e.get("faces", [])) or e["type"] for e in move["events"]]
    print(move["seq"], name, body["type"], *faces)
EOF"""


#: The classic game's moves, as any client plays them: each player fetches their view and
#: sends the first of their legal actions (its first colour, its first target). Written
#: once to play.py: with ``penalty`` it stops once a draw penalty waits for a player
#: (stacking); with ``end`` it plays to the end and prints the count and the last moves.
PLAY_CLASSIC = """cat > play.py <<'EOF'
import json, sys, urllib.request

api, table, alice, bob, until = sys.argv[1:]
players = {"alice": alice, "bob": bob}

def call(method, path, token, body=None):
    data = None if body is None else json.dumps(body).encode()
    request = urllib.request.Request(api + path, data, method=method, headers={
        "Authorization": "Token " + token, "Content-Type": "application/json"})
    with urllib.request.urlopen(request) as response:
        return json.load(response)

lines = []
names = {s["number"]: s["username"] for s in call("GET", f"/tables/{table}/", alice)["seats"]}
while True:
    view = call("GET", f"/tables/{table}/view/", alice)
    game = view["game"]
    if view["status"] != "active":
        print("the game is", view["status"])
        break
    if until == "penalty" and game["penalty"]:
        print("a penalty of", game["penalty"], "waits for", names[game["to_act"]])
        break
    name = names[game["to_act"]]
    view = call("GET", f"/tables/{table}/view/", players[name])
    legal = view["game"]["legal_actions"][0]
    body = {"type": legal["type"], "expected_seq": view["seq"]}
    for key, many in (("card", None), ("color", "colors"), ("target", "targets")):
        if key in legal:
            body[key] = legal[key]
        elif many in legal:
            body[key] = legal[many][0]
    move = call("POST", f"/tables/{table}/actions/", players[name], body)
    shown = [e.get("face") or e["type"] for e in move["events"] if e["type"] != "shuffle"]
    lines.append(" ".join(map(str, [move["seq"], name, body["type"], *shown])))
    if until == "penalty":
        print(lines[-1])
if until == "end":
    print(len(lines), "moves; the last five:")
    print(*lines[-5:], sep="\\n")
EOF
python3 play.py "$API" "$CLASSIC" "$ALICE" "$BOB" penalty"""


def _take_penalty(named: dict[str, str]) -> str:
    view = _json_of(named["penalty_view"])
    who = AS_BOB if view["game"]["seat"] == 1 else AS_ALICE
    return (
        f'curl -s -X POST "$API/tables/$CLASSIC/actions/" {who} {JSON} '
        '-d \'{"type": "take_penalty"}\' '
        "| python3 -c 'import json, sys; print(json.dumps(json.load(sys.stdin)[\"events\"]))'"
    )


def _penalty_view(named: dict[str, str]) -> str:
    lines = named["until_penalty"].strip().splitlines()
    if not lines or not lines[-1].startswith("a penalty of"):
        raise SystemExit(f"no penalty came to wait: {named['until_penalty']!r}")
    waiting = lines[-1]
    who = AS_BOB if waiting.endswith("bob") else AS_ALICE
    return f'curl -si "$API/tables/$CLASSIC/view/" {who}'


def _handle_that_does_not_match(named: dict[str, str]) -> str:
    view = _json_of(named["bob_view"])
    legal = {a.get("card") for a in view["game"]["legal_actions"]}
    for card in view["game"]["hand"]:
        if card["card"] not in legal:
            return str(card["card"])
    raise AssertionError("every card of the hand matches: pick another seed")


def _json_of(output: str) -> Any:
    text = output.replace("\r\n", "\n")
    return json.loads(text[text.index("\n\n") + 2 :])


def _refusal(named: dict[str, str]) -> str:
    card = _handle_that_does_not_match(named)
    return (
        f'curl -si -X POST "$API/tables/$TABLE/actions/" {AS_BOB} {JSON} '
        f'-d \'{{"type": "play", "card": "{card}"}}\''
    )


def _bob_first_move(named: dict[str, str]) -> str:
    view = _json_of(named["bob_view"])
    legal = view["game"]["legal_actions"][0]
    body: dict[str, Any] = {"type": legal["type"], "expected_seq": view["seq"]}
    if "card" in legal:
        body["card"] = legal["card"]
    if "colors" in legal:
        body["color"] = legal["colors"][0]
    return (
        f'curl -si -X POST "$API/tables/$TABLE/actions/" {AS_BOB} {JSON} '
        f"-H 'Idempotency-Key: bob-move-1' -d '{json.dumps(body)}'"
    )


STEPS = [
    Step(
        "### Accounts\n\nRegister Alice. Her address waits for confirmation (`pending_email`): "
        "the account has none of its own (`email` is null) until she follows the link mailed "
        "to it. The answer would be the same if another account had the address (that "
        "account's owner would be told instead):",
        f'curl -si -X POST "$API/auth/register/" {JSON} -d \'{{"username": "alice", '
        '"email": "alice@example.com", "password": "correct horse battery"}\'',
    ),
    Step(
        "Make her a token named `laptop` and keep it in `$ALICE`. The server shows a token "
        "once and keeps only its hash; asking again under the same name replaces it:",
        f'ALICE=$(curl -s -X POST "$API/auth/token/" {JSON} -d \'{{"username": "alice", '
        '"password": "correct horse battery", "name": "laptop"}\' '
        "| python3 -c 'import json, sys; print(json.load(sys.stdin)[\"token\"])'); "
        'echo "$ALICE"',
    ),
    Step(
        "Bob the same way, in `$BOB`:",
        f'curl -s -X POST "$API/auth/register/" {JSON} -d \'{{"username": "bob", '
        '"email": "bob@example.com", "password": "correct horse battery"}\'; echo; '
        f'BOB=$(curl -s -X POST "$API/auth/token/" {JSON} -d \'{{"username": "bob", '
        '"password": "correct horse battery", "name": "laptop"}\' '
        "| python3 -c 'import json, sys; print(json.load(sys.stdin)[\"token\"])'); "
        'echo "$BOB"',
    ),
    Step(
        "`GET /me/` tells Alice that no game e-mail reaches her until she confirms her address:",
        f'curl -si "$API/me/" {AS_ALICE}',
    ),
    Step(
        "The confirmation link is in her mail (under `.mail/`, one file per message, with "
        "`make run`; the worker writes it). Its last part is the token; the link opens a page "
        "with a button, and a program sends the token to `POST /auth/verify-email/`, which "
        "makes the address hers:",
        "LINK=$(grep -l 'To: alice@example.com' .mail/*.eml "
        "| xargs grep -ho 'http://[^ ]*/verify-email/[^ ]*' | tail -1); "
        f'curl -si -X POST "$API/auth/verify-email/" {JSON} '
        '-d "{\\"token\\": \\"$(basename "$LINK")\\"}"',
        wait_for_mail="alice@example.com",
    ),
    Step(
        "A token alone does not change her address: that needs `current_password` too, so a "
        "stolen token cannot move the account's mail (and its password resets) elsewhere:",
        f'curl -si -X PATCH "$API/me/" {AS_ALICE} {JSON} '
        '-d \'{"email": "mallory@evil.example"}\'',
    ),
    Step(
        "She also turns off the halfway reminders (the other switches stay as they are; "
        "an unknown switch answers 400 `unknown_field`):",
        f'curl -si -X PATCH "$API/me/" {AS_ALICE} {JSON} '
        '-d \'{"notifications": {"reminder": false}}\'',
    ),
    Step(
        "### The lobby\n\nAlice opens a two-seat table that allows watchers, and keeps its id "
        "in `$TABLE`:",
        f'curl -si -X POST "$API/tables/" {AS_ALICE} {JSON} '
        '-d \'{"seat_count": 2, "turn_hours": 24, "allow_watchers": true}\'',
    ),
    Step(
        "",
        f'TABLE=$(curl -s "$API/tables/?mine=true" {AS_ALICE} '
        '| python3 -c \'import json, sys; print(json.load(sys.stdin)["results"][0]["id"])\'); '
        'echo "$TABLE"',
    ),
    Step(
        "Bob finds it among the open tables and takes the free seat:",
        f'curl -si "$API/tables/?open=true" {AS_BOB}',
    ),
    Step("", f'curl -si -X POST "$API/tables/$TABLE/join/" {AS_BOB}'),
    Step(
        "Alice deals. The answer is her view: her own cards by handle and face, Bob's by "
        "the faces she can see (the other side, sorted), the draw pile's top in its other "
        "face, and what she may do (nothing: Bob, after the dealer, is to act):",
        f'curl -si -X POST "$API/tables/$TABLE/start/" {AS_ALICE}',
        trim=12,
    ),
    Step(
        "### The first moves, and some refusals\n\nBob fetches his view; again with its "
        "`ETag` it answers 304 until something happens:",
        f'curl -si "$API/tables/$TABLE/view/" {AS_BOB}',
        trim=12,
        name="bob_view",
    ),
    Step("", f'curl -si "$API/tables/$TABLE/view/" {AS_BOB} -H \'If-None-Match: "1"\''),
    Step(
        "Four refusals, none of which changes anything: Alice out of turn (422), Bob with "
        "a stale `expected_seq` (409), Bob naming a seat (400), Bob playing a card that "
        "does not match (422):",
        f'curl -si -X POST "$API/tables/$TABLE/actions/" {AS_ALICE} {JSON} '
        '-d \'{"type": "draw"}\'',
    ),
    Step(
        "",
        f'curl -si -X POST "$API/tables/$TABLE/actions/" {AS_BOB} {JSON} '
        '-d \'{"type": "draw", "expected_seq": 0}\'',
    ),
    Step(
        "",
        f'curl -si -X POST "$API/tables/$TABLE/actions/" {AS_BOB} {JSON} '
        '-d \'{"type": "draw", "seat": 0}\'',
    ),
    Step("", _refusal),
    Step(
        "Bob's real move, with an `Idempotency-Key`. His client sends it again, as a "
        "client would after a lost connection: the same bytes come back (marked "
        "`Idempotent-Replayed`) and the card is not played twice:",
        _bob_first_move,
        trim=6,
    ),
    Step("", _bob_first_move, trim=6),
    Step(
        "### The rest of the game\n\nFrom here on each player fetches their view and sends "
        "the first of their `legal_actions` (a Wild with its first colour), until the game "
        "ends. One line per move: its seq, who, what, and the faces it showed:",
        PLAY_REST,
    ),
    Step(
        "### The end\n\nAlice's final view holds the result. The log shows every move as she "
        "may see it (`?after=` gives only the newer ones), and the record (seed, shuffles, "
        "card numbers) is published now that the game is over:",
        f'curl -si "$API/tables/$TABLE/view/" {AS_ALICE}',
        trim=8,
    ),
    Step("", f'curl -si "$API/tables/$TABLE/log/?after=2" {AS_BOB}', trim=3),
    Step("", f'curl -si "$API/tables/$TABLE/record/" {AS_ALICE}', trim=6),
    Step(
        "### Classic Wild Cards, with stacking\n\nThe same service plays classic Wild Cards "
        "(`game` `wildcards`) with its house rules, each an option of the table: stacking "
        "draw cards, the 7-0 swap, jump-in and draw until playable. Alice opens a two-seat "
        "table with all four and a target of 100 points, and keeps its id in `$CLASSIC`; the "
        "answer names the game and every option, defaults included:",
        f'curl -si -X POST "$API/tables/" {AS_ALICE} {JSON} -d \'{{"game": "wildcards", '
        '"seat_count": 2, "options": {"stacking": true, "seven_zero": true, "jump_in": true, '
        '"draw_until_playable": true, "scoring": "target", "target": 100}}\'',
    ),
    Step(
        "",
        f'CLASSIC=$(curl -s "$API/tables/?mine=true&status=lobby" {AS_ALICE} '
        '| python3 -c \'import json, sys; print(json.load(sys.stdin)["results"][0]["id"])\'); '
        'echo "$CLASSIC"',
    ),
    Step(
        "A target the game does not allow is refused with the option's name and the rule:",
        f'curl -si -X POST "$API/tables/" {AS_ALICE} {JSON} -d \'{{"game": "wildcards", '
        '"seat_count": 2, "options": {"target": 20}}\'',
    ),
    Step(
        "Bob joins and Alice deals:",
        f'curl -s -o /dev/null -w "%{{http_code}}\\n" -X POST "$API/tables/$CLASSIC/join/" '
        f"{AS_BOB}; "
        f'curl -s -o /dev/null -w "%{{http_code}}\\n" -X POST "$API/tables/$CLASSIC/start/" '
        f"{AS_ALICE}",
    ),
    Step(
        "A small client, kept in `play.py`, makes each player fetch their view and send the "
        "first of their legal actions; here until a Draw 2 or a Wild Draw 4 leaves a penalty "
        "waiting:",
        PLAY_CLASSIC,
        name="until_penalty",
    ),
    Step(
        "With stacking on, the penalty waits for its player: their view says how many cards "
        "(`penalty`, and `pending` of type `penalty`), and their legal actions are only the "
        "cards that answer it and `take_penalty`; a draw or a pass would be refused "
        "`penalty_waiting`:",
        _penalty_view,
        trim=10,
        name="penalty_view",
    ),
    Step(
        "They take it: the answer's events (the whole answer also carries their new view) say "
        "the cards are drawn and the turn is lost.",
        _take_penalty,
    ),
    Step(
        "The rest of the game, by the same client: how many moves, and the last five:",
        'python3 play.py "$API" "$CLASSIC" "$ALICE" "$BOB" end',
    ),
    Step(
        "The final ranking, from Alice's view (the record replays with `wildcards.replay`):",
        f'curl -s "$API/tables/$CLASSIC/view/" {AS_ALICE} '
        "| python3 -c 'import json, sys; print(json.dumps(json.load(sys.stdin)"
        '["game"]["ranking"], indent=1))\'',
    ),
    Step(
        "### Away with autopilot, and forced moves\n\nAlice will be away for a week: from now "
        "on, her turns at turn-by-turn tables are played at once by a Hard bot, and everyone "
        "at her tables sees `autopilot` and `autopilot_until` on her seat (ruling 20). An end "
        "in the past is refused:",
        f'curl -si -X PUT "$API/me/away/" {AS_ALICE} {JSON} '
        '-d "{\\"ends_at\\": \\"$(date -u -d \'+7 days\' +%FT%TZ)\\", \\"level\\": \\"hard\\"}"',
    ),
    Step(
        "",
        f'curl -si -X PUT "$API/me/away/" {AS_ALICE} {JSON} '
        '-d \'{"ends_at": "2020-01-01T00:00:00Z"}\'',
    ),
    Step(
        "She asks for her forced moves to be played at once (a draw when nothing can be "
        "played, the one card she may play), then comes back early; any move of hers at a "
        "table would bring her back too:",
        f'curl -s -X PATCH "$API/me/" {AS_ALICE} {JSON} '
        '-d \'{"play": {"forced_moves": true}}\' '
        "| python3 -c 'import json, sys; print(json.load(sys.stdin)[\"play\"])'",
    ),
    Step("", f'curl -si -X DELETE "$API/me/away/" {AS_ALICE}'),
    Step(
        "### Tokens and logging out\n\nAlice lists her tokens (names and prefixes only), "
        "then logs out, which revokes the token the request carried:",
        f'curl -si "$API/me/tokens/" {AS_ALICE}',
    ),
    Step("", f'curl -si -X POST "$API/auth/logout/" {AS_ALICE}'),
    Step("", f'curl -si "$API/me/" {AS_ALICE}'),
]


# ----------------------------------------------------------------------------
# Printing answers


def _render(value: Any, indent: int = 0, trim: int = 12, lead: int = 0) -> str:
    """JSON on one line when it fits in 100 columns, else one member per line.

    ``indent`` is where the enclosing line starts, ``lead`` how much of that
    line (a key) comes before the value.
    """
    if isinstance(value, list) and len(value) > trim:
        value = [*value[: trim - 2], f"… {len(value) - trim + 1} more …", value[-1]]
    flat = json.dumps(value, ensure_ascii=False)
    if indent + lead + len(flat) <= 100 or not isinstance(value, dict | list) or not value:
        return flat
    pad = " " * (indent + 2)
    if isinstance(value, dict):
        items = []
        for key, item in value.items():
            name = json.dumps(key, ensure_ascii=False) + ": "
            items.append(pad + name + _render(item, indent + 2, trim, len(name)))
    else:
        items = [pad + _render(item, indent + 2, trim) for item in value]
    opening, closing = ("{", "}") if isinstance(value, dict) else ("[", "]")
    return opening + "\n" + ",\n".join(items) + "\n" + " " * indent + closing


def _answer(raw: str, trim: int) -> tuple[str, str]:
    """An HTTP answer from ``curl -si`` as (status and headers, body); other output as is."""
    if not raw.startswith("HTTP/"):
        return "", raw.rstrip("\n")
    head, _, body = raw.replace("\r\n", "\n").partition("\n\n")
    lines = head.split("\n")
    kept = [lines[0]] + [
        line for line in lines[1:] if line.split(":", 1)[0].lower() in SHOWN_HEADERS
    ]
    text = body.strip()
    if text:
        with contextlib.suppress(ValueError):  # not JSON: shown as it came
            text = _render(json.loads(text), trim=trim)
    return "\n".join(kept), text


#: An answer's body longer than this shows its first ``HEAD_LINES`` and last
#: ``TAIL_LINES`` lines, with a line saying how many were left out between (the page is
#: read by people; docs/api.md describes every field).
MAX_BODY_LINES = 16
HEAD_LINES, TAIL_LINES = 9, 5


def _cut(body: str) -> str:
    """``body`` with at most ``MAX_BODY_LINES`` lines, and a line saying what was left out."""
    lines = body.split("\n")
    if len(lines) <= MAX_BODY_LINES:
        return body
    left_out = len(lines) - HEAD_LINES - TAIL_LINES
    return "\n".join([*lines[:HEAD_LINES], f"  … ({left_out} lines)", *lines[-TAIL_LINES:]])


def _markdown(commands: list[str], outputs: list[str]) -> str:
    parts = [
        BEGIN,
        "",
        "What follows is the output of `scripts/api_transcript.py`, which runs each "
        "command below with bash against `make run`'s processes on a fresh database and "
        "writes what it answered here; CI runs it again and checks that the answers are "
        "still these (times, tokens and link tokens aside). Of the response headers only "
        "`ETag`, `Idempotent-Replayed` and `Retry-After` are shown, JSON is re-indented, "
        f"long lists are trimmed where marked `…`, and an answer longer than "
        f"{MAX_BODY_LINES} lines shows its start and its end (docs/api.md has every field).",
        "",
        "Start the server as `make run` does, on a database of its own and with a fixed "
        "seed, so that the game below is dealt again card for card "
        "(`GAMENOOK_GAME_SEED` is read by the local settings only, never in production):",
        "",
        "```console",
        f"$ DATABASE_URL=sqlite:///api-demo.sqlite3 GAMENOOK_GAME_SEED={SEED} make run",
        "```",
        "",
        "Then, in another shell in the same folder (the commands read `.mail/`):",
        "",
        "```console",
        "$ export API=http://127.0.0.1:8000/api/v1",
        "```",
    ]
    for step, command, output in zip(STEPS, commands, outputs, strict=True):
        if step.prose:
            parts += ["", step.prose]
        head, body = _answer(output, step.trim)
        body = _cut(body)
        parts += ["", "```console", f"$ {command}"]
        if not head:
            parts += [body, "```"]
            continue
        parts += ["```", "```http", head]
        if body:
            parts += ["", body]
        parts.append("```")
    parts += ["", END]
    return "\n".join(parts)


# ----------------------------------------------------------------------------
# Running


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def _wait(predicate: Callable[[], bool], what: str, seconds: float = 60) -> None:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if predicate():
            return
        time.sleep(0.2)
    raise SystemExit(f"timed out waiting for {what}")


def _answers(url: str) -> bool:
    try:
        with urllib.request.urlopen(url, timeout=2):  # noqa: S310  (our own http URL)
            return True
    except OSError as exc:
        return getattr(exc, "code", None) is not None


def _mail_to(folder: Path, address: str) -> bool:
    return any(f"To: {address}" in p.read_text() for p in (folder / ".mail").glob("*.eml"))


def run() -> str:
    with tempfile.TemporaryDirectory(prefix="gamenook-transcript-") as tmp:
        folder = Path(tmp)
        port = _free_port()
        env = {
            key: value
            for key, value in os.environ.items()
            if not key.startswith(("DATABASE_URL", "CELERY_", "GAMENOOK_", "EMAIL_URL"))
        }
        env.update(
            {
                "DATABASE_URL": f"sqlite:///{folder / 'api-demo.sqlite3'}",
                "GAMENOOK_GAME_SEED": SEED,
                "GAMENOOK_BROKER_DIR": str(folder / ".broker"),
                "GAMENOOK_MAIL_DIR": str(folder / ".mail"),
                "CELERY_BEAT_SCHEDULE_FILENAME": str(folder / ".celery" / "beat-schedule"),
                "DJANGO_SETTINGS_MODULE": "gamenook.settings.local",
            }
        )
        log = (folder / "server.log").open("wb")
        server = subprocess.Popen(
            # --noreload: a file touched meanwhile must not restart the server mid-game.
            [
                sys.executable,
                str(ROOT / "scripts" / "run_dev.py"),
                "--port",
                str(port),
                "--noreload",
            ],
            cwd=ROOT,
            env=env,
            stdout=log,
            stderr=subprocess.STDOUT,
        )
        try:
            api = f"http://127.0.0.1:{port}/api/v1"
            _wait(lambda: _answers(api + "/schema/"), "the server", 90)
            state = folder / "state.sh"
            state.write_text(f"API={api}\n")
            commands: list[str] = []
            outputs: list[str] = []
            named: dict[str, str] = {}
            for step in STEPS:
                command = step.command if isinstance(step.command, str) else step.command(named)
                if step.wait_for_mail:
                    address = step.wait_for_mail
                    _wait(lambda a=address: _mail_to(folder, a), f"mail to {address}")
                # A command that fails fails the run, with what it said (not an empty output).
                script = (
                    f". {state}; export API\nset -eo pipefail\n{command}\nset +e\n"
                    f"for v in {' '.join(VARIABLES)}; do "
                    f'if [ -n "${{!v+x}}" ]; then declare -p "$v"; fi; done > {state}.new\n'
                )
                result = subprocess.run(
                    ["bash", "-c", script], cwd=folder, capture_output=True, text=True, env=env
                )
                if result.returncode != 0:
                    raise SystemExit(f"{command}\nfailed:\n{result.stdout}\n{result.stderr}")
                Path(f"{state}.new").replace(state)
                commands.append(command)
                outputs.append(result.stdout)
                if step.name:
                    named[step.name] = result.stdout
            return _markdown(commands, outputs)
        finally:
            server.terminate()
            server.wait(timeout=30)
            log.close()


_VOLATILE = [
    (re.compile(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?Z"), "<time>"),
    (re.compile(r'("(?:token|prefix)": ")[^"]+"'), r'\1<token>"'),
    (re.compile(r"^[A-Za-z0-9_-]{43}$", re.M), "<token>"),
    (re.compile(r"[A-Za-z0-9_-]{20,}:[A-Za-z0-9_-]{6}:[A-Za-z0-9_-]{20,}"), "<signed>"),
]


def masked(text: str) -> str:
    for pattern, replacement in _VOLATILE:
        text = pattern.sub(replacement, text)
    return text


def current() -> str:
    doc = DOC.read_text()
    return doc[doc.index(BEGIN) : doc.index(END) + len(END)]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--check", action="store_true", help="compare with docs/api-transcript.md")
    args = parser.parse_args()
    fresh = run()
    if args.check:
        old, new = masked(current()), masked(fresh)
        if old != new:
            diff = difflib.unified_diff(
                old.splitlines(),
                new.splitlines(),
                "docs/api-transcript.md",
                "this run",
                lineterm="",
            )
            print("\n".join(diff))
            return 1
        print("docs/api-transcript.md: the transcript runs as written")
        return 0
    doc = DOC.read_text()
    start, end = doc.index(BEGIN), doc.index(END) + len(END)
    DOC.write_text(doc[:start] + fresh + doc[end:])
    print(f"wrote the transcript into {DOC.relative_to(ROOT)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
