"""Routes of the web client, mounted at the site root by gamenook.urls.

Every write counts in the API's rate limits (``web.limits``): writes at
tables in "actions", sign-up, log-in and the account pages in "accounts".
"""

from django.contrib.auth import views as auth_views
from django.urls import URLPattern, path, reverse_lazy

from . import invitations_page, players, pwa, views
from .limits import limited
from .login import LoginView

app_name = "web"

urlpatterns: list[URLPattern] = [
    path("", views.home, name="home"),
    path(
        "login/",
        limited(
            "accounts",
            LoginView.as_view(
                template_name="web/login.html",
                redirect_authenticated_user=True,
                extra_context={"password_reset_url": reverse_lazy("web:password-forgot")},
            ),
        ),
        name="login",
    ),
    path("logout/", auth_views.LogoutView.as_view(), name="logout"),
    path("signup/", limited("accounts", views.signup), name="signup"),
    path("password-reset/", limited("accounts", views.password_forgot), name="password-forgot"),
    path("account/", limited("accounts", views.account), name="account"),
    path("tables/new/", limited("actions", views.table_create), name="table-create"),
    path("tables/<int:table_id>/", views.table_page, name="table"),
    path("tables/<int:table_id>/live/", views.table_live, name="table-live"),
    path("tables/<int:table_id>/act/", limited("actions", views.table_act), name="table-act"),
    path("tables/<int:table_id>/join/", limited("actions", views.table_join), name="table-join"),
    path("tables/<int:table_id>/bots/", limited("actions", views.table_add_bot), name="table-bots"),
    path(
        "tables/<int:table_id>/bots/<int:seat>/remove/",
        limited("actions", views.table_remove_bot),
        name="table-bot-remove",
    ),
    path("tables/<int:table_id>/leave/", limited("actions", views.table_leave), name="table-leave"),
    path("tables/<int:table_id>/start/", limited("actions", views.table_start), name="table-start"),
    path(
        "tables/<int:table_id>/concede/",
        limited("actions", views.table_concede),
        name="table-concede",
    ),
    path("tables/<int:table_id>/replay/", views.table_replay, name="table-replay"),
    # Issue 40: the host invites (and withdraws) from the table's page; the invitee declines
    # from the lobby.
    path(
        "tables/<int:table_id>/invite/",
        limited("actions", invitations_page.table_invite),
        name="table-invite",
    ),
    path(
        "tables/<int:table_id>/invitations/<int:invitation_id>/withdraw/",
        limited("actions", invitations_page.invitation_withdraw),
        name="invitation-withdraw",
    ),
    path(
        "invitations/<int:invitation_id>/decline/",
        limited("actions", invitations_page.invitation_decline),
        name="invitation-decline",
    ),
    path("rules/<slug:game>/", views.rules, name="rules"),
    # Issue 39: a player's page, two players head to head, the leaderboards (web.players).
    path("players/<str:username>/", players.player, name="player"),
    path("players/<str:username>/versus/", players.versus_form, name="player-versus-form"),
    path("players/<str:username>/versus/<str:other>/", players.versus, name="player-versus"),
    path("leaderboards/", players.leaderboards, name="leaderboards"),
    path("leaderboards/<slug:game>/<slug:mode>/", players.leaderboard, name="leaderboard"),
    # The installable web app (web.pwa): the service worker at the root, for scope "/".
    path("sw.js", pwa.service_worker, name="service-worker"),
    path("manifest.webmanifest", pwa.manifest, name="manifest"),
]
