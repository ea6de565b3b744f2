"""API v1 routes, mounted at /api/v1/ by gamenook.urls."""

from django.urls import URLPattern, URLResolver

urlpatterns: list[URLPattern | URLResolver] = []
