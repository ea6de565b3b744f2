"""One error shape everywhere, also for Django's own 404 and for broken requests."""

from __future__ import annotations

from collections.abc import Callable

import pytest
from django.contrib.auth.models import User
from rest_framework.test import APIClient

from games.models import Move, Table
from tests.games.conftest import assert_error, started_table

pytestmark = pytest.mark.django_db

Api = Callable[[User | None], APIClient]


@pytest.mark.parametrize(
    "path",
    ["/api/v1/nowhere/", "/api/v2/tables/", "/api/", "/api/v1/tables/abc/", "/api/v1/tables/1/x/"],
)
def test_unknown_urls_under_api_are_json_404s(alice: User, api: Api, path: str) -> None:
    assert_error(api(alice).get(path), 404, "not_found")
    # The clients check CSRF as a browser's would: a POST gets the 404 too.
    assert_error(api(None).post(path, {}, format="json"), 404, "not_found")
    assert_error(api(None).delete(path), 404, "not_found")


def test_a_missing_trailing_slash_is_a_404_that_says_so(alice: User, api: Api) -> None:
    body = assert_error(
        api(alice).post("/api/v1/tables", {"seat_count": 2}, format="json"), 404, "not_found"
    )
    assert "/api/v1/tables/" in body["detail"]
    assert not Table.objects.exists()


@pytest.mark.parametrize("raw", ["{", '{"seat_count": 2,}', "nul", '{"seat_count": 2} trailing'])
def test_malformed_json_is_400_and_changes_nothing(alice: User, api: Api, raw: str) -> None:
    response = api(alice).post("/api/v1/tables/", raw, content_type="application/json")

    assert_error(response, 400, "malformed_json")
    assert not Table.objects.exists()


def test_malformed_json_on_an_action_changes_nothing(alice: User, bob: User, api: Api) -> None:
    table = started_table(alice, bob)
    for client in (api(alice), api(bob)):
        response = client.post(
            f"/api/v1/tables/{table.pk}/actions/", '{"type": "dr', content_type="application/json"
        )
        assert_error(response, 400, "malformed_json")
    assert Move.objects.filter(table=table).count() == 1


def test_a_form_body_is_415(alice: User, api: Api) -> None:
    response = api(alice).post("/api/v1/tables/", {"seat_count": 2})  # multipart

    assert_error(response, 415, "unsupported_media_type")
    assert not Table.objects.exists()


@pytest.mark.parametrize("body", ["[]", '"text"', "3", "null"])
def test_a_json_body_that_is_not_an_object_is_400(alice: User, api: Api, body: str) -> None:
    response = api(alice).post("/api/v1/tables/", body, content_type="application/json")

    assert response.status_code == 400
    assert response.json()["code"] in {"invalid"}
    assert not Table.objects.exists()


def test_unknown_table_ids_are_404_everywhere(alice: User, api: Api) -> None:
    client = api(alice)
    for what in ("", "view/", "log/", "record/"):
        assert_error(client.get(f"/api/v1/tables/424242/{what}"), 404, "not_found")
    for what in ("join/", "bots/", "leave/", "start/", "actions/", "concede/"):
        body = {"type": "draw"} if what == "actions/" else {}
        assert_error(
            client.post(f"/api/v1/tables/424242/{what}", body, format="json"), 404, "not_found"
        )


def test_anonymous_requests_are_401_everywhere() -> None:
    client = APIClient()
    for path in ("/api/v1/me/", "/api/v1/tables/", "/api/v1/tables/1/", "/api/v1/tables/1/view/"):
        assert_error(client.get(path), 401, "not_authenticated")
    for what in ("join/", "bots/", "leave/", "start/", "actions/", "concede/"):
        assert_error(
            client.post(f"/api/v1/tables/1/{what}", {}, format="json"), 401, "not_authenticated"
        )


def test_the_schema_documents_every_endpoint_with_its_errors(client: APIClient) -> None:
    response = client.get("/api/v1/schema/", HTTP_ACCEPT="application/vnd.oai.openapi+json")
    assert response.status_code == 200
    schema = response.json()
    paths = schema["paths"]
    expected = {
        "/api/v1/auth/register/": ["post"],
        "/api/v1/auth/token/": ["post"],
        "/api/v1/me/": ["get", "patch"],
        "/api/v1/tables/": ["get", "post"],
        "/api/v1/tables/{table_id}/": ["get"],
        "/api/v1/tables/{table_id}/join/": ["post"],
        "/api/v1/tables/{table_id}/bots/": ["post"],
        "/api/v1/tables/{table_id}/leave/": ["post"],
        "/api/v1/tables/{table_id}/start/": ["post"],
        "/api/v1/tables/{table_id}/view/": ["get"],
        "/api/v1/tables/{table_id}/actions/": ["post"],
        "/api/v1/tables/{table_id}/concede/": ["post"],
        "/api/v1/tables/{table_id}/log/": ["get"],
        "/api/v1/tables/{table_id}/record/": ["get"],
    }
    for path, methods in expected.items():
        for method in methods:
            operation = paths[path][method]
            errors = [code for code in operation["responses"] if code.startswith("4")]
            assert errors, (path, method)
            for code in errors:
                ref = operation["responses"][code]["content"]["application/json"]["schema"]["$ref"]
                assert ref.endswith("/Error"), (path, method, code)
    action = paths["/api/v1/tables/{table_id}/actions/"]["post"]
    assert {"201", "400", "403", "404", "409", "422", "429"} <= set(action["responses"])
    assert set(schema["components"]["schemas"]["Error"]["properties"]) == {
        "code",
        "detail",
        "fields",
    }


def test_the_interactive_docs_answer(client: APIClient) -> None:
    assert client.get("/api/v1/docs/").status_code == 200
