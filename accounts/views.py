"""The two pages account e-mails link to: confirm an address, choose a new password.

GET only shows a page (a link scanner opening the link changes nothing);
the POST of its form does the work, through the same services as the API.

The token of a link is a credential, so it leaves the address bar at once, as
Django's own ``PasswordResetConfirmView`` does it: the link's GET keeps the
token in the visitor's session and redirects to an address without it, where
the form is. Nothing that logs a request's path (Django's "Bad Request" line
for a refused form, a server's access log, a Referer) then holds a token that
still works.
"""

from __future__ import annotations

from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.views.decorators.http import require_http_methods

from games.errors import ServiceError

from . import services

#: The path segment that stands where a link's token was once it is in the session.
IN_SESSION = "set"
_VERIFY_KEY = "accounts.verify_token"
_RESET_KEY = "accounts.reset_token"


def _invalid(request: HttpRequest, error: ServiceError) -> HttpResponse:
    return render(request, "accounts/link_invalid.html", {"error": error}, status=400)


@require_http_methods(["GET", "POST"])
def verify_email(request: HttpRequest, token: str) -> HttpResponse:
    if token != IN_SESSION:
        request.session[_VERIFY_KEY] = token
        return redirect("accounts:verify-email", token=IN_SESSION)
    token = request.session.get(_VERIFY_KEY, "")
    if request.method == "POST":
        try:
            user = services.email_verify(token=token)
        except ServiceError as error:
            return _invalid(request, error)
        request.session.pop(_VERIFY_KEY, None)
        return render(request, "accounts/verify_done.html", {"user": user})
    if not token:
        return _invalid(request, services.InvalidLink())
    return render(request, "accounts/verify_confirm.html")


@require_http_methods(["GET", "POST"])
def password_reset(request: HttpRequest, uid: str, token: str) -> HttpResponse:
    if token != IN_SESSION:
        request.session[_RESET_KEY] = token
        return redirect("accounts:password-reset", uid=uid, token=IN_SESSION)
    token = request.session.get(_RESET_KEY, "")
    try:
        user = services.password_reset_user(uid=uid, token=token)
    except ServiceError as error:
        return _invalid(request, error)
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
                request.session.pop(_RESET_KEY, None)
                return render(request, "accounts/password_reset_done.html", {"user": user})
    context = {"user": user, "errors": errors}
    return render(request, "accounts/password_reset.html", context, status=400 if errors else 200)
