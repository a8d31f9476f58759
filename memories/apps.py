from django.apps import AppConfig


class MemoriesConfig(AppConfig):
    name = "memories"

    def ready(self) -> None:
        from memories import checks  # noqa: F401  (registers the store's system checks)
