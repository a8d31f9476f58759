"""memadmin settings: every knob comes from a MEMADMIN_* environment variable.

A bad value stops the process with the variable's name rather than starting with a guess.
"""

import datetime as dt
import os
import secrets
import zoneinfo
from pathlib import Path

from django.core.exceptions import ImproperlyConfigured

from memadmin.env import env_bool, env_int, env_list, env_str
from memories import engine
from memories.rules.fields import BULK_LIMIT

BASE_DIR = Path(__file__).resolve().parent.parent


def _private_dir(data_dir: Path) -> Path:
    """The data dir, made (or kept) readable by its owner alone: it holds the store, the
    secret key and the first sign-in."""
    data_dir.mkdir(mode=0o700, parents=True, exist_ok=True)
    if data_dir.stat().st_mode & 0o077:
        data_dir.chmod(0o700)
    return data_dir


def _secret_key(data_dir: Path) -> str:
    """The key from the environment, or one generated on first start and kept in the data dir."""
    from_env = os.environ.get("MEMADMIN_SECRET_KEY")
    if from_env:
        return from_env
    key_file = data_dir / "secret_key"
    if not key_file.exists():
        # Written whole under a name of its own, then linked into place: processes starting
        # together on a new data dir all read the one key that won, never a half-written file.
        draft = data_dir / f"secret_key.{os.getpid()}.{secrets.token_hex(4)}"
        fd = os.open(draft, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
        with os.fdopen(fd, "w") as handle:
            handle.write(secrets.token_urlsafe(64))
        try:
            os.link(draft, key_file)
        except FileExistsError:
            pass
        finally:
            draft.unlink()
    return key_file.read_text().strip()


def _unusable_data_dir(error: OSError) -> ImproperlyConfigured:
    return ImproperlyConfigured(
        f"MEMADMIN_DATA_DIR {DATA_DIR} cannot be used as the data dir: "
        f"{error.strerror or error} ({error.filename or DATA_DIR})."
    )


DATA_DIR = Path(env_str("MEMADMIN_DATA_DIR", str(BASE_DIR / "var"))).resolve()
try:
    SECRET_KEY = _secret_key(_private_dir(DATA_DIR))
except OSError as error:
    raise _unusable_data_dir(error) from None
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
# The change feed's streams (memadmin.live), counted per server process.
MEMADMIN_STREAMS = env_int("MEMADMIN_STREAMS", 500, minimum=1)
MEMADMIN_STREAMS_PER_USER = env_int("MEMADMIN_STREAMS_PER_USER", 16, minimum=1)
MEMADMIN_STREAM_HEARTBEAT_SECONDS = env_int("MEMADMIN_STREAM_HEARTBEAT_SECONDS", 15, minimum=1)
MEMADMIN_STREAM_IDLE_SECONDS = env_int("MEMADMIN_STREAM_IDLE_SECONDS", 300, minimum=1)
MEMADMIN_STREAM_BUFFER_BYTES = env_int("MEMADMIN_STREAM_BUFFER_BYTES", 1024 * 1024, minimum=4096)

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
    "axes",
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
    "memadmin.web.middleware.DomainErrorPageMiddleware",
    "axes.middleware.AxesMiddleware",
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
                "memadmin.web.context_processors.static_files",
            ],
        },
    },
]


def _database() -> dict:
    """PostgreSQL at MEMADMIN_DATABASE_URL, else the SQLite store in the data dir, as the
    engine opens them (memories.engine.<vendor>.config says why)."""
    url = os.environ.get("MEMADMIN_DATABASE_URL", "").strip()
    # How long a writer waits for another before it is refused as busy.
    waits = env_int("MEMADMIN_BUSY_TIMEOUT_MS", 30_000, minimum=1)
    if not url:
        try:
            return engine.database("sqlite", data_dir=DATA_DIR, busy_timeout_ms=waits)
        except OSError as error:
            raise _unusable_data_dir(error) from None
    try:
        return engine.database("postgresql", url=url, busy_timeout_ms=waits)
    except ValueError as problem:
        raise ImproperlyConfigured(
            f"MEMADMIN_DATABASE_URL must read postgres://user:password@host:port/name: {problem}."
        ) from None


DATABASES = {"default": _database()}
DEFAULT_AUTO_FIELD = "django.db.models.BigAutoField"

AUTH_PASSWORD_VALIDATORS = [
    {"NAME": "django.contrib.auth.password_validation.MinimumLengthValidator"},
    {"NAME": "django.contrib.auth.password_validation.CommonPasswordValidator"},
]
AUTHENTICATION_BACKENDS = [
    "axes.backends.AxesStandaloneBackend",
    "memadmin.accounts.backends.ModelBackend",
]
# Failed sign-ins lock an account from one address at AXES_FAILURE_LIMIT, and an address
# alone or an account alone only at the much higher MEMADMIN_SIGN_IN_WIDE_FAILURES
# (memadmin.accounts.sign_ins).
AXES_FAILURE_LIMIT = env_int("MEMADMIN_SIGN_IN_FAILURES", 10, minimum=1)
MEMADMIN_SIGN_IN_WIDE_FAILURES = env_int(
    "MEMADMIN_SIGN_IN_WIDE_FAILURES", 10 * AXES_FAILURE_LIMIT, minimum=AXES_FAILURE_LIMIT
)
AXES_COOLOFF_TIME = dt.timedelta(minutes=env_int("MEMADMIN_SIGN_IN_LOCK_MINUTES", 15, minimum=1))
AXES_HANDLER = "memadmin.accounts.sign_ins.SignInHandler"
AXES_LOCKOUT_PARAMETERS = [["username", "ip_address"], "username", "ip_address"]
# A success clears nothing: else anyone with an account of their own could sign in between
# guesses at another's from the same address and start the count again.
AXES_RESET_ON_SUCCESS = False
AXES_LOCKOUT_CALLABLE = "memadmin.pages.accounts.sign_in.sign_in_locked"
AXES_CLIENT_IP_CALLABLE = "memadmin.web.access.client_address"
AXES_DISABLE_ACCESS_LOG = True
AXES_ENABLE_ADMIN = False
AXES_VERBOSE = False
# Proxies whose X-Forwarded-For names the client (their own address is the same for all).
MEMADMIN_TRUSTED_PROXIES = env_list("MEMADMIN_TRUSTED_PROXIES", "")
# Sign-in with OpenID Connect (memadmin.accounts.oidc), on when a client id is set: the
# provider's endpoints found from its issuer's discovery document, or each given.
MEMADMIN_OIDC_ISSUER = env_str("MEMADMIN_OIDC_ISSUER", "").rstrip("/")
MEMADMIN_OIDC_AUTHORIZATION_ENDPOINT = env_str("MEMADMIN_OIDC_AUTHORIZATION_ENDPOINT", "")
MEMADMIN_OIDC_TOKEN_ENDPOINT = env_str("MEMADMIN_OIDC_TOKEN_ENDPOINT", "")
MEMADMIN_OIDC_USERINFO_ENDPOINT = env_str("MEMADMIN_OIDC_USERINFO_ENDPOINT", "")
MEMADMIN_OIDC_JWKS_ENDPOINT = env_str("MEMADMIN_OIDC_JWKS_ENDPOINT", "")
MEMADMIN_OIDC_CLIENT_ID = env_str("MEMADMIN_OIDC_CLIENT_ID", "")
MEMADMIN_OIDC_CLIENT_SECRET = env_str("MEMADMIN_OIDC_CLIENT_SECRET", "")
MEMADMIN_OIDC_SCOPES = env_str("MEMADMIN_OIDC_SCOPES", "openid email profile")
MEMADMIN_OIDC_GROUPS_CLAIM = env_str("MEMADMIN_OIDC_GROUPS_CLAIM", "groups")
MEMADMIN_OIDC_USERNAME_CLAIM = env_str("MEMADMIN_OIDC_USERNAME_CLAIM", "preferred_username")
MEMADMIN_OIDC_PROVIDER_NAME = env_str("MEMADMIN_OIDC_PROVIDER_NAME", "single sign-on")
if MEMADMIN_OIDC_CLIENT_ID:
    _endpoints = (
        MEMADMIN_OIDC_AUTHORIZATION_ENDPOINT,
        MEMADMIN_OIDC_TOKEN_ENDPOINT,
        MEMADMIN_OIDC_USERINFO_ENDPOINT,
        MEMADMIN_OIDC_JWKS_ENDPOINT,
    )
    if not MEMADMIN_OIDC_ISSUER and not all(_endpoints):
        raise ImproperlyConfigured(
            "MEMADMIN_OIDC_CLIENT_ID is set: set MEMADMIN_OIDC_ISSUER too (its discovery "
            "document names the endpoints), or each of MEMADMIN_OIDC_AUTHORIZATION_ENDPOINT, "
            "_TOKEN_ENDPOINT, _USERINFO_ENDPOINT and _JWKS_ENDPOINT."
        )
    if not MEMADMIN_OIDC_CLIENT_SECRET:
        raise ImproperlyConfigured(
            "MEMADMIN_OIDC_CLIENT_ID is set: set MEMADMIN_OIDC_CLIENT_SECRET."
        )
# Password sign-in: on for the first admin; switched off once everyone signs in through the
# provider (never while no provider is set, or nobody could sign in).
MEMADMIN_PASSWORD_SIGN_IN = env_bool("MEMADMIN_PASSWORD_SIGN_IN", True)
if not MEMADMIN_PASSWORD_SIGN_IN and not MEMADMIN_OIDC_CLIENT_ID:
    raise ImproperlyConfigured(
        "MEMADMIN_PASSWORD_SIGN_IN is off and no OpenID Connect provider is set "
        "(MEMADMIN_OIDC_CLIENT_ID): nobody could sign in."
    )
# How long a rotated API token's old secret is still accepted (memadmin.accounts.tokens).
MEMADMIN_TOKEN_ROTATION_GRACE_MINUTES = env_int("MEMADMIN_TOKEN_ROTATION_GRACE_MINUTES", 60)
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
    "staticfiles": {"BACKEND": "memadmin.web.static.StaticFilesStorage"},
}
# Until collectstatic has filled STATIC_ROOT, the files are served from where they are.
WHITENOISE_USE_FINDERS = DEBUG or not (STATIC_ROOT / "staticfiles.json").exists()

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
SESSION_ENGINE = "memadmin.web.sessions"
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
    "filters": {"refusals": {"()": "memadmin.logs.RefusalsOnOneLine"}},
    "handlers": {"console": {"class": "logging.StreamHandler", "filters": ["refusals"]}},
    "root": {"handlers": ["console"], "level": env_str("MEMADMIN_LOG_LEVEL", "WARNING")},
}
