"""`manage.py first_login`: make the first sign-in on a new store and print it.

The password is generated once and kept, readable by the owner alone, in the data dir, so
every start of the README's run command can print the same login.
"""

import os
import secrets

from django.conf import settings
from django.contrib.auth import get_user_model
from django.contrib.auth.models import Group
from django.core.management.base import BaseCommand

from memadmin.accounts.roles import ADMIN


class Command(BaseCommand):
    help = "Create the first admin sign-in if no user exists, and print how to sign in."

    def add_arguments(self, parser):
        parser.add_argument("--username", default="admin")

    def handle(self, *args, username: str, **options):
        users = get_user_model()
        login_file = settings.DATA_DIR / "first-login.txt"
        if not users.objects.exists():
            password = secrets.token_urlsafe(12)
            user = users.objects.create_superuser(username=username, email="", password=password)
            user.groups.add(Group.objects.get(name=ADMIN))
            settings.DATA_DIR.mkdir(parents=True, exist_ok=True)
            fd = os.open(login_file, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
            with os.fdopen(fd, "w") as handle:
                handle.write(f"{username}\n{password}\n")
        if login_file.exists():
            username, password = login_file.read_text().split("\n")[:2]
            if users.objects.filter(username=username).exists():
                self.stdout.write(f"Sign in as {username} with password {password}")
                return
        self.stdout.write("Sign in with an existing account (manage.py createsuperuser adds one).")
