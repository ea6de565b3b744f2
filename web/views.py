"""The pages and fragments of the web client.

Every write calls the same ``games.services`` function the API calls, and
then, as the API does, plays the bots' turns once the move has committed
(``games.followups.run_bots_after_commit``). Every game fact a page shows
comes from ``games.selectors``: the seat's view or the watcher view, the log
as that seat may see it, or the record once the game is over.

A form posts and is answered with a redirect (the page works without
JavaScript). The table page's script sends the same forms with the header
``X-Gamenook-Live: 1`` and gets JSON back instead: the new live fragment and,
when the move was refused, the rule's sentence. Nothing reloads.
"""

from __future__ import annotations

import functools
import zoneinfo
from collections.abc import Callable
from typing import Any

from django.contrib import messages
from django.contrib.auth import login, update_session_auth_hash
from django.contrib.auth.decorators import login_required
from django.contrib.auth.models import User
from django.core.exceptions import PermissionDenied
from django.http import HttpRequest, HttpResponse, HttpResponseRedirect, JsonResponse
from django.shortcuts import redirect, render
from django.template.loader import render_to_string
from django.urls import reverse
from django.utils import timezone
from django.utils.http import parse_etags
from django.views.decorators.http import require_GET, require_http_methods, require_POST

from accounts import selectors as account_selectors
from accounts import services as accounts
from games import selectors, services
from games.errors import NotFound, ServiceError, StaleSequence
from games.followups import run_bots_after_commit
from notifications import services as notifications
from ratings import conf as ratings_conf
from ratings import selectors as ratings

from . import away_page, bot_marks, bots_page, present, pwa
from .forms import (
    ActionForm,
    BotForm,
    EmailForm,
    PasswordChangeForm,
    PasswordForgotForm,
    PreferencesForm,
    SignUpForm,
    TableForm,
)

LIVE_HEADER = "X-Gamenook-Live"
#: Timed-out turns after which a bot takes a real-time seat for good (tabletop.realtime).
STRIKES_FOR_BOT: int = selectors.table_choices()["strikes_for_bot"]


def _user(request: HttpRequest) -> User:
    """The logged-in user of a view behind ``login_required``."""
    user = request.user
    if not isinstance(user, User):
        raise PermissionDenied("log in first")
    return user


def _is_live(request: HttpRequest) -> bool:
    return request.headers.get(LIVE_HEADER) == "1"


# ----------------------------------------------------------------------------
# Home, accounts


def home(request: HttpRequest) -> HttpResponse:
    """``/``: the lobby when logged in, the log-in page otherwise."""
    if not request.user.is_authenticated:
        return redirect("web:login")
    return lobby(request)


@require_http_methods(["GET", "POST"])
def signup(request: HttpRequest) -> HttpResponse:
    if request.user.is_authenticated:
        return redirect("web:home")
    form = SignUpForm(request.POST or None)
    # A refused form answers 400 (429 when a mail limit held it), as the account page does.
    status = 400 if request.method == "POST" else 200
    if request.method == "POST" and form.is_valid():
        data = form.cleaned_data
        try:
            user = accounts.user_register(
                username=data["username"], email=data["email"], password=data["password"]
            )
        except ServiceError as exc:
            _form_errors(form, exc)
            status = exc.status if isinstance(exc, accounts.MailHeld) else 400
        else:
            login(request, user, backend="django.contrib.auth.backends.ModelBackend")
            # The same words whether or not another account has the address: its mail says.
            messages.success(
                request,
                f"Welcome, {user.username}. Open a table or join one. We sent a message to "
                f"{data['email']}: until the address is confirmed through it, no game e-mail "
                "goes there.",
            )
            return redirect("web:home")
    return render(request, "web/signup.html", {"form": form}, status=status)


def _form_errors(form: Any, error: ServiceError) -> None:
    """Put a service's refusal on the form: each field's messages, or the sentence."""
    for field, errors in error.fields.items():
        for message in errors:
            form.add_error(field if field in form.fields else None, message)
    if not error.fields:
        form.add_error(None, error.message)


@require_http_methods(["GET", "POST"])
def password_forgot(request: HttpRequest) -> HttpResponse:
    """Ask for a password reset link; the answer is the same whether the address has an account."""
    form = PasswordForgotForm(request.POST or None)
    if request.method == "POST" and form.is_valid():
        accounts.password_reset_request(email=form.cleaned_data["email"])
        messages.success(
            request,
            "If an account uses that address, a link to choose a new password is on its way.",
        )
        return redirect("web:login")
    return render(request, "web/password_forgot.html", {"form": form})


# Each form of the account page: (request, user, the page's forms) -> the success
# message, or None when the form was refused (its errors are on the form).
_AccountForm = Callable[[HttpRequest, User, dict[str, Any]], str | None]


def _save_email(request: HttpRequest, user: User, forms: dict[str, Any]) -> str | None:
    form = forms["email_form"] = EmailForm(request.POST)
    if not form.is_valid():
        return None
    email = form.cleaned_data["email"]
    try:
        accounts.user_update(
            user=user, email=email, current_password=form.cleaned_data["current_password"]
        )
    except ServiceError as error:
        _form_errors(form, error)
        return None
    if account_selectors.pending_email_of(user=user) is None:
        return "Your e-mail address is saved."
    # The same words whether or not another account has the address: its mail says.
    return (
        f"We sent a message to {email}. It becomes your address once confirmed through it; "
        f"until then your account's address stays as it was."
    )


def _send_verification(request: HttpRequest, user: User, forms: dict[str, Any]) -> str | None:  # noqa: ARG001
    try:
        address = accounts.email_verification_send(user=user)
    except ServiceError as error:  # held back by the limits on confirmation mail, or none due
        return error.message
    return f"A new message is on its way to {address}: it says how to confirm the address."


def _change_password(request: HttpRequest, user: User, forms: dict[str, Any]) -> str | None:
    form = forms["password_form"] = PasswordChangeForm(request.POST)
    if not form.is_valid():
        return None
    try:
        accounts.password_change(
            user=user,
            current_password=form.cleaned_data["current_password"],
            new_password=form.cleaned_data["new_password"],
        )
    except ServiceError as error:
        _form_errors(form, error)
        return None
    update_session_auth_hash(request, user)  # this browser stays logged in
    return "Your password is changed; your API tokens were revoked."


def _save_preferences(request: HttpRequest, user: User, forms: dict[str, Any]) -> str | None:
    form = forms["prefs_form"] = PreferencesForm(request.POST)
    if not form.is_valid():
        return None
    accounts.user_update(user=user, notifications_changes=form.changes())
    return "Your preferences are saved."


@functools.cache
def _time_zones() -> list[str]:
    """The IANA time zones this machine knows, for the digest's zone (a datalist)."""
    return sorted(zoneinfo.available_timezones())


def _unsubscribe(request: HttpRequest, user: User, forms: dict[str, Any]) -> str | None:  # noqa: ARG001
    notifications.user_unsubscribe(user)
    return "You will get no more e-mail from Gamenook."


def _resubscribe(request: HttpRequest, user: User, forms: dict[str, Any]) -> str | None:  # noqa: ARG001
    notifications.preferences_update(user, unsubscribed_all=False)
    return "E-mail is on again, as your preferences say."


_ACCOUNT_FORMS: dict[str, _AccountForm] = {
    "email": _save_email,
    "verify": _send_verification,
    "password": _change_password,
    "preferences": _save_preferences,
    "unsubscribe": _unsubscribe,
    "resubscribe": _resubscribe,
    "push_remove": pwa.push_remove,
    "away": away_page.save_away,
    "back": away_page.end_away,
    "play": away_page.save_play,
    **bots_page.ACCOUNT_FORMS,
}


@login_required
@require_http_methods(["GET", "POST"])
def account(request: HttpRequest) -> HttpResponse:
    user = _user(request)
    zone = notifications.preferences_get(user)["time_zone"]  # the away section's times
    forms: dict[str, Any] = {
        "email_form": EmailForm(),
        "password_form": PasswordChangeForm(),
        "prefs_form": PreferencesForm(initial=notifications.preferences_get(user)),
        **away_page.initial_forms(user, zone),
        **bots_page.initial_forms(),  # issue 40: the "Bots" section
    }
    if request.method == "POST":
        handle = _ACCOUNT_FORMS.get(request.POST.get("form", ""))
        done = None if handle is None else handle(request, user, forms)
        if done is not None:
            messages.success(request, done)
            return redirect("web:account")
    response = render(
        request,
        "web/account.html",
        {
            **forms,
            "prefs": notifications.preferences_get(user),
            "time_zones": _time_zones(),
            "verified": notifications.email_is_verified(user),
            "pending_email": account_selectors.pending_email_of(user=user),
            "push": pwa.push_context(user),
            "away": away_page.status_context(user, zone),
            "bots": bots_page.context(user),
        },
        status=400 if request.method == "POST" and bots_page.NEW_KEY not in forms else 200,
    )
    if bots_page.NEW_KEY in forms:  # a bot's token, shown once: kept by no cache
        response["Cache-Control"] = "no-store"
    return response


# ----------------------------------------------------------------------------
# The lobby


def lobby(request: HttpRequest, form: TableForm | None = None) -> HttpResponse:
    """The lobby; with ``form``, the new-table form refused, its errors shown (400)."""
    user = _user(request)
    lists = selectors.lobby_for(user)
    # Issue 40: every name a row shows, BOT marked, from one query for the whole page.
    bots = bot_marks.owners(
        user_id
        for tables in lists.values()
        for t in tables
        for user_id in (t.host_id, *(s.user_id for s in t.seats.all()))
    )
    return render(
        request,
        "web/lobby.html",
        {
            "lists": {
                name: [_table_row(t, user, bots) for t in tables] for name, tables in lists.items()
            },
            "invitations": bot_marks.lobby_invitations(user),
            "form": form or TableForm(),
            "rules": {
                "strikes_for_bot": STRIKES_FOR_BOT,
                "hold": present.duration(selectors.table_choices()["seat_hold_seconds"]),
            },
        },
        status=200 if form is None else 400,
    )


def _table_row(table: Any, user: User, bots: dict[int, str] | None = None) -> dict[str, Any]:
    seats = sorted(table.seats.all(), key=lambda s: s.number)
    named = selectors.seat_names(seats)
    names = [named[s.number] for s in seats]
    bots = bots or {}
    to_act = next((n for s, n in zip(seats, names, strict=True) if s.number == table.to_act), None)
    # Ruling 20: a seat on autopilot says so, and until when, to everyone who sees the row.
    autopilots = [
        {"name": "You" if seat.user_id == user.pk else name, **words}
        for seat, name in zip(seats, names, strict=True)
        if (
            words := present.autopilot(
                selectors.seat_presence(seat, None), you=seat.user_id == user.pk
            )
        )
    ]
    return {
        "id": table.pk,
        "status": table.status,
        "to_act": to_act,
        "host": table.host.username,
        "seat_count": table.seat_count,
        "taken": len(seats),
        "names": names,
        # Issue 40: the names again, each with its BOT mark (the owner's name, or None).
        "players": [
            {"name": name, "bot_owner": bots.get(seat.user_id or 0)}
            for seat, name in zip(seats, names, strict=True)
        ],
        "host_bot_owner": bots.get(table.host_id),
        "turn_hours": table.turn_hours,
        "move_seconds": table.move_seconds,
        **present.game_options(table.game, table.options),
        "deadline_at": table.deadline_at,
        "finished_at": table.finished_at,
        "allow_watchers": table.allow_watchers,
        "autopilots": autopilots,
        # Issue 39: an unrated table, and the reliability a player needs to join, said.
        "rated": table.rated,
        "min_reliability": table.min_reliability,
    }


@login_required
@require_POST
def table_create(request: HttpRequest) -> HttpResponse:
    form = TableForm(request.POST)
    if not form.is_valid():
        return lobby(request, form)
    try:
        table = services.table_create(host=_user(request), **form.service_kwargs())
    except ValueError as exc:  # the service's word on options the form let through
        form.add_service_error(exc)
        return lobby(request, form)
    except ServiceError as exc:  # a cap on tables (games.limits): the lobby says which
        form.add_error(None, exc.message)
        response = lobby(request, form)
        response.status_code = exc.status
        return response
    return redirect("web:table", table_id=table.pk)


# ----------------------------------------------------------------------------
# The table


Version = tuple[str, str, int | None, bool]


def _etag(table_id: int, version: Version) -> str:
    seq, status, seat, _ = version
    tag = f"{seq}.{status}.{'w' if seat is None else seat}"
    if seq == "0":
        tag += "." + selectors.table_lobby_digest(table_id)
    if status == "finished" and ratings.table_rated(table_id):
        # The game's ratings came after its last move (the game-over follow-up): the
        # page that said "Ratings are being updated" fetches them with its next poll.
        tag += ".rated"
    return f'"{tag}"'


def _live_context(request: HttpRequest, table: Any) -> dict[str, Any]:
    """Everything the live part of a table page shows, for this user."""
    user = _user(request)
    viewer = selectors.web_viewer_seat(table, user)
    seats = selectors.table_seats(table)
    bot_marks.mark_seats(seats, bot_marks.owners(s["user_id"] for s in seats))
    mine = next((s for s in seats if s["user_id"] == user.pk), None)
    now = timezone.now()
    # Issue 39: each person's reliability beside their name, one query for the table.
    records = selectors.reliability([s["user_id"] for s in seats if s["user_id"]])
    reliability = present.seat_reliability(seats, records)
    context: dict[str, Any] = {
        "table": table,
        "seats": seats,
        "mine": mine,
        "is_host": table.host_id == user.pk,
        "seq": table.seq,
        "deadline_at": table.deadline_at,
        "game": None,
        "realtime": table.realtime,
        # The server's clock when the part was rendered: the page's move timer counts
        # against it, whatever the browser's clock says.
        "now_ms": int(now.timestamp() * 1000),
        "timer": None,
    }
    if table.status == "lobby":
        context["open_seats"] = table.seat_count - len(seats)
        context["strikes_for_bot"] = STRIKES_FOR_BOT  # tabletop.realtime's, never a template's
        context["bot_form"] = BotForm()
        context["names"] = [
            {
                **s,
                "name": present.seat_name(s, s["number"]),
                "reliability": reliability.get(s["number"]),
                "has_record": s["number"] in reliability,
            }
            for s in seats
        ]
        if context["is_host"]:  # issue 40: whom the host invited, waiting for an answer
            context["invitations"] = bot_marks.table_invitations(table.pk)
        context.update(present.game_options(table.game, table.options))
        return context
    view = selectors.table_view(table, viewer)
    if view is not None:
        whole_round = _whole_round(request, table.pk)
        if whole_round:
            log = selectors.table_log(table, viewer, round_of=view["round"])
        else:
            log = selectors.table_log(table, viewer, after=max(0, table.seq - present.RECENT_MOVES))
        context["game"] = present.game(
            view,
            seats,
            log,
            strikes_for_bot=STRIKES_FOR_BOT if table.realtime else None,
            whole_round=whole_round,
            game_id=table.game,
        )
        context["game"].update(present.game_options(table.game, table.options))
        for player in context["game"]["players"]:
            player["reliability"] = reliability.get(player["number"])
        bot_marks.mark_by_seat(context["game"]["players"], "number", seats)
        context["rated"] = table.rated
        if context["game"]["over"]:
            # Each seat's new rating and the game's change, once the game-over follow-up
            # has rated it; until then the page says the ratings are being updated.
            changes = ratings.table_changes(table.pk) if table.rated else {}
            context["game"]["ranking"] = present.with_rating_changes(
                context["game"]["ranking"], changes
            )
            bot_marks.mark_by_seat(context["game"]["ranking"], "seat", seats)
            context["ratings_pending"] = (
                table.rated
                and not changes
                and table.finished_at is not None
                and now - table.finished_at < ratings_conf.RATE_WINDOW
            )
        if table.move_seconds is not None and not context["game"]["over"]:
            context["timer"] = present.move_timer(table.deadline_at, table.move_seconds, now)
        if not context["game"]["my_turn"]:
            # Issue 38, "next game": where this player's turn waits, the least time left first.
            context["next_turn"] = selectors.next_turn_for(user, exclude_table_id=table.pk)
    context["left"] = bool(mine and mine["left"])
    return context


#: The session's list of the tables whose page lists every move of the round.
WHOLE_ROUND_KEY = "gamenook.whole_round"
#: How many tables the session remembers that for (the newest asked).
WHOLE_ROUND_TABLES = 20


def _whole_round(request: HttpRequest, table_id: int) -> bool:
    """Whether this user's page of the table lists the whole round, not its newest moves.

    ``?moves=round`` on the table page asks for it and ``?moves=newest`` for
    the newest again; the session remembers the answer, so that every update
    of the page (polled, pushed, or the answer to a move) keeps it, and only a
    page that asked pays for the whole round.
    """
    tables = [t for t in request.session.get(WHOLE_ROUND_KEY, []) if isinstance(t, int)]
    asked = request.GET.get("moves")
    if asked == "round" and table_id not in tables:
        request.session[WHOLE_ROUND_KEY] = [*tables, table_id][-WHOLE_ROUND_TABLES:]
        return True
    if asked == "newest" and table_id in tables:
        request.session[WHOLE_ROUND_KEY] = [t for t in tables if t != table_id]
        return False
    return asked == "round" or (asked != "newest" and table_id in tables)


def _render_live(request: HttpRequest, table: Any) -> str:
    return render_to_string("web/_live.html", _live_context(request, table), request=request)


def _forbidden(request: HttpRequest, exc: ServiceError) -> HttpResponse:
    return render(request, "web/error.html", {"message": exc.message}, status=exc.status)


@login_required
@require_GET
def table_page(request: HttpRequest, table_id: int) -> HttpResponse:
    # The version is read before the table: were a move to commit in between, the
    # page would be newer than its ETag and the next poll would simply fetch it again.
    version = selectors.table_version(table_id, request.user)
    try:
        table = selectors.table_get(table_id)
        context = _live_context(request, table)
    except ServiceError as exc:
        return _forbidden(request, exc)
    context["etag"] = "" if version is None else _etag(table_id, version)
    # Every table is pushed to over its WebSocket (live/, docs/api.md "WebSockets"), and
    # the page polls only while that cannot connect (live.js). At a real-time table the
    # socket also tells the table that this player is here (ruling 18); at any table an
    # open socket means "has the table open" (ruling 19, notifications.away).
    context["socket_url"] = f"/ws/tables/{table.pk}/"
    response = render(request, "web/table.html", context)
    response["Cache-Control"] = "private, no-cache"
    return response


@login_required
@require_GET
def table_live(request: HttpRequest, table_id: int) -> HttpResponse:
    """The live part of the table page, or 304 while nothing changed (ETag, If-None-Match).

    The ETag is the table's seq (with its count of presence changes at a
    real-time table), status and the viewer's seat: one query
    decides a 304, so a page polling every second costs next to nothing.
    """
    version = selectors.table_version(table_id, request.user)
    if version is None:
        return HttpResponse(status=404)
    if version[2] is not None and request.user.is_authenticated:  # ruling 19: not away
        notifications.table_seen(user_id=request.user.pk, table_id=table_id)
    etag = _etag(table_id, version)
    wanted = {
        tag.removeprefix("W/") for tag in parse_etags(request.headers.get("If-None-Match", ""))
    }
    # A user without a seat at a table closed to watchers gets no 304 either: the
    # full path below decides whether they may look (a moderator may).
    may_look = version[2] is not None or version[3]
    if etag in wanted and may_look:
        response = HttpResponse(status=304)
    else:
        try:
            html = _render_live(request, selectors.table_get(table_id))
        except ServiceError as exc:
            return HttpResponse(exc.message, status=exc.status, content_type="text/plain")
        response = HttpResponse(html)
    response["ETag"] = etag
    response["Cache-Control"] = "private, no-cache"
    response["Vary"] = "Cookie"
    return response


def _answer(
    request: HttpRequest,
    table_id: int,
    error: Exception | None = None,
    status: int = 200,
) -> HttpResponse:
    """After a write: JSON with the fresh live fragment for the script, or a redirect."""
    detail = code = None
    if isinstance(error, ServiceError):
        code, detail, status = error.code, error.message, error.status
    elif isinstance(error, selectors.RuleError):
        code, detail, status = error.code, error.message, 422
    if isinstance(error, StaleSequence):
        detail = "The table had moved on, so nothing was played. Here it is as it is now."
    if _is_live(request):
        body: dict[str, Any] = {"ok": error is None, "error": None, "html": None, "etag": None}
        if error is not None:
            body["error"] = {"code": code, "detail": detail}
        try:
            version = selectors.table_version(table_id, request.user)  # before the table
            body["html"] = _render_live(request, selectors.table_get(table_id))
            body["etag"] = None if version is None else _etag(table_id, version)
        except ServiceError:
            pass
        return JsonResponse(body, status=status)
    if detail:
        messages.error(request, detail)
    if isinstance(error, NotFound):
        return redirect("web:home")
    return HttpResponseRedirect(reverse("web:table", args=[table_id]))


def _after_move(table_id: int) -> None:
    """Play the bots' turns the move handed over, as the API does after its commit."""
    table = selectors.table_get(table_id)
    seat = selectors.seat_to_act(table)
    if seat is not None and (seat.bot_plays or seat.forced_moves):
        run_bots_after_commit(table_id)


@login_required
@require_POST
def table_act(request: HttpRequest, table_id: int) -> HttpResponse:
    """Play, draw, choose a colour or pass: ``games.services.table_apply_action``."""
    form = ActionForm(request.POST)
    if not form.is_valid():
        return _answer(request, table_id, ServiceError("That is not a move of this game."))
    try:
        services.table_apply_action(
            table_id=table_id,
            user=_user(request),
            data=form.service_data(),
            expected_seq=form.cleaned_data.get("expected_seq"),
            # The page's own socket, whose view this answer brings (static/web/live.js).
            socket=request.headers.get(services.SOCKET_HEADER),
        )
    except (ServiceError, selectors.RuleError) as exc:
        return _answer(request, table_id, exc)
    _after_move(table_id)
    return _answer(request, table_id)


@login_required
@require_POST
def table_join(request: HttpRequest, table_id: int) -> HttpResponse:
    try:
        services.table_join(table_id=table_id, user=_user(request))
    except ServiceError as exc:
        if _is_live(request):
            return _answer(request, table_id, exc)
        # Refused from the lobby's list (a full table, a reliability below the host's
        # minimum): the lobby says why, where the player was choosing a table.
        messages.error(request, exc.message)
        return redirect("web:home")
    return _answer(request, table_id)


@login_required
@require_POST
def table_add_bot(request: HttpRequest, table_id: int) -> HttpResponse:
    form = BotForm(request.POST)
    if not form.is_valid():
        return _answer(request, table_id, ServiceError("A bot is easy, normal or hard."))
    try:
        services.table_add_bot(
            table_id=table_id, user=_user(request), level=form.cleaned_data["level"]
        )
    except ServiceError as exc:
        return _answer(request, table_id, exc)
    return _answer(request, table_id)


@login_required
@require_POST
def table_leave(request: HttpRequest, table_id: int) -> HttpResponse:
    try:
        services.table_leave_lobby(table_id=table_id, user=_user(request))
    except ServiceError as exc:
        return _answer(request, table_id, exc)
    messages.success(request, "You left the table.")
    if _is_live(request):
        return JsonResponse({"ok": True, "redirect": reverse("web:home")})
    return redirect("web:home")


@login_required
@require_POST
def table_start(request: HttpRequest, table_id: int) -> HttpResponse:
    try:
        services.table_start(table_id=table_id, user=_user(request))
    except ServiceError as exc:
        return _answer(request, table_id, exc)
    _after_move(table_id)
    return _answer(request, table_id)


@login_required
@require_http_methods(["GET", "POST"])
def table_concede(request: HttpRequest, table_id: int) -> HttpResponse:
    """GET asks for confirmation; POST concedes (``games.services.table_concede``)."""
    if request.method == "GET":
        try:
            table = selectors.table_get(table_id)
        except ServiceError as exc:
            return _forbidden(request, exc)
        return render(request, "web/concede.html", {"table": table})
    try:
        services.table_concede(table_id=table_id, user=_user(request))
    except ServiceError as exc:
        return _answer(request, table_id, exc)
    _after_move(table_id)
    messages.success(request, "You conceded. Your cards went under the draw pile.")
    return _answer(request, table_id)


# ----------------------------------------------------------------------------
# The replay


@login_required
@require_GET
def table_replay(request: HttpRequest, table_id: int) -> HttpResponse:
    """A finished game, one position at a time: ``?step=n`` or ``?round=r``."""
    try:
        table = selectors.table_get(table_id)
        selectors.web_viewer_seat(table, _user(request))
        positions = selectors.table_replay(table)
    except ServiceError as exc:
        return _forbidden(request, exc)
    total = len(positions) - 1
    rounds: dict[int, int] = {}
    for position in positions:
        rounds.setdefault(position["round"], position["step"])
    step = _int(request.GET.get("step"), default=0)
    wanted_round = _int(request.GET.get("round"), default=0)
    if wanted_round in rounds:
        step = rounds[wanted_round]
    step = max(0, min(step, total))
    seats = selectors.table_seats(table)
    context = {
        "table": table,
        "replay": present.replay_step(positions[step], seats, total, table.game),
        "rounds": sorted(rounds.items()),
        "prev_step": step - 1 if step > 0 else None,
        "next_step": step + 1 if step < total else None,
    }
    template = "web/_replay.html" if _is_live(request) else "web/replay.html"
    return render(request, template, context)


def _int(value: str | None, *, default: int) -> int:
    try:
        return int(value) if value is not None else default
    except ValueError:
        return default


# ----------------------------------------------------------------------------
# The lobby: a bot taken off the table


@login_required
@require_POST
def table_remove_bot(request: HttpRequest, table_id: int, seat: int) -> HttpResponse:
    """The host takes the bot in ``seat`` off the table before the start
    (``games.services.table_remove_bot``)."""
    try:
        services.table_remove_bot(table_id=table_id, user=_user(request), number=seat)
    except ServiceError as exc:
        return _answer(request, table_id, exc)
    return _answer(request, table_id)


# ----------------------------------------------------------------------------
# The rules


@require_GET
def rules(request: HttpRequest, game: str) -> HttpResponse:
    """``/rules/<game>/``: a game's rules in prose, for a newcomer, logged in or not.

    Each game offered has its page (``web/rules/<game>.html``); the options it
    lists come from the game's ``OptionSpec``s, so every house rule is there.
    """
    offered = next((g for g in selectors.games_offered() if g["id"] == game), None)
    if offered is None:
        return render(request, "404.html", status=404)
    return render(
        request,
        f"web/rules/{game}.html",
        {
            "game": offered,
            "settings": [spec for spec in offered["options"] if not spec.house_rule],
            "house_rules": [spec for spec in offered["options"] if spec.house_rule],
        },
    )
