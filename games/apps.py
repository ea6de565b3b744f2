from django.apps import AppConfig
from django.db.backends.signals import connection_created


class GamesConfig(AppConfig):
    default_auto_field = "django.db.models.BigAutoField"
    name = "games"
    verbose_name = "Games"

    def ready(self) -> None:
        from .timestamps import use_compiled_loader

        # Each new PostgreSQL connection reads timestamps with psycopg's compiled loader.
        connection_created.connect(use_compiled_loader, dispatch_uid="games.timestamps")
