"""Flip takes what every game shares from ``tabletop``, with Flip's own bytes unchanged.

The golden games (test_golden.py) and replays (test_replay.py) pin the whole
of it; these pin each shared piece at its seam, so a change to ``tabletop``
that would change Flip's shuffles, handles, refusals or records says where.
"""

from __future__ import annotations

import hashlib

import pytest

import tabletop.record
import tabletop.ruleset
from flip import MESSAGES, Options, Recorder, RuleError, handle, legal_actions, new_game
from flip.cards import DECK_SIZE
from flip.engine import shuffled
from tabletop.handles import handle_at, handle_stream
from tabletop.shuffle import shuffled as shared_shuffled


def test_tabletop_flip_shuffles_are_the_shared_shuffle_in_flip_s_domain() -> None:
    deck = list(range(DECK_SIZE))
    for number in range(5):
        assert shuffled(deck, "seam", number) == shared_shuffled(
            deck, "seam", number, domain=b"flip shuffle"
        )
    assert shuffled(deck, "seam", 0) != shared_shuffled(deck, "seam", 0, domain=b"other game")


def test_tabletop_flip_handles_are_the_shared_stream_keyed_as_before() -> None:
    state, _ = new_game(Options(seats=3), "seam")
    key = state.seed.encode()
    # Flip's handles since before tabletop: the seed's length first, then round and flips.
    flip_bytes = hashlib.shake_128(
        b"flip handles:%d:%s:%d:%d:" % (len(key), key, state.round, state.flips)
    ).digest(6 * DECK_SIZE)
    shared = handle_stream(state.seed, b"1:0:", DECK_SIZE, domain=b"flip handles")
    assert shared == flip_bytes
    for card in state.hands[1]:
        assert handle(state, card) == handle_at(shared, card)


def test_tabletop_flip_refusals_are_tabletop_refusals() -> None:
    error = RuleError("not_your_turn")
    assert isinstance(error, tabletop.ruleset.RuleError)
    assert (error.code, error.message) == ("not_your_turn", MESSAGES["not_your_turn"])
    assert error.as_dict() == {"code": "not_your_turn", "detail": MESSAGES["not_your_turn"]}
    assert RuleError("not_your_turn", "Wait.").as_dict()["detail"] == "Wait."
    with pytest.raises(tabletop.ruleset.RuleError):
        raise error


def test_tabletop_flip_records_are_tabletop_envelopes() -> None:
    state, events = new_game(Options(seats=2), "seam")
    recorder = Recorder(state.options, state.seed, events)
    record = recorder.to_dict()
    assert list(record) == ["format", "version", "options", "seed", "shuffles", "actions"]
    orders = list(tabletop.record.opened(record, "gamenook-flip-record", 1, "Wild Cards Flip"))
    assert orders == [shuffle["order"] for shuffle in record["shuffles"]]
    action = legal_actions(state, state.current)[0]
    # The head every game's entries share is checked the same way for Flip's.
    with pytest.raises(ValueError, match="only stands in for a person"):
        recorder.add(state.current, action, "timeout", [], "away")
    recorder.add(state.current, action, "bot", [], "away")
    assert list(recorder.to_dict()["actions"][0])[:4] == ["seat", "source", "stand_in", "type"]
