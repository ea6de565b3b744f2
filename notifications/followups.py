"""After each committed change (``games.signals.table_changed``): a bot turn or an e-mail."""

from __future__ import annotations

import logging
from collections.abc import Sequence
from datetime import timedelta

from django.db import transaction
from django.utils import timezone

from games import selectors as games_selectors
from games import services as games
from ratings import selectors as rating_selectors
from ratings import services as ratings

from . import jobs
from .away import at_table_at_end, turn_notices_record
from .models import OutboxMessage
from .outbox import Mail, outbox_enqueue
from .push import push_game_over
from .webhooks import TurnBegun, webhook_game_over, webhook_turns

Kind = OutboxMessage.Kind
logger = logging.getLogger(__name__)

#: How long a bot waits before it jumps in at a real-time table (ruling 21: "never
#: faster than a person could"). A turn-by-turn table's window lasts the whole
#: deadline, so there the bot decides at once.
BOT_JUMP_IN_DELAY = timedelta(seconds=1.5)


def table_followups(*, table_id: int, seq: int, new_turn: bool, finished: bool) -> None:
    """Queue what a committed change calls for: a bot turn, a "your turn" notice, "game over".

    Runs in a worker (job ``FOLLOWUPS``, queued on commit by the receiver),
    so the request that made the change does not wait for e-mail to be
    composed.
    """
    table = games_selectors.table_facts(table_id)
    if table is None or table.seq != seq:
        return  # a later change has committed; its own follow-ups take over
    if finished:
        if table.finished:
            rate_game(table.id)
            with transaction.atomic():
                for mail in game_over_mails(table):
                    _enqueue(mail)
                # Issue 40: every seated bot account's webhook, present at the end or not.
                webhook_game_over(table=table)
        return
    if not table.running:
        return
    seat = games_selectors.turn_seat(table_id)
    if seat is None or seat.left:
        return
    if seat.bot_plays:
        # A bot's turn: the bot job asks any jumpers first (``table_run_bot_turn``).
        jobs.dispatch(jobs.BOT_TURN, (table_id, seq))
        return
    if seat.forced_moves and not table.realtime:
        # The player asked for their forced moves at once: the bot job plays the turn's
        # only legal action for them if it has one (``games.services._forced_moves``).
        jobs.dispatch(jobs.BOT_TURN, (table_id, seq))
    if games_selectors.bot_may_jump_in(table_id):
        # A bot that may jump in on the card just played (the classic game's jump-in),
        # though a person is to act. R21: never faster than a person could, so at a
        # real-time table after a human-like moment; the job acts only if the table is
        # still at ``seq`` (the person to act may close the window first).
        if table.realtime:
            jobs.dispatch_at(jobs.BOT_TURN, (table_id, seq), timezone.now() + BOT_JUMP_IN_DELAY)
        else:
            jobs.dispatch(jobs.BOT_TURN, (table_id, seq))
    # Issue 40: a bot account's webhook hears of its turn at once, at any table.
    begun = [TurnBegun(seat.user.pk, table, seat.number)] if new_turn and seat.user else []
    webhook_turns(begun)
    if new_turn and seat.user is not None and not table.realtime:
        # A real-time turn lasts seconds: the player is at the table, not in their mail.
        # Ruling 19: no message now, a notice decided after the quiet delay (``away``).
        turn_notices_record(user_ids=[seat.user.pk])


def timeout_followups(
    applied: Sequence[games.TimedOut],
) -> tuple[list[Mail], list[tuple[int, int]]]:
    """What each timeout of a page calls for, decided as ``table_followups`` decides it.

    Returns the mails to write ("game over") and the bot turns to queue, as
    (table id, seq); the next player's "your turn" notice (ruling 19,
    ``away``) is recorded here, for the whole page at once. Call it in the
    page's own transaction (``turns.tables_apply_timeouts``), which writes
    them instead of queueing a follow-ups job per table: the facts are at
    hand, no table is read again.
    """
    mails: list[Mail] = []
    bots: list[tuple[int, int]] = []
    notices: list[int] = []
    hooks: list[TurnBegun] = []
    for done in applied:
        table = games_selectors.facts_of(done.result.table)
        seat = done.to_act
        if table.finished:
            rate_game(table.id)
            mails.extend(game_over_mails(table))
            webhook_game_over(table=table)  # issue 40
            continue
        if not table.running or seat is None or seat.left:
            continue
        if seat.bot_plays or games_selectors.bot_may_jump_in_after(
            done.result.table, done.result.state
        ):
            # A bot's turn, or a bot that may jump in on the card the timeout played
            # (R21: it decides when the card lands, as after a person's move).
            bots.append((table.id, table.seq))
        person = None if seat.bot_plays else seat.user
        if person is not None and done.result.new_turn:
            game = done.result.table.game
            hooks.append(TurnBegun(person.pk, table, seat.number, game))  # issue 40
        if person is not None and done.result.new_turn and not table.realtime:
            notices.append(person.pk)
    turn_notices_record(user_ids=notices)
    webhook_turns(hooks)
    return mails, bots


def rate_game(table_id: int) -> None:
    """Rate a game that has just ended (issue 39), before its "game over" names the change.

    In a savepoint of its own: a failure is logged and left to the sweep's
    safety net (``ratings.services.tables_to_rate``), never lost with the mail.
    """
    try:
        with transaction.atomic():
            ratings.table_rate(table_id=table_id)
    except Exception:
        logger.exception("rating the game of table %s failed; the sweep will retry", table_id)


def game_over_mails(table: games_selectors.TableFacts) -> list[Mail]:
    """The "game over" mail of every player, to write; their pushes are written here and now.

    Both callers run it inside the transaction that writes the mail.
    """
    ranking, rounds = games_selectors.final_ranking(table.id)
    changes = rating_selectors.table_changes(table.id)
    presence = games_selectors.presence_at_end(table.id)
    there = at_table_at_end(table.id, presence)
    mails = []
    for seat in games_selectors.seats_at(table.id):
        if seat.user is None or seat.user.pk in there:
            # Issue 38, one message per table and turn: a player at the table when the
            # game ended saw the end there (ruling 19's presence); no mail, no push.
            continue
        facts = presence.get(seat.user.pk)
        mine = next((e for e in ranking if e["seat"] == seat.number), None)
        # Decided here, in the transaction that writes the mail: the same news by push.
        push_game_over(user=seat.user, table=table, rank=None if mine is None else mine["rank"])
        mails.append(
            Mail(
                user=seat.user,
                kind=Kind.GAME_OVER,
                table=table,
                turn=table.turn,
                context={
                    "ranking": ranking,
                    "mine": mine,
                    "rounds": rounds,
                    "rating": _rating_words(changes.get(seat.number)),
                    # The game's last move was their timeout: this mail tells of both
                    # (``turns._timeout_mail`` writes none of its own then).
                    "timed_out": None
                    if facts is None or not facts.timed_out_last
                    else table.timeout_policy,
                },
            )
        )
    return mails


def _rating_words(change: rating_selectors.TableChange | None) -> dict[str, str] | None:
    """The seat's new rating and what the game did to it, as the mail prints them."""
    if change is None:
        return None
    return {
        "rating": f"{change.rating}?" if change.provisional else str(change.rating),
        "change": f"{change.change:+d}" if change.change else "±0",
    }


def _enqueue(mail: Mail) -> None:
    outbox_enqueue(
        user=mail.user, kind=mail.kind, table=mail.table, turn=mail.turn, context=mail.context
    )
