"""What waits for a pit manager: large payouts, voids (misdeals), fills, credits, corrections.

Dual control: the member of staff who asked can never decide, and only a pit
manager on shift in the table's pit may. Approving carries the request out in
the same transaction: the payout is posted; every ledger transaction of a
voided hand is reversed with the reason and the approver on the reversal (and
a void slip is issued); a fill or credit slip gets the pit manager's signature
(a fresh password or PIN) and moves the chips between cage and tray.

A request's figures are sealed in its table's chain (`ledger.seals`) when it is asked for and
again when it is decided, in the same transaction as each write.
"""

from functools import partial

from django.utils import timezone

from casino.audit import audit_record
from casino.errors import Conflict, DomainError, NotAllowed
from casino.models import AuditEvent
from ledger.models import Transaction
from ledger.seals import seal
from ledger.services import ledger_reverse
from tables.models import ApprovalRequest, Hand, Slip
from tables.selectors import user_can_supervise

from .hands import HandError, lock_hand, post_settlement
from .idempotency import run_once
from .seating import cash_out_check_taken, cash_out_correct
from .slips import (
    PIT_MANAGER,
    SignatureGiven,
    SignatureRefused,
    signature_failure_record,
    slip_issue,
    slip_sign,
    slip_void,
)
from .tray import tray_move_approved

MONEY_ON_A_SLIP = (ApprovalRequest.Kind.FILL, ApprovalRequest.Kind.CREDIT)


def hand_void_request(*, hand: Hand, by, reason: str, expected_seq: int, key: str) -> ApprovalRequest:
    """Ask the pit to void the hand (a misdeal); the hand stops until they decide."""
    request = {"op": "void_request", "hand": hand.pk, "reason": reason, "expected_seq": expected_seq}
    answer = run_once(
        key=key, request=request, by=by, work=partial(_void_request, hand.pk, by, reason, expected_seq)
    )
    return ApprovalRequest.objects.get(pk=answer["request"])


def approval_decide(
    *,
    request: ApprovalRequest,
    by,
    approve: bool,
    reason: str = "",
    secret: str = "",
    device: str = "",
    key: str,
) -> ApprovalRequest:
    """Approve (carry it out) or reject (with a reason) a pending request.

    A fill or credit is approved by signing its slip: `secret` is the pit
    manager's password or PIN, checked afresh.
    """
    fingerprint = {"op": "approval", "request": request.pk, "approve": approve, "reason": reason}
    work = partial(_decide, request.pk, by, approve, reason, secret, device)
    try:
        answer = run_once(key=key, request=fingerprint, by=by, work=work)
    except SignatureRefused as refusal:
        signature_failure_record(refusal, device)
        raise
    return ApprovalRequest.objects.get(pk=answer["request"])


def approval_withdraw(
    *, request: ApprovalRequest, by, reason: str, device: str = "", key: str
) -> ApprovalRequest:
    """The member of staff who asked takes a pending request back (with a reason, audited), so a
    request nobody can decide does not hold its hand or its slip: what a rejection undoes is undone."""
    fingerprint = {"op": "withdraw", "request": request.pk, "reason": reason}
    work = partial(_withdraw, request.pk, by, reason, device)
    return ApprovalRequest.objects.get(pk=run_once(key=key, request=fingerprint, by=by, work=work)["request"])


def correction_request(
    *, transaction: Transaction, by, reason: str, key: str, taken: int | None = None
) -> ApprovalRequest:
    """Ask the pit to reverse a posted transaction (a new, opposite transaction once approved).

    A cash-out is corrected instead to `taken`, the units the player really left with: reversed and
    booked again in one correction, so the closed seat keeps no chips (see docs/pit.md)."""
    request = {
        "op": "correction_request",
        "transaction": str(transaction.pk),
        "reason": reason,
        "taken": taken,
    }
    work = partial(_correction_request, transaction.pk, by, reason, taken)
    answer = run_once(key=key, request=request, by=by, work=work)
    return ApprovalRequest.objects.get(pk=answer["request"])


def _correction_request(transaction_id, by, reason: str, taken: int | None) -> dict:
    if not reason.strip():
        raise DomainError("Say what is wrong: a correction needs a reason.")
    original = Transaction.objects.select_related("table").get(pk=transaction_id)
    if original.table is None:
        raise DomainError("Only a table's transactions are corrected here; the cage corrects its own.")
    if original.reverses_id:
        raise DomainError("That transaction is a reversal: correct the transaction it reverses instead.")
    if Transaction.objects.filter(reverses=original).exists():
        raise Conflict("That transaction has been reversed already.")
    if original.hand_id and Hand.objects.filter(pk=original.hand_id, status__in=Hand.OPEN).exists():
        # Reversing a bet under a hand in play left the hand unable to settle or be voided.
        raise DomainError(
            "That transaction belongs to a hand still in play: ask the pit to void the hand instead."
        )
    if original.kind == Transaction.Kind.CASH_OUT:
        cash_out_check_taken(cash_out=original, taken=taken)
    elif taken is not None:
        raise DomainError("Only a cash-out is corrected to an amount; this transaction is reversed whole.")
    request = ApprovalRequest.objects.create(
        kind=ApprovalRequest.Kind.CORRECTION,
        table=original.table,
        transaction=original,
        amount=taken,
        reason=reason.strip(),
        requested_by=by,
    )
    seal(request, table=original.table, event="requested")
    return {"request": request.pk}


def _void_request(hand_id: int, by, reason: str, expected_seq: int) -> dict:
    if not reason.strip():
        raise HandError("Say what went wrong: a void request needs a reason.")
    hand = lock_hand(hand_id, expected_seq, statuses=Hand.OPEN)
    hand.seq += 1  # other screens refresh and stop
    hand.save(update_fields=["seq"])
    request = ApprovalRequest.objects.create(
        kind=ApprovalRequest.Kind.VOID, table=hand.table, hand=hand, reason=reason.strip(), requested_by=by
    )
    seal(request, table=hand.table, event="requested")
    audit_record(action=AuditEvent.Action.VOID_REQUEST, user=by, hand=hand.pk, reason=request.reason)
    return {"request": request.pk}


def _decide(request_id: int, by, approve: bool, reason: str, secret: str, device: str) -> dict:
    request = _lock_request(request_id)
    _check_decider(request, by, approve, reason)
    hand = _lock_hand_of(request)
    was = hand.status if hand else None
    if approve and hand is not None:
        _check_nothing_else_pending(request, hand)
    if approve:
        _carry_out(request, hand, by, secret, device)
    else:
        _undo(request, hand, by, f"Rejected: {reason.strip()}")
    status = ApprovalRequest.Status.APPROVED if approve else ApprovalRequest.Status.REJECTED
    _close(request, hand, was, by, status, reason, device)
    return {"request": request.pk}


def _withdraw(request_id: int, by, reason: str, device: str) -> dict:
    request = _lock_request(request_id)
    if request.status != ApprovalRequest.Status.PENDING:
        raise Conflict(f"This request was already {request.get_status_display().lower()}.")
    if by.pk != request.requested_by_id:
        raise NotAllowed("Only the member of staff who asked may withdraw this request.")
    if not reason.strip():
        raise DomainError("Say why: withdrawing a request needs a reason.")
    hand = _lock_hand_of(request)
    was = hand.status if hand else None
    _undo(request, hand, by, f"Withdrawn: {reason.strip()}")
    _close(request, hand, was, by, ApprovalRequest.Status.WITHDRAWN, reason, device)
    return {"request": request.pk}


def _lock_request(request_id: int) -> ApprovalRequest:
    # of=self: the hand is an outer join, which PostgreSQL will not lock (it is locked next).
    return (
        ApprovalRequest.objects.select_for_update(of=("self",), no_key=True)
        .select_related("table", "hand")
        .get(pk=request_id)
    )


def _lock_hand_of(request: ApprovalRequest) -> Hand | None:
    return Hand.objects.select_for_update(no_key=True).get(pk=request.hand_id) if request.hand_id else None


def _undo(request: ApprovalRequest, hand: Hand | None, by, why: str) -> None:
    """What a request that is not carried out leaves: a payout goes back to the dealer (settle again
    or ask for a void), a fill's or credit's slip is voided; a void request simply unfreezes."""
    if request.kind == ApprovalRequest.Kind.PAYOUT:
        hand.status = Hand.Status.IN_PROGRESS
    elif request.kind in MONEY_ON_A_SLIP:
        slip_void(slip=request.slips.get(), by=by, reason=why)


def _close(
    request: ApprovalRequest, hand: Hand | None, was: str | None, by, status: str, reason: str, device: str
) -> None:
    """Record the outcome: the hand's screens move on (its new status, if `was` changed, sealed), the
    request sealed and audited."""
    if hand:
        hand.seq += 1
        hand.save(update_fields=["seq", "status"])
        if hand.status not in (was, Hand.Status.SETTLED):  # a settlement is sealed as it is posted
            seal(hand, table=request.table, event=hand.status)
    request.status = status
    # A withdrawal is decided by no one: the requester never decides their own request (a constraint).
    decider = None if status == ApprovalRequest.Status.WITHDRAWN else by
    request.decided_by, request.decided_at, request.decision_reason = decider, timezone.now(), reason.strip()
    request.save(update_fields=["status", "decided_by", "decided_at", "decision_reason"])
    seal(request, table=request.table, event="decided")
    audit_record(
        action=AuditEvent.Action.APPROVAL,
        user=by,
        device=device,
        request=request.pk,
        kind=request.kind,
        decision=request.status,
        reason=request.decision_reason,
    )


def _check_decider(request: ApprovalRequest, by, approve: bool, reason: str) -> None:
    if request.status != ApprovalRequest.Status.PENDING:
        raise Conflict(f"This request was already {request.get_status_display().lower()}.")
    if by.pk == request.requested_by_id:
        raise NotAllowed("You asked for this: another pit manager must decide it.")
    if not user_can_supervise(by, request.table):
        raise NotAllowed("Only a pit manager on shift in this table's pit may decide this request.")
    if not approve and not reason.strip():
        raise DomainError("Say why: a rejection needs a reason.")


def _check_nothing_else_pending(request: ApprovalRequest, hand: Hand) -> None:
    """A hand waiting for both its payout and a void gets one of them rejected before the other is
    approved; otherwise the second decision acts on a hand that has moved on: rejecting the payout of
    a voided hand put it back in play, and voiding a paid hand reversed chips its players may have
    cashed out since."""
    other = hand.approvals.filter(status=ApprovalRequest.Status.PENDING).exclude(pk=request.pk).first()
    if other is not None:
        raise DomainError(
            f"Hand {hand.number} also has a {other.get_kind_display().lower()} request pending: "
            "reject one of them before approving the other."
        )


def _carry_out(request: ApprovalRequest, hand: Hand | None, by, secret: str, device: str) -> None:
    if request.kind == ApprovalRequest.Kind.PAYOUT:
        post_settlement(hand, by=request.requested_by, approved_by=by)
    elif request.kind == ApprovalRequest.Kind.VOID:
        _void(hand, request, by)
    elif request.kind == ApprovalRequest.Kind.CORRECTION:
        _correct(request, by)
    else:
        slip = request.slips.get()
        slip_sign(slip=slip, given=SignatureGiven(by.get_username(), secret), role=PIT_MANAGER, device=device)
        tray_move_approved(request, by=by)


def _correct(request: ApprovalRequest, by) -> None:
    original, asked = request.transaction, request.requested_by
    if original.kind == Transaction.Kind.CASH_OUT:
        cash_out_correct(
            cash_out=original, taken=request.amount, reason=request.reason, by=asked, approved_by=by
        )
    else:
        ledger_reverse(transaction=original, reason=request.reason, by=asked, approved_by=by)


def _void(hand: Hand, request: ApprovalRequest, by) -> None:
    """Reverse every ledger transaction of the hand, newest first."""
    for original in Transaction.objects.filter(hand_id=hand.pk, reverses=None).order_by("-position"):
        ledger_reverse(
            transaction=original, reason=f"Void: {request.reason}", by=request.requested_by, approved_by=by
        )
    hand.status = Hand.Status.VOIDED
    slip_issue(kind=Slip.Kind.VOID, table=hand.table, by=by, hand=hand, request=request)
