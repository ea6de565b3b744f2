"""Users in the admin: Django's own user admin, plus deactivation through the service."""

from __future__ import annotations

from django.contrib import admin, messages
from django.contrib.auth.admin import UserAdmin
from django.contrib.auth.models import User
from django.db.models import QuerySet
from django.http import HttpRequest

from games.errors import ServiceError

from . import services

admin.site.unregister(User)


@admin.register(User)
class GamenookUserAdmin(UserAdmin[User]):
    actions = ["deactivate_users"]

    @admin.action(
        description="Deactivate users (they leave every active table)",
        permissions=["change"],
    )
    def deactivate_users(self, request: HttpRequest, queryset: QuerySet[User]) -> None:
        for user in queryset.order_by("pk"):
            try:
                left = services.user_deactivate(user=user)
            except ServiceError as error:
                self.message_user(
                    request, f"{user}: {error.message} ({error.code})", messages.ERROR
                )
                continue
            done = f"Deactivated; left {left} active table(s)."
            self.log_change(request, user, done)
            self.message_user(request, f"{user}: {done}", messages.SUCCESS)
