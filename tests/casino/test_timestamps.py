"""casino.timestamps: PostgreSQL's timestamps are read by psycopg's own loader, to the same values."""

import datetime

import pytest
from django.db import connection
from django.test import override_settings
from psycopg.pq import Format

from casino.models import AuditEvent
from casino.timestamps import PSYCOPG_LOADER, TIMESTAMPTZ, UTCLoader

pytestmark = [
    pytest.mark.django_db,
    pytest.mark.skipif(connection.vendor != "postgresql", reason="the loader is psycopg's"),
]

WRITTEN = datetime.datetime(2026, 11, 28, 23, 59, 58, 123456, tzinfo=datetime.UTC)


def read_back(sql: str, params=()):
    with connection.cursor() as cursor:
        cursor.execute(sql, params)
        return cursor.fetchone()[0], cursor.cursor.adapters.get_loader(TIMESTAMPTZ, Format.TEXT)


def test_a_timestamp_is_read_by_psycopgs_loader_as_django_reads_it():
    value, loader = read_back("SELECT %s::timestamptz", [WRITTEN])
    assert loader is UTCLoader and type(UTCLoader(TIMESTAMPTZ, connection.connection)) is PSYCOPG_LOADER
    assert value == WRITTEN and value.tzinfo is datetime.UTC


def test_a_model_timestamp_round_trips_to_the_microsecond():
    event = AuditEvent.objects.create(action=AuditEvent.Action.LOGIN, username="zed", at=WRITTEN)
    stored = AuditEvent.objects.get(pk=event.pk)
    assert stored.at == WRITTEN and stored.at.tzinfo is datetime.UTC
    assert stored.at.isoformat() == "2026-11-28T23:59:58.123456+00:00"


@override_settings(USE_TZ=False)
def test_without_time_zones_django_reads_its_own_naive_values():
    value, loader = read_back("SELECT %s::timestamptz", ["2026-11-28 23:59:58.123456+00"])
    assert loader is not UTCLoader  # Django's own, registered on the cursor
    assert value == WRITTEN.replace(tzinfo=None)
