"""The API load benchmark's anchors: a one-INSERT endpoint and an action's bare transaction.

``scripts/bench_api.py`` measures ``POST /api/v1/tables/{id}/actions/`` beside
``POST /api/v1/bench/ping/`` in the same run, against the same gunicorn and
PostgreSQL, so the ratio says what the game itself costs on top of DRF, token
authentication and a database write. ``POST /api/v1/bench/transaction/{id}/``
is the limit: the same DRF and authentication around an action's transaction
and nothing else (lock the table row with its snapshot, INSERT a move, UPDATE
the table's snapshot fields); no rules, no seats, no view, no publish. Both
answer 404 unless ``settings.GAMENOOK_BENCH_ENDPOINTS`` is on (never in
production).
"""

from __future__ import annotations

from typing import Any

from django.db import transaction
from django.http import Http404
from django.urls import URLPattern, path
from drf_spectacular.utils import extend_schema
from rest_framework import status
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from . import conf
from .apis import common  # noqa: F401 (registers the <id:...> path converter used below)
from .errors import NotFound
from .models import BenchPing, Move, Table
from .services import _SNAPSHOT_FIELDS

#: A move's payload of the usual size (a play and the turn passing on).
_PAYLOAD: dict[str, Any] = {
    "action": {"type": "play", "card": 57},
    "events": [
        {"type": "played", "seat": 0, "card": 57, "face": "leaf-7"},
        {"type": "turn", "seat": 1, "direction": 1},
    ],
}


class _BenchApi(APIView):
    def initial(self, request: Request, *args: Any, **kwargs: Any) -> None:
        # Before authentication: a disabled endpoint is simply not there.
        if not conf.bench_endpoints():
            raise Http404
        super().initial(request, *args, **kwargs)


class BenchPingApi(_BenchApi):
    """Token authentication, permission check, one INSERT, a tiny JSON answer."""

    @extend_schema(exclude=True)
    def post(self, request: Request) -> Response:  # noqa: ARG002 (DRF's signature)
        ping = BenchPing.objects.create()
        return Response({"id": ping.pk}, status=status.HTTP_201_CREATED)


class BenchTransactionApi(_BenchApi):
    """An action's transaction and nothing else: the limit of the action endpoint.

    Writes a move the rules never made ("bench") into the table's log: only
    for the benchmark's own tables, in its own database.
    """

    @extend_schema(exclude=True)
    def post(self, request: Request, table_id: int) -> Response:  # noqa: ARG002
        with transaction.atomic():
            table = Table.objects.select_for_update().filter(pk=table_id).first()
            if table is None:
                raise NotFound()
            table.seq += 1
            Move.objects.create(
                table=table,
                seq=table.seq,
                round=0,
                seat=None,
                action="bench",
                payload=_PAYLOAD,
                source=Move.Source.ADMIN,
            )
            table.save(update_fields=_SNAPSHOT_FIELDS)
        return Response({"seq": table.seq}, status=status.HTTP_201_CREATED)


urlpatterns: list[URLPattern] = [
    path("ping/", BenchPingApi.as_view(), name="bench-ping"),
    path("transaction/<id:table_id>/", BenchTransactionApi.as_view(), name="bench-transaction"),
]
