"""Ratings per game, mode and rules; each seat's result of a finished game; resets.

A *ladder* is a game (``flip``, ``wildcards``), a mode (turn by turn or real
time) and its rules (standard, or with house rules): a rating belongs to one
person or one bot level on one ladder. ``Result`` is the row a finished game
leaves per seat (rated or not): its rank, the weight of the seat's person in
it, and the rating before and after. The move log stays the truth:
``ratings.rebuild`` makes every rating again from it.
"""

from __future__ import annotations

from django.conf import settings
from django.db import models
from django.db.models import Q

#: The bot levels (``games.models.Seat.BotLevel``), without importing games' models.
BOT_LEVELS = [("easy", "Easy"), ("normal", "Normal"), ("hard", "Hard")]


class Mode(models.TextChoices):
    CORRESPONDENCE = "correspondence", "Turn by turn"
    REALTIME = "realtime", "Real time"


class Rules(models.TextChoices):
    STANDARD = "standard", "Standard rules"
    HOUSE = "house", "House rules"


class Rating(models.Model):
    """One person's or one bot level's rating on one ladder (``mu``, ``sigma``: the model's)."""

    game = models.CharField(max_length=32)
    mode = models.CharField(max_length=16, choices=Mode.choices)
    rules = models.CharField(max_length=8, choices=Rules.choices)
    user = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        on_delete=models.CASCADE,
        null=True,
        blank=True,
        related_name="ratings",
    )
    bot_level = models.CharField(max_length=10, choices=BOT_LEVELS, blank=True, default="")
    mu = models.FloatField()
    sigma = models.FloatField()
    # mu - 3 sigma: the conservative figure the leaderboards sort by (``shown``).
    ordinal = models.FloatField()
    games = models.PositiveIntegerField(default=0)
    last_game_at = models.DateTimeField(null=True, blank=True)
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        constraints = [
            models.UniqueConstraint(
                fields=["game", "mode", "rules", "user"],
                condition=Q(user__isnull=False),
                name="rating_unique_user",
            ),
            models.UniqueConstraint(
                fields=["game", "mode", "rules", "bot_level"],
                condition=Q(user__isnull=True),
                name="rating_unique_bot",
            ),
            models.CheckConstraint(
                condition=(Q(user__isnull=False) & Q(bot_level=""))
                | (Q(user__isnull=True) & ~Q(bot_level="")),
                name="rating_user_xor_bot",
            ),
        ]
        indexes = [
            # A leaderboard: people on one ladder, best first (docs/ratings.md has its plan).
            # The ladder's whole order (the id breaks ties, as the query does) and the
            # filter's columns carried along: a page is an index-only scan that stops at its
            # last row (docs/ratings-performance.md).
            models.Index(
                fields=["game", "mode", "rules", "-ordinal", "id"],
                include=["games", "sigma", "last_game_at", "mu", "user"],
                name="rating_leaderboard",
                condition=Q(user__isnull=False),
            ),
        ]

    def __str__(self) -> str:
        who = f"bot ({self.bot_level})" if self.bot_level else str(self.user)
        return f"{who} on {self.game} {self.mode} {self.rules}: {self.mu:.2f} ± {self.sigma:.2f}"


class Result(models.Model):
    """One seat's result of a finished game, and what it did to the seat's rating."""

    table = models.ForeignKey("games.Table", on_delete=models.CASCADE, related_name="results")
    seat = models.PositiveSmallIntegerField()
    # The seat's person (its player, or the one a moderator replaced by a bot); None for a
    # bot's own seat, whose level is ``bot_level``.
    user = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        on_delete=models.CASCADE,
        null=True,
        blank=True,
        related_name="results",
    )
    bot_level = models.CharField(max_length=10, choices=BOT_LEVELS, blank=True, default="")
    game = models.CharField(max_length=32)
    mode = models.CharField(max_length=16, choices=Mode.choices)
    rules = models.CharField(max_length=8, choices=Rules.choices)
    seats = models.PositiveSmallIntegerField()
    rank = models.PositiveSmallIntegerField()
    # The seat's person left before the end (conceded, or treated as having left).
    left = models.BooleanField(default=False)
    # The share of the seat's turns its person played, stand-ins counting for less
    # (``ratings.model.weight``): how far the game moved their rating.
    weight = models.FloatField()
    rated = models.BooleanField()
    mu_before = models.FloatField(null=True, blank=True)
    sigma_before = models.FloatField(null=True, blank=True)
    mu_after = models.FloatField(null=True, blank=True)
    sigma_after = models.FloatField(null=True, blank=True)
    finished_at = models.DateTimeField()
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["table", "seat"], name="result_unique_seat"),
        ]
        indexes = [
            # A player's page: their recent games, their history on a ladder.
            models.Index(
                fields=["user", "-finished_at"],
                name="result_user_recent",
                condition=Q(user__isnull=False),
            ),
        ]

    def __str__(self) -> str:
        return f"Seat {self.seat} of table {self.table_id}: rank {self.rank}"


class RatingReset(models.Model):
    """A moderator set a rating back to a newcomer's: the audit log, and the rebuild's input.

    ``after_result``: the last ``Result`` written before the reset, so the
    rebuild applies it between the same two games.
    """

    rating = models.ForeignKey(Rating, on_delete=models.CASCADE, related_name="resets")
    moderator = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        on_delete=models.SET_NULL,
        null=True,
        related_name="rating_resets",
    )
    reason = models.CharField(max_length=500)
    mu_before = models.FloatField()
    sigma_before = models.FloatField()
    after_result = models.BigIntegerField(default=0)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["-created_at"]

    def __str__(self) -> str:
        return f"Reset of {self.rating} by {self.moderator} at {self.created_at:%Y-%m-%d %H:%M}"
