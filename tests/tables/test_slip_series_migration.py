"""Migration 0022: the year's casino-wide slip counter becomes that year's casino-wide run, and each
table's own run goes on after it."""

import pytest
from django.db import connection, transaction
from django.db.migrations.executor import MigrationExecutor
from django.utils import timezone

from tables.models import Game, Slip, SlipSeries
from tables.services.slips import slip_issue, slips_report

from .conftest import open_table

pytestmark = pytest.mark.django_db(transaction=True)  # migrations run outside a test's transaction

BEFORE = [("tables", "0021_back_entries")]


def migrate(targets=None):
    executor = MigrationExecutor(connection)
    executor.migrate(targets or executor.loader.graph.leaf_nodes())


def test_a_year_counted_casino_wide_keeps_its_numbers_and_its_gaps(pit, pete):
    year = timezone.localdate().year
    tables = [open_table(pit, pete, Game.BLACKSTONE, f"Blackstone {n}", 5, 500, opened=False) for n in (1, 2)]
    migrate(BEFORE)
    try:
        # as the old code left a year: one counter at 3, serials 1 and 3 written (2 went missing)
        with connection.cursor() as cursor:
            cursor.execute("INSERT INTO tables_slipcounter (year, last) VALUES (%s, 3)", [year])
            for serial, table in ((1, tables[0]), (3, tables[1])):
                cursor.execute(
                    "INSERT INTO tables_slip (year, serial, kind, table_id, denominations, status,"
                    " void_reason, created_at, created_by_id)"
                    " VALUES (%s, %s, 'void', %s, '{}', 'issued', '', %s, %s)",
                    [year, serial, table.pk, timezone.now(), pete.pk],
                )
    finally:
        migrate()

    assert list(SlipSeries.objects.values_list("table", "year", "first", "last")) == [(None, year, 1, 3)]
    with transaction.atomic():  # the caller's transaction, as every service that issues a slip
        issued = [slip_issue(kind=Slip.Kind.VOID, table=table, by=pete).serial for table in tables]
    assert issued == [4, 4]
    report = {run.series.table_id: (run.used, run.missing) for run in slips_report(year)}
    assert report == {None: ([1, 3], [2]), tables[0].pk: ([4], []), tables[1].pk: ([4], [])}
