"""DRF serializers generated from the games' TypedDicts, for the OpenAPI schema of their views.

The API serves each game's views as its rules build them; the schema that
describes them is generated here from the very types the game is checked
against (``Ruleset.view_types``), so it cannot drift from the served shape. A key every
given TypedDict requires is required; a key one of them leaves out
(``NotRequired``) is optional; a type that admits None is nullable;
``Literal`` types become enums.

    >>> GameView = serializer_for("GameView", *rulesets.ruleset("flip").view_types)
    >>> sorted(GameView().fields)[:3]
    ['color', 'dealer', 'direction']
"""

from __future__ import annotations

import copy
import types
import typing
from typing import Any, Literal, get_args, get_origin, get_type_hints, is_typeddict

from drf_spectacular.utils import (
    PolymorphicProxySerializer,
    extend_schema_field,
    extend_schema_serializer,
)
from rest_framework import serializers

from games import rulesets

from .fields import StrictBooleanField, StrictChoiceField, StrictIntegerField

Field = serializers.Field[Any, Any, Any, Any]

_SCALARS: dict[type, type[Field]] = {
    bool: serializers.BooleanField,
    int: serializers.IntegerField,
    str: serializers.CharField,
}

_generated: dict[str, type[serializers.Serializer[Any]]] = {}


def _base(tp: Any) -> Any:
    """A NewType's base type (``Card`` -> int), repeatedly."""
    while hasattr(tp, "__supertype__"):
        tp = tp.__supertype__
    return tp


def _alternatives(tp: Any) -> list[Any]:
    if get_origin(tp) in (typing.Union, types.UnionType):
        return [arg for part in get_args(tp) for arg in _alternatives(part)]
    return [_base(tp)]


def _field(alternatives: list[Any], *, name: str, required: bool, prefix: str = "") -> Field:
    nullable = type(None) in alternatives
    rest = [tp for tp in alternatives if tp is not type(None)]
    kwargs: dict[str, Any] = {"required": required, "allow_null": nullable}
    if not rest:  # always None (the watcher view's ``seat``)
        return serializers.IntegerField(**kwargs)
    if all(get_origin(tp) is Literal for tp in rest):
        choices = [value for tp in rest for value in get_args(tp)]
        return serializers.ChoiceField(choices=choices, **kwargs)
    if len(rest) != 1:
        raise TypeError(f"{name}: no schema for the union {rest!r}")
    tp = rest[0]
    if tp in _SCALARS:
        return _SCALARS[tp](**kwargs)
    if get_origin(tp) is list:
        (item,) = get_args(tp)
        child = _field(_alternatives(item), name=f"{name}[]", required=True, prefix=prefix)
        return serializers.ListField(child=child, **kwargs)
    if is_typeddict(tp):
        return serializer_for(prefix + tp.__name__, tp, prefix=prefix)(**kwargs)
    raise TypeError(f"{name}: no schema for {tp!r}")


def serializer_for(
    name: str, *shapes: Any, doc: str | None = None, prefix: str = ""
) -> type[serializers.Serializer[Any]]:
    """A serializer (for the schema only) of the dicts any of ``shapes`` describes.

    The shapes must share their keys; each key's type is the union of theirs.
    ``prefix`` names the nested ones apart from another game's of the same name.
    """
    if name in _generated:
        return _generated[name]
    keys = [set(get_type_hints(shape)) for shape in shapes]
    if any(k != keys[0] for k in keys):
        raise TypeError(f"{name}: the shapes do not share their keys")
    attrs: dict[str, Any] = {"__doc__": doc or shapes[0].__doc__, "__module__": __name__}
    for key in get_type_hints(shapes[0]):
        alternatives = [tp for shape in shapes for tp in _alternatives(get_type_hints(shape)[key])]
        required = all(key in shape.__required_keys__ for shape in shapes)
        attrs[key] = _field(
            list(dict.fromkeys(alternatives)),
            name=f"{name}.{key}",
            required=required,
            prefix=prefix,
        )
    generated = type(name, (serializers.Serializer,), attrs)
    _generated[name] = generated
    return generated


def _prefix(game: str) -> str:
    """Flip's components keep the names they had before there were several games."""
    return "" if game == rulesets.DEFAULT_GAME else game.capitalize()


def game_view_serializers() -> list[type[serializers.Serializer[Any]]]:
    """Each game's view (a seat's or a watcher's), one serializer per game."""
    out = []
    for rules in rulesets.rulesets():
        prefix = _prefix(rules.id)
        out.append(
            serializer_for(
                f"{prefix}GameView",
                *rules.view_types,
                prefix=prefix,
                doc=f"{rules.name} as it shows itself to a seat or a watcher (seat null): "
                f"generated from the game's own types.",
            )
        )
    return out


#: The game as a seat or a watcher sees it: one shape per game.
GameViewSerializer = PolymorphicProxySerializer(
    component_name="AnyGameView",
    serializers=game_view_serializers,
    resource_type_field_name=None,
    allow_null=True,
    help_text="Your seat's view, or the watcher view (seat null); null in the lobby.",
)


def options_serializer(rules: Any) -> type[serializers.Serializer[Any]]:
    """A game's options (``Ruleset.options``) as a serializer, for the schema and the
    create request's ``options`` object: each option with its default and bounds."""
    name = f"{rules.id.capitalize()}Options"
    if name in _generated:
        return _generated[name]
    attrs: dict[str, Any] = {
        "__doc__": f"The options of {rules.name}; each one left out takes its default.",
        "__module__": __name__,
    }
    for spec in rules.options:
        text = f"{spec.sentence} Default: {spec.default!r}."
        common: dict[str, Any] = {"required": False, "help_text": text}
        if spec.kind == "bool":
            attrs[spec.name] = StrictBooleanField(**common)
        elif spec.choices:
            attrs[spec.name] = StrictChoiceField(choices=list(spec.choices), **common)
        else:
            attrs[spec.name] = StrictIntegerField(
                min_value=spec.minimum, max_value=spec.maximum, **common
            )
    generated = type(name, (serializers.Serializer,), attrs)
    _generated[name] = generated
    return generated


def options_schema(rules: Any, *, answer: bool) -> dict[str, Any]:
    """A game's options as an OpenAPI object: each option with its default, bounds and
    sentence, no other key (so the games' shapes never overlap); in an answer
    (``answer``) every option is there."""
    properties: dict[str, Any] = {}
    for spec in rules.options:
        prop: dict[str, Any] = {"description": spec.sentence, "default": spec.default}
        if spec.kind == "bool":
            prop["type"] = "boolean"
        elif spec.kind == "int":
            prop["type"] = "integer"
            if spec.choices:
                prop["enum"] = list(spec.choices)
            if spec.minimum is not None:
                prop["minimum"] = spec.minimum
            if spec.maximum is not None:
                prop["maximum"] = spec.maximum
        else:
            prop["type"] = "string"
            prop["enum"] = list(spec.choices)
        properties[spec.name] = prop
    schema: dict[str, Any] = {
        "type": "object",
        "title": f"{rules.id.capitalize()}Options",
        "description": f"The options of {rules.name}"
        + ("." if answer else "; each one left out takes its default."),
        "properties": properties,
        "additionalProperties": False,
    }
    if answer:
        schema["required"] = list(properties)
    return schema


def options_answer_schema() -> dict[str, Any]:
    """A table's ``options`` in an answer: one shape per game."""
    return {"oneOf": [options_schema(rules, answer=True) for rules in rulesets.rulesets()]}


def options_input_field(rules: Any) -> serializers.Field[Any, Any, Any, Any]:
    """The ``options`` object of a new table of ``rules``' game: checked by the game's
    ruleset (``Ruleset.make_options``), described by ``options_schema``."""

    @extend_schema_field(options_schema(rules, answer=False))
    class OptionsField(serializers.DictField):
        def to_internal_value(self, data: Any) -> dict[str, Any]:
            if not isinstance(data, dict):
                self.fail("not_a_dict", input_type=type(data).__name__)
            return dict(data)

    return OptionsField(required=False)


#: Flip's options that its table requests may also give as top-level fields, as they did
#: before there were several games (each the same as ``options.<name>``).
TOP_LEVEL_OPTIONS = ("two_seat_reverse_skips", "scoring", "target")


def table_inputs(
    table: type[serializers.Serializer[Any]], modes: dict[str, type[serializers.Serializer[Any]]]
) -> dict[tuple[str, str], type[serializers.Serializer[Any]]]:
    """The body of a new table for each game and mode: the table's fields, the mode's,
    ``game`` and the game's ``options`` (``options_serializer``)."""
    out: dict[tuple[str, str], type[serializers.Serializer[Any]]] = {}
    for rules in rulesets.rulesets():
        default = rules.id == rulesets.DEFAULT_GAME
        options = options_serializer(rules)
        attrs: dict[str, Any] = {
            "__module__": __name__,
            "game": StrictChoiceField(
                choices=[rules.id],
                required=not default,
                default=rules.id if default else serializers.empty,
                help_text=f"{rules.id}: {rules.name}" + (" (the default)." if default else "."),
            ),
            "options": options_input_field(rules),
        }
        if default:
            fields = options().fields
            for name in TOP_LEVEL_OPTIONS:
                field = copy.deepcopy(fields[name])
                field.help_text = f"The same as options.{name}, which counts when both are given."
                attrs[name] = field
        for mode, fields_of_mode in modes.items():
            name = f"{_prefix(rules.id) or 'Flip'}{_camel(mode)}TableInput"
            doc = f"A {mode.replace('_', '-')} table of {rules.name}. {fields_of_mode.__doc__}"
            generated = type(name, (table, fields_of_mode), {**attrs, "__doc__": doc})
            out[rules.id, mode] = extend_schema_serializer(component_name=name)(generated)
    return out


def _camel(words: str) -> str:
    return "".join(part.capitalize() for part in words.split("_"))
