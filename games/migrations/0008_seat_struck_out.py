"""A struck-out player stays their seat's player (PRODUCT.md ruling 18, revised).

Until now a third strike moved the player to ``previous_user`` and made the seat a
Normal bot's, as a moderator's replacement does. Such seats get their player back,
with ``struck_out`` set: a seat whose last hand-over to a bot (the log's
``replace_with_bot`` entries) was a timeout's. Seats a moderator handed to a bot
stay as they are.
"""

from typing import Any

from django.db import migrations, models

TIMEOUT = "timeout"
STAND_IN_LEVEL = "normal"


def _struck_out_seats(apps: Any) -> list[Any]:
    """The seats a third strike handed to a bot, as the code before this migration left them."""
    seat_model = apps.get_model("games", "Seat")
    move_model = apps.get_model("games", "Move")
    found = []
    candidates = seat_model.objects.filter(
        user__isnull=True, previous_user__isnull=False, bot_level=STAND_IN_LEVEL
    )
    for seat in candidates:
        last = (
            move_model.objects.filter(
                table_id=seat.table_id, seat=seat.number, action="replace_with_bot"
            )
            .order_by("-seq")
            .first()
        )
        if last is not None and last.source == TIMEOUT:
            found.append(seat)
    return found


def seats_back_to_their_players(apps: Any, schema_editor: Any) -> None:
    for seat in _struck_out_seats(apps):
        seat.user_id = seat.previous_user_id
        seat.previous_user_id = None
        seat.bot_level = ""
        seat.struck_out = True
        seat.save(update_fields=["user", "previous_user", "bot_level", "struck_out"])
    _checks_now(schema_editor)


def _checks_now(schema_editor: Any) -> None:
    """Check the deferred foreign keys now: PostgreSQL refuses the ALTER TABLE that
    follows in this transaction while their checks are pending."""
    if schema_editor.connection.vendor == "postgresql":
        schema_editor.execute("SET CONSTRAINTS ALL IMMEDIATE")


def seats_back_to_the_bot(apps: Any, schema_editor: Any) -> None:
    seat_model = apps.get_model("games", "Seat")
    for seat in seat_model.objects.filter(struck_out=True):
        seat.previous_user_id = seat.user_id
        seat.user_id = None
        seat.bot_level = STAND_IN_LEVEL
        seat.struck_out = False
        seat.save(update_fields=["user", "previous_user", "bot_level", "struck_out"])
    _checks_now(schema_editor)


class Migration(migrations.Migration):
    dependencies = [
        ("games", "0007_move_table_index_in_unique"),
    ]

    operations = [
        migrations.AddField(
            model_name="seat",
            name="struck_out",
            field=models.BooleanField(default=False, editable=False),
        ),
        migrations.RunPython(seats_back_to_their_players, seats_back_to_the_bot),
        migrations.AddConstraint(
            model_name="seat",
            constraint=models.CheckConstraint(
                condition=models.Q(("struck_out", False), ("user__isnull", False), _connector="OR"),
                name="seat_struck_out_has_player",
            ),
        ),
    ]
