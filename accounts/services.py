"""Writes about users: registration, addresses, tokens, passwords, deactivation.

A user's games are ``games``' business and their e-mail (switches, the
confirmed address, the outbox) is ``notifications``': these functions call
those apps' services, each in the transaction it documents, and never touch
their models.

**Addresses.** ``User.email``, the account's address, changes only when a
link mailed to the new address is followed; until then the address asked
for (at sign-up or as a change) waits in ``PendingEmail``. An address
belongs to one account at most, compared without case (the index of
migration 0002 holds that even when two confirmations race), and asking for
one takes it from nobody. Whether another account holds it is decided in a
job (``ADDRESS_MAIL``, run by ``accounts.tasks``), which mails that address
either the link or a note that it is taken: the request does the same work
and gives the same answer either way, so it tells nobody which addresses
have accounts. A password reset request queues its job (``RESET_MAIL``) the
same way.

**Mail to strangers.** A confirmation mail goes to an address nobody has
proved yet: it holds nothing a user chose (no username), and there are at
most ``GAMENOOK_CONFIRM_MAILS_PER_DAY`` of them per account and one per
address every ``GAMENOOK_CONFIRM_MAIL_INTERVAL`` seconds, whoever asks
(``MailHeld``, and nothing changes).

**A stolen session.** Changing the address or the password needs the
current password; a reset link goes only to a confirmed address; the
confirmed address is told when the address or the password changes.
"""

from __future__ import annotations

import hashlib
import logging
import math
import secrets
import time
import unicodedata
from typing import Any

from celery import current_app
from django.contrib.auth import password_validation
from django.contrib.auth.models import User
from django.contrib.auth.tokens import default_token_generator
from django.core import signing
from django.core.cache import cache
from django.core.exceptions import ValidationError as DjangoValidationError
from django.db import IntegrityError, transaction
from django.template.loader import render_to_string
from django.urls import reverse
from django.utils import timezone
from django.utils.encoding import force_bytes
from django.utils.http import urlsafe_base64_decode, urlsafe_base64_encode

from games import away
from games import selectors as games_selectors
from games import services as games
from games.errors import Conflict, Forbidden, NotFound, ServiceError
from notifications import services as notifications

from . import backoff, conf, selectors, validators
from .models import PREFIX_LENGTH, ApiToken, NameKey, PendingEmail, token_digest
from .signals import credentials_changed_on_commit

logger = logging.getLogger(__name__)

_VERIFY_SALT = "accounts.verify-email"
#: How many tokens one user may hold at once (one per client or bot is plenty).
MAX_TOKENS = 20

#: The jobs accounts hands to a worker, by the names ``accounts.tasks`` registers.
#: (pending address id): mail an address waiting for confirmation its link, or that it is taken.
ADDRESS_MAIL = "accounts.tasks.send_address_mail"
#: (address,): mail a password reset link, if a confirmed account has the address.
RESET_MAIL = "accounts.tasks.send_password_reset"

_DAY = 86400
#: The units ``_duration`` counts in, and from how many seconds: hours past an hour.
_UNITS = (("hour", 3600, 3601), ("minute", 60, 60), ("second", 1, 1))


class InvalidLink(ServiceError):
    status = 400
    code = "invalid_link"
    message = "This link is not valid, or has expired. Ask for a new one."


class MailHeld(ServiceError):
    """A confirmation mail past its limits: nothing was written and nothing is sent.

    ``retry_after`` is how many seconds until the limit that held it lets one go.
    """

    status = 429
    code = "mail_throttled"

    def __init__(self, message: str, *, retry_after: int) -> None:
        super().__init__(message)
        self.retry_after = max(1, retry_after)


def publish(name: str, args: tuple[int | str, ...]) -> None:
    """Hand job ``name`` to the broker; a broker that cannot take it is logged, not raised.

    A mail whose job is lost is asked for again by its user (a new link, a
    new reset request): the request that queued it has answered already.
    """
    try:
        current_app.send_task(name, args=args)
    except Exception:
        logger.exception("could not queue %s", name)  # its arguments may hold an address


def _dispatch_on_commit(name: str, args: tuple[int | str, ...]) -> None:
    """Queue job ``name`` once the current transaction commits (never if it rolls back)."""
    transaction.on_commit(lambda: publish(name, args), robust=True)


def _taken_name() -> ServiceError:
    return ServiceError(
        "That username is taken.",
        code="invalid",
        fields={"username": ["A user with that username already exists."]},
    )


def _check_password(password: str, user: User) -> None:
    try:
        password_validation.validate_password(password, user=user)
    except DjangoValidationError as exc:
        raise ServiceError(
            "The password is not acceptable.", code="invalid", fields={"password": exc.messages}
        ) from None


def _require_password(user: User, password: str | None, *, to: str) -> None:
    """Refuse unless ``password`` is ``user``'s: a session or token alone is not enough ``to``."""
    if not password:
        text = f"Give your current password to {to}."
        raise ServiceError(text, code="invalid", fields={"current_password": [text]})
    # Counted with the username's failed log-ins (accounts.backoff): raises LoginLocked.
    if not backoff.password_check(user=user, password=password):
        raise ServiceError(
            "The current password is wrong.",
            code="invalid",
            fields={"current_password": ["The current password is wrong."]},
        )


def masked_email(email: str) -> str:
    """``email`` with its local part hidden but its first character: ``n***@example.com``."""
    local, _, domain = email.rpartition("@")
    return f"{local[:1]}***@{domain}"


def _duration(seconds: float) -> str:
    """``seconds`` as a person reads it, rounded up: "40 seconds", "5 minutes", "3 hours"."""
    whole = max(1, math.ceil(seconds))
    for unit, size, start in _UNITS:
        if whole >= start:
            count = math.ceil(whole / size)
            return f"{count} {unit}{'s' if count != 1 else ''}"
    raise AssertionError("unreachable: every whole is at least a second")


def _now_text() -> str:
    return timezone.now().strftime("%Y-%m-%d %H:%M")


# ----------------------------------------------------------------------------
# How many confirmation mails: per account a day, per address every few minutes


def _address_turn_key(email: str) -> str:
    # Hashed: a cache key holds no address, and any address makes a valid key.
    return "accounts.mail.address." + hashlib.sha256(email.lower().encode()).hexdigest()


def _take_address_turn(email: str) -> None:
    """Take ``email``'s turn for a confirmation mail, or raise ``MailHeld``.

    Counted per address whoever asks (a sign-up, an address change, a new
    link), and whether or not an account has the address: the refusal says
    only that a mail to it was asked for lately.
    """
    interval = conf.confirm_mail_interval()
    key = _address_turn_key(email)
    until = time.time() + interval
    if cache.add(key, until, timeout=interval):
        return
    left = float(cache.get(key) or until) - time.time()
    raise MailHeld(
        f"A mail to {email} was asked for less than {_duration(interval)} ago. To keep "
        f"anyone from filling an inbox, the next one can go in {_duration(left)}.",
        retry_after=int(left) + 1,
    )


def _take_account_turn(user: User, *, check: bool = True) -> None:
    """Count one confirmation mail against ``user``'s day, or raise ``MailHeld`` past the limit."""
    count_key, until_key = f"accounts.mail.account.{user.pk}", f"accounts.mail.until.{user.pk}"
    cache.add(count_key, 0, timeout=_DAY)
    cache.add(until_key, time.time() + _DAY, timeout=_DAY)
    try:
        count = cache.incr(count_key)
    except ValueError:  # the day ended between the two lines
        count = 1
        cache.set(count_key, count, timeout=_DAY)
    limit = conf.confirm_mails_per_day()
    if check and count > limit:
        left = float(cache.get(until_key) or time.time() + _DAY) - time.time()
        raise MailHeld(
            f"This account had {limit} confirmation mails in a day already, the most it may. "
            f"The next one can go in {_duration(left)}.",
            retry_after=int(left) + 1,
        )


def _take_mail_turn(*, user: User, email: str) -> None:
    """Both turns for a confirmation mail from ``user`` to ``email``; nothing is counted if held."""
    _take_account_turn(user)
    try:
        _take_address_turn(email)
    except MailHeld:
        cache.decr(f"accounts.mail.account.{user.pk}")
        raise


# ----------------------------------------------------------------------------
# Registration and the address


def _clean_username(username: str) -> tuple[str, str]:
    """The name as it is kept (NFKC) and its key; ``ServiceError`` when refused or taken.

    This is the check that counts: the API's serializer and the web form run
    the same validator first only to answer sooner.
    """
    name = validators.normalize_username(username)
    problems = validators.username_problems(name)
    if problems:
        raise ServiceError(
            "That username is not acceptable.",
            code="invalid",
            fields={"username": [text for _, text in problems]},
        )
    key = validators.name_key(name)
    # Accounts made in the admin have no key: their names are compared without case at least.
    if (
        NameKey.objects.filter(key=key).exists()
        or User.objects.filter(username__iexact=name).exists()
    ):
        raise _taken_name()
    return name, key


def user_register(*, username: str, email: str, password: str) -> User:
    """Create an active user whose address waits for confirmation, and queue its mail.

    The same whether or not another account holds ``email``: the account is
    made with no address of its own and ``email`` waiting, and a job mails
    ``email`` a confirmation link, or, when the address is taken, a note that
    someone tried to sign up with it (``address_mail_write``). Raises
    ``ServiceError`` (code ``invalid``, with ``fields``) when the name is
    refused or taken (``validators``) or the password is refused, and
    ``MailHeld`` when ``email`` had a confirmation mail lately; nothing is
    written then.
    """
    name, key = _clean_username(username)
    _check_password(password, User(username=name, email=email))
    _take_address_turn(email)
    try:
        with transaction.atomic():
            user = User.objects.create_user(username=name, email="", password=password)
            NameKey.objects.create(user=user, key=key)
            pending = PendingEmail.objects.create(user=user, email=email)
            _dispatch_on_commit(ADDRESS_MAIL, (pending.pk,))
    except IntegrityError:
        cache.delete(_address_turn_key(email))
        raise _taken_name() from None  # a twin request won the race for the name
    _take_account_turn(user, check=False)  # the sign-up's mail is the first of its day
    return user


def _waiting_of(user: User) -> PendingEmail | None:
    """The address ``user`` asked for and has not confirmed, if any."""
    return PendingEmail.objects.filter(user=user).first()


def _ask_for_address(user: User, email: str) -> None:
    """``email`` waits for ``user``'s confirmation, replacing any other; its mail is queued."""
    PendingEmail.objects.filter(user=user).delete()
    pending = PendingEmail.objects.create(user=user, email=email)
    _dispatch_on_commit(ADDRESS_MAIL, (pending.pk,))


def user_update(
    *,
    user: User,
    email: str | None = None,
    current_password: str | None = None,
    notifications_changes: dict[str, Any] | None = None,
    play_changes: dict[str, Any] | None = None,
) -> User:
    """Change what a user may change about themselves: the address, the notification
    preferences and the play settings (``games.away``).

    A new address needs ``current_password``, and becomes the account's only
    once the link mailed to it is followed: until then it waits, and the
    account's address, game mail and resets stay as they were. The answer is
    the same whether or not another account holds it (``address_mail_write``
    tells the address). Asking for the account's own address again, in any
    case, drops the one waiting. Raises ``MailHeld`` past the limits of
    confirmation mail. One transaction: either every change is saved or none is.
    """
    with transaction.atomic():
        if email is not None:
            _change_address(user=user, email=email, current_password=current_password)
        if notifications_changes:
            notifications.preferences_update(user, **notifications_changes)
        if play_changes:
            away.play_settings_update(user=user, **play_changes)
    return user


def _change_address(*, user: User, email: str, current_password: str | None) -> None:
    waiting = _waiting_of(user)
    if email == user.email and waiting is None:
        return  # no change
    _require_password(user, current_password, to="change the address")
    if user.email and email.lower() == user.email.lower():
        PendingEmail.objects.filter(user=user).delete()
        if email != user.email:  # a change of case only: the same address, still confirmed
            user.email = email
            user.save(update_fields=["email"])
        return
    _take_mail_turn(user=user, email=email)
    _ask_for_address(user, email)


def _cooling_down(key: str, seconds: int) -> bool:
    """True when the same mail went out less than ``seconds`` ago (else start the clock).

    The rate limits count requests per client; this counts mails per
    account, so nobody can fill someone's inbox from many clients.
    """
    return not cache.add(f"accounts.mail.{key}", 1, timeout=seconds)


def verification_token(user: User, email: str) -> str:
    """A signed, timestamped token naming the user and the address it confirms."""
    return signing.TimestampSigner(salt=_VERIFY_SALT).sign_object(
        {"user": user.pk, "email": email.lower()}
    )


def email_verification_send(*, user: User) -> str:
    """Mail again the address waiting for confirmation; returns that address.

    With none waiting, the account's own address if it is not confirmed yet
    (an account made in the admin). Raises ``Conflict`` (``already_verified``)
    when there is nothing to confirm, ``ServiceError`` (``no_email``) when
    the account has no address at all, ``MailHeld`` past the limits.
    """
    waiting = _waiting_of(user)
    if waiting is not None:
        address = waiting.email
    elif notifications.email_is_verified(user):
        raise Conflict("Your address is confirmed already.", code="already_verified")
    elif not user.email:
        raise ServiceError("Your account has no address: set one first.", code="no_email")
    else:
        address = user.email
    _take_mail_turn(user=user, email=address)
    with transaction.atomic():
        _ask_for_address(user, address)
    return address


def address_mail_write(*, pending_id: int) -> bool:
    """Write the mail of an address waiting for confirmation (the job ``ADDRESS_MAIL``).

    A confirmation link when no other account holds the address; else a
    note to the address that someone tried to sign up with it, or to make it
    another account's, with the way to a new password for the account that
    holds it (``email_in_use``). Neither says anything the asking user chose.
    Once per waiting address: False when it was mailed already, or replaced,
    confirmed or its user deactivated since.
    """
    with transaction.atomic():
        pending = (
            PendingEmail.objects.select_for_update(of=("self",))
            .select_related("user")
            .filter(pk=pending_id, mailed_at__isnull=True)
            .first()
        )
        if pending is None or not pending.user.is_active:
            return False
        user, email = pending.user, pending.email
        holder = User.objects.filter(email__iexact=email).exclude(pk=user.pk).first()
        if holder is None:
            token = verification_token(user, email)
            link = conf.site_url() + reverse("accounts:verify-email", args=[token])
            kind, subject = "verify_email", "Confirm your e-mail address for Gamenook"
            context: dict[str, Any] = {"email": email, "link": link, "days": conf.verify_days()}
        else:
            signup = not user.email
            kind = "email_in_use"
            subject = (
                "Someone tried to sign up for Gamenook with your address"
                if signup
                else "Someone asked to use your address for a Gamenook account"
            )
            context = {
                "email": email,
                "signup": signup,
                "holder": holder.username,
                "holder_confirmed": notifications.email_is_verified(holder),
                "forgot_url": conf.password_forgot_url(),
            }
        notifications.account_mail_enqueue(
            user=user,
            kind=kind,
            to=email,
            subject=subject,
            text=render_to_string(f"accounts/email/{kind}.txt", context),
        )
        pending.mailed_at = timezone.now()
        pending.save(update_fields=["mailed_at"])
    return True


def email_verify(*, token: str) -> User:
    """Confirm the address a link was made for; raises ``InvalidLink`` otherwise.

    The address waiting becomes the account's, and the address confirmed
    before it is told (``email_changed``); or the account's own address,
    not confirmed yet, is confirmed. The link stops working once another
    address was asked for, and after ``GAMENOOK_VERIFY_DAYS`` days.
    """
    try:
        data = signing.TimestampSigner(salt=_VERIFY_SALT).unsign_object(
            token, max_age=conf.verify_days() * _DAY
        )
    except (signing.BadSignature, ValueError, TypeError):
        raise InvalidLink() from None
    if not isinstance(data, dict) or not isinstance(data.get("user"), int):
        raise InvalidLink()
    address = data.get("email")
    user = User.objects.filter(pk=data["user"], is_active=True).first()
    if user is None or not isinstance(address, str) or not address:
        raise InvalidLink()
    with transaction.atomic():
        waiting = PendingEmail.objects.select_for_update().filter(user=user).first()
        if waiting is not None and waiting.email.lower() == address:
            _adopt_address(user, waiting)
        elif user.email.lower() == address:
            notifications.email_verified_set(user, user.email)
        else:
            raise InvalidLink()
    return user


def _adopt_address(user: User, waiting: PendingEmail) -> None:
    """``waiting`` becomes ``user``'s address, confirmed; the confirmed one before is told."""
    before = user.email if notifications.email_is_verified(user) else ""
    taken = InvalidLink("This address belongs to another account now, so it cannot be yours.")
    if waiting.email != user.email:
        if User.objects.filter(email__iexact=waiting.email).exclude(pk=user.pk).exists():
            raise taken
        previous, user.email = user.email, waiting.email
        try:
            with transaction.atomic():
                user.save(update_fields=["email"])
        except IntegrityError:  # another account confirmed it a moment ago
            user.email = previous
            raise taken from None
    waiting.delete()
    notifications.email_verified_set(user, user.email)
    if before and before.lower() != user.email.lower():
        context = {"user": user, "masked": masked_email(user.email), "when": _now_text()}
        context["site_url"] = conf.site_url()
        notifications.account_mail_enqueue(
            user=user,
            kind="email_changed",
            to=before,
            subject="The address of your Gamenook account was changed",
            text=render_to_string("accounts/email/email_changed.txt", context),
        )


# ----------------------------------------------------------------------------
# Passwords


def _password_notice(user: User, *, reset: bool) -> None:
    """Tell the account's confirmed address that its password changed (none: nobody to tell)."""
    if not notifications.email_is_verified(user):
        return
    context = {
        "user": user,
        "reset": reset,
        "when": _now_text(),
        "forgot_url": conf.password_forgot_url(),
    }
    notifications.account_mail_enqueue(
        user=user,
        kind="password_changed",
        to=user.email,
        subject="The password of your Gamenook account was changed",
        text=render_to_string("accounts/email/password_changed.txt", context),
    )


def password_reset_request(*, email: str) -> None:
    """Queue the job that mails a password reset link for ``email`` (``password_reset_write``).

    Looks nothing up here: the request does the same work and answers the
    same whatever the address, so nobody learns which addresses have accounts.
    """
    _dispatch_on_commit(RESET_MAIL, (email,))


def password_reset_write(*, email: str) -> bool:
    """Write the reset mail for ``email`` (the job ``RESET_MAIL``); True when one was written.

    Only to an active account whose address it is and is confirmed: never to
    an address that waits for confirmation, so a session that asked for a
    new address cannot take the account with a reset. An account that never
    confirmed an address cannot reset its password by mail. At most one a
    minute per account.
    """
    user = User.objects.filter(email__iexact=email, is_active=True).first()
    if user is None or not user.has_usable_password():
        return False
    if not notifications.email_is_verified(user) or _cooling_down(f"reset.{user.pk}", 60):
        return False
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
    return True


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

    The link went to the account's confirmed address (and stops working if
    the address changes), which is told of the new password too.
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
        _password_notice(user, reset=True)
    return user


def password_change(
    *, user: User, current_password: str, new_password: str, keep: ApiToken | None = None
) -> None:
    """Change a signed-in user's password; every other token of theirs is revoked.

    ``keep`` is the token the request came with, so the client that changed
    the password stays signed in.
    """
    _require_password(user, current_password, to="change the password")
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
        _password_notice(user, reset=False)


# ----------------------------------------------------------------------------
# Tokens


def token_create(
    *, user: User, name: str, scope: str = ApiToken.Scope.ACCOUNT
) -> tuple[ApiToken, str]:
    """A new token for ``user`` named ``name``; returns it and its key (shown only now).

    A token of the same name is replaced (the client asked again); a user
    holds at most ``MAX_TOKENS``. A bot account's tokens are ``play`` tokens
    whatever ``scope`` asks (issue 40): nothing of an account is its bot's.
    """
    if selectors.is_bot(user):
        scope = ApiToken.Scope.PLAY
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
            user=user,
            name=name,
            scope=scope,
            prefix=key[:PREFIX_LENGTH],
            digest=token_digest(key),
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
        # Issue 40: nobody answers for the bots of an account that is gone.
        for bot in selectors.bots_of(owner=user):
            if not bot.disabled:
                _bot_switch(bot.user, disabled=True)
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
        PendingEmail.objects.filter(user=user).delete()
        NameKey.objects.filter(user=user).delete()
        notifications.preferences_forget(user)
    return user


# ----------------------------------------------------------------------------
# Bot accounts (issue 40)
#
# A bot account is a user with no password and no address, made by its owner, whose
# tokens are ``play`` tokens (``authentication``). Its row is games' (``BotAccount``),
# written through ``games.services``. Disabling it deactivates the user, so its tokens
# stop at once, and tells the live sockets and streams (``credentials_changed``); it
# is never deleted: its games keep its name.

#: The name of the token a new bot account is given.
FIRST_BOT_TOKEN_NAME = "first"  # noqa: S105 (a name, not a secret)
#: The longest description of a bot account (``BotAccount.description``).
BOT_DESCRIPTION_LENGTH = 200


class BotNotAllowed(Forbidden):
    code = "bots_not_allowed"
    message = "This account may not make bot accounts."


def _clean_description(description: str) -> str:
    """``description`` stripped; ``ServiceError`` when too long or holding control characters."""
    text = description.strip()
    problem = None
    if len(text) > BOT_DESCRIPTION_LENGTH:
        problem = f"At most {BOT_DESCRIPTION_LENGTH} characters."
    elif any(unicodedata.category(char) in {"Cc", "Cf", "Cs", "Co"} for char in text):
        problem = "No control or invisible characters."
    if problem:
        raise ServiceError(
            "The description is not acceptable.", code="invalid", fields={"description": [problem]}
        )
    return text


def _may_own_bots(owner: User) -> None:
    """Refuse an owner who is a bot, inactive, or has no confirmed address.

    The confirmed address is the one ``notifications`` sends game mail to:
    a person a moderator can reach answers for their bots.
    """
    if not owner.is_active or selectors.is_bot(owner):
        raise BotNotAllowed("A bot account cannot make bot accounts.")
    if not notifications.email_is_verified(owner):
        raise BotNotAllowed(
            "Confirm your e-mail address first: a bot account's owner must be reachable.",
            code="email_not_confirmed",
        )


def bot_create(*, owner: User, username: str, description: str = "") -> tuple[User, str]:
    """Make a bot account run by ``owner``; returns its user and a first token's key.

    The key (a ``play`` token named ``FIRST_BOT_TOKEN_NAME``) is shown only now.
    The name follows the sign-up rules (``validators``, one name per
    ``NameKey``). Raises ``BotNotAllowed`` (403) for an owner who is a bot or
    has no confirmed address, ``Conflict`` (``too_many_bots``) past
    ``GAMENOOK_BOTS_PER_OWNER`` bots (disabled ones count), ``ServiceError``
    (``invalid``, with ``fields``) for a refused or taken name or description.
    """
    text = _clean_description(description)
    _may_own_bots(owner)
    name, key = _clean_username(username)
    limit = conf.bots_per_owner()
    try:
        with transaction.atomic():
            User.objects.select_for_update().filter(pk=owner.pk).first()  # one at a time
            if selectors.bot_count(owner=owner) >= limit:
                raise Conflict(
                    f"You have {limit} bot accounts, the most one person may have.",
                    code="too_many_bots",
                )
            user = User.objects.create_user(username=name, email="", password=None)
            NameKey.objects.create(user=user, key=key)
            games.bot_account_register(owner=owner, user=user, description=text)
            _token, token_key = token_create(
                user=user, name=FIRST_BOT_TOKEN_NAME, scope=ApiToken.Scope.PLAY
            )
    except IntegrityError:
        raise _taken_name() from None  # a twin request won the race for the name
    logger.info("bot account %s made by %s", user.pk, owner.pk)
    return user, token_key


def _owned(owner: User, bot: User) -> None:
    """Refuse, as "not found", a bot that is not ``owner``'s (or not a bot at all)."""
    found = selectors.owner_of(bot)
    if found is None or found.pk != owner.pk:
        raise NotFound("No such bot account.")


def bot_token_create(*, owner: User, bot: User, name: str) -> tuple[ApiToken, str]:
    """A new ``play`` token for ``owner``'s ``bot``; returns it and its key (shown only now).

    Refused with ``Conflict`` (``bot_disabled``) while the bot is disabled.
    """
    _owned(owner, bot)
    if not User.objects.filter(pk=bot.pk, is_active=True).exists():
        raise Conflict("This bot account is disabled: enable it first.", code="bot_disabled")
    return token_create(user=bot, name=name, scope=ApiToken.Scope.PLAY)


def bot_token_revoke(*, owner: User, bot: User, token_id: int) -> None:
    """Revoke one of ``owner``'s ``bot``'s tokens; another's bot or token is not found."""
    _owned(owner, bot)
    token_revoke(user=bot, token_id=token_id)


def bot_update(*, owner: User, bot: User, description: str) -> None:
    """Change the description of ``owner``'s ``bot``."""
    _owned(owner, bot)
    games.bot_account_change(user_id=bot.pk, description=_clean_description(description))


def _bot_switch(bot: User, *, disabled: bool, by_moderator: bool = False) -> None:
    """Disable or enable ``bot``: its row and its user together, in the caller's transaction."""
    games.bot_account_change(user_id=bot.pk, disabled=disabled, by_moderator=by_moderator)
    User.objects.filter(pk=bot.pk).update(is_active=not disabled)
    bot.is_active = not disabled
    if disabled:
        # The tokens are kept (enabling brings them back) but stop now; sockets and streams end.
        credentials_changed_on_commit(user_id=bot.pk, recheck=True)


def _may_switch(bot: User, by: User) -> User:
    """``bot``'s owner, when ``by`` is that owner or staff; else ``NotFound``."""
    owner = selectors.owner_of(bot)
    if owner is None or (owner.pk != by.pk and not by.is_staff):
        raise NotFound("No such bot account.")
    return owner


def bot_disable(bot: User, *, by: User, reason: str = "") -> bool:
    """Disable ``bot``: ``disabled_at`` set, its user inactive, its tokens refused at once.

    ``by`` is its owner (a pause: enabling it brings its tokens back) or a
    moderator (staff), for whom the bot also leaves every running game, as
    a deactivated user does. The bot's seats otherwise stay: its turns time
    out under each table's policy, as anyone's. False when it was disabled already.
    """
    owner = _may_switch(bot, by)
    with transaction.atomic():
        if not User.objects.select_for_update().filter(pk=bot.pk, is_active=True).exists():
            return False
        _bot_switch(bot, disabled=True, by_moderator=by.pk != owner.pk)
    logger.info("bot account %s disabled by %s: %s", bot.pk, by.pk, reason[:200])
    if by.pk != owner.pk:
        games.player_leave_all_tables(user=bot)
    return True


def bot_enable(bot: User, *, by: User) -> bool:
    """Enable ``bot`` again (its tokens work again); False when it was enabled already.

    Refused with ``Conflict`` (``owner_inactive``) while its owner's account
    is deactivated.
    """
    owner = _may_switch(bot, by)
    if not owner.is_active:
        raise Conflict("The bot's owner is deactivated.", code="owner_inactive")
    if not by.is_staff and games_selectors.bot_disabled_by_moderator(bot.pk):
        raise Forbidden(
            "A moderator disabled this bot: only a moderator may enable it again.",
            code="disabled_by_moderator",
        )
    with transaction.atomic():
        if User.objects.select_for_update().filter(pk=bot.pk, is_active=True).exists():
            return False
        _bot_switch(bot, disabled=False)
    logger.info("bot account %s enabled by %s", bot.pk, by.pk)
    return True
