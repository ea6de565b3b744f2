"""The pages the account e-mails link to, mounted at /accounts/ (outside the API)."""

from django.urls import URLPattern, path

from . import views

app_name = "accounts"

urlpatterns: list[URLPattern] = [
    path("verify-email/<str:token>/", views.verify_email, name="verify-email"),
    path("password-reset/<str:uid>/<str:token>/", views.password_reset, name="password-reset"),
]
