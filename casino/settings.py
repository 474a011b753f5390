"""Settings for the Pairs table system, all read from the environment.

Unset, everything falls back to the embedded default a newcomer needs: a
SQLite file in the project and Celery tasks run in-process. Production sets
DEBUG off, a SECRET_KEY, ALLOWED_HOSTS, DATABASE_URL (PostgreSQL) and
CELERY_BROKER_URL (Redis); with DEBUG off the HTTPS protections are on, so
`manage.py check --deploy` is clean.
"""

import os
import tempfile
from datetime import timedelta
from pathlib import Path

import environ
from celery.schedules import crontab

BASE_DIR = Path(__file__).resolve().parent.parent

env = environ.Env()

DEBUG = env.bool("DEBUG", default=False)
# The fallback key is marked insecure so that `check --deploy` refuses it.
SECRET_KEY = env("SECRET_KEY", default="django-insecure-local-development-only")
ALLOWED_HOSTS = env.list("ALLOWED_HOSTS", default=["127.0.0.1", "localhost"])
CSRF_TRUSTED_ORIGINS = env.list("CSRF_TRUSTED_ORIGINS", default=[])

DATABASES = {"default": env.db("DATABASE_URL", default=f"sqlite:///{BASE_DIR / 'db.sqlite3'}")}
DATABASES["default"]["ATOMIC_REQUESTS"] = False
DATABASES["default"]["CONN_MAX_AGE"] = env.int("CONN_MAX_AGE", default=60)
DATABASES["default"]["CONN_HEALTH_CHECKS"] = True
if DATABASES["default"]["ENGINE"] == "django.db.backends.postgresql":
    # Prepared statements: psycopg 3 prepares a statement once it has run `prepare_threshold`
    # times on a connection (server-side binding needed), and PostgreSQL then stops parsing and
    # planning it afresh: the token's and the permission's joins cost 10 to 20 times more to plan
    # than to run (docs/performance.md). Django turns this off by default for connection poolers
    # in transaction mode; PgBouncer keeps prepared statements since 1.21
    # (`max_prepared_statements`). DB_PREPARE_THRESHOLD=0 turns it off.
    threshold = env.int("DB_PREPARE_THRESHOLD", default=2)
    DATABASES["default"].setdefault("OPTIONS", {}).update(
        server_side_binding=threshold > 0, prepare_threshold=threshold if threshold > 0 else None
    )
if DATABASES["default"]["ENGINE"] == "django.db.backends.sqlite3":
    # Take the write lock when a transaction begins, and wait for it, so two
    # tablets racing on SQLite queue up instead of failing with "database is locked".
    DATABASES["default"]["OPTIONS"] = {"transaction_mode": "IMMEDIATE", "timeout": 20}
    # Race tests need a file: threads cannot share an in-memory database's locks.
    # One file per test process, so runs side by side do not share it.
    TEST_DB = Path(tempfile.gettempdir()) / f"pairs-test-{os.getpid()}.sqlite3"
    DATABASES["default"]["TEST"] = {"NAME": str(TEST_DB)}

INSTALLED_APPS = [
    "casino.admin_apps.ScopedAdminConfig",  # django.contrib.admin, its site scoped
    "django.contrib.auth",
    "django.contrib.contenttypes",
    "django.contrib.sessions",
    "django.contrib.messages",
    "django.contrib.staticfiles",
    "rest_framework",
    "rest_framework.authtoken",
    "drf_spectacular",
    "drf_spectacular_sidecar",
    "django_htmx",
    "axes",
    "csp",
    "casino",
    "tables",
    "ledger",
    "reports",
]

MIDDLEWARE = [
    "django.middleware.security.SecurityMiddleware",
    # A NUL byte in the URL is a 400 before any view puts it in a query (casino/input.py).
    "casino.input.NulRefusedMiddleware",
    "casino.middleware.CSPMiddleware",  # django-csp's, its header built once
    "whitenoise.middleware.WhiteNoiseMiddleware",
    "django.contrib.sessions.middleware.SessionMiddleware",
    # Just below the sessions: a database that is down answers 503, not a 500 (casino/unavailable.py).
    "casino.unavailable.DatabaseUnavailableMiddleware",
    "casino.idle.IdleSessionMiddleware",
    "django.middleware.common.CommonMiddleware",
    "django.middleware.csrf.CsrfViewMiddleware",
    "django.contrib.auth.middleware.AuthenticationMiddleware",
    "django.contrib.messages.middleware.MessageMiddleware",
    "django.middleware.clickjacking.XFrameOptionsMiddleware",
    "django_htmx.middleware.HtmxMiddleware",
    "casino.middleware.OriginMiddleware",
    # Last, as axes asks: it turns a sign-in refused for a lockout into the lockout page.
    "axes.middleware.AxesMiddleware",
]

ROOT_URLCONF = "casino.urls"
WSGI_APPLICATION = "casino.wsgi.application"
ASGI_APPLICATION = "casino.asgi.application"
AUTH_USER_MODEL = "casino.User"
LOGIN_URL = "login"
LOGIN_REDIRECT_URL = "home"
LOGOUT_REDIRECT_URL = "login"
# The lockout check first: a locked-out name is refused before its password is tried.
AUTHENTICATION_BACKENDS = [
    "casino.lockout.LockoutBackend",
    "django.contrib.auth.backends.ModelBackend",
]

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

AUTH_PASSWORD_VALIDATORS = [
    {"NAME": "django.contrib.auth.password_validation.UserAttributeSimilarityValidator"},
    {"NAME": "django.contrib.auth.password_validation.MinimumLengthValidator"},
    {"NAME": "django.contrib.auth.password_validation.CommonPasswordValidator"},
    {"NAME": "django.contrib.auth.password_validation.NumericPasswordValidator"},
]

LANGUAGE_CODE = "en-us"
TIME_ZONE = env("TIME_ZONE", default="UTC")
USE_I18N = True
USE_TZ = True

STATIC_URL = "static/"
STATIC_ROOT = BASE_DIR / "staticfiles"
# Production images run collectstatic at build time and serve hashed, compressed
# files; without it (a first run, the tests) files come straight from the apps.
STATIC_COLLECTED = (STATIC_ROOT / "staticfiles.json").exists()
STORAGES = {
    "default": {"BACKEND": "django.core.files.storage.FileSystemStorage"},
    "staticfiles": {
        "BACKEND": "whitenoise.storage.CompressedManifestStaticFilesStorage"
        if STATIC_COLLECTED
        else "django.contrib.staticfiles.storage.StaticFilesStorage"
    },
}
WHITENOISE_USE_FINDERS = not STATIC_COLLECTED

# HTTPS protections: on whenever DEBUG is off; a TLS-terminating proxy in
# front must set X-Forwarded-Proto.
SECURE_SSL_REDIRECT = env.bool("SECURE_SSL_REDIRECT", default=not DEBUG)
SESSION_COOKIE_SECURE = env.bool("SESSION_COOKIE_SECURE", default=not DEBUG)
CSRF_COOKIE_SECURE = env.bool("CSRF_COOKIE_SECURE", default=not DEBUG)
SECURE_HSTS_SECONDS = env.int("SECURE_HSTS_SECONDS", default=0 if DEBUG else 31536000)
SECURE_HSTS_INCLUDE_SUBDOMAINS = not DEBUG
SECURE_HSTS_PRELOAD = env.bool("SECURE_HSTS_PRELOAD", default=not DEBUG)
SECURE_PROXY_SSL_HEADER = ("HTTP_X_FORWARDED_PROTO", "https")
SECURE_REDIRECT_EXEMPT = [r"^health/$"]
X_FRAME_OPTIONS = "DENY"

# Behind a proxy that sets X-Forwarded-For (overwriting what the client sent), the audit log and
# the lockout take the client's address from its first entry; otherwise REMOTE_ADDR.
TRUSTED_PROXY = env.bool("TRUSTED_PROXY", default=False)

# Sign-in lockout (django-axes, see casino/lockout.py): after AXES_FAILURE_LIMIT failures for one
# username on one device, that pair is refused for the cool-off. Keyed on the device, not the
# address: every tablet on the floor may reach the app from the same address.
AXES_FAILURE_LIMIT = env.int("AXES_FAILURE_LIMIT", default=5)
AXES_COOLOFF_TIME = timedelta(minutes=env.int("AXES_COOLOFF_MINUTES", default=15))
AXES_LOCKOUT_PARAMETERS = [["username", "user_agent"]]  # "user_agent" holds the device id when sent
AXES_HANDLER = "casino.lockout.DeviceLockoutHandler"
AXES_LOCKOUT_CALLABLE = "casino.lockout.lockout_response"
AXES_CLIENT_IP_CALLABLE = "casino.middleware.client_address"
AXES_RESET_ON_SUCCESS = True  # a dealer's typo this morning does not count against them tonight
# A name failing this often within the cool-off, over any devices, is locked on every device: device
# ids are sent by the client, and a script could change its id with every guess.
SIGNIN_NAME_FAILURE_LIMIT = env.int("SIGNIN_NAME_FAILURE_LIMIT", default=20)
# A sign-in refused for a lock is not counted as a failure: else guessing on at one locked device
# would reach the name's ceiling above and lock the name on every other device.
AXES_RESET_COOL_OFF_ON_FAILURE_DURING_LOCKOUT = False
# axes.W006 asks for the address as a lockout key; on a floor where every tablet shares one address
# that would lock everyone out at once. The per-name ceiling above covers what it warns about.
SILENCED_SYSTEM_CHECKS = ["axes.W006"]

# A tablet left signed in is signed out after SESSION_COOKIE_AGE seconds without a request made
# by a person: casino.idle renews the session on every request but the screens' own polling
# (SESSION_SAVE_EVERY_REQUEST would count the polling too, and a polling tablet is never idle).
SESSION_COOKIE_AGE = env.int("SESSION_COOKIE_AGE", default=30 * 60)
SESSION_SAVE_EVERY_REQUEST = False

# Content security policy (django-csp): scripts, styles and everything else from this site only;
# no inline script or style, no plugins, no framing, forms post only here. Images may also be
# data: URIs (the API docs' icons are).
CONTENT_SECURITY_POLICY = {
    "DIRECTIVES": {
        "default-src": ["'self'"],
        "img-src": ["'self'", "data:"],
        "object-src": ["'none'"],
        "base-uri": ["'self'"],
        "form-action": ["'self'"],
        "frame-ancestors": ["'none'"],
    },
}

# The largest request body read, in bytes: a table's requests are a few hundred bytes and the admin's
# forms a few kilobytes. A larger body is refused (400; the API says 413 in JSON) before it is parsed.
DATA_UPLOAD_MAX_MEMORY_SIZE = env.int("DATA_UPLOAD_MAX_MEMORY_SIZE", default=1024 * 1024)

# An API token (a device's) stops working this many days after it was made (0: never), and at
# once when its account's password changes or the account is deactivated (casino/tokens.py).
API_TOKEN_DAYS = env.int("API_TOKEN_DAYS", default=90)

REST_FRAMEWORK = {
    # Devices (a card-reading shoe) send "Authorization: Token ..."; the tablet's browser uses its
    # session, with CSRF enforced. Token first, so a request with neither is answered 401.
    "DEFAULT_AUTHENTICATION_CLASSES": [
        "casino.tokens.ExpiringTokenAuthentication",
        "rest_framework.authentication.SessionAuthentication",
    ],
    "DEFAULT_PERMISSION_CLASSES": ["rest_framework.permissions.IsAuthenticated"],
    "DEFAULT_SCHEMA_CLASS": "drf_spectacular.openapi.AutoSchema",
    # Every list reads its query string here: a parameter it does not take is a 400 naming it.
    "DEFAULT_FILTER_BACKENDS": ["tables.api.queries.QueryParameters"],
    # DRF's, but JSON nested too deeply is a 400, not a RecursionError (tables/api/parsers.py).
    "DEFAULT_PARSER_CLASSES": [
        "tables.api.parsers.JSONParser",
        "rest_framework.parsers.FormParser",
        "rest_framework.parsers.MultiPartParser",
    ],
    # casino.errors.DomainError subclasses become {"detail": message} with their own status.
    "EXCEPTION_HANDLER": "tables.api.errors.api_exception_handler",
}
SPECTACULAR_SETTINGS = {
    "TITLE": "Pairs table system API",
    "DESCRIPTION": "Tables, shoes, hands, cards, decisions and the ledger.",
    "VERSION": "0.1.0",
    "SERVE_INCLUDE_SCHEMA": False,
    # Swagger UI from the installed sidecar package: tables run on a closed network.
    "SWAGGER_UI_DIST": "SIDECAR",
    "SWAGGER_UI_FAVICON_HREF": "SIDECAR",
    "REDOC_DIST": "SIDECAR",
    # Several records have a "kind" or a "status": each choice set gets its own name in the schema.
    "ENUM_NAME_OVERRIDES": {
        "MoveEnum": "tables.api.serializers.MOVES",
        "HandStatusEnum": "tables.models.Hand.Status",
        "ApprovalStatusEnum": "tables.models.ApprovalRequest.Status",
        "ShoeKindEnum": "tables.models.Shoe.Kind",
        "ApprovalKindEnum": "tables.models.ApprovalRequest.Kind",
        "TransactionKindEnum": "ledger.models.Transaction.Kind",
        "AccountKindEnum": "ledger.models.Account.Kind",
        "NextStepKindEnum": ["card", "decision", "finished"],
    },
}

# Celery: without a broker, tasks run in-process at once (the embedded default).
CELERY_BROKER_URL = env("CELERY_BROKER_URL", default="") or "memory://"
CELERY_TASK_ALWAYS_EAGER = CELERY_BROKER_URL == "memory://"
CELERY_TASK_EAGER_PROPAGATES = True
CELERY_RESULT_BACKEND = env(
    "CELERY_RESULT_BACKEND", default="" if CELERY_TASK_ALWAYS_EAGER else CELERY_BROKER_URL
) or None
CELERY_TASK_ACKS_LATE = True
CELERY_TASK_REJECT_ON_WORKER_LOST = True
CELERY_WORKER_PREFETCH_MULTIPLIER = 1
# Redis hands a message a worker took but never acknowledged (it died mid-task: acks late) to another
# worker once this many seconds have passed. It must outlast the longest task and the longest retry
# countdown (a worker holds a retried task unacknowledged until it is due), or those run twice.
CELERY_BROKER_TRANSPORT_OPTIONS = {"visibility_timeout": env.int("CELERY_VISIBILITY_TIMEOUT", default=3600)}
CELERY_BROKER_CONNECTION_RETRY_ON_STARTUP = True
CELERY_TIMEZONE = TIME_ZONE
CELERY_BEAT_SCHEDULE = {
    # Once a day, after the gaming day has closed (06:00 in TIME_ZONE), every chain head is
    # written to an anchor file that the auditors copy off the machine.
    "ledger-anchor-daily": {"task": "ledger.anchor_chains", "schedule": crontab(hour=6, minute=0)},
    # Reports (reports/tasks.py): reconcile every dealer shift that has ended (a shift is reconciled
    # once, whatever the sweeps), and after the gaming day closes, the day's statistics, house edge
    # and reconciliations.
    "reports-end-of-shift": {"task": "reports.end_of_shift", "schedule": crontab(minute="*/15")},
    "reports-end-of-day": {"task": "reports.end_of_day", "schedule": crontab(hour=6, minute=15)},
}

# Screens poll for changes made elsewhere (a second tablet, the pit) every this many seconds; a
# tap's own answer never waits for the poll, so the browser tests set these very high to prove it.
TABLET_POLL_SECONDS = env.int("TABLET_POLL_SECONDS", default=2)
PIT_POLL_SECONDS = env.int("PIT_POLL_SECONDS", default=3)

# Reports: the gaming day closes at this hour (local time); Rocket's theoretical edge is simulated
# over REPORTS_EDGE_HANDS luck-adjusted hands and its spread over REPORTS_VARIANCE_HANDS hands.
REPORTS_GAMING_DAY_HOUR = env.int("REPORTS_GAMING_DAY_HOUR", default=6)
REPORTS_EDGE_HANDS = env.int("REPORTS_EDGE_HANDS", default=100_000)
REPORTS_VARIANCE_HANDS = env.int("REPORTS_VARIANCE_HANDS", default=200_000)
# A report's task message delivered more often than this was never acknowledged that many times: its
# worker died running it each time (killed, out of memory). The report is then failed, not run again.
REPORTS_MAX_DELIVERIES = env.int("REPORTS_MAX_DELIVERIES", default=3)
# Without a broker (make run), in DEBUG, a report's or a par sheet's task runs in a thread of the
# server after the page has answered, instead of inside the request (reports/services/dispatch.py).
REPORTS_TASKS_IN_THREAD = env.bool("REPORTS_TASKS_IN_THREAD", default=True)
# Par sheets (reports/services/par_sheet.py): Rocket hands dealt to a full table through the shoe,
# pot games played per run, players and strategy at a pot table, and the hands (Pairs) or games
# dealt per hour that turn per-game figures into per-hour ones (e.g. '{"pairs": 50}').
PAR_SHEET_ROCKET_HANDS = env.int("PAR_SHEET_ROCKET_HANDS", default=100_000)
PAR_SHEET_GAMES = env.int("PAR_SHEET_GAMES", default=10_000)
PAR_SHEET_POT_PLAYERS = env.int("PAR_SHEET_POT_PLAYERS", default=4)
PAR_SHEET_POT_STRATEGY = env("PAR_SHEET_POT_STRATEGY", default="cautious")
PAR_SHEET_HANDS_PER_HOUR = env.json("PAR_SHEET_HANDS_PER_HOUR", default={})

# Where `manage.py ledger_anchor` and the daily task write anchor files.
LEDGER_ANCHOR_DIR = Path(env("LEDGER_ANCHOR_DIR", default=str(BASE_DIR / "anchors")))

LOGGING = {
    "version": 1,
    "disable_existing_loggers": False,
    "handlers": {"console": {"class": "logging.StreamHandler"}},
    "root": {"handlers": ["console"], "level": env("LOG_LEVEL", default="INFO")},
}
