"""Routes of the notifications app, mounted at /notifications/ (outside the API)."""

from django.urls import path

from . import views

app_name = "notifications"

urlpatterns = [
    path("unsubscribe/<str:token>/", views.unsubscribe, name="unsubscribe"),
]
