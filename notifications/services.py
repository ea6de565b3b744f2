"""What other apps (accounts, web) and the tests call: the public notifications services.

Each concern has its own module; this one only gathers their public names:

- ``preferences``: which e-mails a user wants, the one-click unsubscribe;
- ``outbox``: composing, queueing and sending e-mail;
- ``jobs``: queueing work for a worker by name; ``tasks``: the registry that runs it;
- ``turns``: timeouts, reminders and bot turns (through ``games.services``);
- ``followups``: what a committed change calls for;
- ``away``: ruling 19, "your turn" only for a player who is away, one message for all tables;
- ``sweep``: the periodic source of truth (and the real-time tables' safety net);
- ``push``: web push, the devices a user turned it on for and an outbox of pushes.
"""

from __future__ import annotations

from .away import is_away, table_seen, turn_notice_decide
from .followups import table_followups
from .jobs import (
    BOT_TURN,
    BOT_TURNS,
    FOLLOWUPS,
    HOLD,
    PUSH,
    REMIND,
    SEND,
    SEND_MANY,
    TIMEOUT,
    TIMEOUTS,
    YOUR_TURNS,
    Dispatch,
    dispatch,
)
from .outbox import (
    ACCOUNT_KINDS,
    Mail,
    SendOutcome,
    account_mail_enqueue,
    outbox_enqueue,
    outbox_enqueue_many,
    outbox_retry,
    outbox_send,
    replay_url,
    table_url,
)
from .preferences import (
    PREFERENCE_FIELDS,
    PREFERENCES_DEFAULT,
    email_is_verified,
    email_verified_set,
    preferences_forget,
    preferences_get,
    preferences_update,
    unsubscribe_token,
    unsubscribe_url,
    user_for_unsubscribe_token,
    user_unsubscribe,
    valid_time_zone,
)
from .push import (
    DeviceNotFound,
    EndpointTaken,
    PushOff,
    PushOutcome,
    TooManyDevices,
    push_enabled,
    push_enqueue,
    push_max_devices,
    push_public_key,
    push_send,
    push_subscription_delete,
    push_subscription_save,
    push_subscriptions_of,
)
from .sweep import SweepResult, sweep, sweep_bots, sweep_realtime
from .tasks import run_inline
from .turns import (
    bot_turn_run,
    bot_turns_run,
    describe_timeout,
    seat_hold_end,
    table_apply_timeout,
    table_remind,
    tables_apply_timeouts,
)

__all__ = [
    "DeviceNotFound",
    "EndpointTaken",
    "PushOff",
    "PushOutcome",
    "TooManyDevices",
    "push_enabled",
    "push_enqueue",
    "push_max_devices",
    "push_public_key",
    "push_send",
    "push_subscription_delete",
    "push_subscription_save",
    "push_subscriptions_of",
    "ACCOUNT_KINDS",
    "BOT_TURN",
    "BOT_TURNS",
    "FOLLOWUPS",
    "HOLD",
    "PREFERENCES_DEFAULT",
    "PREFERENCE_FIELDS",
    "REMIND",
    "SEND",
    "SEND_MANY",
    "TIMEOUT",
    "TIMEOUTS",
    "PUSH",
    "YOUR_TURNS",
    "Dispatch",
    "Mail",
    "SendOutcome",
    "SweepResult",
    "account_mail_enqueue",
    "bot_turn_run",
    "bot_turns_run",
    "describe_timeout",
    "dispatch",
    "email_is_verified",
    "email_verified_set",
    "is_away",
    "outbox_enqueue",
    "outbox_enqueue_many",
    "outbox_retry",
    "outbox_send",
    "preferences_forget",
    "preferences_get",
    "preferences_update",
    "replay_url",
    "run_inline",
    "sweep",
    "seat_hold_end",
    "sweep_bots",
    "sweep_realtime",
    "table_apply_timeout",
    "table_followups",
    "table_remind",
    "table_seen",
    "tables_apply_timeouts",
    "turn_notice_decide",
    "table_url",
    "unsubscribe_token",
    "unsubscribe_url",
    "user_for_unsubscribe_token",
    "user_unsubscribe",
    "valid_time_zone",
]
