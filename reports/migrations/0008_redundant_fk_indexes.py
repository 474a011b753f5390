"""Foreign keys a unique constraint already indexes lose their own index, as in
tables/migrations/0025_redundant_fk_indexes.py (which says why by name)."""

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
