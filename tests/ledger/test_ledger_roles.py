"""The app's PostgreSQL role: SELECT and INSERT only on the append-only tables."""

import io
import uuid

import psycopg
import pytest
from django.core.management import CommandError, call_command
from django.db import connection
from django.utils import timezone

from ledger.db import protected_models
from ledger.models import Chain, Posting

pytestmark = pytest.mark.django_db(transaction=True)  # the grants must be committed to be seen
PRIVILEGE = "SELECT has_table_privilege(current_user, %s, %s)"


@pytest.fixture
def app_role(on_postgresql):
    """A throwaway login role, dropped with its privileges afterwards."""
    role = f"ledger_app_test_{uuid.uuid4().hex[:8]}"
    with connection.cursor() as cursor:
        cursor.execute(f'CREATE ROLE "{role}" LOGIN')
    yield role
    with connection.cursor() as cursor:
        cursor.execute(f'DROP OWNED BY "{role}"')  # revokes its grants in this database
        cursor.execute(f'DROP ROLE "{role}"')


def connect_as(role):
    """A connection to the test database as `role` (trust authentication on 127.0.0.1)."""
    s = connection.settings_dict
    return psycopg.connect(host=s["HOST"] or "127.0.0.1", port=s["PORT"] or 5432, dbname=s["NAME"], user=role,
                           autocommit=True)


def test_the_app_role_may_read_and_insert_but_not_change_or_remove_the_records(
    app_role, open_table, tray, seat3, pete, buy_in, dana
):
    buy_in(table=open_table, player=seat3, amount=100, by=dana)
    out = io.StringIO()
    call_command("db_app_role", app_role, stdout=out)
    protected = sorted(model._meta.db_table for model in protected_models())
    assert {"ledger_transaction", "ledger_posting"} <= set(protected)
    chain = Chain.objects.get(name=f"table:{open_table.pk}")

    with connect_as(app_role) as app:
        # INSERT and SELECT work: a balanced transaction goes in, postings first
        txn = uuid.uuid4()
        with app.transaction():
            app.execute("INSERT INTO ledger_posting (transaction_id, account_id, amount, reason) "
                        "VALUES (%s, %s, -5, 'fill'), (%s, %s, 5, 'fill')", [txn, tray.pk, txn, seat3.pk])
            app.execute("INSERT INTO ledger_transaction (id, chain_id, position, prev_hash, hash, kind, "
                        "memo, casino_id, created_at, created_by_id, reason) "
                        "VALUES (%s, %s, 99, '', '', 'fill', 'as the app', %s, %s, %s, '')",
                        [txn, chain.pk, open_table.pit.casino_id, timezone.now(), pete.pk])
        for table in protected:
            app.execute(f'SELECT count(*) FROM "{table}"').fetchone()
            assert app.execute(PRIVILEGE, [table, "INSERT"]).fetchone()[0]

        # UPDATE, DELETE and TRUNCATE are denied on every protected table
        for table in protected:
            changes = (f'UPDATE "{table}" SET id = id', f'DELETE FROM "{table}"', f'TRUNCATE "{table}"')
            for statement in changes:
                with pytest.raises(psycopg.errors.InsufficientPrivilege, match="permission denied"):
                    app.execute(statement)

        # while the other tables are the app's to change; an account's balance only, never removed
        app.execute("UPDATE ledger_account SET balance = balance")
        app.execute("UPDATE ledger_chain SET length = length")
        with pytest.raises(psycopg.errors.InsufficientPrivilege, match="permission denied"):
            app.execute("DELETE FROM ledger_account")
        with pytest.raises(psycopg.errors.RestrictViolation, match="only balance may change: UPDATE refused"):
            app.execute("UPDATE ledger_account SET kind = 'player'")

    assert Posting.objects.filter(transaction_id=txn).count() == 2
    assert "SELECT and INSERT only on" in out.getvalue()


def test_print_only_shows_the_grants(app_role):
    out = io.StringIO()
    call_command("db_app_role", app_role, "--print", stdout=out)
    sql = out.getvalue()

    assert f'GRANT SELECT, INSERT ON "ledger_posting" TO "{app_role}";' in sql
    assert f'GRANT SELECT, INSERT, UPDATE ON "ledger_account" TO "{app_role}";' in sql
    assert f'GRANT SELECT, INSERT, UPDATE, DELETE ON "ledger_chain" TO "{app_role}";' in sql
    assert f'GRANT SELECT ON "django_migrations" TO "{app_role}";' in sql
    with connect_as(app_role) as app:  # nothing was granted
        assert not app.execute(PRIVILEGE, ["ledger_posting", "SELECT"]).fetchone()[0]


def test_a_superuser_or_missing_role_is_refused(on_postgresql):
    with pytest.raises(CommandError, match="superuser"):
        call_command("db_app_role", connection.settings_dict["USER"] or "postgres")
    with pytest.raises(CommandError, match="There is no role"):
        call_command("db_app_role", "nobody_at_all_here")


def test_roles_are_a_postgresql_matter():
    if connection.vendor == "postgresql":
        pytest.skip("SQLite only: on PostgreSQL the command runs")
    with pytest.raises(CommandError, match="PostgreSQL matter"):
        call_command("db_app_role", "pairs_app")
