"""The two pages account e-mails link to: confirm an address, choose a new password.

GET only shows a page (a link scanner opening the link changes nothing);
the POST of its form does the work, through the same services as the API.
"""

from __future__ import annotations

from django.http import HttpRequest, HttpResponse
from django.shortcuts import render
from django.views.decorators.http import require_http_methods

from games.errors import ServiceError

from . import services


@require_http_methods(["GET", "POST"])
def verify_email(request: HttpRequest, token: str) -> HttpResponse:
    if request.method == "POST":
        try:
            user = services.email_verify(token=token)
        except ServiceError as error:
            return render(request, "accounts/link_invalid.html", {"error": error}, status=400)
        return render(request, "accounts/verify_done.html", {"user": user})
    return render(request, "accounts/verify_confirm.html")


@require_http_methods(["GET", "POST"])
def password_reset(request: HttpRequest, uid: str, token: str) -> HttpResponse:
    try:
        user = services.password_reset_user(uid=uid, token=token)
    except ServiceError as error:
        return render(request, "accounts/link_invalid.html", {"error": error}, status=400)
    errors: list[str] = []
    if request.method == "POST":
        password = request.POST.get("password", "")
        if password != request.POST.get("password_again", ""):
            errors = ["The two passwords differ."]
        else:
            try:
                services.password_reset_confirm(uid=uid, token=token, password=password)
            except ServiceError as error:
                errors = [m for ms in error.fields.values() for m in ms] or [error.message]
            else:
                return render(request, "accounts/password_reset_done.html", {"user": user})
    context = {"user": user, "errors": errors}
    return render(request, "accounts/password_reset.html", context, status=400 if errors else 200)
