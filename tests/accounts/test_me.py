"""GET/PATCH /api/v1/me reads and changes the e-mail preferences."""

from __future__ import annotations

import pytest
from rest_framework.test import APIClient

from accounts import services as accounts
from notifications import services
from tests.factories import make_user

ME = "/api/v1/me/"

pytestmark = pytest.mark.django_db


def client_for_new_user() -> tuple[APIClient, object]:
    user = make_user()
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Token {accounts.token_create(user=user, name='t')[1]}")
    return client, user


def test_me_shows_the_preferences_and_patch_changes_some() -> None:
    client, user = client_for_new_user()
    assert client.get(ME).json()["notifications"] == services.PREFERENCES_DEFAULT

    response = client.patch(ME, {"notifications": {"your_turn": False}}, format="json")

    assert response.status_code == 200
    assert response.json()["notifications"] == {
        **services.PREFERENCES_DEFAULT,
        "your_turn": False,
    }
    assert client.get(ME).json()["notifications"]["your_turn"] is False


def test_me_refuses_an_unknown_preference_and_changes_nothing() -> None:
    client, _ = client_for_new_user()
    response = client.patch(ME, {"notifications": {"shouting": True}}, format="json")

    assert response.status_code == 400
    assert client.get(ME).json()["notifications"] == services.PREFERENCES_DEFAULT
