"""Writes about users: registration, tokens, changes to ``/me``, deactivation.

A user's games are ``games``' business and their e-mail switches are
``notifications``': these functions call those apps' services, each in
the transaction it documents, and never touch their models.
"""

from __future__ import annotations

from typing import Any

from django.contrib.auth import password_validation
from django.contrib.auth.models import User
from django.core.exceptions import ValidationError as DjangoValidationError
from django.db import IntegrityError, transaction
from rest_framework.authtoken.models import Token

from games import services as games
from games.errors import ServiceError
from notifications import services as notifications


def user_register(*, username: str, email: str, password: str) -> User:
    """Create an active user; the password must pass the configured validators.

    Raises ``ServiceError`` (code ``invalid``, with ``fields``) when the name
    is taken or the password is refused; nothing is written then.
    """
    candidate = User(username=username, email=email)
    try:
        password_validation.validate_password(password, user=candidate)
    except DjangoValidationError as exc:
        raise ServiceError(
            "The password is not acceptable.", code="invalid", fields={"password": exc.messages}
        ) from None
    taken = ServiceError(
        "That username is taken.",
        code="invalid",
        fields={"username": ["A user with that username already exists."]},
    )
    if User.objects.filter(username__iexact=username).exists():
        raise taken
    try:
        with transaction.atomic():
            return User.objects.create_user(username=username, email=email, password=password)
    except IntegrityError:
        raise taken from None


def user_token_obtain(*, user: User) -> str:
    """The user's API token, created on first request."""
    token, _ = Token.objects.get_or_create(user=user)
    return str(token.key)


def user_update(
    *, user: User, email: str | None = None, notifications_changes: dict[str, Any] | None = None
) -> User:
    """Change what a user may change about themselves: the address and the e-mail switches.

    One transaction: either every change is saved or none is.
    """
    with transaction.atomic():
        if email is not None and email != user.email:
            user.email = email
            user.save(update_fields=["email"])
        if notifications_changes:
            notifications.preferences_update(user, **notifications_changes)
    return user


def user_deactivate(*, user: User) -> int:
    """Deactivate ``user``: they leave every running game. Returns how many."""
    user.is_active = False
    user.save(update_fields=["is_active"])
    return games.player_leave_all_tables(user=user)
