from django.db import migrations, models


def fill_to_act(apps, schema_editor):
    """Copy the seat to act out of each running table's snapshot, once."""
    Table = apps.get_model("games", "Table")
    for table in Table.objects.filter(status="active").only("pk", "state").iterator():
        state = table.state or {}
        if state and not state.get("over"):
            Table.objects.filter(pk=table.pk).update(to_act=state["current"])


class Migration(migrations.Migration):
    dependencies = [
        ("games", "0003_benchping"),
    ]

    operations = [
        migrations.AddField(
            model_name="table",
            name="to_act",
            field=models.PositiveSmallIntegerField(blank=True, editable=False, null=True),
        ),
        migrations.RunPython(fill_to_act, migrations.RunPython.noop),
        migrations.AddField(
            model_name="table",
            name="bot_errors",
            field=models.PositiveIntegerField(default=0, editable=False),
        ),
    ]
