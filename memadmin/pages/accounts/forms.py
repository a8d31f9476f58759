"""Forms of the token and account pages.

Each field is checked by the account doors' own rule (memadmin.accounts.tokens, users), so a
refusal reads as it does from `manage.py apitoken` and sits under the input it is about. The
fields are plain `forms.Field`s for that reason: a CharField's own checks (required, length,
null characters) would answer first, with sentences of their own.
"""

from django import forms
from django.contrib.auth import get_user_model

from memadmin.accounts import grants, oidc, roles, sign_ins, tokens, users
from memadmin.web.forms import RefusalsMixin
from memories.reads.params import FirstErrorMixin
from memories.rules.errors import InvalidField

NO_STORE_ROLE = "none"  # the role select's value for no role on the whole store


def _by_rule(rule, *values):
    try:
        return rule(*values)
    except InvalidField as error:
        raise forms.ValidationError(error.message) from None


class TokenForm(RefusalsMixin, forms.Form):
    label = forms.Field(required=False)
    scope = forms.Field(required=False)
    expires = forms.Field(required=False)
    # The tiers ticked, as `apitoken create --project` names them ('' the global tier); none:
    # whatever its owner's grants reach.
    project = forms.Field(required=False, widget=forms.SelectMultiple)

    label_max_chars = tokens.LABEL_MAX_CHARS

    def clean_label(self):
        return _by_rule(tokens.token_label, self.cleaned_data["label"] or "")

    def clean_scope(self):
        return _by_rule(tokens.token_scope, self.cleaned_data["scope"])

    def clean_expires(self):
        return _by_rule(tokens.token_expiry, self.cleaned_data["expires"] or None)

    def clean_project(self) -> list | None:
        """The places create_token limits the token to (None the global tier), or None."""
        return [name or None for name in self._sent()] or None

    def _sent(self) -> list[str]:
        sent = self["project"].value() or []
        return [sent] if isinstance(sent, str) else list(sent)

    def ticked(self) -> set:
        """The tiers ticked as the form was sent (None the global tier), to tick them again."""
        return {name or None for name in self._sent()}


class PauseForm(FirstErrorMixin, forms.Form):
    """Pause a token (`true`) or resume it (anything else), as its row's button sends it."""

    paused = forms.Field(required=False)

    def clean_paused(self) -> bool:
        return self.cleaned_data["paused"] == "true"


class AccountForm(RefusalsMixin, forms.Form):
    username = forms.Field(required=False)
    password = forms.Field(required=False)
    role = forms.Field(required=False, initial=roles.AUDITOR)

    @property
    def username_max_chars(self) -> int:
        model = get_user_model()
        return model._meta.get_field(model.USERNAME_FIELD).max_length

    def clean_username(self):
        return _by_rule(users.account_username, self.cleaned_data["username"])

    def clean_password(self):
        username = self.cleaned_data.get("username") or self.data.get("username", "")
        return _by_rule(users.account_password, self.cleaned_data["password"], username)

    def clean_role(self):
        return _by_rule(users.account_role, self.cleaned_data["role"])


class GroupRoleForm(RefusalsMixin, forms.Form):
    """A value of the provider's groups claim and the role its members get, on the whole store
    or on one tier."""

    group = forms.Field(required=False)
    role = forms.Field(required=False, initial=roles.AUDITOR)
    tier = forms.CharField(required=False, max_length=64, strip=False, initial="*")

    group_max_chars = oidc.GROUP_MAX_CHARS

    def clean_group(self):
        return _by_rule(oidc.mapping_group, self.cleaned_data["group"])

    def clean_role(self):
        return _by_rule(users.account_role, self.cleaned_data["role"])

    def clean_tier(self):
        """'*' (or nothing sent: the form before tiers) the whole store, '' the global tier, a
        project's name."""
        return grants.place_of(self.data.get("tier", "*"))


class RoleForm(FirstErrorMixin, forms.Form):
    """Another account's role on the whole store, as the row's select sends it; `none` takes
    it back (their grants on named tiers stay)."""

    names_the_field = False  # shown in the account's row, beside the select

    role = forms.Field(required=False)

    def clean_role(self):
        if self.cleaned_data["role"] == NO_STORE_ROLE:
            return None
        return _by_rule(users.account_role, self.cleaned_data["role"])


class ActiveForm(FirstErrorMixin, forms.Form):
    """Turn another account on (`true`) or off (anything else), as the row's button sends it."""

    names_the_field = False

    active = forms.Field(required=False)

    def clean_active(self) -> bool:
        return self.cleaned_data["active"] == "true"


class UnlockForm(FirstErrorMixin, forms.Form):
    """One locked account from an address, account or address, as its row's Unlock button
    sends it."""

    kind = forms.ChoiceField(
        choices=[(kind, kind) for kind in (sign_ins.PAIR, sign_ins.ACCOUNT, sign_ins.ADDRESS)]
    )
    username = forms.CharField(max_length=255, required=False)
    address = forms.CharField(max_length=255, required=False)


class GrantForm(FirstErrorMixin, forms.Form):
    """A grant given or taken back on an account's row: `tier` is '*' (the whole store), ''
    (the global tier) or a project's name; `role` is asked for a grant only."""

    names_the_field = False

    role = forms.Field(required=False)
    tier = forms.CharField(required=False, max_length=64, strip=False)
    revoke = forms.Field(required=False)

    def clean_role(self):
        if self.data.get("revoke"):
            return None
        return _by_rule(users.account_role, self.cleaned_data["role"])

    def clean_tier(self):
        return grants.place_of(self.cleaned_data["tier"] or "")
