"""No page of a classic Wild Cards table tells a seat, or a watcher, more than it may see.

The classic game's counterpart of ``test_leaks``: whole games with every house rule
on, played through the web client's own forms (jump-ins out of turn included), and
every HTML answer a seat or a watcher receives searched against the real state:

- nothing carries the seed, or the handle of a card in another hand or the draw pile;
- the hand on the page is exactly the seat's cards, each button naming one by handle;
- no other face shows outside the piles and the finished rounds (no other hand, no
  draw pile top), and a watcher's page shows no hand at all, finished rounds included;
- no other seat's legal actions: a seat's page offers "Jump in", a 7's targets or
  "Take N cards" only when its own view does, so nobody learns who could jump in;
- a move in words names only faces that seat may see (another seat's draws are counted).
"""

from __future__ import annotations

import os
import random
import re
from collections import Counter

import pytest
from django.test import Client, override_settings

import wildcards
from games import selectors
from games.models import Move, Table
from tests.web.classic import ALL_HOUSE_RULES, classic_form, state_of
from tests.web.conftest import logged_in, make_user
from tests.web.test_leaks import HANDLE, Page, parse

pytestmark = pytest.mark.django_db

#: (people, bots) of each game: the bots jump in too (ruling 21).
LAYOUTS = [(2, 1), (3, 0), (1, 2), (4, 1)]
GAMES = int(os.environ.get("WEB_LEAK_CLASSIC_GAMES", str(len(LAYOUTS))))
NAMES = {selectors.face_words(code, "wildcards")["name"]: code for code in set(wildcards.CODE_OF)}
NAME_RE = re.compile(
    r"\b(" + "|".join(re.escape(n) for n in sorted(NAMES, key=len, reverse=True)) + r")\b"
)
PUBLIC_ZONES = {"discard", "pile", "result"}


def check_page(html: str, table_id: int, seat: int | None) -> Page:
    """One HTML answer against the table's real state, for ``seat`` (None: a watcher)."""
    state = state_of(table_id)
    assert state.seed not in html
    hidden = list(state.draw)
    for number, hand in enumerate(state.hands):
        if number != seat:
            hidden.extend(hand)
    for card in hidden:
        assert wildcards.handle(state, card) not in html, "a hidden card's handle leaked"
    page = parse(html)
    by_zone: dict[str | None, list[str]] = {}
    for zone, code in page.cards:
        by_zone.setdefault(zone, []).append(code)
    zones = set(by_zone)
    table = Table.objects.get(pk=table_id)
    if seat is None:
        assert zones <= PUBLIC_ZONES, ("a watcher saw a face outside the piles", zones)
        assert page.handles == []
        assert "You may jump in" not in html and "data-take-penalty" not in html
        # A watcher sees of finished rounds only who won and the points (R28).
        assert "result-hands" not in html
    else:
        mine = {wildcards.handle(state, c): wildcards.CODE_OF[c] for c in state.hands[seat]}
        assert all(HANDLE.match(h) and h in mine for h in page.handles), page.handles
        if "hand" in by_zone or mine:
            assert Counter(by_zone.get("hand", [])) == Counter(mine.values())
        assert zones <= PUBLIC_ZONES | {"hand"}, zones
        view = selectors.table_view(table, seat)
        assert view is not None
        legal = view["legal_actions"] if table.status == Table.Status.ACTIVE else []
        own_jump = any(c.get("jump_in") for c in view["hand"])
        assert ("You may jump in" in html) == (own_jump and view["to_act"] != seat)
        assert (", jump in" in html) == own_jump
        assert ("data-take-penalty" in html) == any(a["type"] == "take_penalty" for a in legal)
        targets = {
            (a["card"], t) for a in legal for t in a.get("targets", []) if a["type"] == "play"
        }
        shown = set(re.findall(r'data-key="target-([0-9a-f]+)-(\d+)"', html))
        assert shown == {(card, str(t)) for card, t in targets}
    if "discard" in by_zone:
        assert by_zone["discard"] == [wildcards.CODE_OF[state.discard[-1]]]
    if "pile" in by_zone:
        assert by_zone["pile"] == [wildcards.CODE_OF[c] for c in state.discard]
    check_moves(page, table_id, seat)
    return page


def check_moves(page: Page, table_id: int, seat: int | None) -> None:
    """Each move in words names only faces the viewer may see in that move's events."""
    if not page.moves:
        return
    raw = {m.seq: m.payload["events"] for m in Move.objects.filter(table_id=table_id)}
    for seq, text in page.moves.items():
        allowed: set[str] = set()
        for event in wildcards.events_view(raw[seq], seat):
            if "face" in event:
                allowed.add(event["face"])
            allowed.update(event.get("faces", []))
        named = {NAMES[name] for name in NAME_RE.findall(text)}
        assert named <= allowed, (seq, text, named - allowed)


def request_from(html: str, rng: random.Random) -> dict[str, str] | None:
    """A move a person could make on this page, read off its controls (None: none)."""
    seq = parse(html).seq
    colors = re.findall(r'data-key="choose-(\w+)"', html)
    if colors:
        return {"type": "choose_color", "color": rng.choice(colors), "expected_seq": str(seq)}
    playable = re.findall(r'data-card="([0-9a-f]+)" data-playable="true"', html)
    options: list[dict[str, str]] = []
    for card in playable:
        move = {"type": "play", "card": card, "expected_seq": str(seq)}
        wild = re.findall(rf'data-key="color-{card}-(\w+)"', html)
        if wild:
            move["color"] = rng.choice(wild)
        target = re.findall(rf'data-key="target-{card}-(\d+)"', html)
        if target:
            move["target"] = rng.choice(target)
        options.append(move)
    if "data-take-penalty" in html:
        options.append({"type": "take_penalty", "expected_seq": str(seq)})
    elif 'data-key="pass"' in html:
        options.append({"type": "pass", "expected_seq": str(seq)})
    elif "data-draw" in html and not playable:
        options.append({"type": "draw", "expected_seq": str(seq)})
    return rng.choice(options) if options else None


def play_one_game(index: int) -> Counter[str]:
    rng = random.Random(1000 + index)
    people, bots = LAYOUTS[index % len(LAYOUTS)]
    users = [make_user() for _ in range(people)]
    clients: dict[int, Client] = {n: logged_in(u) for n, u in enumerate(users)}
    watcher = logged_in(make_user())
    host = clients[0]
    form = classic_form(people + bots, **ALL_HOUSE_RULES, allow_watchers="on")
    created = host.post("/tables/new/", form)
    assert created.status_code == 302
    table_id = int(created["Location"].strip("/").split("/")[-1])
    base = f"/tables/{table_id}/"
    for number in range(1, people):
        assert clients[number].post(base + "join/").status_code == 302
    for _ in range(bots):
        assert host.post(base + "bots/", {"level": "easy"}).status_code == 302
    # A known deal for each game, so that the run is the same from one machine to the next
    # but for the bots' seeds (the table's id): people get their chances to jump in.
    with override_settings(GAMENOOK_GAME_SEED=f"web-classic-leaks-{index}"):
        started = host.post(base + "start/", HTTP_X_GAMENOOK_LIVE="1")
    assert started.status_code == 200
    check_page(started.json()["html"], table_id, 0)
    counts: Counter[str] = Counter(games=1)
    for _ in range(3000):
        state = state_of(table_id)
        if state.over:
            break
        # A person who may jump in does, out of turn (a bot may have been first).
        jumpers = [
            n
            for n in clients
            if n != state.current
            and "You may jump in" in clients[n].get(base + "live/").content.decode()
        ]
        counts["jump_chances"] += bool(jumpers)
        seat = jumpers[0] if jumpers else state.current
        assert seat in clients, "a bot's turn was left waiting"
        html = clients[seat].get(base + "live/").content.decode()
        check_page(html, table_id, seat)
        move = request_from(html, rng)
        assert move is not None, "the page offered no move to the seat to act"
        answer = clients[seat].post(base + "act/", move, HTTP_X_GAMENOOK_LIVE="1")
        assert answer.status_code in (200, 409, 422), answer.content[:300]
        check_page(answer.json()["html"], table_id, seat)
        counts["moves"] += 1
        counts["jump_ins"] += seat != state.current
        for other in [*(n for n in clients if n != seat), None]:
            if rng.random() < 0.3:
                asker = watcher if other is None else clients[other]
                url = base if rng.random() < 0.5 else base + "live/"
                response = asker.get(url)
                assert response.status_code == 200
                check_page(response.content.decode(), table_id, other)
                counts["looks"] += 1
    assert state_of(table_id).over, "the game did not end"
    for number, asker in [*clients.items(), (None, watcher)]:
        check_page(asker.get(base).content.decode(), table_id, number)
        lobby = asker.get("/").content.decode()
        assert state_of(table_id).seed not in lobby
        counts["finals"] += 1
    return counts


def test_whole_classic_games_with_every_house_rule_never_leak() -> None:
    totals: Counter[str] = Counter()
    for index in range(GAMES):
        totals.update(play_one_game(index))
    assert totals["games"] == GAMES
    assert totals["moves"] > GAMES * 5
    assert totals["looks"] > GAMES
    assert totals["jump_chances"] > 0, "nobody could jump in: the out-of-turn pages went unchecked"
    assert totals["jump_ins"] > 0
