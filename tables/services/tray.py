"""The chip tray: fills from the cage and credits back to it.

The tray's balance at any moment is its opening count plus what it collected,
minus what it paid, plus fills, minus credits: every one of those is a posting
on the tray account, so the equation holds by construction and the ledger
proves it.

At a table, a fill or credit is asked for on a slip signed by the dealer
(`fill_request`, `credit_request`) and carried out when a pit manager signs
it in the approval queue. `tray_fill` and `tray_credit` are the bare money
movement that approval posts; they are also how a new table's first bankroll
comes from the cage.
"""

from functools import partial

from casino.audit import audit_record
from casino.errors import DomainError
from casino.limits import MAX_AMOUNT, amount_check
from ledger.models import Account
from ledger.seals import seal
from ledger.services import Line, account_get, ledger_post
from tables.models import ApprovalRequest, Slip, Table

from .counts import chip_total, table_check_open
from .idempotency import run_once
from .shoes import table_locked
from .slips import (
    SignatureGiven,
    SignatureRefused,
    signature_failure_record,
    slip_issue,
    slip_sign,
    slip_tie_transaction,
)


class TrayError(DomainError):
    """The fill or credit is refused."""


def tray_fill(*, table: Table, amount: int, by, approved_by=None, key: str) -> dict:
    """Chips from the cage to the table's tray."""
    return _move(table, amount, by, approved_by, key, kind="fill")


def tray_credit(*, table: Table, amount: int, by, approved_by=None, key: str) -> dict:
    """Chips from the table's tray back to the cage."""
    return _move(table, amount, by, approved_by, key, kind="credit")


def _move(table: Table, amount: int, by, approved_by, key: str, *, kind: str) -> dict:
    amount_check(amount, what=f"A {kind}")
    request = {"op": kind, "table": table.pk, "amount": amount}
    return run_once(
        key=key, request=request, by=by, work=partial(_post, table, amount, by, approved_by, kind)
    )


def _post(table: Table, amount: int, by, approved_by, kind: str) -> dict:
    tray = account_get(kind=Account.Kind.TRAY, table=table)
    cage = account_get(kind=Account.Kind.CAGE, casino=table.pit.casino, at=table)
    sign = 1 if kind == "fill" else -1
    transaction = ledger_post(
        lines=[Line(tray, sign * amount, kind), Line(cage, -sign * amount, kind)],
        kind=kind,
        memo=f"{table}: {kind} of {amount}",
        by=by,
        table=table,
        approved_by=approved_by,
    )
    if kind == "fill":  # read after the posting: the tray's row stays locked to the commit
        _check_room(table, Account.objects.filter(pk=tray.pk).values_list("balance", flat=True).get())
    return {"transaction": str(transaction.pk)}


def _check_room(table: Table, held: int) -> None:
    """Refuse a fill that leaves the tray holding `held`, more than a count can record: the table
    could not be counted closed afterwards (`chip_total`)."""
    if held > MAX_AMOUNT:
        raise TrayError(
            f"{table}'s tray would hold {held:,} units after this fill: no count records more than "
            f"{MAX_AMOUNT:,}, so the table could never be closed. Fill less."
        )


def fill_request(
    *, table: Table, denominations: dict, by, secret: str, device: str = "", key: str
) -> ApprovalRequest:
    """The dealer asks for chips from the cage, signing the fill slip with their password or PIN."""
    return _request(table, denominations, by, secret, device, key, kind=ApprovalRequest.Kind.FILL)


def credit_request(
    *, table: Table, denominations: dict, by, secret: str, device: str = "", key: str
) -> ApprovalRequest:
    """The dealer sends chips back to the cage, signing the credit slip."""
    return _request(table, denominations, by, secret, device, key, kind=ApprovalRequest.Kind.CREDIT)


def _request(table, denominations, by, secret, device, key, *, kind) -> ApprovalRequest:
    request = {"op": f"{kind}_request", "table": table.pk, "denominations": denominations}
    work = partial(_file_request, table, denominations, by, secret, device, kind)
    try:
        return ApprovalRequest.objects.get(pk=run_once(key=key, request=request, by=by, work=work)["request"])
    except SignatureRefused as refusal:
        signature_failure_record(refusal, device)
        raise


def _file_request(table, denominations, by, secret, device, kind) -> dict:
    # Locked as a closing count locks it: a request filed as the table closes waits and is refused,
    # so no fill or credit is left pending at a closed table (its closing count would be short).
    table = table_locked(table.pk)
    table_check_open(table)
    amount = chip_total(denominations)
    if amount <= 0:
        raise TrayError(f"A {kind} must move at least one chip.")
    if kind == ApprovalRequest.Kind.FILL:  # said now, not only when the pit approves it
        _check_room(table, account_get(kind=Account.Kind.TRAY, table=table).balance + amount)
    request = ApprovalRequest.objects.create(kind=kind, table=table, amount=amount, requested_by=by)
    seal(request, table=table, event="requested")
    slip = slip_issue(
        kind=Slip.Kind(kind), table=table, by=by, amount=amount, denominations=denominations, request=request
    )
    slip_sign(slip=slip, given=SignatureGiven(by.get_username(), secret), role=None, device=device)
    audit_record(
        action=kind, user=by, device=device, table=table.pk, amount=amount, slip=str(slip), step="request"
    )
    return {"request": request.pk}


def tray_move_approved(request: ApprovalRequest, *, by) -> None:
    """Post an approved fill or credit and tie it to its slip (inside the approval's transaction)."""
    answer = _post(request.table, request.amount, request.requested_by, by, request.kind)
    slip_tie_transaction(request=request, transaction_id=answer["transaction"])
