"""API tokens: several per user, each named, stored only as a hash.

A token is shown once, when it is made; the database keeps its SHA-256 and
its first characters (``prefix``), enough to tell a user's tokens apart in a
list or the admin, never enough to use one. SHA-256 without a salt is the
right hash here: a token is 256 random bits, so there is nothing to guess.
"""

from __future__ import annotations

import hashlib

from django.conf import settings
from django.db import models

#: Characters of a token shown in lists and the admin.
PREFIX_LENGTH = 8


def token_digest(key: str) -> str:
    return hashlib.sha256(key.encode("utf-8", "surrogatepass")).hexdigest()


class ApiToken(models.Model):
    user = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="api_tokens"
    )

    class Scope(models.TextChoices):
        ACCOUNT = "account", "The whole account"
        PLAY = "play", "Playing only"

    name = models.CharField(max_length=64, help_text="Which client holds it, e.g. 'laptop'.")
    # Issue 40: a ``play`` token (every token of a bot account) reaches the tables, the
    # streams and the public reads, and nothing of the account (``authentication``).
    scope = models.CharField(max_length=8, choices=Scope.choices, default=Scope.ACCOUNT)
    prefix = models.CharField(max_length=PREFIX_LENGTH, editable=False)
    digest = models.CharField(max_length=64, unique=True, editable=False)
    created_at = models.DateTimeField(auto_now_add=True)
    last_used_at = models.DateTimeField(null=True, blank=True, editable=False)

    class Meta:
        ordering = ["user", "created_at"]
        verbose_name = "API token"
        constraints = [
            models.UniqueConstraint(fields=["user", "name"], name="apitoken_unique_user_name"),
        ]

    def __str__(self) -> str:
        return f"{self.name} ({self.prefix}…) of {self.user}"


class PendingEmail(models.Model):
    """An address a user asked for and has not confirmed: it is not the account's yet.

    The account's own address (``User.email``, unique in any case) changes
    only when the link mailed here is followed, so asking for an address
    takes it from nobody, and answers the same whether another account
    holds it or not (``services``). A user has at most one; asking for
    another replaces it (a new row, so a job queued for the old one finds
    nothing). ``mailed_at`` is set in the transaction that wrote its mail,
    so a job run twice mails once.
    """

    user = models.OneToOneField(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="pending_email"
    )
    email = models.EmailField()
    created_at = models.DateTimeField(auto_now_add=True)
    mailed_at = models.DateTimeField(null=True, blank=True, editable=False)

    class Meta:
        verbose_name = "address waiting for confirmation"
        verbose_name_plural = "addresses waiting for confirmation"

    def __str__(self) -> str:
        return f"{self.email} (not confirmed) for {self.user}"


class NameKey(models.Model):
    """A username as names are compared (``validators.name_key``), unique.

    ``Alice``, ``ＡＬＩＣＥ`` and ``alice`` have one key, so the database keeps
    a second of them out even when two sign-ups race. Written by
    ``services.user_register`` and, for the accounts that were there before,
    by migration 0003; an account anonymised loses its key with its name.
    """

    user = models.OneToOneField(
        settings.AUTH_USER_MODEL,
        on_delete=models.CASCADE,
        primary_key=True,
        related_name="name_key",
    )
    key = models.CharField(max_length=600, unique=True)

    def __str__(self) -> str:
        return f"{self.key} ({self.user_id})"
