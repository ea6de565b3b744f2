"""The one-click unsubscribe link (RFC 8058): no login, the signed token is the proof."""

from __future__ import annotations

from django.http import HttpRequest, HttpResponse
from django.shortcuts import render
from django.views.decorators.csrf import csrf_exempt
from django.views.decorators.http import require_http_methods

from . import services


@csrf_exempt  # mail clients POST "List-Unsubscribe=One-Click" without a CSRF token
@require_http_methods(["GET", "POST"])
def unsubscribe(request: HttpRequest, token: str) -> HttpResponse:
    """GET asks for confirmation (link scanners must not unsubscribe anyone); POST does it."""
    user = services.user_for_unsubscribe_token(token)
    if user is None:
        return render(request, "notifications/unsubscribe_invalid.html", status=404)
    if request.method == "POST":
        services.user_unsubscribe(user)
        return render(request, "notifications/unsubscribe_done.html", {"user": user})
    return render(request, "notifications/unsubscribe_confirm.html", {"user": user})
