"""Tables name their game and keep its options as the game's ruleset takes them.

Every table before this one plays Wild Cards Flip, rules version 1: its three
option columns move into ``options`` unchanged, and its snapshot and move log
stay as they are (``games.rulesets``).
"""

from django.db import migrations, models


def options_from_columns(apps, schema_editor):
    Table = apps.get_model("games", "Table")
    for table in Table.objects.only(
        "pk", "two_seat_reverse_skips", "scoring", "target"
    ).iterator(chunk_size=2000):
        Table.objects.filter(pk=table.pk).update(
            options={
                "scoring": table.scoring,
                "target": table.target,
                "two_seat_reverse_skips": table.two_seat_reverse_skips,
            }
        )


def columns_from_options(apps, schema_editor):
    Table = apps.get_model("games", "Table")
    for table in Table.objects.only("pk", "game", "options").iterator(chunk_size=2000):
        if table.game != "flip":
            raise RuntimeError(f"table {table.pk} plays {table.game}: it cannot go back")
        Table.objects.filter(pk=table.pk).update(
            scoring=table.options.get("scoring", "single"),
            target=table.options.get("target", 500),
            two_seat_reverse_skips=table.options.get("two_seat_reverse_skips", True),
        )


class Migration(migrations.Migration):
    dependencies = [("games", "0008_seat_struck_out")]

    operations = [
        migrations.AddField(
            model_name="table",
            name="game",
            field=models.CharField(default="flip", editable=False, max_length=32),
        ),
        migrations.AddField(
            model_name="table",
            name="game_version",
            field=models.PositiveSmallIntegerField(default=1, editable=False),
        ),
        migrations.AddField(
            model_name="table",
            name="options",
            field=models.JSONField(default=dict, editable=False),
        ),
        migrations.RunPython(options_from_columns, columns_from_options, elidable=False),
        migrations.RemoveConstraint(model_name="table", name="table_target_choices"),
        migrations.RemoveField(model_name="table", name="two_seat_reverse_skips"),
        migrations.RemoveField(model_name="table", name="scoring"),
        migrations.RemoveField(model_name="table", name="target"),
    ]
