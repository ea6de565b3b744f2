"""Writes about users: registration, addresses, tokens, passwords, deactivation.

A user's games are ``games``' business and their e-mail (switches, the
confirmed address, the outbox) is ``notifications``': these functions call
those apps' services, each in the transaction it documents, and never touch
their models.

An address belongs to one account at most, compared without case; the
database holds that too (the index of migration 0002), so two registrations
racing for one address cannot both win.
"""

from __future__ import annotations

import secrets
from typing import Any

from django.contrib.auth import password_validation
from django.contrib.auth.models import User
from django.contrib.auth.tokens import default_token_generator
from django.core import signing
from django.core.cache import cache
from django.core.exceptions import ValidationError as DjangoValidationError
from django.db import IntegrityError, transaction
from django.template.loader import render_to_string
from django.urls import reverse
from django.utils.encoding import force_bytes
from django.utils.http import urlsafe_base64_decode, urlsafe_base64_encode

from games import selectors as games_selectors
from games import services as games
from games.errors import Conflict, NotFound, ServiceError
from notifications import services as notifications

from . import conf
from .models import PREFIX_LENGTH, ApiToken, token_digest
from .signals import credentials_changed_on_commit

_VERIFY_SALT = "accounts.verify-email"
#: How many tokens one user may hold at once (one per client or bot is plenty).
MAX_TOKENS = 20


class InvalidLink(ServiceError):
    status = 400
    code = "invalid_link"
    message = "This link is not valid, or has expired. Ask for a new one."


def _taken_email() -> ServiceError:
    return ServiceError(
        "That e-mail address belongs to another account.",
        code="invalid",
        fields={"email": ["An account with this e-mail address already exists."]},
    )


def email_taken(email: str, *, by_other_than: User | None = None) -> bool:
    users = User.objects.filter(email__iexact=email)
    if by_other_than is not None:
        users = users.exclude(pk=by_other_than.pk)
    return bool(email) and users.exists()


def _check_password(password: str, user: User) -> None:
    try:
        password_validation.validate_password(password, user=user)
    except DjangoValidationError as exc:
        raise ServiceError(
            "The password is not acceptable.", code="invalid", fields={"password": exc.messages}
        ) from None


# ----------------------------------------------------------------------------
# Registration and the address


def user_register(*, username: str, email: str, password: str) -> User:
    """Create an active user and mail a link that confirms their address.

    Raises ``ServiceError`` (code ``invalid``, with ``fields``) when the name
    or the address is taken (in any case) or the password is refused;
    nothing is written then.
    """
    _check_password(password, User(username=username, email=email))
    taken = ServiceError(
        "That username is taken.",
        code="invalid",
        fields={"username": ["A user with that username already exists."]},
    )
    if User.objects.filter(username__iexact=username).exists():
        raise taken
    if email_taken(email):
        raise _taken_email()
    try:
        with transaction.atomic():
            user = User.objects.create_user(username=username, email=email, password=password)
            email_verification_send(user=user)
    except IntegrityError:
        # A twin request won the race for the name or the address.
        raise (_taken_email() if email_taken(email) else taken) from None
    return user


def user_update(
    *, user: User, email: str | None = None, notifications_changes: dict[str, Any] | None = None
) -> User:
    """Change what a user may change about themselves: the address and the e-mail switches.

    One transaction: either every change is saved or none is. A new address
    gets a confirmation link; game mail stops until it is confirmed.
    """
    try:
        with transaction.atomic():
            if email is not None and email.lower() != user.email.lower():
                if email_taken(email, by_other_than=user):
                    raise _taken_email()
                user.email = email
                user.save(update_fields=["email"])
                email_verification_send(user=user)
            elif email is not None and email != user.email:  # a change of case only
                user.email = email
                user.save(update_fields=["email"])
            if notifications_changes:
                notifications.preferences_update(user, **notifications_changes)
    except IntegrityError:
        user.refresh_from_db()
        raise _taken_email() from None
    return user


def _cooling_down(key: str, seconds: int) -> bool:
    """True when the same mail went out less than ``seconds`` ago (else start the clock).

    The rate limits count requests per client; this counts mails per
    address, so nobody can fill someone's inbox from many clients.
    """
    return not cache.add(f"accounts.mail.{key}", 1, timeout=seconds)


def verification_token(user: User) -> str:
    """A signed, timestamped token naming the user and the address it confirms."""
    return signing.TimestampSigner(salt=_VERIFY_SALT).sign_object(
        {"user": user.pk, "email": user.email.lower()}
    )


def email_verification_send(*, user: User) -> bool:
    """Mail ``user`` a link confirming their current address; False if one just went out."""
    if not user.email or _cooling_down(f"verify.{user.pk}.{user.email.lower()}", 60):
        return False
    token = verification_token(user)
    link = conf.site_url() + reverse("accounts:verify-email", args=[token])
    context = {"user": user, "link": link, "days": conf.verify_days()}
    notifications.account_mail_enqueue(
        user=user,
        kind="verify_email",
        to=user.email,
        subject="Confirm your e-mail address for Gamenook",
        text=render_to_string("accounts/email/verify_email.txt", context),
    )
    return True


def email_verify(*, token: str) -> User:
    """Confirm the address a link was made for; raises ``InvalidLink`` otherwise.

    The link stops working once the account's address has changed, and
    after ``GAMENOOK_VERIFY_DAYS`` days.
    """
    try:
        data = signing.TimestampSigner(salt=_VERIFY_SALT).unsign_object(
            token, max_age=conf.verify_days() * 86400
        )
    except (signing.BadSignature, ValueError, TypeError):
        raise InvalidLink() from None
    if not isinstance(data, dict) or not isinstance(data.get("user"), int):
        raise InvalidLink()
    user = User.objects.filter(pk=data["user"], is_active=True).first()
    if user is None or user.email.lower() != data.get("email"):
        raise InvalidLink()
    notifications.email_verified_set(user, user.email)
    return user


# ----------------------------------------------------------------------------
# Passwords


def password_reset_request(*, email: str) -> None:
    """Mail a password reset link to the account with this address, if there is one.

    Says nothing either way (the API answers the same), so nobody learns
    which addresses have accounts. At most one mail a minute per address.
    """
    user = User.objects.filter(email__iexact=email, is_active=True).first()
    if user is None or not user.has_usable_password():
        return
    if _cooling_down(f"reset.{user.pk}", 60):
        return
    uid = urlsafe_base64_encode(force_bytes(user.pk))
    token = default_token_generator.make_token(user)
    link = conf.site_url() + reverse("accounts:password-reset", args=[uid, token])
    context = {"user": user, "link": link, "uid": uid, "token": token}
    with transaction.atomic():
        notifications.account_mail_enqueue(
            user=user,
            kind="password_reset",
            to=user.email,
            subject="Reset your Gamenook password",
            text=render_to_string("accounts/email/password_reset.txt", context),
        )


def password_reset_user(*, uid: str, token: str) -> User:
    """The user a reset link was made for; raises ``InvalidLink`` when it is not valid.

    Django's token generator signs the password hash, the last login and the
    address: the link works once, and not after any of them changed.
    """
    try:
        pk = int(urlsafe_base64_decode(uid).decode())
    except (ValueError, TypeError, UnicodeDecodeError, OverflowError):
        raise InvalidLink() from None
    user = User.objects.filter(pk=pk, is_active=True).first() if 0 < pk < 2**63 else None
    if user is None or not default_token_generator.check_token(user, token):
        raise InvalidLink()
    return user


def password_reset_confirm(*, uid: str, token: str, password: str) -> User:
    """Set a new password through a reset link; every token of the user is revoked.

    Following the link proves the user reads their address, so it is
    confirmed as well.
    """
    user = password_reset_user(uid=uid, token=token)
    _check_password(password, user)
    with transaction.atomic():
        user.set_password(password)
        user.save(update_fields=["password"])
        revoked = list(ApiToken.objects.filter(user=user).values_list("pk", flat=True))
        ApiToken.objects.filter(user=user).delete()
        notifications.email_verified_set(user, user.email)
        # Every session of the user ends with the old password's hash, and the sockets with it.
        credentials_changed_on_commit(user_id=user.pk, revoked_tokens=revoked, recheck=True)
    return user


def password_change(
    *, user: User, current_password: str, new_password: str, keep: ApiToken | None = None
) -> None:
    """Change a signed-in user's password; every other token of theirs is revoked.

    ``keep`` is the token the request came with, so the client that changed
    the password stays signed in.
    """
    if not user.check_password(current_password):
        raise ServiceError(
            "The current password is wrong.",
            code="invalid",
            fields={"current_password": ["The current password is wrong."]},
        )
    _check_password(new_password, user)
    with transaction.atomic():
        user.set_password(new_password)
        user.save(update_fields=["password"])
        others = ApiToken.objects.filter(user=user)
        if keep is not None:
            others = others.exclude(pk=keep.pk)
        revoked = list(others.values_list("pk", flat=True))
        others.delete()
        # The user's other sessions end with the old password's hash, and their sockets too.
        credentials_changed_on_commit(user_id=user.pk, revoked_tokens=revoked, recheck=True)


# ----------------------------------------------------------------------------
# Tokens


def token_create(*, user: User, name: str) -> tuple[ApiToken, str]:
    """A new token for ``user`` named ``name``; returns it and its key (shown only now).

    A token of the same name is replaced (the client asked again); a user
    holds at most ``MAX_TOKENS``.
    """
    key = secrets.token_urlsafe(32)
    with transaction.atomic():
        User.objects.select_for_update().filter(pk=user.pk).first()  # one creation at a time
        ApiToken.objects.filter(user=user, name=name).delete()
        if ApiToken.objects.filter(user=user).count() >= MAX_TOKENS:
            raise Conflict(
                f"You hold {MAX_TOKENS} tokens already: revoke one first.",
                code="too_many_tokens",
            )
        token = ApiToken.objects.create(
            user=user, name=name, prefix=key[:PREFIX_LENGTH], digest=token_digest(key)
        )
    return token, key


def token_revoke(*, user: User, token_id: int) -> None:
    """Revoke one of ``user``'s tokens; another user's token is not found."""
    deleted, _ = ApiToken.objects.filter(user=user, pk=token_id).delete()
    if not deleted:
        raise NotFound("No such token.")
    credentials_changed_on_commit(user_id=user.pk, revoked_tokens=[token_id])


def tokens_revoke_all(*, user: User) -> int:
    tokens = ApiToken.objects.filter(user=user)
    revoked = list(tokens.values_list("pk", flat=True))
    deleted, _ = tokens.delete()
    credentials_changed_on_commit(user_id=user.pk, revoked_tokens=revoked)
    return deleted


# ----------------------------------------------------------------------------
# Moderation


def user_deactivate(*, user: User) -> int:
    """Deactivate ``user``: they leave every running game and lose every token.

    Returns how many games they left. The admin's "Active" box and its
    "Deactivate" action both come here.
    """
    with transaction.atomic():
        User.objects.filter(pk=user.pk).update(is_active=False)
        user.is_active = False
        tokens_revoke_all(user=user)
        credentials_changed_on_commit(user_id=user.pk, recheck=True)
    return games.player_leave_all_tables(user=user)


def user_has_history(user: User) -> bool:
    """True when tables or moves refer to ``user``, which are kept for good."""
    return games_selectors.user_has_history(user=user)


def user_anonymise(*, user: User) -> User:
    """Keep the account's games, drop the person: deactivate, rename, forget the address.

    For a user who asks to be deleted but has played: their tables, seats
    and moves must stay (other players' records refer to them), so the row
    stays too, with nothing left that names the person.
    """
    user_deactivate(user=user)
    with transaction.atomic():
        user.username = f"deleted-{user.pk}"
        user.email = ""
        user.first_name = user.last_name = ""
        user.set_unusable_password()
        user.save()
        notifications.preferences_forget(user)
    return user
