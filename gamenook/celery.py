"""The Celery app: configured from the Django settings' ``CELERY_*`` names.

Start a worker with ``celery -A gamenook worker`` and the scheduler with
``celery -A gamenook beat``; ``make run`` starts both beside the web server.
"""

from __future__ import annotations

import os
from pathlib import Path

from celery import Celery

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "gamenook.settings.local")

app = Celery("gamenook")
app.config_from_object("django.conf:settings", namespace="CELERY")
app.autodiscover_tasks()


def _make_folders(conf: object) -> None:
    """Create the folders the filesystem broker and beat's schedule file live in."""
    options = getattr(conf, "broker_transport_options", None) or {}
    keys = ("data_folder_in", "data_folder_out", "data_folder_processed", "control_folder")
    folders = [options.get(key) for key in keys]
    schedule = getattr(conf, "beat_schedule_filename", None)
    if schedule:
        folders.append(str(Path(schedule).parent))
    for folder in folders:
        if folder:
            Path(folder).mkdir(parents=True, exist_ok=True)


@app.on_after_configure.connect
def _on_configure(sender: Celery, **kwargs: object) -> None:
    _make_folders(sender.conf)
