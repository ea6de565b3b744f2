"""Settings for pytest: SQLite unless DATABASE_URL is set, fast hashing, in-memory e-mail."""

from .base import *  # noqa: F403
from .base import env

DEBUG = False
SECRET_KEY = env.str(
    "DJANGO_SECRET_KEY",
    default="django-insecure-test-only-3e8d2b1c0a9f4e7d6c5b4a39281706f5e4d3c2b1a0f9e8d7",
)
ALLOWED_HOSTS = ["testserver", "localhost", "127.0.0.1"]

# Hashing speed matters more than strength in tests.
PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]

EMAIL_BACKEND = "django.core.mail.backends.locmem.EmailBackend"

# Tests that need a worker start a real one (marker e2e); the rest call tasks directly.
CELERY_BROKER_URL = env.str("CELERY_BROKER_URL", default="memory://")
CELERY_TASK_ALWAYS_EAGER = False
