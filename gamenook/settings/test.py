"""Settings for pytest: SQLite unless DATABASE_URL is set, fast hashing, in-memory e-mail."""

import os

from .base import *  # noqa: F403
from .base import channel_layers, env

DEBUG = False
SECRET_KEY = env.str(
    "DJANGO_SECRET_KEY",
    default="django-insecure-test-only-3e8d2b1c0a9f4e7d6c5b4a39281706f5e4d3c2b1a0f9e8d7",
)
ALLOWED_HOSTS = ["testserver", "localhost", "127.0.0.1"]

# Hashing speed matters more than strength in tests.
PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]

EMAIL_BACKEND = "django.core.mail.backends.locmem.EmailBackend"
# The end-to-end test points the worker it starts at a real SMTP server on localhost.
if _e2e_email := env.str("GAMENOOK_TEST_EMAIL_URL", default=""):
    _smtp = env.email_url_config(_e2e_email)
    EMAIL_BACKEND = _smtp["EMAIL_BACKEND"]
    EMAIL_HOST, EMAIL_PORT = _smtp["EMAIL_HOST"], _smtp["EMAIL_PORT"]

# Tests that need a worker start a real one (marker e2e); the rest call tasks directly.
# The test process itself never publishes to a shared broker, whatever CELERY_BROKER_URL
# says (CI sets it to Redis for the end-to-end test): jobs stay in memory. The end-to-end
# test gives the worker and beat it starts their broker with GAMENOOK_TEST_BROKER_URL.
CELERY_BROKER_URL = env.str("GAMENOOK_TEST_BROKER_URL", default="memory://")
CELERY_TASK_ALWAYS_EAGER = False
# API tests stay synchronous: bots play inside the request. The notifications tests
# switch this off and drive the Celery path.
GAMENOOK_RUN_BOTS_INLINE = True

# The WebSocket tests (tests/live/) use Redis's channel layer when this names a Redis
# database (CI: .ci/run), the in-memory layer otherwise; some of them run on both.
# make test runs two pytest processes (pytest-xdist's workers gw0 and gw1): pytest-django
# gives each a test database of its own, and here each takes Redis databases of its own,
# the channel layer's (the one named, plus its number) and the one the end-to-end tests
# flush (GAMENOOK_TEST_REDIS_DB, 13 plus its number). Written back to the environment
# once, so the processes a test starts (daphne, a Celery worker) inherit the same.
_WORKER = os.environ.get("PYTEST_XDIST_WORKER", "")
if _WORKER and not os.environ.get("GAMENOOK_TEST_WORKER_DATABASES"):
    _number = int(_WORKER.removeprefix("gw"))
    if _number > 1:
        raise RuntimeError(
            "the suite takes two workers at most (pytest -n 2): Redis has 16 databases"
        )
    _layer = os.environ.get("GAMENOOK_TEST_CHANNEL_LAYER_URL", "")
    if _layer:
        _base, _, _db = _layer.rpartition("/")
        os.environ["GAMENOOK_TEST_CHANNEL_LAYER_URL"] = f"{_base}/{int(_db) + _number}"
    _redis_db = int(os.environ.get("GAMENOOK_TEST_REDIS_DB", "13"))
    os.environ["GAMENOOK_TEST_REDIS_DB"] = str(_redis_db + _number)
    os.environ["GAMENOOK_TEST_WORKER_DATABASES"] = _WORKER
CHANNEL_LAYER_URL = env.str("GAMENOOK_TEST_CHANNEL_LAYER_URL", default="")
# The processes a test starts (tests/web/site.py) run on the test database, whose name
# differs from the one read here: the channels' prefix is derived from the layer's Redis
# database instead, which they share and which each test run has to itself.
CHANNEL_LAYERS = channel_layers(
    CHANNEL_LAYER_URL,
    secret_key=SECRET_KEY,
    database=CHANNEL_LAYER_URL,
    prefix=CHANNEL_LAYER_PREFIX,  # noqa: F405
)

# The real-time browser test (tests/web/test_browser_realtime.py) runs the server in a
# process of its own; this makes it deal a known game there, as known_deals does here.
GAMENOOK_GAME_SEED = env.str("GAMENOOK_TEST_GAME_SEED", default="")

# The webhook tests post to a receiver of their own on 127.0.0.1, over http.
GAMENOOK_WEBHOOK_ALLOW_LOOPBACK = True
