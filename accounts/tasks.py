"""The Celery tasks of ``accounts`` and ``JOBS``, their registry: name -> what the job runs.

The work of a request that must not show in its answer or its time: who
holds an address and which mail that calls for (``services.address_mail_write``),
and whether a reset link goes anywhere (``services.password_reset_write``).
Services queue these jobs by name (``services.publish``), never by importing
this module. Both are harmless when run twice (a waiting address is mailed
once, a reset once a minute), so they are acknowledged once done and given
back if the worker dies.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from celery import shared_task

from . import services

_REDELIVER: dict[str, Any] = {"acks_late": True, "reject_on_worker_lost": True}


@shared_task(name=services.ADDRESS_MAIL, **_REDELIVER)
def send_address_mail(pending_id: int) -> bool:
    """Mail an address waiting for confirmation its link, or that it belongs to an account."""
    return services.address_mail_write(pending_id=pending_id)


@shared_task(name=services.RESET_MAIL, **_REDELIVER)
def send_password_reset(email: str) -> bool:
    """Mail a password reset link to ``email`` if a confirmed account has it."""
    return services.password_reset_write(email=email)


#: Every job by name (the name of its task), and what running it here and now does.
JOBS: dict[str, Callable[..., object]] = {
    services.ADDRESS_MAIL: send_address_mail.run,
    services.RESET_MAIL: send_password_reset.run,
}


def run_inline(name: str, args: tuple[int | str, ...]) -> None:
    """Run job ``name`` here and now (the tests)."""
    JOBS[name](*args)
