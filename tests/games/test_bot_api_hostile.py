"""Issue 40's endpoints as a hostile client calls them: deep JSON, huge numbers, long
strings, NUL bytes, wrong shapes. Each answers 4xx in the error shape, briefly; never 5xx."""

from __future__ import annotations

import json

import pytest
from rest_framework.test import APIClient

from accounts import services as accounts
from games import services as games
from tests.factories import make_user

pytestmark = pytest.mark.django_db

BODIES = [
    "[" * 5000 + "]" * 5000,
    json.dumps({"username": "a" * 100_000}),
    json.dumps({"username": 10**400}),
    json.dumps({"url": "https://" + "a" * 70_000 + ".com/"}),
    json.dumps({"description": "x" * 1_000_000}),
    json.dumps({"disabled": "yes"}),
    json.dumps([1, 2]),
    "nul\x00",
    json.dumps({"username": "x\u0000y"}),
]


def test_the_bot_endpoints_refuse_hostile_bodies_briefly_and_in_the_error_shape() -> None:
    owner = make_user("owner")
    _, bot_key = accounts.bot_create(owner=owner, username="robo")
    owner_key = accounts.token_create(user=owner, name="api")[1]
    table = games.table_create(host=owner, seat_count=3)
    huge = "99999999999999999999"
    calls = [
        (owner_key, "post", "/api/v1/me/bots/"),
        (owner_key, "patch", "/api/v1/me/bots/robo/"),
        (owner_key, "post", "/api/v1/me/bots/robo/tokens/"),
        (owner_key, "delete", f"/api/v1/me/bots/robo/tokens/{huge}/"),
        (bot_key, "put", "/api/v1/me/webhook/"),
        (owner_key, "post", f"/api/v1/tables/{table.pk}/invitations/"),
        (bot_key, "post", f"/api/v1/invitations/{huge}/decline/"),
        (owner_key, "get", f"/api/v1/invitations/?limit={huge}&offset=-5"),
        (owner_key, "get", "/api/v1/leaderboards/flip/turn_by_turn/?players=" + "b" * 5000),
    ]
    for key, method, url in calls:
        client = APIClient()
        client.credentials(HTTP_AUTHORIZATION=f"Token {key}")
        for body in [None] if method == "get" else BODIES:
            if body is None:
                answer = client.get(url)
            else:
                answer = getattr(client, method)(url, body, content_type="application/json")
            assert 400 <= answer.status_code < 500, (method, url, answer.content[:300])
            assert len(answer.content) < 5000, (method, url, answer.content[:300])
            error = answer.json()
            assert error["code"] and error["detail"], (method, url, error)
