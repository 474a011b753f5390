"""The hot path's SQL, built once per process instead of on every request (issue 17).

Django builds and compiles a queryset's SQL afresh each time it runs: for a table action that was a
third of its CPU, more than the database's own work. The statements an action sends on every
request have a fixed shape and differ only in a few ids, so they are compiled once, on first use
in each thread's connection (the SQL depends on the database's vendor), and run again with the new
ids; rows become model instances exactly as the ORM makes them (the same converters,
`Model.from_db`, `select_related` populated). A statement whose text never changes is also one
that psycopg prepares on the server once it has run a few times (`DB_PREPARE_THRESHOLD`).

- `Compiled`: a queryset written once as a function of its ids, run with new ids.
- `pipeline`: queries sent together, one round trip for several (PostgreSQL); `Compiled.ahead`
  sends a step's first reads with its first statement.
- `insert_returning`: a new row inserted, and read back as stored, in one statement
  (`insert_sent`: read back later, in a `pipeline`; `after_sync`: checked when it is).
- `save_fields`: `instance.save(update_fields=...)` without the ORM's per-call work (no model
  whose fields are saved so listens to `pre_save` or `post_save`, and none has an `auto_now`).
"""

from __future__ import annotations

import inspect
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from functools import cache, partial

from django.db import DEFAULT_DB_ALIAS, connections
from django.db.backends.utils import CursorWrapper
from django.db.models import Field, Model, QuerySet
from django.db.models.base import ModelState
from django.db.models.fields.related_descriptors import ForeignKeyDeferredAttribute
from django.db.models.query import ModelIterable, ValuesListIterable, get_related_populators
from django.db.models.query_utils import DeferredAttribute
from django.db.models.signals import post_init, pre_init

# Stand-ins for the ids while the SQL is compiled: values no real id or name takes, found again
# among the compiled statement's parameters to mark where each id goes. Negative (ids never are)
# and within a 32-bit integer column's range, where Django would otherwise drop the condition.
_INT_MARK = -1_731_000_000
_STR_MARK = "\x1fcompiled-parameter-"


class Compiled:
    """`build(*ids)` (a queryset of model instances, `select_related` and `select_for_update`
    allowed, or a `values_list` of tuples in the order of its SELECT) compiled once, then run with
    new ids: `.all(*ids)`, `.first(*ids)`.

    `types` are the ids' types, int (the default) or str. Each id must reach the SQL as a
    parameter of its own, unchanged (a primary key, a foreign key, a name): `build` may not test
    or compute on it (an id compared by `<` or `>` with a column whose range Django checks goes in
    as `Value(id)`, or the stand-in below that range drops the condition). A shape that depends on
    the data (a superuser's query differs) is two `Compiled`. A `build(*ids)` taking any number
    of ids (`code__in=ids`, `types` their one type) is compiled once for each number of ids; none
    reads nothing. Compiled on first use in a transaction, as `select_for_update` requires.
    """

    def __init__(self, build: Callable[..., QuerySet], *types: type):
        parameters = inspect.signature(build).parameters.values()
        self.build = build
        self.many = any(parameter.kind is parameter.VAR_POSITIONAL for parameter in parameters)
        self.types = types or (int,) * (1 if self.many else len(parameters))

    def all(self, *ids, using: str = DEFAULT_DB_ALIAS) -> list[Model]:
        return self.send(*ids, using=using)()

    def send(self, *ids, using: str = DEFAULT_DB_ALIAS) -> Callable[[], list[Model]]:
        """Send the query and return what fetches its instances: inside `pipeline`, the queries
        sent before the first fetch travel to the database and back together. The same query
        sent `ahead` in this pipeline is not sent again: its answer is taken, once."""
        if self.many and not ids:
            return list
        state = connections[using].__dict__.get("pipeline")
        if state and (self, ids) in state.ahead:
            return state.ahead.pop((self, ids))
        return self._send(ids, using)

    def ahead(self, *ids, using: str = DEFAULT_DB_ALIAS) -> None:
        """Send the query now, inside a `pipeline` (with a step's first statements, in one round
        trip), for the step's own `send`, `all` or `first` of the same ids to take its answer
        later; an answer not taken is dropped when the pipeline ends. For a read the step makes
        first thing, before it writes: the answer is as the database stood when it was sent."""
        state = connections[using].__dict__.get("pipeline")
        if state is None:
            raise RuntimeError("A query is sent ahead only inside a pipeline.")
        state.ahead[(self, ids)] = self._send(ids, using)

    def kept(self, *ids, using: str = DEFAULT_DB_ALIAS) -> list[Model]:
        """The answer of the query sent `ahead` with `ids`, fetched now (the pipeline's statements
        sent so far come back with it) and kept for the step's own `send`, `all` or `first`: for a
        look at the rows before the step reads them (its permission, what names its next lock)."""
        state = connections[using].__dict__["pipeline"]
        found = state.ahead[(self, ids)]()
        state.ahead[(self, ids)] = lambda: found
        return found

    def moved(self, ids: tuple, other: Compiled, other_ids: tuple, using: str = DEFAULT_DB_ALIAS) -> None:
        """The answer of this query sent `ahead` with `ids` is taken by `other`'s read of
        `other_ids` instead: the same rows, found another way, sent before what names them for
        `other` had come back."""
        ahead = connections[using].__dict__["pipeline"].ahead
        ahead[(other, other_ids)] = ahead.pop((self, ids))

    def _send(self, ids: tuple, using: str) -> Callable[[], list[Model]]:
        plan = self._plan(using, len(ids))
        rows = sent(plan.connection, plan.sql, plan.params(ids), lambda cursor: cursor.fetchall())
        return lambda: plan.instances(rows())

    def first(self, *ids, using: str = DEFAULT_DB_ALIAS) -> Model | None:
        found = self.all(*ids, using=using)
        return found[0] if found else None

    def _plan(self, using: str, count: int) -> _Plan:
        connection = connections[using]
        plans = connection.__dict__.setdefault("compiled_plans", {})
        key = (self, count if self.many else None)
        if key not in plans:
            types = self.types * count if self.many else self.types
            plans[key] = _Plan(self.build, types, connection, using)
        return plans[key]


class _Plan:
    """A `Compiled` queryset's SQL for one connection, where its ids go, and how rows become
    instances (Django's `ModelIterable`, without the queryset)."""

    def __init__(self, build: Callable[..., QuerySet], types: tuple[type, ...], connection, using: str):
        marks = [_mark(kind, index) for index, kind in enumerate(types)]
        queryset = build(*marks).using(using)
        # An iterable class that changes the instances it yields says how (`finish`); no other runs.
        iterable = queryset._iterable_class
        self.rows = iterable is ValuesListIterable
        if iterable not in (ModelIterable, ValuesListIterable) and not hasattr(iterable, "finish"):
            raise ValueError(f"{build}: a compiled query makes model instances or tuples, not {iterable}.")
        self.finish = getattr(iterable, "finish", None)
        compiler = queryset.query.get_compiler(using=using)
        self.connection, self.using, self.compiler = connection, using, compiler
        self.sql, params = compiler.as_sql()
        self.template = list(params)
        self.slots = [[at for at, value in enumerate(params) if value == mark] for mark in marks]
        if not all(self.slots):
            raise ValueError(f"{build} does not pass each id to the SQL as a parameter.")
        select, klass_info = compiler.select, compiler.klass_info
        self.converters = compiler.get_converters([column[0] for column in select])
        if self.rows:
            return
        fields = klass_info["select_fields"]
        self.model, self.start, self.end = klass_info["model"], fields[0], fields[-1] + 1
        self.names = [column[0].target.attname for column in select[self.start : self.end]]
        self.populators = get_related_populators(klass_info, select, using)
        self.annotations = compiler.annotation_col_map

    def params(self, ids: tuple) -> list:
        params = list(self.template)
        for slots, value in zip(self.slots, ids, strict=True):
            for at in slots:
                params[at] = value
        return params

    def instances(self, rows: list) -> list[Model] | list[tuple]:
        if self.converters:
            rows = self.compiler.apply_converters(rows, self.converters)
        if self.rows:
            return [tuple(row) for row in rows]
        found, make = [], instance_maker(self.model, self.using, self.names)
        for row in rows:
            instance = make(row[self.start : self.end])
            for populator in self.populators:
                populator.populate(row, instance)
            for name, at in self.annotations.items():
                setattr(instance, name, row[at])
            found.append(self.finish(instance) if self.finish else instance)
        return found


class _Pipeline:
    """A pipeline's own state: the checks to run when its statements have come back, the answers
    of queries sent `ahead` and not yet taken, and the UPDATEs held to go as one statement."""

    def __init__(self, connection):
        self.connection = connection
        self.after: list[Callable[[], None]] = []
        self.ahead: dict[tuple, Callable[[], list]] = {}
        self.held: list[tuple[str, list]] = []
        self.held_rows: set[tuple] = set()
        # Only a pipeline inside a transaction holds updates: a transaction begun inside one
        # would commit before what it holds was sent.
        self.holds = connection.vendor == "postgresql" and connection.in_atomic_block

    def hold(self, sql: str, params: list, rows: set[tuple]) -> None:
        """Hold an UPDATE of `rows` ((model, pk) each) whose row count nobody reads, to go in one
        statement with the UPDATEs that follow it: PostgreSQL then reads, plans and answers one
        statement where it did each (a card's chain head, shoe and hand: three in one). Held only
        until anything else is sent (`sending`) or the pipeline ends, so statements still run in
        the order sent."""
        if rows & self.held_rows:  # PostgreSQL leaves which of two updates of a row in one statement wins
            self.flush()
        self.held.append((sql, params))
        self.held_rows |= rows

    def flush(self) -> None:
        """Send the UPDATEs held, as one statement: each but the last in a `WITH` of its own,
        which PostgreSQL runs once, to completion, though the statement does not read it."""
        if not self.held:
            return
        held, self.held, self.held_rows = self.held, [], set()
        *before, (sql, params) = held
        if before:
            sql = "WITH " + ", ".join(f"w{at} AS ({text})" for at, (text, _) in enumerate(before)) + " " + sql
            # the same str each time, for psycopg to keep the statement's adapters (`_cursor`)
            sql = self.connection.__dict__.setdefault("combined_updates", {}).setdefault(sql, sql)
            params = [value for _, values in before for value in values] + params
        _write(self.connection, sql, params)

    def sending(self, execute, sql, params, many, context):
        """Django's execute wrapper for as long as the pipeline lasts: what is held goes first."""
        self.flush()
        return execute(sql, params, many, context)


@contextmanager
def pipeline(using: str = DEFAULT_DB_ALIAS) -> Iterator[None]:
    """Statements sent inside go to PostgreSQL together and their answers come back together: one
    round trip (psycopg's pipeline mode) where each would take its own. They run in the order
    sent, as they would one by one; elsewhere (SQLite) they do just that.

    A read (`Compiled.send`, then its fetch) waits only for what was sent before it; a write whose
    answer nobody reads (`save_fields`) does not wait at all, and the statements still waiting
    come back when the pipeline ends. Such UPDATEs one after the other go as one statement
    (`_Pipeline.hold`). A check of a write's result (`after_sync`) runs then, on
    every database alike. Re-entrant: a pipeline inside another is that one (psycopg would wait
    for the outer one's statements on entering it)."""
    connection = connections[using]
    if "pipeline" in connection.__dict__:
        yield
        return
    connection.ensure_connection()
    state = connection.__dict__["pipeline"] = _Pipeline(connection)
    try:
        if connection.vendor != "postgresql":
            yield
        else:
            # psycopg's own errors as Django's, as for any query (a database that went away
            # mid-pipeline is an OperationalError that casino.unavailable answers with a 503), and
            # the connection marked for Django to check before it is used again.
            with connection.wrap_database_errors, connection.connection.pipeline():
                with connection.execute_wrapper(state.sending):
                    yield
                state.flush()
    finally:
        del connection.__dict__["pipeline"]
    for check in state.after:
        check()


def after_sync(check: Callable[[], None], using: str = DEFAULT_DB_ALIAS) -> None:
    """Run `check` (it reads the result of a statement sent in this `pipeline`) once the
    pipeline's statements have all come back, before anything else is sent; at once outside one.
    A check that raises leaves the transaction to roll back, as if the statement had failed."""
    state = connections[using].__dict__.get("pipeline")
    if state is None:
        check()
    else:
        state.after.append(check)


def sent(connection, sql: str, params: list, read: Callable[[CursorWrapper], object]) -> Callable[[], object]:
    """Execute `sql` on `connection` (one of `connections`, not Django's proxy for the default: its
    cursors are kept on it, `_cursor`); the function returned gives `read(cursor)`. In a PostgreSQL
    `pipeline` the cursor is read when that is called; elsewhere at once (SQLite refuses a savepoint
    while a statement's rows are still being read, and executes each statement as it comes anyway)."""
    cursor = _cursor(connection, sql)
    cursor.execute(sql, params)

    def fetch():
        found = read(cursor)
        _release(connection, sql, cursor)
        return found

    if connection.vendor != "postgresql":
        found = fetch()
        return lambda: found
    return fetch


def _write(connection, sql: str, params: list) -> None:
    """Execute `sql`, whose result nobody reads."""
    cursor = _cursor(connection, sql)
    cursor.execute(sql, params)
    _release(connection, sql, cursor)


def _cursor(connection, sql: str) -> CursorWrapper:
    """A cursor for `sql`, as `connection.cursor()` makes one: the same one each time the same
    statement is sent again on the same connection, once its last answer has been read.

    psycopg keeps what converts a statement's parameters and its result's columns on the cursor,
    for as long as the cursor runs the same statement (the same `str`); a new cursor builds them
    afresh (and copies the connection's adapters): 40 to 50 µs a statement, measured
    (docs/performance.md, "Issue 17, session 18")."""
    connection.close_if_health_check_failed()
    connection.ensure_connection()
    pool = connection.__dict__.get("cursors")
    if pool is None or pool[0] is not connection.connection:
        pool = connection.__dict__["cursors"] = (connection.connection, {})
    free = pool[1].get(sql)
    if not free:
        return connection.cursor()
    connection.validate_thread_sharing()
    raw = free.pop()
    return connection.make_debug_cursor(raw) if connection.queries_logged else connection.make_cursor(raw)


def _release(connection, sql: str, cursor: CursorWrapper) -> None:
    """`cursor`, whose answer has been read, to run `sql` again (`_cursor`)."""
    pool = connection.__dict__.get("cursors")
    if pool is not None and pool[0] is connection.connection:
        pool[1].setdefault(sql, []).append(cursor.cursor)


def instance_maker(model: type[Model], using: str, names: list[str]) -> Callable[[Sequence], Model]:
    """What makes the instance Django makes of a row read (`model.from_db(using, names, values)`),
    without `Model.__init__`'s work for each field where that work only stores the value: decided
    once for a statement's rows.

    `Model.__init__` sets each field through its descriptor, which for a plain field or a foreign
    key's id stores the value in the instance's `__dict__` (a new instance has no related object
    cached to clear), and sends `pre_init` and `post_init`. No model here has receivers of those
    or a descriptor of its own; one that had would go through `from_db` as before. A card record:
    5.3 to 6.7 µs through `from_db`, 2.3 µs here (docs/performance.md, "Issue 17, session 16")."""
    if not _plain(model) or pre_init.has_listeners(model) or post_init.has_listeners(model):
        return partial(model.from_db, using, names)

    def make(values: Sequence) -> Model:
        instance = model.__new__(model)
        instance.__dict__.update(zip(names, values, strict=True))
        state = instance._state = ModelState()
        state.adding, state.db = False, using
        return instance

    return make


@cache
def _plain(model: type[Model]) -> bool:
    """Whether `model` makes its instances as `Model` does, and stores each field as it is set."""
    stores = (DeferredAttribute, ForeignKeyDeferredAttribute)
    return (
        model.__init__ is Model.__init__
        and model.from_db.__func__ is Model.from_db.__func__
        and all(type(getattr(model, field.attname)) in stores for field in model._meta.concrete_fields)
    )


def _mark(kind: type, index: int):
    if kind is int:
        return _INT_MARK - index
    if kind is str:
        return f"{_STR_MARK}{index}"
    raise TypeError(f"A compiled query's ids are int or str, not {kind.__name__}.")


def save_fields(instance: Model, fields: tuple[str, ...], using: str = DEFAULT_DB_ALIAS) -> None:
    """Write `fields` of the saved `instance` to its row, as `save(update_fields=fields)` does."""
    connection = connections[using]
    model = type(instance)
    statements = connection.__dict__.setdefault("compiled_updates", {})
    key = (model, fields)
    if key not in statements:
        statements[key] = _update_sql(model, fields, connection)
    sql, columns = statements[key]
    values = [column.get_db_prep_save(getattr(instance, column.attname), connection) for column in columns]
    _update(connection, sql, [*values, instance.pk], {(model, instance.pk)})


def save_field_each(instances: list[Model], field: str, using: str = DEFAULT_DB_ALIAS) -> None:
    """Write `field` of each saved instance (of one model) to its row, in one statement:
    `save_fields` for several rows (`UPDATE ... SET field = CASE pk WHEN ... END WHERE pk IN ...`,
    compiled once per number of rows), where one UPDATE each would cost a statement each."""
    if len(instances) == 1:
        save_fields(instances[0], (field,), using)
        return
    connection = connections[using]
    model = type(instances[0])
    statements = connection.__dict__.setdefault("compiled_updates", {})
    key = (model, field, len(instances))
    if key not in statements:
        statements[key] = _update_each_sql(model, field, len(instances), connection)
    sql, column = statements[key]
    pks = [instance.pk for instance in instances]
    whens = [v for instance in instances
             for v in (instance.pk, column.get_db_prep_save(getattr(instance, column.attname), connection))]
    _update(connection, sql, [*whens, *pks], {(model, pk) for pk in pks})


def _update(connection, sql: str, params: list, rows: set[tuple]) -> None:
    """Run an UPDATE of `rows` ((model, pk) each) whose row count nobody reads: in a PostgreSQL
    `pipeline` inside a transaction, held to go in one statement with the UPDATEs that follow it
    (`_Pipeline.hold`)."""
    state = connection.__dict__.get("pipeline")
    if state is not None and state.holds:
        state.hold(sql, params, rows)
        return
    _write(connection, sql, params)


def _update_each_sql(model: type[Model], field: str, count: int, connection) -> tuple[str, Field]:
    meta, quoted = model._meta, connection.ops.quote_name
    column, pk = meta.get_field(field), quoted(meta.pk.column)
    # The new values cast to the column's type: PostgreSQL would take a parameter in a CASE as text.
    whens = " ".join([f"WHEN %s THEN CAST(%s AS {column.db_type(connection)})"] * count)
    where = ", ".join(["%s"] * count)
    table, name = quoted(meta.db_table), quoted(column.column)
    return f"UPDATE {table} SET {name} = CASE {pk} {whens} END WHERE {pk} IN ({where})", column


def _update_sql(model: type[Model], fields: tuple[str, ...], connection) -> tuple[str, list]:
    meta, quoted = model._meta, connection.ops.quote_name
    columns = [meta.get_field(name) for name in fields]
    assignments = ", ".join(f"{quoted(column.column)} = %s" for column in columns)
    return f"UPDATE {quoted(meta.db_table)} SET {assignments} WHERE {quoted(meta.pk.column)} = %s", columns


def insert_returning(instance: Model, using: str = DEFAULT_DB_ALIAS) -> Model:
    """Insert the new `instance` as `save(force_insert=True)` does (each field's `pre_save`; no
    signal is sent) and return the row as the database stored it (`INSERT ... RETURNING` every
    column, through the converters a query uses). `instance` gets its primary key."""
    return insert_sent(instance, using)()


def insert_sent(instance: Model, using: str = DEFAULT_DB_ALIAS) -> Callable[[], Model]:
    """`insert_returning`, the insert sent now (inside `pipeline`, with what follows it) and the
    row read back by the function returned, which gives `instance` its primary key."""
    rows = _insert(type(instance), instance.pk is not None, using).send([instance])

    def fetch() -> Model:
        row = rows()[0]
        instance.pk = row.pk
        instance._state.adding, instance._state.db = False, using
        return row

    return fetch


def inserts_sent(instances: list[Model], using: str = DEFAULT_DB_ALIAS) -> Callable[[], list[Model]]:
    """New rows of one model (primary keys set by the database, or all given) inserted in one
    statement, sent now; the function returned gives the rows as stored, in no particular order
    (SQLite promises none), and leaves `instances` unsaved."""
    return _insert(type(instances[0]), instances[0].pk is not None, using).send(instances)


def _insert(model: type[Model], with_pk: bool, using: str) -> _Insert:
    connection = connections[using]
    statements = connection.__dict__.setdefault("compiled_inserts", {})
    if (model, with_pk) not in statements:
        statements[model, with_pk] = _Insert(model, connection, using, with_pk=with_pk)
    return statements[model, with_pk]


class _Insert:
    """A model's `INSERT ... RETURNING` for one connection (of one row or several), and the
    converters of what it returns."""

    def __init__(self, model: type[Model], connection, using: str, *, with_pk: bool):
        meta, quoted = model._meta, connection.ops.quote_name
        self.model, self.connection, self.using = model, connection, using
        written = [f for f in meta.concrete_fields if not f.generated]
        self.fields = [f for f in written if with_pk or f is not meta.auto_field]
        if any(hasattr(field, "get_placeholder") for field in self.fields):
            raise TypeError(f"{meta.label} has a field that needs its own placeholder; save it with the ORM.")
        self.returning = list(meta.concrete_fields)
        returning, _ = connection.ops.return_insert_columns(self.returning)
        columns = ", ".join(quoted(field.column) for field in self.fields)
        self.into, self.returning_sql = f"INSERT INTO {quoted(meta.db_table)} ({columns}) VALUES", returning
        self.row = "(" + ", ".join(["%s"] * len(self.fields)) + ")"
        self.sql: dict[int, str] = {}  # by number of rows
        self.converters = []
        for at, field in enumerate(self.returning):
            column = field.get_col(meta.db_table)
            found = connection.ops.get_db_converters(column) + column.get_db_converters(connection)
            if found:
                self.converters.append((at, column, found))
        self.names = [field.attname for field in self.returning]

    def send(self, instances: list[Model]) -> Callable[[], list[Model]]:
        count = len(instances)
        if count not in self.sql:
            self.sql[count] = f"{self.into} {', '.join([self.row] * count)} {self.returning_sql}"
        values = [
            f.get_db_prep_save(f.pre_save(instance, True), self.connection)
            for instance in instances
            for f in self.fields
        ]
        stored = sent(self.connection, self.sql[count], values, lambda cursor: cursor.fetchall())
        return lambda: self._stored(stored())

    def _stored(self, rows: list) -> list[Model]:
        make = instance_maker(self.model, self.using, self.names)
        found = []
        for row in map(list, rows):
            for at, column, converters in self.converters:
                for converter in converters:
                    row[at] = converter(row[at], column, self.connection)
            found.append(make(row))
        return found
