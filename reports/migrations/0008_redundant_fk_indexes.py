"""Foreign keys that a unique constraint already indexes (its first column) lose their own index: every
row written updated both, for no lookup's sake (docs/performance.md, "Issue 17, session 20";
tests/test_indexes.py).

Only the indexes are dropped, by name (the same on PostgreSQL and SQLite): Django would alter each
field on SQLite by rebuilding its table, which drops the append-only triggers (ledger.db)."""

import django.db.models.deletion
from django.db import migrations, models


class Migration(migrations.Migration):

    dependencies = [
        ('reports', '0007_par_sheet'),
        ('tables', '0025_redundant_fk_indexes'),
    ]

    operations = [
        migrations.SeparateDatabaseAndState(
            state_operations=[
                migrations.AlterField(
                    model_name='gamingdayclose',
                    name='casino',
                    field=models.ForeignKey(db_index=False, on_delete=django.db.models.deletion.PROTECT, related_name='day_closes', to='tables.casino'),
                ),
            ],
            database_operations=[
                migrations.RunSQL("DROP INDEX reports_gamingdayclose_casino_id_5e1abecc", "CREATE INDEX reports_gamingdayclose_casino_id_5e1abecc ON reports_gamingdayclose (casino_id)"),
            ],
        ),
    ]
