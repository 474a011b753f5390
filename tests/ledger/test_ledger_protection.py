"""Append-only and sum-zero, held by the ORM and by the database on both vendors."""

import uuid

import pytest
from django.core import checks
from django.core.management import call_command
from django.db import IntegrityError, connection, models, transaction
from django.db.migrations.loader import MigrationLoader
from django.db.migrations.writer import MigrationWriter
from django.test.utils import isolate_apps
from django.utils import timezone

from ledger.checks import check_append_only, check_chained
from ledger.db import AppendOnly, missing_protection, protected_models
from ledger.models import AppendOnly as AppendOnlyModel
from ledger.models import AppendOnlyError, Chain, Chained, Posting, Transaction
from ledger.services import Line, ledger_post

PROTECTED = ["ledger_transaction", "ledger_posting"]


@pytest.fixture
def posted(open_table, seat3, dana, buy_in):
    return buy_in(table=open_table, player=seat3, amount=100, by=dana)


def refused(sql, params=()):
    """Run `sql` in a savepoint and return the database's error (None if it went through)."""
    try:
        with transaction.atomic(), connection.cursor() as cursor:
            cursor.execute(sql, params)
    except IntegrityError as error:
        return str(error)
    return None


# --- The ORM ----------------------------------------------------------------------------------


@pytest.mark.django_db
def test_the_orm_refuses_to_update_or_delete_a_transaction(posted):
    posted.memo = "edited"
    with pytest.raises(AppendOnlyError, match="ledger.Transaction records are append-only"):
        posted.save()
    with pytest.raises(AppendOnlyError, match="cannot be deleted"):
        posted.delete()
    with pytest.raises(AppendOnlyError, match="cannot be updated"):
        Transaction.objects.filter(pk=posted.pk).update(memo="edited")
    with pytest.raises(AppendOnlyError, match="cannot be deleted"):
        Transaction.objects.all().delete()


@pytest.mark.django_db
def test_the_orm_refuses_to_update_or_delete_a_posting(posted):
    posting = posted.postings.first()
    posting.amount += 1
    with pytest.raises(AppendOnlyError, match="ledger.Posting records are append-only"):
        posting.save()
    with pytest.raises(AppendOnlyError):
        posting.delete()
    with pytest.raises(AppendOnlyError):
        Posting.objects.bulk_update([posting], ["amount"])
    with pytest.raises(AppendOnlyError):
        Posting.objects.filter(transaction=posted).update(amount=1)
    with pytest.raises(AppendOnlyError):
        posted.postings.all().delete()
    assert Posting.objects.filter(transaction=posted).count() == 4


# --- Raw SQL ----------------------------------------------------------------------------------


@pytest.mark.django_db
@pytest.mark.parametrize("db_table", PROTECTED)
def test_raw_sql_cannot_update_or_delete_a_protected_table(posted, db_table):
    column = "memo" if db_table == "ledger_transaction" else "reason"

    assert "append-only: UPDATE refused" in refused(f"UPDATE {db_table} SET {column} = 'edited'")
    assert "append-only: DELETE refused" in refused(f"DELETE FROM {db_table}")


@pytest.mark.django_db(transaction=True)  # committed rows: TRUNCATE refuses pending trigger events
@pytest.mark.parametrize("db_table", PROTECTED)
def test_raw_sql_cannot_truncate_a_protected_table_on_postgresql(posted, db_table, on_postgresql):
    # CASCADE: ledger_transaction is referenced by postings; the triggers fire for both.
    assert "append-only: TRUNCATE refused" in refused(f"TRUNCATE {db_table} CASCADE")


@pytest.mark.django_db
@pytest.mark.parametrize(
    "change",
    ["kind = 'player'", "table_id = NULL", "ref = ref", "code = code || 'x'", "label = ''", "floor = 0"],
)
def test_an_accounts_balance_moves_but_nothing_else_about_it_and_it_stays(posted, change):
    # found trying the audit: a drop box account's kind set to a player's took the table's
    # expected drop to 0, and verify_ledger still passed
    account = posted.postings.first().account
    where = [account.pk]

    assert refused("UPDATE ledger_account SET balance = balance WHERE id = %s", where) is None
    assert "ledger_account keeps its rows: only balance may change: UPDATE refused" in refused(
        f"UPDATE ledger_account SET {change} WHERE id = %s", where
    )
    removed = refused("DELETE FROM ledger_account WHERE id = %s", where)
    assert "only balance may change: DELETE refused" in removed


@pytest.mark.django_db
def test_a_session_setting_cannot_switch_the_triggers_off_on_postgresql(posted, on_postgresql):
    with transaction.atomic(), connection.cursor() as cursor:
        cursor.execute("SET LOCAL session_replication_role = replica")
        with pytest.raises(IntegrityError, match="append-only"), transaction.atomic():
            cursor.execute("UPDATE ledger_posting SET amount = amount * 2")


@pytest.mark.django_db
def test_every_append_only_model_carries_its_triggers():
    assert {model._meta.db_table for model in protected_models()} >= set(PROTECTED)
    assert missing_protection() == []


@pytest.mark.django_db
@pytest.mark.parametrize("db_table", ["ledger_posting", "ledger_account"])
def test_a_trigger_gone_is_reported(protection_lifted, db_table):
    with protection_lifted(db_table):
        missing = missing_protection()
    assert any(problem.startswith(f"{db_table} lacks its trigger") for problem in missing)
    assert missing_protection() == []


# --- Sum zero at the database -----------------------------------------------------------------


POSTING_INSERT = (
    "INSERT INTO ledger_posting (transaction_id, account_id, amount, reason) VALUES (%s, %s, %s, '')"
)


def raw_transaction(*, chain, casino, user, amounts, account_ids):
    """Insert postings, then their transaction, by hand: what a bulk script might try."""
    txn_id = Transaction._meta.pk.get_db_prep_value(uuid.uuid4(), connection)
    with connection.cursor() as cursor:
        for account_id, amount in zip(account_ids, amounts, strict=True):
            cursor.execute(POSTING_INSERT, [txn_id, account_id, amount])
        cursor.execute(
            "INSERT INTO ledger_transaction (id, chain_id, position, prev_hash, hash, kind, memo, casino_id, "
            "created_at, created_by_id, reason) VALUES (%s, %s, 999, '', '', 'bet', 'raw', %s, %s, %s, '')",
            [txn_id, chain.pk, casino.pk, timezone.now(), user.pk],
        )
    return txn_id


@pytest.mark.django_db(transaction=True)
@pytest.mark.parametrize("amounts", [(30, -20), (30,), (30, -30, 5)])
def test_raw_sql_cannot_commit_a_transaction_that_does_not_balance(casino, table, tray, seat3, pete, amounts):
    chain = Chain.objects.create(name="raw")
    accounts = [tray.pk, seat3.pk, tray.pk][: len(amounts)]

    # SQLite refuses the transaction row as it arrives; PostgreSQL refuses the commit.
    with pytest.raises(IntegrityError, match="balance"), transaction.atomic():
        raw_transaction(chain=chain, casino=casino, user=pete, amounts=amounts, account_ids=accounts)

    assert not Transaction.objects.exists() and not Posting.objects.exists()


@pytest.mark.django_db(transaction=True)
def test_raw_sql_can_commit_a_balanced_transaction_but_add_no_posting_to_it_later(casino, tray, seat3, pete):
    chain = Chain.objects.create(name="raw")
    with transaction.atomic():
        txn_id = raw_transaction(chain=chain, casino=casino, user=pete, amounts=(30, -30),
                                 account_ids=[tray.pk, seat3.pk])
    assert Posting.objects.count() == 2

    with pytest.raises(IntegrityError, match="already recorded"), transaction.atomic():
        with connection.cursor() as cursor:
            cursor.execute(POSTING_INSERT, [txn_id, tray.pk, 5])
            cursor.execute(POSTING_INSERT, [txn_id, seat3.pk, -5])
    assert Posting.objects.count() == 2


@pytest.mark.django_db(transaction=True)
def test_the_service_posts_under_the_database_checks(open_table, tray, seat3, dana):
    ledger_post(lines=[Line(tray, -10, "payout"), Line(seat3, 10, "payout")], kind="settlement", memo="",
                by=dana, table=open_table)
    assert Posting.objects.count() == 4


# --- The migration operation ------------------------------------------------------------------


def test_the_operation_is_written_into_migrations_by_its_import_path():
    text, imports = MigrationWriter.serialize(AppendOnly("CardEvent"))

    assert imports == {"import ledger.db"}
    namespace = {}
    exec("\n".join(imports) + f"\noperation = {text}", namespace)
    assert namespace["operation"].model_name == "CardEvent"


@pytest.mark.django_db(transaction=True)
def test_the_operation_is_reversible():
    state = MigrationLoader(connection).project_state()
    operation = AppendOnly("Posting")

    with connection.schema_editor() as editor:
        operation.database_backwards("ledger", editor, state, state)
    assert any(problem.startswith("ledger_posting lacks") for problem in missing_protection())

    with connection.schema_editor() as editor:
        operation.database_forwards("ledger", editor, state, state)
    assert missing_protection() == []


# --- System checks: models built on Chained and AppendOnly elsewhere --------------------------


@pytest.mark.django_db
def test_the_project_passes_the_ledger_checks():
    call_command("check")


@isolate_apps("ledger")
def test_a_chained_model_must_keep_its_position_constraint_and_hash_no_auto_time():
    class Careless(Chained, AppendOnlyModel):
        created_at = models.DateTimeField(auto_now_add=True)

        class Meta:  # not inheriting Chained.Meta: the unique (chain, position) is lost
            app_label = "ledger"

    assert {problem.id for problem in check_chained(Careless)} == {"ledger.E001", "ledger.E002"}


@isolate_apps("ledger")
def test_an_append_only_model_must_refuse_bulk_writes_and_cascades():
    class Parent(models.Model):  # noqa: DJ008
        class Meta:
            app_label = "ledger"

    class Careless(AppendOnlyModel):
        parent = models.ForeignKey(Parent, on_delete=models.CASCADE)
        objects = models.Manager()

        class Meta:
            app_label = "ledger"

    problems = check_append_only(Careless)
    assert {problem.id for problem in problems} == {"ledger.E003", "ledger.E004"}
    assert all(isinstance(problem, checks.Error) for problem in problems)
