"""Reads about users: their tokens, and whether game e-mail reaches them."""

from __future__ import annotations

from django.contrib.auth.models import User
from django.db.models import QuerySet

from notifications import services as notifications

from .models import ApiToken


def tokens_of(*, user: User) -> QuerySet[ApiToken]:
    return ApiToken.objects.filter(user=user).order_by("created_at", "pk")


def email_status(*, user: User) -> str:
    """One sentence for ``/me``: where game e-mail goes, or why none comes."""
    if not user.email:
        return "Your account has no e-mail address, so no game e-mail is sent."
    if not notifications.email_is_verified(user):
        return (
            f"{user.email} is not confirmed yet, so no game e-mail is sent to it: follow the "
            "link mailed to it (POST /api/v1/me/verify-email/ mails a new one)."
        )
    if notifications.preferences_get(user)["unsubscribed_all"]:
        return f"{user.email} is confirmed, but you unsubscribed from all e-mail."
    return f"Game e-mail goes to {user.email}."
