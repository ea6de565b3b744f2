"""Users in the admin: Django's own user admin, with every deactivation through the service.

- Unticking "Active" on the change form, and the "Deactivate" action, both
  call ``services.user_deactivate``: the user leaves every running table and
  loses every API token.
- A user who has played cannot be deleted (tables, seats and moves are kept
  for good): the delete page says so and offers anonymising instead.
- API tokens are listed by name and prefix only; the server never had more.
- Both lists take only the lookups of their own filters (``?password__startswith=``
  and ``?digest__startswith=`` answer 400): ``games.admin_lookups``.
"""

from __future__ import annotations

from typing import Any

from django.contrib import admin, messages
from django.contrib.admin.actions import delete_selected
from django.contrib.auth.admin import UserAdmin
from django.contrib.auth.models import User
from django.db.models import QuerySet
from django.forms import Form
from django.http import HttpRequest, HttpResponse, HttpResponseRedirect
from django.template.response import TemplateResponse
from django.urls import reverse

from games.admin_lookups import FilterLookupsOnly
from games.errors import ServiceError

from . import services
from .models import ApiToken

admin.site.unregister(User)


class ApiTokenInline(admin.TabularInline[ApiToken, User]):
    model = ApiToken
    extra = 0
    fields = ("name", "prefix", "created_at", "last_used_at")
    readonly_fields = fields
    verbose_name_plural = "API tokens (delete one to revoke it)"

    def has_add_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False

    def has_change_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False


@admin.register(User)
class GamenookUserAdmin(FilterLookupsOnly[User], UserAdmin[User]):
    actions = ["deactivate_users", "anonymise_users"]
    inlines = [ApiTokenInline]

    @admin.action(
        description="Deactivate users (they leave every active table)",
        permissions=["change"],
    )
    def deactivate_users(self, request: HttpRequest, queryset: QuerySet[User]) -> None:
        for user in queryset.order_by("pk"):
            self._deactivate(request, user)

    @admin.action(
        description="Anonymise users (keep their games, forget the person)",
        permissions=["change"],
    )
    def anonymise_users(self, request: HttpRequest, queryset: QuerySet[User]) -> None:
        for user in queryset.order_by("pk"):
            was = str(user)
            services.user_anonymise(user=user)
            self.log_change(request, user, f"Anonymised (was {was}).")
            self.message_user(request, f"{was}: anonymised as {user}.", messages.SUCCESS)

    def _deactivate(self, request: HttpRequest, user: User) -> None:
        try:
            left = services.user_deactivate(user=user)
        except ServiceError as error:
            self.message_user(request, f"{user}: {error.message} ({error.code})", messages.ERROR)
            return
        done = f"Deactivated; left {left} active table(s), API tokens revoked."
        self.log_change(request, user, done)
        self.message_user(request, f"{user}: {done}", messages.SUCCESS)

    def save_model(self, request: HttpRequest, obj: User, form: Form, change: bool) -> None:
        """Save the form; an unticked "Active" box then goes through the service."""
        deactivating = change and "is_active" in form.changed_data and not obj.is_active
        super().save_model(request, obj, form, change)
        if deactivating:
            self._deactivate(request, obj)

    def delete_view(
        self, request: HttpRequest, object_id: str, extra_context: dict[str, Any] | None = None
    ) -> HttpResponse:
        """Explain why a user who has played cannot be deleted, and offer anonymising."""
        user = self.get_object(request, object_id)
        if user is None or not services.user_has_history(user):
            return super().delete_view(request, object_id, extra_context)
        if not self.has_change_permission(request, user):
            return super().delete_view(request, object_id, extra_context)
        change_url = reverse("admin:auth_user_change", args=[user.pk])
        if request.method == "POST" and request.POST.get("anonymise") == "yes":
            was = str(user)
            services.user_anonymise(user=user)
            self.log_change(request, user, f"Anonymised (was {was}).")
            self.message_user(request, f"{was}: anonymised as {user}.", messages.SUCCESS)
            return HttpResponseRedirect(change_url)
        context = {
            **self.admin_site.each_context(request),
            "title": f"{user} cannot be deleted",
            "opts": self.opts,
            "original": user,
            "change_url": change_url,
            "has_view_permission": True,
        }
        return TemplateResponse(request, "admin/accounts/user_keep_history.html", context)

    def get_actions(self, request: HttpRequest) -> dict[str, Any]:
        actions: dict[str, Any] = dict(super().get_actions(request))
        if "delete_selected" in actions:
            actions["delete_selected"] = (
                delete_or_explain,
                "delete_selected",
                "Delete selected users (those who played: anonymise instead)",
            )
        return actions


def delete_or_explain(
    modeladmin: GamenookUserAdmin, request: HttpRequest, queryset: QuerySet[User]
) -> HttpResponse | None:
    """Django's bulk delete for the users who never played; the others are kept, and why."""
    kept = [user for user in queryset.order_by("pk") if services.user_has_history(user)]
    if kept:
        names = ", ".join(str(user) for user in kept)
        modeladmin.message_user(
            request,
            f"Not deleted: {names} played at tables, which are kept for good (other players' "
            "logs and records refer to them). Use the action 'Anonymise users' instead.",
            messages.ERROR,
        )
    rest = queryset.exclude(pk__in=[user.pk for user in kept])
    if not rest.exists():
        return None
    return delete_selected(modeladmin, request, rest)


@admin.register(ApiToken)
class ApiTokenAdmin(FilterLookupsOnly[ApiToken]):
    """Tokens by name and prefix; deleting one revokes it. No one can see or add a key."""

    # One user's tokens; never a lookup on ``digest``.
    extra_lookups = ("user__id__exact",)

    list_display = ("user", "name", "prefix", "created_at", "last_used_at")
    search_fields = ("user__username", "name", "=prefix")
    list_select_related = ("user",)
    fields = ("user", "name", "prefix", "created_at", "last_used_at")
    readonly_fields = fields

    def has_add_permission(self, request: HttpRequest) -> bool:
        return False

    def has_change_permission(self, request: HttpRequest, obj: ApiToken | None = None) -> bool:
        return False
