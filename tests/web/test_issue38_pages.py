"""Issue 38 on the page, without a browser: the next table where it is your turn, the
marks of the table's own moves (autopilot, forced), a seat on autopilot shown to
everyone, the account page's Away and Play sections, and the new-table form's
autopilot switch (PRODUCT.md rulings 20 and 21).

Every situation is reached by playing: the other player moves until it is
alice's turn, alice marks herself away through the page, bob asks for his
forced moves at once. Deadlines are made equal with a stopped clock
(time_machine), never written by hand.
"""

from __future__ import annotations

import html
import re
from datetime import UTC, datetime, timedelta

import pytest
import time_machine
from django.contrib.auth.models import User
from django.test import Client

from games import away, selectors, services
from games.models import Move, Seat, Table
from notifications import services as notifications
from tests.factories import legal_request, start_table
from tests.web.conftest import NEW_TABLE_FORM, logged_in, make_user
from tests.web.test_told_truly import end_by_concession, move_lines, record_of, replay_sentence
from web import present

pytestmark = pytest.mark.django_db

LIVE = {"X-Gamenook-Live": "1"}
T0 = datetime(2030, 5, 6, 9, 0, tzinfo=UTC)
NEXT = re.compile(r'data-next-table="(\d+)"')
TAG = re.compile(r"<[^>]+>")


def seat_of(table: Table, user: User) -> Seat:
    return Seat.objects.get(table=table, user=user)


def play_as(table: Table, user: User, pick: int = 0) -> None:
    """``user`` makes a legal move, as the page would (their seat's view's ``pick``-th)."""
    view = selectors.table_view(table, seat_of(table, user).number)
    assert view is not None
    services.table_apply_action(
        table_id=table.pk, user=user, data=legal_request(view, pick), expected_seq=None
    )


def until_turn_of(table: Table, user: User, other: User) -> Table:
    """``other`` plays until it is ``user``'s turn."""
    for _ in range(100):
        table.refresh_from_db()
        assert table.status == Table.Status.ACTIVE
        if table.to_act == seat_of(table, user).number:
            return table
        play_as(table, other)
    raise AssertionError("it never became their turn")


def play_on_the_page(client: Client, table: Table, user: User) -> str:
    """``user`` plays through the page until their turn is over (a drawn card may be
    theirs to play, a Skip gives them another turn); the last answer's live part."""
    for _ in range(20):
        table.refresh_from_db()
        view = selectors.table_view(table, seat_of(table, user).number)
        assert view is not None
        answer = client.post(
            f"/tables/{table.pk}/act/",
            {**legal_request(view), "expected_seq": table.seq},
            headers=LIVE,
        )
        assert answer.status_code == 200 and answer.json()["ok"]
        table.refresh_from_db()
        if table.to_act != seat_of(table, user).number:
            return str(answer.json()["html"])
        # Their turn still: the page asks them to play here, and offers nothing else.
        assert next_table(answer.json()["html"]) is None
    raise AssertionError("their turn never ended")


def next_id(user: User, exclude: int | None = None) -> int | None:
    found = selectors.next_turn_for(user, exclude_table_id=exclude)
    return None if found is None else found.table_id


def next_table(page: str) -> int | None:
    found = NEXT.findall(page)
    assert len(found) <= 1
    return int(found[0]) if found else None


def text_of(page: str) -> str:
    return re.sub(r"\s+", " ", html.unescape(TAG.sub(" ", page)))


# --- next game ----------------------------------------------------------------------


def test_after_a_move_the_page_offers_the_table_with_the_least_time_left() -> None:
    alice, bob = make_user("alice"), make_user("bob")
    with time_machine.travel(T0, tick=False):
        first = until_turn_of(start_table(alice, bob, turn_hours=24), alice, bob)
        slow = until_turn_of(start_table(alice, bob, turn_hours=72), alice, bob)
        fast = until_turn_of(start_table(alice, bob, turn_hours=12), alice, bob)
    assert first.pk < slow.pk < fast.pk
    with time_machine.travel(T0 + timedelta(hours=1), tick=False):
        client = logged_in(alice)
        # Her turn at the first table: the page asks her to play here, nothing else.
        assert next_table(client.get(f"/tables/{first.pk}/").content.decode()) is None
        fragment = play_on_the_page(client, first, alice)
        first.refresh_from_db()
        assert first.to_act != seat_of(first, alice).number  # bob's turn now
        # The 12-hour table ends first although it was opened last.
        assert next_table(fragment) == fast.pk
        words = text_of(fragment)
        assert f"Next: table {fast.pk}, 11 hours left" in words
        assert "key n" in words and 'aria-keyshortcuts="n"' in fragment
        # The live part served to a poll or a push says the same.
        assert next_table(client.get(f"/tables/{first.pk}/live/").content.decode()) == fast.pk
    assert next_id(alice, exclude=fast.pk) == slow.pk
    assert next_id(alice) == fast.pk


def test_equal_deadlines_are_offered_by_table_id() -> None:
    alice, bob = make_user("alice"), make_user("bob")
    with time_machine.travel(T0, tick=False):
        tables = [until_turn_of(start_table(alice, bob), alice, bob) for _ in range(3)]
        assert len({t.deadline_at for t in tables}) == 1
    assert next_id(alice) == tables[0].pk
    following = selectors.next_turn_for(alice, exclude_table_id=tables[0].pk)
    assert following is not None and following.table_id == tables[1].pk


def test_no_next_table_when_none_waits_and_never_another_players() -> None:
    alice, bob = make_user("alice"), make_user("bob")
    table = until_turn_of(start_table(alice, bob), alice, bob)
    other = until_turn_of(start_table(alice, bob), alice, bob)
    # Bob waits for alice everywhere: his pages offer nothing, alice's tables are hers.
    for page in (f"/tables/{table.pk}/", f"/tables/{other.pk}/live/"):
        assert next_table(logged_in(bob).get(page).content.decode()) is None
    assert selectors.next_turn_for(bob) is None
    # Alice's only other turn is this one: from it, nothing.
    assert next_id(alice, exclude=other.pk) == table.pk
    play_as(other, alice)
    play_as(table, alice)
    other.refresh_from_db()
    page = logged_in(alice).get(f"/tables/{other.pk}/").content.decode()
    if other.to_act != seat_of(other, alice).number:
        assert next_table(page) is None


def test_a_seat_on_autopilot_is_not_the_players_turn_to_be_offered() -> None:
    alice, bob = make_user("alice"), make_user("bob")
    with time_machine.travel(T0, tick=False):
        played_for_her = until_turn_of(start_table(alice, bob, turn_hours=12), alice, bob)
        waits = until_turn_of(start_table(alice, bob, turn_hours=72, autopilot=False), alice, bob)
        # Away: the autopilot takes her seat where the host allows it; the other waits.
        away.away_set(user=alice, now=T0)
        assert seat_of(played_for_her, alice).autopilot == "normal"
        assert seat_of(waits, alice).autopilot == ""
    played_for_her.refresh_from_db()
    found = selectors.next_turn_for(alice)
    assert found is not None and found.table_id == waits.pk


def test_the_lobby_lists_your_turns_least_time_left_first_with_the_time_left() -> None:
    alice, bob = make_user("alice"), make_user("bob")
    with time_machine.travel(T0, tick=False):
        slow = until_turn_of(start_table(alice, bob, turn_hours=72), alice, bob)
        fast = until_turn_of(start_table(alice, bob, turn_hours=12), alice, bob)
    with time_machine.travel(T0 + timedelta(hours=2), tick=False):
        page = logged_in(alice).get("/").content.decode()
    section = page.split('id="my-turn-h"', 1)[1].split("</section>", 1)[0]
    rows = re.findall(r'<li class="table-row my-turn"><a href="/tables/(\d+)/">', section)
    assert rows == [str(fast.pk), str(slow.pk)]
    words = text_of(section)
    assert "10 hours left" in words and "2 days, 22 hours left" in words


# --- the table's own moves, marked (ruling 21) -------------------------------------------


def test_words_for_a_move_of_the_autopilot_and_a_forced_move() -> None:
    names = present.Names([{"number": 0, "name": "ann"}, {"number": 1, "name": "bob"}], viewer=0)
    draw = [{"type": "draw", "seat": 1, "count": 1, "reason": "draw"}]
    assert (
        present.move_sentence(draw, names, seat=1, source="autopilot")
        == "bob was on autopilot: a bot drew 1 card for them."
    )
    assert (
        present.move_sentence(draw, names, seat=1, source="forced")
        == "bob had only one move: the table drew 1 card for them."
    )
    mine = [{"type": "draw", "seat": 0, "count": 1, "reason": "draw", "faces": []}]
    assert present.move_sentence(mine, names, seat=0, source="forced").startswith(
        "You had only one move: the table drew 1 card for you"
    )


def test_the_autopilots_moves_are_marked_for_everyone_in_the_list_and_the_replay() -> None:
    alice, bob, carol = make_user("alice"), make_user("bob"), make_user("carol")
    table = until_turn_of(start_table(alice, bob, allow_watchers=True), bob, alice)
    account = logged_in(alice)
    assert (
        account.post(
            "/account/", {"form": "away", "start": "now", "end": "return", "level": "hard"}
        ).status_code
        == 302
    )
    seq = table.seq
    # Bob plays through the page; the table then plays alice's turns at once.
    client = logged_in(bob)
    for _ in range(6):
        table.refresh_from_db()
        if table.status != Table.Status.ACTIVE:
            break
        assert table.to_act == seat_of(table, bob).number  # never left waiting on alice
        view = selectors.table_view(table, seat_of(table, bob).number)
        assert view is not None
        client.post(f"/tables/{table.pk}/act/", {**legal_request(view), "expected_seq": table.seq})
    hers = list(Move.objects.filter(table=table, seq__gt=seq, seat=seat_of(table, alice).number))
    assert hers and {m.source for m in hers} == {Move.Source.AUTOPILOT}
    lines = {
        who: move_lines(logged_in(user).get(f"/tables/{table.pk}/?moves=round").content.decode())
        for who, user in (("alice", alice), ("bob", bob), ("carol", carol))
    }
    for move in hers:
        assert lines["alice"][move.seq].startswith("You were on autopilot: a bot "), lines["alice"]
        assert lines["bob"][move.seq].startswith("alice was on autopilot: a bot ")
        # A watcher reads the same mark (the rest names bob where bob reads "you").
        assert lines["carol"][move.seq].startswith("alice was on autopilot: a bot ")
    if table.status == Table.Status.ACTIVE:
        end_by_concession(table, bob)
    record = record_of(bob, table.pk)
    steps = [
        step
        for step, action in enumerate(record["actions"], start=1)
        if action["source"] == "autopilot"
    ]
    assert len(steps) >= len(hers)
    assert replay_sentence(logged_in(bob), table.pk, steps[0]).startswith(
        "alice was on autopilot: a bot "
    )


def test_a_forced_move_played_at_once_is_marked_as_the_tables() -> None:
    alice, bob = make_user("alice"), make_user("bob")
    table = start_table(alice, bob, allow_watchers=True)
    assert (
        logged_in(bob).post("/account/", {"form": "play", "forced_moves": "on"}).status_code == 302
    )
    assert away.play_settings_get(bob) == {"forced_moves": True}
    client = logged_in(alice)
    for _ in range(200):
        table.refresh_from_db()
        if Move.objects.filter(table=table, source=Move.Source.FORCED).exists():
            break
        assert table.status == Table.Status.ACTIVE
        if table.to_act == seat_of(table, bob).number:
            play_as(table, bob)  # his own choice among several
            continue
        view = selectors.table_view(table, seat_of(table, alice).number)
        assert view is not None
        client.post(f"/tables/{table.pk}/act/", {**legal_request(view), "expected_seq": table.seq})
    forced = Move.objects.filter(table=table, source=Move.Source.FORCED).first()
    assert forced is not None and forced.seat == seat_of(table, bob).number
    watcher = logged_in(make_user("carol"))
    for user, lead in ((alice, "bob had only one move: "), (bob, "You had only one move: ")):
        line = move_lines(logged_in(user).get(f"/tables/{table.pk}/?moves=round").content.decode())
        assert line[forced.seq].startswith(lead + "the table "), line[forced.seq]
    seen = move_lines(watcher.get(f"/tables/{table.pk}/?moves=round").content.decode())
    assert seen[forced.seq].startswith("bob had only one move: the table ")


# --- a seat on autopilot, shown to everyone (ruling 20) ----------------------------------


def test_everyone_and_a_watcher_see_a_seat_on_autopilot_and_until_when() -> None:
    alice, bob, carol = make_user("alice"), make_user("bob"), make_user("carol")
    with time_machine.travel(T0, tick=False):
        table = until_turn_of(start_table(alice, bob, allow_watchers=True), bob, alice)
        away.away_set(user=alice, ends_at=datetime(2030, 5, 12, 18, 0, tzinfo=UTC), now=T0)
        pages = {
            "bob": logged_in(bob).get(f"/tables/{table.pk}/").content.decode(),
            "carol": logged_in(carol).get(f"/tables/{table.pk}/live/").content.decode(),
            "alice": logged_in(alice).get(f"/tables/{table.pk}/").content.decode(),
        }
        lobby = text_of(logged_in(bob).get("/").content.decode())
    for who in ("bob", "carol"):
        words = text_of(pages[who])
        assert "On autopilot (Normal bot) until 12 May, 18:00 UTC" in words, who
        assert 'datetime="2030-05-12T18:00:00+00:00" data-local-time' in pages[who]
    assert "On autopilot (Normal bot) until 12 May, 18:00 UTC" in text_of(pages["alice"])
    assert "alice: on autopilot (Normal bot) until 12 May, 18:00 UTC" in lobby
    # Bob plays his own seat: no mark on it.
    assert text_of(pages["bob"]).count("On autopilot") == 1


def test_a_seat_on_autopilot_until_its_player_returns_says_so() -> None:
    seat = {"autopilot": "hard", "autopilot_until": None}
    theirs, yours = present.autopilot(seat), present.autopilot(seat, you=True)
    assert theirs is not None and theirs["text"] == "On autopilot (Hard bot) until they return"
    assert yours is not None and yours["text"] == "On autopilot (Hard bot) until you return"


# --- the account page: Away and Play ----------------------------------------------------


def away_section(client: Client) -> str:
    """The Away section as a person reads it, its "I am back" button said as [back]."""
    page = client.get("/account/").content.decode()
    section = page.split('id="away"', 1)[1].split("</section>", 1)[0]
    return text_of(section.replace('data-key="back">', 'data-key="back">[back] '))


def test_the_away_section_marks_away_now_until_return_and_back() -> None:
    alice = make_user("alice")
    client = logged_in(alice)
    words = away_section(client)
    assert "You are not away" in words
    assert "0 days used of 30 days, 30 days left" in words
    assert "[back]" not in words
    answer = client.post(
        "/account/", {"form": "away", "start": "now", "end": "return", "level": "easy"}
    )
    assert answer.status_code == 302
    status = away.away_status(alice)
    assert (status.state, status.level, status.ends_at) == ("away", "easy", None)
    words = away_section(client)
    assert "You are away." in words and "Easy bot" in words and "until you return" in words
    assert "[back] I am back" in words
    assert client.post("/account/", {"form": "back"}).status_code == 302
    assert away.away_status(alice).state == "off"
    assert "You are not away" in away_section(client)


def test_a_planned_time_away_is_read_in_the_players_time_zone() -> None:
    alice = make_user("alice")
    notifications.preferences_update(alice, time_zone="Europe/Paris")
    with time_machine.travel(T0, tick=False):
        client = logged_in(alice)
        answer = client.post(
            "/account/",
            {
                "form": "away",
                "start": "at",
                "starts_at": "2030-06-01T08:00",
                "end": "at",
                "ends_at": "2030-06-08T20:30",
                "level": "normal",
            },
        )
        assert answer.status_code == 302
        status = away.away_status(alice)
        words = away_section(client)
    assert status.state == "planned"
    # Paris is two hours ahead of UTC in June.
    assert status.starts_at == datetime(2030, 6, 1, 6, 0, tzinfo=UTC)
    assert status.ends_at == datetime(2030, 6, 8, 18, 30, tzinfo=UTC)
    assert "Planned: from 1 Jun 2030, 08:00 until 8 Jun 2030, 20:30" in words
    assert "Europe/Paris" in words and "[back] I am back" in words


def test_a_refused_time_away_says_why_next_to_the_form_with_400() -> None:
    alice = make_user("alice")
    with time_machine.travel(T0, tick=False):
        client = logged_in(alice)
        ended = client.post(
            "/account/",
            {
                "form": "away",
                "start": "now",
                "end": "at",
                "ends_at": "2030-05-01T10:00",
                "level": "normal",
            },
        )
        missing = client.post(
            "/account/", {"form": "away", "start": "at", "end": "return", "level": "normal"}
        )
    assert ended.status_code == 400
    page = ended.content.decode()
    form = page.split('class="away-form"', 1)[1].split("</form>", 1)[0]
    assert "The time away must end after it begins, and in the future." in html.unescape(form)
    assert missing.status_code == 400
    assert "Enter the date and time it begins." in missing.content.decode()
    assert away.away_status(alice).state == "off"


def test_the_play_section_turns_forced_moves_on_and_off() -> None:
    alice = make_user("alice")
    client = logged_in(alice)
    page = client.get("/account/").content.decode()
    label = (
        "Play my forced moves at once (a draw when nothing can be played, the only card I may play)"
    )
    assert label in html.unescape(page)
    assert (
        'name="forced_moves" id="id_forced_moves"' in page
        and "checked" not in page.split('name="forced_moves"', 1)[1].split(">", 1)[0]
    )
    assert client.post("/account/", {"form": "play", "forced_moves": "on"}).status_code == 302
    assert away.play_settings_get(alice) == {"forced_moves": True}
    page = client.get("/account/").content.decode()
    assert "checked" in page.split('name="forced_moves"', 1)[1].split(">", 1)[0]
    assert client.post("/account/", {"form": "play"}).status_code == 302
    assert away.play_settings_get(alice) == {"forced_moves": False}


# --- the new-table form: the autopilot switch -------------------------------------------


def test_the_new_table_form_asks_whether_away_seats_are_played_at_once() -> None:
    alice = make_user("alice")
    client = logged_in(alice)
    lobby = client.get("/").content.decode()
    box = re.search(r'<input type="checkbox" name="autopilot"[^>]*>', lobby)
    assert box is not None and "checked" in box.group(0)  # on by default
    on = client.post("/tables/new/", {**NEW_TABLE_FORM, "autopilot": "on"})
    off = client.post("/tables/new/", NEW_TABLE_FORM)  # unticked: not sent
    realtime = client.post(
        "/tables/new/", {**NEW_TABLE_FORM, "mode": "real_time", "move_timer": "fast"}
    )
    ids = [int(r["Location"].strip("/").split("/")[-1]) for r in (on, off, realtime)]
    autopilots = [Table.objects.get(pk=i).autopilot for i in ids]
    assert autopilots[:2] == [True, False]
    table_page = text_of(client.get(f"/tables/{ids[0]}/").content.decode())
    assert "an away player's turns are played at once by their autopilot" in table_page
    assert "an away player's seat waits for its deadline" in text_of(
        client.get(f"/tables/{ids[1]}/").content.decode()
    )
    # Real time has no autopilot (ruling 20): its page says nothing of it.
    assert "autopilot" not in text_of(client.get(f"/tables/{ids[2]}/").content.decode())
