"""Hash chains: append a record to its table's (or casino's) chain, and read a chain back in order.

A record's hash is sha256(prev_hash + canonical JSON of its `chain_content()`), hex, where
canonical JSON has sorted keys and no spaces. One chain per table keeps tables from waiting on one
another: appending locks only that table's `Chain` row.
"""

from __future__ import annotations

import hashlib
import heapq
import json
from collections.abc import Iterator

from django.apps import apps
from django.db import router, transaction
from django.db.models import prefetch_related_objects

from casino.compiled import Compiled, insert_returning, save_fields
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
    return f"table:{table.pk}" if table is not None else f"casino:{casino.pk}"


# Locked on every record a table writes: compiled once.
CHAIN_LOCKED = Compiled(lambda name: Chain.objects.select_for_update(no_key=True).filter(name=name), str)


def chain_lock(*, table=None, casino=None) -> Chain:
    """The table's chain (or the casino's, for the cage), locked with SELECT ... FOR UPDATE until
    the surrounding database transaction ends; created on first use.

    Race-safe: two first uses at once get the same row (get_or_create retries the read inside a
    savepoint when the unique name refuses the second insert). One round trip once it exists.
    """
    name = chain_name(table=table, casino=casino)
    chain = CHAIN_LOCKED.first(name)
    if chain is None:
        Chain.objects.get_or_create(name=name)
        chain = Chain.objects.select_for_update(no_key=True).get(name=name)
    return chain


def chain_append(record: Chained, chain: Chain) -> Chained:
    """Give the unsaved `record` the next position of `chain` and its hash, and save it.

    `chain` comes from `chain_lock` in the same database transaction, and every record appended
    to it since went through this function with the same object, so its `length` and `head` are
    the chain's own: the lock keeps everyone else out until the transaction ends, and the records
    of one chain are appended one at a time. Callers that also post to the ledger take the chain
    lock first, as `ledger_post` does, so the lock order is always chain, then accounts.
    Everything `chain_content()` reads must be set before this call (postings included); the
    row as the database stored it is refused if its content no longer hashes the same (a value
    the database rounds or reformats would look like tampering the next day).
    """
    if not record._state.adding:
        raise ChainError(f"{record._meta.label} {record.pk} is already saved; only new records are chained.")
    # No savepoint: a failure here is a bug that rolls back the caller's whole transaction anyway.
    with transaction.atomic(savepoint=False):
        record.chain = chain
        record.position = chain.length + 1
        record.prev_hash = chain.head
        record.hash = record_hash(chain.head, record.chain_content())
        _check_round_trip(record, _insert_returning(record))
        chain.length, chain.head = record.position, record.hash
        save_fields(chain, ("length", "head"))
    return record


def _insert_returning(record: Chained) -> Chained:
    """Insert `record` and return the row as the database stored it (`insert_returning`).

    The stored row comes back from `INSERT ... RETURNING` every column, through the same
    converters as a read, instead of a SELECT after the insert: the same proof that the database
    keeps what was hashed, one round trip fewer. What `chain_content()` reads beyond the row
    (a transaction's postings) is still read from the database, as `chain_queryset()` prefetches it.
    """
    stored = insert_returning(record, using=router.db_for_write(type(record), instance=record))
    lookups = type(record).chain_queryset()._prefetch_related_lookups
    if lookups:
        prefetch_related_objects([stored], *lookups)
    return stored


def _check_round_trip(record: Chained, stored: Chained) -> None:
    if record_hash(stored.prev_hash, stored.chain_content()) != record.hash:
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
