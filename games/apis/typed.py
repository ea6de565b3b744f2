"""DRF serializers generated from flip's TypedDicts, for the OpenAPI schema of what flip says.

The API serves flip's views as flip builds them; the schema that describes
them is generated here from the very types flip is checked against
(``flip.types``), so it cannot drift from the served shape. A key every
given TypedDict requires is required; a key one of them leaves out
(``NotRequired``) is optional; a type that admits None is nullable;
``Literal`` types become enums.

    >>> GameView = serializer_for("GameView", flip.SeatView, flip.WatcherView)
    >>> sorted(GameView().fields)[:3]
    ['color', 'dealer', 'direction']
"""

from __future__ import annotations

import types
import typing
from typing import Any, Literal, get_args, get_origin, get_type_hints, is_typeddict

from rest_framework import serializers

import flip

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


def _field(alternatives: list[Any], *, name: str, required: bool) -> Field:
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
        child = _field(_alternatives(item), name=f"{name}[]", required=True)
        return serializers.ListField(child=child, **kwargs)
    if is_typeddict(tp):
        return serializer_for(tp.__name__, tp)(**kwargs)
    raise TypeError(f"{name}: no schema for {tp!r}")


def serializer_for(
    name: str, *shapes: Any, doc: str | None = None
) -> type[serializers.Serializer[Any]]:
    """A serializer (for the schema only) of the dicts any of ``shapes`` describes.

    The shapes must share their keys; each key's type is the union of theirs.
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
            list(dict.fromkeys(alternatives)), name=f"{name}.{key}", required=required
        )
    generated = type(name, (serializers.Serializer,), attrs)
    _generated[name] = generated
    return generated


#: The game as a seat (``flip.SeatView``) or a watcher (``flip.WatcherView``) sees it.
GameViewSerializer = serializer_for(
    "GameView",
    flip.SeatView,
    flip.WatcherView,
    doc="The game as flip shows it to a seat (flip.view) or a watcher (flip.watcher_view, "
    "seat null): generated from flip.SeatView and flip.WatcherView.",
)
