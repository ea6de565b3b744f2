"""The typed boundary: flip/types.py describes exactly what flip returns.

Random games are played with views, events, memories, snapshots and records
checked against their TypedDicts at every step, key by key and value by value
(no key missing, none extra, every value of its declared type), so a type
that drifts from the code fails here and not in a client.
"""

from __future__ import annotations

import json
import random
import types
import typing
from typing import Any, Literal, NotRequired, Required, TypedDict, get_args, get_origin

import pytest

import flip
from flip import (
    ACTION_TYPES,
    COLORS,
    MESSAGES,
    PENDING_COLOR,
    PENDING_DRAWN,
    REQUEST_MESSAGES,
    SIDES,
    Action,
    Options,
    Recorder,
    apply,
    event_view,
    flip_memory,
    legal_actions,
    new_game,
    timeout_action,
    view,
    watcher_view,
)
from flip import types as t
from flip.positions import Position, open_positions


def _is_typeddict(tp: object) -> bool:
    return isinstance(tp, type) and issubclass(tp, dict) and hasattr(tp, "__required_keys__")


def _conforms_union(value: object, tp: Any, path: str) -> None:
    errors = []
    for option in get_args(tp):
        try:
            conforms(value, option, path)
        except AssertionError as error:
            errors.append(str(error))
        else:
            return
    raise AssertionError(f"{path}: {value!r} matches no member: {errors}")


def _conforms_typeddict(value: object, tp: Any, path: str) -> None:
    assert isinstance(value, dict), f"{path}: {value!r} is not a dict"
    hints = typing.get_type_hints(tp, include_extras=True)
    required = set()
    for key, hint in hints.items():
        if get_origin(hint) is NotRequired:
            hints[key] = get_args(hint)[0]
        else:
            if get_origin(hint) is Required:
                hints[key] = get_args(hint)[0]
            required.add(key)
    extra = set(value) - set(hints)
    missing = required - set(value)
    assert not extra, f"{path}: keys {extra} are not in {tp.__name__}"
    assert not missing, f"{path}: keys {missing} of {tp.__name__} are missing"
    for key, element in value.items():
        conforms(element, hints[key], f"{path}.{key}")


def conforms(value: object, tp: Any, path: str = "$") -> None:
    """Raise AssertionError, naming the place, unless ``value`` is of type ``tp``."""
    origin = get_origin(tp)
    if isinstance(tp, typing.NewType):
        conforms(value, tp.__supertype__, path)
    elif tp is None or tp is type(None):
        assert value is None, f"{path}: {value!r} is not None"
    elif origin is Literal:
        assert value in get_args(tp), f"{path}: {value!r} not in {get_args(tp)}"
    elif origin in (typing.Union, types.UnionType):
        _conforms_union(value, tp, path)
    elif origin is list:
        assert isinstance(value, list), f"{path}: {value!r} is not a list"
        (item,) = get_args(tp)
        for i, element in enumerate(value):
            conforms(element, item, f"{path}[{i}]")
    elif _is_typeddict(tp):
        _conforms_typeddict(value, tp, path)
    elif tp is int or tp is bool:
        # bool is an int subclass: an int field must not hold True, nor a bool field 1.
        assert type(value) is tp, f"{path}: {value!r} is not a {tp.__name__}"
    else:
        assert isinstance(value, tp), f"{path}: {value!r} is not a {tp}"


def test_types_literals_match_the_engines_names() -> None:
    assert set(get_args(t.RefusalCode)) == set(MESSAGES) | set(REQUEST_MESSAGES)
    assert get_args(t.ActionType) == ACTION_TYPES
    assert get_args(t.ColorName) == COLORS
    assert get_args(t.SideName) == SIDES
    assert get_args(t.Pending) == (PENDING_COLOR, PENDING_DRAWN)
    assert get_args(t.Source) == flip.record.SOURCES


def test_types_every_name_is_exported_from_flip() -> None:
    for name in t.__all__:
        assert getattr(flip, name) is getattr(t, name), name
        assert name in flip.__all__, name


def test_types_a_checker_that_can_fail() -> None:
    class Small(TypedDict):
        a: int
        b: NotRequired[list[t.ColorName]]

    conforms({"a": 1}, Small)
    conforms({"a": 1, "b": ["red"]}, Small)
    for bad in ({}, {"a": "1"}, {"a": 1, "c": 2}, {"a": 1, "b": ["pink"]}, {"a": True}):
        with pytest.raises(AssertionError):
            conforms(bad, Small)


@pytest.mark.parametrize("seats", [2, 3, 5, 10])
def test_types_describe_what_flip_returns(seats: int) -> None:
    rng = random.Random(seats)
    options = Options(seats=seats, scoring="target", target=250)
    for game in range(1 if seats > 3 else 2):
        state, events = new_game(options, f"types:{seats}:{game}")
        recorder = Recorder(options, state.seed, events)
        steps = 0
        while True:
            for event in events:
                conforms(event, t.Event)
                for seat in (None, *range(seats)):
                    seen = event_view(event, seat)
                    if seen is not None:
                        conforms(seen, t.SeenEvent)
            conforms(state.to_dict(), t.Snapshot)
            conforms(json.loads(json.dumps(state.to_dict())), t.Snapshot)
            if state.over:
                break
            if steps % 7 == 0:
                conforms(watcher_view(state), t.WatcherView)
                conforms(view(state, None), t.WatcherView)
                for seat in range(seats):
                    conforms(view(state, seat), t.SeatView)
                    memory = flip_memory(state, seat)
                    if memory is not None:
                        conforms(memory, t.FlipMemory)
            seat = state.current
            action = rng.choice(legal_actions(state, seat))
            if rng.random() < 0.2:
                action = timeout_action(state)
            source = "timeout"
            if rng.random() < 0.002:
                seat = rng.choice([s for s in range(seats) if state.active[s]])
                action, source = Action(flip.LEAVE), "leave"
            conforms(action.to_dict(), t.ActionDict)
            state, events = apply(state, seat, action)
            recorder.add(seat, action, source, events)
            steps += 1
        conforms(recorder.to_dict(), t.GameRecord)
        for position in open_positions(json.loads(json.dumps(recorder.to_dict()))):
            conforms(position, Position)
        for entry in state.ranking:
            conforms(entry, t.RankingEntry)


def test_types_requests_and_errors() -> None:
    state, _ = new_game(Options(seats=2), "types:requests")
    for entry in view(state, state.current)["legal_actions"]:
        request: dict[str, object] = {"type": entry["type"]}
        if "card" in entry:
            request["card"] = entry["card"]
        if "colors" in entry:
            request["color"] = entry["colors"][0]
        conforms(request, t.Request)
    for code in (*MESSAGES, *REQUEST_MESSAGES):
        conforms(flip.RuleError(code).as_dict(), t.ErrorDict)


def test_types_no_submodule_shadows_a_name_flip_exports() -> None:
    # Importing a submodule binds it on the package: a module named like an
    # exported function (flip.replay once was both) would replace the function.
    import importlib
    import pkgutil

    for module in pkgutil.walk_packages(flip.__path__, "flip."):
        importlib.import_module(module.name)
    for name in flip.__all__:
        assert not isinstance(getattr(flip, name), types.ModuleType), name
