"""Gamenook: settings, URL root, the Celery app and the WSGI/ASGI entry points."""

from .flip_build import use_configured_build

use_configured_build()  # before anything imports flip: GAMENOOK_FLIP_BUILD picks the build

from .celery import app as celery_app  # noqa: E402

__all__ = ("celery_app",)
