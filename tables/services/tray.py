"""The chip tray: fills from the cage and credits back to it.

The tray's balance at any moment is its opening count plus what it collected,
minus what it paid, plus fills, minus credits: every one of those is a posting
on the tray account, so the equation holds by construction and the ledger
proves it. Signatures and slips for fills and credits come with the pit's
approval workflow; here is the money movement itself.
"""

from functools import partial

from casino.errors import DomainError
from ledger.models import Account
from ledger.services import Line, account_get, ledger_post
from tables.models import Table

from .idempotency import run_once


class TrayError(DomainError):
    """The fill or credit is refused."""


def tray_fill(*, table: Table, amount: int, by, approved_by=None, key: str) -> dict:
    """Chips from the cage to the table's tray."""
    return _move(table, amount, by, approved_by, key, kind="fill")


def tray_credit(*, table: Table, amount: int, by, approved_by=None, key: str) -> dict:
    """Chips from the table's tray back to the cage."""
    return _move(table, amount, by, approved_by, key, kind="credit")


def _move(table: Table, amount: int, by, approved_by, key: str, *, kind: str) -> dict:
    if isinstance(amount, bool) or not isinstance(amount, int) or amount <= 0:
        raise TrayError(f"A {kind} must be a whole, positive number of units, not {amount!r}.")
    request = {"op": kind, "table": table.pk, "amount": amount}
    return run_once(
        key=key, request=request, by=by, work=partial(_post, table, amount, by, approved_by, kind)
    )


def _post(table: Table, amount: int, by, approved_by, kind: str) -> dict:
    tray = account_get(kind=Account.Kind.TRAY, table=table)
    cage = account_get(kind=Account.Kind.CAGE, casino=table.pit.casino)
    sign = 1 if kind == "fill" else -1
    transaction = ledger_post(
        lines=[Line(tray, sign * amount, kind), Line(cage, -sign * amount, kind)],
        kind=kind,
        memo=f"{table}: {kind} of {amount}",
        by=by,
        table=table,
        approved_by=approved_by,
    )
    return {"transaction": str(transaction.pk)}
