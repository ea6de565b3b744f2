"""Invitations (issue 40): a host asks a person or a bot account to a seat at their table.

``POST /tables/{id}/invitations/`` invites by name and ``GET`` lists the
table's invitations for its host; ``GET /invitations/`` lists the caller's
pending ones (what a bot polls, or reads from its event stream's hello);
``POST /invitations/{id}/decline/`` declines one. Joining the table
(``POST /tables/{id}/join/``) accepts it.
"""

from __future__ import annotations

from typing import Any

from drf_spectacular.utils import extend_schema, extend_schema_serializer
from rest_framework import serializers, status
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from games import selectors, services
from games.errors import Forbidden
from games.models import Invitation

from .common import ActionThrottle, parse_input, parse_query, request_user
from .errors import ErrorSerializer
from .fields import INT_MAX, QueryIntegerField, StrictCharField
from .idempotency import idempotent

TAG = ["invitations"]


def _errors(*codes: int) -> dict[int, Any]:
    return {code: ErrorSerializer for code in codes}


class _Empty(serializers.Serializer[Any]):
    """A body with no fields: anything sent is refused as unknown."""


class _Page(serializers.Serializer[Any]):
    limit = QueryIntegerField(required=False, default=50, min_value=1, max_value=200)
    offset = QueryIntegerField(required=False, default=0, min_value=0, max_value=INT_MAX)


@extend_schema_serializer(component_name="Invitation")
class InvitationOutputSerializer(serializers.Serializer[Any]):
    """An invitation as its invitee sees it."""

    id = serializers.IntegerField()
    table = serializers.IntegerField(source="table_id")
    game = serializers.CharField(help_text="The game the table plays: flip or wildcards.")
    host = serializers.CharField(help_text="The username of the host who invited you.")
    seat_count = serializers.IntegerField(help_text="How many seats the table has.")
    created_at = serializers.DateTimeField()
    url = serializers.SerializerMethodField(
        help_text="Where to accept it: POST there to take a seat (relative to the site)."
    )

    def get_url(self, invitation: selectors.InvitationFacts) -> str:
        return f"/api/v1/tables/{invitation.table_id}/join/"


@extend_schema_serializer(component_name="TableInvitation")
class TableInvitationOutputSerializer(serializers.Serializer[Any]):
    """An invitation as the table's host sees it."""

    id = serializers.IntegerField()
    username = serializers.CharField(source="user.username")
    bot_account = serializers.SerializerMethodField(
        help_text="True when the invitee is a bot account (a program a person runs)."
    )
    status = serializers.ChoiceField(
        choices=Invitation.Status.choices,
        help_text="pending; accepted (they joined), declined, or withdrawn (the table "
        "started or closed first).",
    )
    created_at = serializers.DateTimeField()
    answered_at = serializers.DateTimeField(allow_null=True)

    def get_bot_account(self, invitation: Invitation) -> bool:
        return invitation.user_id in self.context.get("bots", set())


def _table_invitation(invitation: Invitation, bots: set[int]) -> dict[str, Any]:
    return dict(TableInvitationOutputSerializer(invitation, context={"bots": bots}).data)


def _one_invitation(invitation: Invitation) -> dict[str, Any]:
    """One invitation as a write answers it (its BOT mark read for it alone)."""
    return _table_invitation(invitation, selectors.bot_account_ids([invitation.user_id]))


class TableInvitationsApi(APIView):
    def get_throttles(self) -> list[Any]:
        return [ActionThrottle()] if self.request.method == "POST" else []

    @extend_schema_serializer(component_name="InvitationInput")
    class InputSerializer(serializers.Serializer[Any]):
        username = StrictCharField(
            min_length=1, max_length=150, help_text="The person's or the bot account's name."
        )

    @extend_schema_serializer(component_name="TableInvitationList")
    class ListOutputSerializer(serializers.Serializer[Any]):
        count = serializers.IntegerField()
        results = TableInvitationOutputSerializer(many=True)

    @extend_schema(
        tags=TAG,
        summary="The table's invitations, newest first (host only)",
        description="403 not_host for anyone but the table's host.",
        parameters=[_Page],
        responses={200: ListOutputSerializer, **_errors(400, 401, 403, 404)},
    )
    def get(self, request: Request, table_id: int) -> Response:
        params = parse_query(_Page, request.query_params)
        table = selectors.table_get(table_id)
        if table.host_id != request_user(request).pk:
            raise Forbidden("Only the host sees the table's invitations.", code="not_host")
        invitations = selectors.table_invitations(table_id)
        count = invitations.count()
        page = list(invitations[params["offset"] : params["offset"] + params["limit"]])
        bots = selectors.bot_account_ids(invitation.user_id for invitation in page)
        results = [_table_invitation(invitation, bots) for invitation in page]
        return Response({"count": count, "results": results})

    @extend_schema(
        tags=TAG,
        summary="Invite a person or a bot account to a seat (host only, in the lobby)",
        description="The invitee sees it in GET /invitations/ (and a bot on its event "
        "stream); joining the table accepts it. A table that admits only invited bot "
        "accounts (bot_accounts invited) seats a bot account only with one. "
        "403 not_host, bot_accounts_refused; 404 no_such_user (no active "
        "account of that name); 409 invite_self, not_in_lobby, table_full, already_seated, "
        "already_invited, too_many_invitations.",
        request=InputSerializer,
        responses={
            201: TableInvitationOutputSerializer,
            **_errors(400, 401, 403, 404, 409, 422, 429),
        },
    )
    @idempotent
    def post(self, request: Request, table_id: int) -> Response:
        data = parse_input(self.InputSerializer, request.data)
        invitation = services.invitation_create(
            table_id=table_id, host=request_user(request), username=data["username"]
        )
        return Response(_one_invitation(invitation), status=status.HTTP_201_CREATED)


class InvitationListApi(APIView):
    @extend_schema_serializer(component_name="InvitationList")
    class ListOutputSerializer(serializers.Serializer[Any]):
        count = serializers.IntegerField()
        results = InvitationOutputSerializer(many=True)

    @extend_schema(
        tags=TAG,
        summary="Your pending invitations, newest first",
        description="Only invitations to tables still in the lobby. Accept one by joining "
        "its table (its url); decline it at /invitations/{id}/decline/.",
        parameters=[_Page],
        responses={200: ListOutputSerializer, **_errors(400, 401)},
    )
    def get(self, request: Request) -> Response:
        params = parse_query(_Page, request.query_params)
        user = request_user(request)
        count = selectors.invitations_pending_count(user.pk)
        page = selectors.invitations_pending(
            user.pk, limit=params["limit"], offset=params["offset"]
        )
        results = InvitationOutputSerializer(page, many=True).data
        return Response({"count": count, "results": results})


class InvitationDeclineApi(APIView):
    throttle_classes = (ActionThrottle,)

    @extend_schema(
        tags=TAG,
        summary="Decline one of your invitations",
        description="404 no_such_invitation for an id that is not one of your invitations; "
        "409 invitation_answered once it was accepted, declined or withdrawn.",
        request=None,
        responses={200: TableInvitationOutputSerializer, **_errors(400, 401, 404, 409, 422, 429)},
    )
    @idempotent
    def post(self, request: Request, invitation_id: int) -> Response:
        parse_input(_Empty, request.data)
        user = request_user(request)
        invitation = services.invitation_decline(invitation_id=invitation_id, user=user)
        return Response(_one_invitation(invitation))


class InvitationWithdrawApi(APIView):
    throttle_classes = (ActionThrottle,)

    @extend_schema(
        tags=TAG,
        summary="Withdraw an invitation to your table",
        description="The table's host only. 404 no_such_invitation for an id that is not an "
        "invitation to one of your tables; 409 invitation_answered once it was accepted, "
        "declined or withdrawn (the game started, the table closed).",
        request=None,
        responses={200: TableInvitationOutputSerializer, **_errors(400, 401, 404, 409, 422, 429)},
    )
    @idempotent
    def post(self, request: Request, invitation_id: int) -> Response:
        parse_input(_Empty, request.data)
        host = request_user(request)
        invitation = services.invitation_withdraw(invitation_id=invitation_id, host=host)
        return Response(_one_invitation(invitation))
