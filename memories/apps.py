from django.apps import AppConfig


class MemoriesConfig(AppConfig):
    name = "memories"

    def ready(self) -> None:
        pass
