"""The API's one body parser: JSON, bounded in size and depth, text that can be stored.

DRF's own ``JSONParser`` reads however many bytes the client sends, lets
Python's recursive decoder run out of stack on a deeply nested body (a
``RecursionError``, so a 500), and hands on strings holding lone surrogates,
which no UTF-8 encoder (the renderer echoing the value, the database) can
write. This parser refuses all three before a view sees the body, each with
its own code in the API's error shape.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import IO, Any

from rest_framework import exceptions, status
from rest_framework.parsers import BaseParser

from games.conf import max_body_bytes

#: Deeper than any body the API takes (``PATCH /me/`` nests two levels).
MAX_DEPTH = 32


class RequestTooLarge(exceptions.APIException):
    status_code = status.HTTP_413_REQUEST_ENTITY_TOO_LARGE
    default_code = "request_too_large"
    default_detail = "The request body is larger than the server accepts."


class JsonTooDeep(exceptions.ParseError):
    default_code = "json_too_deep"
    default_detail = f"The JSON body nests deeper than {MAX_DEPTH} levels."


class InvalidText(exceptions.ParseError):
    default_code = "invalid_text"
    default_detail = "The JSON body holds a string that is not valid Unicode text."


class MalformedJson(exceptions.ParseError):
    default_code = "parse_error"  # renamed malformed_json by the exception handler


def _refuse_constant(name: str) -> Any:
    # Python's decoder accepts NaN and Infinity; JSON has no such numbers.
    raise ValueError(f"{name} is not JSON")


def _check_tree(value: Any) -> None:
    """Refuse nesting deeper than ``MAX_DEPTH`` and lone surrogates, without recursion."""
    stack: list[tuple[Any, int]] = [(value, 1)]
    while stack:
        item, depth = stack.pop()
        if isinstance(item, str):
            _check_text(item)
            continue
        if not isinstance(item, dict | list):
            continue
        if depth > MAX_DEPTH:
            raise JsonTooDeep()
        if isinstance(item, dict):
            for key, child in item.items():
                _check_text(key)
                stack.append((child, depth + 1))
        else:
            stack.extend((child, depth + 1) for child in item)


def _check_text(text: str) -> None:
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        raise InvalidText() from None


def parse_json_bytes(raw: bytes) -> Any:
    """Decode a request body under the API's rules; raise the API's parse errors."""
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError:
        raise MalformedJson("The request body is not UTF-8 text.") from None
    try:
        data = json.loads(text, parse_constant=_refuse_constant)
    except RecursionError:
        raise JsonTooDeep() from None
    except ValueError as exc:  # JSONDecodeError, NaN, an integer of too many digits
        raise MalformedJson(f"The request body is not valid JSON ({exc}).") from None
    _check_tree(data)
    return data


class StrictJSONParser(BaseParser):
    """``application/json`` under the rules of the module docstring."""

    media_type = "application/json"

    def parse(
        self,
        stream: IO[bytes] | None,
        media_type: str | None = None,  # noqa: ARG002  (DRF's parser signature)
        parser_context: Mapping[str, Any] | None = None,
    ) -> Any:
        limit = max_body_bytes()
        request = (parser_context or {}).get("request")
        if request is not None:
            try:
                declared = int(request.META.get("CONTENT_LENGTH") or 0)
            except ValueError:
                declared = 0
            if declared > limit:
                raise RequestTooLarge()
        if stream is None:
            return None
        raw = stream.read(limit + 1)
        if len(raw) > limit:
            raise RequestTooLarge()
        return parse_json_bytes(raw)
