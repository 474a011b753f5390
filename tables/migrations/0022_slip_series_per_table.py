"""Slip serials run per table and year (`SlipSeries`) instead of one casino-wide counter per year.

Each year's counter becomes that year's casino-wide run (no table), kept as it stands: its slips keep
their numbers, and a table's own run in that year starts after its last one."""

import django.db.models.deletion
from django.conf import settings
from django.db import migrations, models


def counters_to_runs(apps, schema_editor):
    SlipCounter, SlipSeries = apps.get_model("tables", "SlipCounter"), apps.get_model("tables", "SlipSeries")
    SlipSeries.objects.bulk_create(
        SlipSeries(table=None, year=counter.year, first=1, last=counter.last)
        for counter in SlipCounter.objects.all()
    )


def runs_to_counters(apps, schema_editor):
    SlipCounter, SlipSeries = apps.get_model("tables", "SlipCounter"), apps.get_model("tables", "SlipSeries")
    for year, in SlipSeries.objects.values_list("year").distinct():
        last = max(SlipSeries.objects.filter(year=year).values_list("last", flat=True))
        SlipCounter.objects.create(year=year, last=last)


class Migration(migrations.Migration):

    dependencies = [
        ('ledger', '0005_casino_accounts_uncached'),
        ('tables', '0021_back_entries'),
        migrations.swappable_dependency(settings.AUTH_USER_MODEL),
    ]

    operations = [
        migrations.CreateModel(
            name='SlipSeries',
            fields=[
                ('id', models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name='ID')),
                ('year', models.PositiveSmallIntegerField()),
                ('first', models.PositiveIntegerField(default=1, help_text="The run's first serial.")),
                ('last', models.PositiveIntegerField(default=0, help_text='The last serial issued (first - 1: none yet).')),
            ],
        ),
        migrations.RemoveConstraint(
            model_name='slip',
            name='slip_serial_unique_per_year',
        ),
        migrations.AddConstraint(
            model_name='slip',
            constraint=models.UniqueConstraint(fields=('table', 'year', 'serial'), name='slip_serial_unique_in_table_year'),
        ),
        migrations.AddField(
            model_name='slipseries',
            name='table',
            field=models.ForeignKey(blank=True, null=True, on_delete=django.db.models.deletion.PROTECT, related_name='slip_series', to='tables.table'),
        ),
        migrations.RunPython(counters_to_runs, runs_to_counters),
        migrations.AddConstraint(
            model_name='slipseries',
            constraint=models.UniqueConstraint(condition=models.Q(('table__isnull', False)), fields=('table', 'year'), name='slip_series_one_per_table_year'),
        ),
        migrations.AddConstraint(
            model_name='slipseries',
            constraint=models.UniqueConstraint(condition=models.Q(('table__isnull', True)), fields=('year',), name='slip_series_one_casino_wide_per_year'),
        ),
        migrations.DeleteModel(
            name='SlipCounter',
        ),
    ]
