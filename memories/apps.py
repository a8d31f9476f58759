from django.apps import AppConfig


class MemoriesConfig(AppConfig):
    name = "memories"

    def ready(self) -> None:
        # Imported once the models are loaded: the checks read the store's schema.
        from memories.engine import checks  # noqa: F401  (registers the store's system checks)
