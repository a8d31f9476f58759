"""Accounts of the dashboard, managed by admins: create one with a role, change a role, turn
an account off or on. An admin never changes their own role or account, so there is always
an admin left to undo a mistake.
"""

from dataclasses import dataclass

from django.contrib.auth import get_user_model, password_validation
from django.contrib.auth.models import Group
from django.core.exceptions import ValidationError
from django.db import IntegrityError, transaction

from memadmin.accounts import roles
from memories.rules.errors import AccountNotFound, AccountRefused, InvalidField


@dataclass
class Account:
    user: object
    role: str | None


def accounts() -> list[Account]:
    """Every account with its role (None: no role yet), in two queries; an account turned off
    keeps its role for when it is back on."""
    users = get_user_model().objects.prefetch_related("groups").order_by("username")
    return [
        Account(user, roles.strongest(user, {group.name for group in user.groups.all()}))
        for user in users
    ]


def account_role(value) -> str:
    if value not in roles.ROLES:
        raise InvalidField("role", "The role is auditor, operator or admin.")
    return value


def account_username(username) -> str:
    """The username as kept (trimmed), held to the user model's own validators."""
    username = (username or "").strip()
    if not username:
        raise InvalidField("username", "A username is required.")
    users = get_user_model()
    try:
        users._meta.get_field(users.USERNAME_FIELD).run_validators(username)
    except ValidationError as error:
        raise InvalidField("username", " ".join(error.messages)) from None
    return username


def account_password(password, username: str) -> str:
    """The password, held to the site's password rules (AUTH_PASSWORD_VALIDATORS)."""
    try:
        password_validation.validate_password(password or "", get_user_model()(username=username))
    except ValidationError as error:
        raise InvalidField("password", " ".join(error.messages)) from None
    return password


def _name_taken(username: str) -> AccountRefused:
    return AccountRefused(f"There is already an account named '{username}'.", field="username")


def create_account(username, password, role):
    """A new account holding `role`; the password is held to the site's password rules."""
    role = account_role(role)
    username = account_username(username)
    password = account_password(password, username)
    users = get_user_model()
    with transaction.atomic():
        if users.objects.filter(username=username).exists():
            raise _name_taken(username)
        try:
            user = users.objects.create_user(username=username, password=password)
        except IntegrityError:
            raise _name_taken(username) from None
        user.groups.add(Group.objects.get_or_create(name=role)[0])
    return user


def create_external_account(username: str, email: str = ""):
    """An account that signs in elsewhere (an OpenID Connect provider): no usable password,
    no role until it is given one."""
    return get_user_model().objects.create_user(username=username, email=email, password=None)


def hold_role(user, role: str) -> None:
    """The user holds exactly this role (one group of the three)."""
    current = set(user.groups.filter(name__in=roles.ROLES).values_list("name", flat=True))
    if current == {role}:
        return
    user.groups.remove(*Group.objects.filter(name__in=roles.ROLES))
    user.groups.add(Group.objects.get_or_create(name=role)[0])


def other_account(actor, user_id):
    """Another account than the actor's, by id (AccountNotFound, AccountRefused)."""
    users = get_user_model()
    try:
        user = users.objects.get(id=user_id)
    except (users.DoesNotExist, ValueError, TypeError):
        raise AccountNotFound(user_id) from None
    if user.id == actor.id:
        raise AccountRefused(
            "You cannot change your own account here; another admin can, so one always remains."
        )
    return user


def set_role(actor, user_id, role):
    """Give the account exactly this role."""
    role = account_role(role)
    with transaction.atomic():
        user = other_account(actor, user_id)
        if user.is_superuser:
            raise AccountRefused(
                f"'{user.get_username()}' is a superuser, an admin whatever their role here."
            )
        hold_role(user, role)
    return user


def set_active(actor, user_id, active: bool):
    """Turn an account off (it can neither sign in nor use its tokens) or back on."""
    with transaction.atomic():
        user = other_account(actor, user_id)
        user.is_active = bool(active)
        user.save(update_fields=["is_active"])
    return user
