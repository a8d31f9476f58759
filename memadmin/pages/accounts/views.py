"""Accounts: your API tokens and, for admins, every account and its role."""

from django.contrib import messages
from django.http import HttpResponse
from django.shortcuts import redirect
from django.utils import timezone
from django.utils.cache import add_never_cache_headers
from django.views.decorators.http import require_http_methods, require_POST

from memadmin.accounts import grants, oidc, roles, sign_ins, tokens, users
from memadmin.pages.accounts.forms import (
    AccountForm,
    ActiveForm,
    GrantForm,
    GroupRoleForm,
    PauseForm,
    RoleForm,
    TokenForm,
    UnlockForm,
)
from memadmin.web import acting
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
        "tier_choices": grants.token_choices(acting.request_holdings(request).reach()),
        "created": None,
        "secret": "",
        "error": "",
        "revoked": None,
        "rotated": False,  # the secret shown is a rotated token's
        "grace_minutes": tokens.rotation_grace().total_seconds() // 60,
        "done": "",
        "now": timezone.now(),
        "confirming": None,  # the id of the token whose revocation is asked about
        "everyone": None,
        **extra,
    }
    if has_role(request, roles.ADMIN):
        context["everyone"] = list(tokens.all_tokens().exclude(user=request.user))
    shown = context["tokens"] + (context["everyone"] or [])
    context["states"] = tokens.states(shown, context["now"])
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
        data = form.cleaned_data
        token, secret = tokens.create_token(
            request.user, data["scope"], data["label"], data["expires"], data["project"]
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


@require_POST
@requires_role(write=roles.AUDITOR)
def api_token_pause(request: HtmxHttpRequest, token_id: int) -> HttpResponse:
    """Pause one of your tokens (an admin, anyone's), or resume it."""
    form = PauseForm(request.POST)
    form.is_valid()  # any value but `true` resumes
    paused = form.cleaned_data["paused"]
    with on_refusal(lambda error: _tokens_page(request, status=error.status, error=error.message)):
        token = tokens.pause_token(request.user, token_id, paused)
    done = "paused: calls with it are refused until it is resumed" if paused else "resumed"
    return _answer_tokens(request, f"{token.prefix}… is {done}.")


@require_POST
@requires_role(write=roles.AUDITOR)
def api_token_rotate(request: HtmxHttpRequest, token_id: int) -> HttpResponse:
    """A new secret for one of your tokens (an admin, anyone's), shown once; the old one is
    accepted for the grace period more."""
    with on_refusal(lambda error: _tokens_page(request, status=error.status, error=error.message)):
        token, secret = tokens.rotate_token(request.user, token_id)
    return _tokens_page(request, created=token, secret=secret, rotated=True)


def _answer_tokens(request: HtmxHttpRequest, sentence: str) -> HttpResponse:
    if not request.htmx:
        messages.success(request, sentence)
        return redirect("tokens")
    return _tokens_page(request, done=sentence)


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
        "wide_failure_limit": sign_ins.wide_failure_limit(),
        "lock_minutes": sign_ins.lock_minutes(),
        "oidc": oidc.configured(),
        "mappings": oidc.mappings(),
        "mapping_form": GroupRoleForm(),
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
    """Admins: let a locked account from an address, a locked account or a locked address
    sign in again at once."""
    form = UnlockForm(request.POST)
    if not form.is_valid():
        return _accounts_page(request, status=InvalidField.status, unlock_error=form.first_error())
    kind, username, address = (form.cleaned_data[name] for name in ("kind", "username", "address"))
    with on_refusal(
        lambda error: _accounts_page(request, status=error.status, unlock_error=error.message)
    ):
        sign_ins.unlock(kind, username, address)
    who = {
        sign_ins.PAIR: f"The account '{username}' from {address}",
        sign_ins.ACCOUNT: f"The account '{username}'",
        sign_ins.ADDRESS: f"The address {address}",
    }[kind]
    return _answer_accounts(request, f"{who} may sign in again.")


@require_POST
@requires_role(read=roles.ADMIN)
def group_roles(request: HtmxHttpRequest) -> HttpResponse:
    """Admins: a group of the provider's groups claim mapped to a role."""
    form = GroupRoleForm(request.POST)
    if not form.is_valid():
        return _accounts_page(request, status=InvalidField.status, mapping_form=form)
    with on_refusal(
        lambda error: _accounts_page(request, status=error.status, mapping_form=form), form=form
    ):
        mapping = oidc.map_group(**form.cleaned_data)
    return _answer_accounts(
        request,
        f"Members of '{mapping.group}' sign in as an {mapping.role} on "
        f"{grants.where(form.cleaned_data['tier'])} from now on.",
    )


@require_POST
@requires_role(read=roles.ADMIN)
def group_role_remove(request: HtmxHttpRequest, mapping_id: int) -> HttpResponse:
    """Admins: a group mapped to no role any more (its members keep their role until their
    next sign-in)."""
    with on_refusal(lambda error: _accounts_page(request, status=error.status)):
        mapping = oidc.unmap(mapping_id)
    return _answer_accounts(request, f"The group '{mapping.group}' maps to no role now.")
