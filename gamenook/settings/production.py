"""Production settings: every secret from the environment, HTTPS everywhere."""

from .base import *  # noqa: F403
from .base import channel_layers, env

DEBUG = False
SECRET_KEY = env.str("DJANGO_SECRET_KEY")  # no default: refuse to start without one
ALLOWED_HOSTS = env.list("DJANGO_ALLOWED_HOSTS")

CELERY_BROKER_URL = env.str("CELERY_BROKER_URL", default="redis://127.0.0.1:6379/0")
# Several web processes: a move made in one reaches the sockets of all through Redis.
CHANNEL_LAYER_URL = env.str("CHANNEL_LAYER_URL", default="redis://127.0.0.1:6379/1")
CHANNEL_LAYERS = channel_layers(CHANNEL_LAYER_URL)

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

# Keep database connections open between requests.
DATABASES["default"]["CONN_MAX_AGE"] = env.int("CONN_MAX_AGE", default=60)  # noqa: F405
