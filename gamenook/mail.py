"""A developer's e-mail backend: one line per message on the console, the whole message in a file.

``make run`` uses it unless ``EMAIL_URL`` says otherwise. Each message is
written to ``GAMENOOK_MAIL_DIR`` (``.mail/``, gitignored) as an ``.eml``
file that any mail program opens, and the log gets one line: who, what, and
which file. The console backend printed every message in full, text and
HTML, which buried everything else.
"""

from __future__ import annotations

import logging
import re
from collections.abc import Sequence
from datetime import datetime
from itertools import count
from pathlib import Path
from typing import Any

from django.conf import settings
from django.core.mail import EmailMessage
from django.core.mail.backends.base import BaseEmailBackend

logger = logging.getLogger("gamenook.mail")
_numbers = count(1)


class FolderEmailBackend(BaseEmailBackend):
    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.folder = Path(settings.GAMENOOK_MAIL_DIR)

    def send_messages(self, email_messages: Sequence[EmailMessage]) -> int:
        self.folder.mkdir(parents=True, exist_ok=True)
        sent = 0
        for message in email_messages:
            stamp = datetime.now().strftime("%Y%m%d-%H%M%S")
            slug = re.sub(r"[^a-z0-9]+", "-", message.subject.lower()).strip("-")[:40]
            path = self.folder / f"{stamp}-{next(_numbers):04d}-{slug}.eml"
            path.write_bytes(message.message().as_bytes())
            logger.info("mail to %s: %s (%s)", ", ".join(message.to), message.subject, path)
            sent += 1
        return sent
