"""Classic Wild Cards tables through the API: whole games with every house rule, jump-in,
concessions, the record and its replay, and hostile input on the classic shapes."""

from __future__ import annotations

import json
import random
import threading
from collections.abc import Callable
from typing import Any

import pytest
from django.contrib.auth.models import User
from django.db import connection
from rest_framework.test import APIClient

import wildcards
from games import selectors, services
from games.models import Move, Table
from tests.factories import legal_request
from tests.games.conftest import assert_error, client_for, make_user
from tests.games.test_api_races import race

pytestmark = pytest.mark.django_db

Api = Callable[[User | None], APIClient]

#: Every house rule on, target scoring with the lowest target a test can afford.
ALL_RULES: dict[str, Any] = {
    "stacking": True,
    "seven_zero": True,
    "jump_in": True,
    "draw_until_playable": True,
}


def url(table: Table | int, what: str) -> str:
    pk = table if isinstance(table, int) else table.pk
    return f"/api/v1/tables/{pk}/{what}/" if what else f"/api/v1/tables/{pk}/"


def state_of(table: Table | int) -> wildcards.GameState:
    pk = table if isinstance(table, int) else table.pk
    snapshot = Table.objects.values_list("state", flat=True).get(pk=pk)
    assert snapshot is not None
    return wildcards.GameState.from_dict(snapshot)


def create_through_api(api: Api, host: User, others: list[User], bots: int, **body: Any) -> int:
    """A classic table opened, filled and started through the API; its id."""
    response = api(host).post(
        "/api/v1/tables/",
        {"game": "wildcards", "seat_count": 1 + len(others) + bots, **body},
        format="json",
    )
    assert response.status_code == 201, response.content
    table_id: int = response.json()["id"]
    for other in others:
        assert api(other).post(url(table_id, "join")).status_code == 201
    for _ in range(bots):
        added = api(host).post(url(table_id, "bots"), {"level": "easy"}, format="json")
        assert added.status_code == 201, added.content
    started = api(host).post(url(table_id, "start"))
    assert started.status_code == 200, started.content
    return table_id


def play_out(
    clients: dict[int, APIClient], table_id: int, rng: random.Random, limit: int = 4000
) -> dict[str, int]:
    """Play the game to its end through the API, people choosing from their views'
    legal actions (a jump-in first whenever one is offered); what was played, by kind."""
    seen = {"jump_in": 0, "swap": 0, "rotate": 0, "penalty_passed": 0, "take_penalty": 0}
    for _ in range(limit):
        views = {n: c.get(url(table_id, "view")).json() for n, c in clients.items()}
        game = next(iter(views.values()))["game"]
        if game["over"]:
            return seen
        jumpers = [
            n
            for n, v in views.items()
            if n != game["to_act"] and any(a.get("jump_in") for a in v["game"]["legal_actions"])
        ]
        seat = jumpers[0] if jumpers else game["to_act"]
        assert seat in clients, "the inline bots played every bot's turn"
        view = views[seat]
        request = legal_request(view["game"], rng.randrange(1000))
        response = clients[seat].post(
            url(table_id, "actions"), {**request, "expected_seq": view["seq"]}, format="json"
        )
        assert response.status_code == 201, (request, response.content)
        body = response.json()
        seen["jump_in"] += bool(jumpers)
        seen["take_penalty"] += request["type"] == "take_penalty"
        for event in body["events"]:
            if event["type"] in ("swap", "rotate"):
                seen[event["type"]] += 1
            if event["type"] == "play" and game["pending"] and game["pending"]["type"] == "penalty":
                seen["penalty_passed"] += 1
    raise AssertionError("the game did not end")


def house_rules_used(table_id: int) -> set[str]:
    """Which house rules the table's log shows in use (from the raw events)."""
    used: set[str] = set()
    for action, payload in Move.objects.filter(table_id=table_id).values_list("action", "payload"):
        if action == "take_penalty":
            used.add("take_penalty")
        for event in payload.get("events", []):
            kind = event["type"]
            if kind == "play" and event.get("jump_in"):
                used.add("jump_in")
            elif kind in ("swap", "rotate"):
                used.add(kind)
            elif kind == "penalty" and event["count"] > 4:
                used.add("stacked")
            elif kind == "draw" and event["reason"] == "draw" and len(event["cards"]) > 1:
                used.add("draw_until_playable")
    return used


#: (people, bots): 2 to 10 seats, people only, people with bots, one person among bots.
LAYOUTS = [(2, 0), (3, 0), (2, 2), (1, 4), (2, 5), (1, 9)]


def test_whole_classic_games_with_every_house_rule_through_the_api(api: Api) -> None:
    used: set[str] = set()
    for number, (people, bots) in enumerate(LAYOUTS):
        users = [make_user() for _ in range(people)]
        table_id = create_through_api(
            api, users[0], users[1:], bots, options={**ALL_RULES, "scoring": "single"}
        )
        clients = {n: api(u) for n, u in enumerate(users)}
        table = Table.objects.get(pk=table_id)
        assert table.game == "wildcards" and table.options["jump_in"] is True

        play_out(clients, table_id, random.Random(number))

        table.refresh_from_db()
        assert table.status == Table.Status.FINISHED, (people, bots)
        state = state_of(table)
        assert state.over and state.winner is not None
        # The record replays, with the classic game's own replay, to the final state.
        record = clients[0].get(url(table_id, "record")).json()
        assert record["format"] == wildcards.FORMAT
        assert wildcards.replay(record).to_dict() == state.to_dict()
        # Every log entry is one of the game's actions.
        actions = set(Move.objects.filter(table_id=table_id).values_list("action", flat=True))
        assert actions <= {"start", *wildcards.ACTION_TYPES}, actions
        used |= house_rules_used(table_id)
    # People and bots together played every house rule (the deals are known: a change
    # that stops one from being offered fails here).
    assert used >= {
        "jump_in",
        "swap",
        "rotate",
        "stacked",
        "draw_until_playable",
        "take_penalty",
    }, used


def test_target_scoring_plays_rounds_until_the_target_through_the_api(api: Api) -> None:
    alice, bob = make_user(), make_user()
    table_id = create_through_api(
        api, alice, [bob], 0, options={**ALL_RULES, "scoring": "target", "target": 50}
    )
    answer = api(alice).get(url(table_id, ""))
    assert answer.json()["options"]["target"] == 50 and answer.json()["scoring"] == "target"

    play_out({0: api(alice), 1: api(bob)}, table_id, random.Random(7))

    state = state_of(table_id)
    assert state.over and max(state.scores) >= 50
    assert selectors.table_record(Table.objects.get(pk=table_id))["options"]["target"] == 50


def test_a_table_answer_names_the_game_and_its_options(alice: User, api: Api) -> None:
    body = (
        api(alice)
        .post(
            "/api/v1/tables/",
            {
                "game": "wildcards",
                "seat_count": 4,
                "options": {**ALL_RULES, "scoring": "target", "target": 200},
            },
            format="json",
        )
        .json()
    )
    assert body["game"] == "wildcards" and body["game_version"] == wildcards.ruleset.RULESET.version
    assert body["options"] == {**ALL_RULES, "scoring": "target", "target": 200}
    assert body["two_seat_reverse_skips"] is None
    listed = api(alice).get("/api/v1/tables/?mine=true").json()["results"]
    assert listed[0]["game"] == "wildcards" and listed[0]["options"]["seven_zero"] is True


# --- jump-in over the API -------------------------------------------------------


def advance_to_jump_window(
    table: Table, jumper_after: int = 1, current: int | None = None
) -> tuple[int, int]:
    """Play on (people: the plain move of ruling 24; bots: their own) until a coloured
    number card 1-9 lies on top with the jump-in window open, its twin not on the pile
    (and seat ``current`` to act, if given), then move that twin into the hand of the
    seat ``jumper_after`` seats after the player to act (a card of theirs takes its
    place): (player to act, jumper). The snapshot is saved with the twin moved."""
    from wildcards.cards import KIND_OF, NUMBER_OF, TWIN_OF

    rules = services.ruleset_of(table)
    seats = {s.number: s for s in table.seats.all()}
    for _ in range(1000):
        state = state_of(table)
        assert not state.over, "the game ended before a jump-in window came"
        top = state.discard[-1]
        twin = TWIN_OF[top]
        if (
            state.window
            and state.pending is None
            and KIND_OF[top] == 0
            and NUMBER_OF[top] > 0
            and twin not in state.discard
            and current in (None, state.current)
        ):
            break
        seat = seats[state.current]
        if seat.is_bot:
            services.table_run_bot_turn(table_id=table.pk)
        else:
            services.table_apply_action(
                table_id=table.pk,
                user=seat.user,
                data=_request_of(state, rules.timeout_action(state)),
                expected_seq=None,
            )
    else:
        raise AssertionError("no jump-in window came")
    to_act = state.current
    jumper = (to_act + jumper_after * state.direction) % state.seats
    hand = state.hands[jumper]
    if twin not in hand:
        given = next(c for c in hand if c != twin)
        for pile in (state.draw, *(h for h in state.hands if h is not hand)):
            if twin in pile:
                pile[pile.index(twin)] = given
                break
        hand[hand.index(given)] = twin
    table.refresh_from_db()
    table.state = state.to_dict()
    table.save(update_fields=["state"])
    return to_act, jumper


def _request_of(state: wildcards.GameState, action: wildcards.Action) -> dict[str, Any]:
    request: dict[str, Any] = {"type": action.type}
    if action.card >= 0:
        request["card"] = wildcards.handle(state, action.card)
    if action.color >= 0:
        request["color"] = wildcards.COLORS[action.color]
    if action.target >= 0:
        request["target"] = action.target
    return request


def plain_request(view: dict[str, Any]) -> dict[str, Any]:
    """A legal request of the seat to act that moves the turn on by one seat: a number
    card's play (no 7 or 0) or a draw, as the view offers them."""
    faces = {card["card"]: card["face"] for card in view["hand"]}
    for pick, choice in enumerate(view["legal_actions"]):
        face = faces.get(choice.get("card", ""), "")
        if choice["type"] == "draw" or (face[-1:].isdigit() and face[-1] not in "07"):
            return legal_request(view, pick)
    raise AssertionError(f"no plain move in {view['legal_actions']}")


def people_table(count: int, **options: Any) -> tuple[Table, list[User]]:
    users = [make_user() for _ in range(count)]
    table = services.table_create(
        host=users[0], seat_count=count, game="wildcards", options={**ALL_RULES, **options}
    )
    for user in users[1:]:
        services.table_join(table_id=table.pk, user=user)
    services.table_start(table_id=table.pk, user=users[0])
    table.refresh_from_db()
    return table, users


def test_the_jump_in_window_stays_open_until_the_player_to_act_acts(api: Api) -> None:
    # No 7-0 here: a swap would change the jumper's handles (another refusal).
    table, users = people_table(4, seven_zero=False)
    current, jumper = advance_to_jump_window(table, jumper_after=2)
    views = [api(u).get(url(table, "view")).json()["game"] for u in users]

    # Only the holder of the twin sees "Jump in" on it; everyone sees the window open.
    assert all(v["jump_in_open"] for v in views)
    offered = [n for n, v in enumerate(views) if n != current and v["legal_actions"]]
    assert offered == [jumper]
    assert views[jumper]["legal_actions"][0]["jump_in"] is True
    assert [c for c in views[jumper]["hand"] if c.get("jump_in")]
    # The window is still open after any number of reads (turn by turn: the whole deadline).
    again = api(users[jumper]).get(url(table, "view")).json()["game"]
    assert again["legal_actions"] == views[jumper]["legal_actions"]

    # The player to act acts: the window closes, the jump-in is refused by the rules.
    mover = api(users[current])
    moved = mover.post(
        url(table, "actions"),
        plain_request(mover.get(url(table, "view")).json()["game"]),
        format="json",
    )
    assert moved.status_code == 201
    assert state_of(table).current != jumper
    seq = Table.objects.get(pk=table.pk).seq
    late = api(users[jumper]).post(
        url(table, "actions"), legal_request(views[jumper]), format="json"
    )
    assert_error(late, 422, "jump_in_closed")
    assert Table.objects.get(pk=table.pk).seq == seq


def test_a_jump_in_wins_and_the_player_who_was_to_act_is_refused(api: Api) -> None:
    table, users = people_table(4)
    current, jumper = advance_to_jump_window(table)
    request = legal_request(api(users[jumper]).get(url(table, "view")).json()["game"])

    jumped = api(users[jumper]).post(url(table, "actions"), request, format="json")

    assert jumped.status_code == 201, jumped.content
    play = next(e for e in jumped.json()["events"] if e["type"] == "play")
    assert play["seat"] == jumper and play["jump_in"] is True
    state = state_of(table)
    assert state.current == (jumper + state.direction) % 4 != current
    seq = Table.objects.get(pk=table.pk).seq
    assert_error(
        api(users[current]).post(url(table, "actions"), {"type": "draw"}, format="json"),
        422,
        "not_your_turn",
    )
    assert Table.objects.get(pk=table.pk).seq == seq


def test_a_jump_in_with_a_stale_seq_is_409_and_without_the_card_422(api: Api) -> None:
    table, users = people_table(3)
    current, jumper = advance_to_jump_window(table)
    view = api(users[jumper]).get(url(table, "view")).json()
    other = 3 - current - jumper
    seq = view["seq"]
    own = api(users[other]).get(url(table, "view")).json()["game"]["hand"][0]["card"]

    assert_error(
        api(users[other]).post(url(table, "actions"), {"type": "play", "card": own}, format="json"),
        422,
        "jump_in_not_identical",
    )
    # A handle of the jumper's card is nobody else's card.
    assert_error(
        api(users[other]).post(url(table, "actions"), legal_request(view["game"]), format="json"),
        422,
        "card_not_in_hand",
    )
    assert_error(
        api(users[jumper]).post(
            url(table, "actions"),
            {**legal_request(view["game"]), "expected_seq": seq - 1},
            format="json",
        ),
        409,
        "stale_seq",
    )
    assert Table.objects.get(pk=table.pk).seq == seq


def test_a_bot_jumps_in_on_the_card_just_played(alice: User, api: Api) -> None:
    table = services.table_create(host=alice, seat_count=3, game="wildcards", options=ALL_RULES)
    services.table_add_bot(table_id=table.pk, user=alice, level="easy")
    services.table_add_bot(table_id=table.pk, user=alice, level="easy")
    services.table_start(table_id=table.pk, user=alice)
    table.refresh_from_db()
    # alice to act, the bot after her holding the twin of the top card.
    _current, jumper = advance_to_jump_window(table, current=0)
    assert jumper != 0
    state = state_of(table)
    assert services.bots_may_act(table, state, list(table.seats.all()))
    assert selectors.bot_may_jump_in(table.pk)

    result = services.table_run_bot_turn(table_id=table.pk)

    assert result is not None and result.seat == jumper
    assert result.moves[0].source == Move.Source.BOT
    play = next(e for e in result.events if e["type"] == "play")
    assert play["jump_in"] is True
    # And alice's own view told her nothing of it beforehand (checked in the leak tests).


@pytest.mark.skipif(connection.vendor != "postgresql", reason="racing row locks need PostgreSQL")
@pytest.mark.django_db(transaction=True)
@pytest.mark.parametrize("attempt", range(4))
def test_a_jumper_and_the_player_to_act_race_and_the_first_applied_wins(attempt: int) -> None:
    """Ruling 17 on PostgreSQL: both requests sent at once; one 201, the other the
    rules' refusal for the one who lost (never a 5xx, never both applied)."""
    table, users = people_table(4, seven_zero=False)
    current, jumper = advance_to_jump_window(table, jumper_after=2)
    clients = {n: client_for(u) for n, u in enumerate(users)}
    bodies = {
        jumper: legal_request(clients[jumper].get(url(table, "view")).json()["game"]),
        current: plain_request(clients[current].get(url(table, "view")).json()["game"]),
    }
    order = [jumper, current] if attempt % 2 else [current, jumper]
    seq = Table.objects.get(pk=table.pk).seq
    senders = iter(order)
    lock = threading.Lock()

    def send() -> Any:
        with lock:
            seat = next(senders)
        return seat, clients[seat].post(url(table, "actions"), bodies[seat], format="json")

    answers = dict(race(2, send))

    won = [seat for seat, answer in answers.items() if answer.status_code == 201]
    assert len(won) == 1, {s: a.content[:200] for s, a in answers.items()}
    if won == [jumper]:  # R17: a draw is not_your_turn, a card not the new top's twin
        refusal = "not_your_turn" if bodies[current]["type"] == "draw" else "jump_in_not_identical"
        assert_error(answers[current], 422, refusal)
    else:
        assert_error(answers[jumper], 422, "jump_in_closed")
    assert Table.objects.get(pk=table.pk).seq == seq + 1
    assert Move.objects.filter(table=table, seq=seq + 1).get().seat == won[0]


# --- concessions (R26), watchers ------------------------------------------------


def test_a_concession_out_of_turn_leaves_the_turn_and_a_waiting_jump_in_alone(api: Api) -> None:
    table, users = people_table(4, seven_zero=False)
    current, jumper = advance_to_jump_window(table, jumper_after=2)
    leaver = (current + 1) % 4
    assert leaver not in (current, jumper)
    before = state_of(table)

    answer = api(users[leaver]).post(url(table, "concede"))

    assert answer.status_code == 200, answer.content
    after = state_of(table)
    assert after.current == current and after.turn == before.turn
    assert after.active[leaver] is False and after.window is True  # R26: window unchanged
    # Their cards went under the draw pile, sorted, the first nearest the top (R26).
    given_up = wildcards.sorted_hand(before.hands[leaver])
    assert after.draw == [*reversed(given_up), *before.draw]
    assert api(users[jumper]).get(url(table, "view")).json()["game"]["legal_actions"]
    assert_error(api(users[leaver]).post(url(table, "concede")), 409, "already_left")
    assert_error(
        api(users[leaver]).post(url(table, "actions"), {"type": "draw"}, format="json"),
        403,
        "not_seated",
    )


def test_a_concession_in_turn_passes_the_turn_and_drops_a_waiting_penalty(api: Api) -> None:
    table, users = people_table(3)
    rules = services.ruleset_of(table)
    for _ in range(300):
        state = state_of(table)
        if state.pending == wildcards.PENDING_PENALTY:
            break
        services.table_apply_action(
            table_id=table.pk,
            user=users[state.current],
            data=_request_of(state, rules.legal_actions(state, state.current)[0]),
            expected_seq=None,
        )
    else:
        pytest.skip("no penalty came in this deal")
    victim = state.current

    body = api(users[victim]).post(url(table, "concede")).json()

    after = state_of(table)
    assert after.active[victim] is False and after.pending is None and after.penalty == 0
    assert after.current != victim
    assert body["view"]["game"]["to_act"] == after.current
    assert any(e["type"] == "leave" and e["seat"] == victim for e in body["events"])


def test_two_concessions_of_three_end_the_game_for_the_last_player(api: Api) -> None:
    table, users = people_table(3)

    api(users[1]).post(url(table, "concede"))
    body = api(users[2]).post(url(table, "concede")).json()

    assert body["view"]["status"] == "finished"
    assert body["view"]["game"]["winner"] == 0
    ranking = body["view"]["game"]["ranking"]
    assert [entry["seat"] for entry in ranking][0] == 0
    record = api(users[0]).get(url(table, "record")).json()
    assert wildcards.replay(record).to_dict() == state_of(table).to_dict()


def test_a_watcher_sees_hand_sizes_and_the_pile_never_a_card_in_hand(api: Api) -> None:
    users = [make_user() for _ in range(3)]
    table = services.table_create(
        host=users[0], seat_count=3, game="wildcards", options=ALL_RULES, allow_watchers=True
    )
    for user in users[1:]:
        services.table_join(table_id=table.pk, user=user)
    services.table_start(table_id=table.pk, user=users[0])
    watcher = api(make_user())

    game = watcher.get(url(table, "view")).json()["game"]

    state = state_of(table)
    assert game["seat"] is None and game["hand"] == [] and game["legal_actions"] == []
    assert [p["count"] for p in game["players"]] == [len(h) for h in state.hands]
    assert game["draw_pile"] == {"count": len(state.draw)}
    assert game["discard_pile"] == [wildcards.CODE_OF[c] for c in state.discard]
    log = watcher.get(url(table, "log")).json()
    assert all("faces" not in e and "order" not in e for m in log["moves"] for e in m["events"])
    assert_error(watcher.get(url(table, "record")), 409, "game_not_over")


# --- hostile input on the classic shapes -----------------------------------------


@pytest.mark.parametrize(
    ("body", "field"),
    [
        ({"game": "chess", "seat_count": 2}, "game"),
        ({"game": 7, "seat_count": 2}, "game"),
        ({"game": None, "seat_count": 2}, "game"),
        ({"game": "wildcards", "seat_count": 11}, "seat_count"),
        ({"game": "wildcards", "seat_count": 1}, "seat_count"),
        ({"game": "wildcards", "seat_count": 2, "options": []}, "options"),
        ({"game": "wildcards", "seat_count": 2, "options": "stacking"}, "options"),
        (
            {"game": "wildcards", "seat_count": 2, "options": {"stacking": "yes"}},
            "options.stacking",
        ),
        ({"game": "wildcards", "seat_count": 2, "options": {"stacking": 1}}, "options.stacking"),
        ({"game": "wildcards", "seat_count": 2, "options": {"jump_in": None}}, "options.jump_in"),
        ({"game": "wildcards", "seat_count": 2, "options": {"target": 49}}, "options.target"),
        ({"game": "wildcards", "seat_count": 2, "options": {"target": 5001}}, "options.target"),
        ({"game": "wildcards", "seat_count": 2, "options": {"target": 200.5}}, "options.target"),
        ({"game": "wildcards", "seat_count": 2, "options": {"target": "200"}}, "options.target"),
        ({"game": "wildcards", "seat_count": 2, "options": {"target": True}}, "options.target"),
        ({"game": "wildcards", "seat_count": 2, "options": {"scoring": "best"}}, "options.scoring"),
        ({"game": "wildcards", "seat_count": 2, "options": {"dance": True}}, "options.dance"),
        (
            {"game": "wildcards", "seat_count": 2, "options": {"two_seat_reverse_skips": True}},
            "options.two_seat_reverse_skips",
        ),
        ({"game": "wildcards", "seat_count": 2, "options": {"seats": 3}}, "options.seats"),
        ({"game": "wildcards", "seat_count": 2, "two_seat_reverse_skips": True}, "two_seat"),
        ({"game": "wildcards", "seat_count": 2, "stacking": True}, "stacking"),
        ({"game": "wildcards", "seat_count": 2, "options": {"target": 10**30}}, "options.target"),
        ({"game": "wildcards", "seat_count": 2, "options": {"a" * 5000: 1}}, "options"),
        ({"game": "flip", "seat_count": 2, "options": {"stacking": True}}, "options.stacking"),
        ({"game": "flip", "seat_count": 2, "options": {"jump_in": True}}, "options.jump_in"),
    ],
)
def test_bad_games_and_options_are_400_with_the_field_and_open_no_table(
    alice: User, api: Api, body: dict[str, Any], field: str
) -> None:
    answer = api(alice).post("/api/v1/tables/", body, format="json")

    error = assert_error(answer, 400, answer.json().get("code", "?"))
    assert error["code"] in ("invalid", "unknown_field"), error
    # The field is named (a long unknown key cut short, never echoed whole).
    assert any(name.startswith(field) or field.startswith(name) for name in error["fields"]), error
    assert len(answer.content) < 2000
    assert not Table.objects.exists()


def test_a_target_on_a_flip_table_or_a_non_seven_is_refused_and_changes_nothing(
    api: Api,
) -> None:
    from wildcards.cards import NUMBER_OF

    # Flip has no 7-0: an action naming a target is not one of its actions.
    alice, bob = make_user(), make_user()
    flip_table = services.table_create(host=alice, seat_count=2)
    services.table_join(table_id=flip_table.pk, user=bob)
    services.table_start(table_id=flip_table.pk, user=alice)
    flip_table.refresh_from_db()
    mover = [alice, bob][flip_table.to_act or 0]
    view = api(mover).get(url(flip_table, "view")).json()
    answer = api(mover).post(
        url(flip_table, "actions"), {**legal_request(view["game"]), "target": 1}, format="json"
    )
    assert 400 <= answer.status_code < 500 and set(answer.json()) == {"code", "detail", "fields"}
    assert Table.objects.get(pk=flip_table.pk).seq == view["seq"]
    # Nor is a target option of Flip's in the classic game's bounds (Flip's are 250, 500, 1000).
    refused = api(alice).post(
        "/api/v1/tables/",
        {"game": "flip", "seat_count": 2, "options": {"target": 200}},
        format="json",
    )
    assert_error(refused, 400, "invalid")

    # A classic play of anything but a 7 (with 7-0 on) names no target.
    table, users = people_table(3, jump_in=False)
    state = state_of(table)
    rules = services.ruleset_of(table)
    plays = [
        a
        for a in rules.legal_actions(state, state.current)
        if a.type == "play" and NUMBER_OF[a.card] != 7
    ]
    body: dict[str, Any] = _request_of(state, plays[0]) if plays else {"type": "draw"}
    seq = Table.objects.get(pk=table.pk).seq
    answer = api(users[state.current]).post(
        url(table, "actions"), {**body, "target": (state.current + 1) % 3}, format="json"
    )
    assert_error(answer, 422, "target_not_allowed")
    assert Table.objects.get(pk=table.pk).seq == seq


def test_classic_action_refusals_are_422_and_change_nothing(api: Api) -> None:
    table, users = people_table(3, jump_in=False)
    state = state_of(table)
    current = state.current
    other = (current + 1) % 3
    mine = api(users[current]).get(url(table, "view")).json()["game"]
    theirs = api(users[other]).get(url(table, "view")).json()["game"]
    seq = Table.objects.get(pk=table.pk).seq
    bad: list[tuple[int, dict[str, Any], int, str]] = [
        (current, {"type": "take_penalty"}, 422, "no_penalty"),
        (other, {"type": "take_penalty"}, 422, "not_your_turn"),
        # Without the jump-in option every out-of-turn play is not_your_turn (R36).
        (other, {"type": "play", "card": theirs["hand"][0]["card"]}, 422, "not_your_turn"),
        (current, {"type": "play", "card": theirs["hand"][0]["card"]}, 422, "card_not_in_hand"),
        (current, {"type": "play"}, 422, "card_required"),
        (current, {"type": "draw", "card": mine["hand"][0]["card"]}, 422, "card_not_allowed"),
        (current, {"type": "draw", "target": 1}, 422, "target_not_allowed"),
        (current, {"type": "leave"}, 400, "invalid"),
        (current, {"type": "dance"}, 400, "invalid"),
        (current, {"type": "play", "card": mine["hand"][0]["card"], "color": "purple"}, 422, "?"),
        (current, {"type": "play", "card": mine["hand"][0]["card"], "target": -1}, 400, "invalid"),
        (current, {"type": "play", "card": mine["hand"][0]["card"], "target": "1"}, 400, "invalid"),
        (current, {"type": "play", "card": ["x"]}, 400, "invalid"),
        (current, {"type": "draw", "seat": 1}, 400, "unknown_field"),
    ]
    for seat, body, status, code in bad:
        answer = api(users[seat]).post(url(table, "actions"), body, format="json")
        assert 400 <= answer.status_code < 500, (body, answer.status_code, answer.content)
        assert answer.status_code == status, (body, answer.content)
        shape = answer.json()
        assert set(shape) == {"code", "detail", "fields"} and shape["detail"], shape
        if code != "?":
            assert shape["code"] == code, (body, shape)
    assert Table.objects.get(pk=table.pk).seq == seq
    assert state_of(table).to_dict() == state.to_dict()


def test_a_seven_names_only_another_seat_still_in_the_game(api: Api) -> None:
    """A 7's target: the seat itself, a seat that left, a seat past the table: bad_target."""
    from wildcards.cards import NUMBER_OF

    table, users = people_table(3, jump_in=False)
    api(users[2]).post(url(table, "concede"))
    rules = services.ruleset_of(table)
    for _ in range(400):
        state = state_of(table)
        assert not state.over
        seven = [
            a
            for a in rules.legal_actions(state, state.current)
            if a.type == "play" and NUMBER_OF[a.card] == 7 and a.target >= 0
        ]
        if seven:
            break
        services.table_apply_action(
            table_id=table.pk,
            user=users[state.current],
            data=_request_of(state, rules.timeout_action(state)),
            expected_seq=None,
        )
    else:
        pytest.skip("no 7 to play in this deal")
    seat = state.current
    card = wildcards.handle(state, seven[0].card)
    seq = Table.objects.get(pk=table.pk).seq
    for target in (seat, 2, 3, 10**6):
        answer = api(users[seat]).post(
            url(table, "actions"), {"type": "play", "card": card, "target": target}, format="json"
        )
        assert_error(answer, 422, "bad_target")
    assert_error(
        api(users[seat]).post(url(table, "actions"), {"type": "play", "card": card}, format="json"),
        422,
        "target_required",
    )
    assert Table.objects.get(pk=table.pk).seq == seq


# --- the record and the replay's positions ---------------------------------------


def test_the_record_and_the_replay_positions_of_a_moderated_classic_game(api: Api) -> None:
    """A game with a moderator's bot in a person's seat and a seat removed: the record
    (moderation entries left out, the bot's moves marked) replays to the final state,
    and the replay's positions walk every recorded action to the end, hands face up."""
    table, users = people_table(4)
    services.seat_replace_with_bot(table_id=table.pk, number=1, level="easy")
    services.seat_remove(table_id=table.pk, number=2)
    clients = {0: api(users[0]), 3: api(users[3])}
    services.table_run_bots(table_id=table.pk)

    play_out(clients, table.pk, random.Random(3))

    table.refresh_from_db()
    assert table.status == Table.Status.FINISHED
    record = clients[0].get(url(table, "record")).json()
    final = state_of(table)
    assert wildcards.replay(record).to_dict() == final.to_dict()
    positions = selectors.table_replay(table)
    assert len(positions) == 1 + len(record["actions"])
    last = positions[-1]
    assert last["to_act"] is None and last["in_game"] == final.active
    assert [len(h) for h in last["hands"]] == [len(h) for h in final.hands]
    # Every position shows every hand face up (the game is over) and no deck order.
    assert all("order" not in json.dumps(p) for p in positions)
    assert final.seed not in json.dumps(positions)
    sources = {m.source for m in Move.objects.filter(table=table)}
    assert Move.Source.ADMIN in sources and Move.Source.BOT in sources
