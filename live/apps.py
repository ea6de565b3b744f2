from django.apps import AppConfig


class LiveConfig(AppConfig):
    name = "live"
    verbose_name = "Live tables (WebSockets)"

    def ready(self) -> None:
        # Connects the receiver that pushes each committed change to the table's group.
        from . import receivers  # noqa: F401
