"""The API's rate limits for requests no API view answers: the web client's forms.

A web page and the API spend one budget: the same throttle classes
(``games.apis.common``), the same scopes and rates (``REST_FRAMEWORK``'s
``DEFAULT_THROTTLE_RATES``), the same cache keys (per user, per address
before login). A person who spent their "actions" on the API gets 429 from
the lobby's form too, and the other way round.
"""

from __future__ import annotations

import math

from django.http import HttpRequest
from rest_framework.request import Request
from rest_framework.throttling import BaseThrottle, SimpleRateThrottle

from games.apis.common import AccountThrottle, ActionThrottle

#: The scopes a web view may count in: writes at tables, and the account pages.
SCOPES: dict[str, type[SimpleRateThrottle]] = {
    ActionThrottle.scope: ActionThrottle,
    AccountThrottle.scope: AccountThrottle,
}


def _drf(request: HttpRequest) -> Request:
    """``request`` as DRF's throttles read it, with the user the session already found.

    DRF's ``Request`` would authenticate again with no authenticators (anonymous);
    the user set here is the one ``AuthenticationMiddleware`` put on ``request``.
    """
    wrapped = Request(request)
    wrapped.user = request.user
    return wrapped


def throttle_wait(request: HttpRequest, scope: str) -> int | None:
    """Count ``request`` in ``scope``'s budget; None when allowed, else seconds to wait.

    The request counts when allowed, as an API request does, whatever the
    view then answers; a refused one does not.
    """
    throttle = SCOPES[scope]()
    if throttle.allow_request(_drf(request), None):  # type: ignore[arg-type]  # no APIView
        return None
    return retry_after(throttle.wait())


def retry_after(wait: float | None) -> int:
    """A wait in whole seconds for ``Retry-After`` and for people: at least one."""
    return max(1, math.ceil(wait or 0))


def client_address(request: HttpRequest) -> str:
    """The address the per-address limits count, read as DRF's throttles do.

    ``REMOTE_ADDR``, or with ``GAMENOOK_NUM_PROXIES`` set the address that
    many proxies from the right of ``X-Forwarded-For``: a client cannot
    choose it by sending the header itself.
    """
    return str(BaseThrottle().get_ident(_drf(request)))


def throttled_sentence(wait: int) -> str:
    """What a person reads when a budget is spent."""
    unit = "second" if wait == 1 else "seconds"
    return f"That was a lot of requests in a short time. Try again in {wait} {unit}."
