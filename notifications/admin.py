"""Admin of the notifications app: the outbox, reminders sent, preferences."""

from __future__ import annotations

from django.contrib import admin, messages
from django.db.models import QuerySet
from django.http import HttpRequest

from . import services
from .models import OutboxMessage, Preferences, Reminder


@admin.register(OutboxMessage)
class OutboxMessageAdmin(admin.ModelAdmin[OutboxMessage]):
    list_display = ["id", "kind", "to", "table", "turn", "status", "attempts", "created_at"]
    list_filter = ["status", "kind"]
    search_fields = ["to", "subject"]
    readonly_fields = [f.name for f in OutboxMessage._meta.fields]
    actions = ["send_again"]

    def has_add_permission(self, request: HttpRequest) -> bool:
        return False

    @admin.action(description="Send the selected failed or cancelled messages again")
    def send_again(self, request: HttpRequest, queryset: QuerySet[OutboxMessage]) -> None:
        done = sum(
            services.outbox_retry(message_id=pk) for pk in queryset.values_list("pk", flat=True)
        )
        self.message_user(request, f"{done} message(s) queued again.", messages.SUCCESS)


@admin.register(Reminder)
class ReminderAdmin(admin.ModelAdmin[Reminder]):
    list_display = ["table", "turn", "seat", "sent_at"]
    readonly_fields = ["table", "turn", "seat", "sent_at"]

    def has_add_permission(self, request: HttpRequest) -> bool:
        return False


@admin.register(Preferences)
class PreferencesAdmin(admin.ModelAdmin[Preferences]):
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
