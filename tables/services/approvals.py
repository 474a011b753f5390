"""What waits for a pit manager: large payouts, voids (misdeals, settled hands), fills, credits,
corrections.

Dual control: the member of staff who asked can never decide, and only a pit
manager on shift in the table's pit may. Approving carries the request out in
the same transaction: the payout is posted; every ledger transaction of a
voided hand is reversed with the reason and the approver on the reversal (and
a void slip is issued: a settled hand's void is how its money is corrected, docs/pit.md); a fill
or credit slip gets the pit manager's signature (a fresh password or PIN) and moves the chips
between cage and tray.

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
from ledger.services import OverdrawError, ledger_reverse
from tables.models import ApprovalRequest, Game, Hand, SeatSession, Slip
from tables.selectors import user_can_supervise

from .hands import HandError, lock_hand, post_settlement, seat_of_account
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
# A hand is voided while open (a misdeal), or once settled: its money is corrected so (RULINGS "A
# mis-keyed card": anything older than the last card is settled by voiding the hand).
VOIDABLE = (*Hand.OPEN, Hand.Status.SETTLED)


def hand_void_request(*, hand: Hand, by, reason: str, expected_seq: int, key: str) -> ApprovalRequest:
    """Ask the pit to void the hand: a misdeal while it is open (the hand stops until they decide),
    or a settled hand whose money was wrong, asked by a pit manager (`_check_settled_void`); once
    approved, every transaction of the hand is reversed either way and the hand is VOIDED."""
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
    _check_not_a_hands(original)
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


def _check_not_a_hands(original: Transaction) -> None:
    """A hand's transactions (its bets or antes, draw fees, settlement) are corrected together, by
    voiding the hand: reversing one alone left a hand in play unable to settle or be voided, and a
    settled hand "settled" with its money netted out, which no screen or report could finish."""
    hand = Hand.objects.filter(pk=original.hand_id).first() if original.hand_id else None
    if hand is None:
        return
    if hand.status in Hand.OPEN:
        raise DomainError(
            "That transaction belongs to a hand still in play: ask the pit to void the hand instead."
        )
    raise DomainError(
        f"That transaction belongs to hand {hand.number} at {original.table}, "
        f"{hand.get_status_display().lower()}: a hand's money is corrected by voiding the whole hand. "
        f"Ask for a void of hand {hand.number} from its review in the pit."
    )


def _check_settled_void(hand: Hand, asked_by=None) -> None:
    """A settled hand is voided only while its chips can go back where they came from, at the
    table: asked by a pit manager on shift in its pit (`asked_by`; another approves, as every
    request), between hands (the dealer gives back and takes back the chips), and, for every game
    but Rocket, while no hand after it stands (a pot's carry, a game's scores go on into the next:
    each Rocket hand's money is its own). Every player of it still seated: chips the void gives back
    to a player who has cashed out would be stranded on the closed seat, and those it takes back
    are gone. Checked when asked and again when approved."""
    table = hand.table
    if asked_by is not None and not user_can_supervise(asked_by, table):
        raise NotAllowed(f"Only a pit manager on shift in {table.pit.name} may ask to void a settled hand.")
    later = table.hands.filter(number__gt=hand.number).exclude(status=Hand.Status.VOIDED).order_by("number")
    if hand.game != Game.ROCKET and (after := later.first()) is not None:
        raise Conflict(
            f"Hand {after.number} has been dealt at {table} since hand {hand.number}: a settled "
            f"{hand.get_game_display()} hand is voided only while no hand after it stands."
        )
    if (in_play := later.filter(status__in=Hand.OPEN).first()) is not None:
        raise Conflict(f"Hand {in_play.number} is in play at {table}: void hand {hand.number} between hands.")
    _check_players_seated(hand)


def _check_players_seated(hand: Hand) -> None:
    seat_of = {session: int(seat) for seat, session in hand.sessions.items()}
    gone = SeatSession.objects.filter(pk__in=seat_of).exclude(ended_at=None).order_by("pk").first()
    if gone is not None:
        who = f"Seat {seat_of[gone.pk]}" + (f" ({gone.player_name})" if gone.player_name else "")
        raise Conflict(
            f"{who} has cashed out since hand {hand.number}: the chips its void would move are no longer "
            "at the table, so the hand cannot be voided."
        )


def _void_request(hand_id: int, by, reason: str, expected_seq: int) -> dict:
    if not reason.strip():
        raise HandError("Say what went wrong: a void request needs a reason.")
    hand = lock_hand(hand_id, expected_seq, statuses=VOIDABLE)
    if hand.status == Hand.Status.SETTLED:
        _check_settled_void(hand, asked_by=by)
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
        if hand.status == Hand.Status.SETTLED:
            _check_settled_void(hand)  # the table may have moved on since it was asked
        _void(hand, request, by)
    elif request.kind == ApprovalRequest.Kind.CORRECTION:
        _correct(request, by)
    else:
        slip = request.slips.get()
        slip_sign(slip=slip, given=SignatureGiven(by.get_username(), secret), role=PIT_MANAGER, device=device)
        tray_move_approved(request, by=by)


def _correct(request: ApprovalRequest, by) -> None:
    original, asked = request.transaction, request.requested_by
    _check_not_a_hands(original)  # a request asked for before a hand's were refused
    if original.kind == Transaction.Kind.CASH_OUT:
        cash_out_correct(
            cash_out=original, taken=request.amount, reason=request.reason, by=asked, approved_by=by
        )
    else:
        ledger_reverse(transaction=original, reason=request.reason, by=asked, approved_by=by)


def _void(hand: Hand, request: ApprovalRequest, by) -> None:
    """Reverse every ledger transaction of the hand not reversed yet, newest first: a settled
    hand's settlement before its bets, which it paid back out of the wager account."""
    originals = Transaction.objects.filter(hand_id=hand.pk, reverses=None, reversed_by=None)
    for original in originals.order_by("-position"):
        try:
            ledger_reverse(
                transaction=original,
                reason=f"Void: {request.reason}",
                by=request.requested_by,
                approved_by=by,
            )
        except OverdrawError as refused:
            raise _void_short(hand, refused) from refused
    hand.status = Hand.Status.VOIDED
    slip_issue(kind=Slip.Kind.VOID, table=hand.table, by=by, hand=hand, request=request)


def _void_short(hand: Hand, refused: OverdrawError) -> OverdrawError:
    """A player who no longer has the chips a settled hand's void takes back (won in it, lost or
    bet since), named by seat; the tray short of what it gives back says so itself. The ledger
    reverses one transaction at a time, the settlement before the bets (the wager account holds
    nothing until then): so the seat must hold all its settlement paid it, its bet included."""
    seat = seat_of_account(hand, refused.account)
    if seat is None:
        return refused
    return OverdrawError(
        f"Seat {seat} has {refused.balance} units in front; voiding hand {hand.number} first takes back "
        f"the {refused.wanted} its settlement paid the seat (its bet goes back after): the player buys "
        "more chips first, or the hand stands.",
        account=refused.account,
        balance=refused.balance,
        wanted=refused.wanted,
    )
