"""A recycle at a physical table may leave cards face down on the table whose ranks nobody saw: they
count among its possible ranks but not in its deck. SQLite adds the column by rebuilding the table,
which drops its triggers (ledger.db): the recycles' table is made append-only again, either way."""

from django.db import migrations, models

from ledger.db import protect_again


class Migration(migrations.Migration):

    dependencies = [
        ('tables', '0026_incident_key'),
    ]

    operations = [
        migrations.RunPython(migrations.RunPython.noop, protect_again("tables_recycle")),  # undone: after the rebuild
        migrations.AddField(
            model_name='recycle',
            name='hidden',
            field=models.PositiveSmallIntegerField(default=0, help_text='Cards among `ranks` not in the deck: face down on the table, their ranks unseen.'),
        ),
        migrations.RunPython(protect_again("tables_recycle"), migrations.RunPython.noop),
    ]
