"""What the database itself enforces about the ledger, in hand-written SQL for PostgreSQL and SQLite.

Migration operations:
- `AppendOnly(model_name)`: UPDATE and DELETE (and TRUNCATE on PostgreSQL) of the model's table
  fail. Any app's migration may use it (`ledger.db.AppendOnly("CardEvent")`).
- `UpdateOnly(model_name, fields)`: DELETE (and TRUNCATE) fail, and so does an UPDATE of any other
  column: a ledger account's balance moves, nothing else about it does.
- `BalancedPostings()`: a ledger transaction's postings sum to zero, at least two of them, and
  none is added once the transaction row exists.

On PostgreSQL the triggers are enabled ALWAYS, so `SET session_replication_role = replica` does
not skip them; only the tables' owner can switch them off, with ALTER TABLE, and the app runs as a
role that owns nothing (`manage.py db_app_role`). docs/ledger.md says why this is not
django-pgtrigger. Errors are raised as integrity violations on both vendors (Django's
`IntegrityError`).

Caution for SQLite: Django alters a SQLite table by rebuilding it, which drops its triggers. A later
migration that alters a protected table must apply these operations again after the change; the
`verify_ledger` command and the ledger tests report protection that has gone missing.
"""

from __future__ import annotations

from django.apps import apps
from django.db import connections
from django.db.migrations.operations.base import Operation


class _TriggerOperation(Operation):
    """A reversible operation that only emits SQL: the model state does not change."""

    reduces_to_sql = True
    reversible = True

    def state_forwards(self, app_label, state):
        pass

    def database_forwards(self, app_label, schema_editor, from_state, to_state):
        self._run(app_label, schema_editor, to_state, forwards=True)

    def database_backwards(self, app_label, schema_editor, from_state, to_state):
        self._run(app_label, schema_editor, from_state, forwards=False)

    def _run(self, app_label, schema_editor, state, *, forwards):
        models = self._models(app_label, state)
        if not all(self.allow_migrate_model(schema_editor.connection.alias, model) for model in models):
            return
        vendor = schema_editor.connection.vendor
        if vendor not in ("postgresql", "sqlite"):
            raise NotImplementedError(f"Ledger protection is written for PostgreSQL and SQLite, not {vendor}")
        tables = [model._meta for model in models]
        sql = (self.create_sql if forwards else self.drop_sql)(vendor, schema_editor.quote_name, *tables)
        for statement in sql:
            schema_editor.execute(statement, params=None)


class AppendOnly(_TriggerOperation):
    """Make `model_name`'s table refuse UPDATE, DELETE and (PostgreSQL) TRUNCATE."""

    def __init__(self, model_name: str):
        self.model_name = model_name

    def _models(self, app_label, state):
        return [state.apps.get_model(app_label, self.model_name)]

    def describe(self):
        return f"Make {self.model_name} append-only in the database"

    @property
    def migration_name_fragment(self):
        return f"{self.model_name.lower()}_append_only"

    @staticmethod
    def create_sql(vendor, q, opts):
        return append_only_sql(vendor, q, opts.db_table)

    @staticmethod
    def drop_sql(vendor, q, opts):
        return append_only_drop_sql(vendor, q, opts.db_table)


class UpdateOnly(_TriggerOperation):
    """Make `model_name`'s table refuse DELETE (and TRUNCATE on PostgreSQL) and any UPDATE of a
    column but those of `fields`: a ledger account's cached balance moves with every post, while
    what it is (kind, casino, table, the seat session or hand it belongs to, code, label, floor)
    is what every report reads its postings by. A column added to the table later is open to UPDATE
    until a migration applies this again."""

    def __init__(self, model_name: str, fields: list[str]):
        self.model_name, self.fields = model_name, list(fields)

    def deconstruct(self):
        return self.__class__.__name__, [self.model_name, self.fields], {}

    def _models(self, app_label, state):
        return [state.apps.get_model(app_label, self.model_name)]

    def describe(self):
        return f"Make {self.model_name} refuse DELETE and any UPDATE but of {', '.join(self.fields)}"

    @property
    def migration_name_fragment(self):
        return f"{self.model_name.lower()}_update_only"

    def create_sql(self, vendor, q, opts):
        return update_only_sql(vendor, q, opts, self.fields)

    def drop_sql(self, vendor, q, opts):
        return update_only_drop_sql(vendor, q, opts.db_table)


class BalancedPostings(_TriggerOperation):
    """Refuse ledger transactions whose postings do not sum to zero (see the module docstring)."""

    def __init__(self, transaction_model: str = "Transaction", posting_model: str = "Posting"):
        self.transaction_model, self.posting_model = transaction_model, posting_model

    def _models(self, app_label, state):
        return [state.apps.get_model(app_label, self.transaction_model),
                state.apps.get_model(app_label, self.posting_model)]

    def describe(self):
        return f"Make {self.posting_model} rows balance per {self.transaction_model} in the database"

    @property
    def migration_name_fragment(self):
        return "balanced_postings"

    @staticmethod
    def create_sql(vendor, q, txn_opts, posting_opts):
        return balanced_sql(vendor, q, _balance_names(txn_opts, posting_opts))

    @staticmethod
    def drop_sql(vendor, q, txn_opts, posting_opts):
        return balanced_drop_sql(vendor, q, _balance_names(txn_opts, posting_opts))


# --- Names -----------------------------------------------------------------------------------


def append_only_triggers(vendor: str, table: str) -> list[str]:
    if vendor == "postgresql":
        return [f"{table}_append_only", f"{table}_no_truncate"]
    return [f"{table}_no_update", f"{table}_no_delete"]


def update_only_triggers(vendor: str, table: str) -> list[str]:
    if vendor == "postgresql":
        return [f"{table}_fixed", f"{table}_no_truncate"]
    return [f"{table}_fixed", f"{table}_no_delete"]


def balanced_triggers(vendor: str, names: dict) -> dict[str, list[str]]:
    """Trigger names per table for the sum-zero rule."""
    txn, posting = names["txn"], names["posting"]
    if vendor == "postgresql":
        return {txn: [f"{txn}_balanced"], posting: [f"{posting}_balanced", f"{posting}_before_transaction"]}
    return {txn: [f"{txn}_balanced"], posting: [f"{posting}_before_transaction"]}


def _balance_names(txn_opts, posting_opts) -> dict:
    fk = next(f for f in posting_opts.concrete_fields if f.is_relation and f.related_model._meta is txn_opts)
    return {
        "txn": txn_opts.db_table,
        "txn_pk": txn_opts.pk.column,
        "posting": posting_opts.db_table,
        "fk": fk.column,
        "amount": posting_opts.get_field("amount").column,
    }


# --- SQL -------------------------------------------------------------------------------------

_REFUSAL = "is append-only: {op} refused. A mistake is corrected by a new record that reverses it."


def append_only_sql(vendor: str, q, table: str) -> list[str]:
    if vendor == "sqlite":
        no_update, no_delete = append_only_triggers(vendor, table)
        return [
            f"CREATE TRIGGER {q(no_update)} BEFORE UPDATE ON {q(table)} "
            f"BEGIN SELECT RAISE(ABORT, '{table} {_REFUSAL.format(op='UPDATE')}'); END",
            f"CREATE TRIGGER {q(no_delete)} BEFORE DELETE ON {q(table)} "
            f"BEGIN SELECT RAISE(ABORT, '{table} {_REFUSAL.format(op='DELETE')}'); END",
        ]
    row, truncate = append_only_triggers(vendor, table)
    return _refusing_sql(q, table, _REFUSAL.format(op="%"), row, "UPDATE OR DELETE", truncate)


def update_only_sql(vendor: str, q, opts, fields: list[str]) -> list[str]:
    table = opts.db_table
    fixed = ", ".join(q(f.column) for f in opts.concrete_fields if f.name not in fields)
    refusal = f"keeps its rows: only {', '.join(fields)} may change: {{op}} refused."
    row, whole = update_only_triggers(vendor, table)
    if vendor == "sqlite":
        return [
            f"CREATE TRIGGER {q(row)} BEFORE UPDATE OF {fixed} ON {q(table)} "
            f"BEGIN SELECT RAISE(ABORT, '{table} {refusal.format(op='UPDATE')}'); END",
            f"CREATE TRIGGER {q(whole)} BEFORE DELETE ON {q(table)} "
            f"BEGIN SELECT RAISE(ABORT, '{table} {refusal.format(op='DELETE')}'); END",
        ]
    # UPDATE OF: fires only for a statement that sets one of those columns, so the balance's own
    # update, on the hot path, runs no trigger at all.
    return _refusing_sql(q, table, refusal.format(op="%"), row, f"UPDATE OF {fixed} OR DELETE", whole)


def _refusing_sql(q, table: str, refusal: str, row: str, events: str, truncate: str) -> list[str]:
    """PostgreSQL: a function raising "<table> <refusal>" (its `%` the operation) on the row trigger
    `row` for `events` and the statement trigger `truncate`, both enabled ALWAYS."""
    function = q(f"{table}_refuse_change")
    return [
        # TRUNCATE of a table that has never held a row since its creation or its last truncation
        # (no pages at all, whatever any snapshot sees) destroys nothing, and Django's test runner
        # empties every table that way between tests; anything else is refused.
        f"""CREATE OR REPLACE FUNCTION {function}() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    IF TG_OP = 'TRUNCATE' AND pg_relation_size(TG_RELID) = 0 THEN
        RETURN NULL;
    END IF;
    RAISE EXCEPTION '% {refusal}', TG_TABLE_NAME, TG_OP USING ERRCODE = 'restrict_violation';
END
$$""",
        f"CREATE TRIGGER {q(row)} BEFORE {events} ON {q(table)} FOR EACH ROW EXECUTE FUNCTION {function}()",
        f"CREATE TRIGGER {q(truncate)} BEFORE TRUNCATE ON {q(table)} "
        f"FOR EACH STATEMENT EXECUTE FUNCTION {function}()",
        f"ALTER TABLE {q(table)} ENABLE ALWAYS TRIGGER {q(row)}",
        f"ALTER TABLE {q(table)} ENABLE ALWAYS TRIGGER {q(truncate)}",
    ]


def protect_again(table: str):
    """A migration's RunPython function for an append-only table it alters on SQLite: a rebuild of
    the table (most changes) drops its triggers, a column dropped in place (ALTER TABLE DROP COLUMN)
    keeps them, so whatever is left is dropped and the triggers are made again."""

    def run(apps, schema_editor):
        if schema_editor.connection.vendor == "sqlite":
            q = schema_editor.quote_name
            for statement in append_only_drop_sql("sqlite", q, table) + append_only_sql("sqlite", q, table):
                schema_editor.execute(statement)

    return run


def append_only_drop_sql(vendor: str, q, table: str) -> list[str]:
    return _dropping_sql(vendor, q, table, append_only_triggers(vendor, table))


def update_only_drop_sql(vendor: str, q, table: str) -> list[str]:
    return _dropping_sql(vendor, q, table, update_only_triggers(vendor, table))


def _dropping_sql(vendor: str, q, table: str, triggers: list[str]) -> list[str]:
    if vendor == "sqlite":
        return [f"DROP TRIGGER IF EXISTS {q(name)}" for name in triggers]
    return [f"DROP TRIGGER IF EXISTS {q(name)} ON {q(table)}" for name in triggers] + [
        f"DROP FUNCTION IF EXISTS {q(table + '_refuse_change')}()"
    ]


def balanced_sql(vendor: str, q, n: dict) -> list[str]:
    txn, posting, fk, amount, pk = (q(n["txn"]), q(n["posting"]), q(n["fk"]), q(n["amount"]), q(n["txn_pk"]))
    names = balanced_triggers(vendor, n)
    if vendor == "sqlite":
        # No deferred triggers in SQLite: postings go in first and the transaction row last; the row
        # is refused unless its postings are there and balance, and no posting may follow it.
        # Postings without a transaction row fail at commit on the deferred foreign key.
        (txn_balanced,), (posting_closed,) = names[n["txn"]], names[n["posting"]]
        return [
            f"CREATE TRIGGER {q(txn_balanced)} BEFORE INSERT ON {txn} "
            f"WHEN (SELECT count(*) FROM {posting} WHERE {fk} = NEW.{pk}) < 2 "
            f"OR (SELECT coalesce(sum({amount}), 0) FROM {posting} WHERE {fk} = NEW.{pk}) <> 0 "
            "BEGIN SELECT RAISE(ABORT, 'A ledger transaction must balance: its postings, at least two, "
            "must be inserted before it and sum to zero.'); END",
            f"CREATE TRIGGER {q(posting_closed)} BEFORE INSERT ON {posting} "
            f"WHEN EXISTS (SELECT 1 FROM {txn} WHERE {pk} = NEW.{fk}) "
            "BEGIN SELECT RAISE(ABORT, 'A posting cannot be added to a ledger transaction already "
            "recorded.'); END",
        ]
    (txn_balanced,), (posting_balanced, posting_closed) = names[n["txn"]], names[n["posting"]]
    check = q(n["txn"] + "_check_balanced")
    closed = q(n["posting"] + "_refuse_late")
    return [
        f"""CREATE OR REPLACE FUNCTION {check}() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
    txn_id {n["txn"]}.{n["txn_pk"]}%TYPE;
    lines bigint;
    total numeric;
BEGIN
    IF TG_TABLE_NAME = '{n["txn"]}' THEN txn_id := NEW.{pk}; ELSE txn_id := NEW.{fk}; END IF;
    SELECT count(*), coalesce(sum({amount}), 0) INTO lines, total FROM {posting} WHERE {fk} = txn_id;
    IF lines < 2 OR total <> 0 THEN
        RAISE EXCEPTION 'Ledger transaction % does not balance: % postings summing to %.',
            txn_id, lines, total USING ERRCODE = 'check_violation';
    END IF;
    RETURN NULL;
END
$$""",
        f"""CREATE OR REPLACE FUNCTION {closed}() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    IF EXISTS (SELECT 1 FROM {txn} WHERE {pk} = NEW.{fk}) THEN
        RAISE EXCEPTION 'A posting cannot be added to ledger transaction %, already recorded.', NEW.{fk}
            USING ERRCODE = 'check_violation';
    END IF;
    RETURN NEW;
END
$$""",
        # Checked at commit, once every posting and the transaction row are in.
        f"CREATE CONSTRAINT TRIGGER {q(txn_balanced)} AFTER INSERT ON {txn} "
        f"DEFERRABLE INITIALLY DEFERRED FOR EACH ROW EXECUTE FUNCTION {check}()",
        f"CREATE CONSTRAINT TRIGGER {q(posting_balanced)} AFTER INSERT ON {posting} "
        f"DEFERRABLE INITIALLY DEFERRED FOR EACH ROW EXECUTE FUNCTION {check}()",
        f"CREATE TRIGGER {q(posting_closed)} BEFORE INSERT ON {posting} "
        f"FOR EACH ROW EXECUTE FUNCTION {closed}()",
        f"ALTER TABLE {txn} ENABLE ALWAYS TRIGGER {q(txn_balanced)}",
        f"ALTER TABLE {posting} ENABLE ALWAYS TRIGGER {q(posting_balanced)}",
        f"ALTER TABLE {posting} ENABLE ALWAYS TRIGGER {q(posting_closed)}",
    ]


def balanced_drop_sql(vendor: str, q, n: dict) -> list[str]:
    sql = []
    for table, triggers in balanced_triggers(vendor, n).items():
        for name in triggers:
            on = f" ON {q(table)}" if vendor == "postgresql" else ""
            sql.append(f"DROP TRIGGER IF EXISTS {q(name)}{on}")
    if vendor == "postgresql":
        sql += [f"DROP FUNCTION IF EXISTS {q(n['txn'] + '_check_balanced')}()",
                f"DROP FUNCTION IF EXISTS {q(n['posting'] + '_refuse_late')}()"]
    return sql


# --- Introspection ---------------------------------------------------------------------------


def protected_models() -> list:
    """Every concrete model built on `ledger.models.AppendOnly`, in any app."""
    from ledger.models import AppendOnly as AppendOnlyModel

    return [
        model
        for model in apps.get_models()
        if issubclass(model, AppendOnlyModel) and not model._meta.proxy and model._meta.managed
    ]


def update_only_models() -> dict:
    """Each model whose table refuses DELETE and any UPDATE but of these fields (`UpdateOnly`)."""
    from ledger.models import Account

    return {Account: ["balance"]}


def expected_triggers(vendor: str) -> dict[str, list[str]]:
    """Trigger names each protected table must carry, by table."""
    from ledger.models import Posting, Transaction

    tables = [model._meta.db_table for model in protected_models()]
    expected = {table: append_only_triggers(vendor, table) for table in tables}
    for model in update_only_models():
        expected[model._meta.db_table] = update_only_triggers(vendor, model._meta.db_table)
    for table, names in balanced_triggers(vendor, _balance_names(Transaction._meta, Posting._meta)).items():
        expected[table] = expected.get(table, []) + names
    return expected


def missing_protection(using: str = "default") -> list[str]:
    """Sentences naming every expected trigger that is absent (or, on PostgreSQL, not ALWAYS)."""
    connection = connections[using]
    with connection.cursor() as cursor:
        if connection.vendor == "postgresql":
            cursor.execute(
                "SELECT c.relname, t.tgname FROM pg_trigger t JOIN pg_class c ON c.oid = t.tgrelid "
                "WHERE t.tgenabled = 'A' AND pg_table_is_visible(c.oid)"
            )
        else:
            cursor.execute("SELECT tbl_name, name FROM sqlite_master WHERE type = 'trigger'")
        present = set(cursor.fetchall())
    return [
        f"{table} lacks its trigger {name}"
        + (" (or it does not fire always)" if connection.vendor == "postgresql" else "")
        for table, names in expected_triggers(connection.vendor).items()
        for name in names
        if (table, name) not in present
    ]


# --- The application's database role (PostgreSQL) --------------------------------------------


def app_role_sql(role: str, using: str = "default") -> list[str]:
    """GRANTs for the app's role: SELECT and INSERT only on protected tables, DML on the rest.

    Run by the owner role after every migrate: a table created later is closed to the app role
    until then (nothing is granted by default, so a new protected table is never open to UPDATE).
    The migration record is the owner's: the app only reads it.
    """
    connection = connections[using]
    q = connection.ops.quote_name
    with connection.cursor() as cursor:
        cursor.execute("SELECT current_schema()")
        (schema,) = cursor.fetchone()
        tables = sorted(connection.introspection.table_names(cursor))
    protected = sorted(model._meta.db_table for model in protected_models())
    missing = [table for table in protected if table not in tables]
    if missing:
        raise LookupError(f"Tables {', '.join(missing)} do not exist yet: run migrate first.")
    read_only = {"django_migrations"}
    kept = {model._meta.db_table for model in update_only_models()}
    sql = [
        f"GRANT USAGE ON SCHEMA {q(schema)} TO {q(role)}",
        # From nothing each time, so a table that became protected loses UPDATE and DELETE.
        f"REVOKE ALL ON ALL TABLES IN SCHEMA {q(schema)} FROM {q(role)}",
        f"REVOKE ALL ON ALL SEQUENCES IN SCHEMA {q(schema)} FROM {q(role)}",
    ]
    for table in tables:
        if table in protected:
            privileges = "SELECT, INSERT"
        elif table in read_only:
            privileges = "SELECT"
        elif table in kept:
            privileges = "SELECT, INSERT, UPDATE"
        else:
            privileges = "SELECT, INSERT, UPDATE, DELETE"
        sql.append(f"GRANT {privileges} ON {q(table)} TO {q(role)}")
    sql.append(f"GRANT USAGE, SELECT ON ALL SEQUENCES IN SCHEMA {q(schema)} TO {q(role)}")
    return sql


def protection_sql(vendor: str, q) -> list[str]:
    """Every protection trigger, as the migrations create them (for tests that lift and restore)."""
    from ledger.models import Posting, Transaction

    sql = [s for model in protected_models() for s in append_only_sql(vendor, q, model._meta.db_table)]
    for model, fields in update_only_models().items():
        sql += update_only_sql(vendor, q, model._meta, fields)
    return sql + balanced_sql(vendor, q, _balance_names(Transaction._meta, Posting._meta))


def protection_drop_sql(vendor: str, q) -> list[str]:
    from ledger.models import Posting, Transaction

    sql = [s for model in protected_models() for s in append_only_drop_sql(vendor, q, model._meta.db_table)]
    for model in update_only_models():
        sql += update_only_drop_sql(vendor, q, model._meta.db_table)
    return sql + balanced_drop_sql(vendor, q, _balance_names(Transaction._meta, Posting._meta))
