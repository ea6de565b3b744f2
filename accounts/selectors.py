"""Reads about users: their tokens, whether game e-mail reaches them, the bots they own."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from django.contrib.auth.models import User
from django.db.models import Count, QuerySet

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


# ----------------------------------------------------------------------------
# Bot accounts (issue 40). The rows are games' (``games.models.BotAccount``): they are
# read here through the user's relation to them, never by importing the model.


@dataclass(frozen=True)
class Bot:
    """A bot account as its owner sees it."""

    user: User
    description: str
    created_at: datetime
    disabled_at: datetime | None
    tokens: int

    @property
    def username(self) -> str:
        return self.user.username

    @property
    def disabled(self) -> bool:
        """Disabled by its owner or a moderator, or its user deactivated in the admin."""
        return self.disabled_at is not None or not self.user.is_active


def _bots() -> QuerySet[User]:
    return (
        User.objects.filter(bot_account__isnull=False)
        .select_related("bot_account")
        .annotate(token_count=Count("api_tokens"))
    )


def _bot(user: User) -> Bot:
    row = user.bot_account
    return Bot(
        user=user,
        description=row.description,
        created_at=row.created_at,
        disabled_at=row.disabled_at,
        tokens=int(getattr(user, "token_count", 0)),
    )


def bots_of(*, owner: User) -> list[Bot]:
    """The bot accounts ``owner`` made, oldest first, disabled ones too."""
    users = _bots().filter(bot_account__owner=owner).order_by("bot_account__created_at", "pk")
    return [_bot(user) for user in users]


def bot_of(*, owner: User, username: str) -> Bot | None:
    """``owner``'s bot named ``username`` (exactly), None for anyone else's or none at all.

    The same None whether the bot is another person's or does not exist: an
    owner learns nothing about other people's bots.
    """
    user = _bots().filter(bot_account__owner=owner, username=username).first()
    return None if user is None else _bot(user)


def bot_count(*, owner: User) -> int:
    """How many bot accounts ``owner`` has made, disabled ones included."""
    return User.objects.filter(bot_account__owner=owner).count()


def is_bot(user: User) -> bool:
    """True when ``user`` is a bot account (a disabled one too)."""
    return User.objects.filter(pk=user.pk, bot_account__isnull=False).exists()


def owner_of(user: User) -> User | None:
    """The person who runs the bot account ``user``; None for a person."""
    return User.objects.filter(bot_accounts__user=user).first()
