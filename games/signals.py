"""Signals the games layer sends after a change has committed.

``table_changed`` is sent from ``transaction.on_commit`` by the move service,
once per committed change, with keyword arguments:

- ``table_id``: the table;
- ``seq``: the table's sequence number after the change;
- ``turn``: the game's turn counter after the change;
- ``new_turn``: True when a new turn started (a new deadline);
- ``finished``: True when the change ended the game (or aborted the table);
- ``timer_at``: at a real-time table, the instant the new turn's move timer
  runs out (a job applies the timeout then); None otherwise;
- ``followups_written``: True when the caller that made the change wrote what
  it calls for (e-mail, the next bot turn) in the same transaction
  (``tables_timeout_batch`` for the deadline sweep), so a listener need not;
- ``watched``: False when the sender knows no socket is open on the table (no
  connection counted while its row was locked, ``tables_timeout_batch``), so
  nobody needs telling; True when one may be;
- ``rows``: ``(table, seats)``, the table and its seats with their users as
  the change committed them, when the sender holds them so (a player's
  action); None otherwise. Only for reading, at once: the sender's objects;
- ``answered``: ``(user_id, socket)`` when the change is a user's action whose
  answer reaches that user's socket ``socket`` (the id its hello frame gave,
  named by the client: ``services.SOCKET_HEADER``), so that socket need not be
  sent the same view; None otherwise.

``games`` does not know who listens: ``notifications`` connects receivers
that queue bot turns and e-mail, ``live`` one that tells the table's open
WebSockets (the dependency runs that way round).
"""

from django.dispatch import Signal

table_changed = Signal()

#: A player's last connection to a real-time table closed: ``table_id``, ``seat``
#: (its number) and ``until``, the instant the hold ends (``services.seat_hold_expire``).
seat_held = Signal()

#: Issue 40: a host invited a user to a seat. Sent from ``transaction.on_commit`` by
#: ``services.invitation_create`` with ``invitation_id``, ``table_id`` and ``user_id``
#: (the invitee); ``live`` tells the invitee's event streams, ``notifications`` its webhook.
invitation_made = Signal()
