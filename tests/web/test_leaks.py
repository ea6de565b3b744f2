"""No page or fragment of the web client tells a seat, or a watcher, more than it may see.

Plays whole games through the web client's own forms (Django's test client
with a session, as a browser would) and searches every HTML answer a seat or
a watcher receives (the table page, the live fragment, the answer to a move,
the lobby) against the table's real state, as the API's leak tests do:

- nothing carries the seed or the handle of a card the viewer may not see;
- the hand on the page is exactly the seat's cards' active faces, each button
  naming a card of that hand by its handle, never a card number;
- every other hand shows exactly its inactive faces, in sorted order;
- the draw pile's top shows its inactive face to a seat, nothing to a watcher;
- a watcher's page shows no face of any hand at all;
- a move in words names only faces that seat may see (a card another seat drew
  is only counted).

Real-time games too: move timers run out, players strike out (and then watch),
disconnect and come back, and every page of each of them and of a watcher is
checked the same way.
"""

from __future__ import annotations

import os
import random
import re
from collections import Counter
from datetime import UTC, datetime
from html.parser import HTMLParser
from typing import Any

import pytest
import time_machine
from django.contrib.auth.models import User
from django.test import Client

import flip
from flip.cards import CODE_OF, SORT_OF
from games import selectors, services
from games.models import Connection, Move, Seat, Table
from tests.web.conftest import logged_in, make_user

pytestmark = pytest.mark.django_db

LAYOUTS = [(1, 1), (2, 1), (1, 2), (2, 0), (3, 0), (1, 1)]
#: Each layout once in ``make test``; many more behind the ``slow`` marker, on other seeds.
GAMES = int(os.environ.get("WEB_LEAK_GAMES", str(len(LAYOUTS))))
SLOW_GAMES = int(os.environ.get("WEB_LEAK_SLOW_GAMES", "60"))
SORT_BY_CODE = {CODE_OF[side][c]: SORT_OF[side][c] for side in (0, 1) for c in range(112)}
HANDLE = re.compile(r"^[0-9a-f]{12}$")
#: Every face's name in words, longest first, so "Wild Draw 2" is not read as "Wild".
NAMES = {selectors.face_words(code)["name"]: code for side in CODE_OF for code in set(side)}
NAME_RE = re.compile("|".join(re.escape(n) for n in sorted(NAMES, key=len, reverse=True)))
PUBLIC_ZONES = {"discard", "pile", "result"}
VOID = {"input", "meta", "link", "br", "img", "hr", "source"}


class Page(HTMLParser):
    """What a page shows: each card face with the zone it sits in, handles, moves."""

    def __init__(self) -> None:
        super().__init__()
        self.stack: list[tuple[str, str | None, bool]] = []
        self.cards: list[tuple[str | None, str]] = []
        self.handles: list[str] = []
        self.moves: dict[int, str] = {}
        self._move: int | None = None
        self.seq: int | None = None

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        zone = self._attrs(attrs)
        if tag not in VOID:
            self.stack.append((tag, zone, any(k == "data-move" for k, _ in attrs)))

    def handle_startendtag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self._attrs(attrs)  # <use .../>: nothing to close later

    def _attrs(self, attrs: list[tuple[str, str | None]]) -> str | None:
        a = dict(attrs)
        zone = a.get("data-zone") or (self.stack[-1][1] if self.stack else None)
        if self.seq is None and "data-seq" in a:
            self.seq = int(a["data-seq"] or 0)
        if "data-face" in a and "card" in (a.get("class") or "").split():
            self.cards.append((zone, a["data-face"] or ""))
        if "data-card" in a:
            self.handles.append(a["data-card"] or "")
        if "data-move" in a:
            self._move = int(a["data-move"] or 0)
            self.moves[self._move] = ""
        return zone

    def handle_endtag(self, tag: str) -> None:
        while self.stack:
            open_tag, _, is_move = self.stack.pop()
            if is_move:
                self._move = None
            if open_tag == tag:
                break

    def handle_data(self, data: str) -> None:
        if self._move is not None:
            self.moves[self._move] += data


def parse(html: str) -> Page:
    page = Page()
    page.feed(html)
    return page


def real(table_id: int) -> flip.GameState:
    state = Table.objects.get(pk=table_id).state
    assert state is not None
    return flip.GameState.from_dict(state)


def check_page(html: str, table_id: int, seat: int | None) -> Page:
    """One HTML answer against the table's real state, for ``seat`` (None: a watcher)."""
    state = real(table_id)
    assert state.seed not in html
    hidden = list(state.draw)
    for number, hand in enumerate(state.hands):
        if number != seat:
            hidden.extend(hand)
    for card in hidden:
        assert flip.handle(state, card) not in html, "a hidden card's handle leaked"
    page = parse(html)
    side, other = state.side, state.side ^ 1
    by_zone: dict[str | None, list[str]] = {}
    for zone, code in page.cards:
        by_zone.setdefault(zone, []).append(code)
    zones = set(by_zone)
    if seat is None:
        assert zones <= PUBLIC_ZONES, ("a watcher saw a face outside the piles", zones)
        assert page.handles == []
    else:
        mine = {flip.handle(state, c): CODE_OF[side][c] for c in state.hands[seat]}
        assert all(HANDLE.match(h) and h in mine for h in page.handles), page.handles
        if "hand" in by_zone or mine:
            assert Counter(by_zone.get("hand", [])) == Counter(mine.values())
        for number, hand in enumerate(state.hands):
            if number == seat:
                assert f"seat-{number}" not in zones
                continue
            faces = sorted((CODE_OF[other][c] for c in hand), key=lambda f: (SORT_BY_CODE[f], f))
            assert by_zone.get(f"seat-{number}", []) == faces
        top = [CODE_OF[other][state.draw[-1]]] if state.draw else []
        assert by_zone.get("draw-top", []) == top
        allowed = PUBLIC_ZONES | {"hand", "draw-top"} | {f"seat-{n}" for n in range(state.seats)}
        assert zones <= allowed, zones
    if "discard" in by_zone:
        assert by_zone["discard"] == [CODE_OF[side][state.discard[-1]]]
    if "pile" in by_zone:
        assert by_zone["pile"] == [CODE_OF[side][c] for c in state.discard]
    check_moves(page, table_id, seat)
    return page


def check_moves(page: Page, table_id: int, seat: int | None) -> None:
    """Each move in words names only faces the viewer may see in that move's events."""
    if not page.moves:
        return
    raw = {m.seq: m.payload["events"] for m in Move.objects.filter(table_id=table_id)}
    for seq, text in page.moves.items():
        allowed: set[str] = set()
        for event in flip.events_view(raw[seq], seat):
            for key in ("face",):
                if key in event:
                    allowed.add(event[key])
            allowed.update(event.get("faces", []))
        named = {NAMES[name] for name in NAME_RE.findall(text)}
        assert named <= allowed, (seq, text, named - allowed)


# --- playing by the forms ----------------------------------------------------------


def choose(html: str, rng: random.Random) -> dict[str, str]:
    """A move a person could make on this page: a marked card (and a colour), or a draw."""
    seq = parse(html).seq
    colors = re.findall(r'data-key="choose-(\w+)"', html)
    if colors:
        return {"type": "choose_color", "color": rng.choice(colors), "expected_seq": str(seq)}
    playable = re.findall(r'data-card="([0-9a-f]+)" data-playable="true"', html)
    if playable:
        card = rng.choice(playable)
        move = {"type": "play", "card": card, "expected_seq": str(seq)}
        wild = re.findall(rf'data-key="color-{card}-(\w+)"', html)
        if wild:
            move["color"] = rng.choice(wild)
        return move
    if 'data-key="pass"' in html:
        return {"type": "pass", "expected_seq": str(seq)}
    return {"type": "draw", "expected_seq": str(seq)}


def play_one_game(index: int) -> Counter[str]:
    rng = random.Random(index)
    people, bots = LAYOUTS[index % len(LAYOUTS)]
    users = [make_user() for _ in range(people)]
    clients: dict[int, Client] = {n: logged_in(u) for n, u in enumerate(users)}
    watcher = logged_in(make_user())
    host = clients[0]
    created = host.post(
        "/tables/new/",
        {
            "seat_count": people + bots,
            "turn_hours": 24,
            "timeout_policy": "bot",
            "flip-scoring": "single",
            "flip-target": "500",
            "flip-two_seat_reverse_skips": "on",
            "allow_watchers": "on",
        },
    )
    table_id = int(created["Location"].strip("/").split("/")[-1])
    base = f"/tables/{table_id}/"
    for number in range(1, people):
        assert clients[number].post(base + "join/").status_code == 302
    for _ in range(bots):
        assert host.post(base + "bots/", {"level": "easy"}).status_code == 302
    started = host.post(base + "start/", HTTP_X_GAMENOOK_LIVE="1")
    assert started.status_code == 200
    check_page(started.json()["html"], table_id, 0)
    counts: Counter[str] = Counter(games=1)
    for _ in range(3000):
        state = real(table_id)
        if state.over:
            break
        seat = state.current
        assert seat in clients, "a bot's turn was left waiting"
        page = clients[seat].get(base + "live/")
        html = page.content.decode()
        check_page(html, table_id, seat)
        answer = clients[seat].post(base + "act/", choose(html, rng), HTTP_X_GAMENOOK_LIVE="1")
        assert answer.status_code == 200, answer.content[:300]
        check_page(answer.json()["html"], table_id, seat)
        counts["moves"] += 1
        if rng.random() < 0.15:
            who = rng.choice([*(n for n in clients if n != seat), None])
            asker = watcher if who is None else clients[who]
            url = base if rng.random() < 0.5 else base + "live/"
            response = asker.get(url)
            assert response.status_code == 200
            check_page(response.content.decode(), table_id, who)
            counts["looks"] += 1
    assert real(table_id).over, "the game did not end"
    for number, asker in [*clients.items(), (None, watcher)]:
        check_page(asker.get(base).content.decode(), table_id, number)
        lobby = asker.get("/").content.decode()
        assert real(table_id).seed not in lobby
        counts["finals"] += 1
    return counts


def play_games(indexes: range) -> None:
    totals: Counter[str] = Counter()
    for index in indexes:
        totals.update(play_one_game(index))
    assert totals["games"] == len(indexes)
    assert totals["moves"] > len(indexes) * 5
    assert totals["looks"] > len(indexes)


def test_whole_games_through_the_web_client_never_leak_what_a_seat_may_not_see() -> None:
    play_games(range(GAMES))


@pytest.mark.slow
def test_many_more_whole_games_through_the_web_client_never_leak() -> None:
    play_games(range(GAMES, GAMES + SLOW_GAMES))


# --- real-time tables ------------------------------------------------------------------
#
# The same checks over whole real-time games (rulings 17 and 18): move timers run out
# (ruling 4's move and a strike; at the third a bot takes the seat and its player
# watches), players disconnect (the seat is held, then a bot plays it until they are
# back). Each seat's page, and the page of a player who struck out, shows the seat's
# own view or the watcher's, never another seat's active faces.

RT_GAMES = int(os.environ.get("WEB_LEAK_RT_GAMES", "4"))
RT_LAYOUTS = [(2, 1), (3, 0), (2, 0), (1, 2)]


def viewer(table_id: int, user_id: int) -> int | None:
    """The seat whose view ``user_id`` gets now: theirs, also once struck out (ruling 18)."""
    seat = Seat.objects.filter(table_id=table_id, user_id=user_id).first()
    return None if seat is None else seat.number


def check_everyone(table_id: int, clients: dict[int, tuple[int, Client]], watcher: Client) -> int:
    """Every player's table page and live part, and the watcher's: returns how many."""
    base = f"/tables/{table_id}/"
    looked = 0
    for user_id, client in [*clients.values(), (0, watcher)]:
        seat = viewer(table_id, user_id) if user_id else None
        for url in (base, base + "live/"):
            response = client.get(url)
            assert response.status_code == 200
            html = response.content.decode()
            assert "data-move-timer" in html or real(table_id).over
            check_page(html, table_id, seat)
            looked += 1
    return looked


def rt_event(table_id: int, rng: random.Random, clock: Any, users: dict[int, int]) -> str | None:
    """Now and then: a move timer runs out, a player leaves their page or comes back."""
    table = Table.objects.get(pk=table_id)
    roll = rng.random()
    if roll < 0.12 and table.deadline_at is not None:
        clock.move_to(table.deadline_at)
        services.table_timeout(table_id=table_id, turn=table.turn)
        return "timeouts"
    if roll < 0.24:
        number = rng.choice(sorted(users))
        channel = f"rt-{table_id}-{number}"
        if Connection.objects.filter(channel=channel).exists():
            services.presence_close(channel=channel)
            held = Seat.objects.get(table_id=table_id, number=number).held_until
            if held is not None:
                clock.move_to(held)
                services.seat_hold_expire(table_id=table_id, number=number)
            return "disconnects"
        user = User.objects.get(pk=users[number])
        services.presence_open(table_id=table_id, user=user, channel=channel)
        return "connects"
    return None


def play_one_realtime_game(index: int, clock: Any) -> Counter[str]:
    rng = random.Random(1000 + index)
    people, bots = RT_LAYOUTS[index % len(RT_LAYOUTS)]
    users = [make_user() for _ in range(people)]
    clients = {n: (u.pk, logged_in(u)) for n, u in enumerate(users)}
    watcher = logged_in(make_user())
    host = clients[0][1]
    created = host.post(
        "/tables/new/",
        {
            "seat_count": people + bots,
            "mode": "real_time",
            "move_timer": "fast",
            "flip-scoring": "single",
            "flip-target": "500",
            "allow_watchers": "on",
        },
    )
    table_id = int(created["Location"].strip("/").split("/")[-1])
    base = f"/tables/{table_id}/"
    for number in range(1, people):
        assert clients[number][1].post(base + "join/").status_code == 302
    for _ in range(bots):
        assert host.post(base + "bots/", {"level": "easy"}).status_code == 302
    for number, (user_id, _) in clients.items():  # every player's page is open
        services.presence_open(
            table_id=table_id, user=User.objects.get(pk=user_id), channel=f"rt-{table_id}-{number}"
        )
    assert host.post(base + "start/", HTTP_X_GAMENOOK_LIVE="1").status_code == 200
    counts: Counter[str] = Counter(games=1)
    seat_users = {n: u for n, (u, _) in clients.items()}
    for _ in range(3000):
        services.table_run_bots(table_id=table_id)  # a bot's or an away player's turns
        state = real(table_id)
        if state.over:
            break
        if rng.random() < 0.2:
            counts["looks"] += check_everyone(table_id, clients, watcher)
        if (event := rt_event(table_id, rng, clock, seat_users)) is not None:
            counts[event] += 1
            continue
        seat = state.current
        mover = next((c for n, (u, c) in clients.items() if viewer(table_id, u) == seat), None)
        if mover is None or Seat.objects.get(table_id=table_id, number=seat).bot_plays:
            continue  # a bot plays it (the next loop runs it)
        html = mover.get(base + "live/").content.decode()
        check_page(html, table_id, seat)
        answer = mover.post(base + "act/", choose(html, rng), HTTP_X_GAMENOOK_LIVE="1")
        assert answer.status_code == 200, answer.content[:300]
        check_page(answer.json()["html"], table_id, seat)
        counts["moves"] += 1
    assert real(table_id).over, "the game did not end"
    counts["looks"] += check_everyone(table_id, clients, watcher)
    counts["replaced"] += Seat.objects.filter(table_id=table_id, struck_out=True).count()
    return counts


def test_whole_real_time_games_never_leak_what_a_seat_may_not_see() -> None:
    totals: Counter[str] = Counter()
    with time_machine.travel(datetime(2030, 3, 1, 9, 0, tzinfo=UTC), tick=False) as clock:
        for index in range(RT_GAMES):
            totals.update(play_one_realtime_game(index, clock))
    assert totals["games"] == RT_GAMES
    # The games went through what real time adds: timeouts, strike-outs, holds, returns.
    assert totals["timeouts"] > 0 and totals["replaced"] > 0, totals
    assert totals["disconnects"] > 0 and totals["connects"] > 0, totals
    assert totals["looks"] > RT_GAMES * 10, totals
