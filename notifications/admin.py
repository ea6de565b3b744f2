"""Admin of the notifications app: the outbox, reminders sent, preferences, push devices,
bot accounts' webhooks and their delivery log.

Every list takes only the lookups of its own filters (``games.admin_lookups``):
``?text__contains=`` and ``?headers__icontains=`` answer 400.
"""

from __future__ import annotations

import json
from urllib.parse import urlsplit

from django.contrib import admin, messages
from django.db.models import QuerySet
from django.http import HttpRequest

from games import selectors as games_selectors
from games.admin_lookups import FilterLookupsOnly

from . import services
from .models import (
    OutboxMessage,
    Preferences,
    PushMessage,
    PushSubscription,
    Reminder,
    WebhookDelivery,
    WebhookEndpoint,
)

#: What the outbox shows instead of an account message's text, HTML and headers.
ACCOUNT_BODY_HIDDEN = (
    "Not shown: account mail may hold a link that grants access "
    "(sealed until it is sent, removed afterwards)."
)
_UNSUBSCRIBE_MASK = "[the recipient's unsubscribe token]"


def _shown(message: OutboxMessage, value: str) -> str:
    """A part of ``message`` as staff may read it: never an account message's, never a token.

    Game mail is shown with the one-click unsubscribe token masked (it would
    let the reader unsubscribe the recipient from everything).
    """
    if message.kind in services.ACCOUNT_KINDS:
        return ACCOUNT_BODY_HIDDEN
    return value.replace(services.unsubscribe_token(message.user), _UNSUBSCRIBE_MASK)


@admin.register(OutboxMessage)
class OutboxMessageAdmin(FilterLookupsOnly[OutboxMessage]):
    """The outbox, view-only; "send again" for failed or cancelled game mail.

    The model's ``text``, ``html`` and ``headers`` are never fields of a page,
    a column, a search or a lookup here: the change page shows them through
    ``_shown`` (issue 35 §1: a reset link read here took an account).
    """

    list_display = ["id", "kind", "to", "table", "turn", "status", "attempts", "created_at"]
    list_filter = ["status", "kind"]
    search_fields = ["to", "subject"]
    # One user's or one table's mail, the links a moderator keeps.
    extra_lookups = ("user__id__exact", "table__id__exact")
    fields = readonly_fields = (
        "user",
        "to",
        "kind",
        "subject",
        "table",
        "turn",
        "status",
        "attempts",
        "last_error",
        "next_attempt_at",
        "created_at",
        "sent_at",
        "shown_text",
        "shown_html",
        "shown_headers",
    )
    actions = ["send_again"]

    def has_add_permission(self, request: HttpRequest) -> bool:
        return False

    @admin.display(description="text")
    def shown_text(self, message: OutboxMessage) -> str:
        return _shown(message, message.text)

    @admin.display(description="HTML")
    def shown_html(self, message: OutboxMessage) -> str:
        return _shown(message, message.html)

    @admin.display(description="headers")
    def shown_headers(self, message: OutboxMessage) -> str:
        return _shown(message, json.dumps(message.headers, indent=1, ensure_ascii=False))

    @admin.action(description="Send the selected failed or cancelled messages again")
    def send_again(self, request: HttpRequest, queryset: QuerySet[OutboxMessage]) -> None:
        account = queryset.filter(kind__in=services.ACCOUNT_KINDS).count()
        game = queryset.exclude(kind__in=services.ACCOUNT_KINDS).values_list("pk", flat=True)
        done = sum(services.outbox_retry(message_id=pk) for pk in game)
        if account:
            self.message_user(
                request,
                f"{account} account message(s) not sent again: account mail is removed once "
                "sent, failed or cancelled (it may hold a link that grants access). The user "
                "asks for a new one (a password reset, or a new confirmation link).",
                messages.ERROR,
            )
        if done or not account:
            self.message_user(request, f"{done} message(s) queued again.", messages.SUCCESS)


@admin.register(Reminder)
class ReminderAdmin(FilterLookupsOnly[Reminder]):
    extra_lookups = ("table__id__exact",)
    list_display = ["table", "turn", "seat", "sent_at"]
    readonly_fields = ["table", "turn", "seat", "sent_at"]

    def has_add_permission(self, request: HttpRequest) -> bool:
        return False


@admin.register(Preferences)
class PreferencesAdmin(FilterLookupsOnly[Preferences]):
    list_display = [
        "user",
        "verified_email",
        "your_turn",
        "reminder",
        "timeout",
        "game_over",
        "unsubscribed_all",
    ]
    search_fields = ["user__username", "user__email"]
    raw_id_fields = ["user"]
    # Set only by the user following accounts' signed link: staff cannot vouch for an address.
    readonly_fields = ["verified_email"]


@admin.register(PushSubscription)
class PushSubscriptionAdmin(FilterLookupsOnly[PushSubscription]):
    """Devices users turned push on for: read-only; deleting one turns push off for it.

    The endpoint and keys are not shown: with them anyone holding the VAPID key
    could push to the device. Its host tells which push service it is.
    """

    list_display = ["id", "user", "name", "service", "created_at", "last_sent_at"]
    extra_lookups = ("user__id__exact",)
    fields = readonly_fields = ("user", "name", "service", "created_at", "last_sent_at")

    def has_add_permission(self, request: HttpRequest) -> bool:
        return False

    def has_change_permission(self, request: HttpRequest, obj: object = None) -> bool:
        return False

    @admin.display(description="push service")
    def service(self, subscription: PushSubscription) -> str:
        return urlsplit(subscription.endpoint).hostname or ""


@admin.register(PushMessage)
class PushMessageAdmin(FilterLookupsOnly[PushMessage]):
    """The pushes written, view-only: what each said, to which device, and how it went."""

    list_display = ["id", "kind", "user", "table", "turn", "status", "attempts", "created_at"]
    list_filter = ["status", "kind"]
    extra_lookups = ("user__id__exact", "table__id__exact", "subscription__id__exact")
    fields = readonly_fields = (
        "subscription",
        "user",
        "kind",
        "table",
        "turn",
        "tag",
        "payload",
        "status",
        "attempts",
        "last_error",
        "next_attempt_at",
        "created_at",
        "sent_at",
    )

    def has_add_permission(self, request: HttpRequest) -> bool:
        return False

    def has_change_permission(self, request: HttpRequest, obj: object = None) -> bool:
        return False


class _Disabled(admin.SimpleListFilter):
    title = "disabled"
    parameter_name = "disabled"

    def lookups(self, request: HttpRequest, model_admin: object) -> list[tuple[str, str]]:
        return [("yes", "Disabled"), ("no", "Enabled")]

    def queryset(
        self, request: HttpRequest, queryset: QuerySet[WebhookEndpoint]
    ) -> QuerySet[WebhookEndpoint]:
        if self.value() in ("yes", "no"):
            return queryset.filter(disabled_at__isnull=self.value() == "no")
        return queryset


@admin.register(WebhookEndpoint)
class WebhookEndpointAdmin(FilterLookupsOnly[WebhookEndpoint]):
    """Bot accounts' webhooks, read-only but for the actions: turn one off or on again.

    The signing secrets are never shown, only how many sign now.
    """

    list_display = ["id", "user", "owner", "url", "failing_since", "disabled_at", "created_at"]
    list_filter = [_Disabled]
    search_fields = ["user__username", "url"]
    extra_lookups = ("user__id__exact",)
    fields = readonly_fields = (
        "user",
        "owner",
        "url",
        "live_secrets",
        "created_at",
        "failing_since",
        "disabled_at",
        "disabled_reason",
    )
    actions = ["disable", "enable"]

    def has_add_permission(self, request: HttpRequest) -> bool:
        return False

    @admin.display(description="owner")
    def owner(self, endpoint: WebhookEndpoint) -> str:
        owner = games_selectors.bot_owner(endpoint.user_id)
        return "" if owner is None else owner.get_username()

    @admin.display(description="secrets signing now")
    def live_secrets(self, endpoint: WebhookEndpoint) -> int:
        return len(services.live_secrets(endpoint))

    @admin.action(description="Disable the selected webhooks (nothing more is posted)")
    def disable(self, request: HttpRequest, queryset: QuerySet[WebhookEndpoint]) -> None:
        reason = f"Disabled by {request.user.get_username()} in the admin."
        ids = queryset.values_list("pk", flat=True)
        done = sum(services.webhook_endpoint_disable(endpoint_id=pk, reason=reason) for pk in ids)
        self.message_user(request, f"{done} webhook(s) disabled.", messages.SUCCESS)

    @admin.action(description="Enable the selected webhooks again")
    def enable(self, request: HttpRequest, queryset: QuerySet[WebhookEndpoint]) -> None:
        ids = queryset.values_list("pk", flat=True)
        done = sum(services.webhook_endpoint_enable(endpoint_id=pk) for pk in ids)
        self.message_user(request, f"{done} webhook(s) enabled.", messages.SUCCESS)


@admin.register(WebhookDelivery)
class WebhookDeliveryAdmin(FilterLookupsOnly[WebhookDelivery]):
    """The delivery log, view-only: each event posted, how often, and the last answer."""

    list_display = [
        "id",
        "event",
        "endpoint",
        "table",
        "turn",
        "status",
        "attempts",
        "last_status_code",
        "next_attempt_at",
        "created_at",
    ]
    list_filter = ["status", "event", "last_status_code"]
    extra_lookups = ("endpoint__id__exact", "table__id__exact")
    fields = readonly_fields = (
        "endpoint",
        "msg_id",
        "event",
        "table",
        "turn",
        "payload",
        "status",
        "attempts",
        "last_status_code",
        "last_error",
        "next_attempt_at",
        "created_at",
        "sent_at",
    )

    def has_add_permission(self, request: HttpRequest) -> bool:
        return False

    def has_change_permission(self, request: HttpRequest, obj: object = None) -> bool:
        return False
