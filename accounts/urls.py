"""Account routes: the API, mounted at /api/v1/ by gamenook.urls next to the games API."""

from django.urls import URLPattern, URLResolver, path

from . import apis, bot_apis, push_apis, webhook_apis

urlpatterns: list[URLPattern | URLResolver] = [
    path("auth/register/", apis.RegisterApi.as_view(), name="auth-register"),
    path("auth/token/", apis.TokenApi.as_view(), name="auth-token"),
    path("auth/logout/", apis.LogoutApi.as_view(), name="auth-logout"),
    path("auth/verify-email/", apis.VerifyEmailApi.as_view(), name="auth-verify-email"),
    path("auth/password-reset/", apis.PasswordResetApi.as_view(), name="auth-password-reset"),
    path(
        "auth/password-reset/confirm/",
        apis.PasswordResetConfirmApi.as_view(),
        name="auth-password-reset-confirm",
    ),
    path("me/", apis.MeApi.as_view(), name="me"),
    path("me/password/", apis.PasswordChangeApi.as_view(), name="me-password"),
    path("me/verify-email/", apis.MeVerifyEmailApi.as_view(), name="me-verify-email"),
    path("me/tokens/", apis.TokenListApi.as_view(), name="me-tokens"),
    path("me/away/", apis.AwayApi.as_view(), name="me-away"),
    path("me/tokens/<id:token_id>/", apis.TokenDetailApi.as_view(), name="me-token"),
    # Issue 40: a person's bot accounts and their tokens (bot_apis).
    path("me/bots/", bot_apis.BotListApi.as_view(), name="me-bots"),
    path("me/bots/<str:username>/", bot_apis.BotDetailApi.as_view(), name="me-bot"),
    path(
        "me/bots/<str:username>/tokens/",
        bot_apis.BotTokenListApi.as_view(),
        name="me-bot-tokens",
    ),
    path(
        "me/bots/<str:username>/tokens/<id:token_id>/",
        bot_apis.BotTokenDetailApi.as_view(),
        name="me-bot-token",
    ),
    path("me/push-devices/", push_apis.PushDeviceListApi.as_view(), name="me-push-devices"),
    path(
        "me/push-devices/<id:device_id>/",
        push_apis.PushDeviceDetailApi.as_view(),
        name="me-push-device",
    ),
    # Issue 40: a bot account's webhook (webhook_apis).
    path("me/webhook/", webhook_apis.WebhookApi.as_view(), name="me-webhook"),
    path("me/webhook/rotate/", webhook_apis.WebhookRotateApi.as_view(), name="me-webhook-rotate"),
]
