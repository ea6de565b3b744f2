"""Settings for a developer's machine: SQLite, e-mail kept as files, a filesystem Celery broker."""

from pathlib import Path

from .base import *  # noqa: F403
from .base import BASE_DIR, channel_layers, env

DEBUG = env.bool("DJANGO_DEBUG", default=True)
SECRET_KEY = env.str(
    "DJANGO_SECRET_KEY",
    default="django-insecure-local-only-7c1f0b2e9a4d4e6f8b3a5c7d9e1f2a3b4c5d6e7f8091a2b3",
)
# With CHANNEL_LAYER_URL (Redis), the messages are sealed with this key (base.channel_layers).
CHANNEL_LAYERS = channel_layers(
    CHANNEL_LAYER_URL,  # noqa: F405
    secret_key=SECRET_KEY,
    database=str(DATABASES["default"]["NAME"]),  # noqa: F405
    prefix=CHANNEL_LAYER_PREFIX,  # noqa: F405
)
# A fixed seed deals the same games every time (the docs' transcript); empty: random.
GAMENOOK_GAME_SEED = env.str("GAMENOOK_GAME_SEED", default="")
ALLOWED_HOSTS = env.list("DJANGO_ALLOWED_HOSTS", default=["127.0.0.1", "localhost", "[::1]"])

# daphne's runserver (make run): HTTP and WebSockets on one port, static files served.
INSTALLED_APPS = ["daphne", *INSTALLED_APPS]  # noqa: F405
# One process and the in-memory channel layer: the worker's moves (bot turns, timeouts)
# reach the open sockets by the recheck, so it runs often here.
GAMENOOK_LIVE_RECHECK_SECONDS = env.float("GAMENOOK_LIVE_RECHECK_SECONDS", default=1.0)

# Without Redis the worker and beat still run: kombu's filesystem transport keeps
# messages as files under .broker/ (folders created by the Celery app on start).
_BROKER_DIR = Path(env.str("GAMENOOK_BROKER_DIR", default=str(BASE_DIR / ".broker")))
# "localhost" only names the transport's (unused) host: without one kombu warns on every start.
CELERY_BROKER_URL = env.str("CELERY_BROKER_URL", default="filesystem://localhost/")
if CELERY_BROKER_URL.startswith("filesystem://"):
    CELERY_BROKER_TRANSPORT_OPTIONS = {
        # Producer and consumer share one folder: what the web process writes, the worker reads.
        "data_folder_in": str(_BROKER_DIR / "queue"),
        "data_folder_out": str(_BROKER_DIR / "queue"),
        "data_folder_processed": str(_BROKER_DIR / "processed"),
        # Exchange bindings (broadcast and remote control); kombu's default is ./control.
        "control_folder": str(_BROKER_DIR / "control"),
    }

# E-mail: one line per message on the console, the whole message as a file under .mail/
# (gamenook.mail), unless EMAIL_URL names another backend.
if "EMAIL_URL" not in env:
    EMAIL_BACKEND = "gamenook.mail.FolderEmailBackend"

# daphne's runserver logs each request to "django.channels.server": once, with the time
# (Django's own "django" console handler would print it a second time while DEBUG is on).
LOGGING["loggers"] = {  # noqa: F405
    "django.channels.server": {"handlers": ["console"], "level": "INFO", "propagate": False}
}

# A webhook bot on this machine (examples/webhook_bot.py) listens on http://127.0.0.1.
GAMENOOK_WEBHOOK_ALLOW_LOOPBACK = env.bool("GAMENOOK_WEBHOOK_ALLOW_LOOPBACK", default=True)
