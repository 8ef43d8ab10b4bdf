"""Django settings derived from the loaded elf.toml (see elf_project.runtime). No environment reads."""

from __future__ import annotations

from pathlib import Path
from urllib.parse import parse_qsl, unquote, urlsplit

from elf_kernel.runtime import get_config

from .secret_key import load_or_create_secret_key

CFG = get_config()
BASE_DIR = Path(__file__).resolve().parent.parent

_dsn = urlsplit(CFG.storage.postgres.dsn)

SECRET_KEY = load_or_create_secret_key(CFG)
DEBUG = False
ALLOWED_HOSTS = ["*"]  # the listeners are bound by config; routing is by listener, not by Host header

INSTALLED_APPS = [
    "django.contrib.admin",
    "django.contrib.auth",
    "django.contrib.contenttypes",
    "django.contrib.sessions",
    "django.contrib.messages",
    "django.contrib.staticfiles",
    "rest_framework",
    "drf_spectacular",
    "drf_spectacular_sidecar",
    "elf_project",
    "memory",
    "docs_ext",
    "core_memory",
    "graph",
    "traces",
    "search",
    "acb",
]

MIDDLEWARE = [
    # Outermost: the request id (X-Request-Id on every response, errors included), the JSON request log line and
    # the latency histogram see every request, whatever answers it.
    "elf_kernel.observability.request_log.RequestLogMiddleware",
    "elf_kernel.listener.ListenerRoutingMiddleware",
    # Static API keys (security.auth_mode), then the body caps: an unauthenticated body is never read.
    "elf_kernel.auth.AuthMiddleware",
    # The key's tenant/project/agent into the log fields (and the Celery tasks this request enqueues).
    "elf_kernel.observability.request_log.RequestContextMiddleware",
    # Per-key rate limits ([security.rate_limits]; absent when omitted): a 429 before any body is read.
    "elf_kernel.rate_limit.RateLimitMiddleware",
    "elf_kernel.body_limits.BodyLimitMiddleware",
    "whitenoise.middleware.WhiteNoiseMiddleware",
    "django.middleware.security.SecurityMiddleware",
    "django.contrib.sessions.middleware.SessionMiddleware",
    "django.middleware.common.CommonMiddleware",
    "django.middleware.csrf.CsrfViewMiddleware",
    "django.contrib.auth.middleware.AuthenticationMiddleware",
    "django.contrib.messages.middleware.MessageMiddleware",
]

# Django's own cap on a read body must not undercut the largest endpoint limit (elf_kernel.body_limits).
from elf_kernel.body_limits import DOCS_MAX_BODY_BYTES  # noqa: E402

DATA_UPLOAD_MAX_MEMORY_SIZE = DOCS_MAX_BODY_BYTES

# The listener middleware picks the public or admin urlconf per request; this one answers nothing.
ROOT_URLCONF = "elf_project.urls_none"

# templates/ (the Django admin's trace and predicate pages) is found next to the packages, as sql/ is
# (elf_project.startup.SQL_DIR): both are read from the checkout, which the install is made from (pip install -e).
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
            ]
        },
    }
]

DATABASES = {
    "default": {
        "ENGINE": "elf_kernel.postgres_backend",  # Django's, with the pool's hand-out check below
        "NAME": unquote(_dsn.path.lstrip("/")),
        "USER": unquote(_dsn.username or ""),
        "PASSWORD": unquote(_dsn.password or ""),
        "HOST": _dsn.hostname or "",
        "PORT": str(_dsn.port or 5432),
        # check_pooled: a connection is checked as it is handed out, so after a Postgres restart a dead pooled
        # connection is replaced, not given to a request (docs/operations.md, "Failure behaviour"); with a round trip
        # only when its socket shows the server ended it (elf_kernel.db_pool), not on every request.
        # The DSN's query parameters are libpq's (sslmode, sslrootcert, application_name, ...: what a managed
        # Postgres asks for, docs/deploying.md): every pooled connection gets them, as the start-up's do.
        "OPTIONS": {
            **dict(parse_qsl(_dsn.query)),
            "pool": {"min_size": 1, "max_size": CFG.storage.postgres.pool_max_conns, "timeout": 10},
        },
        "CONN_HEALTH_CHECKS": True,
    }
}

DEFAULT_AUTO_FIELD = "django.db.models.BigAutoField"
USE_TZ = True
TIME_ZONE = "UTC"
LANGUAGE_CODE = "en-us"
STATIC_URL = "/static/"
WHITENOISE_USE_FINDERS = True
WHITENOISE_AUTOREFRESH = False

REST_FRAMEWORK = {
    "EXCEPTION_HANDLER": "elf_kernel.errors.exception_handler",
    "DEFAULT_SCHEMA_CLASS": "elf_kernel.api.openapi_schema.ElfAutoSchema",
    "DEFAULT_AUTHENTICATION_CLASSES": [],
    "DEFAULT_PERMISSION_CLASSES": [],
    "UNAUTHENTICATED_USER": None,
    "DEFAULT_RENDERER_CLASSES": ["rest_framework.renderers.JSONRenderer"],
    "DEFAULT_PARSER_CLASSES": ["rest_framework.parsers.JSONParser"],
}

SPECTACULAR_SETTINGS = {
    "TITLE": "ELF memory service",
    "DESCRIPTION": "Evidence-linked fact memory for LLM agents.",
    "VERSION": "2.0",
    "SERVE_INCLUDE_SCHEMA": False,
    "COMPONENT_SPLIT_REQUEST": True,
    # Every choice's label is its value: a "* `x` - x" list under each enum would only repeat the enum.
    "ENUM_GENERATE_CHOICE_DESCRIPTION": False,
    # "status" names two choice sets (health's and a graph predicate's): a fixed name for the predicate's keeps
    # drf-spectacular from inventing a hashed one.
    "ENUM_NAME_OVERRIDES": {
        "PredicateStatusEnum": "graph.api.predicate_serializers.STATUSES",
        # core memory's own "scope" and "op" choice sets, kept apart from the notes' ones
        "CoreMemoryScopeEnum": "core_memory.api.serializers.PUBLIC_SCOPES",
        "CoreMemoryPolicyScopeEnum": "core_memory.api.serializers.POLICY_SCOPES",
        "CoreMemoryAnyScopeEnum": "core_memory.api.serializers.ALL_SCOPES",
        "UtteranceOpEnum": "core_memory.api.serializers.UTTERANCE_OPS",
        "CoreMemoryWriteStatusEnum": "core_memory.api.serializers.WRITE_STATUSES",
        "CoreMemoryKindEnum": "core_memory.api.serializers.KINDS",
        "CoreMemorySourceEnum": "core_memory.api.serializers.PUBLIC_SOURCE_VALUES",
        "CoreMemoryAdminSourceEnum": "core_memory.api.serializers.ADMIN_SOURCES",
        # the names these sets had before core memory added choice sets of the same field names
        "OpEnum": "memory.api.note_serializers.NOTE_OPS",
        "DeprecateOpEnum": "memory.api.note_serializers.DEPRECATE_OPS",
        "ScopeEnum": "docs_ext.api.serializers.SCOPES",
        "StatusEnum": "elf_project.health.HEALTH_STATUSES",
    },
    # Swagger UI assets ship in the drf-spectacular-sidecar wheel: nothing is fetched from a CDN.
    "SWAGGER_UI_DIST": "SIDECAR",
    "SWAGGER_UI_FAVICON_HREF": "SIDECAR",
    "REDOC_DIST": "SIDECAR",
}

CELERY_BROKER_URL = CFG.worker.broker_url

# One JSON object per line on stderr (elf_kernel.observability.json_logging); elf-api hands the same config to
# gunicorn, and elf-worker keeps Celery from adding handlers of its own.
from elf_kernel.observability.json_logging import logging_config  # noqa: E402

LOGGING = logging_config(CFG.service.log_level)
