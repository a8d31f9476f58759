"""`manage.py first_login`: make the first sign-in on a new store and print it, once.

The password is printed when it is made and kept, readable by the owner alone, in the data
dir; later starts only say where it is kept, so it does not reach every start's log. Once the
password was changed, the file is removed.
"""

import os
import secrets

from django.conf import settings
from django.contrib.auth import get_user_model
from django.contrib.auth.models import Group
from django.core.management.base import BaseCommand

from memadmin.accounts.roles import ADMIN


class Command(BaseCommand):
    help = "Create the first admin sign-in if no user exists, and print it when created."

    def add_arguments(self, parser):
        parser.add_argument("--username", default="admin")

    def handle(self, *args, username: str, **options):
        users = get_user_model()
        login_file = settings.DATA_DIR / "first-login.txt"
        if not users.objects.exists():
            password = secrets.token_urlsafe(12)
            user = users.objects.create_superuser(username=username, email="", password=password)
            user.groups.add(Group.objects.get(name=ADMIN))
            fd = os.open(login_file, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
            with os.fdopen(fd, "w") as handle:
                handle.write(f"{username}\n{password}\n")
            self.stdout.write(f"Sign in as {username} with password {password}")
            return
        if login_file.exists():
            username, password = login_file.read_text().split("\n")[:2]
            user = users.objects.filter(username=username).first()
            if user is not None and user.check_password(password):
                self.stdout.write(
                    f"Sign in as {username} with the password kept in {login_file} "
                    "(removed once it is changed)."
                )
                return
            login_file.unlink()
        self.stdout.write("Sign in with an existing account (manage.py createsuperuser adds one).")
