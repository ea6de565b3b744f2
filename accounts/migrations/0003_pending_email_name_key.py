"""Addresses wait for confirmation outside ``User.email``; usernames get a comparison key.

1. ``PendingEmail`` holds an address a user asked for until its link is
   followed; only then does it become ``User.email``. Accounts whose address
   was never confirmed (``notifications``' ``Preferences.verified_email``
   differs) have it moved there, and get back the address they last
   confirmed, if any and if no other account holds it now: so a password
   reset goes to an address the user proved they read, never to one a
   stolen session typed in, and an unconfirmed address no longer keeps
   anyone else from it.
2. ``NameKey`` holds each username's ``accounts.validators.name_key``, unique;
   of older accounts whose names have one key (``Alice`` and ``ＡＬＩＣＥ``), the
   oldest gets it and the others keep their names without one. Names are not
   changed. A later change to ``name_key`` needs a migration writing the keys
   again.
"""

import django.db.models.deletion
from django.conf import settings
from django.db import migrations, models

from accounts.validators import name_key


def key_existing_names(apps, schema_editor):
    User = apps.get_model("auth", "User")
    NameKey = apps.get_model("accounts", "NameKey")
    seen: set[str] = set()
    rows = []
    users = User.objects.order_by("date_joined", "pk").values_list("pk", "username")
    for pk, username in users.iterator():
        key = name_key(username)
        if key in seen:
            print(f"\n  {username}: too like an older account's name; kept, without a key")
            continue
        seen.add(key)
        rows.append(NameKey(user_id=pk, key=key))
    NameKey.objects.bulk_create(rows, batch_size=1000)


def unconfirmed_addresses_wait(apps, schema_editor):
    User = apps.get_model("auth", "User")
    Preferences = apps.get_model("notifications", "Preferences")
    PendingEmail = apps.get_model("accounts", "PendingEmail")
    confirmed = dict(
        Preferences.objects.exclude(verified_email="").values_list("user_id", "verified_email")
    )
    waiting = [
        (pk, email)
        for pk, email in User.objects.exclude(email="")
        .order_by("date_joined", "pk")
        .values_list("pk", "email")
        if confirmed.get(pk, "").lower() != email.lower()
    ]
    PendingEmail.objects.bulk_create(
        [PendingEmail(user_id=pk, email=email) for pk, email in waiting], batch_size=1000
    )
    User.objects.filter(pk__in=[pk for pk, _ in waiting]).update(email="")
    held = {email.lower() for email in User.objects.exclude(email="").values_list("email", flat=True)}
    for pk, email in waiting:
        earlier = confirmed.get(pk, "")
        if earlier and earlier.lower() not in held:
            User.objects.filter(pk=pk).update(email=earlier)
            held.add(earlier.lower())
            print(f"\n  user {pk}: {email} waits for confirmation; {earlier} is the address again")


class Migration(migrations.Migration):
    dependencies = [
        ("accounts", "0002_unique_email_legacy_tokens"),
        ("auth", "0012_alter_user_first_name_max_length"),
        ("notifications", "0002_verified_email_account_mail"),
        migrations.swappable_dependency(settings.AUTH_USER_MODEL),
    ]

    operations = [
        migrations.CreateModel(
            name="NameKey",
            fields=[
                (
                    "user",
                    models.OneToOneField(
                        on_delete=django.db.models.deletion.CASCADE,
                        primary_key=True,
                        related_name="name_key",
                        serialize=False,
                        to=settings.AUTH_USER_MODEL,
                    ),
                ),
                ("key", models.CharField(max_length=600, unique=True)),
            ],
        ),
        migrations.CreateModel(
            name="PendingEmail",
            fields=[
                (
                    "id",
                    models.BigAutoField(
                        auto_created=True, primary_key=True, serialize=False, verbose_name="ID"
                    ),
                ),
                ("email", models.EmailField(max_length=254)),
                ("created_at", models.DateTimeField(auto_now_add=True)),
                ("mailed_at", models.DateTimeField(blank=True, editable=False, null=True)),
                (
                    "user",
                    models.OneToOneField(
                        on_delete=django.db.models.deletion.CASCADE,
                        related_name="pending_email",
                        to=settings.AUTH_USER_MODEL,
                    ),
                ),
            ],
            options={
                "verbose_name": "address waiting for confirmation",
                "verbose_name_plural": "addresses waiting for confirmation",
            },
        ),
        migrations.RunPython(key_existing_names, migrations.RunPython.noop),
        migrations.RunPython(unconfirmed_addresses_wait, migrations.RunPython.noop),
    ]
