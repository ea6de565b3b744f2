"""An address belongs to one account, in any case; DRF's clear-text tokens become hashes.

1. Addresses: where several accounts share one (compared without case), the
   oldest account keeps it and the others' is cleared (none was confirmed:
   confirmation did not exist before), then a unique index on
   ``LOWER(email)`` (blank addresses aside) makes the database refuse a second.
2. Tokens: each row of ``rest_framework.authtoken``'s table (if this database
   has one) becomes an ``ApiToken`` named "legacy" holding only its hash, so
   clients keep working, and the table with the clear keys is dropped.
"""

import hashlib

from django.db import migrations


def clear_duplicate_emails(apps, schema_editor):
    User = apps.get_model("auth", "User")
    seen: set[str] = set()
    for user in User.objects.exclude(email="").order_by("date_joined", "pk"):
        key = user.email.lower()
        if key in seen:
            print(f"\n  {user.username}: address {user.email} belongs to an older account; cleared")
            User.objects.filter(pk=user.pk).update(email="")
        seen.add(key)


def import_legacy_tokens(apps, schema_editor):
    connection = schema_editor.connection
    if "authtoken_token" not in connection.introspection.table_names():
        return
    ApiToken = apps.get_model("accounts", "ApiToken")
    with connection.cursor() as cursor:
        cursor.execute("SELECT key, user_id, created FROM authtoken_token")
        rows = cursor.fetchall()
    for key, user_id, created in rows:
        digest = hashlib.sha256(key.encode()).hexdigest()
        token = ApiToken.objects.create(user_id=user_id, name="legacy", prefix=key[:8], digest=digest)
        ApiToken.objects.filter(pk=token.pk).update(created_at=created)
    schema_editor.execute("DROP TABLE authtoken_token")


class Migration(migrations.Migration):
    dependencies = [
        ("accounts", "0001_api_tokens"),
        ("auth", "0012_alter_user_first_name_max_length"),
    ]

    operations = [
        migrations.RunPython(clear_duplicate_emails, migrations.RunPython.noop),
        # SQLite and PostgreSQL both take an index on an expression with a condition.
        migrations.RunSQL(
            "CREATE UNIQUE INDEX accounts_user_email_ci ON auth_user (LOWER(email)) "
            "WHERE email <> ''",
            "DROP INDEX accounts_user_email_ci",
        ),
        migrations.RunPython(import_legacy_tokens, migrations.RunPython.noop),
    ]
