"""Shared pytest fixtures. The flip tests need no database; the rest use pytest-django."""

import os

# Celery reads CELERY_BROKER_URL from the environment before any setting, so a
# developer's (or CI's) broker would receive the test process's jobs. Tests keep
# them in memory (gamenook.settings.test); the end-to-end test starts its own
# worker and beat on a Redis database of its own.
os.environ.pop("CELERY_BROKER_URL", None)
