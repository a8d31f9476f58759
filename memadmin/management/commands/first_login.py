"""`manage.py first_login`: make the first sign-in on a new store and print it, once.

The password is printed when it is made and kept, readable by the owner alone, in the data
dir (memadmin.accounts.first_login); later starts only say where it is kept, so it does not
reach every start's log. Once the password is changed, the file is removed.
"""

from django.contrib.auth import get_user_model

from memadmin.accounts import first_login
from memadmin.cli.faults import StoreCommand


class Command(StoreCommand):
    help = "Create the first admin sign-in if no user exists, and print it when created."

    def add_arguments(self, parser):
        parser.add_argument("--username", default="admin")

    def handle(self, *args, username: str, **options):
        if not get_user_model().objects.exists():
            password = first_login.create(username)
            self.stdout.write(f"Sign in as {username} with password {password}")
            return
        kept = first_login.kept_for()
        if kept:
            self.stdout.write(
                f"Sign in as {kept} with the password kept in {first_login.kept_at()} "
                "(removed once it is changed)."
            )
            return
        self.stdout.write("Sign in with an existing account (manage.py createsuperuser adds one).")
