"""accounts' data migration on a database from before it (0002_unique_email_legacy_tokens).

The test database is migrated already, so each test rebuilds the old state
by hand (DRF's clear-text token table, two accounts sharing an address),
runs the migration's function and checks the result.
"""

from __future__ import annotations

import importlib

import pytest
from django.apps import apps
from django.contrib.auth.models import User
from django.db import connection
from django.utils import timezone
from rest_framework.test import APIClient

from accounts.models import ApiToken, token_digest

pytestmark = pytest.mark.django_db

migration = importlib.import_module("accounts.migrations.0002_unique_email_legacy_tokens")


class _Editor:
    """What the migration uses of a schema editor, inside the test's transaction.

    SQLite's own schema editor refuses to open inside a transaction with
    foreign key checks on, which the test's transaction has.
    """

    connection = connection

    def execute(self, sql: str) -> None:
        with connection.cursor() as cursor:
            cursor.execute(sql)


def test_drf_tokens_become_hashes_keep_working_and_the_clear_table_goes() -> None:
    alice = User.objects.create_user("alice", "alice@example.com", "correct horse battery")
    key = "0123456789abcdef0123456789abcdef01234567"  # DRF's format: 40 hex digits
    with connection.cursor() as cursor:
        cursor.execute(
            "CREATE TABLE authtoken_token (key varchar(40) PRIMARY KEY, "
            "created timestamp with time zone NOT NULL, user_id integer NOT NULL)"
            if connection.vendor == "postgresql"
            else "CREATE TABLE authtoken_token (key varchar(40) PRIMARY KEY, "
            "created datetime NOT NULL, user_id integer NOT NULL)"
        )
        cursor.execute(
            "INSERT INTO authtoken_token (key, created, user_id) VALUES (%s, %s, %s)",
            [key, timezone.now(), alice.pk],
        )

    migration.import_legacy_tokens(apps, _Editor())

    token = ApiToken.objects.get(user=alice)
    assert (token.name, token.prefix, token.digest) == ("legacy", key[:8], token_digest(key))
    assert "authtoken_token" not in connection.introspection.table_names()
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Token {key}")
    assert client.get("/api/v1/me/").json()["username"] == "alice"


def test_a_shared_address_stays_with_the_oldest_account() -> None:
    with connection.cursor() as cursor:
        cursor.execute("DROP INDEX accounts_user_email_ci")
    first = User.objects.create_user("first", "Shared@example.com", "x")
    second = User.objects.create_user("second", "shared@EXAMPLE.com", "x")
    other = User.objects.create_user("other", "other@example.com", "x")

    migration.clear_duplicate_emails(apps, None)

    emails = dict(User.objects.values_list("username", "email"))
    assert emails == {
        "first": "Shared@example.com",
        "second": "",
        "other": "other@example.com",
    }
    assert first.pk < second.pk and other.pk
    with connection.cursor() as cursor:
        cursor.execute(
            "CREATE UNIQUE INDEX accounts_user_email_ci ON auth_user (LOWER(email)) "
            "WHERE email <> ''"
        )
