"""Hash chains: append a record to its table's (or casino's) chain, and read a chain back in order.

A record's hash is sha256(prev_hash + canonical JSON of its `chain_content()`), hex, where
canonical JSON has sorted keys and no spaces. One chain per table keeps tables from waiting on one
another: appending locks only that table's `Chain` row.
"""

from __future__ import annotations

import hashlib
import heapq
import json
from collections.abc import Callable, Iterator

from django.apps import apps
from django.db import router, transaction
from django.db.models import CharField, Expression, Value, prefetch_related_objects
from django.db.models.functions import Cast, Concat

from casino.compiled import Compiled, after_sync, inserts_sent, save_fields
from ledger.models import Chain, Chained

# Rows fetched per round trip while walking a chain: a chain is never held in memory whole.
WALK_CHUNK = 2000


class ChainError(RuntimeError):
    """A record cannot be chained as it is: a bug in its model, never a staff mistake."""


def canonical_json(content: dict) -> str:
    return json.dumps(content, sort_keys=True, separators=(",", ":"), allow_nan=False)


def record_hash(prev_hash: str, content: dict) -> str:
    return hashlib.sha256((prev_hash + canonical_json(content)).encode()).hexdigest()


def chain_name(*, table=None, casino=None) -> str:
    if (table is None) == (casino is None):
        raise ValueError("A chain belongs to a table or to a casino: give exactly one.")
    return table_chain_name(table.pk) if table is not None else f"casino:{casino.pk}"


TABLE_CHAIN = "table:"


def table_chain_name(table_id: int) -> str:
    return f"{TABLE_CHAIN}{table_id}"


def table_chain_named(table_id: Expression) -> Expression:
    """`table_chain_name` in SQL, for a table id the query itself finds (a subquery)."""
    return Concat(Value(TABLE_CHAIN), Cast(table_id, CharField()))


# Locked on every record a table writes: compiled once.
CHAINS_LOCKED = Chain.objects.select_for_update(no_key=True)
CHAIN_LOCKED = Compiled(lambda name: CHAINS_LOCKED.filter(name=name), str)


def chain_lock(*, table=None, casino=None) -> Chain:
    """The table's chain (or the casino's, for the cage), locked with SELECT ... FOR UPDATE until
    the surrounding database transaction ends; created on first use. A lock sent ahead with the
    step's first statements (`chain_lock_ahead`) is taken as it came back, by the first call.

    Race-safe: two first uses at once get the same row (get_or_create retries the read inside a
    savepoint when the unique name refuses the second insert). One round trip once it exists.
    """
    name = chain_name(table=table, casino=casino)
    chain = CHAIN_LOCKED.first(name)
    if chain is None:
        Chain.objects.get_or_create(name=name)
        chain = Chain.objects.select_for_update(no_key=True).get(name=name)
    return chain


def chain_lock_ahead(table_id: int) -> None:
    """Send the lock of table `table_id`'s chain now, in the step's `pipeline` (after the locks
    the step takes before it, so the lock order stays theirs), for its first `chain_lock`."""
    CHAIN_LOCKED.ahead(table_chain_name(table_id))


def chain_append(record: Chained, chain: Chain) -> Chained:
    """Give the unsaved `record` the next position of `chain` and its hash, and save it.

    `chain` comes from `chain_lock` in the same database transaction, and every record appended
    to it since went through this function (or `chain_extend`) with the same object, so its
    `length` and `head` are the chain's own: the lock keeps everyone else out until the
    transaction ends, and the records of one chain are appended one at a time. Callers that also
    post to the ledger take the chain lock first, as `ledger_post` does, so the lock order is
    always chain, then accounts. Everything `chain_content()` reads must be set before this call
    (postings included); the row as the database stored it is refused if its content no longer
    hashes the same (a value the database rounds or reformats would look like tampering the next
    day). Inside a `pipeline` that check, and the record's primary key, wait until the
    pipeline's statements come back.
    """
    chain_extend([record], chain)
    return record


def chain_extend(records: list[Chained], chain: Chain) -> None:
    """`chain_append` for several new records of one model at once, in order (the cards a hand
    sends to the discards unseen, the burns after a shuffle): each takes the next position and
    hashes the one before it, as if appended one by one, and they go in one `INSERT ... RETURNING`
    with one write of the chain's head."""
    for record in records:
        if not record._state.adding:
            label = record._meta.label
            raise ChainError(f"{label} {record.pk} is already saved; only new records are chained.")
    # No savepoint: a failure here is a bug that rolls back the caller's whole transaction anyway.
    with transaction.atomic(savepoint=False):
        head = chain.head
        for position, record in enumerate(records, chain.length + 1):
            record.chain, record.position, record.prev_hash = chain, position, head
            record.hash = head = record_hash(head, record.chain_content())
        stored = _stored(records)
        after_sync(lambda: _check_round_trip(records, stored()))
        chain.length, chain.head = records[-1].position, records[-1].hash
        save_fields(chain, ("length", "head"))


def _stored(records: list[Chained]) -> Callable[[], list[Chained]]:
    """Insert `records`; the function returned gives them as the database stored them, and gives
    `records` their primary keys.

    The stored rows come back from `INSERT ... RETURNING` every column (`inserts_sent`), through
    the same converters as a read, instead of a SELECT after the insert: the same proof that the
    database keeps what was hashed, without a round trip of its own (inside a `pipeline` they come
    back with the step's other writes, and are checked before the commit). What `chain_content()`
    reads beyond the row (a transaction's postings) is read at once, as `chain_queryset()`
    prefetches it, unless the record holds it as stored (`ledger_post` keeps the postings its own
    INSERT ... RETURNING gave back).
    """
    using = router.db_for_write(type(records[0]), instance=records[0])
    rows = inserts_sent(records, using=using)

    def fetch() -> list[Chained]:
        by_position = {row.position: row for row in rows()}  # in no particular order (SQLite)
        stored = [by_position[record.position] for record in records]
        for record, row in zip(records, stored, strict=True):
            record.pk = row.pk
            record._state.adding, record._state.db = False, using
        return stored

    lookups = type(records[0]).chain_queryset()._prefetch_related_lookups
    if not lookups:
        return fetch
    if len(records) > 1:
        raise ChainError(f"{records[0]._meta.label} reads related rows to hash: append them one at a time.")
    stored = fetch()[0]
    held = getattr(records[0], "_prefetched_objects_cache", {})
    stored._prefetched_objects_cache = {name: held[name] for name in lookups if name in held}
    prefetch_related_objects([stored], *[name for name in lookups if name not in held])
    return lambda: [stored]


def _check_round_trip(records: list[Chained], stored: list[Chained]) -> None:
    for record, row in zip(records, stored, strict=True):
        if record_hash(row.prev_hash, row.chain_content()) != record.hash:
            raise ChainError(
                f"{record._meta.label}.chain_content() changes when the row is read back from the database; "
                "hash only values the database stores exactly."
            )


def chained_models() -> list[type[Chained]]:
    """Every concrete model whose rows sit in the hash chains (ledger and tables alike)."""
    return [
        model
        for model in apps.get_models()
        if issubclass(model, Chained) and not model._meta.proxy and model._meta.managed
    ]


def chain_records(chain: Chain) -> Iterator[Chained]:
    """The chain's records of every chained model, in position order, streamed in chunks."""
    streams = [
        model.chain_queryset().filter(chain=chain).order_by("position").iterator(chunk_size=WALK_CHUNK)
        for model in chained_models()
    ]
    return heapq.merge(*streams, key=lambda record: record.position)


def chain_record_at(chain: Chain, position: int) -> Chained | None:
    """The record at `position` of `chain`, whichever model holds it."""
    for model in chained_models():
        record = model.chain_queryset().filter(chain=chain, position=position).first()
        if record is not None:
            return record
    return None
