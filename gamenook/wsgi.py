"""WSGI entry point (gunicorn gamenook.wsgi)."""

import os

from django.core.wsgi import get_wsgi_application

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "gamenook.settings.production")

application = get_wsgi_application()
