"""Slips and their signatures.

A slip's serial number comes from its table's sequence for the calendar year
(`SlipSeries`), taken under the table's chain lock in the same transaction as
the slip: a slip that is not written does not use a number, so a gap in the
report means a slip went missing, and slips at different tables never wait on
one row. A signature is a fresh re-authentication with the
signer's password or PIN, by a distinct person, recorded with the device.

Every write of a slip's or a signature's figures seals them in the table's chain in the same
transaction (`ledger.seals`): issued, signed, voided, tied to the transaction it moved. The chain
is locked before the table's series or the slip, as everywhere (chain, then what it covers).
"""

from dataclasses import dataclass, field

from django.conf import settings
from django.contrib.auth import get_user_model
from django.db.models import Q, QuerySet
from django.utils import timezone

from casino.audit import audit_record
from casino.errors import DomainError, NotAllowed
from casino.lockout import signature_lockout
from casino.models import AuditEvent
from ledger.chain import chain_lock
from ledger.seals import seal
from tables.models import Signature, Slip, SlipSeries, Table
from tables.selectors import user_can_deal, user_can_supervise

DEALER, PIT_MANAGER = "dealer", "pit manager"


@dataclass(frozen=True)
class SignatureGiven:
    """A signer's name and the password or PIN they typed (never shown or logged)."""

    username: str
    secret: str = field(repr=False)


class SignatureRefused(NotAllowed):
    """The password or PIN was wrong, the name is locked out, or the signer may not sign as asked."""

    def __init__(self, message: str, username: str, *, locked_out: bool = False):
        super().__init__(message)
        self.username = username
        self.locked_out = locked_out


def signature_failure_record(refusal: SignatureRefused, device: str = "") -> None:
    """Keep a failed signature on file (called after the refused write rolled back). A refusal
    for a lockout is kept too, marked so that the lockout does not count it as a guess."""
    audit_record(
        action=AuditEvent.Action.SIGNATURE_FAILED,
        username=refusal.username,
        device=device,
        reason=refusal.message,
        locked_out=refusal.locked_out,
    )


def slip_issue(
    *, kind: str, table: Table, by, amount=None, denominations=None, hand=None, request=None
) -> Slip:
    """Number, write and seal a slip and the number its table's run gave it (inside the caller's
    transaction; the chain is locked once, for both seals)."""
    chain = chain_lock(table=table)
    series = _series(table, timezone.localdate().year)
    series.last += 1
    series.save(update_fields=["last"])
    seal(series, chain=chain, event="issued")
    slip = Slip.objects.create(
        year=series.year,
        serial=series.last,
        kind=kind,
        table=table,
        amount=amount,
        denominations=denominations or {},
        hand=hand,
        request=request,
        created_by=by,
    )
    seal(slip, chain=chain, event="issued")
    return slip


def _series(table: Table, year: int) -> SlipSeries:
    """The table's run of serials for `year`, locked (the table's chain lock, held, serialises its
    creation too). A new run starts after the year's casino-wide run, if slips took one."""
    series = SlipSeries.objects.select_for_update(no_key=True).filter(table=table, year=year).first()
    if series is None:
        before = SlipSeries.objects.filter(table=None, year=year).values_list("last", flat=True).first() or 0
        series = SlipSeries.objects.create(table=table, year=year, first=before + 1, last=before)
    return series


def slip_sign(*, slip: Slip, given: SignatureGiven, role: str | None, device: str = "") -> Signature:
    """Verify `given` afresh and sign `slip` as `role` (DEALER or PIT_MANAGER); None: as what the
    signer is at the slip's table (a counter, the one who asks for a fill), a pit manager on shift in
    its pit, else its dealer: the slip says who, as what."""
    user, method = _authenticate(given, device)
    role = role or (PIT_MANAGER if user_can_supervise(user, slip.table) else DEALER)
    if slip.signatures.filter(user=user).exists():
        raise SignatureRefused(
            f"{user.get_username()} has already signed this slip: a second person must sign.", given.username
        )
    if not _may_sign(user, role, slip.table):
        raise SignatureRefused(
            f"{user.get_username()} cannot sign as {role} at {slip.table}.", given.username
        )
    signature = Signature.objects.create(slip=slip, user=user, role=role, method=method, device=device)
    seal(signature, table=slip.table, event="signed")
    audit_record(action=AuditEvent.Action.SIGNATURE, user=user, device=device, slip=str(slip), role=role)
    return signature


def signer_check(*, given: SignatureGiven, role: str, table: Table, device: str):
    """The signer `given` names and how they signed (PIN or password), checked afresh as for a slip
    (the lockout first) and allowed to sign as `role` at `table`; for a record signed without a slip."""
    user, method = _authenticate(given, device)
    if not _may_sign(user, role, table):
        raise SignatureRefused(f"{user.get_username()} cannot sign as {role} at {table}.", given.username)
    return user, method


def signature_verify(*, given: SignatureGiven, device: str = ""):
    """The signer `given` names and how they signed (PIN or password), checked afresh as for a slip
    (the lockout first); for a record signed without a table, such as a gaming day's close."""
    return _authenticate(given, device)


def slip_void(*, slip: Slip, by, reason: str) -> Slip:
    """Spoil a slip: its number stays used, marked voided with the reason."""
    if not reason.strip():
        raise DomainError("Say why the slip is voided.")
    chain_lock(table=slip.table)
    slip = Slip.objects.select_for_update(no_key=True).get(pk=slip.pk)
    if slip.transaction_id:
        raise DomainError("This slip moved chips; correct the ledger with a reversal instead of voiding it.")
    slip.status, slip.void_reason = Slip.Status.VOIDED, reason.strip()
    slip.save(update_fields=["status", "void_reason"])
    seal(slip, table=slip.table, event="voided")
    return slip


def slip_tie_transaction(*, request, transaction_id) -> Slip:
    """Tie the slip of an approved fill or credit to the transaction that moved its chips, and seal it
    (inside the approval's transaction, after the post: the chain is locked already)."""
    slip = Slip.objects.select_for_update(no_key=True).get(request=request)
    slip.transaction_id = transaction_id
    slip.save(update_fields=["transaction"])
    seal(slip, table=slip.table, event="posted")
    return slip


@dataclass(frozen=True)
class SeriesReport:
    """One run of serials: which were issued, voided, and missing from it."""

    series: SlipSeries
    used: list[int]
    voided: list[int]
    missing: list[int]


def slips_report(year: int, *, tables: QuerySet[Table] | None = None) -> list[SeriesReport]:
    """Every run of serials of the year, each with its used (issued), voided and missing numbers.

    With `tables` (those the reader sees), only those tables' runs, and the year's casino-wide run
    with those tables' slips in it: a number missing from that run belongs to no table, so its gaps
    are the whole run's, which every reader must account for.
    """
    runs = SlipSeries.objects.filter(year=year).select_related("table").order_by("table__name", "pk")
    if tables is not None:
        runs = runs.filter(Q(table=None) | Q(table__in=tables))
    return [_series_report(series, tables) for series in runs]


def _series_report(series: SlipSeries, tables: QuerySet[Table] | None) -> SeriesReport:
    slips = Slip.objects.filter(year=series.year, serial__range=(series.first, series.last))
    if series.table_id is not None:
        slips = slips.filter(table=series.table_id)
    statuses = dict(slips.values_list("serial", "status"))
    shown = statuses if tables is None or series.table_id else dict(
        slips.filter(table__in=tables).values_list("serial", "status")
    )
    return SeriesReport(
        series=series,
        used=sorted(s for s, status in shown.items() if status == Slip.Status.ISSUED),
        voided=sorted(s for s, status in shown.items() if status == Slip.Status.VOIDED),
        missing=[serial for serial in range(series.first, series.last + 1) if serial not in statuses],
    )


def _authenticate(given: SignatureGiven, device: str):
    if not given.secret:  # a tap before typing is no guess: ask for it, count no failed signature
        raise DomainError("Type your password or PIN to sign; nothing was signed.")
    _refuse_if_locked_out(given.username, device)
    user = get_user_model().objects.filter(username=given.username, is_active=True).first()
    if user is not None and user.check_pin(given.secret):
        return user, Signature.Method.PIN
    if user is not None and user.check_password(given.secret):
        return user, Signature.Method.PASSWORD
    raise SignatureRefused(
        f"The password or PIN for {given.username!r} is not right; nothing was signed.", given.username
    )


def _refuse_if_locked_out(username: str, device: str) -> None:
    """Signature forms take a name and a secret, so they are guarded like the sign-in: per name
    and device, so that wrong guesses on one tablet do not lock the name out on the others, and
    per name over every device (see casino.lockout)."""
    where = signature_lockout(username, device)
    if where:
        minutes = int(settings.AXES_COOLOFF_TIME.total_seconds() // 60)
        raise SignatureRefused(
            f"Too many wrong passwords or PINs for {username!r} {where}: signing as them is locked for "
            f"{minutes} minutes.",
            username,
            locked_out=True,
        )


def _may_sign(user, role: str, table: Table) -> bool:
    return user_can_supervise(user, table) if role == PIT_MANAGER else user_can_deal(user, table)
