"""The moderators' admin of ratings: read-only numbers, resets through the service, the audit log.

As in ``games.admin``, nothing here edits a row in place. A rating's
numbers are shown read-only; a moderator who finds one wrong (a player who
lost on purpose to a friend, a rating built on a bug) sets it back to a
newcomer's with the action "Reset to a newcomer's rating", which asks for a
reason and calls ``ratings.services.rating_reset``: that writes the
``RatingReset`` row the audit log lists (who, whom, when, why, the rating
before), which the rebuild replays between the same two games, and
Django's admin log records it too. Resets need the ``ratings.change_rating``
permission (the moderators'), as moderating a table needs
``games.change_table``. Results, the rows finished games leave, are
read-only.

Every list takes only the lookups of its own filters (``games.admin_lookups``).
"""

from __future__ import annotations

from typing import Any

from django import forms
from django.contrib import admin, messages
from django.contrib.admin import helpers
from django.db.models import QuerySet
from django.http import HttpRequest, HttpResponse
from django.template import engines
from django.template.response import TemplateResponse

from games.admin_lookups import FilterLookupsOnly

from . import conf, model, services
from .models import Mode, Rating, RatingReset, Result, Rules


def _who(user: Any, bot_level: str) -> str:
    return f"Bot ({bot_level})" if bot_level else str(user)


def _ladder(game: str, mode: str, rules: str) -> str:
    return f"{game} · {Mode(mode).label} · {Rules(rules).label}"


def _figure(mu: float, sigma: float) -> str:
    """The rating as people see it (``model.shown``), "?" while provisional."""
    shown = model.shown(mu, sigma)
    return f"{shown}?" if sigma > conf.provisional_sigma() else str(shown)


class ReadOnlyAdmin(FilterLookupsOnly[Any]):
    """Rows the service writes: looked at here, never added, edited or deleted."""

    def has_add_permission(self, request: HttpRequest) -> bool:
        return False

    def has_change_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False

    def has_delete_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False


class ResetForm(forms.Form):
    reason = forms.CharField(
        max_length=500,
        widget=forms.Textarea(attrs={"rows": 3, "cols": 60}),
        help_text="Kept in the audit log with your name, and shown to other moderators.",
    )


# The action's page: the ratings chosen, the reason asked for. It posts back to the list
# with the same selection, as Django's own "delete selected" page does.
_RESET_PAGE = engines["django"].from_string(
    """{% extends "admin/base_site.html" %}
{% load i18n admin_urls static %}
{% block extrastyle %}{{ block.super }}
<link rel="stylesheet" href="{% static "admin/css/forms.css" %}">{% endblock %}
{% block bodyclass %}{{ block.super }} app-{{ opts.app_label }} model-{{ opts.model_name }}
change-form{% endblock %}
{% block breadcrumbs %}
<div class="breadcrumbs">
<a href="{% url 'admin:index' %}">{% translate 'Home' %}</a>
&rsaquo; <a href="{% url 'admin:app_list' app_label=opts.app_label %}">
{{ opts.app_config.verbose_name }}</a>
&rsaquo; <a href="{% url opts|admin_urlname:'changelist' %}">
{{ opts.verbose_name_plural|capfirst }}</a>
&rsaquo; {{ title }}
</div>
{% endblock %}
{% block content %}
<div id="content-main">
<p>Each rating below goes back to a newcomer's ({{ newcomer }}, provisional). The player's
games and results stay as they were; the reset is kept in the audit log with your name and
the reason, and the rebuild applies it between the same two games.</p>
<ul>{% for rating in ratings %}
<li>{{ rating.who }} on {{ rating.ladder }}: {{ rating.figure }}
after {{ rating.games }} game(s)</li>
{% endfor %}</ul>
<form method="post">{% csrf_token %}
{% for rating in ratings %}
<input type="hidden" name="{{ checkbox }}" value="{{ rating.pk }}">
{% endfor %}
<input type="hidden" name="action" value="{{ action }}">
<fieldset class="module aligned">
{% for field in form %}
<div class="form-row">
  {{ field.errors }}
  <div class="flex-container">{{ field.label_tag }} {{ field }}</div>
  {% if field.help_text %}
  <div class="help" id="{{ field.auto_id }}_helptext">{{ field.help_text }}</div>
  {% endif %}
</div>
{% endfor %}
</fieldset>
<div class="submit-row">
  <input type="submit" name="apply" value="Reset to a newcomer's rating" class="default">
  <a href="{% url opts|admin_urlname:'changelist' %}" class="closelink">{% translate "Cancel" %}</a>
</div>
</form>
</div>
{% endblock %}
"""
)


@admin.register(Rating)
class RatingAdmin(ReadOnlyAdmin):
    """Every rating, a person's or a bot level's, by ladder; read-only but for resets."""

    list_display = ("who", "ladder", "figure", "provisional", "games", "last_game_at")
    list_filter = ("game", "mode", "rules", "bot_level")
    search_fields = ("user__username",)
    list_select_related = ("user",)
    ordering = ("game", "mode", "rules", "-ordinal")
    fields = (
        "user",
        "bot_level",
        "game",
        "mode",
        "rules",
        "figure",
        "provisional",
        "mu",
        "sigma",
        "ordinal",
        "games",
        "last_game_at",
        "updated_at",
    )
    readonly_fields = fields
    actions = ("reset_ratings",)

    def has_moderate_permission(self, request: HttpRequest) -> bool:
        return request.user.has_perm("ratings.change_rating")

    @admin.display(description="who", ordering="user__username")
    def who(self, rating: Rating) -> str:
        return _who(rating.user, rating.bot_level)

    @admin.display(description="ladder")
    def ladder(self, rating: Rating) -> str:
        return _ladder(rating.game, rating.mode, rating.rules)

    @admin.display(description="rating", ordering="ordinal")
    def figure(self, rating: Rating) -> str:
        return _figure(rating.mu, rating.sigma)

    @admin.display(description="provisional", boolean=True)
    def provisional(self, rating: Rating) -> bool:
        return rating.sigma > conf.provisional_sigma()

    @admin.action(description="Reset to a newcomer's rating", permissions=["moderate"])
    def reset_ratings(
        self, request: HttpRequest, queryset: QuerySet[Rating]
    ) -> HttpResponse | None:
        """Ask for a reason; then reset each chosen rating through the service."""
        chosen = list(queryset.select_related("user").order_by("pk"))
        form = ResetForm(request.POST if "apply" in request.POST else None)
        if form.is_valid():
            reason = form.cleaned_data["reason"]
            for rating in chosen:
                before = _figure(rating.mu, rating.sigma)
                try:
                    services.rating_reset(
                        rating_id=rating.pk,
                        moderator=request.user,  # type: ignore[arg-type]  # staff: a User
                        reason=reason,
                    )
                except (ValueError, Rating.DoesNotExist) as error:
                    self.message_user(request, f"{rating}: {error}", messages.ERROR)
                    continue
                done = f"Reset to a newcomer's rating (was {before}): {reason}"
                self.log_change(request, rating, done)
                self.message_user(
                    request,
                    f"{_who(rating.user, rating.bot_level)} on "
                    f"{_ladder(rating.game, rating.mode, rating.rules)}: {done}",
                    messages.SUCCESS,
                )
            return None
        context = {
            **self.admin_site.each_context(request),
            "title": "Reset to a newcomer's rating",
            "opts": self.opts,
            "form": form,
            "action": "reset_ratings",
            "checkbox": helpers.ACTION_CHECKBOX_NAME,
            "newcomer": model.shown(model.MU, model.SIGMA),
            "ratings": [
                {
                    "pk": rating.pk,
                    "who": _who(rating.user, rating.bot_level),
                    "ladder": _ladder(rating.game, rating.mode, rating.rules),
                    "figure": _figure(rating.mu, rating.sigma),
                    "games": rating.games,
                }
                for rating in chosen
            ],
        }
        return TemplateResponse(request, _RESET_PAGE, context)


@admin.register(RatingReset)
class RatingResetAdmin(ReadOnlyAdmin):
    """The audit log of resets: who reset whose rating, when, why, and what it was."""

    list_display = ("created_at", "moderator", "whom", "ladder", "before", "reason")
    list_filter = ("rating__game", "rating__mode", "rating__rules")
    search_fields = ("rating__user__username", "moderator__username")
    list_select_related = ("rating__user", "moderator")
    date_hierarchy = "created_at"
    fields = (
        "created_at",
        "moderator",
        "rating",
        "whom",
        "ladder",
        "reason",
        "before",
        "mu_before",
        "sigma_before",
        "after_result",
    )
    readonly_fields = fields

    @admin.display(description="whom", ordering="rating__user__username")
    def whom(self, reset: RatingReset) -> str:
        return _who(reset.rating.user, reset.rating.bot_level)

    @admin.display(description="ladder")
    def ladder(self, reset: RatingReset) -> str:
        return _ladder(reset.rating.game, reset.rating.mode, reset.rating.rules)

    @admin.display(description="rating before")
    def before(self, reset: RatingReset) -> str:
        return _figure(reset.mu_before, reset.sigma_before)


@admin.register(Result)
class ResultAdmin(ReadOnlyAdmin):
    """Each seat's result of each finished game, and what it did to the seat's rating."""

    list_display = (
        "table_number",
        "seat",
        "who",
        "ladder",
        "seats",
        "rank",
        "left",
        "weight",
        "rated",
        "change",
        "finished_at",
    )
    list_filter = ("game", "mode", "rules", "rated", "left")
    search_fields = ("=table__id", "user__username")
    # One table's results, one person's: the links a moderator keeps.
    extra_lookups = ("table__id__exact", "user__id__exact")
    list_select_related = ("user",)
    date_hierarchy = "finished_at"
    fields = (
        "table",
        "seat",
        "user",
        "bot_level",
        "game",
        "mode",
        "rules",
        "seats",
        "rank",
        "left",
        "weight",
        "rated",
        "mu_before",
        "sigma_before",
        "mu_after",
        "sigma_after",
        "change",
        "finished_at",
        "created_at",
    )
    readonly_fields = fields

    @admin.display(description="table", ordering="table_id")
    def table_number(self, result: Result) -> int:
        return result.table_id  # not the row: a table's holds its whole game

    @admin.display(description="who")
    def who(self, result: Result) -> str:
        return _who(result.user, result.bot_level)

    @admin.display(description="ladder")
    def ladder(self, result: Result) -> str:
        return _ladder(result.game, result.mode, result.rules)

    @admin.display(description="change")
    def change(self, result: Result) -> str:
        if None in (result.mu_before, result.sigma_before, result.mu_after, result.sigma_after):
            return "-"
        moved = model.change(
            result.mu_before,  # type: ignore[arg-type]
            result.sigma_before,  # type: ignore[arg-type]
            result.mu_after,  # type: ignore[arg-type]
            result.sigma_after,  # type: ignore[arg-type]
        )
        return f"{moved:+d}"
