"""games.apis.common: input parsing keeps each serializer class's fields, and answers as before.

``parse_input`` and ``parse_query`` hand every new serializer the fields the
first one of its class built on this thread, instead of DRF's deep copy per
request. Every case below is parsed both ways, interleaved, valid and invalid
one after the other, so a field that kept something from the request before
(an error, a value, the root's ``partial``) shows as a difference.
"""

from __future__ import annotations

import threading
from typing import Any

import pytest
from rest_framework import exceptions, serializers

from accounts.apis import RegisterApi, TokenApi
from games.apis import common
from games.apis.tables import TableActionApi, TableListApi

Case = tuple[type[serializers.Serializer[Any]], Any, bool]

ACTION = TableActionApi.InputSerializer
TURN = TableListApi.create_inputs["flip", "turn_by_turn"]
LONG = "x" * 65

CASES: list[Case] = [
    (ACTION, {"type": "play", "card": "c17", "color": "red", "expected_seq": 4}, False),
    (ACTION, {"type": "play", "card": LONG}, False),
    (ACTION, {"type": "draw"}, False),
    (ACTION, {"type": "draw", "expected_seq": True}, False),
    (ACTION, {}, False),
    (ACTION, {"type": "dance", "card": "", "color": 3, "expected_seq": -1}, False),
    (ACTION, {"type": "pass", "card": None, "color": None, "expected_seq": None}, False),
    (ACTION, {"type": "play", "card": "a\x00b"}, False),
    (ACTION, {"type": "choose_color", "color": "blue", "expected_seq": 2**40}, False),
    (ACTION, {"type": "play", "bogus": 1}, False),
    (TURN, {"seat_count": 4}, False),
    (TURN, {"seat_count": 11, "turn_hours": "24"}, False),
    (TURN, {"seat_count": 3, "turn_hours": 72, "timeout_policy": "leave"}, False),
    (TURN, {"turn_hours": 12}, True),
    (TURN, {"turn_hours": 13}, True),
    (TURN, {}, False),
    (RegisterApi.InputSerializer, {"username": "", "email": "nope"}, False),
    (TokenApi.InputSerializer, {"username": "ann", "password": " pw ", "name": "laptop"}, False),
    (TokenApi.InputSerializer, {"username": 5}, False),
]


def _outcome(case: Case) -> Any:
    serializer_class, data, partial = case
    try:
        return ("ok", common.parse_input(serializer_class, data, partial=partial))
    except exceptions.APIException as refused:
        return ("refused", type(refused).__name__, refused.get_full_details())
    except Exception as failed:  # a ServiceError: unknown field, not an object
        return ("refused", type(failed).__name__, getattr(failed, "fields", None), str(failed))


def _fresh(case: Case, monkeypatch: pytest.MonkeyPatch) -> Any:
    with monkeypatch.context() as patch:
        patch.setattr(common, "_with_kept_fields", lambda serializer: serializer)
        return _outcome(case)


@pytest.mark.django_db
def test_kept_fields_answer_every_case_as_fresh_fields_do(monkeypatch: pytest.MonkeyPatch) -> None:
    for _ in range(2):  # the second pass runs on fields every case has used
        for case in CASES:
            assert _outcome(case) == _fresh(case, monkeypatch), case


def test_the_fields_are_built_once_per_class_and_thread() -> None:
    def fields_of(data: dict[str, Any]) -> list[Any]:
        serializer = common._with_kept_fields(ACTION(data=data))
        assert serializer.is_valid()
        return [*serializer.fields.values(), serializer]

    first = fields_of({"type": "draw"})
    second = fields_of({"type": "pass"})
    assert first[:-1] == second[:-1]  # the very same field objects
    assert all(field.parent is second[-1] for field in second[:-1])

    elsewhere: list[Any] = []
    thread = threading.Thread(target=lambda: elsewhere.extend(fields_of({"type": "draw"})))
    thread.start()
    thread.join()
    assert not {id(f) for f in elsewhere[:-1]} & {id(f) for f in first[:-1]}


def test_query_parsing_keeps_the_fields_too() -> None:
    query = TableListApi.FilterSerializer
    assert common.parse_query(query, {"limit": "5"})["limit"] == 5
    with pytest.raises(serializers.ValidationError):
        common.parse_query(query, {"limit": "0"})
    assert common.parse_query(query, {})["limit"] == 50
