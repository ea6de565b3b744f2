"""The OpenAPI schema of each game's view is generated from its TypedDicts and fits real views."""

from __future__ import annotations

import random
from typing import Any

import pytest
from rest_framework import serializers

import flip
from games.apis.typed import game_view_serializers, serializer_for


def flip_view_schema() -> Any:
    """Flip's view serializer (the first game's)."""
    return game_view_serializers()[0]()


def _fits(value: Any, field: Any, path: str) -> list[str]:
    """Where ``value`` does not fit ``field``: unknown or missing keys, a wrong type."""
    if value is None:
        return [] if field.allow_null else [f"{path}: null"]
    if isinstance(field, serializers.Serializer):
        if not isinstance(value, dict):
            return [f"{path}: not an object"]
        fields = field.fields
        problems = [f"{path}.{key}: not in the schema" for key in value if key not in fields]
        problems += [
            f"{path}.{name}: missing"
            for name, sub in fields.items()
            if sub.required and name not in value
        ]
        for key, item in value.items():
            if key in fields:
                problems += _fits(item, fields[key], f"{path}.{key}")
        return problems
    if isinstance(field, serializers.ListField):
        if not isinstance(value, list):
            return [f"{path}: not a list"]
        return [p for i, item in enumerate(value) for p in _fits(item, field.child, f"{path}[{i}]")]
    try:
        field.run_validation(value)
    except serializers.ValidationError as error:
        return [f"{path}: {value!r} {error.detail}"]
    kinds = {
        serializers.BooleanField: bool,
        serializers.IntegerField: int,
        serializers.CharField: str,
    }
    for kind, python in kinds.items():
        if type(field) is kind and not isinstance(value, python):
            return [f"{path}: {value!r} is not {python.__name__}"]
    return []


@pytest.mark.parametrize("seats", [2, 3, 6])
def test_every_view_of_whole_games_fits_the_generated_schema(seats: int) -> None:
    schema = flip_view_schema()
    rng = random.Random(seats)
    options = flip.Options(seats=seats, scoring="target", target=250)
    state, _ = flip.new_game(options, seed=f"schema-{seats}")
    seen = 0
    while not state.over:
        for seat in [None, *range(seats)]:
            assert _fits(flip.view(state, seat), schema, "game") == []
            seen += 1
        actor = state.current
        if rng.random() < 0.01 and state.players_left > 2:
            state, _ = flip.apply(
                state,
                rng.choice([s for s in range(seats) if state.active[s]]),
                flip.Action(flip.LEAVE),
            )
            continue
        state, _ = flip.apply(state, actor, rng.choice(flip.legal_actions(state, actor)))
    for seat in [None, *range(seats)]:
        assert _fits(flip.view(state, seat), schema, "game") == []
    assert seen > 50


def test_the_generated_schema_has_every_key_of_the_typed_views_and_no_other() -> None:
    fields = flip_view_schema().fields
    assert set(fields) == set(flip.SeatView.__annotations__) | set(flip.TableView.__annotations__)
    assert fields["seat"].allow_null  # a watcher's view has no seat
    hand = fields["hand"].child.fields
    assert not hand["refusal"].required and hand["playable"].required
    assert set(fields["side"].choices) == {"light", "dark"}


def test_the_check_finds_a_key_the_schema_does_not_have() -> None:
    state, _ = flip.new_game(flip.Options(seats=2), seed="x")
    view = dict(flip.view(state, 0))
    view["hand"] = [{**view["hand"][0], "other_face": "moon-3"}]
    assert _fits(view, flip_view_schema(), "game") == ["game.hand[0].other_face: not in the schema"]


def test_a_shape_the_generator_cannot_describe_is_refused() -> None:
    from typing import TypedDict

    class Odd(TypedDict):
        value: int | str

    with pytest.raises(TypeError):
        serializer_for("Odd", Odd)


@pytest.mark.parametrize("seats", [2, 4, 10])
def test_every_classic_view_of_whole_games_fits_its_generated_schema(seats: int) -> None:
    """Classic Wild Cards' views with every house rule (a pending penalty, a drawn card,
    jump-ins, 7-0 targets, finished rounds) fit the schema made from its types."""
    import wildcards

    schema = next(s for s in game_view_serializers() if s.__name__ == "WildcardsGameView")()
    rng = random.Random(seats)
    options = wildcards.Options(
        seats=seats,
        scoring="target",
        target=50,
        stacking=True,
        seven_zero=True,
        jump_in=True,
        draw_until_playable=True,
    )
    state, _ = wildcards.new_game(options, seed=f"schema-{seats}")
    seen = 0
    while not state.over:
        for seat in [None, *range(seats)]:
            assert _fits(wildcards.view(state, seat), schema, "game") == []
            seen += 1
        movers = [s for s in range(seats) if wildcards.legal_actions(state, s)]
        actor = rng.choice(movers)
        state, _ = wildcards.apply(state, actor, rng.choice(wildcards.legal_actions(state, actor)))
    for seat in [None, *range(seats)]:
        assert _fits(wildcards.view(state, seat), schema, "game") == []
    assert seen > 50
