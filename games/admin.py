"""The moderators' admin: tables, seats and the move log, read-only.

Nothing here writes to a table directly. A table's fields, its seats and its
log are shown read-only; moderation (abort a table, remove a player, replace
a player by a bot) goes through the same ``games.services``
functions as everything else, so each leaves a move with source ``admin`` in
the table's log, and Django's admin log records who did it.

The raw ``Table.state`` and ``Move.payload`` are never shown: they hold the
secret seed, hidden hands, the draw pile's order and shuffle orders. The
admin shows what a watcher may see (the game's watcher view and
the events as a watcher sees them (``games.rulesets``)) instead, and their changelists take no
lookup on them either (``admin_lookups.FilterLookupsOnly``): only those of
their own filters.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from django import forms
from django.contrib import admin, messages
from django.core.exceptions import PermissionDenied
from django.db.models import QuerySet
from django.http import HttpRequest, HttpResponse, HttpResponseRedirect
from django.shortcuts import get_object_or_404
from django.template.response import TemplateResponse
from django.urls import URLPattern, path, reverse
from django.utils.html import format_html, format_html_join
from django.utils.http import urlencode

from tabletop.ruleset import RuleError

from . import away, rulesets, selectors, services
from .admin_lookups import FilterLookupsOnly
from .errors import ServiceError
from .models import Away, BotAccount, Move, Seat, Table

# Everything a moderation call can refuse with; shown as an admin error message.
MODERATION_ERRORS = (ServiceError, RuleError, ValueError, Seat.DoesNotExist)


def _error_text(error: Exception) -> str:
    if isinstance(error, ServiceError | RuleError):
        return f"{error.message} ({error.code})"
    if isinstance(error, Seat.DoesNotExist):
        return "No such seat at this table."
    return str(error)


def _public_events(move: Move, game: str | None = None) -> str:
    """The move's events as a watcher sees them: never hidden cards or shuffle orders.

    ``game``: the table's, when the caller knows it (no query for the move's table).
    """
    rules = rulesets.ruleset(game or move.table.game)
    events = rules.events_view(move.payload.get("events", []), None)
    if not events:
        return "-"
    return format_html_join("", "<div>{}</div>", ((_event_text(event),) for event in events))


def _event_text(event: Mapping[str, object]) -> str:
    details = ", ".join(f"{key}: {value}" for key, value in event.items() if key != "type")
    return f"{event['type']} ({details})" if details else str(event["type"])


def _watcher_view(table: Table) -> dict[str, Any] | None:
    return selectors.table_view(table, None)


def _game_name(table: Table) -> str:
    """The table's game for people (its id if the service no longer hosts it)."""
    try:
        return rulesets.ruleset(table.game).name
    except rulesets.UnknownGame:
        return table.game


# ----------------------------------------------------------------------------
# Inlines: read-only


class ReadOnlyInline(admin.TabularInline[Any, Any]):
    extra = 0
    can_delete = False
    show_change_link = False

    def has_add_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False

    def has_change_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False

    def has_delete_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False


class SeatInline(ReadOnlyInline):
    model = Seat
    fields = (
        "number",
        "user",
        "bot_level",
        "previous_user",
        "in_game",
        "strikes",
        "held_until",
        "away",
        "autopilot",
        "autopilot_until",
        "joined_at",
        "left_at",
    )
    readonly_fields = fields
    ordering = ("number",)

    # Django makes the inlines anew for each request: the table's watcher view is
    # read once per page here, not once per seat row.
    _players: list[dict[str, Any]] | None = None

    def get_formset(self, request: HttpRequest, obj: Any = None, **kwargs: Any) -> Any:
        view = None if obj is None else _watcher_view(obj)
        self._players = None if view is None else view["players"]
        return super().get_formset(request, obj, **kwargs)

    @admin.display(description="in the game")
    def in_game(self, seat: Seat) -> str:
        if self._players is None:
            return "-"
        return "yes" if self._players[seat.number]["in_game"] else "no"


class MoveInline(ReadOnlyInline):
    model = Move
    fields = ("seq", "round", "seat", "action", "source", "created_at", "events")
    readonly_fields = fields
    ordering = ("seq",)

    # Django makes the inlines anew for each request: the table's game, read once.
    _game: str | None = None

    def get_formset(self, request: HttpRequest, obj: Any = None, **kwargs: Any) -> Any:
        self._game = None if obj is None else obj.game
        return super().get_formset(request, obj, **kwargs)

    @admin.display(description="events (as a watcher sees them)")
    def events(self, move: Move) -> str:
        return _public_events(move, self._game)


# ----------------------------------------------------------------------------
# Moderation forms


def _seat_choices(table: Table) -> list[tuple[int, str]]:
    """Seats still taking part in the game, for the moderation forms."""
    view = _watcher_view(table)
    if view is None:
        return []
    choices = []
    for seat in table.seats.select_related("user").order_by("number"):
        player = view["players"][seat.number]
        if not player["in_game"]:
            continue
        who = f"bot ({seat.bot_level})" if seat.is_bot else str(seat.user)
        choices.append((seat.number, f"Seat {seat.number}: {who}, {player['count']} cards"))
    return choices


class SeatForm(forms.Form):
    seat = forms.TypedChoiceField(coerce=int, label="Seat")

    def __init__(self, *args: Any, table: Table, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.fields["seat"].choices = _seat_choices(table)  # type: ignore[attr-defined]


class ReplaceWithBotForm(SeatForm):
    level = forms.ChoiceField(choices=Seat.BotLevel.choices, initial=Seat.BotLevel.NORMAL)


class ConfirmForm(forms.Form):
    """No fields: the page asks for a confirming POST."""


# ----------------------------------------------------------------------------
# Tables


@admin.register(Table)
class TableAdmin(FilterLookupsOnly[Table]):
    """Tables are created by players; here they are looked at and moderated.

    The change page is view-only: nothing a moderator does edits a row in
    place. The moderation pages (abort, remove a player, replace a player by
    a bot) need the ``games.change_table`` permission.
    """

    list_display = (
        "id",
        "status",
        "host",
        "seat_count",
        "seq",
        "turn",
        "deadline_at",
        "bot_errors",
        "created_at",
    )
    list_filter = (
        "status",
        "game",
        "move_seconds",
        "timeout_policy",
        "turn_hours",
        "allow_watchers",
    )
    search_fields = ("=id", "host__username", "seats__user__username")
    list_select_related = ("host",)
    date_hierarchy = "created_at"
    actions = ["abort_tables"]
    inlines = [SeatInline, MoveInline]
    change_form_template = "admin/games/table/change_form.html"

    # Never ``state``: it holds the seed and every hidden card.
    _table_fields = (
        "id",
        "status",
        "host",
        "seat_count",
        "game",
        "game_version",
        "options",
        "turn_hours",
        "timeout_policy",
        "move_seconds",
        "allow_watchers",
    )
    _game_fields = (
        "game_summary",
        "seq",
        "turn",
        "bot_errors",
        "presence_version",
        "turn_started_at",
        "deadline_at",
        "remind_at",
        "started_at",
        "finished_at",
        "created_at",
        "updated_at",
    )
    fieldsets = (("Table", {"fields": _table_fields}), ("Game", {"fields": _game_fields}))
    # Every field shown is read-only.
    readonly_fields = _table_fields + _game_fields

    # --- permissions: view-only rows, moderation through services ----------

    def has_add_permission(self, request: HttpRequest) -> bool:
        return False  # players open tables through the API

    def has_change_permission(self, request: HttpRequest, obj: Table | None = None) -> bool:
        return False  # no field is edited in place; moderation has its own pages

    def has_delete_permission(self, request: HttpRequest, obj: Table | None = None) -> bool:
        return False  # the log is kept for good: abort a table instead

    def has_moderate_permission(self, request: HttpRequest) -> bool:
        return request.user.has_perm("games.change_table")

    # --- the game, as a watcher sees it ------------------------------------

    @admin.display(description="game")
    def game_summary(self, table: Table) -> str:
        view = _watcher_view(table)
        if view is None:
            return "Not started."
        to_act = "-" if view["to_act"] is None else f"seat {view['to_act']}"
        hands = ", ".join(
            f"seat {p['seat']}: {p['count']}" + ("" if p["in_game"] else " (left)")
            for p in view["players"]
        )
        # Only the public facts every game's watcher view has; a game's own ones (Flip's
        # side) where its view has them.
        side = f" · {view['side']} side" if view.get("side") else ""
        return format_html(
            "{} · Round {}{} · to act: {} · colour: {} · "
            "top: {}<br>Hand counts: {}<br>Draw pile: {} cards · scores: {}{}",
            _game_name(table),
            view["round"],
            side,
            to_act,
            view["color"] or "-",
            view["top"] or "-",
            hands,
            view["draw_pile"]["count"],
            ", ".join(str(s) for s in view["scores"]),
            " · game over" if view["over"] else "",
        )

    # --- moderation pages --------------------------------------------------

    def get_urls(self) -> list[URLPattern]:
        def wrap(view: Callable[..., HttpResponse]) -> Callable[..., HttpResponse]:
            return self.admin_site.admin_view(view)

        info = self.opts.app_label, self.opts.model_name
        moderation = [
            path(
                "<int:object_id>/abort/",
                wrap(self.abort_view),
                name="{}_{}_abort".format(*info),
            ),
            path(
                "<int:object_id>/remove-player/",
                wrap(self.remove_player_view),
                name="{}_{}_remove_player".format(*info),
            ),
            path(
                "<int:object_id>/replace-with-bot/",
                wrap(self.replace_with_bot_view),
                name="{}_{}_replace_with_bot".format(*info),
            ),
        ]
        return moderation + super().get_urls()

    def render_change_form(
        self,
        request: HttpRequest,
        context: dict[str, Any],
        add: bool = False,
        change: bool = False,
        form_url: str = "",
        obj: Table | None = None,
    ) -> HttpResponse:
        context["can_moderate"] = (
            obj is not None
            and obj.status == Table.Status.ACTIVE
            and self.has_moderate_permission(request)
        )
        return super().render_change_form(request, context, add, change, form_url, obj)

    def _change_url(self, table: Table) -> str:
        return reverse(
            "admin:games_table_change", args=[table.pk], current_app=self.admin_site.name
        )

    def _moderation_page(
        self,
        request: HttpRequest,
        object_id: int,
        *,
        title: str,
        form_class: type[forms.Form],
        run: Callable[[Table, dict[str, Any]], str],
        submit: str,
    ) -> HttpResponse:
        """GET shows ``form_class``; a valid POST calls ``run`` (a service) and logs it."""
        if not self.has_moderate_permission(request):
            raise PermissionDenied
        table = get_object_or_404(Table, pk=object_id)
        kwargs: dict[str, Any] = {}
        if form_class is not ConfirmForm:
            kwargs["table"] = table
        form = form_class(request.POST if request.method == "POST" else None, **kwargs)
        if request.method == "POST" and form.is_valid():
            try:
                done = run(table, form.cleaned_data)
            except MODERATION_ERRORS as error:
                self.message_user(request, _error_text(error), messages.ERROR)
            else:
                table.refresh_from_db()
                self.log_change(request, table, done)
                self.message_user(request, f"Table {table.pk}: {done}", messages.SUCCESS)
            return HttpResponseRedirect(self._change_url(table))
        context = {
            **self.admin_site.each_context(request),
            "title": title,
            "subtitle": str(table),
            "opts": self.opts,
            "original": table,
            "form": form,
            "submit": submit,
            "summary": self.game_summary(table),
            "change_url": self._change_url(table),
            "has_view_permission": self.has_view_permission(request, table),
        }
        return TemplateResponse(request, "admin/games/table/moderate.html", context)

    def abort_view(self, request: HttpRequest, object_id: int) -> HttpResponse:
        def run(table: Table, _data: dict[str, Any]) -> str:
            services.table_abort(table_id=table.pk)
            return "Aborted the table."

        return self._moderation_page(
            request,
            object_id,
            title="Abort this table",
            form_class=ConfirmForm,
            run=run,
            submit="Yes, abort the table",
        )

    def remove_player_view(self, request: HttpRequest, object_id: int) -> HttpResponse:
        def run(table: Table, data: dict[str, Any]) -> str:
            services.seat_remove(table_id=table.pk, number=data["seat"])
            return f"Removed the player in seat {data['seat']} (as if they left)."

        return self._moderation_page(
            request,
            object_id,
            title="Remove a player",
            form_class=SeatForm,
            run=run,
            submit="Remove the player",
        )

    def replace_with_bot_view(self, request: HttpRequest, object_id: int) -> HttpResponse:
        def run(table: Table, data: dict[str, Any]) -> str:
            seat = table.seats.select_related("user").get(number=data["seat"])
            was = f"bot ({seat.bot_level})" if seat.is_bot else str(seat.user)
            services.seat_replace_with_bot(
                table_id=table.pk, number=data["seat"], level=data["level"]
            )
            return f"Replaced {was} in seat {data['seat']} by a {data['level']} bot."

        return self._moderation_page(
            request,
            object_id,
            title="Replace a player by a bot",
            form_class=ReplaceWithBotForm,
            run=run,
            submit="Replace by a bot",
        )

    # --- changelist action -------------------------------------------------

    @admin.action(description="Abort selected tables", permissions=["moderate"])
    def abort_tables(self, request: HttpRequest, queryset: QuerySet[Table]) -> None:
        aborted = 0
        for table in queryset.order_by("pk"):
            try:
                services.table_abort(table_id=table.pk)
            except MODERATION_ERRORS as error:
                self.message_user(
                    request, f"Table {table.pk}: {_error_text(error)}", messages.ERROR
                )
                continue
            table.refresh_from_db()
            self.log_change(request, table, "Aborted the table.")
            aborted += 1
        if aborted:
            self.message_user(request, f"Aborted {aborted} table(s).", messages.SUCCESS)


# ----------------------------------------------------------------------------
# The move log: view-only


@admin.register(Move)
class MoveAdmin(FilterLookupsOnly[Move]):
    """The append-only log, view-only. ``payload`` is never shown (hidden cards, shuffles)."""

    # One table's log, the link a moderator keeps; never a lookup on ``payload``.
    extra_lookups = ("table__id__exact",)

    list_display = ("table", "seq", "round", "seat", "action", "source", "created_at")
    list_filter = ("source", "action")
    search_fields = ("=table__id",)
    list_select_related = ("table",)
    fields = ("table", "seq", "round", "seat", "action", "source", "created_at", "events")
    readonly_fields = fields

    def has_add_permission(self, request: HttpRequest) -> bool:
        return False

    def has_change_permission(self, request: HttpRequest, obj: Move | None = None) -> bool:
        return False

    def has_delete_permission(self, request: HttpRequest, obj: Move | None = None) -> bool:
        return False

    @admin.display(description="events (as a watcher sees them)")
    def events(self, move: Move) -> str:
        return _public_events(move)


# ----------------------------------------------------------------------------
# Times away (ruling 20): a moderator sees them and can end one (``games.away``)


@admin.register(Away)
class AwayAdmin(FilterLookupsOnly[Away]):
    """Who is away, planned or was: read-only but for ending one, through the service."""

    list_display = ("user", "starts_at", "ends_at", "level", "began_at", "ended_at", "end_reason")
    list_filter = ("end_reason", "level")
    search_fields = ("user__username",)
    list_select_related = ("user",)
    fields = list_display + ("created_at",)
    readonly_fields = fields
    actions = ("end_now",)

    def has_add_permission(self, request: HttpRequest) -> bool:
        return False

    def has_delete_permission(self, request: HttpRequest, obj: Away | None = None) -> bool:
        return False

    @admin.action(description="End these times away now (the players' seats are theirs again)")
    def end_now(self, request: HttpRequest, queryset: Any) -> None:
        ended = 0
        for one in queryset.filter(ended_at__isnull=True).select_related("user"):
            away.away_end(user=one.user, reason=Away.EndReason.MODERATOR)
            ended += 1
        self.message_user(request, f"{ended} time(s) away ended.")


# ----------------------------------------------------------------------------
# Bot accounts (issue 40): who runs each; disabling goes through accounts' page


@admin.register(BotAccount)
class BotAccountAdmin(FilterLookupsOnly[BotAccount]):
    """Bot accounts with their owners. Read-only: the two actions send the selection to
    the users' "disable" page (``accounts.admin``), which asks a reason and calls
    accounts' services (games does not import accounts)."""

    list_display = ("user", "owner", "created_at", "disabled_at", "description")
    list_filter = (("disabled_at", admin.EmptyFieldListFilter),)
    search_fields = ("user__username", "owner__username")
    list_select_related = ("user", "owner")
    fields = ("user", "owner", "description", "created_at", "disabled_at")
    readonly_fields = fields
    actions = ("disable_bots", "disable_bots_and_owners")

    def has_add_permission(self, request: HttpRequest) -> bool:
        return False

    def has_delete_permission(self, request: HttpRequest, obj: BotAccount | None = None) -> bool:
        return False  # never deleted: its games keep its name

    def _disable_page(self, queryset: Any, *, owners: bool) -> HttpResponseRedirect:
        ids = ",".join(str(pk) for pk in queryset.order_by("pk").values_list("pk", flat=True))
        query = urlencode({"ids": ids, "owners": "1" if owners else "0"})
        return HttpResponseRedirect(f"{reverse('admin:auth_user_bots_disable')}?{query}")

    @admin.action(description="Disable the bot (asks for a reason)", permissions=["view"])
    def disable_bots(self, request: HttpRequest, queryset: Any) -> HttpResponseRedirect:
        return self._disable_page(queryset, owners=False)

    @admin.action(
        description="Disable the bot and its owner (asks for a reason)", permissions=["view"]
    )
    def disable_bots_and_owners(self, request: HttpRequest, queryset: Any) -> HttpResponseRedirect:
        return self._disable_page(queryset, owners=True)
