"""The REST API, version 1: thin views that parse, call a service or selector, and answer.

- ``accounts``: register, obtain a token, read and change ``/me``;
- ``tables``: the lobby, the game views, actions, the log and the record;
- ``errors``: the one exception handler and the one error shape;
- ``idempotency``: ``Idempotency-Key`` handling for the writes;
- ``common``: strict input parsing and the throttles the views share.
"""
