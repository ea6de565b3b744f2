"""Play: the view with its ETag, actions, concede, the log and the record."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest
from django.contrib.auth.models import User
from rest_framework.test import APIClient

import flip
from games import services
from games.models import Move, Seat, Table
from tests.games.conftest import action_body, assert_error, make_user, started_table

pytestmark = pytest.mark.django_db

Api = Callable[[User | None], APIClient]


def url(table: Table | int, what: str) -> str:
    pk = table if isinstance(table, int) else table.pk
    return f"/api/v1/tables/{pk}/{what}/"


def seat_to_act(table: Table) -> int:
    table.refresh_from_db()
    assert table.state is not None
    current: int = table.state["current"]
    return current


def moves(table: Table) -> int:
    return Move.objects.filter(table=table).count()


# --- the view -----------------------------------------------------------------


def state_of(table: Table) -> flip.GameState:
    table.refresh_from_db()
    assert table.state is not None
    return flip.GameState.from_dict(table.state)


def test_view_of_a_seat_is_its_flip_view_with_the_table(alice: User, bob: User, api: Api) -> None:
    table = started_table(alice, bob)

    response = api(bob).get(url(table, "view"))

    assert response.status_code == 200
    body = response.json()
    assert set(body) == {
        "table",
        "seq",
        "status",
        "seats",
        "deadline_at",
        "turn_started_at",
        "game",
    }
    assert body["table"] == table.pk and body["seq"] == table.seq == 1
    assert body["game"]["seat"] == 1
    assert len(body["game"]["hand"]) == len(state_of(table).hands[1])
    assert "faces" in body["game"]["players"][0] and "faces" not in body["game"]["players"][1]
    assert response["ETag"] == '"1"'
    assert "private" in response["Cache-Control"]


def test_view_answers_304_to_the_current_etag_only(alice: User, bob: User, api: Api) -> None:
    table = started_table(alice, bob)
    client = api(alice)

    assert client.get(url(table, "view"), HTTP_IF_NONE_MATCH='"1"').status_code == 304
    assert client.get(url(table, "view"), HTTP_IF_NONE_MATCH='W/"1", "7"').status_code == 304
    assert client.get(url(table, "view"), HTTP_IF_NONE_MATCH='"0"').status_code == 200

    mover = api(alice if seat_to_act(table) == 0 else bob)
    view = mover.get(url(table, "view")).json()
    mover.post(url(table, "actions"), action_body(view), format="json")

    fresh = client.get(url(table, "view"), HTTP_IF_NONE_MATCH='"1"')
    assert fresh.status_code == 200
    assert fresh["ETag"] == f'"{fresh.json()["seq"]}"' != '"1"'


def test_view_in_the_lobby_has_no_game_and_its_etag_follows_the_seats(
    alice: User, bob: User, api: Api
) -> None:
    table = services.table_create(host=alice, seat_count=3)
    first = api(alice).get(url(table, "view"))
    assert first.json()["game"] is None and first.json()["seq"] == 0
    etag = first["ETag"]
    assert api(alice).get(url(table, "view"), HTTP_IF_NONE_MATCH=etag).status_code == 304

    services.table_join(table_id=table.pk, user=bob)

    assert api(alice).get(url(table, "view"), HTTP_IF_NONE_MATCH=etag).status_code == 200


def test_a_user_without_a_seat_gets_403_unless_watching_is_allowed(
    alice: User, bob: User, api: Api
) -> None:
    closed = started_table(alice, bob)
    stranger = api(make_user())

    for what in ("view", "log", "record"):
        assert_error(stranger.get(url(closed, what)), 403, "watching_not_allowed")
    # Not even a 304 tells a stranger the table moved.
    assert_error(
        stranger.get(url(closed, "view"), HTTP_IF_NONE_MATCH='"1"'), 403, "watching_not_allowed"
    )


def test_a_watcher_sees_only_public_facts(alice: User, bob: User, api: Api) -> None:
    table = started_table(alice, bob, allow_watchers=True)

    game = api(make_user()).get(url(table, "view")).json()["game"]

    assert game["seat"] is None and game["hand"] == [] and game["legal_actions"] == []
    assert "top" not in game["draw_pile"]
    assert all("faces" not in p for p in game["players"])
    assert [p["count"] for p in game["players"]] == [len(h) for h in state_of(table).hands]


def test_view_of_an_unknown_table_is_404_and_needs_authentication(alice: User, api: Api) -> None:
    assert_error(api(alice).get(url(999999, "view")), 404, "not_found")
    assert_error(api(None).get(url(999999, "view")), 401, "not_authenticated")


# --- actions ------------------------------------------------------------------


def test_an_action_answers_201_with_its_events_and_the_new_view(
    alice: User, bob: User, api: Api
) -> None:
    table = started_table(alice, bob)
    mover = api(alice if seat_to_act(table) == 0 else bob)
    view = mover.get(url(table, "view")).json()

    response = mover.post(url(table, "actions"), action_body(view), format="json")

    assert response.status_code == 201
    body = response.json()
    assert body["seq"] == 2 == body["view"]["seq"]
    assert body["events"] and body["events"][0]["type"] in {"play", "draw", "pass"}
    assert body["view"]["game"]["seat"] == view["game"]["seat"]
    assert response["ETag"] == '"2"'
    assert moves(table) == 2


def test_bots_play_after_the_human_move_and_the_view_shows_it(alice: User, api: Api) -> None:
    # Seat 0 alice, seats 1 and 2 bots: after each of alice's moves the bots play.
    table = started_table(alice, bots=2)
    client = api(alice)
    for _ in range(5):
        view = client.get(url(table, "view")).json()
        if view["game"]["over"]:
            break
        assert view["game"]["to_act"] == 0
        body = client.post(url(table, "actions"), action_body(view), format="json").json()
        assert body["seq"] == view["seq"] + 1
        assert body["view"]["seq"] >= body["seq"]
        assert body["view"]["game"]["over"] or body["view"]["game"]["to_act"] == 0
    bot_moves = Move.objects.filter(table=table, source="bot")
    assert bot_moves.exists()
    assert set(bot_moves.values_list("seat", flat=True)) <= {1, 2}


def test_a_bot_is_handed_its_seats_view_and_what_the_seat_saw_at_the_last_flip(
    alice: User, api: Api, monkeypatch: pytest.MonkeyPatch
) -> None:
    from flip.bots.easy import EasyBot

    handed: list[tuple[dict[str, Any], dict[str, Any] | None]] = []
    histories: list[tuple[dict[str, Any], Any]] = []
    choose = EasyBot.choose

    def spy(
        self: EasyBot,
        view: dict[str, Any],
        memory: Any = None,
        history: Any = None,
        levels: Any = None,
    ) -> Any:
        handed.append((view, memory))
        histories.append((view, history))
        return choose(self, view, memory, history, levels)

    monkeypatch.setattr(EasyBot, "choose", spy)
    table = started_table(alice, bots=3)
    client = api(alice)
    for _ in range(150):
        view = client.get(url(table, "view")).json()
        if view["game"]["over"]:
            break
        client.post(url(table, "actions"), action_body(view), format="json")
    remembered = [(v, m) for v, m in handed if m is not None]
    assert remembered, "no flip in 150 moves: pick another deal"
    for v, memory in remembered:
        # The seat's own memory: its hand then, the other three hands' faces then.
        assert memory["round"] == v["round"] and memory["side"] != v["side"]
        assert sorted(p["seat"] for p in memory["players"]) == sorted(
            p["seat"] for p in v["players"] if p["seat"] != v["seat"]
        )
    # And what the seat saw happen this round: its own record of the round so far.
    for v, history in histories:
        assert history is not None
        assert history["events"][0]["type"] == "deal"
        dealt = history["events"][0]
        assert len(dealt["hands"]) == len(v["players"])
    # The API never serves a memory or a history.
    final = client.get(url(table, "view")).json()
    assert "memory" not in str(final) and "last_flip" not in str(final)
    assert "history" not in str(final)
    log = client.get(url(table, "log")).json()
    assert "history" not in str(log) and "deal" not in {
        e["type"] for move in log["moves"] for e in move["events"]
    }


def test_a_bot_is_handed_who_plays_each_seat_as_the_table_shows_it(
    alice: User, bob: User, api: Api, monkeypatch: pytest.MonkeyPatch
) -> None:
    from flip.bots import EasyBot, NormalBot

    handed: list[tuple[int, Any]] = []
    for cls in (EasyBot, NormalBot):

        def spy(
            self: Any, view: dict[str, Any], *inputs: Any, _choose: Any = cls.choose, **named: Any
        ) -> Any:
            handed.append((view["seat"], named.get("levels")))
            return _choose(self, view, *inputs, **named)

        monkeypatch.setattr(cls, "choose", spy)
    table = services.table_create(host=alice, seat_count=4)
    services.table_join(table_id=table.pk, user=bob)
    services.table_add_bot(table_id=table.pk, user=alice, level="easy")
    services.table_add_bot(table_id=table.pk, user=alice, level="normal")
    services.table_start(table_id=table.pk, user=alice)
    # Bob's hold ran out (ruling 18): the stand-in Normal bot plays his seat, as the table shows.
    Seat.objects.filter(table=table, user=bob).update(away=True)
    services.table_run_bots(table_id=table.pk)
    client = api(alice)
    for _ in range(40):
        view = client.get(url(table, "view")).json()
        if view["game"]["over"]:
            break
        client.post(url(table, "actions"), action_body(view), format="json")
    seats = {s.number: s for s in Seat.objects.filter(table=table)}
    assert (seats[0].user, seats[1].user) == (alice, bob)
    assert {seat for seat, _ in handed} == {1, 2, 3}
    assert {str(levels) for _, levels in handed} == {str([None, "normal", "easy", "normal"])}


def test_bots_wait_when_inline_bots_are_off(alice: User, api: Api, settings: Any) -> None:
    settings.GAMENOOK_RUN_BOTS_INLINE = False
    table = services.table_create(host=alice, seat_count=2)
    services.table_add_bot(table_id=table.pk, user=alice, level="easy")
    api(alice).post(url(table, "start"))

    assert not Move.objects.filter(table=table, source="bot").exists()


def test_a_stale_expected_seq_is_409_and_changes_nothing(alice: User, bob: User, api: Api) -> None:
    table = started_table(alice, bob)
    mover = api(alice if seat_to_act(table) == 0 else bob)
    view = mover.get(url(table, "view")).json()
    body = {**action_body(view), "expected_seq": 0}

    assert_error(mover.post(url(table, "actions"), body, format="json"), 409, "stale_seq")
    assert moves(table) == 1


def test_rule_refusals_are_422_with_the_rules_code(alice: User, bob: User, api: Api) -> None:
    table = started_table(alice, bob)
    current = seat_to_act(table)
    mover, waiter = (api(alice), api(bob)) if current == 0 else (api(bob), api(alice))
    view = mover.get(url(table, "view")).json()
    waiting_view = waiter.get(url(table, "view")).json()
    seq = view["seq"]

    def post(client: APIClient, body: dict[str, Any]) -> Any:
        return client.post(url(table, "actions"), {**body, "expected_seq": seq}, format="json")

    refused = assert_error(post(waiter, {"type": "draw"}), 422, "not_your_turn")
    assert refused["detail"] == "It is not your turn."
    assert_error(post(mover, {"type": "play", "card": "nonsense"}), 422, "card_not_in_hand")
    # Another seat's card is not in your hand, whatever its handle.
    other = waiting_view["game"]["hand"][0]["card"]
    assert_error(post(mover, {"type": "play", "card": other}), 422, "card_not_in_hand")
    if view["game"]["pending"] is None:  # a Wild starter asks for a colour first
        assert_error(
            post(mover, {"type": "choose_color", "color": "red"}), 422, "no_color_to_choose"
        )
    else:
        assert_error(post(mover, {"type": "draw"}), 422, "color_must_be_chosen_first")
    unplayable = [c for c in view["game"]["hand"] if not c["playable"]]
    if unplayable:
        response = post(mover, {"type": "play", "card": unplayable[0]["card"]})
        assert_error(response, 422, unplayable[0]["refusal"])
    assert moves(table) == 1


@pytest.mark.parametrize(
    ("body", "code", "field"),
    [
        ({}, "invalid", "type"),
        ({"type": "cheat"}, "invalid", "type"),
        ({"type": "leave"}, "invalid", "type"),
        ({"type": 7}, "invalid", "type"),
        ({"type": "draw", "expected_seq": "soon"}, "invalid", "expected_seq"),
        ({"type": "draw", "expected_seq": -1}, "invalid", "expected_seq"),
        ({"type": "play", "card": ["a"]}, "invalid", "card"),
        ({"type": "draw", "seat": 1}, "unknown_field", "seat"),
        ({"type": "draw", "seq": 1}, "unknown_field", "seq"),
        ({"type": "draw", "status": "finished"}, "unknown_field", "status"),
        ({"type": "draw", "deadline_at": "2030-01-01T00:00:00Z"}, "unknown_field", "deadline_at"),
        ({"type": "draw", "source": "admin"}, "unknown_field", "source"),
    ],
)
def test_bad_action_bodies_are_400_and_change_nothing(
    alice: User, bob: User, api: Api, body: dict[str, Any], code: str, field: str
) -> None:
    table = started_table(alice, bob)
    mover = api(alice if seat_to_act(table) == 0 else bob)

    response = mover.post(url(table, "actions"), body, format="json")

    assert field in assert_error(response, 400, code)["fields"]
    assert moves(table) == 1


@pytest.mark.parametrize(
    ("body", "code"),
    [
        ({"type": "play"}, "card_required"),
        ({"type": "draw", "card": "abc"}, "card_not_allowed"),
        ({"type": "pass", "color": "red"}, "color_not_allowed"),
        ({"type": "draw", "color": "red"}, "color_not_allowed"),
    ],
)
def test_actions_of_the_wrong_shape_are_refused_by_the_rules_and_change_nothing(
    alice: User, bob: User, api: Api, body: dict[str, Any], code: str
) -> None:
    table = started_table(alice, bob)
    mover = api(alice if seat_to_act(table) == 0 else bob)

    response = mover.post(url(table, "actions"), body, format="json")

    assert_error(response, 422, code)
    assert moves(table) == 1


def test_actions_need_a_seat_an_existing_table_and_a_running_game(
    alice: User, bob: User, api: Api
) -> None:
    table = started_table(alice, bob, allow_watchers=True)
    body = {"type": "draw"}

    assert_error(
        api(make_user()).post(url(table, "actions"), body, format="json"), 403, "not_seated"
    )
    assert_error(api(alice).post(url(999999, "actions"), body, format="json"), 404, "not_found")
    assert_error(
        api(None).post(url(table, "actions"), body, format="json"), 401, "not_authenticated"
    )
    lobby = services.table_create(host=alice, seat_count=2)
    response = api(alice).post(url(lobby, "actions"), body, format="json")
    assert_error(response, 409, "table_not_active")
    assert moves(table) == 1


def test_a_seat_cannot_act_for_a_bot_seat(alice: User, api: Api) -> None:
    table = started_table(alice, bots=1)
    view = api(alice).get(url(table, "view")).json()
    # Alice is to act (the bot played already if it was first); claiming seat 1 is refused.
    response = api(alice).post(
        url(table, "actions"), {**action_body(view), "seat": 1}, format="json"
    )
    assert_error(response, 400, "unknown_field")


def test_wrong_methods_are_405(alice: User, bob: User, api: Api) -> None:
    table = started_table(alice, bob)

    assert_error(api(alice).get(url(table, "actions")), 405, "method_not_allowed")
    assert_error(api(alice).delete(url(table, "view")), 405, "method_not_allowed")
    assert_error(api(alice).put("/api/v1/tables/", {}, format="json"), 405, "method_not_allowed")


def test_actions_are_rate_limited_per_user(alice: User, bob: User, api: Api, settings: Any) -> None:
    settings.REST_FRAMEWORK = {
        **settings.REST_FRAMEWORK,
        "DEFAULT_THROTTLE_RATES": {"actions": "3/minute", "accounts": "100/minute"},
    }
    table = started_table(alice, bob)
    waiting, moving = (bob, alice) if seat_to_act(table) == 0 else (alice, bob)
    waiter = api(waiting)
    for _ in range(3):
        waiter.post(url(table, "actions"), {"type": "draw"}, format="json")

    response = waiter.post(url(table, "actions"), {"type": "draw"}, format="json")

    assert_error(response, 429, "throttled")
    assert int(response["Retry-After"]) > 0
    # Another user has their own allowance.
    other = api(moving)
    assert other.post(url(table, "actions"), {"type": "draw"}, format="json").status_code != 429


# --- concede ------------------------------------------------------------------


def test_concede_ends_a_two_seat_game_for_the_other(alice: User, bob: User, api: Api) -> None:
    table = started_table(alice, bob)

    response = api(bob).post(url(table, "concede"))

    assert response.status_code == 200
    body = response.json()
    assert any(e["type"] == "leave" for e in body["events"])
    assert body["view"]["status"] == "finished"
    assert body["view"]["game"]["winner"] == 0
    assert body["view"]["seats"][1]["left"] is True
    assert_error(api(bob).post(url(table, "concede")), 409, "table_not_active")


def test_concede_in_a_three_seat_game_leaves_the_others_playing(
    alice: User, bob: User, carol: User, api: Api
) -> None:
    table = started_table(alice, bob, carol)

    body = api(carol).post(url(table, "concede")).json()

    assert body["view"]["status"] == "active"
    assert body["view"]["game"]["players"][2]["in_game"] is False
    assert_error(api(carol).post(url(table, "concede")), 409, "already_left")
    assert_error(
        api(carol).post(url(table, "actions"), {"type": "draw"}, format="json"), 403, "not_seated"
    )


def test_concede_refusals(alice: User, bob: User, api: Api) -> None:
    table = started_table(alice, bob)
    assert_error(api(make_user()).post(url(table, "concede")), 403, "not_seated")
    assert_error(api(alice).post(url(999999, "concede")), 404, "not_found")
    assert_error(
        api(alice).post(url(table, "concede"), {"seat": 1}, format="json"), 400, "unknown_field"
    )
    lobby = services.table_create(host=alice, seat_count=2)
    assert_error(api(alice).post(url(lobby, "concede")), 409, "table_not_active")
    assert moves(table) == 1


def test_conceding_to_a_bot_lets_the_bot_play_on(alice: User, bob: User, api: Api) -> None:
    table = started_table(alice, bob, bots=1)
    api(alice).post(url(table, "concede"))
    body = api(bob).post(url(table, "concede")).json()

    assert body["view"]["status"] == "finished"
    assert body["view"]["game"]["winner"] == 2


# --- the log and the record ---------------------------------------------------


def test_log_lists_moves_as_the_caller_may_see_them(alice: User, bob: User, api: Api) -> None:
    table = started_table(alice, bob, allow_watchers=True)
    mover = api(alice if seat_to_act(table) == 0 else bob)
    for _ in range(6):
        view = mover.get(url(table, "view")).json()
        if view["game"]["over"]:
            break
        mover = api(alice) if view["game"]["to_act"] == 0 else api(bob)
        view = mover.get(url(table, "view")).json()
        mover.post(url(table, "actions"), action_body(view), format="json")

    log = api(alice).get(url(table, "log")).json()
    table.refresh_from_db()
    assert log["table"] == table.pk and log["seq"] == table.seq
    assert [m["seq"] for m in log["moves"]] == list(range(1, table.seq + 1))
    assert log["moves"][0]["action"] == "start"
    text = str(log)
    assert "order" not in text and table.state is not None and table.state["seed"] not in text

    later = api(alice).get(url(table, "log") + "?after=3").json()
    assert [m["seq"] for m in later["moves"]] == list(range(4, table.seq + 1))
    watcher = api(make_user()).get(url(table, "log")).json()
    for move in watcher["moves"]:
        for event in move["events"]:
            assert "faces" not in event


def test_log_refuses_a_bad_after(alice: User, bob: User, api: Api) -> None:
    table = started_table(alice, bob)
    assert_error(api(alice).get(url(table, "log") + "?after=x"), 400, "invalid")
    assert_error(api(alice).get(url(999999, "log")), 404, "not_found")


def test_record_is_published_only_when_the_game_is_over(alice: User, bob: User, api: Api) -> None:
    table = started_table(alice, bob)
    assert_error(api(alice).get(url(table, "record")), 409, "game_not_over")

    api(bob).post(url(table, "concede"))

    response = api(alice).get(url(table, "record"))
    assert response.status_code == 200
    record = response.json()
    table.refresh_from_db()
    assert table.state is not None and record["seed"] == table.state["seed"]
    assert_error(api(alice).get(url(999999, "record")), 404, "not_found")
