"""Reads about users: their tokens, and whether game e-mail reaches them."""

from __future__ import annotations

from django.contrib.auth.models import User
from django.db.models import QuerySet

from notifications import services as notifications

from .models import ApiToken, PendingEmail


def tokens_of(*, user: User) -> QuerySet[ApiToken]:
    return ApiToken.objects.filter(user=user).order_by("created_at", "pk")


def pending_email_of(*, user: User) -> str | None:
    """The address ``user`` asked for and has not confirmed yet, if any."""
    return PendingEmail.objects.filter(user=user).values_list("email", flat=True).first()


def email_status(*, user: User) -> str:
    """One sentence for ``/me``: where game e-mail goes, or why none comes.

    An address waiting is described the same whether or not another
    account holds it (its mail says which).
    """
    waiting = pending_email_of(user=user)
    wait = (
        f"{waiting} waits for confirmation: follow the message mailed to it "
        "(POST /api/v1/me/verify-email/ mails another)"
        if waiting
        else ""
    )
    confirmed = notifications.email_is_verified(user)
    if wait and not confirmed:
        return f"{wait}. Until then no game e-mail is sent."
    if not user.email:
        return "Your account has no e-mail address, so no game e-mail is sent."
    if not confirmed:
        return (
            f"{user.email} is not confirmed yet, so no game e-mail is sent to it: "
            "POST /api/v1/me/verify-email/ mails it a link."
        )
    then = f" {wait}; it replaces {user.email} once confirmed." if wait else ""
    if notifications.preferences_get(user)["unsubscribed_all"]:
        return f"{user.email} is confirmed, but you unsubscribed from all e-mail.{then}"
    return f"Game e-mail goes to {user.email}.{then}"
