"""Caps per user, so that one person (or a few accounts) cannot fill the service.

Three counts, each with its setting (``games.conf``):

- open tables: tables in the lobby the user hosts or sits at
  (``GAMENOOK_MAX_OPEN_TABLES``), checked when they open or join one;
- running tables: games under way in which they hold a seat they have not
  left (``GAMENOOK_MAX_RUNNING_TABLES``), checked when they open, join or
  start one;
- bot seats: bots at the tables they host, in the lobby or running
  (``GAMENOOK_MAX_BOT_SEATS``), checked when they add a bot. A seat a
  moderator handed to a bot is the moderator's doing and does not count.

A refusal is a 409 whose code names the cap and whose sentence says what to
do. The services call ``lock_user`` first, inside their transaction, so two
requests of one user cannot both pass a check and overshoot it together.
"""

from __future__ import annotations

from django.contrib.auth.models import User

from . import conf
from .errors import Conflict
from .models import Seat, Table


class TooManyOpenTables(Conflict):
    code = "too_many_open_tables"


class TooManyRunningTables(Conflict):
    code = "too_many_running_tables"


class TooManyBotSeats(Conflict):
    code = "too_many_bot_seats"


def lock_user(user: User) -> None:
    """Take ``user``'s row lock until the transaction ends: one lobby write of theirs at a time.

    Every service that checks a cap takes it before any table's lock, so the
    order is always the user, then the table. The lock is PostgreSQL's FOR NO KEY
    UPDATE: it keeps out another such write, but not a row that merely refers to
    the user (the key share lock its foreign key check takes). A plain FOR UPDATE
    deadlocked with a socket opening at the table: that holds the table's lock and
    inserts a connection naming the user (``presence_open``), while the host adding
    a bot held the user and waited for the table.
    """
    User.objects.select_for_update(no_key=True).filter(pk=user.pk).values_list("pk").first()


def open_tables(user: User) -> int:
    """Tables in the lobby that ``user`` hosts or sits at (a host always sits at seat 0)."""
    return Seat.objects.filter(user=user, table__status=Table.Status.LOBBY).count()


def running_tables(user: User) -> int:
    """Games under way in which ``user`` holds a seat they have not left."""
    return Seat.objects.filter(
        user=user, left_at__isnull=True, table__status=Table.Status.ACTIVE
    ).count()


def bot_seats(user: User) -> int:
    """Bot seats at the tables ``user`` hosts, in the lobby or running."""
    return Seat.objects.filter(
        table__host=user,
        table__status__in=(Table.Status.LOBBY, Table.Status.ACTIVE),
        user__isnull=True,
        previous_user__isnull=True,
    ).count()


def check_open_tables(user: User) -> None:
    """Refuse one more table in the lobby for ``user`` when they are at the cap."""
    cap = conf.max_open_tables()
    if open_tables(user) >= cap:
        raise TooManyOpenTables(
            f"You are at {cap} tables in the lobby, the most one player may have: start one, "
            "or leave one, before you open or join another."
        )


def check_running_tables(user: User) -> None:
    """Refuse one more running game for ``user`` when they are at the cap."""
    cap = conf.max_running_tables()
    if running_tables(user) >= cap:
        raise TooManyRunningTables(
            f"You are playing {cap} games, the most one player may play at once: finish one, "
            "or concede one, before you open, join or start another."
        )


def check_bot_seats(user: User) -> None:
    """Refuse one more bot at ``user``'s tables when they are at the cap."""
    cap = conf.max_bot_seats()
    if bot_seats(user) >= cap:
        raise TooManyBotSeats(
            f"Your tables have {cap} bots, the most one player may seat across their tables "
            "in the lobby and under way: finish a game with bots, or invite people, first."
        )
