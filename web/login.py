"""The log-in page: Django's ``LoginView`` behind the log-in backoff (``accounts.backoff``).

The page and the API's token endpoint count failed passwords together, per
username and per address. While a lock holds, the page answers 429 with
``Retry-After`` and says when to try again, without looking at the
password; the sentence is the same whether or not the username has an
account.
"""

from __future__ import annotations

from typing import Any

from django.contrib.admin.forms import AdminAuthenticationForm
from django.contrib.auth import views as auth_views
from django.contrib.auth.forms import AuthenticationForm
from django.core.exceptions import ValidationError
from django.http import HttpResponse
from django.views.decorators.debug import sensitive_variables

from accounts import backoff


class LoginForm(AuthenticationForm):
    """Django's log-in form, its password checked through ``accounts.backoff``."""

    #: Seconds until the lock that refused this attempt ends; None when none did.
    retry_after: int | None = None

    @sensitive_variables("password")
    def clean(self) -> dict[str, Any]:
        username = self.cleaned_data.get("username")
        password = self.cleaned_data.get("password")
        if username is not None and password:
            if self.request is None:
                raise TypeError("the log-in form needs the request: its address is counted")
            try:
                self.user_cache = backoff.authenticate(
                    request=self.request, username=username, password=password
                )
            except backoff.LoginLocked as locked:
                self.retry_after = locked.retry_after
                raise ValidationError(locked.message, code=locked.code) from None
            if self.user_cache is None:
                raise self.get_invalid_login_error()
            self.confirm_login_allowed(self.user_cache)
        return self.cleaned_data


class LoginView(auth_views.LoginView):
    """``/login/``: a refused attempt under a lock answers 429 with ``Retry-After``."""

    form_class = LoginForm

    def form_invalid(self, form: AuthenticationForm) -> HttpResponse:
        response = super().form_invalid(form)
        retry_after = getattr(form, "retry_after", None)
        if retry_after is not None:
            response.status_code = 429
            response["Retry-After"] = str(retry_after)
        return response


class AdminLoginForm(LoginForm, AdminAuthenticationForm):
    """The admin's log-in form behind the same backoff (staff accounts are the prize);
    ``AdminAuthenticationForm`` still refuses a user who is not staff."""
