"""Accounts: your API tokens and, for admins, every account and its role."""

from django.contrib import messages
from django.contrib.auth.forms import AuthenticationForm
from django.http import HttpResponse
from django.shortcuts import redirect, render
from django.utils.cache import add_never_cache_headers
from django.views.decorators.http import require_http_methods, require_POST

from memadmin.accounts import grants, roles, sign_ins, tokens, users
from memadmin.pages.accounts.forms import (
    AccountForm,
    ActiveForm,
    GrantForm,
    RoleForm,
    TokenForm,
    UnlockForm,
)
from memadmin.web.access import has_role, requires_role
from memadmin.web.http import HtmxHttpRequest, render_page
from memadmin.web.redrawn import on_refusal
from memories.rules.errors import InvalidField
from projects.models import Project


def _tokens_context(request: HtmxHttpRequest, **extra) -> dict:
    context = {
        "tokens": list(tokens.user_tokens(request.user)),
        "scopes": ["read", "write"] if has_role(request, roles.OPERATOR) else ["read"],
        "form": TokenForm(),
        "created": None,
        "secret": "",
        "error": "",
        "revoked": None,
        "confirming": None,  # the id of the token whose revocation is asked about
        "everyone": None,
        **extra,
    }
    if has_role(request, roles.ADMIN):
        context["everyone"] = list(tokens.all_tokens().exclude(user=request.user))
    return context


def _tokens_page(request: HtmxHttpRequest, status: int = 200, **extra) -> HttpResponse:
    response = render_page(
        request,
        "memadmin/tokens.html",
        _tokens_context(request, **extra),
        fragment="tokens",
        status=status,
    )
    add_never_cache_headers(response)  # a new token's secret is on the page once
    return response


@require_http_methods(["GET", "HEAD", "POST"])
@requires_role(write=roles.AUDITOR)
def api_tokens(request: HtmxHttpRequest) -> HttpResponse:
    """The signed-in user's own API tokens: create one (its secret shown once), list, revoke."""
    if request.method != "POST":
        return _tokens_page(request)
    form = TokenForm(request.POST)
    if not form.is_valid():
        return _tokens_page(request, status=InvalidField.status, form=form)
    with on_refusal(lambda error: _tokens_page(request, status=error.status, form=form), form=form):
        token, secret = tokens.create_token(
            request.user, form.cleaned_data["scope"], form.cleaned_data["label"]
        )
    return _tokens_page(request, status=201, created=token, secret=secret)


@require_POST
@requires_role(write=roles.AUDITOR)
def api_token_revoke(request: HtmxHttpRequest, token_id: int) -> HttpResponse:
    """Revoke one of your tokens (an admin may revoke anyone's), once asked and confirmed."""
    with on_refusal(  # the token list again, the refusal above it
        lambda error: _tokens_page(request, status=error.status, error=error.message)
    ):
        if request.POST.get("confirm") != "true":
            confirming = tokens.revocable_token(request.user, token_id)
            return _tokens_page(request, confirming=confirming.id)
        token = tokens.revoke_token(request.user, token_id)
    if not request.htmx:
        messages.success(request, f"Revoked {token.prefix}….")
        return redirect("tokens")
    return _tokens_page(request, revoked=token)


def _accounts_page(request: HtmxHttpRequest, status: int = 200, **extra) -> HttpResponse:
    every = users.accounts()
    context = {
        "accounts": every,
        "held": grants.held_by([account.user for account in every]),
        "projects": Project.objects.names(),
        "roles": roles.ROLES,
        "errors": {},
        "form": AccountForm(),
        "locks": sign_ins.locks(),
        "failure_limit": sign_ins.failure_limit(),
        "lock_minutes": sign_ins.lock_minutes(),
        **extra,
    }
    return render_page(request, "memadmin/users.html", context, fragment="accounts", status=status)


@require_http_methods(["GET", "HEAD", "POST"])
@requires_role(read=roles.ADMIN)
def accounts(request: HtmxHttpRequest) -> HttpResponse:
    """Admins: every account and its role; a new account with a role."""
    if request.method != "POST":
        return _accounts_page(request)
    form = AccountForm(request.POST)
    if not form.is_valid():
        return _accounts_page(request, status=InvalidField.status, form=form)
    with on_refusal(
        lambda error: _accounts_page(request, status=error.status, form=form), form=form
    ):
        user = users.create_account(**form.cleaned_data)
    return _answer_accounts(request, f"Made the account '{user.get_username()}'.")


@require_POST
@requires_role(read=roles.ADMIN)
def account_change(request: HtmxHttpRequest, user_id: int) -> HttpResponse:
    """Admins: change another account's role, or turn it off or on."""
    form = (ActiveForm if "active" in request.POST else RoleForm)(request.POST)
    if not form.is_valid():
        return _accounts_page(
            request, status=InvalidField.status, errors={user_id: form.first_error()}
        )
    with on_refusal(  # the accounts again, the refusal beside the row
        lambda error: _accounts_page(request, status=error.status, errors={user_id: error.message})
    ):
        if isinstance(form, ActiveForm):
            user = users.set_active(request.user, user_id, form.cleaned_data["active"])
            done = "turned on" if user.is_active else "turned off"
            sentence = f"The account '{user.get_username()}' is {done}."
        elif form.cleaned_data["role"] is None:
            user = users.other_account(request.user, user_id)
            grants.revoke(request.user, user, grants.WHOLE_STORE)
            sentence = f"'{user.get_username()}' holds no role on the whole store now."
        else:
            role = form.cleaned_data["role"]
            user = users.set_role(request.user, user_id, role)
            sentence = f"'{user.get_username()}' is now an {role}."
    return _answer_accounts(request, sentence)


@require_POST
@requires_role(read=roles.ADMIN)
def account_grants(request: HtmxHttpRequest, user_id: int) -> HttpResponse:
    """Admins: give another account a role on the whole store or on one tier, or take it
    back."""
    form = GrantForm(request.POST)
    if not form.is_valid():
        return _accounts_page(
            request, status=InvalidField.status, errors={user_id: form.first_error()}
        )
    role, place = form.cleaned_data["role"], form.cleaned_data["tier"]
    with on_refusal(
        lambda error: _accounts_page(request, status=error.status, errors={user_id: error.message})
    ):
        user = users.other_account(request.user, user_id)
        name = user.get_username()
        if role is None:
            held = grants.revoke(request.user, user, place)
            sentence = (
                f"'{name}' held nothing on {grants.where(place)}."
                if held is None
                else f"'{name}' is no longer {held.words}."
            )
        else:
            sentence = f"'{name}' is now {grants.grant(request.user, user, role, place).words}."
    return _answer_accounts(request, sentence)


def _answer_accounts(request: HtmxHttpRequest, sentence: str) -> HttpResponse:
    if not request.htmx:
        messages.success(request, sentence)
        return redirect("accounts")
    return _accounts_page(request, done=sentence)


@require_POST
@requires_role(read=roles.ADMIN)
def sign_in_unlock(request: HtmxHttpRequest) -> HttpResponse:
    """Admins: let a locked account, or a locked address, sign in again at once."""
    form = UnlockForm(request.POST)
    if not form.is_valid():
        return _accounts_page(request, status=InvalidField.status, unlock_error=form.first_error())
    kind, value = form.cleaned_data["kind"], form.cleaned_data["value"]
    sign_ins.unlock(kind, value)
    return _answer_accounts(request, f"The {kind} '{value}' may sign in again.")


def sign_in_locked(request, original_response=None, credentials=None) -> HttpResponse:
    """The sign-in page of a locked account or address (django-axes' lockout answer)."""
    form = AuthenticationForm(request, data=request.POST or None)
    form.errors.clear()
    context = {
        "form": form,
        "next": request.POST.get("next", ""),
        "locked": sign_ins.locked_sentence(),
    }
    return render(request, "registration/login.html", context, status=429)
