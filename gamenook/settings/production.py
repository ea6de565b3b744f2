"""Production settings: every secret from the environment, HTTPS everywhere."""

import hashlib

from .base import *  # noqa: F403
from .base import ASGI_FLAG, channel_layers, env

DEBUG = False
SECRET_KEY = env.str("DJANGO_SECRET_KEY")  # no default: refuse to start without one
ALLOWED_HOSTS = env.list("DJANGO_ALLOWED_HOSTS")

CELERY_BROKER_URL = env.str("CELERY_BROKER_URL", default="redis://127.0.0.1:6379/0")
# Several web processes: a move made in one reaches the sockets of all through Redis.
CHANNEL_LAYER_URL = env.str("CHANNEL_LAYER_URL", default="redis://127.0.0.1:6379/1")
CHANNEL_LAYERS = channel_layers(
    CHANNEL_LAYER_URL,
    secret_key=SECRET_KEY,
    database=str(DATABASES["default"]["NAME"]),  # noqa: F405
    prefix=CHANNEL_LAYER_PREFIX,  # noqa: F405
)
# The rate limits' and the log-in backoff's counters (games.throttles, accounts.backoff):
# one Redis database that every web process shares, else each would count on its own.
# Its keys start with a prefix of the deployment's own (from its secret key), so two
# deployments on one database never count each other's user 5 as one.
CACHE_URL = env.str("CACHE_URL", default="redis://127.0.0.1:6379/2")
CACHES = {"default": env.cache_url_config(CACHE_URL)}
CACHES["default"].setdefault(
    "KEY_PREFIX", hashlib.sha256(f"gamenook cache\0{SECRET_KEY}".encode()).hexdigest()[:16]
)

# --- HTTPS and cookies ----------------------------------------------------

SECURE_PROXY_SSL_HEADER = ("HTTP_X_FORWARDED_PROTO", "https")
SECURE_SSL_REDIRECT = env.bool("DJANGO_SECURE_SSL_REDIRECT", default=True)
SESSION_COOKIE_SECURE = True
CSRF_COOKIE_SECURE = True
SESSION_COOKIE_HTTPONLY = True
SECURE_HSTS_SECONDS = env.int("DJANGO_SECURE_HSTS_SECONDS", default=60 * 60 * 24 * 365)
SECURE_HSTS_INCLUDE_SUBDOMAINS = env.bool("DJANGO_SECURE_HSTS_INCLUDE_SUBDOMAINS", default=True)
SECURE_HSTS_PRELOAD = env.bool("DJANGO_SECURE_HSTS_PRELOAD", default=True)
SECURE_CONTENT_TYPE_NOSNIFF = True
SECURE_REFERRER_POLICY = "same-origin"
X_FRAME_OPTIONS = "DENY"
CSRF_TRUSTED_ORIGINS = env.list(
    "DJANGO_CSRF_TRUSTED_ORIGINS", default=[f"https://{host}" for host in ALLOWED_HOSTS]
)

# --- database connections (docs/deploy.md, "Connections") -----------------

_database = DATABASES["default"]  # noqa: F405
if env.bool(ASGI_FLAG, default=False):
    # An ASGI server (daphne) runs each HTTP request's sync code in a thread of its
    # own (Django's ASGIHandler), so connections kept per thread are one per
    # concurrent request: a burst once held all of PostgreSQL's. Nothing is kept
    # (Django's advice under ASGI); on PostgreSQL psycopg's pool lends each request
    # and each socket call a connection, at most DATABASE_POOL_MAX_SIZE per
    # process, and a thread that finds none free waits up to DATABASE_POOL_TIMEOUT
    # seconds, then fails.
    _database["CONN_MAX_AGE"] = 0
    if _database["ENGINE"] == "gamenook.postgresql":
        _database["OPTIONS"]["pool"] = {
            "min_size": 1,
            "max_size": env.int("DATABASE_POOL_MAX_SIZE", default=4),
            "timeout": env.float("DATABASE_POOL_TIMEOUT", default=10.0),
        }
else:
    # gunicorn's sync workers and Celery's prefork processes run one thread each:
    # one connection per process, kept open between requests and jobs.
    _database["CONN_MAX_AGE"] = env.int("CONN_MAX_AGE", default=60)
