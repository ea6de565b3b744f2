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
        LAST_CALL = "last_call", "Last call"
        DIGEST = "digest", "Daily digest"
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
        # Issue 40: told to a bot's owner when its webhook failed for a day and was disabled.
        WEBHOOK_DISABLED = "webhook_disabled", "Your bot's webhook was disabled"

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


class LastCallWhen(models.TextChoices):
    OFF = "off", "Off"
    TENTH = "tenth", "When a tenth of the time is left"
    HOUR = "hour", "In the last hour"


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
    # A last call by e-mail (issue 38), and when it comes: off, when a tenth of the
    # turn's time is left, or in its last hour (``LastCallWhen``).
    last_call = models.BooleanField(default=True)
    last_call_when = models.CharField(max_length=5, choices=LastCallWhen.choices, default="tenth")
    # The same kinds by web push, to every device the user turned push on for
    # (``PushSubscription``): on by default, so turning push on for a device is enough.
    your_turn_push = models.BooleanField(default=True)
    reminder_push = models.BooleanField(default=True)
    last_call_push = models.BooleanField(default=True)
    game_over_push = models.BooleanField(default=True)
    # The daily digest: opt-in, at ``digest_hour`` o'clock in ``time_zone`` (an IANA
    # name). ``digest_due_at`` is the next instant it is due (None: off), which the
    # sweep reads through its index; ``digest_sent_at`` the last one decided, sent
    # or not: games that ended since then are news.
    digest = models.BooleanField(default=False)
    digest_hour = models.PositiveSmallIntegerField(default=8)
    time_zone = models.CharField(max_length=64, default="UTC")
    digest_due_at = models.DateTimeField(null=True, blank=True)
    digest_sent_at = models.DateTimeField(null=True, blank=True)
    # The address the user proved they read (accounts' signed link). Game mail goes
    # only to this address, so changing the account's address stops it until the
    # new one is confirmed too.
    verified_email = models.EmailField(blank=True, default="")
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        verbose_name_plural = "preferences"
        indexes = [
            models.Index(
                fields=["digest_due_at"],
                name="prefs_digest_due",
                condition=Q(digest_due_at__isnull=False),
            ),
        ]

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


class LastCall(models.Model):
    """The last call of one turn of one table, handled once (as ``Reminder``)."""

    table = models.ForeignKey("games.Table", on_delete=models.CASCADE, related_name="last_calls")
    turn = models.PositiveIntegerField()
    seat = models.SmallIntegerField(null=True, blank=True)
    sent_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["table", "turn"]
        constraints = [
            models.UniqueConstraint(fields=["table", "turn"], name="last_call_unique_table_turn"),
        ]

    def __str__(self) -> str:
        return f"Last call for turn {self.turn} of table {self.table_id}"


class PushSubscription(models.Model):
    """One device (a browser) that a user turned web push on for.

    ``endpoint`` is the push service's URL for the device, ``p256dh`` and
    ``auth`` its keys (base64url), as the browser's ``PushSubscription.toJSON()``
    gives them. A subscription the push service reports gone (404, 410) is deleted.
    """

    user = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="push_subscriptions"
    )
    endpoint = models.URLField(max_length=2048, unique=True)
    p256dh = models.CharField(max_length=128)
    auth = models.CharField(max_length=64)
    #: What the user calls the device ("phone"), or the browser's name.
    name = models.CharField(max_length=100, blank=True, default="")
    created_at = models.DateTimeField(auto_now_add=True)
    last_sent_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["user", "created_at"]

    def __str__(self) -> str:
        return f"Push device {self.name or self.pk} of {self.user}"


class PushMessage(models.Model):
    """One push notification to one device: written in the transaction that decided it,
    sent by a task, retried like the e-mail outbox.

    ``tag`` is the notification's tag (one per table: a new one replaces the last on
    the device). Unique on (subscription, kind, table, turn) for a table's turn.
    """

    class Status(models.TextChoices):
        PENDING = "pending", "Pending"
        SENT = "sent", "Sent"
        FAILED = "failed", "Failed"
        GONE = "gone", "The device is gone"

    subscription = models.ForeignKey(
        PushSubscription, on_delete=models.CASCADE, related_name="messages"
    )
    user = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="push_messages"
    )
    kind = models.CharField(max_length=20, choices=OutboxMessage.Kind.choices)
    table = models.ForeignKey(
        "games.Table", on_delete=models.CASCADE, null=True, blank=True, related_name="push_messages"
    )
    turn = models.PositiveIntegerField(null=True, blank=True)
    tag = models.CharField(max_length=64)
    payload = models.JSONField()
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
                fields=["subscription", "kind", "table", "turn"],
                condition=Q(table__isnull=False, turn__isnull=False),
                name="push_unique_sub_kind_table_turn",
            ),
        ]
        indexes = [
            models.Index(
                fields=["next_attempt_at"],
                name="push_pending_next_attempt",
                condition=Q(status="pending"),
            ),
        ]

    def __str__(self) -> str:
        return f"Push {self.kind} to device {self.subscription_id} ({self.status})"


class WebhookEndpoint(models.Model):
    """Issue 40: the HTTPS URL a bot account's events are posted to (Standard Webhooks).

    ``secrets`` are the ``whsec_`` signing secrets, newest first, each sealed
    (Fernet, under a key derived from the secret key: ``webhooks._seal``): every
    delivery is signed with each (one ``v1,`` signature per secret), so a
    receiver keeps working through a rotation; an older secret is dropped once
    ``secrets_expire`` (the same order; None: does not expire) has passed.
    ``failing_since`` is the first failure of an unbroken run; after a day of
    them the endpoint is disabled (``disabled_at``) and the owner told.
    """

    user = models.OneToOneField(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="webhook"
    )
    url = models.URLField(max_length=2048)
    secrets = models.JSONField(default=list)
    secrets_expire = models.JSONField(default=list)
    created_at = models.DateTimeField(auto_now_add=True)
    failing_since = models.DateTimeField(null=True, blank=True)
    disabled_at = models.DateTimeField(null=True, blank=True)
    disabled_reason = models.CharField(max_length=200, blank=True)

    class Meta:
        verbose_name = "webhook endpoint"

    def __str__(self) -> str:
        return f"Webhook of {self.user}: {self.url}"


class WebhookDelivery(models.Model):
    """One event posted to one endpoint: written in the transaction that decided it,
    sent by a task, retried with backoff like the e-mail outbox; the admin's delivery log.

    ``msg_id`` is the Standard Webhooks ``webhook-id`` (the same on every attempt,
    so the receiver can drop a repeat). Unique on (endpoint, event, table, turn) for
    a table's event.
    """

    class Status(models.TextChoices):
        PENDING = "pending", "Pending"
        SENT = "sent", "Delivered"
        FAILED = "failed", "Failed"

    endpoint = models.ForeignKey(
        WebhookEndpoint, on_delete=models.CASCADE, related_name="deliveries"
    )
    msg_id = models.CharField(max_length=64, unique=True)
    event = models.CharField(max_length=20)
    table = models.ForeignKey(
        "games.Table",
        on_delete=models.CASCADE,
        null=True,
        blank=True,
        related_name="webhook_deliveries",
    )
    turn = models.PositiveIntegerField(null=True, blank=True)
    payload = models.JSONField()
    status = models.CharField(max_length=10, choices=Status.choices, default=Status.PENDING)
    attempts = models.PositiveIntegerField(default=0)
    last_status_code = models.PositiveSmallIntegerField(null=True, blank=True)
    last_error = models.TextField(blank=True)
    next_attempt_at = models.DateTimeField(null=True, blank=True)
    created_at = models.DateTimeField(auto_now_add=True)
    sent_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["-created_at"]
        verbose_name_plural = "webhook deliveries"
        constraints = [
            models.UniqueConstraint(
                fields=["endpoint", "event", "table", "turn"],
                condition=Q(table__isnull=False, turn__isnull=False),
                name="webhook_unique_event_table_turn",
            ),
        ]
        indexes = [
            models.Index(
                fields=["next_attempt_at"],
                name="webhook_pending_next_attempt",
                condition=Q(status="pending"),
            ),
        ]

    def __str__(self) -> str:
        return f"{self.event} to {self.endpoint_id} ({self.status})"
