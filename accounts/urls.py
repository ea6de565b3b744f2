"""Account routes, mounted at /api/v1/ by gamenook.urls next to the games API."""

from django.urls import URLPattern, URLResolver, path

from . import apis

urlpatterns: list[URLPattern | URLResolver] = [
    path("auth/register/", apis.RegisterApi.as_view(), name="auth-register"),
    path("auth/token/", apis.TokenApi.as_view(), name="auth-token"),
    path("me/", apis.MeApi.as_view(), name="me"),
]
