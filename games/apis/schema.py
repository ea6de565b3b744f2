"""Post-processing of the OpenAPI schema, so that it states what the server enforces.

``parse_input`` refuses any field a request body does not declare (400
``unknown_field``); drf-spectacular does not say so, so a client generated
from the schema (or a fuzzer) would believe extra fields are fine. This hook
marks every object a request body uses, nested ones too, with
``additionalProperties: false``.
"""

from __future__ import annotations

from typing import Any


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
        pending.extend(_refs(component))
    return result
