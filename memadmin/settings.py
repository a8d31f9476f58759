"""memadmin settings: every knob comes from a MEMADMIN_* environment variable.

A bad value stops the process with the variable's name rather than starting with a guess.
"""

import os
import secrets
import zoneinfo
from pathlib import Path

from django.core.exceptions import ImproperlyConfigured

from memories import engine
from memories.rules.fields import BULK_LIMIT

BASE_DIR = Path(__file__).resolve().parent.parent


def env_str(name: str, default: str) -> str:
    return os.environ.get(name, default)


def env_bool(name: str, default: bool) -> bool:
    raw = os.environ.get(name)
    if raw is None or raw == "":
        return default
    lowered = raw.strip().lower()
    if lowered in {"1", "true", "yes", "on"}:
        return True
    if lowered in {"0", "false", "no", "off"}:
        return False
    raise ImproperlyConfigured(f"{name} must be true or false, not {raw!r}.")


def env_int(name: str, default: int, *, minimum: int = 0) -> int:
    raw = os.environ.get(name)
    if raw is None or raw == "":
        return default
    try:
        value = int(raw)
    except ValueError:
        raise ImproperlyConfigured(f"{name} must be an integer, not {raw!r}.") from None
    if value < minimum:
        raise ImproperlyConfigured(f"{name} must be at least {minimum}, not {value}.")
    return value


def env_list(name: str, default: str) -> list[str]:
    return [item.strip() for item in env_str(name, default).split(",") if item.strip()]


def _secret_key(data_dir: Path) -> str:
    """The key from the environment, or one generated on first start and kept in the data dir."""
    from_env = os.environ.get("MEMADMIN_SECRET_KEY")
    if from_env:
        return from_env
    key_file = data_dir / "secret_key"
    if not key_file.exists():
        data_dir.mkdir(parents=True, exist_ok=True)
        fd = os.open(key_file, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
        with os.fdopen(fd, "w") as handle:
            handle.write(secrets.token_urlsafe(64))
    return key_file.read_text().strip()


DATA_DIR = Path(env_str("MEMADMIN_DATA_DIR", str(BASE_DIR / "var"))).resolve()
SECRET_KEY = _secret_key(DATA_DIR)
DEBUG = env_bool("MEMADMIN_DEBUG", False)
ALLOWED_HOSTS = env_list("MEMADMIN_ALLOWED_HOSTS", "localhost,127.0.0.1")

TIME_ZONE = env_str("MEMADMIN_TIME_ZONE", "UTC")
try:
    zoneinfo.ZoneInfo(TIME_ZONE)
except (zoneinfo.ZoneInfoNotFoundError, ValueError):
    raise ImproperlyConfigured(
        f"MEMADMIN_TIME_ZONE must be an IANA time zone such as Europe/Berlin, not {TIME_ZONE!r}."
    ) from None
USE_TZ = True
USE_I18N = False
LANGUAGE_CODE = "en-us"

MEMADMIN_INLINE_MAX_BYTES = env_int("MEMADMIN_INLINE_MAX_BYTES", 32768, minimum=1)
MEMADMIN_INDEX_MAX_BYTES = 8192
MEMADMIN_INDEX_MAX_ENTRIES = 200
# Search freshness halves its distance to the floor every this many days since verified_at.
MEMADMIN_SEARCH_HALF_LIFE_DAYS = env_int("MEMADMIN_SEARCH_HALF_LIFE_DAYS", 180, minimum=1)
# Revisions older than this many days are removed by `manage.py history prune`; 0 keeps all.
MEMADMIN_HISTORY_RETENTION_DAYS = env_int("MEMADMIN_HISTORY_RETENTION_DAYS", 0)

INSTALLED_APPS = [
    "django.contrib.auth",
    "django.contrib.contenttypes",
    "django.contrib.sessions",
    "django.contrib.messages",
    "django.contrib.staticfiles",
    "django.contrib.humanize",
    "django.forms",
    "django_htmx",
    "template_partials",
    "memadmin",
    "projects",
    "memories",
]

MIDDLEWARE = [
    "django.middleware.security.SecurityMiddleware",
    "whitenoise.middleware.WhiteNoiseMiddleware",
    "memadmin.web.middleware.RequestSizeMiddleware",
    "django.contrib.sessions.middleware.SessionMiddleware",
    "django.middleware.common.CommonMiddleware",
    "django.middleware.csrf.CsrfViewMiddleware",
    "django.contrib.auth.middleware.AuthenticationMiddleware",
    "django.contrib.messages.middleware.MessageMiddleware",
    "django.middleware.clickjacking.XFrameOptionsMiddleware",
    "django_htmx.middleware.HtmxMiddleware",
    "memadmin.web.acting.ActingMiddleware",
    "memadmin.web.middleware.SecurityHeadersMiddleware",
    "memadmin.web.middleware.BusyStoreMiddleware",
]

ROOT_URLCONF = "memadmin.urls"
WSGI_APPLICATION = "memadmin.wsgi.application"

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
                "memadmin.web.context_processors.role",
            ],
        },
    },
]

# The store's connections, as its engine opens them (memories.engine.sqlite.config says why).
DATABASES = {"default": engine.database("sqlite", data_dir=DATA_DIR)}
DEFAULT_AUTO_FIELD = "django.db.models.BigAutoField"

AUTH_PASSWORD_VALIDATORS = [
    {"NAME": "django.contrib.auth.password_validation.MinimumLengthValidator"},
    {"NAME": "django.contrib.auth.password_validation.CommonPasswordValidator"},
]
LOGIN_URL = "login"
LOGIN_REDIRECT_URL = "/"
LOGOUT_REDIRECT_URL = "login"
CSRF_FAILURE_VIEW = "memadmin.pages.errors.csrf_failure"
# Forms render from the project's templates (templates/), their common widgets drawn in Python:
# see memadmin.web.form_renderer. django.forms (installed) lends the widgets it does not draw.
FORM_RENDERER = "memadmin.web.form_renderer.FormRenderer"

STATIC_URL = "/static/"
STATICFILES_DIRS = [BASE_DIR / "static"]
STATIC_ROOT = DATA_DIR / "staticfiles"
STORAGES = {
    "default": {"BACKEND": "django.core.files.storage.FileSystemStorage"},
    "staticfiles": {"BACKEND": "whitenoise.storage.CompressedManifestStaticFilesStorage"},
}
WHITENOISE_USE_FINDERS = DEBUG

# Request bodies past this get a 413 from the API; a memory body is text, not an upload.
DATA_UPLOAD_MAX_MEMORY_SIZE = env_int("MEMADMIN_MAX_REQUEST_BYTES", 2 * 1024 * 1024, minimum=1024)
# A bulk action's form sends one `id` per selected memory beside a few fields of its own; past
# this, the page answers with the bulk limit (memadmin.pages.errors).
BULK_FORM_FIELDS = 50
DATA_UPLOAD_MAX_NUMBER_FIELDS = BULK_LIMIT + BULK_FORM_FIELDS
# A form carrying a file (the Snapshots page's zip) may be this large; any other body is held
# to DATA_UPLOAD_MAX_MEMORY_SIZE, both from Content-Length before the body is read.
MEMADMIN_MAX_UPLOAD_BYTES = env_int("MEMADMIN_MAX_UPLOAD_BYTES", 64 * 1024 * 1024, minimum=1024)

SECURE_CONTENT_TYPE_NOSNIFF = True
SECURE_REFERRER_POLICY = "same-origin"
SECURE_CROSS_ORIGIN_OPENER_POLICY = "same-origin"
X_FRAME_OPTIONS = "DENY"
SESSION_COOKIE_HTTPONLY = True
SESSION_COOKIE_SAMESITE = "Lax"
CSRF_COOKIE_SAMESITE = "Lax"

# Behind a TLS-terminating proxy: the cookies are marked secure and plain HTTP is redirected.
# Left off for the laptop default, where the dashboard is served on http://127.0.0.1.
if env_bool("MEMADMIN_HTTPS", False):
    SECURE_PROXY_SSL_HEADER = ("HTTP_X_FORWARDED_PROTO", "https")
    SECURE_SSL_REDIRECT = True
    SECURE_HSTS_SECONDS = env_int("MEMADMIN_HSTS_SECONDS", 31536000)
    SECURE_HSTS_INCLUDE_SUBDOMAINS = True
    SECURE_HSTS_PRELOAD = True
    SESSION_COOKIE_SECURE = True
    CSRF_COOKIE_SECURE = True
    CSRF_TRUSTED_ORIGINS = [f"https://{host}" for host in ALLOWED_HOSTS if host != "*"]

LOGGING = {
    "version": 1,
    "disable_existing_loggers": False,
    "handlers": {"console": {"class": "logging.StreamHandler"}},
    "root": {"handlers": ["console"], "level": env_str("MEMADMIN_LOG_LEVEL", "WARNING")},
}
