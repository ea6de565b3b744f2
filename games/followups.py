"""What runs after a committed change hands the turn to a bot.

The API calls ``run_bots_after_commit`` once the human's move has committed.
While ``GAMENOOK_RUN_BOTS_INLINE`` is on, the bots play right there, each
action its own transaction and log entry; when Celery takes the bot turns the
setting is switched off and this does nothing.
"""

from __future__ import annotations

import logging

from . import conf, services

logger = logging.getLogger(__name__)


def run_bots_after_commit(table_id: int) -> None:
    """Play every bot turn now due at ``table_id``, if bots run inline.

    The human's move is already committed and answered for: a failing bot
    must not turn it into an error, so a failure is logged and left for the
    next trigger (another request, or the deadline sweep).
    """
    if not conf.run_bots_inline():
        return
    try:
        services.table_run_bots(table_id=table_id)
    except Exception:
        logger.exception("bot turns failed at table %s", table_id)
