"""accounts' data migrations on a database from before them (0002 and 0003).

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

from accounts import services
from accounts.models import ApiToken, NameKey, PendingEmail, token_digest
from games.errors import ServiceError
from notifications import services as notifications

pytestmark = pytest.mark.django_db

migration = importlib.import_module("accounts.migrations.0002_unique_email_legacy_tokens")
migration_0003 = importlib.import_module("accounts.migrations.0003_pending_email_name_key")


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


def test_an_unconfirmed_address_waits_and_the_one_confirmed_before_is_the_accounts_again() -> None:
    """Issue 35 §3: an address a stolen session set, never confirmed, no longer takes resets."""
    alice = User.objects.create_user("alice", "mallory@evil.example", "x")
    notifications.email_verified_set(alice, "alice@example.com")
    dora = User.objects.create_user("dora", "dora@example.com", "x")  # never confirmed one
    # erin confirmed erin@old.example and moved away; fred has confirmed it since.
    erin = User.objects.create_user("erin", "erin@new.example", "x")
    notifications.email_verified_set(erin, "erin@old.example")
    fred = User.objects.create_user("fred", "erin@old.example", "x")
    notifications.email_verified_set(fred, "erin@old.example")
    bob = User.objects.create_user("bob", "bob@example.com", "x")
    notifications.email_verified_set(bob, "BOB@example.com")

    migration_0003.unconfirmed_addresses_wait(apps, None)

    emails = dict(User.objects.values_list("username", "email"))
    assert emails == {
        "alice": "alice@example.com",
        "dora": "",
        "erin": "",
        "fred": "erin@old.example",
        "bob": "bob@example.com",
    }
    waiting = dict(PendingEmail.objects.values_list("user__username", "email"))
    assert waiting == {
        "alice": "mallory@evil.example",
        "dora": "dora@example.com",
        "erin": "erin@new.example",
    }
    for user in (alice, dora, erin):
        user.refresh_from_db()
    assert notifications.email_is_verified(alice) and not notifications.email_is_verified(dora)
    # A reset reaches the address alice proved, not the one typed for her.
    assert services.password_reset_write(email="alice@example.com") is True
    assert services.password_reset_write(email="mallory@evil.example") is False
    # A link mailed before the migration still confirms the address it names.
    services.email_verify(token=services.verification_token(dora, "dora@example.com"))
    dora.refresh_from_db()
    assert dora.email == "dora@example.com" and notifications.email_is_verified(dora)


def test_names_get_their_keys_and_a_younger_look_alike_keeps_its_name_without_one() -> None:
    older = User.objects.create_user("Alice", "", "x")
    younger = User.objects.create_user("ALICE", "", "x")  # allowed before the key
    other = User.objects.create_user("two words", "", "x")  # refused today, kept as it is
    NameKey.objects.all().delete()

    migration_0003.key_existing_names(apps, None)

    assert dict(NameKey.objects.values_list("user_id", "key")) == {
        older.pk: "alice",
        other.pk: "two words",
    }
    assert sorted(User.objects.values_list("username", flat=True)) == [
        "ALICE",
        "Alice",
        "two words",
    ]
    assert younger.pk
    # Only the key tells these apart from "Alice": Latin small capitals.
    with pytest.raises(ServiceError) as taken:
        services.user_register(username="ᴀʟɪᴄᴇ", email="a@example.com", password="long secret 1")
    assert taken.value.fields == {"username": ["A user with that username already exists."]}
