"""The API load benchmark's baseline: a minimal DRF endpoint that does one INSERT.

``scripts/bench_api.py`` measures ``POST /api/v1/tables/{id}/actions/`` beside
``POST /api/v1/bench/ping/`` in the same run, against the same gunicorn and
PostgreSQL, so the ratio says what the game itself costs on top of DRF, token
authentication and a database write. The endpoint answers 404 unless
``settings.GAMENOOK_BENCH_ENDPOINTS`` is on (never in production).
"""

from __future__ import annotations

from typing import Any

from django.http import Http404
from django.urls import URLPattern, path
from drf_spectacular.utils import extend_schema
from rest_framework import status
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from . import conf
from .models import BenchPing


class BenchPingApi(APIView):
    """Token authentication, permission check, one INSERT, a tiny JSON answer."""

    def initial(self, request: Request, *args: Any, **kwargs: Any) -> None:
        # Before authentication: a disabled endpoint is simply not there.
        if not conf.bench_endpoints():
            raise Http404
        super().initial(request, *args, **kwargs)

    @extend_schema(exclude=True)
    def post(self, request: Request) -> Response:  # noqa: ARG002 (DRF's signature)
        ping = BenchPing.objects.create()
        return Response({"id": ping.pk}, status=status.HTTP_201_CREATED)


urlpatterns: list[URLPattern] = [
    path("ping/", BenchPingApi.as_view(), name="bench-ping"),
]
