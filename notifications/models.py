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
        # Sent instead of a confirmation link when another account holds the address.
        EMAIL_IN_USE = "email_in_use", "The address belongs to an account already"
        # Told to the confirmed address when the account's address or password changes.
        EMAIL_CHANGED = "email_changed", "Your address was changed"
        PASSWORD_CHANGED = "password_changed", "Your password was changed"

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


class TurnNotice(models.Model):
    """The one "your turn" message a user may have waiting (ruling 19).

    A new turn of theirs at a turn-by-turn table sets ``due_at`` (the quiet
    delay from now) unless it is set already; at ``due_at`` the sweep hands
    the user to ``away.turn_notice_decide``, which mails them once about every
    table where it is their turn, postpones while they are at a table, or
    drops the notice when they moved first. ``told`` holds the turns the last
    message named, ``{table id: turn}``, so a turn is never announced twice.
    The row is locked while deciding: that makes the message exactly once.
    """

    user = models.OneToOneField(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="turn_notice"
    )
    #: When to decide; None: nothing waiting.
    due_at = models.DateTimeField(null=True, blank=True)
    told = models.JSONField(default=dict, blank=True)
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        indexes = [
            # The sweep reads only the notices waiting, through this index.
            models.Index(
                fields=["due_at"], name="turn_notice_due", condition=Q(due_at__isnull=False)
            ),
        ]

    def __str__(self) -> str:
        return f"Your-turn notice of user {self.user_id} (due {self.due_at})"


class TableSeen(models.Model):
    """The last time a user had a table open (ruling 19: a player at the table is not away).

    Written at most once a minute per user, table and web process while the
    page polls (``away.table_seen``), and when a socket at the table closes.
    Rows older than the quiet delay say nothing any more; the sweep deletes them.
    """

    user = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="tables_seen"
    )
    table = models.ForeignKey("games.Table", on_delete=models.CASCADE, related_name="seen_by")
    seen_at = models.DateTimeField()

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["user", "table"], name="table_seen_unique_user_table"),
        ]
        indexes = [models.Index(fields=["seen_at"], name="table_seen_at")]

    def __str__(self) -> str:
        return f"User {self.user_id} saw table {self.table_id} at {self.seen_at}"
