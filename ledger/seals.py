"""Seals: the figures of records kept outside the hash chains, chained as they are written.

A hand is settled or voided, a slip voided and an approval request decided by updating its row,
and a table count or a signature has no chain fields of its own; each such model is
`ledger.models.Sealed`, and every service that writes its figures calls `seal` in the same
database transaction. The seal, a chained and append-only record, holds the figures;
`verify_ledger` compares every sealed record with its latest seal (`ledger.audit`), so a figure
changed, a record removed or a record inserted outside the services is named.
"""

from __future__ import annotations

from django.apps import apps

from ledger.chain import chain_extend, chain_lock
from ledger.models import Chain, Seal, Sealed


def seal(record: Sealed, *, table=None, casino=None, event: str, chain: Chain | None = None) -> Seal:
    """Append a seal of `record`'s figures as they are now to `table`'s chain (or `casino`'s, for
    a record of the whole casino such as a gaming day's close), or to `chain`, that chain's lock
    as the caller holds it (`chain_lock`).

    Takes the table's chain lock (if the caller does not hold it yet): callers that also lock a
    slip's year counter take the chain first (see `tables.services.slips`).
    """
    return seals([(record, event)], table=table, casino=casino, chain=chain)[0]


def seals(
    written: list[tuple[Sealed, str]], *, table=None, casino=None, chain: Chain | None = None
) -> list[Seal]:
    """`seal` for several records written in one step, each with its event, in that order: one
    insert and one write of the chain's head for them all (`chain_extend`)."""
    made = [
        Seal(model=record._meta.label, record=record.pk, event=event, figures=record.seal_content())
        for record, event in written
    ]
    chain_extend(made, chain or chain_lock(table=table, casino=casino))
    return made


def sealed_models() -> list[type]:
    """Every concrete model whose figures are sealed, in a fixed order."""
    models = [model for model in apps.get_models() if issubclass(model, Sealed) and not model._meta.proxy]
    return sorted(models, key=lambda model: model._meta.label)
