"""What ``make run`` shows a newcomer: one line per e-mail, the message in a file, no warnings.

Issue 10, section 5. The console itself was checked by running ``make run``
(see the report of that change); these pin the pieces it is made of.
"""

from __future__ import annotations

import email
import logging
import subprocess
import sys
from pathlib import Path

import pytest
from django.core.mail import EmailMultiAlternatives
from django.test import override_settings

ROOT = Path(__file__).resolve().parent.parent.parent


def test_the_dev_mail_backend_logs_one_line_and_keeps_the_whole_message(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    with override_settings(
        EMAIL_BACKEND="gamenook.mail.FolderEmailBackend", GAMENOOK_MAIL_DIR=str(tmp_path)
    ):
        message = EmailMultiAlternatives(
            "Your turn at table 3", "A long text\n" * 200, to=["bob@example.com"]
        )
        message.attach_alternative("<p>" + "A long text " * 200 + "</p>", "text/html")
        with caplog.at_level(logging.INFO, logger="gamenook.mail"):
            assert message.send() == 1

    [path] = list(tmp_path.glob("*.eml"))
    assert [r.getMessage() for r in caplog.records] == [
        f"mail to bob@example.com: Your turn at table 3 ({path})"
    ]
    saved = email.message_from_bytes(path.read_bytes())
    assert saved["To"] == "bob@example.com" and saved["Subject"] == "Your turn at table 3"
    parts = [part.get_content_type() for part in saved.walk()]
    assert "text/plain" in parts and "text/html" in parts


def _local_setting(name: str, **env: str) -> str:
    code = f"import gamenook.settings.local as s; print(s.{name})"
    result = subprocess.run(
        [sys.executable, "-c", code],
        cwd=ROOT,
        env={"PATH": "/usr/bin:/bin", **env},
        capture_output=True,
        text=True,
        check=True,
    )
    return result.stdout.strip()


def test_the_local_broker_names_a_host_so_kombu_does_not_warn() -> None:
    from kombu import Connection

    url = _local_setting("CELERY_BROKER_URL")

    assert Connection(url).hostname


def test_make_run_keeps_mail_in_files_unless_email_url_says_otherwise() -> None:
    assert _local_setting("EMAIL_BACKEND") == "gamenook.mail.FolderEmailBackend"
    smtp = _local_setting("EMAIL_BACKEND", EMAIL_URL="smtp://localhost:25")
    assert smtp == "django.core.mail.backends.smtp.EmailBackend"


def test_a_fixed_game_seed_is_read_by_the_local_settings_only() -> None:
    assert _local_setting("GAMENOOK_GAME_SEED", GAMENOOK_GAME_SEED="demo") == "demo"
    code = "import gamenook.settings.production as s; print(repr(s.GAMENOOK_GAME_SEED))"
    env = {
        "PATH": "/usr/bin:/bin",
        "GAMENOOK_GAME_SEED": "demo",
        "DJANGO_SECRET_KEY": "x" * 50,
        "DJANGO_ALLOWED_HOSTS": "example.com",
    }
    result = subprocess.run(
        [sys.executable, "-c", code], cwd=ROOT, env=env, capture_output=True, text=True
    )
    assert result.stdout.strip() == "''", result.stderr


def test_run_dev_replaces_celerys_root_warning_by_one_line() -> None:
    source = (ROOT / "scripts" / "run_dev.py").read_text()
    # The filter must match the start of Celery's message (warnings filters match a prefix).
    from celery.platforms import ROOT_DISCOURAGED

    quoted = "You're running the worker with superuser privileges"
    assert quoted in source and ROOT_DISCOURAGED.startswith(quoted)
