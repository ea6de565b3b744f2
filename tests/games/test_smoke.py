"""The service starts: URL root, admin and OpenAPI schema answer."""

import pytest
from django.test import Client


@pytest.mark.django_db
def test_admin_login_page_answers(client: Client) -> None:
    response = client.get("/admin/login/")

    assert response.status_code == 200


@pytest.mark.django_db
def test_openapi_schema_is_public_and_answers(client: Client) -> None:
    response = client.get("/api/v1/schema/")

    assert response.status_code == 200
    assert b"openapi" in response.content
