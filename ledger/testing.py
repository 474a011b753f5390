"""Test support: let Django empty the database after a transactional test.

After a test that commits for real (`django_db(transaction=True)`, `transactional_db`,
`live_server`), Django flushes every table, which the append-only triggers refuse. The fixture below
empties the database first with the protection lifted and then puts the protection back, so the
flush that follows finds the protected tables empty (PostgreSQL lets TRUNCATE through on a table
with no rows at all). Use it from a conftest:

    from ledger.testing import ledger_flushable  # noqa: F401  (an autouse fixture)
"""

import pytest
from django.core.management.color import no_style
from django.db import DEFAULT_DB_ALIAS, connections, transaction
from pytest_django.fixtures import validate_django_db

from ledger.db import protection_drop_sql, protection_sql

TRANSACTIONAL_FIXTURES = {"transactional_db", "live_server", "django_db_reset_sequences"}


def flush_with_protection_lifted(using: str = DEFAULT_DB_ALIAS) -> None:
    """Empty every table, protected ones included, in one transaction. Needs the tables' owner.

    For test teardown only: in production nothing may empty the ledger, and the app's role could not.
    """
    connection = connections[using]
    q = connection.ops.quote_name
    with transaction.atomic(using=using), connection.cursor() as cursor:
        tables = connection.introspection.django_table_names(only_existing=True, include_views=False)
        statements = (
            protection_drop_sql(connection.vendor, q)
            + connection.ops.sql_flush(no_style(), tables, allow_cascade=True)
            + protection_sql(connection.vendor, q)
        )
        for statement in statements:
            cursor.execute(statement)


def is_transactional(request) -> bool:
    marker = request.node.get_closest_marker("django_db")
    if marker is not None:
        transactional, reset_sequences, *_ = validate_django_db(marker)
        if transactional or reset_sequences:
            return True
    return bool(TRANSACTIONAL_FIXTURES & set(request.fixturenames))


@pytest.fixture(autouse=True)
def ledger_flushable(request, django_db_blocker):
    """After a transactional test, empty the protected tables before Django's own flush."""
    if not is_transactional(request):
        yield
        return
    # Set up the database first, so that this teardown runs before Django's flush.
    request.getfixturevalue("transactional_db")
    yield
    with django_db_blocker.unblock():
        flush_with_protection_lifted()
