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
    name = models.CharField(max_length=64, help_text="Which client holds it, e.g. 'laptop'.")
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
