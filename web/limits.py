"""The API's rate limits on the web client's writes (``games.throttles``).

``limited(scope, view)`` counts each POST to ``view`` in the API's budget
of that scope, shared with the API: "actions" for writes at tables,
"accounts" for sign-up, log-in and the account pages. Reading a page counts
nothing. Over the budget, a person gets a 429 page saying when to try
again; the table page's script (header ``X-Gamenook-Live: 1``) gets JSON
as its other answers come, the error in the API's shape; both carry
``Retry-After``. ``web.urls`` applies it, so the views stay as they are.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Any

from django.http import HttpRequest, HttpResponse, HttpResponseBase, JsonResponse
from django.shortcuts import render

from games import throttles

from .views import LIVE_HEADER

View = Callable[..., HttpResponseBase]


def limited(scope: str, view: View) -> View:
    """``view`` with each of its POSTs counted in the API's ``scope`` budget."""
    if scope not in throttles.SCOPES:
        raise ValueError(f"no rate-limit scope {scope!r}")

    @functools.wraps(view)
    def counted(request: HttpRequest, *args: Any, **kwargs: Any) -> HttpResponseBase:
        if request.method == "POST":
            wait = throttles.throttle_wait(request, scope)
            if wait is not None:
                return too_many(request, wait)
        return view(request, *args, **kwargs)

    return counted


def too_many(request: HttpRequest, wait: int) -> HttpResponse:
    """429: a page that says when to try again, or JSON for the table page's script."""
    sentence = throttles.throttled_sentence(wait)
    response: HttpResponse
    if request.headers.get(LIVE_HEADER) == "1":
        error = {"code": "throttled", "detail": sentence, "fields": {}}
        body = {"ok": False, "error": error, "html": None, "etag": None}
        response = JsonResponse(body, status=429)
    else:
        context = {"message": sentence, "wait": wait, "back": _same_site_referer(request)}
        response = render(request, "web/too_many.html", context, status=429)
    response["Retry-After"] = str(wait)
    return response


def _same_site_referer(request: HttpRequest) -> str | None:
    """The page the person came from, when it is one of ours (a link back to it)."""
    referer = request.headers.get("Referer", "")
    origin = f"{request.scheme}://{request.get_host()}/"
    return referer if referer.startswith(origin) else None
