"""What happened, told truly (issue 36 §2; PRODUCT.md ruling 21).

A move the table made for a seat (its time ran out, or a bot played for its
player while they were away or struck out) says so in visible words for
everyone, the same words in the move list, the replay and (as data) the game
record; Skip Everyone's line says what it did; the move list can show the
whole round; the final ranking says why players with equal points stand as
they do.
"""

from __future__ import annotations

import html
import random
import re
from datetime import timedelta
from typing import Any

import pytest
from django.contrib.auth.models import User
from django.test import Client
from django.utils import timezone
from rest_framework.test import APIClient

import flip
from games import selectors, services
from games.models import Move, Seat, Table
from tests.factories import first_legal_request, start_table
from tests.web.conftest import logged_in, make_user
from web import present

pytestmark = pytest.mark.django_db

LIVE = {"X-Gamenook-Live": "1"}
MOVE_LINE = re.compile(r'<li data-move="(\d+)">(.*?)</li>')
HIDDEN = re.compile(r'<span class="visually-hidden">.*?</span>')
TAG = re.compile(r"<[^>]+>")


def move_lines(page: str) -> dict[int, str]:
    """The move list's lines by seq, as a person reads them (visible text only)."""
    return {
        int(seq): html.unescape(TAG.sub("", HIDDEN.sub("", text))).strip()
        for seq, text in MOVE_LINE.findall(page)
    }


def replay_sentence(client: Client, table_id: int, step: int) -> str:
    page = client.get(f"/tables/{table_id}/replay/?step={step}", headers=LIVE).content.decode()
    found = re.search(r"<p class=\"replay-move\" data-sentence>([^<]*)</p>", page)
    assert found is not None
    return html.unescape(found.group(1))


def to_act(table: Table) -> Seat:
    table.refresh_from_db()
    assert table.state is not None
    return Seat.objects.select_related("user").get(table=table, number=table.state["current"])


def play_first_legal(table: Table) -> None:
    """The person to act makes their first legal action."""
    seat = to_act(table)
    assert seat.user is not None
    state = flip.GameState.from_dict(table.state)  # type: ignore[arg-type]
    services.table_apply_action(
        table_id=table.pk,
        user=seat.user,
        data=first_legal_request(state, seat.number),
        expected_seq=None,
    )


def run_out(table: Table) -> None:
    """The turn now running misses its deadline, and the table's timeout applies."""
    table.refresh_from_db()
    Table.objects.filter(pk=table.pk).update(deadline_at=timezone.now() - timedelta(seconds=1))
    assert services.table_timeout(table_id=table.pk, turn=table.turn) is not None
    table.refresh_from_db()


def end_by_concession(table: Table, user: User) -> None:
    services.table_concede(table_id=table.pk, user=user)
    table.refresh_from_db()
    assert table.status == Table.Status.FINISHED


def record_of(user: User, table_id: int) -> dict[str, Any]:
    client = APIClient()
    client.force_authenticate(user)
    response = client.get(f"/api/v1/tables/{table_id}/record/")
    assert response.status_code == 200
    body: dict[str, Any] = response.json()
    return body


def steps_of(record: dict[str, Any], seqs: list[int], table: Table) -> list[int]:
    """The replay steps of the moves ``seqs``: a step per action of the record, in order."""
    actions = [
        m.seq
        for m in Move.objects.filter(table=table).order_by("seq")[1:]
        if m.seat is not None and m.action in flip.ACTION_TYPES
    ]
    assert len(actions) == len(record["actions"])
    return [actions.index(seq) + 1 for seq in seqs]


# --- a timeout -----------------------------------------------------------------------


def test_a_timed_out_move_says_the_table_made_it_for_everyone_in_the_list_and_the_replay() -> None:
    alice, bob, carol = make_user(), make_user(), make_user()
    table = start_table(alice, bob, allow_watchers=True)
    slow = to_act(table)
    assert slow.user is not None
    name = slow.user.username
    other = bob if slow.user == alice else alice
    seq = table.seq
    run_out(table)
    timed_out = list(
        Move.objects.filter(table=table, seq__gt=seq).values_list("seq", "source", "seat")
    )
    assert timed_out and all(source == Move.Source.TIMEOUT for _, source, _ in timed_out)
    seqs = [s for s, _, _ in timed_out]

    theirs = move_lines(logged_in(slow.user).get(f"/tables/{table.pk}/").content.decode())
    others = move_lines(logged_in(other).get(f"/tables/{table.pk}/").content.decode())
    watcher = move_lines(logged_in(carol).get(f"/tables/{table.pk}/live/").content.decode())
    for seq in seqs:
        assert theirs[seq].startswith("Your time ran out: the table "), theirs[seq]
        assert " for you" in theirs[seq]
        for lines in (others, watcher):
            assert lines[seq].startswith(f"{name}'s time ran out: the table "), lines[seq]
            assert " for them" in lines[seq]

    end_by_concession(table, other)
    record = record_of(other, table.pk)
    steps = steps_of(record, seqs, table)
    assert [record["actions"][step - 1]["source"] for step in steps] == ["timeout"] * len(steps)
    client = logged_in(carol)
    for seq, step in zip(seqs, steps, strict=True):
        # The replay names every card; the words of the mark are the move list's.
        told = replay_sentence(client, table.pk, step)
        assert told.startswith(watcher[seq].split(" for them")[0] + " for them"), told


# --- a bot for a person who is away, or struck out ---------------------------------------


def test_a_bot_playing_for_an_away_player_is_marked_in_the_list_the_record_and_the_replay() -> None:
    alice, bob = make_user(), make_user()
    table = start_table(alice, bob, move_timer="fast", allow_watchers=True)
    away = to_act(table)
    assert away.user is not None
    name = away.user.username
    other = bob if away.user == alice else alice
    # The hold ran out (ruling 18): a bot plays the seat until the player returns.
    Seat.objects.filter(pk=away.pk).update(away=True)
    seq = table.seq
    assert services.table_run_bot_turn(table_id=table.pk) is not None
    played = list(Move.objects.filter(table=table, seq__gt=seq).order_by("seq"))
    assert played and {m.source for m in played} == {Move.Source.BOT}

    theirs = move_lines(logged_in(away.user).get(f"/tables/{table.pk}/").content.decode())
    others = move_lines(logged_in(other).get(f"/tables/{table.pk}/").content.decode())
    for move in played:
        assert theirs[move.seq].startswith("You were away: a bot "), theirs[move.seq]
        assert others[move.seq].startswith(f"{name} was away: a bot "), others[move.seq]
        assert " for them" in others[move.seq]
        assert "(bot)" not in others[move.seq]

    end_by_concession(table, other)
    record = record_of(other, table.pk)
    steps = steps_of(record, [m.seq for m in played], table)
    for step in steps:
        assert record["actions"][step - 1]["source"] == "bot"
        assert record["actions"][step - 1]["stand_in"] == "away"
        told = replay_sentence(logged_in(other), table.pk, step)
        assert told.startswith(f"{name} was away: a bot "), told
    # A bot's own move carries no mark and no stand_in.
    assert all(
        "stand_in" not in action for action in record["actions"] if action["source"] != "bot"
    )
    assert flip.replay(record).over


def test_a_struck_out_seats_bot_moves_say_so_and_its_earlier_moves_stay_the_players() -> None:
    alice, bob = make_user(), make_user()
    table = start_table(alice, bob, move_timer="fast")
    slow = to_act(table)
    assert slow.user is not None
    name = slow.user.username
    other = bob if slow.user == alice else alice
    for _ in range(200):
        slow.refresh_from_db()
        if slow.struck_out:
            break
        if to_act(table).number == slow.number:
            run_out(table)
        else:
            play_first_legal(table)
    assert slow.struck_out
    struck = Move.objects.get(table=table, action="replace_with_bot").seq
    for _ in range(200):
        if Move.objects.filter(table=table, seq__gt=struck, seat=slow.number).exists():
            break
        if to_act(table).number == slow.number:
            services.table_run_bot_turn(table_id=table.pk)
        else:
            play_first_legal(table)
    by_bot = list(Move.objects.filter(table=table, seq__gt=struck, seat=slow.number))
    assert by_bot and {m.source for m in by_bot} == {Move.Source.BOT}
    timed_out = list(
        Move.objects.filter(table=table, seq__lt=struck, seat=slow.number, source="timeout")
    )

    log = selectors.table_log(table, None)
    names = present.Names(selectors.table_seats(table), None)
    lines = {m["seq"]: m["text"] for m in present.moves(log, names)}
    for move in by_bot:
        assert lines[move.seq].startswith(f"{name} was struck out: a bot "), lines[move.seq]
    for move in timed_out:
        assert lines[move.seq].startswith(f"{name}'s time ran out: the table ")
    page = move_lines(logged_in(other).get(f"/tables/{table.pk}/").content.decode())
    for move in by_bot:
        if move.seq in page:
            assert page[move.seq] == lines[move.seq]

    end_by_concession(table, other)
    record = record_of(slow.user, table.pk)
    steps = steps_of(record, [m.seq for m in by_bot], table)
    for step in steps:
        assert record["actions"][step - 1]["stand_in"] == "struck_out"
        told = replay_sentence(logged_in(slow.user), table.pk, step)
        assert told.startswith("" + f"{name} was struck out: a bot "), told


def test_the_record_refuses_a_stand_in_that_is_not_a_bots() -> None:
    state, events = flip.new_game(flip.Options(seats=2), seed="told")
    recorder = flip.Recorder(state.options, state.seed, events)
    action = flip.timeout_action(state)
    with pytest.raises(ValueError, match="stands in"):
        recorder.add(state.current, action, "player", [], stand_in="away")
    with pytest.raises(ValueError, match="stands in"):
        recorder.add(state.current, action, "bot", [], stand_in="asleep")
    recorder.add(state.current, action, "bot", [], stand_in="struck_out")
    assert recorder.to_dict()["actions"][0]["stand_in"] == "struck_out"


# --- Skip Everyone -------------------------------------------------------------------


def test_skip_everyones_line_says_everyone_else_loses_their_turn_and_its_player_plays_again() -> (
    None
):
    """Every Skip Everyone of seeded random games, told against what the engine did next."""
    seen = 0
    for game in range(40):
        rng = random.Random(game)
        state, _ = flip.new_game(flip.Options(seats=3), seed=f"skip-{game}")
        names = present.Names(
            [{"number": n, "name": f"p{n}"} for n in range(3)], viewer=None, open_faces=True
        )
        for _ in range(600):
            if state.over:
                break
            seat = state.current
            action = rng.choice(flip.legal_actions(state, seat))
            state, caused = flip.apply(state, seat, action)
            events = flip.events_view(caused, None)
            plays = [e for e in events if e["type"] == "play" and "skip-everyone" in e["face"]]
            if not plays:
                continue
            line = present.move_sentence([dict(e) for e in events], names)
            ended = any(e["type"] == "round_end" for e in events)
            if ended:
                assert "plays again" not in line, line
                continue
            seen += 1
            assert state.current == seat  # what the engine did: the same player again
            assert line.endswith(f": everyone else loses their turn; p{seat} plays again."), line
    assert seen > 0


def test_skip_everyone_said_to_its_player() -> None:
    names = present.Names([{"number": 1, "name": "bob"}], viewer=0)
    events = [{"type": "play", "seat": 0, "face": "bolt-skip-everyone"}]
    line = present.move_sentence(events, names)
    assert line.endswith("Skip Everyone: everyone else loses their turn; you play again.")


# --- the whole round -----------------------------------------------------------------


def test_the_move_list_shows_the_whole_round_when_asked_without_javascript() -> None:
    alice, bob, carol = make_user(), make_user(), make_user()
    table = start_table(alice, bob, allow_watchers=True)
    for _ in range(400):
        table.refresh_from_db()
        if table.seq > present.RECENT_MOVES + 8 or table.status != Table.Status.ACTIVE:
            break
        play_first_legal(table)
    assert table.status == Table.Status.ACTIVE and table.state is not None
    round_number = table.state["round"]
    # The round's moves: from the one that dealt it (the last of the round before).
    dealt = Move.objects.filter(table=table, round=round_number - 1).order_by("-seq").first()
    in_round = set(
        Move.objects.filter(table=table, seq__gte=1 if dealt is None else dealt.seq).values_list(
            "seq", flat=True
        )
    )
    assert len(in_round) > present.RECENT_MOVES

    client = logged_in(alice)
    newest = client.get(f"/tables/{table.pk}/").content.decode()
    assert len(move_lines(newest)) <= present.RECENT_MOVES
    assert "Show the whole round" in newest and "?moves=round" in newest

    whole = client.get(f"/tables/{table.pk}/?moves=round").content.decode()
    lines = move_lines(whole)
    assert set(lines) == in_round
    assert any(f"Round {round_number} is dealt by" in line for line in lines.values())
    assert "Show only the newest moves" in whole
    # Every update of that page keeps it (the live fragment, the answer to a move) ...
    live = client.get(f"/tables/{table.pk}/live/").content.decode()
    assert set(move_lines(live)) == set(lines)
    # ... and nobody else's page pays for it.
    others = logged_in(carol).get(f"/tables/{table.pk}/live/").content.decode()
    assert len(move_lines(others)) <= present.RECENT_MOVES
    back = client.get(f"/tables/{table.pk}/?moves=newest").content.decode()
    assert len(move_lines(back)) <= present.RECENT_MOVES
    live = client.get(f"/tables/{table.pk}/live/").content.decode()
    assert len(move_lines(live)) <= present.RECENT_MOVES


def test_a_round_shorter_than_the_list_offers_no_more() -> None:
    alice, bob = make_user(), make_user()
    table = start_table(alice, bob)
    page = logged_in(alice).get(f"/tables/{table.pk}/").content.decode()
    assert move_lines(page) and "Show the whole round" not in page


# --- the ranking ---------------------------------------------------------------------


def test_the_final_ranking_says_why_equal_points_are_ordered_as_they_are() -> None:
    alice, bob, carol = make_user(), make_user(), make_user()
    # One round: only the winner scores, so the two others are level on points.
    table = start_table(alice, bob, carol)
    for _ in range(3000):
        table.refresh_from_db()
        if table.status != Table.Status.ACTIVE:
            break
        play_first_legal(table)
    assert table.status == Table.Status.FINISHED
    view = selectors.table_view(table, None)
    assert view is not None
    scores = [e["score"] for e in view["ranking"]]
    losers = [e for e in view["ranking"] if scores.count(e["score"]) > 1]
    assert len(losers) >= 2 and view["winner"] not in {e["seat"] for e in losers}

    client = logged_in(alice)
    page = html.unescape(client.get(f"/tables/{table.pk}/live/").content.decode())
    first = client.get(f"/tables/{table.pk}/replay/").content.decode()
    total = re.search(r"Step 0 of (\d+)", first)
    assert total is not None
    last = html.unescape(
        client.get(
            f"/tables/{table.pk}/replay/?step={total.group(1)}", headers=LIVE
        ).content.decode()
    )
    for shown in (page, last):
        ranking = shown[shown.index('class="ranking-list"') :]
        for entry in losers:
            points = entry["points_in_hand"]
            said = f"{points} point{'' if points == 1 else 's'} left in hand"
            row = re.search(rf'data-rank-seat="{entry["seat"]}">(.*?)</li>', ranking)
            assert row is not None and said in row.group(1), (said, row)
        assert present.RANKING_NOTE in shown


def test_a_ranking_with_no_equal_points_says_nothing_more() -> None:
    names = present.Names([{"number": 0, "name": "ann"}, {"number": 1, "name": "bob"}], None)
    rows, told = present.ranking(
        [
            {"seat": 0, "rank": 1, "score": 30, "left": False, "points_in_hand": 0},
            {"seat": 1, "rank": 2, "score": 0, "left": False, "points_in_hand": 30},
        ],
        names,
        0,
    )
    assert not told and [row["why"] for row in rows] == [None, None]
