"""Issue 40: inviting a player or a bot from a table's page, declining from the lobby.

The table page's host (in the lobby) invites by name (``table_invite``) and
withdraws an invitation not yet answered (``invitation_withdraw``); the lobby
lists the user's invitations with Join (the table's own join form) and Decline
(``invitation_decline``). Each writes through ``games.services``.
"""

from __future__ import annotations

from django import forms
from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect
from django.views.decorators.http import require_POST

from games import services
from games.errors import ServiceError

from .views import _answer, _is_live, _user


class InviteForm(forms.Form):
    username = forms.CharField(label="Invite a player or a bot", max_length=150, strip=True)


@login_required
@require_POST
def table_invite(request: HttpRequest, table_id: int) -> HttpResponse:
    """The host invites a person or a bot account by name; the page shows the list again."""
    form = InviteForm(request.POST)
    if not form.is_valid():
        return _answer(request, table_id, ServiceError("Give the name of a player or a bot."))
    try:
        services.invitation_create(
            table_id=table_id, host=_user(request), username=form.cleaned_data["username"]
        )
    except ServiceError as exc:
        return _answer(request, table_id, exc)
    if not _is_live(request):  # the script's answer is the table's fragment, list and all
        messages.success(request, f"{form.cleaned_data['username']} is invited.")
    return _answer(request, table_id)


@login_required
@require_POST
def invitation_withdraw(request: HttpRequest, table_id: int, invitation_id: int) -> HttpResponse:
    """The host withdraws an invitation from the table's page; the page shows the list again."""
    try:
        invitation = services.invitation_withdraw(invitation_id=invitation_id, host=_user(request))
    except ServiceError as exc:
        return _answer(request, table_id, exc)
    if not _is_live(request):
        messages.success(request, f"The invitation to {invitation.user.username} is withdrawn.")
    return _answer(request, invitation.table_id)


@login_required
@require_POST
def invitation_decline(request: HttpRequest, invitation_id: int) -> HttpResponse:
    """The invitee declines from the lobby; the lobby says so, or why not."""
    try:
        services.invitation_decline(invitation_id=invitation_id, user=_user(request))
    except ServiceError as exc:
        messages.error(request, exc.message)
    else:
        messages.success(request, "Invitation declined.")
    return redirect("web:home")
