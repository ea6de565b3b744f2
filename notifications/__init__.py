"""Deadlines, reminders, bot turns and e-mail, run as Celery tasks."""
