"""Opening and closing a table: blind chip counts of the tray, signed by two people.

The counter submits the count by denomination before anything shows what the
ledger expects; the count, the expectation and their difference are all kept
(on the table inventory slip), and an opener is compared with the previous
closer. A difference is recorded, not booked: it is for the pit and the
auditors to investigate (the reconciliation report lists it). The count, its slip and both
signatures are sealed in the table's chain (`ledger.seals`) in the same transaction.
"""

from functools import partial

from casino.audit import audit_record
from casino.compiled import Compiled
from casino.errors import Conflict, DomainError
from casino.limits import MAX_AMOUNT
from casino.models import AuditEvent
from ledger.models import Account
from ledger.seals import seal
from ledger.services import account_get
from tables.models import ApprovalRequest, Hand, SeatSession, Slip, Table, TableCount

from .idempotency import run_once
from .incidents import count_variance_incident
from .slips import (
    PIT_MANAGER,
    SignatureGiven,
    SignatureRefused,
    signature_failure_record,
    slip_issue,
    slip_sign,
)


def chip_total(denominations: dict) -> int:
    """Units in a count given as {chip value in units: number of chips}: at most MAX_AMOUNT."""
    total, seen = 0, set()
    for value, count in denominations.items():
        value = _chip_value(value)
        if not value or isinstance(count, bool) or not isinstance(count, int) or not 0 <= count <= MAX_AMOUNT:
            raise DomainError('Count chips as whole numbers per chip value, e.g. {"5": 40, "25": 20}.')
        if value in seen:
            # "100" and "0100" (or 100 and "100") are one value: the count keeps one figure per value,
            # so the other would count in the total and nowhere else.
            raise DomainError(f"Give each chip value once: {value} is given twice.")
        seen.add(value)
        total += value * count
    if total > MAX_AMOUNT:
        raise DomainError(f"These chips come to {total:,} units: no count or slip is above {MAX_AMOUNT:,}.")
    return total


def _chip_value(value) -> int:
    """A chip value in units, as a key of the count gives it ("25" or 25); 0 for anything else."""
    if isinstance(value, int) and not isinstance(value, bool):
        return value if 0 < value <= MAX_AMOUNT else 0
    text = str(value)
    # Plain ASCII digits, no longer than the largest amount: int() reads other scripts' digits too,
    # and refuses thousands of them with an error of its own.
    if not (text.isascii() and text.isdigit() and len(text) <= len(str(MAX_AMOUNT))):
        return 0
    return int(text) if int(text) <= MAX_AMOUNT else 0


# Asked before every hand, buy-in and seat: compiled once.
LAST_COUNT = Compiled(lambda table: TableCount.objects.filter(table=table).order_by("-at", "-pk")[:1])


def table_is_open(table: Table) -> bool:
    """Open from a signed opening count until the next signed closing count (RULINGS)."""
    last = LAST_COUNT.first(table.pk)
    return last is not None and last.kind == TableCount.Kind.OPENER


def table_check_open(table: Table) -> None:
    """A closed table seats nobody, sells no chips and deals no hand."""
    if not table_is_open(table):
        raise DomainError(
            f"{table} is closed: a pit manager opens it with a signed opening count before it seats "
            "players, sells chips or deals."
        )


def table_count(
    *,
    table: Table,
    kind: str,
    denominations: dict,
    by,
    counter: SignatureGiven,
    witness: SignatureGiven,
    device: str = "",
    key: str,
) -> TableCount:
    """Record an opening or closing count, signed by the counter and a pit manager."""
    request = {
        "op": "count",
        "table": table.pk,
        "kind": kind,
        "denominations": denominations,
        "counter": counter.username,
        "witness": witness.username,
    }
    work = partial(_count, table.pk, kind, denominations, by, counter, witness, device)
    try:
        return TableCount.objects.get(pk=run_once(key=key, request=request, by=by, work=work)["count"])
    except SignatureRefused as refusal:
        signature_failure_record(refusal, device)
        raise


def _count(table_id, kind, denominations, by, counter, witness, device) -> dict:
    table = Table.objects.select_for_update(no_key=True).get(pk=table_id)
    total = chip_total(denominations)
    last = table.counts.order_by("-at", "-pk").first()
    _check_order(table, kind, last)
    expected = account_get(kind=Account.Kind.TRAY, table=table).balance
    slip = slip_issue(kind=Slip.Kind(kind), table=table, by=by, amount=total, denominations=denominations)
    slip_sign(slip=slip, given=counter, role=None, device=device)
    slip_sign(slip=slip, given=witness, role=PIT_MANAGER, device=device)
    count = TableCount.objects.create(
        table=table,
        kind=kind,
        slip=slip,
        denominations=denominations,
        counted=total,
        expected=expected,
        previous_closer=last if kind == TableCount.Kind.OPENER else None,
    )
    seal(count, table=table, event="counted")
    _count_followed(count, by, device)
    action = AuditEvent.Action.TABLE_OPEN if kind == TableCount.Kind.OPENER else AuditEvent.Action.TABLE_CLOSE
    audit_record(action=action, user=by, device=device, table=table.pk, counted=total, expected=expected)
    return {"count": count.pk}


def _count_followed(count: TableCount, by, device: str) -> None:
    """What a count starts besides itself: an opener's drop box, an incident for a variance beyond
    the casino's thresholds (docs/count.md)."""
    # Imported here: the drop box services count notes with this module's chip_total.
    from .drop import drop_box_attach_at_opening

    if count.kind == TableCount.Kind.OPENER:
        drop_box_attach_at_opening(opener=count, by=by)
    what = f"{count.get_kind_display()} of {count.table}"
    count_variance_incident(table=count.table, difference=count.difference, what=what, by=by, device=device)


def _check_order(table: Table, kind: str, last: TableCount | None) -> None:
    if kind not in TableCount.Kind.values:
        raise DomainError(f"A count opens or closes a table, not {kind!r}.")
    if kind == TableCount.Kind.OPENER and last is not None and last.kind == TableCount.Kind.OPENER:
        raise Conflict(f"{table} is already open: count it to close it first.")
    if kind == TableCount.Kind.CLOSER:
        if last is None or last.kind == TableCount.Kind.CLOSER:
            raise Conflict(f"{table} is not open.")
        if Hand.objects.filter(table=table, status__in=Hand.OPEN).exists():
            raise DomainError(f"{table} has a hand in play: settle or void it before closing.")
        seated = SeatSession.objects.filter(seat__table=table, ended_at=None).count()
        if seated:
            raise DomainError(f"{table} still has {seated} player(s) seated: cash them out before closing.")
        _check_no_tray_request(table)


def _check_no_tray_request(table: Table) -> None:
    """A fill or credit still pending would move the tray after its closing count was signed: the
    count would be short of the chips delivered, and the move in no gaming day's report."""
    pending = ApprovalRequest.objects.filter(
        table=table, kind__in=(ApprovalRequest.Kind.FILL, ApprovalRequest.Kind.CREDIT),
        status=ApprovalRequest.Status.PENDING,
    ).first()
    if pending is not None:
        raise DomainError(
            f"{table} has a {pending.get_kind_display().lower()} of {pending.amount:,} waiting for the pit's "
            "decision: approve, reject or withdraw it before closing."
        )
