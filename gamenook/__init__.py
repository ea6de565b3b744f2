"""Gamenook: settings, URL root, the Celery app and the WSGI/ASGI entry points."""
