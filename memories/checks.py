"""The system check on the sentence encoder's files (memories.encoder): missing or not the
weights they should be, search by meaning is off until they are reinstalled; words search
and every write go on (a memory written meanwhile has no vector until `memory embed`)."""

from django.core import checks

from memories import encoder


@checks.register()
def encoder_files_sound(app_configs, **kwargs):
    found = encoder.problem()
    if found is None:
        return []
    return [
        checks.Warning(
            found,
            hint="Search by meaning is off and new memories get no vector until it is "
            "reinstalled (scripts/setup.sh), then `python manage.py memory embed`.",
            id="memories.W001",
        )
    ]
