"""Account mail at rest (issue 35 §1): seal what is still to send, remove what is done.

From this migration on, ``notifications.outbox`` writes an account message's
text sealed and removes it once the message is sent, failed or cancelled.
This does the same to the rows written before. The kinds, the note and the
key's derivation are copied as they were when it was written, so that later
changes to ``notifications.outbox`` leave it as it is.
"""

import base64

from cryptography.fernet import Fernet, InvalidToken
from django.db import migrations
from django.utils.crypto import salted_hmac

ACCOUNT_KINDS = ("verify_email", "password_reset")
REMOVED = "Removed after sending: it held a link that grants access."
SEAL_SALT = "gamenook.notifications.outbox.account-mail"


def seal_and_remove(apps, schema_editor):
    OutboxMessage = apps.get_model("notifications", "OutboxMessage")
    account = OutboxMessage.objects.filter(kind__in=ACCOUNT_KINDS)
    account.exclude(status="pending").update(text=REMOVED, html="", headers={})
    key = salted_hmac(SEAL_SALT, "", algorithm="sha256").digest()  # from SECRET_KEY
    fernet = Fernet(base64.urlsafe_b64encode(key))
    for message in account.filter(status="pending"):
        try:
            fernet.decrypt(message.text.encode("ascii"))
            continue  # sealed already (this migration ran before, then was unapplied)
        except (InvalidToken, UnicodeEncodeError):
            pass
        message.text = fernet.encrypt(message.text.encode()).decode("ascii")
        message.save(update_fields=["text"])


class Migration(migrations.Migration):
    dependencies = [
        ("notifications", "0002_verified_email_account_mail"),
    ]

    operations = [
        # Backwards: nothing to undo that could be undone (the removed text is gone).
        migrations.RunPython(seal_and_remove, migrations.RunPython.noop),
    ]
