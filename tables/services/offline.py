"""A tablet's offline queue: the steps a dealer keyed while the server could not be reached.

The tablet cannot run the rules, so the dealer names each card's receiver and each decision's
seat; the steps wait on the device with their idempotency keys and come back here in order once
the server answers again. `hand_queue_apply` replays them through the hand services (the one write
path: `hand_record_card`, `hand_decide`), each under its own key, so a step that was already
applied (a queue sent again after a lost answer) answers as the first and writes nothing. The
first step the server refuses (its receiver or seat is not the one the rules name, or the hand
services refuse it) stops the queue: nothing after it is applied, and it and the rest are kept for
the pit as a `HeldQueue`. The steps before it stay applied: each was a legal step of the hand.
"""

from dataclasses import asdict, dataclass

from django.db import transaction

from casino.audit import audit_record
from casino.errors import DomainError
from casino.models import AuditEvent
from ledger.seals import seal
from tables.games import CardDue, DecisionDue
from tables.models import Hand, HeldQueue, IdempotentRequest, Receiver, Table

from .engine import engine_for
from .hands import HandError, hand_decide, hand_record_card
from .idempotency import MAX_KEY_LENGTH

CARD, DECISION = "card", "decision"
# What the dealer may name as a card's receiver on the offline keypad: a tie-break card goes to a
# seat, a burn or an unrevealed card is never keyed.
KEYED_RECEIVERS = (Receiver.SEAT, Receiver.DEALER, Receiver.COMMON, Receiver.CENTRE)
# A queue is one hand's taps while the network is down; far more than any hand needs.
MAX_QUEUE = 200


@dataclass(frozen=True)
class QueuedStep:
    """One tap the tablet queued: a card (`rank`, `to`, `seat`) or a decision (`seat`, `action`),
    with the key minted when it was tapped and the step number it expects the hand to be at."""

    kind: str
    key: str
    seq: int
    rank: int | None = None
    to: str = ""
    seat: int | None = None
    action: tuple = ()

    def says(self) -> str:
        if self.kind == CARD:
            return f"the {self.rank} keyed for {_receiver(self.to, self.seat)}"
        return f"{' '.join(str(part) for part in self.action)} keyed for seat {self.seat}"


@dataclass(frozen=True)
class QueueOutcome:
    """What became of a queue: how many steps were applied, and (when one was refused) its
    sentence and the record holding it and the rest for the pit."""

    hand: Hand
    applied: int
    refusal: str = ""
    held: HeldQueue | None = None


class QueueError(HandError):
    """A step the server will not take as named: a queue (or a paper hand) that cannot be read, or
    a receiver or seat that is not the one the rules name."""


def queued_steps(raw, *, source: str = "offline queue") -> list[QueuedStep]:
    """The steps as the tablet sent them (a list of JSON objects), checked for shape only: the
    rules are the hand services' business. Raises QueueError naming the first malformed step of
    the `source` (the offline queue, or a paper hand being entered)."""
    if not isinstance(raw, list) or not 0 < len(raw) <= MAX_QUEUE:
        raise QueueError(f"The {source} must hold 1 to {MAX_QUEUE} steps.")
    return [_queued_step(number, step, source) for number, step in enumerate(raw, start=1)]


def _queued_step(number: int, step, source: str) -> QueuedStep:
    try:
        kind, key, seq, seat = step["kind"], step["key"], step["seq"], step.get("seat")
        # A key as every change's (1 to 100 characters); no NUL in what a held queue would keep.
        keyed = isinstance(key, str) and 0 < len(key) <= MAX_KEY_LENGTH and _nul_free(key) and _whole(seq)
        seat = seat if kind == DECISION or step.get("to") == Receiver.SEAT else None
        if keyed and kind == CARD and step["to"] in KEYED_RECEIVERS and _whole(step["rank"]):
            return QueuedStep(CARD, key, seq, rank=step["rank"], to=step["to"], seat=seat)
        action = step.get("action")
        decided = isinstance(action, list) and action and _nul_free(action)
        if keyed and kind == DECISION and _whole(seat) and decided:
            return QueuedStep(DECISION, key, seq, seat=seat, action=tuple(action))
    except (KeyError, TypeError, AttributeError):
        pass
    raise QueueError(
        f"Step {number} of the {source} is not a card (rank, receiver) or a decision (seat, "
        "action) with its key and step number; nothing was recorded."
    )


def _whole(value) -> bool:
    return type(value) is int  # not a bool, not 5.0


def _nul_free(value) -> bool:
    """No NUL in any text of `value`: PostgreSQL's text and jsonb cannot hold one (a 500)."""
    if isinstance(value, str):
        return "\x00" not in value
    if isinstance(value, list):
        return all(_nul_free(part) for part in value)
    if isinstance(value, dict):
        return all(_nul_free(name) and _nul_free(part) for name, part in value.items())
    return True


def hand_queue_apply(*, hand: Hand, steps: list[QueuedStep], by, device: str = "") -> QueueOutcome:
    """Apply a tablet's offline queue to `hand`, in order, through the hand services.

    The first step must expect the step number the hand is at (the tablet's last screen); each
    later one is applied right after the one before it, at the step number that one left (read
    from its idempotency record, so a queue sent again computes the same numbers). The hand row is
    locked for the whole queue, so no other tablet's step can slip in between two of its steps.
    Each step runs in its own savepoint (the services' own transactions): the first refusal rolls
    back that step only, and it and the rest are kept in a `HeldQueue` (the same one if the queue
    is sent again).
    """
    with transaction.atomic():
        Hand.objects.select_for_update(of=("self",), no_key=True).filter(pk=hand.pk).first()
        expected, applied = steps[0].seq, 0
        for step in steps:
            try:
                expected = step_apply(hand, step, expected, by, device)
            except DomainError as refusal:
                return _hold(hand, steps[applied:], refusal.message, applied, by, device)
            applied += 1
        return QueueOutcome(hand=Hand.objects.get(pk=hand.pk), applied=applied)


def step_apply(hand: Hand, step: QueuedStep, expected: int, by, device: str = "") -> int:
    """Apply one keyed step (a card to the receiver the dealer named, or a seat's decision)
    expecting the hand at step `expected`, through `hand_record_card` or `hand_decide`; return the
    step number it left. A step already applied under its key answers as the first. Also the
    back-entry's way to replay a hand from paper (tables/services/back_entry.py)."""
    if not IdempotentRequest.objects.filter(user=by, key=step.key).exists():
        _check_named(hand, step, expected)  # a retried step answers as the first, unchecked again
    at = {"hand": hand, "by": by, "device": device, "expected_seq": expected, "key": step.key}
    if step.kind == CARD:
        hand_record_card(rank=step.rank, **at)
    else:
        hand_decide(action=step.action, **at)
    return IdempotentRequest.objects.get(user=by, key=step.key).response["seq"]


def _check_named(hand: Hand, step: QueuedStep, expected: int) -> None:
    """The receiver or seat the dealer named must be the one the rules name now. A hand that
    has moved on is left to the service, which refuses it as a stale screen."""
    current = Hand.objects.get(pk=hand.pk)
    if current.seq != expected:
        return
    due = engine_for(current).next
    if step.kind == CARD and isinstance(due, CardDue) and (due.to, due.seat) != (step.to, step.seat):
        raise QueueError(f"Refused {step.says()}: the rules give the next card to {_who(due)}.")
    if step.kind == DECISION and isinstance(due, DecisionDue) and due.seat != step.seat:
        raise QueueError(f"Refused {step.says()}: seat {due.seat} is the one to act.")


def _who(due: CardDue) -> str:
    return f"{_receiver(due.to, due.seat)} ({due.why})"


def _receiver(to: str, seat: int | None) -> str:
    return f"seat {seat}" if to == Receiver.SEAT else f"the {Receiver(to).label.lower()}"


def _hold(hand: Hand, rest: list[QueuedStep], refusal: str, applied: int, by, device: str) -> QueueOutcome:
    """Keep the refused step and the rest for the pit; the steps before it stay applied."""
    sentence = f"Step {applied + 1} of the offline queue: {refusal}"
    held, created = HeldQueue.objects.get_or_create(
        by=by,
        first_key=rest[0].key,
        defaults={
            "hand": hand,
            "table_id": hand.table_id,
            "steps": [asdict(step) for step in rest],
            "refusal": sentence,
            "device": device,
        },
    )
    if created:
        # The hand is locked already, then its chain, as in a step.
        seal(held, table=Table(pk=hand.table_id), event="held")
        audit_record(
            action=AuditEvent.Action.QUEUE_HELD,
            user=by,
            device=device,
            table=hand.table_id,
            hand=hand.pk,
            held=held.pk,
            steps=len(rest),
            refusal=sentence,
        )
    return QueueOutcome(hand=Hand.objects.get(pk=hand.pk), applied=applied, refusal=held.refusal, held=held)
