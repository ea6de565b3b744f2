"""Classic Wild Cards in the web client, without a browser: the new-table form for each
game and option, the lobby's words, and a classic table's page at each decision
(a Wild's colour, a 7's target, a waiting penalty, a jump-in), played through the
page's own forms."""

from __future__ import annotations

import re
from typing import Any

import pytest

from games import selectors
from games.models import Move, Table
from tabletop.ruleset import OptionError
from tests.web.classic import (
    ALL_HOUSE_RULES,
    LIVE,
    act,
    classic_form,
    open_classic,
    play_until,
    seq_of,
    state_of,
)
from tests.web.conftest import NEW_TABLE_FORM, logged_in, make_user
from web.forms import TableForm

pytestmark = pytest.mark.django_db


def new_table(**fields: str) -> tuple[Any, Any]:
    client = logged_in(make_user())
    return client, client.post("/tables/new/", fields)


# --- the new-table form -----------------------------------------------------------


def test_the_form_offers_both_games_each_option_with_its_sentence() -> None:
    html = logged_in(make_user()).get("/").content.decode()
    assert 'name="game" value="flip"' in html and 'name="game" value="wildcards"' in html
    for name, sentence in [
        ("wildcards-stacking", "A Draw 2 or Wild Draw 4 waits"),
        ("wildcards-seven_zero", "Play a 7 to swap hands with a player you choose"),
        ("wildcards-jump_in", "Anyone holding a card identical to the top card"),
        ("wildcards-draw_until_playable", "you keep drawing until you draw a card you can play"),
        ("flip-two_seat_reverse_skips", "With two players a Reverse works like a Skip"),
    ]:
        # Each house rule a checkbox, its one sentence visible and tied to it.
        assert re.search(
            rf'type="checkbox" name="{name}"[^>]*aria-describedby="id_{name}-why"', html
        )
        assert re.search(rf'id="id_{name}-why">[^<]*{re.escape(sentence)}', html), name
    # The classic target is a number from 50 to 5000, Flip's a choice of three.
    assert re.search(r'type="number" name="wildcards-target" value="500"[^>]*min="50"', html)
    assert 'max="5000"' in html
    assert re.search(r'<select name="flip-target"', html)
    assert 'href="/rules/wildcards/"' in html and 'href="/rules/flip/"' in html


@pytest.mark.parametrize("rule", ["stacking", "seven_zero", "jump_in", "draw_until_playable"])
def test_each_house_rule_of_the_form_reaches_the_table(rule: str) -> None:
    _, response = new_table(**classic_form(3, **{f"wildcards-{rule}": "on"}))
    assert response.status_code == 302
    table = Table.objects.latest("pk")
    assert table.game == "wildcards"
    on = {name for name, value in table.options.items() if value is True}
    assert on == {rule}


def test_every_house_rule_and_a_target_together() -> None:
    fields = classic_form(4, **ALL_HOUSE_RULES, **{"wildcards-scoring": "target"})
    fields["wildcards-target"] = "1250"
    _, response = new_table(**fields)
    assert response.status_code == 302
    options = Table.objects.latest("pk").options
    assert (options["scoring"], options["target"]) == ("target", 1250)
    assert all(
        options[rule] for rule in ("stacking", "seven_zero", "jump_in", "draw_until_playable")
    )


def test_the_chosen_game_decides_and_the_other_games_fields_are_ignored() -> None:
    # Without the script both fieldsets are sent: Flip's junk does not stop a classic table.
    fields = {**classic_form(3), "flip-target": "333", "flip-scoring": "nonsense"}
    _, response = new_table(**fields)
    assert response.status_code == 302
    assert Table.objects.latest("pk").game == "wildcards"
    # And a Flip table ignores the classic game's fields.
    _, response = new_table(**{**NEW_TABLE_FORM, "wildcards-target": "7"})
    assert response.status_code == 302
    table = Table.objects.latest("pk")
    assert table.game == "flip" and "stacking" not in table.options


@pytest.mark.parametrize(
    ("field", "value", "words"),
    [
        ("wildcards-target", "49", "greater than or equal to 50"),
        ("wildcards-target", "5001", "less than or equal to 5000"),
        ("wildcards-target", "lots", "Enter a whole number"),
        ("wildcards-target", "", "Enter a whole number"),
        ("wildcards-scoring", "forever", "Select a valid choice"),
        ("game", "chess", "Select a valid choice"),
    ],
)
def test_a_bad_classic_value_is_refused_on_its_field(field: str, value: str, words: str) -> None:
    _, response = new_table(**{**classic_form(3), field: value})
    assert response.status_code == 400
    html = response.content.decode()
    assert words in html
    # The error sits in the field's own block, next to it.
    block = re.search(rf'name="{field}".*?</div>', html, re.S)
    assert block is not None and words in block.group(0) or field == "game"
    assert not Table.objects.exists()


def test_a_bad_flip_target_is_refused_on_its_field() -> None:
    _, response = new_table(**{**NEW_TABLE_FORM, "flip-target": "300"})
    assert response.status_code == 400
    assert "Select a valid choice" in response.content.decode()


def test_a_refusal_of_the_service_lands_on_the_option_it_names() -> None:
    form = TableForm(data=classic_form(3))
    assert form.is_valid(), form.errors
    form.add_service_error(OptionError("stacking", "stacking is true or false"))
    assert form.errors["wildcards-stacking"] == [
        "The table cannot be opened: stacking is true or false."
    ]
    form.add_service_error(ValueError("the turn deadline is 12, 24 or 72 hours"))
    assert "the turn deadline" in form.non_field_errors()[0]


# --- the lobby and the rules --------------------------------------------------------


def test_the_lobby_names_the_game_and_its_house_rules_in_words() -> None:
    host, response = new_table(
        **classic_form(3, **{"wildcards-stacking": "on", "wildcards-jump_in": "on"})
    )
    table_id = int(response["Location"].strip("/").split("/")[-1])
    lobby = host.get(f"/tables/{table_id}/").content.decode()
    assert "<strong>Wild Cards</strong>" in lobby
    assert "house rules: Stack draw cards, Jump-in" in lobby
    assert "Scoring: single round" in lobby and "Target score" not in lobby
    other = logged_in(make_user()).get("/").content.decode()  # among the open tables
    assert (
        "<strong>Wild Cards</strong>" in other and "house rules: Stack draw cards, Jump-in" in other
    )
    flip_host, _ = new_table(**{**NEW_TABLE_FORM, "flip-scoring": "target", "flip-target": "1000"})
    flip_lobby = flip_host.get("/").content.decode()
    assert "Wild Cards Flip" in flip_lobby


@pytest.mark.parametrize(("game", "words"), [("flip", "light"), ("wildcards", "7-0 swap")])
def test_each_game_has_a_rules_page_with_every_option(game: str, words: str) -> None:
    response = logged_in(make_user()).get(f"/rules/{game}/")
    assert response.status_code == 200
    html = response.content.decode()
    assert words in html
    offered = next(g for g in selectors.games_offered() if g["id"] == game)
    for spec in offered["options"]:
        assert spec.label in html and spec.sentence.replace("'", "&#x27;") in html
    assert logged_in(make_user()).get("/rules/chess/").status_code == 404


# --- a classic table at each decision ----------------------------------------------


def live(client: Any, table_id: int) -> str:
    return str(client.get(f"/tables/{table_id}/live/").content.decode())


def test_a_classic_table_page_draws_every_card_in_words() -> None:
    table_id, _, clients = open_classic(3)
    html = clients[0].get(f"/tables/{table_id}/").content.decode()
    state = state_of(table_id)
    assert (
        "<strong>Wild Cards</strong>" in html
        and "side" not in re.sub(r"<[^>]+>", "", html).lower().split("table")[0]
    )
    faces = re.findall(r'data-face="([a-z0-9-]+)"', html)
    assert faces and all(not f.startswith(("flame", "moon")) for f in faces)
    # Every face of the hand shows its colour's symbol (or the wheel) and its name.
    for card in re.findall(
        r'<span class="card card-light (c-\w+) k-[\w-]+" data-face="([\w-]+)"'
        r"[^>]*>(.*?)</span>\s*</span>",
        html,
        re.S,
    ):
        colour, code, inner = card
        if colour != "c-wild":
            assert "#s-" in inner, code
        else:
            assert "wheel" in inner, code
    names = re.findall(r'<span class="name" aria-hidden="true">([^<]+)</span>', html)
    assert len(names) >= len(state.hands[0]) + 1
    assert all(name[0].isupper() or name[0].isdigit() for name in names)
    assert 'href="/rules/wildcards/"' in html
    assert "Top card, " not in html  # the Flip-only other face of the draw pile


def test_a_wild_offers_its_four_colours_and_plays_with_the_one_chosen() -> None:
    table_id, _, clients = open_classic(3)

    def wild(_t: int, seat: int, view: dict[str, Any]) -> bool:
        return any(a.get("colors") and a["type"] == "play" for a in view["legal_actions"]) and (
            view["to_act"] == seat
        )

    seat = play_until(table_id, clients, wild)
    assert seat is not None
    html = live(clients[seat], table_id)
    handle = re.search(r'data-key="color-([0-9a-f]+)-red"', html)
    assert handle is not None
    for colour in ("red", "yellow", "green", "blue"):
        assert f'data-key="color-{handle.group(1)}-{colour}"' in html
    answer = act(
        clients[seat],
        table_id,
        {"type": "play", "card": handle.group(1), "color": "green", "expected_seq": seq_of(html)},
    )
    assert answer["ok"], answer
    assert state_of(table_id).color == 2  # green
    assert "chose Green" in answer["html"]


def test_a_seven_offers_the_other_seats_by_name_and_swaps_with_the_one_chosen() -> None:
    form = classic_form(3, **{"wildcards-seven_zero": "on"})
    table_id, users, clients = open_classic(3, form=form)

    def seven(_t: int, seat: int, view: dict[str, Any]) -> bool:
        return view["to_act"] == seat and any(a.get("targets") for a in view["legal_actions"])

    seat = play_until(table_id, clients, seven)
    assert seat is not None
    html = live(clients[seat], table_id)
    picks = re.findall(
        r'name="target" value="(\d+)" class="target" data-key="target-([0-9a-f]+)-\d+">([^<]+)<',
        html,
    )
    assert picks, "no target buttons"
    # The other seats by name, never the player's own.
    assert {name for _, _, name in picks} <= {u.username for n, u in enumerate(users) if n != seat}
    target, handle, name = picks[0]
    before = [len(h) for h in state_of(table_id).hands]
    answer = act(
        clients[seat],
        table_id,
        {"type": "play", "card": handle, "target": target, "expected_seq": seq_of(html)},
    )
    assert answer["ok"], answer
    after = [len(h) for h in state_of(table_id).hands]
    if (
        after[seat] + after[int(target)] > 0
        and state_of(table_id).round == 1
        and not state_of(table_id).over
    ):
        assert after[int(target)] == before[seat] - 1 and after[seat] == before[int(target)]
    assert "swapped hands" in answer["html"], answer["html"]


def test_a_waiting_penalty_offers_take_n_cards_beside_the_cards_that_answer_it() -> None:
    form = classic_form(3, **{"wildcards-stacking": "on"})
    table_id, _, clients = open_classic(3, form=form)

    def penalty(_t: int, seat: int, view: dict[str, Any]) -> bool:
        return (
            bool(view["pending"])
            and view["pending"]["type"] == "penalty"
            and view["to_act"] == seat
        )

    seat = play_until(table_id, clients, penalty)
    assert seat is not None
    count = state_of(table_id).penalty
    html = live(clients[seat], table_id)
    assert f"Take {count} cards" in html and "data-take-penalty" in html
    assert "Draw a card" not in html
    assert f"{count} cards</strong> of penalty wait for you" in html
    # A card that cannot answer it says why, in the rules' words.
    assert "A draw penalty is waiting" in html or "playable" in html
    watcher_html = live(clients[(seat + 1) % 3], table_id)
    assert f"{count} cards</strong> of penalty wait" in watcher_html
    before = len(state_of(table_id).hands[seat])
    answer = act(clients[seat], table_id, {"type": "take_penalty", "expected_seq": seq_of(html)})
    assert answer["ok"], answer
    assert len(state_of(table_id).hands[seat]) >= before  # short only if the piles ran dry
    assert "took the penalty" in answer["html"]
    # No penalty waits now: taking one again is refused with the rules' sentence.
    refused = act(clients[seat], table_id, {"type": "take_penalty"})
    assert not refused["ok"] and refused["error"]["detail"]


def test_jump_in_is_offered_to_its_holder_only_and_plays_out_of_turn() -> None:
    form = classic_form(4, **{"wildcards-jump_in": "on"})
    table_id, users, clients = open_classic(4, form=form)

    def jump(_t: int, seat: int, view: dict[str, Any]) -> bool:
        return view["to_act"] != seat and any(c.get("jump_in") for c in view["hand"])

    seat = play_until(table_id, clients, jump)
    assert seat is not None
    html = live(clients[seat], table_id)
    assert "You may jump in" in html and ", jump in" in html
    handle = re.search(
        r'data-card="([0-9a-f]+)" data-playable="true" data-key="card-[0-9a-f]+"'
        r'[^>]*aria-label="[^"]*, jump in"',
        html,
    )
    assert handle is not None
    # Nobody else is told who could jump in: another seat's page offers a jump-in only
    # when its own view does, and no page names the seat that may.
    table = Table.objects.get(pk=table_id)
    for other, client in clients.items():
        if other == seat:
            continue
        page = live(client, table_id)
        view = selectors.table_view(table, other)
        assert view is not None
        own = any(c.get("jump_in") for c in view["hand"])
        assert ("You may jump in" in page) == own
        assert handle.group(1) not in page
    answer = act(
        clients[seat],
        table_id,
        {"type": "play", "card": handle.group(1), "expected_seq": seq_of(html)},
    )
    assert answer["ok"], answer
    move = Move.objects.filter(table_id=table_id).order_by("-seq").first()
    assert move is not None and move.seat == seat
    assert f"{users[seat].username} jumped in with" in live(clients[(seat + 1) % 4], table_id)


def test_the_draw_button_says_draw_until_playable_when_the_rule_is_on() -> None:
    form = classic_form(2, **{"wildcards-draw_until_playable": "on"})
    table_id, _, clients = open_classic(2, form=form)
    to_act = Table.objects.get(pk=table_id).to_act
    assert to_act is not None
    assert "Draw until you can play" in live(clients[to_act], table_id)
    plain, _, plain_clients = open_classic(2)
    to_act = Table.objects.get(pk=plain).to_act
    assert to_act is not None
    assert "Draw a card" in live(plain_clients[to_act], plain)


def test_a_refused_classic_move_answers_with_the_rules_sentence() -> None:
    table_id, _, clients = open_classic(3)
    table = Table.objects.get(pk=table_id)
    idle = next(n for n in clients if n != table.to_act)
    answer = act(clients[idle], table_id, {"type": "draw"})
    assert not answer["ok"]
    assert answer["error"] == {"code": "not_your_turn", "detail": "It is not your turn."}
    without = clients[idle].post(f"/tables/{table_id}/act/", {"type": "draw"})
    assert without.status_code == 302  # the page works without the script too
    page = clients[idle].get(f"/tables/{table_id}/").content.decode()
    assert "It is not your turn." in page
    assert LIVE  # the script's header, sent by act()
