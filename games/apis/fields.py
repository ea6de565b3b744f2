"""Serializer fields that take a value only in the type the schema states.

DRF's fields coerce: ``"4"`` and ``4.0`` become the integer 4, ``0`` and
``"yes"`` become booleans, ``12`` becomes the string ``"12"``. A client that
sends the wrong type has a bug, and guessing what it meant hides it, so the
request bodies use these fields instead. Query parameters are text by
nature; theirs (``QueryIntegerField``, ``QueryBooleanField``) take the text
that OpenAPI's form style writes for the stated type and nothing looser:
``?after=0.0`` is not an integer (schemathesis found it accepted).
"""

from __future__ import annotations

import re
from typing import Any

from rest_framework import serializers
from rest_framework.fields import empty

#: The largest value any integer column of the API holds (PostgreSQL ``integer``).
INT_MAX = 2**31 - 1


class StrictIntegerField(serializers.IntegerField):
    """A JSON integer (not a bool, a float or a string), within ``min_value..max_value``."""

    default_error_messages = {"invalid": "Must be a JSON integer."}

    def __init__(self, **kwargs: Any) -> None:
        kwargs.setdefault("max_value", INT_MAX)
        super().__init__(**kwargs)

    def to_internal_value(self, data: Any) -> int:
        if isinstance(data, bool) or not isinstance(data, int):
            self.fail("invalid")
        return int(data)


class StrictBooleanField(serializers.BooleanField):
    """JSON ``true`` or ``false``, nothing else."""

    default_error_messages = {"invalid": "Must be true or false."}

    def to_internal_value(self, data: Any) -> bool:
        if not isinstance(data, bool):
            self.fail("invalid")
        return data


class StrictCharField(serializers.CharField):
    """A JSON string, taken as sent: a number is not turned into one, spaces are not trimmed.

    DRF trims by default, so ``"\u00a0"`` passed ``minLength: 1`` in the schema and
    then failed as blank (schemathesis found it); a password lost its outer spaces.
    """

    default_error_messages = {"invalid": "Must be a string."}

    def __init__(self, **kwargs: Any) -> None:
        kwargs.setdefault("trim_whitespace", False)
        super().__init__(**kwargs)

    def to_internal_value(self, data: Any) -> str:
        if not isinstance(data, str):
            self.fail("invalid")
        return str(super().to_internal_value(data))


class StrictEmailField(serializers.EmailField):
    """A JSON string holding an address, at most as long as the column (254)."""

    default_error_messages = {"invalid": "Enter a valid e-mail address."}

    def __init__(self, **kwargs: Any) -> None:
        kwargs.setdefault("max_length", 254)
        kwargs.setdefault("trim_whitespace", False)
        super().__init__(**kwargs)

    def to_internal_value(self, data: Any) -> str:
        if not isinstance(data, str):
            self.fail("invalid")
        return str(super().to_internal_value(data))


class StrictChoiceField(serializers.ChoiceField):
    """One of the choices, in the choices' own JSON type: 12, not ``"12"``; ``"bot"``, not 1."""

    def to_internal_value(self, data: Any) -> Any:
        allowed = {type(key) for key in self.choices}
        if isinstance(data, bool) or type(data) not in allowed:
            self.fail("invalid_choice", input=_short(data))
        if data not in self.choices:
            self.fail("invalid_choice", input=_short(data))
        return data


def _short(value: Any, limit: int = 40) -> str:
    """A value for an error message, cut short: a refusal never echoes a whole body."""
    text = str(value)
    return text if len(text) <= limit else text[: limit - 1] + "…"


#: An integer as a query parameter writes it: ASCII digits, perhaps a minus sign first.
_QUERY_INTEGER = re.compile(r"-?[0-9]+")


class QueryIntegerField(serializers.IntegerField):
    """A query parameter's integer in digits: not ``0.0``, ``1e3``, ``+5``, `` 5`` or ``٣``."""

    default_error_messages = {"invalid": "Must be an integer, written in digits."}

    def to_internal_value(self, data: Any) -> int:
        if not isinstance(data, str) or not _QUERY_INTEGER.fullmatch(data):
            self.fail("invalid")
        # DRF's own check refuses a text past 1,000 characters before int() reads it.
        return int(super().to_internal_value(data))


class QueryBooleanField(serializers.BooleanField):
    """A query parameter's boolean: ``true`` or ``false``, as the schema writes it."""

    default_error_messages = {"invalid": "Must be true or false."}
    # DRF reads a boolean missing from a form (a query) as False, an unticked box;
    # here a missing parameter takes the field's default, as any other does.
    default_empty_html = empty

    def to_internal_value(self, data: Any) -> bool:
        if data == "true":
            return True
        if data == "false":
            return False
        self.fail("invalid")
