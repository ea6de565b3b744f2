"""The served OpenAPI schema tells the truth about request bodies and errors (issue 10, §2).

schemathesis checks the whole schema against the running server
(``test_api_fuzz.py``); these pin the particular promises one by one, fast.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

import jsonschema
import pytest
from django.contrib.auth.models import User
from rest_framework.test import APIClient

pytestmark = pytest.mark.django_db

Api = Callable[[User | None], APIClient]


@pytest.fixture
def schema(client: Any) -> dict[str, Any]:
    response = client.get("/api/v1/schema/", HTTP_ACCEPT="application/vnd.oai.openapi+json")
    assert response.status_code == 200
    served: dict[str, Any] = response.json()
    return served


def _component(schema: dict[str, Any], ref: str) -> dict[str, Any]:
    component: dict[str, Any] = schema["components"]["schemas"][ref.rsplit("/", 1)[1]]
    return component


def _request_bodies(schema: dict[str, Any]) -> dict[str, dict[str, Any]]:
    bodies = {}
    for path, operations in schema["paths"].items():
        for method, operation in operations.items():
            body = operation.get("requestBody")
            if body:
                ref = body["content"]["application/json"]["schema"]["$ref"]
                found = _component(schema, ref)
                # A body of several shapes (a table of either mode): each one counts.
                for i, one in enumerate(found.get("oneOf", [found])):
                    name = f"{method.upper()} {path}" + (f" #{i}" if "oneOf" in found else "")
                    bodies[name] = _component(schema, one["$ref"]) if "$ref" in one else one
    return bodies


def test_every_request_body_refuses_unknown_fields_nested_ones_too(
    schema: dict[str, Any],
) -> None:
    bodies = _request_bodies(schema)

    assert len(bodies) >= 10
    for name, body in bodies.items():
        assert body["additionalProperties"] is False, name
    me = bodies["PATCH /api/v1/me/"]
    nested = _component(schema, me["properties"]["notifications"]["$ref"])
    assert nested["additionalProperties"] is False


def test_the_schema_states_lengths_types_and_password_rules(schema: dict[str, Any]) -> None:
    bodies = _request_bodies(schema)
    register = bodies["POST /api/v1/auth/register/"]["properties"]

    assert register["email"]["maxLength"] == 254 and register["email"]["format"] == "email"
    assert register["username"]["maxLength"] == 150 and "pattern" in register["username"]
    assert (register["password"]["minLength"], register["password"]["maxLength"]) == (8, 128)
    assert "common password" in register["password"]["description"]
    create = bodies["POST /api/v1/tables/ #0"]["properties"]
    assert create["seat_count"] == {"type": "integer", "minimum": 2, "maximum": 10}
    assert create["allow_watchers"]["type"] == "boolean"
    turn_hours = _component(schema, create["turn_hours"]["allOf"][0]["$ref"])
    assert (turn_hours["type"], turn_hours["enum"]) == ("integer", [12, 24, 72])
    # A real-time table's body names its mode and has a move timer, not hours.
    real_time = bodies["POST /api/v1/tables/ #1"]
    assert "mode" in real_time["required"] and "turn_hours" not in real_time["properties"]
    timer = _component(schema, real_time["properties"]["move_timer"]["allOf"][0]["$ref"])
    assert timer["enum"] == ["relaxed", "normal", "fast"]
    action = bodies["POST /api/v1/tables/{table_id}/actions/"]["properties"]
    assert action["expected_seq"]["maximum"] == 2**31 - 1
    assert action["card"]["minLength"] == 1


def test_ids_in_urls_and_pages_are_bounded_in_the_schema(schema: dict[str, Any]) -> None:
    view = schema["paths"]["/api/v1/tables/{table_id}/view/"]["get"]
    table_id = next(p for p in view["parameters"] if p["name"] == "table_id")
    assert table_id["schema"]["type"] == "integer"
    assert table_id["schema"]["maximum"] == 2**63 - 1
    listing = schema["paths"]["/api/v1/tables/"]["get"]
    offset = next(p for p in listing["parameters"] if p["name"] == "offset")
    assert offset["schema"]["maximum"] == 2**31 - 1


@pytest.mark.parametrize(
    ("body", "code"),
    [
        ({"notifications": {"your_turn": "maybe"}}, "invalid"),
        ({"notifications": {"shouting": True}}, "unknown_field"),
        ({"notifications": 5}, "invalid"),
        ({"email": "a" * 300}, "invalid"),
    ],
)
def test_nested_field_errors_match_the_served_error_schema(
    schema: dict[str, Any], alice: User, api: Api, body: dict[str, Any], code: str
) -> None:
    patch = schema["paths"]["/api/v1/me/"]["patch"]
    error_ref = patch["responses"]["400"]["content"]["application/json"]["schema"]["$ref"]
    error_schema = {**_component(schema, error_ref), "components": schema["components"]}

    response = api(alice).patch("/api/v1/me/", body, format="json")

    assert response.status_code == 400
    assert response.json()["code"] == code
    jsonschema.validate(response.json(), error_schema)


def test_every_error_code_the_service_raises_is_in_the_docs_table() -> None:
    """Codes set in games/ and accounts/ (the rules' own are listed in flip/errors.py)."""
    root = Path(__file__).resolve().parents[2]
    docs = (root / "docs" / "api.md").read_text()
    table = docs[docs.index("| status | codes |") :].split("\n\n")[0]
    raised = re.compile(r'\b(?:default_)?code\s*=\s*"([a-z_]+)"')
    codes = set()
    for package in ("games", "accounts"):
        for source in (root / package).rglob("*.py"):
            codes.update(raised.findall(source.read_text()))
    # The renamed DRF codes of the exception handler.
    renamed = (root / "games" / "apis" / "errors.py").read_text().split("_CODES = {")[1]
    codes.update(re.findall(r': "([a-z_]+)",', renamed.split("}")[0]))
    codes -= {"parse_error"}  # DRF's name, renamed malformed_json
    assert {"json_too_deep", "request_too_large", "csrf_failed", "invalid_link"} <= codes

    missing = sorted(code for code in codes if f"`{code}`" not in table)

    assert not missing, missing


def test_request_strings_say_they_hold_no_nul_as_the_server_refuses_it(
    schema: dict[str, Any], alice: User, api: Api
) -> None:
    card = _request_bodies(schema)["POST /api/v1/tables/{table_id}/actions/"]["properties"]["card"]
    # The schema's pattern is ECMA 262; Python's re reads this one the same way.
    assert re.search(card["pattern"], "a-card") and not re.search(card["pattern"], "a\x00card")

    response = api(alice).post(
        "/api/v1/tables/", {"seat_count": 2, "scoring": "\x00"}, format="json"
    )
    assert response.status_code == 400
    response = api(alice).patch("/api/v1/me/", {"email": "a\x00@example.com"}, format="json")
    assert response.status_code == 400
