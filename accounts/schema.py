"""How the OpenAPI schema names accounts' authentication (imported by ``AccountsConfig.ready``)."""

from __future__ import annotations

from drf_spectacular.authentication import SessionScheme


class AccountsSessionScheme(SessionScheme):  # type: ignore[no-untyped-call]  # drf-spectacular is untyped
    """The session cookie, as drf-spectacular describes DRF's own session authentication."""

    target_class = "accounts.authentication.SessionAuthentication"
    priority = 0
