"""The served OpenAPI schema tells the truth about issue 39's endpoints and fields.

The same promises ``tests/games/test_api_schema.py`` pins for the tables,
for the players, the leaderboards and a game's rating changes: each path
with its parameters' bounds and its error answers, and real answers (after
a whole game) valid against the schema the server serves.
"""

from __future__ import annotations

import copy
import re
from typing import Any

import jsonschema
import pytest
from django.core.cache import cache

from games import rulesets
from ratings import services as ratings
from tests.factories import make_user, start_table
from tests.games.conftest import client_for

from .conftest import play_out

pytestmark = pytest.mark.django_db

PATHS = {
    "/api/v1/players/{username}/": (401, 404),
    "/api/v1/players/{username}/history/": (400, 401, 404),
    "/api/v1/players/{username}/versus/{other}/": (400, 401, 404),
    "/api/v1/leaderboards/{game}/{mode}/": (400, 401),
    "/api/v1/tables/{table_id}/ratings/": (401, 404, 409),
}


@pytest.fixture
def schema(client: Any) -> dict[str, Any]:
    response = client.get("/api/v1/schema/", HTTP_ACCEPT="application/vnd.oai.openapi+json")
    assert response.status_code == 200
    served: dict[str, Any] = response.json()
    return served


def _component(schema: dict[str, Any], name: str) -> dict[str, Any]:
    found: dict[str, Any] = schema["components"]["schemas"][name]
    return found


def _parameters(schema: dict[str, Any], path: str) -> dict[str, dict[str, Any]]:
    return {p["name"]: p for p in schema["paths"][path]["get"].get("parameters", [])}


def _json_schema(openapi: Any) -> Any:
    """OpenAPI 3.0's schema objects as JSON Schema: ``nullable`` becomes a null alternative."""
    if isinstance(openapi, list):
        return [_json_schema(item) for item in openapi]
    if not isinstance(openapi, dict):
        return openapi
    out = {key: _json_schema(value) for key, value in openapi.items() if key != "nullable"}
    if openapi.get("nullable"):
        return {"anyOf": [out, {"type": "null"}]}
    return out


def _validator(schema: dict[str, Any], path: str, status: int) -> jsonschema.Draft7Validator:
    answer = schema["paths"][path]["get"]["responses"][str(status)]
    body = answer["content"]["application/json"]["schema"]
    components = _json_schema(copy.deepcopy(schema["components"]))
    return jsonschema.Draft7Validator({**_json_schema(body), "components": components})


def test_every_new_path_is_served_with_its_error_answers(schema: dict[str, Any]) -> None:
    for path, codes in PATHS.items():
        operation = schema["paths"][path]["get"]
        assert set(schema["paths"][path]) == {"get"}, path
        assert operation["summary"] and operation["tags"], path
        for code in codes:
            error = operation["responses"][str(code)]["content"]["application/json"]["schema"]
            assert error == {"$ref": "#/components/schemas/Error"}, (path, code)
        assert "200" in operation["responses"]


def test_the_parameters_are_bounded_as_the_server_bounds_them(schema: dict[str, Any]) -> None:
    board = _parameters(schema, "/api/v1/leaderboards/{game}/{mode}/")
    assert board["game"]["schema"]["enum"] == rulesets.game_ids()
    assert board["mode"]["schema"]["enum"] == ["turn_by_turn", "real_time"]
    assert (board["page"]["schema"]["minimum"], board["page"]["schema"]["maximum"]) == (
        1,
        2**31 - 1,
    )
    assert (board["size"]["schema"]["minimum"], board["size"]["schema"]["maximum"]) == (1, 100)
    assert board["size"]["schema"]["default"] == 50
    assert board["rules"]["schema"]["enum"] == ["standard", "house"]
    assert board["rules"]["schema"]["default"] == "standard"
    player = _parameters(schema, "/api/v1/players/{username}/")
    assert player["username"]["schema"]["maxLength"] == 150
    history = _parameters(schema, "/api/v1/players/{username}/history/")
    assert {"game", "mode", "rules", "username"} == set(history)
    assert not any(history[name].get("required") for name in ("game", "mode", "rules"))
    ratings_of_table = _parameters(schema, "/api/v1/tables/{table_id}/ratings/")
    assert ratings_of_table["table_id"]["schema"]["maximum"] == 2**63 - 1


def test_the_tables_new_fields_are_in_the_schema(schema: dict[str, Any]) -> None:
    created = schema["paths"]["/api/v1/tables/"]["post"]["requestBody"]
    ref = created["content"]["application/json"]["schema"]["$ref"]
    shapes = _component(schema, ref.rsplit("/", 1)[1])
    for one in shapes["oneOf"]:
        body = _component(schema, one["$ref"].rsplit("/", 1)[1])
        assert body["properties"]["rated"]["type"] == "boolean"
        assert body["properties"]["rated"]["default"] is True
        bound = body["properties"]["min_reliability"]
        assert (bound["type"], bound["minimum"], bound["maximum"], bound["default"]) == (
            "integer",
            0,
            100,
            0,
        )
        assert "rated" not in body.get("required", [])
    table = _component(schema, "TableOutput")
    assert {"rated", "min_reliability"} <= set(table["required"])
    seat = _component(schema, table["properties"]["seats"]["items"]["$ref"].rsplit("/", 1)[1])
    reliability = seat["properties"]["reliability"]
    assert reliability["nullable"] is True and reliability["maximum"] == 100
    # A view's seats stay as they were: the reliability is the table answer's.
    view_seat = _component(schema, "SeatOutput")
    assert "reliability" not in view_seat["properties"]


def test_the_shared_choices_have_one_name_each(schema: dict[str, Any]) -> None:
    """No enum named by a hash (drf-spectacular's way out of a name used twice)."""
    names = list(schema["components"]["schemas"])
    assert not [name for name in names if re.fullmatch(r"[A-Za-z]+[0-9a-f]{3}Enum", name)]
    assert _component(schema, "Mode")["enum"] == ["turn_by_turn", "real_time"]
    assert _component(schema, "Game")["enum"] == rulesets.game_ids()


def test_real_answers_after_a_whole_game_match_the_served_schema(
    schema: dict[str, Any], settings: Any
) -> None:
    settings.GAMENOOK_LEADERBOARD_MIN_GAMES = 1
    settings.GAMENOOK_RATING_PROVISIONAL_SIGMA = 100.0
    cache.clear()
    alice, bob = make_user("alice"), make_user("bob")
    table = play_out(start_table(alice, bob, bots=1, level="hard"))
    ratings.table_rate(table_id=table.pk)
    client = client_for(alice)
    answers: list[tuple[str, str, int]] = [
        ("/api/v1/players/{username}/", "/api/v1/players/alice/", 200),
        ("/api/v1/players/{username}/history/", "/api/v1/players/alice/history/", 200),
        ("/api/v1/players/{username}/versus/{other}/", "/api/v1/players/alice/versus/bob/", 200),
        ("/api/v1/leaderboards/{game}/{mode}/", "/api/v1/leaderboards/flip/turn_by_turn/", 200),
        ("/api/v1/tables/{table_id}/ratings/", f"/api/v1/tables/{table.pk}/ratings/", 200),
        ("/api/v1/tables/{table_id}/", f"/api/v1/tables/{table.pk}/", 200),
        ("/api/v1/players/{username}/", "/api/v1/players/nobody/", 404),
        ("/api/v1/players/{username}/history/", "/api/v1/players/alice/history/?game=go", 400),
        ("/api/v1/players/{username}/versus/{other}/", "/api/v1/players/bob/versus/bob/", 400),
        ("/api/v1/leaderboards/{game}/{mode}/", "/api/v1/leaderboards/flip/x/?size=0", 400),
        ("/api/v1/tables/{table_id}/ratings/", "/api/v1/tables/0/ratings/", 404),
    ]
    for template, url, status in answers:
        response = client.get(url)
        assert response.status_code == status, (url, response.content[:300])
        body = response.json()
        errors = sorted(_validator(schema, template, status).iter_errors(body), key=str)
        assert not errors, (url, [f"{list(e.path)}: {e.message}" for e in errors[:5]])
    # An empty page is valid too (no results, no next link).
    empty = client.get("/api/v1/leaderboards/wildcards/real_time/?rules=house").json()
    assert not list(
        _validator(schema, "/api/v1/leaderboards/{game}/{mode}/", 200).iter_errors(empty)
    )


def test_a_body_that_breaks_the_schema_is_caught_by_the_check(schema: dict[str, Any]) -> None:
    """The validation above can fail: a wrong type, a missing field, a null where none may be."""
    validator = _validator(schema, "/api/v1/tables/{table_id}/ratings/", 200)
    good = {"table": 1, "rated": True, "pending": False, "seats": []}
    assert not list(validator.iter_errors(good))
    for bad in (
        {**good, "rated": "yes"},
        {key: value for key, value in good.items() if key != "pending"},
        {**good, "table": None},
        {**good, "seats": [{"number": 0}]},
    ):
        assert list(validator.iter_errors(bad)), bad
