"""Users in the admin: Django's own user admin, with every deactivation through the service.

- Unticking "Active" on the change form, and the "Deactivate" action, both
  call ``services.user_deactivate``: the user leaves every running table and
  loses every API token.
- A user who has played cannot be deleted (tables, seats and moves are kept
  for good): the delete page says so and offers anonymising instead.
- API tokens are listed by name and prefix only; the server never had more.
- Both lists take only the lookups of their own filters (``?password__startswith=``
  and ``?digest__startswith=`` answer 400): ``games.admin_lookups``.
- Bot accounts (issue 40): a user's page says "BOT of <owner>", or which bots the
  person owns; the list filters bots; "Disable the bot" and "Disable the bot and its
  owner" ask for a reason and go through ``services.bot_disable`` and
  ``services.user_deactivate``. The bot list (``games.admin.BotAccountAdmin``) sends
  its selection to the same page, ``admin:auth_user_bots_disable``.
"""

from __future__ import annotations

from typing import Any

from django import forms
from django.contrib import admin, messages
from django.contrib.admin.actions import delete_selected
from django.contrib.auth.admin import UserAdmin
from django.contrib.auth.models import User
from django.core.exceptions import PermissionDenied
from django.db.models import QuerySet
from django.forms import Form
from django.http import HttpRequest, HttpResponse, HttpResponseRedirect
from django.template.response import TemplateResponse
from django.urls import URLPattern, path, reverse
from django.utils.html import format_html, format_html_join
from django.utils.http import urlencode

from games.admin_lookups import FilterLookupsOnly
from games.errors import ServiceError

from . import selectors, services
from .models import ApiToken

admin.site.unregister(User)


class ApiTokenInline(admin.TabularInline[ApiToken, User]):
    model = ApiToken
    extra = 0
    fields = ("name", "scope", "prefix", "created_at", "last_used_at")
    readonly_fields = fields
    verbose_name_plural = "API tokens (delete one to revoke it)"

    def has_add_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False

    def has_change_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False


class BotFilter(admin.SimpleListFilter):
    """Bot accounts, or people (issue 40)."""

    title = "bot account"
    parameter_name = "bot"

    def lookups(self, request: HttpRequest, model_admin: Any) -> list[tuple[str, str]]:
        return [("yes", "Bot accounts"), ("no", "People")]

    def queryset(self, request: HttpRequest, queryset: QuerySet[User]) -> QuerySet[User]:
        if self.value() in ("yes", "no"):
            return queryset.filter(bot_account__isnull=self.value() == "no")
        return queryset


class BotDisableForm(forms.Form):
    reason = forms.CharField(
        max_length=200,
        widget=forms.TextInput(attrs={"size": 80}),
        help_text="Kept in each account's history in the admin.",
    )


#: The most accounts the bot page takes at once, and the most digits of an id.
_MAX_IDS, _ID_DIGITS = 100, 18


def _ids(text: str) -> list[int]:
    """The user ids of a ``?ids=1,2,3`` list; anything else in it is dropped."""
    ids = (one for one in text.split(",")[:_MAX_IDS] if one.isascii() and one.isdigit())
    return [int(one) for one in ids if len(one) <= _ID_DIGITS]


@admin.register(User)
class GamenookUserAdmin(FilterLookupsOnly[User], UserAdmin[User]):
    actions = ["deactivate_users", "anonymise_users", "disable_bots", "disable_bots_and_owners"]
    inlines = [ApiTokenInline]
    list_filter = (*UserAdmin.list_filter, BotFilter)

    def get_fieldsets(self, request: HttpRequest, obj: User | None = None) -> Any:
        fieldsets = list(super().get_fieldsets(request, obj))
        if obj is not None:
            fieldsets.insert(1, ("Bot accounts", {"fields": ("bot_accounts",)}))
        return fieldsets

    def get_readonly_fields(self, request: HttpRequest, obj: User | None = None) -> Any:
        return (*super().get_readonly_fields(request, obj), "bot_accounts")

    @admin.display(description="Bot accounts")
    def bot_accounts(self, user: User) -> str:
        """ "BOT of <owner>" for a bot; the bots a person owns, each linked; or "None"."""
        owner = selectors.owner_of(user)
        if owner is not None:
            link = reverse("admin:auth_user_change", args=[owner.pk])
            return format_html('BOT of <a href="{}">{}</a>', link, owner.username)
        bots = selectors.bots_of(owner=user)
        if not bots:
            return "None"
        return format_html_join(
            ", ",
            '<a href="{}">{}</a>{}',
            (
                (
                    reverse("admin:auth_user_change", args=[bot.user.pk]),
                    bot.username,
                    " (disabled)" if bot.disabled else "",
                )
                for bot in bots
            ),
        )

    @admin.action(description="Disable the bot (asks for a reason)", permissions=["change"])
    def disable_bots(self, request: HttpRequest, queryset: QuerySet[User]) -> HttpResponse:
        return self._to_disable_page(queryset, owners=False)

    @admin.action(
        description="Disable the bot and its owner (asks for a reason)", permissions=["change"]
    )
    def disable_bots_and_owners(
        self, request: HttpRequest, queryset: QuerySet[User]
    ) -> HttpResponse:
        return self._to_disable_page(queryset, owners=True)

    def _to_disable_page(self, queryset: QuerySet[User], *, owners: bool) -> HttpResponse:
        ids = ",".join(str(pk) for pk in queryset.order_by("pk").values_list("pk", flat=True))
        query = urlencode({"ids": ids, "owners": "1" if owners else "0"})
        return HttpResponseRedirect(f"{reverse('admin:auth_user_bots_disable')}?{query}")

    def get_urls(self) -> list[URLPattern]:
        page = path(
            "bots/disable/",
            self.admin_site.admin_view(self.bots_disable_view),
            name="auth_user_bots_disable",
        )
        return [page, *super().get_urls()]

    def bots_disable_view(self, request: HttpRequest) -> HttpResponse:
        """Ask a reason, then disable the bots ``?ids=`` names (and their owners: ``?owners=1``).

        Ids that are not bot accounts are said and left alone.
        """
        if not self.has_change_permission(request):
            raise PermissionDenied
        source = request.POST if request.method == "POST" else request.GET
        owners = source.get("owners") == "1"
        users = list(User.objects.filter(pk__in=_ids(source.get("ids", ""))).order_by("pk"))
        bots = [(user, owner) for user in users if (owner := selectors.owner_of(user))]
        people = [user for user in users if all(user.pk != bot.pk for bot, _ in bots)]
        form = BotDisableForm(request.POST if request.method == "POST" else None)
        changelist = reverse("admin:auth_user_changelist")
        if request.method == "POST" and form.is_valid() and bots:
            reason = form.cleaned_data["reason"]
            for bot, owner in bots:
                self._disable_bot(request, bot, owner, reason=reason, owner_too=owners)
            return HttpResponseRedirect(changelist)
        context = {
            **self.admin_site.each_context(request),
            "title": "Disable bots and their owners" if owners else "Disable bots",
            "opts": self.opts,
            "bots": bots,
            "people": people,
            "owners": owners,
            "ids": ",".join(str(user.pk) for user in users),
            "form": form,
            "changelist": changelist,
        }
        return TemplateResponse(request, "admin/accounts/bots_disable.html", context)

    def _disable_bot(
        self, request: HttpRequest, bot: User, owner: User, *, reason: str, owner_too: bool
    ) -> None:
        by = request.user
        if not isinstance(by, User):
            raise PermissionDenied
        if services.bot_disable(bot, by=by, reason=reason):
            self.log_change(request, bot, f"Bot disabled by a moderator: {reason}")
            self.message_user(request, f"{bot}: disabled.", messages.SUCCESS)
        else:
            self.message_user(request, f"{bot}: was disabled already.", messages.WARNING)
        if owner_too and owner.is_active:
            left = services.user_deactivate(user=owner)
            done = f"Deactivated with their bot {bot} ({reason}); left {left} active table(s)."
            self.log_change(request, owner, done)
            self.message_user(request, f"{owner}: {done}", messages.SUCCESS)

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
