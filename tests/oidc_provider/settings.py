"""The provider's own Django settings (not memadmin's): its store, users and signing key are
made by serve.py in the directory OIDC_PROVIDER_DIR names."""

import os
from pathlib import Path

HERE = Path(__file__).resolve().parent
STORE = Path(os.environ["OIDC_PROVIDER_DIR"])

SECRET_KEY = "the test provider's key, never memadmin's"
DEBUG = False
ALLOWED_HOSTS = ["127.0.0.1", "localhost"]
INSTALLED_APPS = [
    "django.contrib.auth",
    "django.contrib.contenttypes",
    "django.contrib.sessions",
    "oauth2_provider",
]
MIDDLEWARE = [
    "django.contrib.sessions.middleware.SessionMiddleware",
    "django.middleware.csrf.CsrfViewMiddleware",
    "django.contrib.auth.middleware.AuthenticationMiddleware",
]
ROOT_URLCONF = "tests.oidc_provider.urls"
TEMPLATES = [
    {
        "BACKEND": "django.template.backends.django.DjangoTemplates",
        "DIRS": [HERE / "templates"],
        "OPTIONS": {"context_processors": ["django.template.context_processors.request"]},
    }
]
DATABASES = {"default": {"ENGINE": "django.db.backends.sqlite3", "NAME": STORE / "provider.db"}}
DEFAULT_AUTO_FIELD = "django.db.models.BigAutoField"
PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]
USE_TZ = True
LOGIN_URL = "/login/"
# The browser holds two sessions on 127.0.0.1 (cookies ignore the port): memadmin's and this.
SESSION_COOKIE_NAME = "provider_session"
CSRF_COOKIE_NAME = "provider_csrftoken"
OAUTH2_PROVIDER = {
    "OIDC_ENABLED": True,
    "OIDC_RSA_PRIVATE_KEY": (STORE / "signing-key.pem").read_text()
    if (STORE / "signing-key.pem").exists()
    else "",
    "OAUTH2_VALIDATOR_CLASS": "tests.oidc_provider.validator.Validator",
    "SCOPES": {
        "openid": "OpenID Connect",
        "profile": "your name and groups",
        "email": "your e-mail address",
    },
    "PKCE_REQUIRED": True,
}
