"""The players, leaderboards and rating changes API, mounted at /api/v1/ by gamenook.urls."""

from django.urls import URLPattern, URLResolver, path

# Importing the API registers the <id:...> converter (games.apis.common).
from . import apis

urlpatterns: list[URLPattern | URLResolver] = [
    path("players/<str:username>/", apis.PlayerApi.as_view(), name="player"),
    path(
        "players/<str:username>/history/",
        apis.PlayerHistoryApi.as_view(),
        name="player-history",
    ),
    path(
        "players/<str:username>/versus/<str:other>/",
        apis.PlayerVersusApi.as_view(),
        name="player-versus",
    ),
    path(
        "leaderboards/<str:game>/<str:mode>/",
        apis.LeaderboardApi.as_view(),
        name="leaderboard",
    ),
    path("tables/<id:table_id>/ratings/", apis.TableRatingsApi.as_view(), name="table-ratings"),
]
