"""The ruleset the service registers, the record and replay, the Easy bot and the command line."""

from __future__ import annotations

import json
import random

import pytest

from tabletop.ruleset import OptionError
from tabletop.ruleset import RuleError as BaseRuleError
from wildcards import Options, Recorder, RuleError, apply, legal_actions, new_game, replay
from wildcards.bots import easy
from wildcards.cli import main
from wildcards.errors import MESSAGES
from wildcards.record import FORMAT
from wildcards.ruleset import RULESET

R33_CODES = {
    "no_match",
    "wild_draw4_blocked",
    "penalty_waiting",
    "must_play_drawn_card",
    "must_play_playable",
    "must_draw",
    "nothing_to_draw",
    "no_penalty",
    "choose_color_first",
    "no_color_to_choose",
    "not_your_turn",
    "jump_in_closed",
    "jump_in_not_identical",
    "card_not_in_hand",
    "color_required",
    "color_not_allowed",
    "bad_color",
    "target_required",
    "target_not_allowed",
    "bad_target",
    "bad_action",
    "seat_not_in_game",
    "round_over",
    "round_in_progress",
    "game_over",
}


def test_ruleset_declares_the_game() -> None:
    assert (RULESET.id, RULESET.version, RULESET.name) == ("wildcards", 1, "Wild Cards")
    assert RULESET.bot_levels == ("easy", "normal", "hard") and RULESET.stand_in_level == "normal"
    assert set(RULESET.messages) >= R33_CODES and set(MESSAGES) >= R33_CODES
    assert issubclass(RuleError, BaseRuleError)
    assert [spec.name for spec in RULESET.options if spec.house_rule] == [
        "stacking",
        "seven_zero",
        "jump_in",
        "draw_until_playable",
    ]


def test_ruleset_options_bounds() -> None:
    options = RULESET.make_options(5, {"stacking": True, "scoring": "target", "target": 50})
    assert options == Options(seats=5, stacking=True, scoring="target", target=50)
    assert RULESET.make_options(5, {}) == Options(seats=5)
    for values in ({"target": 49}, {"target": 5001}, {"stacking": 1}, {"house": True}):
        with pytest.raises(OptionError):
            RULESET.make_options(4, values)
    with pytest.raises(ValueError):
        RULESET.make_options(11, {})
    # What the service stores (options_dict without the seats) is taken back as it is.
    stored = RULESET.options_dict(options)
    del stored["seats"]
    assert RULESET.make_options(5, stored) == options


def test_ruleset_plays_a_game_through_requests_of_easy_bots() -> None:
    options = RULESET.make_options(
        4, {name: True for name in ("stacking", "seven_zero", "jump_in")}
    )
    state, start = RULESET.new_game(options, "bots")
    moves = []
    for _ in range(5000):
        if state.over:
            break
        acted = False
        for seat in [s for s in range(4) if s != state.current] + [state.current]:
            request = RULESET.bot_request(state, seat, level="hard", seed="b", levels=[None] * 4)
            if request is None:
                assert seat != state.current
                continue
            action = RULESET.parse_request(state, seat, dict(request))
            state, events = RULESET.apply(state, seat, action)
            moves.append((seat, action, "bot", events, None))
            acted = True
            break
        assert acted
        snapshot = json.loads(json.dumps(state.to_dict()))
        assert RULESET.restore(snapshot).to_dict() == state.to_dict()
    assert state.over
    record = RULESET.record(options, "bots", start, moves)
    assert record["format"] == FORMAT
    assert RULESET.replay(record).to_dict() == state.to_dict()
    positions = list(RULESET.positions(record))
    assert len(positions) == len(moves) + 1 and positions[-1]["over"]


def test_bots_easy_decides_from_the_view_only() -> None:
    view = {"legal_actions": [{"type": "play", "card": "h", "colors": ["red", "blue"]}]}
    seen = {json.dumps(easy.choose(view, random.Random(i)), sort_keys=True) for i in range(40)}
    assert len(seen) == 2


def test_record_refuses_another_game() -> None:
    state, events = new_game(Options(seats=2), "r")
    record = Recorder(state.options, state.seed, events).to_dict()
    with pytest.raises(ValueError):
        replay({**record, "format": "gamenook-flip-record"})
    with pytest.raises(ValueError):
        replay({**record, "shuffles": []})


def test_record_refused_action_does_not_replay() -> None:
    state, events = new_game(Options(seats=2), "r")
    recorder = Recorder(state.options, state.seed, events)
    action = legal_actions(state, state.current)[0]
    after, more = apply(state, state.current, action)
    recorder.add(state.current, action, "player", more)
    record = recorder.to_dict()
    record["actions"][0]["seat"] = 1 - state.current
    with pytest.raises(RuleError):
        replay(record)


def test_cli_simulate_prints_a_summary(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["simulate", "--games", "3", "--players", "3", "--jump-in", "--seven-zero"]) == 0
    summary = json.loads(capsys.readouterr().out)
    assert summary["games"] == 3 and summary["options"]["jump_in"] is True
    assert summary["rounds"] >= 3
