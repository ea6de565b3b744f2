"""The accounts tests use the API tests' clients and users."""

from tests.games.conftest import _fresh_throttles, alice, api, bob, known_deals, user_factory

__all__ = ["_fresh_throttles", "alice", "api", "bob", "known_deals", "user_factory"]
