"""The tables API, mounted at /api/v1/ by gamenook.urls (accounts mount theirs beside it)."""

from django.urls import URLPattern, URLResolver, path

# Importing the API registers the <id:...> converter (games.apis.common).
from .apis import invitations, tables

urlpatterns: list[URLPattern | URLResolver] = [
    path("tables/", tables.TableListApi.as_view(), name="tables"),
    path("tables/<id:table_id>/", tables.TableDetailApi.as_view(), name="table"),
    path("tables/<id:table_id>/join/", tables.TableJoinApi.as_view(), name="table-join"),
    path("tables/<id:table_id>/bots/", tables.TableAddBotApi.as_view(), name="table-bots"),
    path(
        "tables/<id:table_id>/bots/<id:seat>/",
        tables.TableRemoveBotApi.as_view(),
        name="table-bot",
    ),
    path("tables/<id:table_id>/leave/", tables.TableLeaveApi.as_view(), name="table-leave"),
    path("tables/<id:table_id>/start/", tables.TableStartApi.as_view(), name="table-start"),
    path("tables/<id:table_id>/view/", tables.TableViewApi.as_view(), name="table-view"),
    path("tables/<id:table_id>/actions/", tables.TableActionApi.as_view(), name="table-actions"),
    path("tables/<id:table_id>/concede/", tables.TableConcedeApi.as_view(), name="table-concede"),
    path("tables/<id:table_id>/log/", tables.TableLogApi.as_view(), name="table-log"),
    path("tables/<id:table_id>/record/", tables.TableRecordApi.as_view(), name="table-record"),
    path(
        "tables/<id:table_id>/invitations/",
        invitations.TableInvitationsApi.as_view(),
        name="table-invitations",
    ),
    path("invitations/", invitations.InvitationListApi.as_view(), name="invitations"),
    path(
        "invitations/<id:invitation_id>/decline/",
        invitations.InvitationDeclineApi.as_view(),
        name="invitation-decline",
    ),
    path(
        "invitations/<id:invitation_id>/withdraw/",
        invitations.InvitationWithdrawApi.as_view(),
        name="invitation-withdraw",
    ),
]
