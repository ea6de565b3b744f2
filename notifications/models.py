"""Reminders sent, the e-mail outbox and per-user preferences."""

from __future__ import annotations

from django.conf import settings
from django.db import models
from django.db.models import Q


class Reminder(models.Model):
    """The halfway reminder of one turn of one table, recorded once.

    The unique (table, turn) constraint is what makes the reminder exactly
    once: the row is inserted in the same transaction as its e-mail, under
    the table's row lock. A row exists even when nobody was mailed (a bot's
    turn, a player who opted out): it records that the reminder was handled.
    """

    table = models.ForeignKey("games.Table", on_delete=models.CASCADE, related_name="reminders")
    turn = models.PositiveIntegerField()
    seat = models.SmallIntegerField(null=True, blank=True)
    sent_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["table", "turn"]
        constraints = [
            models.UniqueConstraint(fields=["table", "turn"], name="reminder_unique_table_turn"),
        ]

    def __str__(self) -> str:
        return f"Reminder for turn {self.turn} of table {self.table_id}"


class OutboxMessage(models.Model):
    """One e-mail: written in the transaction that decided to send it, sent by a task.

    A message about a table's turn is unique on (kind, table, turn, user), so
    a decision taken twice writes one message.
    """

    class Kind(models.TextChoices):
        YOUR_TURN = "your_turn", "Your turn"
        REMINDER = "reminder", "Halfway reminder"
        TIMEOUT = "timeout", "Your time ran out"
        GAME_OVER = "game_over", "The game is over"
        # Account mail (composed by accounts): sent whatever the preferences say.
        VERIFY_EMAIL = "verify_email", "Confirm your e-mail address"
        PASSWORD_RESET = "password_reset", "Reset your password"

    class Status(models.TextChoices):
        PENDING = "pending", "Pending"
        SENT = "sent", "Sent"
        FAILED = "failed", "Failed"
        CANCELLED = "cancelled", "Cancelled"

    user = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="outbox_messages"
    )
    to = models.EmailField()
    subject = models.CharField(max_length=255)
    text = models.TextField()
    html = models.TextField(blank=True)
    headers = models.JSONField(default=dict, blank=True)
    kind = models.CharField(max_length=20, choices=Kind.choices)
    table = models.ForeignKey(
        "games.Table",
        on_delete=models.CASCADE,
        null=True,
        blank=True,
        related_name="outbox_messages",
    )
    turn = models.PositiveIntegerField(null=True, blank=True)
    status = models.CharField(max_length=10, choices=Status.choices, default=Status.PENDING)
    attempts = models.PositiveIntegerField(default=0)
    last_error = models.TextField(blank=True)
    next_attempt_at = models.DateTimeField(null=True, blank=True)
    created_at = models.DateTimeField(auto_now_add=True)
    sent_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["-created_at"]
        constraints = [
            models.UniqueConstraint(
                fields=["kind", "table", "turn", "user"],
                condition=Q(table__isnull=False, turn__isnull=False),
                name="outbox_unique_kind_table_turn_user",
            ),
        ]
        indexes = [
            # The sweep re-queues pending messages whose retry is overdue.
            models.Index(
                fields=["next_attempt_at"],
                name="outbox_pending_next_attempt",
                condition=Q(status="pending"),
            ),
        ]

    def __str__(self) -> str:
        return f"{self.get_kind_display()} to {self.to} ({self.status})"


class Preferences(models.Model):
    """Which e-mails a user wants. Created with every switch on when first needed."""

    user = models.OneToOneField(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="notification_preferences"
    )
    your_turn = models.BooleanField(default=True)
    reminder = models.BooleanField(default=True)
    timeout = models.BooleanField(default=True)
    game_over = models.BooleanField(default=True)
    unsubscribed_all = models.BooleanField(default=False)
    # The address the user proved they read (accounts' signed link). Game mail goes
    # only to this address, so changing the account's address stops it until the
    # new one is confirmed too.
    verified_email = models.EmailField(blank=True, default="")
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        verbose_name_plural = "preferences"

    def __str__(self) -> str:
        return f"E-mail preferences of {self.user}"

    def wants(self, kind: str) -> bool:
        """True when the user wants e-mail of ``kind`` (an ``OutboxMessage.Kind``)."""
        return not self.unsubscribed_all and bool(getattr(self, kind))
