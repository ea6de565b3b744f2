"""Shared pytest fixtures. The flip tests need no database; the rest use pytest-django."""
