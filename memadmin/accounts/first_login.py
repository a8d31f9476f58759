"""The first admin sign-in of a new store: its password kept, readable by the owner alone,
in the data dir until it is changed, and forgotten then."""

import os
import secrets
from pathlib import Path

from django.conf import settings
from django.contrib.auth import get_user_model
from django.contrib.auth.models import Group

from memadmin.accounts.roles import ADMIN


def kept_at() -> Path:
    return settings.DATA_DIR / "first-login.txt"


def create(username: str) -> str:
    """The first admin, with a new password kept in kept_at(); the password."""
    password = secrets.token_urlsafe(12)
    user = get_user_model().objects.create_superuser(username=username, email="", password=password)
    user.groups.add(Group.objects.get(name=ADMIN))
    fd = os.open(kept_at(), os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(fd, "w") as handle:
        handle.write(f"{username}\n{password}\n")
    return password


def kept_for(user=None) -> str | None:
    """The username whose first password is kept and still theirs (of `user` alone, if
    given); a kept password that was changed since is forgotten (its file removed)."""
    login_file = kept_at()
    if not login_file.exists():
        return None
    username, password = login_file.read_text().split("\n")[:2]
    if user is not None and user.get_username() != username:
        return None
    if user is None:
        user = get_user_model().objects.filter(username=username).first()
    if user is not None and user.check_password(password):
        return username
    login_file.unlink(missing_ok=True)
    return None


def forget_once_changed(sender, instance, update_fields=None, **kwargs) -> None:
    """post_save of a user: a save that may have set a new password is checked at once."""
    if update_fields is None or "password" in update_fields:
        kept_for(instance)
