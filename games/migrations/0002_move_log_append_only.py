"""On PostgreSQL the database itself refuses to change or remove a logged move.

TRUNCATE is left alone: it is how test databases are emptied between
transactional tests, and no code path of the service issues it.
"""

from django.db import migrations

FORWARD = """
CREATE FUNCTION games_move_append_only() RETURNS trigger AS $$
BEGIN
    RAISE EXCEPTION 'games_move is append-only: % refused', TG_OP
        USING ERRCODE = 'restrict_violation';
END;
$$ LANGUAGE plpgsql;

CREATE TRIGGER games_move_append_only
    BEFORE UPDATE OR DELETE ON games_move
    FOR EACH ROW EXECUTE FUNCTION games_move_append_only();
"""

BACKWARD = """
DROP TRIGGER IF EXISTS games_move_append_only ON games_move;
DROP FUNCTION IF EXISTS games_move_append_only();
"""


def forward(apps, schema_editor):
    if schema_editor.connection.vendor == "postgresql":
        schema_editor.execute(FORWARD, params=None)


def backward(apps, schema_editor):
    if schema_editor.connection.vendor == "postgresql":
        schema_editor.execute(BACKWARD, params=None)


class Migration(migrations.Migration):
    dependencies = [("games", "0001_initial")]

    operations = [migrations.RunPython(forward, backward)]
