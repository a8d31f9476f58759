from django.apps import AppConfig
from django.conf import settings
from django.db.models.signals import post_migrate, post_save


class MemadminConfig(AppConfig):
    name = "memadmin"

    def ready(self):
        # Models can be imported once the app registry is ready: Django's place for signals.
        from memadmin.accounts import first_login, roles

        post_save.connect(
            first_login.forget_once_changed,
            sender=settings.AUTH_USER_MODEL,
            dispatch_uid="memadmin.first_login",
        )
        post_migrate.connect(roles.keep_groups, sender=self, dispatch_uid="memadmin.roles")
