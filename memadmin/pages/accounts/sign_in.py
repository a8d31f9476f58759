"""Signing in: with a password (while MEMADMIN_PASSWORD_SIGN_IN is on), or through the OpenID
Connect provider (memadmin.accounts.oidc) when one is set; and django-axes' lockout answer."""

from django.conf import settings
from django.contrib import auth
from django.contrib.auth import views as auth_views
from django.contrib.auth.forms import AuthenticationForm
from django.http import Http404, HttpResponse
from django.shortcuts import redirect, render
from django.views.decorators.cache import never_cache
from django.views.decorators.http import require_GET

from memadmin.accounts import oidc, sign_ins
from memories.rules.errors import SignInRefused

PASSWORDS_OFF = "Password sign-in is switched off here: sign in with {provider} instead."
# The session backend a provider's sign-in is kept under: the one that reads the user of each
# request (memadmin.accounts.backends), as a password's is.
SESSION_BACKEND = "memadmin.accounts.backends.ModelBackend"


def _options() -> dict:
    return {
        "passwords": settings.MEMADMIN_PASSWORD_SIGN_IN,
        "provider": oidc.provider_name() if oidc.configured() else "",
    }


def _page(request, status: int, *, form=None, refused: str = "") -> HttpResponse:
    """The sign-in page again, the refusal above it."""
    if form is None:
        form = AuthenticationForm(request)
    context = {"form": form, "next": "", "refused": refused, **_options()}
    return render(request, "registration/login.html", context, status=status)


class SignInView(auth_views.LoginView):
    redirect_authenticated_user = True

    def get_context_data(self, **kwargs):
        return {**super().get_context_data(**kwargs), **_options()}

    def post(self, request, *args, **kwargs):
        if not settings.MEMADMIN_PASSWORD_SIGN_IN:
            # Refused before the form is read: no password is checked, so none is counted.
            sentence = PASSWORDS_OFF.format(provider=oidc.provider_name())
            return _page(request, 403, refused=sentence)
        return super().post(request, *args, **kwargs)


def sign_in_locked(request, original_response=None, credentials=None) -> HttpResponse:
    """The sign-in page of a locked account and address (django-axes' lockout answer)."""
    form = AuthenticationForm(request, data=request.POST or None)
    form.errors.clear()
    return _page(request, 429, form=form, refused=sign_ins.locked_sentence())


def _provider_set() -> None:
    if not oidc.configured():
        raise Http404("No OpenID Connect provider is set here.")


@never_cache
@require_GET
def oidc_start(request) -> HttpResponse:
    """To the provider, which sends the browser back to oidc_callback."""
    _provider_set()
    try:
        return oidc.StartView.as_view()(request)
    except SignInRefused as refusal:
        return _page(request, refusal.status, refused=refusal.message)


@never_cache
@require_GET
def oidc_callback(request) -> HttpResponse:
    """The provider's answer: signed in, or the sign-in page saying why not."""
    _provider_set()
    try:
        user = oidc.signed_in(request)
    except SignInRefused as refusal:
        return _page(request, refusal.status, refused=refusal.message)
    going_to = request.session.pop("oidc_login_next", None) or settings.LOGIN_REDIRECT_URL
    auth.login(request, user, backend=SESSION_BACKEND)
    return redirect(going_to)
