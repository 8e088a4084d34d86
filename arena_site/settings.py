"""The Arena's settings: one module, every deployment value from the environment.

Without any environment the app runs on the embedded default (SQLite, in-memory channel layer,
Celery tasks executed in-process). ``DATABASE_URL`` and ``REDIS_URL`` switch to Postgres,
channels-redis and real Celery workers. See ``.env.example`` for every variable.
"""

from __future__ import annotations

import os
from datetime import timedelta
from pathlib import Path

from django.core.exceptions import ImproperlyConfigured

from arena_site.config import database_config, env_bool, env_choice, env_float, env_int, env_list, redis_url
from games.agents.endpoints import parse as parse_endpoints
from games.agents.prices import parse as _parse_prices

BASE_DIR = Path(__file__).resolve().parent.parent
VAR_DIR = Path(os.environ.get("ARENA_VAR_DIR", BASE_DIR / "var"))
VAR_DIR.mkdir(parents=True, exist_ok=True)  # SQLite and media live here by default
DATASETS_DIR = Path(os.environ.get("ARENA_DATASETS_DIR", BASE_DIR.parent / "shared" / "datasets"))

DEBUG = env_bool("DEBUG", True)
SECRET_KEY = os.environ.get("SECRET_KEY", "")
if not SECRET_KEY:
    if not DEBUG:
        raise ImproperlyConfigured("SECRET_KEY must be set when DEBUG is off (production mode)")
    SECRET_KEY = "dev-only-insecure-key-do-not-use-in-production"
ALLOWED_HOSTS = env_list("ALLOWED_HOSTS", ["127.0.0.1", "localhost", "testserver", "[::1]"])
CSRF_TRUSTED_ORIGINS = env_list("CSRF_TRUSTED_ORIGINS", [])

INSTALLED_APPS = [
    "daphne",
    "django.contrib.admin",
    "django.contrib.auth",
    "django.contrib.contenttypes",
    "django.contrib.sessions",
    "django.contrib.messages",
    "django.contrib.staticfiles",
    "django.contrib.humanize",
    "channels",
    "django_htmx",
    "axes",
    "accounts",
    "games",
    "games.catalog.tasks",
    "games.catalog.recipes",
    "games.catalog.kitchen",
    "games.catalog.itinerary",
    "games.npc",
    "annotations",
    "studies",
]

MIDDLEWARE = [
    "django.middleware.security.SecurityMiddleware",
    "whitenoise.middleware.WhiteNoiseMiddleware",
    "django.contrib.sessions.middleware.SessionMiddleware",
    "django.middleware.common.CommonMiddleware",
    "django.middleware.csrf.CsrfViewMiddleware",
    "django.contrib.auth.middleware.AuthenticationMiddleware",
    "django.contrib.messages.middleware.MessageMiddleware",
    "django.middleware.clickjacking.XFrameOptionsMiddleware",
    "django_htmx.middleware.HtmxMiddleware",
    # last, as django-axes asks: it turns a locked-out sign-in into the lockout page
    "axes.middleware.AxesMiddleware",
]

ROOT_URLCONF = "arena_site.urls"
ASGI_APPLICATION = "arena_site.asgi.application"
WSGI_APPLICATION = "arena_site.wsgi.application"

TEMPLATES = [
    {
        "BACKEND": "django.template.backends.django.DjangoTemplates",
        "DIRS": [BASE_DIR / "templates"],
        "APP_DIRS": True,
        "OPTIONS": {
            "context_processors": [
                "django.template.context_processors.request",
                "django.contrib.auth.context_processors.auth",
                "django.contrib.messages.context_processors.messages",
                "accounts.context.navigation",
                "studies.context.participant_header",  # after navigation: a study participant's header
            ],
        },
    },
]

DATABASES = {"default": database_config(os.environ.get("DATABASE_URL"), str(VAR_DIR / "arena.sqlite3"))}
DEFAULT_AUTO_FIELD = "django.db.models.BigAutoField"
# Threads per server process for the websocket's database work on Postgres (games.consumers.db).
# Few on purpose: the work holds the GIL between its round trips, and more threads than cores
# only queue for it (at 500 games on 2 cores, p99 act-to-event 30-35 ms with 2, 44-56 ms with 6).
GAME_DB_THREADS = env_int("GAME_DB_THREADS", 2, least=1)

REDIS_URL = redis_url(os.environ.get("REDIS_URL"))
if REDIS_URL:
    # Pub/sub: a broadcast is one PUBLISH. Our messages carry no state ("game N changed"), so
    # at-most-once delivery is enough (docs/decisions.md); measured ~20 % less server CPU per action.
    CHANNEL_LAYERS = {
        "default": {"BACKEND": "channels_redis.pubsub.RedisPubSubChannelLayer", "CONFIG": {"hosts": [REDIS_URL]}}
    }
else:
    CHANNEL_LAYERS = {"default": {"BACKEND": "channels.layers.InMemoryChannelLayer"}}

# Celery: a real broker with REDIS_URL; otherwise tasks run in-process (eagerly).
CELERY_BROKER_URL = REDIS_URL or "memory://"
CELERY_RESULT_BACKEND = REDIS_URL or "cache+memory://"
CELERY_TASK_ALWAYS_EAGER = env_bool("CELERY_TASK_ALWAYS_EAGER", REDIS_URL is None)
CELERY_TASK_EAGER_PROPAGATES = True
CELERY_TASK_ACKS_LATE = True
CELERY_WORKER_PREFETCH_MULTIPLIER = 1
CELERY_BROKER_CONNECTION_RETRY_ON_STARTUP = False
# Background work (NPC turns, benchmark runs, pre-annotation, exports) runs in the caller: tests use it
# for determinism. Otherwise a thread (eager Celery) or a worker; arena_site/background.py.
BACKGROUND_INLINE = False

AUTH_PASSWORD_VALIDATORS = [
    {"NAME": "django.contrib.auth.password_validation.MinimumLengthValidator", "OPTIONS": {"min_length": 8}},
]
# Sign-in throttling (django-axes): after AXES_FAILURE_LIMIT wrong passwords for one username from one
# address, that pair is refused for AXES_COOLOFF_MINUTES (a 429 page saying when to try again); a
# right password resets the count. Attempts live in the database, so every worker and a restart
# see them; `manage.py axes_reset_username NAME` lifts a lockout early. Keyed by the pair, so
# nobody can lock a colleague out from elsewhere, and a lab behind one address is not locked
# out by one person's typos.
AUTHENTICATION_BACKENDS = ["axes.backends.AxesStandaloneBackend", "django.contrib.auth.backends.ModelBackend"]
AXES_FAILURE_LIMIT = env_int("AXES_FAILURE_LIMIT", 5, least=1)
AXES_COOLOFF_TIME = timedelta(minutes=env_int("AXES_COOLOFF_MINUTES", 15, least=1))
AXES_LOCKOUT_PARAMETERS = [["username", "ip_address"]]
AXES_RESET_ON_SUCCESS = True
AXES_VERBOSE = False  # no banner at start (commands print one clear line); failures are still logged
AXES_LOCKOUT_CALLABLE = "accounts.views.locked_out"
# Behind TRUSTED_PROXIES proxies that append to X-Forwarded-For, the client's address is read from
# that header (arena_site.client_address); without it every sign-in would come from the proxy.
TRUSTED_PROXIES = env_int("TRUSTED_PROXIES", 0, least=0)
AXES_CLIENT_IP_CALLABLE = "arena_site.client_address.client_address"
LOGIN_URL = "accounts:login"
LOGIN_REDIRECT_URL = "home"
LOGOUT_REDIRECT_URL = "home"

LANGUAGE_CODE = "en"
TIME_ZONE = "UTC"
USE_I18N = True
USE_TZ = True

STATIC_URL = "static/"
STATICFILES_DIRS = [BASE_DIR / "static"]
STATIC_ROOT = VAR_DIR / "staticfiles"
STORAGES = {
    "default": {"BACKEND": "django.core.files.storage.FileSystemStorage", "OPTIONS": {"location": VAR_DIR / "media"}},
    "staticfiles": {"BACKEND": "django.contrib.staticfiles.storage.StaticFilesStorage"},
}

SESSION_COOKIE_HTTPONLY = True
CSRF_COOKIE_HTTPONLY = False
SECURE_CONTENT_TYPE_NOSNIFF = True
X_FRAME_OPTIONS = "DENY"
if not DEBUG:
    SESSION_COOKIE_SECURE = env_bool("SECURE_COOKIES", True)
    CSRF_COOKIE_SECURE = env_bool("SECURE_COOKIES", True)
    # HTTPS only. Behind a proxy that terminates TLS, set SECURE_PROXY_SSL_HEADER=HTTP_X_FORWARDED_PROTO
    # (the proxy must set that header) so requests it forwarded over HTTPS are known to be secure;
    # a proxy that redirects to HTTPS itself may turn SECURE_SSL_REDIRECT off.
    SECURE_SSL_REDIRECT = env_bool("SECURE_SSL_REDIRECT", True)
    SECURE_REDIRECT_EXEMPT = [r"^healthz$"]  # load balancers probe over plain HTTP
    SECURE_HSTS_SECONDS = int(env_float("SECURE_HSTS_SECONDS", 31_536_000))
    SECURE_HSTS_INCLUDE_SUBDOMAINS = env_bool("SECURE_HSTS_INCLUDE_SUBDOMAINS", True)
    SECURE_HSTS_PRELOAD = env_bool("SECURE_HSTS_PRELOAD", True)
    if os.environ.get("SECURE_PROXY_SSL_HEADER"):
        SECURE_PROXY_SSL_HEADER = (os.environ["SECURE_PROXY_SSL_HEADER"], "https")

# LLM endpoints for NPC dispatchers, benchmarks and pre-annotation (any OpenAI-compatible chat
# API). LLM_BASE_URL/LLM_MODEL/LLM_API_KEY are the endpoint "default"; LLM_ENDPOINTS (JSON) adds
# more, each with its own key. Seats and conditions name an endpoint by id, never a URL
# (games/agents/endpoints.py).
LLM_BASE_URL = os.environ.get("LLM_BASE_URL", "http://127.0.0.1:8080/v1")
LLM_MODEL = os.environ.get("LLM_MODEL", "smollm2-135m-instruct")
LLM_API_KEY = os.environ.get("LLM_API_KEY", "not-needed")
LLM_MODELS = os.environ.get("LLM_MODELS", "")  # models the default endpoint allows (blank: any)
try:
    LLM_ENDPOINTS = parse_endpoints(os.environ.get("LLM_ENDPOINTS", ""))
except ValueError as _error:
    raise ImproperlyConfigured(str(_error)) from None
LLM_TIMEOUT_SECONDS = env_float("LLM_TIMEOUT_SECONDS", 20.0)
LLM_TEMPERATURE = env_float("LLM_TEMPERATURE", 0.0)

# Benchmarks: the price of each model in US dollars per million tokens, JSON like
# {"gpt-4o-mini": {"input": 0.15, "output": 0.6}} (games/agents/prices.py); retries of a 429/5xx
# with the openai client's capped exponential backoff; episodes played at once per run; model
# calls in flight at once per endpoint, across every run and worker.
try:
    LLM_PRICES = _parse_prices(os.environ.get("LLM_PRICES", ""))
except ValueError as _price_error:
    raise ImproperlyConfigured(str(_price_error)) from None
BENCHMARK_LLM_RETRIES = env_int("BENCHMARK_LLM_RETRIES", 4, least=0)
BENCHMARK_WORKERS = env_int("BENCHMARK_WORKERS", 2, least=1)
LLM_CONCURRENCY = env_int("LLM_CONCURRENCY", 4, least=1)
# Which process advances real-time games (games/scheduler.py reads it again, as tests switch it).
GAMES_SCHEDULER = env_choice("GAMES_SCHEDULER", "embedded", ("embedded", "external", "off"))

LOG_LEVELS = ("DEBUG", "INFO", "WARNING", "ERROR", "CRITICAL")
LOGGING = {
    "version": 1,
    "disable_existing_loggers": False,
    "formatters": {"plain": {"format": "%(asctime)s %(levelname)s %(name)s: %(message)s"}},
    "handlers": {"console": {"class": "logging.StreamHandler", "formatter": "plain"}},
    "root": {"handlers": ["console"], "level": env_choice("LOG_LEVEL", "INFO", LOG_LEVELS, upper=True)},
    # django-axes: failed sign-ins are warnings; its notes on every successful one are left out
    "loggers": {"daphne": {"level": "WARNING"}, "axes": {"level": "WARNING"}},
}

# Static files: WhiteNoise serves them under Daphne; in development straight from the finders.
WHITENOISE_USE_FINDERS = DEBUG
WHITENOISE_AUTOREFRESH = DEBUG
