"""Post-processing of the OpenAPI schema, so that it states what the server enforces.

``parse_input`` refuses any field a request body does not declare (400
``unknown_field``); drf-spectacular does not say so, so a client generated
from the schema (or a fuzzer) would believe extra fields are fine. This hook
marks every object a request body uses, nested ones too, with
``additionalProperties: false``, and marks a body required when every shape
it may take requires a field (drf-spectacular says so of a plain serializer,
not of one of several shapes, such as a table of either mode). A string a
body carries never holds a NUL character (DRF refuses it, PostgreSQL could not
store it): each string property without a pattern of its own gets
``NO_NUL`` as its pattern.
"""

from __future__ import annotations

from typing import Any

#: A JSON Schema pattern (ECMA 262) matching any string without a NUL character.
NO_NUL = "^[^\\u0000]*$"


def _refs(schema: Any) -> list[str]:
    """The component names ``schema`` refers to, at any depth below it."""
    found: list[str] = []
    stack = [schema]
    while stack:
        item = stack.pop()
        if isinstance(item, dict):
            ref = item.get("$ref")
            if isinstance(ref, str) and ref.startswith("#/components/schemas/"):
                found.append(ref.rsplit("/", 1)[1])
            stack.extend(item.values())
        elif isinstance(item, list):
            stack.extend(item)
    return found


def strict_request_bodies(result: dict[str, Any], **kwargs: Any) -> dict[str, Any]:
    """drf-spectacular ``POSTPROCESSING_HOOKS`` entry: request objects take no other field."""
    components = result.get("components", {}).get("schemas", {})
    pending = [
        name
        for path in result.get("paths", {}).values()
        for operation in path.values()
        if isinstance(operation, dict)
        for name in _refs(operation.get("requestBody", {}))
    ]
    done: set[str] = set()
    while pending:
        name = pending.pop()
        if name in done or name not in components:
            continue
        done.add(name)
        component = components[name]
        if component.get("type") == "object":
            component["additionalProperties"] = False
            for prop in component.get("properties", {}).values():
                if prop.get("type") == "string" and "pattern" not in prop and "enum" not in prop:
                    prop["pattern"] = NO_NUL
        pending.extend(_refs(component))
    for path in result.get("paths", {}).values():
        for operation in path.values():
            body = operation.get("requestBody") if isinstance(operation, dict) else None
            if body and _always_has_fields(body, components):
                body["required"] = True
    return result


def _always_has_fields(body: dict[str, Any], components: dict[str, Any]) -> bool:
    """True when each shape of ``body``'s JSON schema requires at least one field."""
    schema = body.get("content", {}).get("application/json", {}).get("schema", {})
    top = components.get(schema.get("$ref", "").rsplit("/", 1)[-1], schema)
    shapes = top.get("oneOf", [top])
    resolved = [components.get(one.get("$ref", "").rsplit("/", 1)[-1], one) for one in shapes]
    return bool(resolved) and all(shape.get("required") for shape in resolved)
