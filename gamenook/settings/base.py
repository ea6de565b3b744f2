"""Settings shared by every environment. Values come from the environment (django-environ)."""

import hashlib
import hmac
import sys
from pathlib import Path
from typing import Any

import django_stubs_ext
import environ
from kombu import Queue

# Generic Django classes (ModelAdmin[Table], QuerySet[Move]) can be subscripted at run time.
django_stubs_ext.monkeypatch()

BASE_DIR = Path(__file__).resolve().parent.parent.parent

env = environ.Env()

# --- core -----------------------------------------------------------------

DEBUG = env.bool("DJANGO_DEBUG", default=False)
ALLOWED_HOSTS: list[str] = env.list("DJANGO_ALLOWED_HOSTS", default=[])
SITE_URL = env.str("SITE_URL", default="http://127.0.0.1:8000")

# The leaderboard's covering index (ratings.Rating, docs/ratings.md) carries the filter's
# columns on PostgreSQL; SQLite, the embedded default of make run, builds it without
# them, and Django says so at every start (models.W040): known and harmless.
SILENCED_SYSTEM_CHECKS = ["models.W040"]

INSTALLED_APPS = [
    "django.contrib.admin",
    "django.contrib.auth",
    "django.contrib.contenttypes",
    "django.contrib.sessions",
    "django.contrib.messages",
    "django.contrib.staticfiles",
    "rest_framework",
    "drf_spectacular",
    # Swagger UI's files, pinned (requirements/base.txt), served as the site's static files.
    "drf_spectacular_sidecar",
    "games",
    "ratings",
    "notifications",
    "accounts",
    "web",
    "live",
]

MIDDLEWARE = [
    "django.middleware.security.SecurityMiddleware",
    # Content-Security-Policy, Permissions-Policy, Cache-Control: private (docs/deploy.md).
    "gamenook.middleware.SecurityHeadersMiddleware",
    "django.contrib.sessions.middleware.SessionMiddleware",
    "django.middleware.common.CommonMiddleware",
    "django.middleware.csrf.CsrfViewMiddleware",
    "django.contrib.auth.middleware.AuthenticationMiddleware",
    "django.contrib.messages.middleware.MessageMiddleware",
    "django.middleware.clickjacking.XFrameOptionsMiddleware",
]

ROOT_URLCONF = "gamenook.urls"
# A CSRF refusal outside DRF's views answers in the API's error shape under /api/.
CSRF_FAILURE_VIEW = "games.apis.errors.csrf_failure"
WSGI_APPLICATION = "gamenook.wsgi.application"
# HTTP and WebSockets (live/): daphne, or any ASGI server, serves this one.
ASGI_APPLICATION = "gamenook.asgi.application"

TEMPLATES = [
    {
        "BACKEND": "django.template.backends.django.DjangoTemplates",
        "DIRS": [],
        "APP_DIRS": True,
        "OPTIONS": {
            "context_processors": [
                "django.template.context_processors.request",
                "django.contrib.auth.context_processors.auth",
                "django.contrib.messages.context_processors.messages",
            ],
        },
    },
]

# --- database -------------------------------------------------------------

DATABASES = {
    "default": env.db("DATABASE_URL", default=f"sqlite:///{BASE_DIR / 'db.sqlite3'}"),
}
DATABASES["default"]["ATOMIC_REQUESTS"] = False
if DATABASES["default"]["ENGINE"].endswith("sqlite3"):
    # The web server and the worker write to one SQLite file: take the write lock
    # when a transaction begins (no lock upgrade to fail half-way), wait for it
    # rather than fail, and let readers read while one writes.
    DATABASES["default"].setdefault("OPTIONS", {}).update(
        {
            "transaction_mode": "IMMEDIATE",
            "timeout": 20,
            "init_command": "PRAGMA journal_mode=WAL;",
        }
    )
# A connection kept open across requests or tasks is checked before reuse, so web
# processes and Celery workers reconnect by themselves after a PostgreSQL restart.
DATABASES["default"]["CONN_HEALTH_CHECKS"] = True
if DATABASES["default"]["ENGINE"].endswith("postgresql"):
    # Django's backend, whose health check polls the socket instead of a round trip
    # to PostgreSQL per request (gamenook/postgresql/base.py).
    DATABASES["default"]["ENGINE"] = "gamenook.postgresql"
    # games.rows runs its hot statements bound on the server; psycopg prepares each
    # after this many runs on a connection, so PostgreSQL plans it once. Django's own
    # statements bind on the client and are never prepared. "off" behind a pooler
    # that cannot keep prepared statements (docs/deploy.md).
    _prepare = env.str("DATABASE_PREPARE_THRESHOLD", default="2")
    DATABASES["default"].setdefault("OPTIONS", {})["prepare_threshold"] = (
        None if _prepare == "off" else int(_prepare)
    )
    # Each process's connections say whose they are in pg_stat_activity ("gamenook
    # daphne", "gamenook gunicorn", "gamenook celery"), so they can be counted per
    # kind (docs/deploy.md, "Connections"); ?application_name= in DATABASE_URL wins.
    DATABASES["default"]["OPTIONS"].setdefault(
        "application_name", f"gamenook {Path(sys.argv[0]).name if sys.argv else ''}".strip()[:63]
    )
# gamenook.asgi sets this variable while the settings load: the process serves ASGI
# (daphne), whose connections the production settings pool (docs/deploy.md).
ASGI_FLAG = "GAMENOOK_ASGI"
DEFAULT_AUTO_FIELD = "django.db.models.BigAutoField"

# --- auth -----------------------------------------------------------------

AUTH_PASSWORD_VALIDATORS = [
    {"NAME": "django.contrib.auth.password_validation.UserAttributeSimilarityValidator"},
    {"NAME": "django.contrib.auth.password_validation.MinimumLengthValidator"},
    {"NAME": "django.contrib.auth.password_validation.CommonPasswordValidator"},
    {"NAME": "django.contrib.auth.password_validation.NumericPasswordValidator"},
]

# The web client's pages (web/): its log-in page, and where logging in and out lead.
LOGIN_URL = "web:login"
LOGIN_REDIRECT_URL = "web:home"
LOGOUT_REDIRECT_URL = "web:login"

# --- i18n / time ----------------------------------------------------------

LANGUAGE_CODE = "en-us"
TIME_ZONE = "UTC"
USE_I18N = True
USE_TZ = True

# --- static files ---------------------------------------------------------

STATIC_URL = "static/"
STATIC_ROOT = BASE_DIR / "staticfiles"

# --- REST API -------------------------------------------------------------

REST_FRAMEWORK = {
    "DEFAULT_AUTHENTICATION_CLASSES": [
        # Tokens stored as hashes, several per user (accounts.models.ApiToken).
        "accounts.authentication.TokenAuthentication",
        "accounts.authentication.SessionAuthentication",
    ],
    "DEFAULT_PERMISSION_CLASSES": ["rest_framework.permissions.IsAuthenticated"],
    "DEFAULT_SCHEMA_CLASS": "drf_spectacular.openapi.AutoSchema",
    # A JSON API: JSON in, JSON out (the browsable API stays for people exploring it).
    # Bounded in size and depth, text that can be stored: see games.apis.parsers.
    "DEFAULT_PARSER_CLASSES": ["games.apis.parsers.StrictJSONParser"],
    "EXCEPTION_HANDLER": "games.apis.errors.exception_handler",
    # Per-user rates (per address before login); the views pick their scope.
    "DEFAULT_THROTTLE_RATES": {
        "actions": env.str("GAMENOOK_RATE_ACTIONS", default="240/minute"),
        "accounts": env.str("GAMENOOK_RATE_ACCOUNTS", default="60/minute"),
    },
    # Proxies in front of the app: 0 trusts REMOTE_ADDR only, so a client cannot
    # dodge the per-address limits with a forged X-Forwarded-For.
    "NUM_PROXIES": env.int("GAMENOOK_NUM_PROXIES", default=0),
}

# Run bot turns in the request, right after the human move commits. Off: the Celery
# worker takes the bot turns (queued on commit by notifications; tests keep it on).
GAMENOOK_RUN_BOTS_INLINE = env.bool("GAMENOOK_RUN_BOTS_INLINE", default=False)

# Turns on the API load benchmark's baseline endpoint (games.bench); never in production.
GAMENOOK_BENCH_ENDPOINTS = env.bool("GAMENOOK_BENCH_ENDPOINTS", default=False)

SPECTACULAR_SETTINGS = {
    "TITLE": "Gamenook API",
    "DESCRIPTION": "Turn-by-turn Wild Cards Flip by correspondence.",
    "VERSION": "1",
    "SERVE_INCLUDE_SCHEMA": False,
    # The docs page (/api/v1/docs/) loads Swagger UI from the site's own static files
    # (drf-spectacular-sidecar, pinned), not a CDN's latest: the CSP allows no other.
    "SWAGGER_UI_DIST": "SIDECAR",
    "SWAGGER_UI_FAVICON_HREF": "SIDECAR",
    "REDOC_DIST": "SIDECAR",
    # Request bodies refuse unknown fields: the schema says so (games.apis.schema).
    "POSTPROCESSING_HOOKS": [
        "drf_spectacular.hooks.postprocess_schema_enums",
        "games.apis.schema.strict_request_bodies",
    ],
    # Row ids in URLs (games.apis.common.IdConverter): integers a bigint column holds.
    "PATH_CONVERTER_OVERRIDES": {
        "id": {"type": "integer", "minimum": 0, "maximum": 2**63 - 1},
    },
    # One name for each choice set that flip's types and the tables' fields share.
    "ENUM_NAME_OVERRIDES": {
        # Wild Cards Flip's eight colours (both sides), classic Wild Cards' four.
        "ColorEnum": ["red", "yellow", "green", "blue", "magenta", "cyan", "orange", "purple"],
        "WildcardsColorEnum": ["red", "yellow", "green", "blue"],
        "ScoringEnum": ["single", "target"],
        # A bot's level, an autopilot's and a time away's (ruling 20).
        "BotLevelEnum": ["easy", "normal", "hard"],
        # A new table's body: one shape per game and mode (games.apis.typed.table_inputs).
        "FlipGameEnum": ["flip"],
        "WildcardsGameEnum": ["wildcards"],
        "TurnByTurnModeEnum": ["turn_by_turn"],
        "RealTimeModeEnum": ["real_time"],
        # A table's status keeps its name beside an invitation's (issue 40).
        "StatusEnum": "games.models.Table.Status",
        "InvitationStatusEnum": "games.models.Invitation.Status",
    },
}

# --- WebSockets (live/) ------------------------------------------------------


def _derived(secret_key: str, purpose: str, database: str = "") -> str:
    """A value of the deployment's own, from its secret key: HMAC-SHA256 of ``purpose``."""
    message = f"gamenook {purpose}\0{database}".encode()
    return hmac.new(secret_key.encode(), message, hashlib.sha256).hexdigest()


def channel_layers(
    url: str, *, secret_key: str = "", database: str = "", prefix: str = ""
) -> dict[str, dict[str, Any]]:
    """Channels' layer: Redis's when ``url`` names a Redis database, else in-memory.

    The in-memory layer reaches the consumers of one process only: enough for
    ``make run`` (one daphne), where what the worker changes reaches the pages
    through ``GAMENOOK_LIVE_RECHECK_SECONDS`` (live.ticker).

    On Redis, a deployment's channels are its own (docs/deploy.md, "Security"):
    Redis's database number does not separate publish-and-subscribe channels, so
    each deployment's carry ``prefix`` (default: derived from ``secret_key`` and
    the ``database`` name, so two deployments differ without being told), and
    every message is sealed (Fernet: AES and an HMAC) with a key derived from
    ``secret_key``: a table's change carries its row, hidden state and all, and
    anyone else on that Redis server reads nothing of it and can forge none.
    Without ``secret_key`` (the tests that build a layer of their own) messages
    go unsealed.
    """
    if not url:
        return {"default": {"BACKEND": "channels.layers.InMemoryChannelLayer"}}
    # Redis's publish and subscribe: a change at a table is one PUBLISH, and each
    # process with sockets there gets it once and hands it to them all (the list
    # layer, channels_redis.core, copied it into a list per socket, each read with
    # its own BZPOPMIN: docs/performance.md, "WebSockets"). A message published
    # while a process is not subscribed is lost: the recheck (live.ticker) is the
    # safety net for that, as for any message lost. The client's read timeout
    # stays above any wait of the layer's.
    config: dict[str, Any] = {"hosts": [{"address": url, "socket_timeout": 15}]}
    # Channels' names allow letters, digits, "-", "_" and "."; the layer appends
    # "__group__table.<id>" and "specific.<hex>" to the prefix as it is.
    config["prefix"] = prefix or f"gamenook.{_derived(secret_key, 'channels', database)[:16]}."
    if secret_key:
        config["symmetric_encryption_keys"] = [_derived(secret_key, "channel layer key")]
    return {
        "default": {"BACKEND": "channels_redis.pubsub.RedisPubSubChannelLayer", "CONFIG": config}
    }


CHANNEL_LAYER_URL = env.str("CHANNEL_LAYER_URL", default="")
# The channels' prefix on Redis; empty: one derived from DJANGO_SECRET_KEY and the
# database's name. Every process of a deployment must agree on it (they share both).
CHANNEL_LAYER_PREFIX = env.str("CHANNEL_LAYER_PREFIX", default="")
# Each environment's module builds the layer again with its secret key (which seals
# the messages); this one is the in-memory layer or an unsealed one.
CHANNEL_LAYERS = channel_layers(CHANNEL_LAYER_URL, prefix=CHANNEL_LAYER_PREFIX)
# Every open socket's presence record is touched this often (one query per process).
GAMENOOK_LIVE_HEARTBEAT_SECONDS = env.float("GAMENOOK_LIVE_HEARTBEAT_SECONDS", default=30.0)
# Each process reads the seq of the tables its sockets watch this often, and pushes
# what changed without a message on the layer (a lost message, or the in-memory layer
# while a worker plays): the safety net of the push, never its main path.
GAMENOOK_LIVE_RECHECK_SECONDS = env.float("GAMENOOK_LIVE_RECHECK_SECONDS", default=10.0)
# A lobby's changes (seats taken, given up) send no signal: its sockets read it this often.
GAMENOOK_LIVE_LOBBY_RECHECK_SECONDS = env.float("GAMENOOK_LIVE_LOBBY_RECHECK_SECONDS", default=1.0)
# The largest frame a socket reads; an action is a few dozen bytes.
GAMENOOK_LIVE_MAX_FRAME_BYTES = env.int("GAMENOOK_LIVE_MAX_FRAME_BYTES", default=16_384)
# How many sockets one user may hold open at one table, counted across processes (the
# presence records); one more is refused with too_many_sockets (close code 4429).
GAMENOOK_LIVE_MAX_SOCKETS_PER_TABLE = env.int("GAMENOOK_LIVE_MAX_SOCKETS_PER_TABLE", default=10)

# --- e-mail ---------------------------------------------------------------

# EMAIL_URL sets the backend and the SMTP details in one value, e.g.
# smtp+tls://user:password@smtp.example.com:587 (default: print mail to the console).
_email = env.email("EMAIL_URL", default="consolemail://")
EMAIL_BACKEND = _email["EMAIL_BACKEND"]
EMAIL_HOST = _email.get("EMAIL_HOST") or "localhost"
EMAIL_PORT = _email.get("EMAIL_PORT") or 25
EMAIL_HOST_USER = _email.get("EMAIL_HOST_USER") or ""
EMAIL_HOST_PASSWORD = _email.get("EMAIL_HOST_PASSWORD") or ""
EMAIL_USE_TLS = bool(_email.get("EMAIL_USE_TLS", False))
EMAIL_USE_SSL = bool(_email.get("EMAIL_USE_SSL", False))
EMAIL_TIMEOUT = env.int("EMAIL_TIMEOUT", default=30)
DEFAULT_FROM_EMAIL = env.str("DEFAULT_FROM_EMAIL", default="Gamenook <noreply@localhost>")
SERVER_EMAIL = DEFAULT_FROM_EMAIL
# Where gamenook.mail.FolderEmailBackend (make run's default) keeps each message as a file.
GAMENOOK_MAIL_DIR = env.str("GAMENOOK_MAIL_DIR", default=str(BASE_DIR / ".mail"))

# --- Celery ---------------------------------------------------------------

# The Celery app reads the CELERY_* settings; each environment sets a sensible broker default.
CELERY_BROKER_URL = env.str("CELERY_BROKER_URL", default="")
CELERY_BROKER_TRANSPORT_OPTIONS: dict[str, object] = {}
CELERY_TIMEZONE = TIME_ZONE
CELERY_TASK_ALWAYS_EAGER = False
# Tasks whose name is not routed elsewhere go to this queue (the end-to-end test uses its own).
CELERY_TASK_DEFAULT_QUEUE = env.str("CELERY_TASK_DEFAULT_QUEUE", default="gamenook")
# Deadlines have a lane of their own: the sweeps and the jobs that apply timeouts and
# reminders go to "<queue>-deadlines". Every worker consumes both queues (they are the
# task_queues), taking them in turn, so a backlog of bot turns and mail never holds a
# deadline back (docs/deploy.md).
GAMENOOK_DEADLINE_QUEUE = f"{CELERY_TASK_DEFAULT_QUEUE}-deadlines"
CELERY_TASK_QUEUES = (Queue(CELERY_TASK_DEFAULT_QUEUE), Queue(GAMENOOK_DEADLINE_QUEUE))
CELERY_TASK_ROUTES = {
    name: {"queue": GAMENOOK_DEADLINE_QUEUE}
    for name in (
        "notifications.tasks.sweep",
        "notifications.tasks.sweep_bots",
        "notifications.tasks.sweep_realtime",
        "notifications.tasks.end_hold",
        "notifications.tasks.apply_timeouts",
        "notifications.tasks.apply_timeout",
        "notifications.tasks.send_reminder",
    )
}
# Nothing reads task results: state lives in the database.
CELERY_TASK_IGNORE_RESULT = True
CELERY_RESULT_BACKEND = None
# One message at a time per worker process: a task that is redelivered after a
# crash is not stuck behind a long prefetched batch.
CELERY_WORKER_PREFETCH_MULTIPLIER = 1
# Consumption resumes after a broker restart: retry connecting for ever, and
# give unacknowledged (acks_late) tasks back to the broker when the connection drops.
CELERY_BROKER_CONNECTION_RETRY_ON_STARTUP = True
CELERY_BROKER_CONNECTION_MAX_RETRIES = None
CELERY_WORKER_CANCEL_LONG_RUNNING_TASKS_ON_CONNECTION_LOSS = True
# Beat's schedule state (celery's default file-based scheduler) lives in a gitignored folder.
CELERY_BEAT_SCHEDULE_FILENAME = env.str(
    "CELERY_BEAT_SCHEDULE_FILENAME", default=str(BASE_DIR / ".celery" / "beat-schedule")
)

# --- turn-by-turn play ----------------------------------------------------

# How long an "hour" of a turn deadline lasts, in seconds. Only tests and demos shorten it.
GAMENOOK_SECONDS_PER_HOUR = env.int("GAMENOOK_SECONDS_PER_HOUR", default=3600)
# The periodic sweep: the source of truth for deadlines, reminders and unsent mail.
GAMENOOK_SWEEP_SECONDS = env.float("GAMENOOK_SWEEP_SECONDS", default=60.0)
# Ruling 19: "your turn" is mailed only to a player who neither moved nor had the table
# open for this long (and at most one such message waits per user, naming all their tables).
GAMENOOK_YOUR_TURN_QUIET_SECONDS = env.float("GAMENOOK_YOUR_TURN_QUIET_SECONDS", default=600.0)
# The bot catch-up sweep reads every active table, so it runs less often; bot turns
# are normally queued on commit and this only finds one the broker lost.
GAMENOOK_BOT_SWEEP_SECONDS = env.float("GAMENOOK_BOT_SWEEP_SECONDS", default=300.0)
# A bot turn counts as left waiting once its table has not changed for this long.
GAMENOOK_BOT_GRACE_SECONDS = env.float("GAMENOOK_BOT_GRACE_SECONDS", default=30.0)
# A pending e-mail whose sending job has not run this long after its due time is queued again.
GAMENOOK_OUTBOX_GRACE_SECONDS = env.float("GAMENOOK_OUTBOX_GRACE_SECONDS", default=60.0)
# How many rows the sweep reads per query.
GAMENOOK_SWEEP_BATCH = env.int("GAMENOOK_SWEEP_BATCH", default=1000)
# How many overdue turns one job applies in one transaction (the sweep hands out pages).
GAMENOOK_TIMEOUT_PAGE = env.int("GAMENOOK_TIMEOUT_PAGE", default=100)
# An outbox message gives up (status failed) after this many failed SMTP attempts;
# with the backoff capped at an hour that is about two days of mail server trouble.
GAMENOOK_EMAIL_MAX_ATTEMPTS = env.int("GAMENOOK_EMAIL_MAX_ATTEMPTS", default=48)
GAMENOOK_EMAIL_BACKOFF_MAX_SECONDS = env.int("GAMENOOK_EMAIL_BACKOFF_MAX_SECONDS", default=3600)

# --- real-time play (rulings 17 and 18) -----------------------------------

# A player's seat is held this long after their last connection closed (two minutes).
GAMENOOK_SEAT_HOLD_SECONDS = env.float("GAMENOOK_SEAT_HOLD_SECONDS", default=120.0)
# A connection whose heartbeat (every 30 seconds) stopped this long ago counts as closed.
GAMENOOK_PRESENCE_STALE_SECONDS = env.float("GAMENOOK_PRESENCE_STALE_SECONDS", default=90.0)
# The real-time sweep: the safety net for move timers and holds whose job was lost.
GAMENOOK_REALTIME_SWEEP_SECONDS = env.float("GAMENOOK_REALTIME_SWEEP_SECONDS", default=5.0)
# It leaves a move timer this long to its own job before handing it out again.
GAMENOOK_REALTIME_GRACE_SECONDS = env.float("GAMENOOK_REALTIME_GRACE_SECONDS", default=2.0)

# The games the service hosts: each a ruleset (tabletop.ruleset.Ruleset), found by its
# dotted path (games.rulesets). The first is the default of a new table.
GAMENOOK_GAMES = ["flip.ruleset.RULESET", "wildcards.ruleset.RULESET"]

# Every new game deals from this seed instead of a random one (docs/api.md's transcript).
# Only the local settings read it from the environment; anywhere else it stays empty.
GAMENOOK_GAME_SEED = ""

# How many days a link confirming an e-mail address works (accounts).
GAMENOOK_VERIFY_DAYS = env.int("GAMENOOK_VERIFY_DAYS", default=3)
# Confirmation mail (accounts, issue 35 §7): an account has at most this many a day
# (sign-up, address changes, "mail me a new link"), and one address gets at most one
# every this many seconds, whoever asks.
GAMENOOK_CONFIRM_MAILS_PER_DAY = env.int("GAMENOOK_CONFIRM_MAILS_PER_DAY", default=5)
GAMENOOK_CONFIRM_MAIL_INTERVAL = env.int("GAMENOOK_CONFIRM_MAIL_INTERVAL", default=300)
# Account mail links the page that asks for a password reset link (the web client's).
GAMENOOK_PASSWORD_FORGOT_URL = env.str(
    "GAMENOOK_PASSWORD_FORGOT_URL", default=SITE_URL + "/password-reset/"
)

# The links in e-mails ({table_id} is filled in): the web client's table page and replay.
GAMENOOK_TABLE_URL = env.str("GAMENOOK_TABLE_URL", default=SITE_URL + "/tables/{table_id}/")
GAMENOOK_REPLAY_URL = env.str(
    "GAMENOOK_REPLAY_URL", default=SITE_URL + "/tables/{table_id}/replay/"
)
# The account page, whose preferences the footer of every e-mail links (web:account).
GAMENOOK_ACCOUNT_URL = env.str("GAMENOOK_ACCOUNT_URL", default=SITE_URL + "/account/")

# --- web push (notifications/push.py, issue 38) -------------------------------

# The VAPID key pair (RFC 8292) the site signs every push with: the public key as the
# browser's applicationServerKey takes it (base64url of the 65-byte uncompressed P-256
# point), the private key as py-vapid's Vapid.from_string takes it (base64url of the
# 32-byte scalar, or of its DER). Without both, push is off. `make run` makes a pair on
# its first start (.vapid.json, git-ignored) and passes it on later starts.
GAMENOOK_VAPID_PUBLIC_KEY = env.str("GAMENOOK_VAPID_PUBLIC_KEY", default="")
GAMENOOK_VAPID_PRIVATE_KEY = env.str("GAMENOOK_VAPID_PRIVATE_KEY", default="")
# Who runs the site, for the push services (the VAPID "sub" claim): a mailto: address.
GAMENOOK_VAPID_SUBJECT = env.str("GAMENOOK_VAPID_SUBJECT", default="mailto:admin@localhost")
# At most this many devices per user (the API refuses one more with 409).
GAMENOOK_PUSH_MAX_DEVICES = env.int("GAMENOOK_PUSH_MAX_DEVICES", default=10)
# How long a push service keeps a message for a device that is offline (the TTL header).
GAMENOOK_PUSH_TTL_SECONDS = env.int("GAMENOOK_PUSH_TTL_SECONDS", default=86400)
# A push that failed this many times (not 404/410: those delete the device) is given up.
GAMENOOK_PUSH_MAX_ATTEMPTS = env.int("GAMENOOK_PUSH_MAX_ATTEMPTS", default=12)
# A device's endpoint must be https; http only to a loopback address, and only with this
# on (the tests' own push service).
GAMENOOK_PUSH_ALLOW_HTTP_LOOPBACK = False

# --- webhooks (notifications/webhooks.py, issue 40) ----------------------------

# A bot account's webhook: after a rotation the old secret still signs for this many hours.
GAMENOOK_WEBHOOK_ROTATION_HOURS = env.int("GAMENOOK_WEBHOOK_ROTATION_HOURS", default=24)
# An endpoint failing for this long without a success is disabled and its owner told.
GAMENOOK_WEBHOOK_DISABLE_AFTER_HOURS = env.int("GAMENOOK_WEBHOOK_DISABLE_AFTER_HOURS", default=24)
# A webhook URL must be https to a host whose every address is public; this allows http and
# loopback addresses too (the tests' receiver, a bot on the developer's machine).
GAMENOOK_WEBHOOK_ALLOW_LOOPBACK = False

CELERY_BEAT_SCHEDULE = {
    "notifications-sweep": {
        "task": "notifications.tasks.sweep",
        "schedule": GAMENOOK_SWEEP_SECONDS,
        # A sweep that waited longer than one interval is superseded by the next one.
        "options": {"expires": GAMENOOK_SWEEP_SECONDS},
    },
    "notifications-sweep-realtime": {
        "task": "notifications.tasks.sweep_realtime",
        "schedule": GAMENOOK_REALTIME_SWEEP_SECONDS,
        "options": {"expires": GAMENOOK_REALTIME_SWEEP_SECONDS},
    },
    "notifications-sweep-bots": {
        "task": "notifications.tasks.sweep_bots",
        "schedule": GAMENOOK_BOT_SWEEP_SECONDS,
        "options": {"expires": GAMENOOK_BOT_SWEEP_SECONDS},
    },
}

# --- logging --------------------------------------------------------------

LOGGING = {
    "version": 1,
    "disable_existing_loggers": False,
    "formatters": {"plain": {"format": "%(asctime)s %(levelname)s %(name)s %(message)s"}},
    "handlers": {"console": {"class": "logging.StreamHandler", "formatter": "plain"}},
    "root": {"handlers": ["console"], "level": env.str("DJANGO_LOG_LEVEL", default="INFO")},
}

# --- limits (docs/deploy.md, Security) --------------------------------------

# Per user (games.limits), each refused with a 409 that names the cap: tables in the
# lobby they host or sit at; running games they play in (a correspondence player
# may well keep 30 to 50 going); bot seats at the tables they host, in the lobby or
# running (real-time bots play as fast as the worker goes).
GAMENOOK_MAX_OPEN_TABLES = env.int("GAMENOOK_MAX_OPEN_TABLES", default=10)
GAMENOOK_MAX_RUNNING_TABLES = env.int("GAMENOOK_MAX_RUNNING_TABLES", default=50)
GAMENOOK_MAX_BOT_SEATS = env.int("GAMENOOK_MAX_BOT_SEATS", default=20)
# Issue 40: a game with no person at it (bot accounts and built-in bots only) may not start
# when one of its bot accounts has started this many such games in the last 24 hours.
GAMENOOK_BOT_GAMES_PER_DAY = env.int("GAMENOOK_BOT_GAMES_PER_DAY", default=100)
# NDJSON streams (live.streams): a blank line after this long silent (a quarter of it late at
# most: live.streams.Beat sends a process's keep-alives together), on the events stream
# (a few seconds: a client tells a dead connection quickly) and on a table's stream (under
# the 60 s a proxy commonly allows an idle response); and a stream's longest life.
GAMENOOK_STREAM_KEEPALIVE_SECONDS = env.float("GAMENOOK_STREAM_KEEPALIVE_SECONDS", default=10.0)
GAMENOOK_TABLE_STREAM_KEEPALIVE_SECONDS = env.float(
    "GAMENOOK_TABLE_STREAM_KEEPALIVE_SECONDS", default=30.0
)
GAMENOOK_STREAM_MAX_SECONDS = env.float("GAMENOOK_STREAM_MAX_SECONDS", default=3600.0)
# Issue 40: bot accounts one person may own (disabled ones count: a bot is never deleted,
# the games keep its name), each refused past it with 409 too_many_bots.
GAMENOOK_BOTS_PER_OWNER = env.int("GAMENOOK_BOTS_PER_OWNER", default=5)
# Away with autopilot (ruling 20, games.away): at most this many days away in any 365;
# past it, the player's tables run on deadlines as usual.
GAMENOOK_AWAY_DAYS_PER_YEAR = env.int("GAMENOOK_AWAY_DAYS_PER_YEAR", default=30)
# Issue 39: the reliability record counts the games that ended in this many days.
GAMENOOK_RELIABILITY_DAYS = env.int("GAMENOOK_RELIABILITY_DAYS", default=90)
# Ratings (ratings/, docs/ratings.md): a rating whose uncertainty (sigma, in the model's
# units, 8.33 for a newcomer) is above this is shown with "?" and left off the
# leaderboards; a turn a bot played for a person (a stand-in, autopilot) counts for this
# share of one of theirs in the weight of their result.
GAMENOOK_RATING_PROVISIONAL_SIGMA = env.float("GAMENOOK_RATING_PROVISIONAL_SIGMA", default=6.0)
GAMENOOK_RATING_STAND_IN_WEIGHT = env.float("GAMENOOK_RATING_STAND_IN_WEIGHT", default=0.25)
# A leaderboard lists players with at least this many rated games in it and one in the
# last ACTIVE_DAYS days.
GAMENOOK_LEADERBOARD_MIN_GAMES = env.int("GAMENOOK_LEADERBOARD_MIN_GAMES", default=10)
GAMENOOK_LEADERBOARD_ACTIVE_DAYS = env.int("GAMENOOK_LEADERBOARD_ACTIVE_DAYS", default=30)
# Log-in backoff (accounts.backoff), the web's log-in page and the API's token
# endpoint alike: failures are counted per username and per address, in the cache.
# Past the free ones, each attempt waits BACKOFF seconds, doubling up to MAX (no lock
# lasts longer); a count is forgotten WINDOW seconds after its last failure, and a
# success clears its username's.
GAMENOOK_LOGIN_FREE_FAILURES = env.int("GAMENOOK_LOGIN_FREE_FAILURES", default=5)
GAMENOOK_LOGIN_FREE_FAILURES_PER_ADDRESS = env.int(
    "GAMENOOK_LOGIN_FREE_FAILURES_PER_ADDRESS", default=20
)
GAMENOOK_LOGIN_BACKOFF_SECONDS = env.float("GAMENOOK_LOGIN_BACKOFF_SECONDS", default=2.0)
GAMENOOK_LOGIN_BACKOFF_MAX_SECONDS = env.float("GAMENOOK_LOGIN_BACKOFF_MAX_SECONDS", default=300.0)
GAMENOOK_LOGIN_WINDOW_SECONDS = env.float("GAMENOOK_LOGIN_WINDOW_SECONDS", default=900.0)
# An address a username logged in from is not held back by that username's failures
# elsewhere for this long: someone guessing a player's password cannot keep them out.
GAMENOOK_LOGIN_KNOWN_ADDRESS_DAYS = env.int("GAMENOOK_LOGIN_KNOWN_ADDRESS_DAYS", default=30)
# Idempotency-Key records are kept this long, then the sweep deletes them.
GAMENOOK_IDEMPOTENCY_KEEP_SECONDS = env.float("GAMENOOK_IDEMPOTENCY_KEEP_SECONDS", default=86400.0)
