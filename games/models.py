"""Tables, seats, the append-only move log and idempotency records.

A table's whole game lives in ``Table.state``, the snapshot its game's
ruleset reads and writes (``Table.game`` names the game and
``Table.game_version`` the version of its rules, ``games.rulesets``);
``Move`` rows are only ever appended, so any game can be audited and
replayed exactly while each action costs the same however long
the game has run.
"""

from __future__ import annotations

from typing import Any

from django.conf import settings
from django.db import models
from django.db.models import Q


class TimeStamped(models.Model):
    created_at = models.DateTimeField(auto_now_add=True)
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        abstract = True


class Table(TimeStamped):
    class Status(models.TextChoices):
        LOBBY = "lobby", "Lobby"
        ACTIVE = "active", "Active"
        FINISHED = "finished", "Finished"
        ABORTED = "aborted", "Aborted"

    class TimeoutPolicy(models.TextChoices):
        BOT = "bot", "A bot plays the turn"
        LEAVE = "leave", "Treated as having left"

    class BotAccounts(models.TextChoices):
        REFUSED = "refused", "Refused"
        INVITED = "invited", "Only those the host invites"
        WELCOME = "welcome", "Welcome"

    TURN_HOURS = (12, 24, 72)
    #: The move timers of a real-time table in seconds (``tabletop.realtime.MOVE_TIMERS``).
    MOVE_SECONDS = (15, 30, 45)

    host = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="hosted_tables"
    )
    status = models.CharField(max_length=10, choices=Status.choices, default=Status.LOBBY)
    seat_count = models.PositiveSmallIntegerField()
    # The game (a ruleset's id, games.rulesets), chosen at creation, and the version of its
    # rules the snapshot was written by.
    game = models.CharField(max_length=32, default="flip", editable=False)
    game_version = models.PositiveSmallIntegerField(default=1, editable=False)
    # The game's options as its ruleset takes them (``Ruleset.make_options``), without the
    # seat count: checked by the ruleset when the table is opened.
    options = models.JSONField(default=dict, editable=False)
    turn_hours = models.PositiveSmallIntegerField(
        default=24, choices=[(h, f"{h} hours") for h in TURN_HOURS]
    )
    timeout_policy = models.CharField(
        max_length=10, choices=TimeoutPolicy.choices, default=TimeoutPolicy.BOT
    )
    allow_watchers = models.BooleanField(default=False)
    # Ruling 20: a player who is away has their turns played at once by their autopilot.
    # False: the host chose that away seats wait for their deadline like anyone's.
    autopilot = models.BooleanField(
        default=True,
        help_text="Turn by turn: a player who is away has their turns played at once by "
        "the bot they chose. Off: their seat waits for its deadline.",
    )
    # Issue 39: a rated game moves its players' ratings when it ends (``ratings``).
    rated = models.BooleanField(
        default=True, help_text="The game's result moves its players' ratings."
    )
    # The reliability (percent, ``selectors.reliability``) a player needs to take a seat
    # here; 0: anyone may.
    min_reliability = models.PositiveSmallIntegerField(
        default=0,
        help_text="The reliability (percent of turns on time and of games finished, over "
        "90 days) a player needs to join. 0: anyone.",
    )
    # Issue 40: whether bot accounts (``BotAccount``) may take a seat here.
    bot_accounts = models.CharField(
        max_length=8,
        choices=BotAccounts.choices,
        default=BotAccounts.INVITED,
        help_text="Bot accounts people wrote: refused, only those the host invited, or any.",
    )
    # A real-time table's move timer in seconds; None: turn by turn (``turn_hours``).
    move_seconds = models.PositiveSmallIntegerField(
        null=True,
        blank=True,
        choices=[(s, f"{s} seconds") for s in MOVE_SECONDS],
        help_text="Real time: the move timer. Empty: turn by turn.",
    )

    # The game: its ruleset's state snapshot and the number of moves in the log.
    state = models.JSONField(null=True, blank=True, editable=False)
    seq = models.PositiveIntegerField(default=0, editable=False)
    # The game's turn counter: a new turn (also an extra turn) is a new deadline.
    turn = models.PositiveIntegerField(default=0, editable=False)
    # The seat to act while the game runs (None otherwise), written with the snapshot so
    # that queries (whose turn, which bot is due) never read the snapshot's JSON.
    to_act = models.PositiveSmallIntegerField(null=True, blank=True, editable=False)
    # Bot turns whose bot raised or answered an illegal move, so the table played
    # the plain move of ruling 4 for it instead (games.services.table_run_bot_turn).
    bot_errors = models.PositiveIntegerField(default=0, editable=False)
    # Counts changes to the seats' public facts that append no move (a player
    # connecting, a seat held, a bot standing in): with ``seq`` it makes a view's ETag.
    presence_version = models.PositiveIntegerField(default=0, editable=False)
    turn_started_at = models.DateTimeField(null=True, blank=True, editable=False)
    deadline_at = models.DateTimeField(null=True, blank=True, editable=False)
    remind_at = models.DateTimeField(null=True, blank=True, editable=False)
    # Turn by turn: when the turn's earliest last call is due (issue 38; a tenth of the
    # turn's time before the deadline), for the sweep's index; put off to the moment the
    # player chose, and cleared once the last call is handled.
    last_call_at = models.DateTimeField(null=True, blank=True, editable=False)
    started_at = models.DateTimeField(null=True, blank=True, editable=False)
    finished_at = models.DateTimeField(null=True, blank=True, editable=False)

    class Meta:
        ordering = ["-created_at"]
        constraints = [
            models.CheckConstraint(
                condition=Q(seat_count__gte=2) & Q(seat_count__lte=10), name="table_seat_count_2_10"
            ),
            models.CheckConstraint(
                condition=Q(turn_hours__in=(12, 24, 72)), name="table_turn_hours_choices"
            ),
            models.CheckConstraint(
                condition=Q(move_seconds__isnull=True) | Q(move_seconds__in=(15, 30, 45)),
                name="table_move_seconds_choices",
            ),
            models.CheckConstraint(
                condition=Q(min_reliability__lte=100), name="table_min_reliability_percent"
            ),
        ]
        indexes = [
            # The deadline sweep reads only active tables whose instant has passed.
            models.Index(
                fields=["deadline_at"],
                name="table_active_deadline",
                condition=Q(status="active"),
            ),
            models.Index(
                fields=["remind_at"],
                name="table_active_remind",
                condition=Q(status="active"),
            ),
            models.Index(
                fields=["last_call_at"],
                name="table_active_last_call",
                condition=Q(status="active"),
            ),
            models.Index(fields=["status", "-created_at"], name="table_status_created"),
            # The sweep's safety net finds the games that ended lately and were not rated.
            models.Index(
                fields=["finished_at"], name="table_finished", condition=Q(status="finished")
            ),
        ]

    def __str__(self) -> str:
        return f"Table {self.pk} ({self.status}, {self.seat_count} seats)"

    @property
    def realtime(self) -> bool:
        """True for a real-time table (a move timer of seconds), False for turn by turn."""
        return self.move_seconds is not None


class Seat(models.Model):
    class BotLevel(models.TextChoices):
        EASY = "easy", "Easy"
        NORMAL = "normal", "Normal"
        HARD = "hard", "Hard"

    table = models.ForeignKey(Table, on_delete=models.CASCADE, related_name="seats")
    number = models.PositiveSmallIntegerField()
    user = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        on_delete=models.PROTECT,
        null=True,
        blank=True,
        related_name="seats",
    )
    bot_level = models.CharField(max_length=10, choices=BotLevel.choices, blank=True, default="")
    # Who played the seat before a moderator handed it to a bot (``seat_replace_with_bot``,
    # a sanction): they keep the watcher view, the log and the record of the table.
    previous_user = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        on_delete=models.PROTECT,
        null=True,
        blank=True,
        editable=False,
        related_name="former_seats",
    )
    joined_at = models.DateTimeField(auto_now_add=True)
    left_at = models.DateTimeField(null=True, blank=True)
    # Real-time tables (rulings 17 and 18). Turns the player ran out of time on;
    # the third hands the seat to a bot for good (``struck_out``).
    strikes = models.PositiveSmallIntegerField(default=0, editable=False)
    # Three strikes (ruling 17): a Normal bot plays the seat for the rest of the game,
    # and ``user`` stays its player (ruling 18, revised): their seat's view, their
    # moves, their lobby, the game-over mail and the ranking stay theirs. They may
    # concede, not act.
    struck_out = models.BooleanField(default=False, editable=False)
    # The player's last connection closed: the seat is theirs until then.
    held_until = models.DateTimeField(null=True, blank=True, editable=False)
    # The hold ran out: a Normal bot plays the seat until the player connects again.
    away = models.BooleanField(default=False, editable=False)
    # Ruling 20: the player marked themselves away; a bot of this level plays the seat's
    # turns at once until ``autopilot_until`` (None: until they return). "" when not.
    # Written for every running turn-by-turn seat of theirs by ``games.away``.
    autopilot = models.CharField(
        max_length=10, choices=BotLevel.choices, blank=True, default="", editable=False
    )
    autopilot_until = models.DateTimeField(null=True, blank=True, editable=False)
    # The player marked themselves away (ruling 20), at this table whether or not its
    # autopilot plays for them (real time, or a host who turned it off): any action of
    # theirs here ends the time away, and the action's path reads no other row for it.
    player_away = models.BooleanField(default=False, editable=False)
    # The player's preference "play my forced moves at once" (``PlaySettings``), copied
    # when the game starts and when they change it, so a follow-up reads no other row.
    forced_moves = models.BooleanField(default=False, editable=False)
    # Counted from the move log when the game ends (``services.table_tally``), for the
    # reliability record and the ratings' weights: the seat's turns (leaving and a
    # moderator's replacement are no turns), those the deadline or the move timer played
    # (``timeouts``), and those a bot played for its person (``stand_in_turns``: after a
    # hold ran out, three strikes, on autopilot or after a moderator's replacement).
    turns = models.PositiveIntegerField(default=0, editable=False)
    timeouts = models.PositiveIntegerField(default=0, editable=False)
    stand_in_turns = models.PositiveIntegerField(default=0, editable=False)

    class Meta:
        ordering = ["table", "number"]
        constraints = [
            models.UniqueConstraint(fields=["table", "number"], name="seat_unique_number"),
            models.UniqueConstraint(
                fields=["table", "user"],
                condition=Q(user__isnull=False),
                name="seat_unique_user",
            ),
            models.CheckConstraint(
                condition=(Q(user__isnull=False) & Q(bot_level=""))
                | (Q(user__isnull=True) & ~Q(bot_level="")),
                name="seat_user_xor_bot",
            ),
            # A bot plays a struck-out seat for its player, who stays in it.
            models.CheckConstraint(
                condition=Q(struck_out=False) | Q(user__isnull=False),
                name="seat_struck_out_has_player",
            ),
        ]
        indexes = [
            # The real-time sweep finds holds that ran out through this index.
            models.Index(
                fields=["held_until"], name="seat_held", condition=Q(held_until__isnull=False)
            ),
        ]

    def __str__(self) -> str:
        who = f"bot ({self.bot_level})" if self.is_bot else str(self.user)
        return f"Seat {self.number} of table {self.table_id}: {who}"

    @property
    def is_bot(self) -> bool:
        return bool(self.bot_level)

    @property
    def bot_plays(self) -> bool:
        """A bot makes this seat's decisions: a bot's seat, a player whose hold ran out
        or who is on autopilot (ruling 20), or one struck out (the bot plays for them for
        the rest of the game)."""
        return self.is_bot or self.away or self.struck_out or bool(self.autopilot)


class Connection(models.Model):
    """One open WebSocket of a user at a table: presence comes from these rows.

    ``games.services.presence_open`` and ``presence_close`` write them;
    ``seen_at`` is refreshed by the connection's heartbeat, and a row not
    refreshed for ``GAMENOOK_PRESENCE_STALE_SECONDS`` (its server died) is
    closed by the sweep.
    """

    table = models.ForeignKey(Table, on_delete=models.CASCADE, related_name="connections")
    user = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="connections"
    )
    channel = models.CharField(max_length=255, unique=True)
    opened_at = models.DateTimeField(auto_now_add=True)
    seen_at = models.DateTimeField()

    class Meta:
        indexes = [
            models.Index(fields=["table", "user"], name="connection_table_user"),
            models.Index(fields=["seen_at"], name="connection_seen"),
        ]

    def __str__(self) -> str:
        return f"Connection of user {self.user_id} to table {self.table_id}"


class MoveQuerySet(models.QuerySet["Move"]):
    def update(self, **kwargs: Any) -> int:
        raise TypeError("the move log is append-only: moves are never updated")

    def delete(self) -> tuple[int, dict[str, int]]:
        raise TypeError("the move log is append-only: moves are never deleted")


class Move(models.Model):
    """One entry of a table's append-only log.

    ``payload`` holds the action as the game applied it (card numbers, not
    handles) and every event it caused, shuffle orders included; the log is
    served only through the game's ``Ruleset.events_view``. On PostgreSQL a trigger refuses
    UPDATE and DELETE (migration 0002).
    """

    class Source(models.TextChoices):
        PLAYER = "player", "Player"
        BOT = "bot", "Bot"
        TIMEOUT = "timeout", "Timeout"
        LEAVE = "leave", "Leave"
        ADMIN = "admin", "Admin"
        # Ruling 21: the table's own moves for a person's seat, marked as such everywhere.
        AUTOPILOT = "autopilot", "Autopilot"
        FORCED = "forced", "Forced move"

    # No index of its own: the unique (table, seq) constraint's index leads with the
    # table and serves every lookup by table; a second one cost every move a write.
    table = models.ForeignKey(Table, on_delete=models.PROTECT, related_name="moves", db_index=False)
    seq = models.PositiveIntegerField()
    round = models.PositiveSmallIntegerField()
    seat = models.SmallIntegerField(null=True, blank=True)
    action = models.CharField(max_length=20)
    payload = models.JSONField()
    source = models.CharField(max_length=10, choices=Source.choices)
    created_at = models.DateTimeField(auto_now_add=True)

    objects = MoveQuerySet.as_manager()

    class Meta:
        ordering = ["table", "seq"]
        constraints = [
            models.UniqueConstraint(fields=["table", "seq"], name="move_unique_table_seq"),
        ]

    def __str__(self) -> str:
        return f"Move {self.seq} of table {self.table_id}: {self.action} ({self.source})"

    def save(self, *args: Any, **kwargs: Any) -> None:
        if self.pk is not None:
            raise TypeError("the move log is append-only: moves are never updated")
        super().save(*args, **kwargs)

    def delete(self, *args: Any, **kwargs: Any) -> tuple[int, dict[str, int]]:
        raise TypeError("the move log is append-only: moves are never deleted")


class IdempotencyKey(models.Model):
    """The first response to a request carrying an ``Idempotency-Key`` header."""

    class State(models.TextChoices):
        RUNNING = "running", "Running"
        DONE = "done", "Done"

    user = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="idempotency_keys"
    )
    key = models.CharField(max_length=255)
    fingerprint = models.CharField(max_length=64)
    state = models.CharField(max_length=10, choices=State.choices, default=State.RUNNING)
    response_status = models.PositiveSmallIntegerField(null=True, blank=True)
    response_body = models.JSONField(null=True, blank=True)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["user", "key"], name="idempotency_unique_user_key"),
        ]

    def __str__(self) -> str:
        return f"Idempotency key {self.key!r} of user {self.user_id} ({self.state})"


class PlaySettings(models.Model):
    """How a player wants the table to play for them (issue 38). One row a user, made when
    first changed; a user without one has the defaults."""

    user = models.OneToOneField(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="play_settings"
    )
    #: Play a turn's only legal action at once (``Ruleset.forced_action``) at turn-by-turn
    #: tables, instead of waiting for the player to click it.
    forced_moves = models.BooleanField(default=False)
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        verbose_name_plural = "play settings"

    def __str__(self) -> str:
        return f"Play settings of {self.user}"


class Away(models.Model):
    """One time a player marked themselves away (ruling 20), planned, running or over.

    ``starts_at`` may be in the future; ``ends_at`` None means until they return.
    ``ended_at`` is when it actually ended (they came back, the end date came, or
    their allowance of days ran out: ``end_reason``); None while it is planned or
    running. The days used of the allowance are counted from these rows.
    """

    class EndReason(models.TextChoices):
        RETURNED = "returned", "They came back"
        UNTIL = "until", "The end date came"
        ALLOWANCE = "allowance", "The allowance of days ran out"
        CANCELLED = "cancelled", "Cancelled before it began"
        MODERATOR = "moderator", "A moderator ended it"

    user = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="aways"
    )
    starts_at = models.DateTimeField()
    ends_at = models.DateTimeField(null=True, blank=True)
    level = models.CharField(max_length=10, choices=Seat.BotLevel.choices, default="normal")
    #: When the autopilot was put on the player's seats (None: not yet begun).
    began_at = models.DateTimeField(null=True, blank=True)
    ended_at = models.DateTimeField(null=True, blank=True)
    end_reason = models.CharField(max_length=10, choices=EndReason.choices, blank=True, default="")
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["user", "-starts_at"]
        verbose_name_plural = "aways"
        constraints = [
            # At most one planned or running time away per user.
            models.UniqueConstraint(
                fields=["user"], condition=Q(ended_at__isnull=True), name="away_one_open_per_user"
            ),
        ]
        indexes = [
            # The sweep finds the times away that begin or end, among the open ones.
            models.Index(
                fields=["starts_at"], name="away_open_starts", condition=Q(ended_at__isnull=True)
            ),
        ]

    def __str__(self) -> str:
        return f"{self.user} away from {self.starts_at} to {self.ends_at or 'their return'}"


class BenchPing(models.Model):
    """One row per call of the benchmark's baseline endpoint (``games.bench``).

    The API load benchmark compares the action endpoint with a minimal DRF
    endpoint that does exactly one INSERT: this table is that INSERT. It is
    written only while ``GAMENOOK_BENCH_ENDPOINTS`` is on.
    """

    created_at = models.DateTimeField(auto_now_add=True)

    def __str__(self) -> str:
        return f"Bench ping {self.pk}"


class BotAccount(models.Model):
    """Issue 40: an account a person made for a program of theirs to play with.

    The bot is a ``User`` of its own (no password, no address: it signs in
    with its tokens only, each of scope ``play``), marked BOT wherever its
    name shows. ``owner`` answers for it; disabling it (``disabled_at``)
    deactivates its user, so its tokens stop working at once.
    """

    user = models.OneToOneField(
        settings.AUTH_USER_MODEL,
        on_delete=models.CASCADE,
        primary_key=True,
        related_name="bot_account",
    )
    owner = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="bot_accounts"
    )
    description = models.CharField(max_length=200, blank=True)
    created_at = models.DateTimeField(auto_now_add=True)
    disabled_at = models.DateTimeField(null=True, blank=True)
    # Disabled by a moderator (not its owner): only a moderator may enable it again.
    disabled_by_moderator = models.BooleanField(default=False)

    class Meta:
        ordering = ["owner", "created_at"]
        verbose_name = "bot account"

    def __str__(self) -> str:
        return f"{self.user} (BOT of {self.owner})"


class Invitation(models.Model):
    """Issue 40: a host asks a person or a bot account to take a seat at their table.

    At most one pending invitation per table and user. Joining the table
    accepts it (``answered_at``, ``status``); the invitee may decline it; it
    lapses when the table starts, fills or closes.
    """

    class Status(models.TextChoices):
        PENDING = "pending", "Pending"
        ACCEPTED = "accepted", "Accepted"
        DECLINED = "declined", "Declined"
        WITHDRAWN = "withdrawn", "Withdrawn"

    table = models.ForeignKey(Table, on_delete=models.CASCADE, related_name="invitations")
    user = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="invitations"
    )
    invited_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="invitations_sent"
    )
    status = models.CharField(max_length=10, choices=Status.choices, default=Status.PENDING)
    created_at = models.DateTimeField(auto_now_add=True)
    answered_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["-created_at"]
        constraints = [
            models.UniqueConstraint(
                fields=["table", "user"],
                condition=Q(status="pending"),
                name="invitation_one_pending",
            ),
        ]
        indexes = [
            models.Index(
                fields=["user", "-created_at"],
                name="invitation_pending_user",
                condition=Q(status="pending"),
            ),
        ]

    def __str__(self) -> str:
        return f"{self.user} to table {self.table_id} ({self.status})"
