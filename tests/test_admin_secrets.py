"""No admin page answers a question about a secret field (issue 35 §1 and §2).

Django's admin applies any lookup on a model's own fields that the query
string names: ``?state__seed__startswith=`` on the tables list recovered a
running game's seed one character at a time, and a viewer of the outbox read
a password reset link there. This module walks every ``ModelAdmin`` of
``admin.site`` (a new admin or a new field is walked too) and asks each list
with a lookup on every field and every field one relation away; the secret
ones must answer 400. Search (``?q=``) and ordering (``?o=``) must not reach
them either.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Any

import pytest
from django.contrib import admin
from django.contrib.admin.utils import NotRelationField, get_fields_from_path
from django.contrib.auth.models import Group, Permission, User
from django.core import mail
from django.core.cache import cache
from django.core.exceptions import FieldDoesNotExist
from django.db.models import Field, Model
from django.db.models.fields.reverse_related import ForeignObjectRel
from django.test import Client
from django.urls import reverse
from rest_framework.test import APIClient

from accounts import services as account_services
from accounts import tasks as account_tasks
from accounts.models import ApiToken
from games.models import Move
from games.selectors import facts_of
from notifications import services as notifications
from notifications.models import OutboxMessage, Reminder
from tests.factories import make_user, start_table

pytestmark = pytest.mark.django_db

#: Fields whose content no admin page may show or answer questions about.
SECRETS = {
    ("games.Table", "state"),  # the seed, every hand, the draw order
    ("games.Move", "payload"),  # hidden cards drawn, shuffle orders
    ("games.IdempotencyKey", "response_body"),  # a seat's own view, its hand
    ("notifications.OutboxMessage", "text"),  # account links; game mail's unsubscribe token
    ("notifications.OutboxMessage", "html"),
    ("notifications.OutboxMessage", "headers"),  # the one-click unsubscribe token
    ("accounts.ApiToken", "digest"),
    # A push device's capability URL and keys: with the VAPID key they reach the device.
    ("notifications.PushSubscription", "endpoint"),
    ("notifications.PushSubscription", "p256dh"),
    ("notifications.PushSubscription", "auth"),
    ("auth.User", "password"),
    ("sessions.Session", "session_key"),
    ("sessions.Session", "session_data"),
}
#: A field added later under such a name is a secret until someone decides otherwise.
SECRET_NAME = re.compile(r"password|digest|secret|token|session_key|session_data|seed")


def _secret(field: Field[Any, Any] | ForeignObjectRel) -> bool:
    if field.is_relation:
        return False  # the row it leads to is what may hold a secret
    return (field.model._meta.label, field.name) in SECRETS or bool(SECRET_NAME.search(field.name))


def _lookup_paths(model: type[Model]) -> Iterator[tuple[str, Any]]:
    """Every field of ``model``, and every field one relation away: (lookup path, field)."""
    for field in model._meta.get_fields():
        if not field.is_relation:
            if field.concrete:
                yield field.name, field
            continue
        if field.concrete:
            yield field.name, field
        related = field.related_model
        if related is None or not isinstance(related, type):
            continue
        for far in related._meta.get_fields():
            if far.concrete and not far.is_relation:
                yield f"{field.name}__{far.name}", far


def _changelist(model: type[Model]) -> str:
    return reverse(f"admin:{model._meta.app_label}_{model._meta.model_name}_changelist")


@pytest.fixture(autouse=True)
def _fresh_cache() -> Iterator[None]:
    cache.clear()  # the reset's once-a-minute limit and the API's rate limits
    yield
    cache.clear()


@pytest.fixture
def world(admin_user: User) -> dict[str, Any]:
    """A row in every admin's list, each secret field holding something to find."""
    alice, bob = make_user("alice"), make_user("bob")
    table = start_table(alice, bob)
    assert table.state is not None and Move.objects.filter(table=table).exists()
    # A classic Wild Cards table too, every house rule on: its rows are listed, its seed kept.
    classic = start_table(
        make_user("carol"),
        make_user("dave"),
        game="wildcards",
        options={"stacking": True, "seven_zero": True, "jump_in": True},
    )
    assert classic.state is not None
    notifications.outbox_enqueue(
        user=alice, kind=OutboxMessage.Kind.YOUR_TURN, table=facts_of(table), turn=99
    )
    notifications.account_mail_enqueue(
        user=bob,
        kind="password_reset",
        to=bob.email,
        subject="Reset your Gamenook password",
        text="https://gamenook.example/reset/Mg/secret-reset-token/",
    )
    Reminder.objects.create(table=table, turn=1, seat=0)
    account_services.token_create(user=alice, name="phone")
    Group.objects.create(name="moderators")
    return {
        "seed": str(table.state["seed"]),
        "classic seed": str(classic.state["seed"]),
        "digest": ApiToken.objects.get(user=alice).digest,
        "password": admin_user.password.rsplit("$", 1)[-1],
        "unsubscribe": notifications.unsubscribe_token(alice),
    }


# ----------------------------------------------------------------------------
# Lookups in the query string


def test_no_admin_list_takes_a_lookup_on_a_secret_field(
    admin_client: Client, world: dict[str, Any]
) -> None:
    walked, refused = 0, []
    for model in admin.site._registry:
        url = _changelist(model)
        for path, field in _lookup_paths(model):
            answers = [
                admin_client.get(url, {f"{path}__startswith": value}).status_code
                for value in ("x", "")  # matching none, matching all: no difference
            ]
            walked += 1
            assert max(answers) < 500, (url, path, answers)
            if _secret(field):
                refused.append(f"{model._meta.label}: {path}")
                assert answers == [400, 400], (url, path, answers)
    assert walked > 100
    for expected in (
        "games.Table: state",
        "games.Move: payload",
        "games.Move: table__state",
        "notifications.OutboxMessage: text",
        "notifications.OutboxMessage: html",
        "notifications.OutboxMessage: headers",
        "notifications.Reminder: table__state",
        "accounts.ApiToken: digest",
        "auth.User: password",
        "auth.User: api_tokens__digest",
    ):
        assert expected in refused


def test_the_seed_is_not_found_one_character_at_a_time(
    admin_client: Client, world: dict[str, Any]
) -> None:
    """The reported attack: each request a yes or no about the next character of the seed."""
    for lookup in ("state__seed__startswith", "state__icontains", "state__seed"):
        for guess in (world["seed"][:1], world["seed"], world["classic seed"]):
            assert admin_client.get("/admin/games/table/", {lookup: guess}).status_code == 400
    assert admin_client.get("/admin/games/move/", {"payload__icontains": "a"}).status_code == 400
    assert admin_client.get("/admin/auth/user/", {"password__startswith": "m"}).status_code == 400


def test_every_project_admin_takes_only_its_own_filters_lookups() -> None:
    """So that a field added later is refused until a filter or an extra names it."""
    from games.admin_lookups import FilterLookupsOnly

    ours = [
        (model, model_admin)
        for model, model_admin in admin.site._registry.items()
        if model._meta.app_label in {"games", "notifications", "accounts"} or model is User
    ]
    assert len(ours) >= 7
    for model, model_admin in ours:
        assert isinstance(model_admin, FilterLookupsOnly), model


def test_the_lists_own_filters_dates_and_links_still_work(
    admin_client: Client, world: dict[str, Any]
) -> None:
    opened = 0
    for model, model_admin in admin.site._registry.items():
        url = _changelist(model)
        page = admin_client.get(url)
        assert page.status_code == 200, url
        changelist = page.context["cl"]
        for spec in changelist.filter_specs:
            for choice in spec.choices(changelist):
                answer = admin_client.get(url + choice["query_string"])
                assert answer.status_code == 200, (url, choice["query_string"])
                opened += 1
        if model_admin.date_hierarchy:
            for query in ({"__year": "2026"}, {"__year": "2026", "__month": "1", "__day": "2"}):
                params = {f"{model_admin.date_hierarchy}{k}": v for k, v in query.items()}
                assert admin_client.get(url, params).status_code == 200, (url, params)
        for lookup in getattr(model_admin, "extra_lookups", ()):
            assert admin_client.get(url, {lookup: "1"}).status_code == 200, (url, lookup)
    assert opened > 20


# ----------------------------------------------------------------------------
# Search and ordering


def test_no_search_reaches_a_secret_field(admin_client: Client, world: dict[str, Any]) -> None:
    for model, model_admin in admin.site._registry.items():
        for name in model_admin.search_fields:
            path = name.lstrip("^=@")
            fields = get_fields_from_path(model, path.removesuffix("__exact"))
            assert not any(_secret(field) for field in fields), (model, name)
        if not model_admin.search_fields:
            continue  # ?q= is ignored: the list is the same with it
        for secret in world.values():
            page = admin_client.get(_changelist(model), {"q": secret})
            assert page.status_code == 200, (model, secret)
            assert page.context["cl"].result_count == 0, (model, secret)


def test_no_list_orders_by_a_secret_field(admin_client: Client, world: dict[str, Any]) -> None:
    for model, model_admin in admin.site._registry.items():
        url = _changelist(model)
        for index, name in enumerate(model_admin.list_display):
            column = getattr(model_admin, name, None) if isinstance(name, str) else name
            order = getattr(column, "admin_order_field", name)
            if isinstance(order, str) and order != "__str__":
                path = order.lstrip("-")
                try:
                    fields = get_fields_from_path(model, path)
                except (FieldDoesNotExist, NotRelationField):
                    fields = []  # a column that is no field orders nothing
                assert not any(_secret(field) for field in fields), (model, name)
            assert admin_client.get(url, {"o": str(index)}).status_code == 200, (url, index)


# ----------------------------------------------------------------------------
# Issue 35 §1, the attacker's scenario end to end


def ask_password_reset(email: str, monkeypatch: pytest.MonkeyPatch, on_commit: Any) -> None:
    """Ask for a reset as anyone can (the API), then run the job it queued as a worker would."""
    monkeypatch.setattr(account_services, "publish", account_tasks.run_inline)
    with on_commit(execute=True):
        asked = APIClient().post("/api/v1/auth/password-reset/", {"email": email}, format="json")
    assert asked.status_code == 202


def test_a_viewer_of_the_outbox_cannot_take_the_superusers_account(
    monkeypatch: pytest.MonkeyPatch, django_capture_on_commit_callbacks: Any
) -> None:
    """Staff allowed only to view outbox messages asks a reset for the superuser's address."""
    root = User.objects.create_superuser("root", "root@example.com", "root's long passphrase")
    notifications.email_verified_set(root, root.email)  # resets go to a confirmed address only
    mallory = User.objects.create_user("mallory", "mallory@example.com", "her own password")
    mallory.is_staff = True
    mallory.save()
    mallory.user_permissions.add(
        Permission.objects.get(
            content_type__app_label="notifications", codename="view_outboxmessage"
        )
    )
    staff = Client()
    staff.force_login(mallory)
    outbox = "/admin/notifications/outboxmessage/"

    def every_page(message: OutboxMessage) -> list[str]:
        pages = [
            staff.get(outbox),
            staff.get(outbox, {"q": "reset"}),
            staff.get(outbox, {"q": "root@example.com"}),
            staff.get(f"{outbox}{message.pk}/change/"),
            staff.get(f"{outbox}{message.pk}/history/"),
        ]
        assert [page.status_code for page in pages] == [200] * 5  # she does reach them
        assert message.subject in pages[3].content.decode()
        for lookup in ("text__contains", "text__regex", "html__contains", "headers__icontains"):
            asked = staff.get(outbox, {lookup: "http"})
            lookups.append((lookup, asked.status_code))
            pages.append(asked)
        return [page.content.decode() for page in pages]

    lookups: list[tuple[str, int]] = []

    ask_password_reset("root@example.com", monkeypatch, django_capture_on_commit_callbacks)
    message = OutboxMessage.objects.get(user=root, kind="password_reset")
    seen = every_page(message)
    at_rest = [message.text, message.html, str(message.headers)]

    assert notifications.outbox_send(message_id=message.pk).sent
    (sent,) = [m for m in mail.outbox if m.to == ["root@example.com"]]
    found = re.search(r"https?://\S+/password-reset/\S+", str(sent.body))
    assert found is not None, sent.body
    link = found.group(0)
    token = link.rstrip("/").rsplit("/", 1)[1]
    assert len(token) > 20
    seen += every_page(message)

    for body in seen:
        assert token not in body and link not in body
    message.refresh_from_db()
    for stored in [*at_rest, message.text, message.html, str(message.headers)]:
        assert token not in stored and "password-reset" not in stored
    # Nor does a lookup on the text answer yes or no (§2).
    assert {status for _, status in lookups} == {400}, lookups
