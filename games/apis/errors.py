"""One error shape for the whole API: ``{"code": ..., "detail": ..., "fields": {...}}``.

``exception_handler`` (registered in ``REST_FRAMEWORK``) maps service errors,
rule refusals and DRF's own exceptions to it; ``api_not_found`` and
``api_server_error`` answer Django's 404 and 500 under ``/api/`` the same way.
"""

from __future__ import annotations

from http import HTTPStatus
from typing import Any

from django.core.exceptions import RequestDataTooBig
from django.http import HttpRequest, HttpResponse, JsonResponse
from django.urls import Resolver404, resolve
from django.views.decorators.csrf import csrf_exempt
from rest_framework import exceptions, serializers
from rest_framework.response import Response
from rest_framework.settings import api_settings
from rest_framework.views import exception_handler as drf_exception_handler

from games.errors import ServiceError
from tabletop.ruleset import RuleError

# DRF's default codes, renamed where the API promises a plainer one.
_CODES = {
    "parse_error": "malformed_json",
    "not_authenticated": "not_authenticated",
    "authentication_failed": "authentication_failed",
    "permission_denied": "forbidden",
    "not_found": "not_found",
    "method_not_allowed": "method_not_allowed",
    "not_acceptable": "not_acceptable",
    "unsupported_media_type": "unsupported_media_type",
    "throttled": "throttled",
    "invalid": "invalid",
}


_TOO_LARGE = "The request body is larger than the server accepts."


class ErrorSerializer(serializers.Serializer[Any]):
    """The body of every 4xx and 5xx answer."""

    code = serializers.CharField(help_text="Stable, machine-readable code.")
    detail = serializers.CharField(help_text="A sentence a person understands.")
    # The metaclass takes declared fields off the class, so this does not shadow
    # Serializer.fields at run time; mypy only sees the class body.
    fields = serializers.DictField(  # type: ignore[assignment]
        child=serializers.ListField(child=serializers.CharField()),
        help_text="For invalid input: the messages for each field.",
    )


#: Bounds on an error body, whatever the request held: a refusal is a few hundred
#: bytes, never an echo of a large body (50,000 unknown keys once made a 2.6 MB answer).
MAX_FIELDS = 20
MAX_MESSAGES = 5
MAX_TEXT = 200


def _cut(text: str, limit: int = MAX_TEXT) -> str:
    return text if len(text) <= limit else text[: limit - 1] + "…"


def error_body(code: str, detail: str, fields: dict[str, Any] | None = None) -> dict[str, Any]:
    """The one error shape, bounded: at most ``MAX_FIELDS`` fields of ``MAX_MESSAGES`` each."""
    bounded: dict[str, list[str]] = {}
    for name, messages in (fields or {}).items():
        if len(bounded) == MAX_FIELDS:
            break
        items = messages if isinstance(messages, list | tuple) else [messages]
        bounded[_cut(str(name), 100)] = [_cut(str(m)) for m in items[:MAX_MESSAGES]]
    return {"code": code, "detail": _cut(detail, 2 * MAX_TEXT), "fields": bounded}


def _detail_text(detail: Any) -> str:
    if isinstance(detail, list | tuple) and detail:
        return _detail_text(detail[0])
    if isinstance(detail, dict) and detail:
        return _detail_text(next(iter(detail.values())))
    return str(detail)


def flatten_fields(detail: Any, prefix: str = "") -> dict[str, list[str]]:
    """DRF's nested errors as the Error schema states them: one list of messages per field.

    A nested serializer's field is named by its path, ``notifications.your_turn``;
    an item of a list by its index, ``moves.3``.
    """
    flat: dict[str, list[str]] = {}
    if isinstance(detail, dict):
        for key, value in detail.items():
            if prefix and key == api_settings.NON_FIELD_ERRORS_KEY:
                name = prefix  # "notifications" is not an object: the field's own error
            else:
                name = f"{prefix}.{key}" if prefix else str(key)
            flat.update(flatten_fields(value, name))
    elif isinstance(detail, list | tuple) and any(isinstance(v, dict | list) for v in detail):
        for index, value in enumerate(detail):
            if value:
                flat.update(flatten_fields(value, f"{prefix}.{index}" if prefix else str(index)))
    elif isinstance(detail, list | tuple):
        flat[prefix or "non_field_errors"] = [str(v) for v in detail]
    else:
        flat[prefix or "non_field_errors"] = [str(detail)]
    return flat


def exception_handler(exc: Exception, context: dict[str, Any]) -> Response | None:
    """Turn ``exc`` into a response in the API's error shape; None lets it become a 500."""
    if isinstance(exc, ServiceError):
        refused = Response(error_body(exc.code, exc.message, exc.fields), status=exc.status)
        # A refusal that ends by itself (a lock-out, a limit) says when, as DRF's throttles do.
        retry_after = getattr(exc, "retry_after", None)
        if isinstance(retry_after, int):
            refused["Retry-After"] = str(retry_after)
        return refused
    if isinstance(exc, RuleError):
        return Response(error_body(exc.code, exc.message), status=422)
    if isinstance(exc, RequestDataTooBig):  # Django's own limit, met reading the raw body
        return Response(error_body("request_too_large", _TOO_LARGE), status=413)

    # DRF turns Django's Http404 and PermissionDenied into its own and sets the
    # WWW-Authenticate and Retry-After headers; only the body is rewritten.
    response = drf_exception_handler(exc, context)
    if response is None:
        return None
    if isinstance(exc, exceptions.ValidationError):
        response.data = error_body(
            "invalid", "The request is not valid.", flatten_fields(exc.detail)
        )
        return response
    if isinstance(exc, exceptions.APIException):
        code = _CODES.get(exc.default_code, exc.default_code)
        if isinstance(exc, exceptions.NotFound) and str(exc.detail) == exc.default_detail:
            detail = "Not found."
        else:
            detail = _detail_text(exc.detail)
        response.data = error_body(code, detail)
    else:  # Http404 or PermissionDenied raised by Django code
        code = "not_found" if response.status_code == HTTPStatus.NOT_FOUND else "forbidden"
        response.data = error_body(code, _detail_text(response.data.get("detail", "")))
    return response


@csrf_exempt  # it changes nothing; a POST must get this 404, not Django's CSRF page
def api_not_found(request: HttpRequest, *args: Any, **kwargs: Any) -> HttpResponse:
    """Any URL under /api/ that no view answers: a 404 in the API's shape."""
    detail = "No such endpoint."
    if not request.path.endswith("/"):
        try:
            resolved = resolve(request.path + "/")
        except Resolver404:
            resolved = None
        if resolved is not None and resolved.func is not api_not_found:
            detail = f"No such endpoint. Did you mean {request.path}/ (with the slash)?"
    return JsonResponse(error_body("not_found", detail), status=404)


def api_server_error(request: HttpRequest) -> HttpResponse:  # noqa: ARG001 (a Django view)
    return JsonResponse(error_body("server_error", "Something went wrong on our side."), status=500)


def handler400(request: HttpRequest, exception: Exception) -> HttpResponse:
    """Django's 400 page (a bad Host header, a body over the limit), JSON under /api/."""
    from django.views import defaults

    if request.path.startswith("/api/"):
        if isinstance(exception, RequestDataTooBig):
            return JsonResponse(error_body("request_too_large", _TOO_LARGE), status=413)
        return JsonResponse(error_body("bad_request", "The request is malformed."), status=400)
    return defaults.bad_request(request, exception)


def handler403(request: HttpRequest, exception: Exception) -> HttpResponse:
    """Django's 403 page, JSON under /api/."""
    from django.views import defaults

    if request.path.startswith("/api/"):
        return JsonResponse(error_body("forbidden", "You may not do that."), status=403)
    return defaults.permission_denied(request, exception)


def csrf_failure(request: HttpRequest, reason: str = "") -> HttpResponse:
    """Django's CSRF refusal (``CSRF_FAILURE_VIEW``), JSON under /api/."""
    from django.views.csrf import csrf_failure as django_csrf_failure

    if request.path.startswith("/api/"):
        detail = "CSRF check failed: a session-authenticated write needs the X-CSRFToken header."
        return JsonResponse(error_body("csrf_failed", detail), status=403)
    return django_csrf_failure(request, reason)


def handler404(request: HttpRequest, exception: Exception) -> HttpResponse:
    """Django's 404 page, except under /api/ where the answer is JSON."""
    from django.views import defaults

    if request.path.startswith("/api/"):
        return api_not_found(request)
    return defaults.page_not_found(request, exception)


def handler500(request: HttpRequest) -> HttpResponse:
    """Django's 500 page, except under /api/ where the answer is JSON."""
    from django.views import defaults

    if request.path.startswith("/api/"):
        return api_server_error(request)
    return defaults.server_error(request)
