"""Correcting a mis-keyed card (RULINGS, "Tables, seats and games").

The dealer may correct the most recent card of a hand while nothing has been recorded after it,
with a pit manager's signature: a fresh password or PIN, checked as on a slip and under the same
lockout. The correction is a new record (`CardCorrection`); the card event stays as keyed and the
hand replays with the corrected rank (`CardEvent.objects.as_dealt()`), in its screens, its
settlement, the shoe's counts and the reconciliation. Anything older is settled by voiding the
hand. A system shoe's card is never corrected: its order is committed, so the card is the one the
shoe dealt.
"""

from functools import partial

from django.utils import timezone

from casino.errors import NotAllowed
from ledger.chain import chain_append, chain_lock
from tables.games import IllegalAction
from tables.models import CardCorrection, CardEvent, Decision, Game, Hand, Receiver, Recycle, Shoe

from .engine import replay, unrevealed_after_last_take
from .hands import HandError, _step_once, lock_hand
from .slips import PIT_MANAGER, SignatureGiven, SignatureRefused, signature_failure_record, signer_check

FACE_DOWN = (Receiver.BURN, Receiver.DISCARD)  # cards nobody saw: there is no rank to correct
VOID_INSTEAD = "Anything older is put right by asking the pit to void the hand."


def hand_correct_card(
    *,
    hand: Hand,
    card_seq: int,
    rank: int,
    reason: str,
    signer: SignatureGiven,
    by,
    device: str = "",
    expected_seq: int,
    key: str,
) -> Hand:
    """Correct the hand's most recent card, the one recorded at step `card_seq`, to `rank`.

    Locks the hand (`lock_hand`: in progress, at `expected_seq`, no void pending) and, before
    writing anything, checks that the card is the hand's latest record, dealt face up from a
    physical shoe; that the shoe can hold `rank` once the keyed card is given back and the hand
    replays with it; and that `signer` is a pit manager on shift in the table's pit, not `by`,
    whose password or PIN checks out. Then records the correction at the hand's next step, so a
    screen that showed the old card is stale. A refused signature is kept on file (the lockout
    counts it). The shoe is not locked: its cards leave only through this hand, whose lock we hold.
    """
    request = {
        "op": "correct_card",
        "hand": hand.pk,
        "card_seq": card_seq,
        "rank": rank,
        "reason": reason,
        "signer": signer.username,
        "expected_seq": expected_seq,
    }
    step = partial(_correct, hand.pk, card_seq, rank, reason, signer, by, device, expected_seq)
    try:
        return _step_once(key=key, request=request, by=by, step=step)
    except SignatureRefused as refusal:
        signature_failure_record(refusal, device)
        raise


def hand_correctable_card(hand: Hand) -> CardEvent | None:
    """The card the dealer may correct now (the hand read with `hand_records`), or None."""
    latest = _latest_record(hand)
    if hand.status != Hand.Status.IN_PROGRESS or not isinstance(latest, CardEvent):
        return None
    try:
        return _correctable(hand, latest.seq)
    except HandError:
        return None


def _correct(hand_id, card_seq, rank, reason: str, signer: SignatureGiven, by, device, expected_seq) -> Hand:
    if not reason.strip():
        raise HandError("Say what was mis-keyed: a card correction needs a reason.")
    if not signer.username.strip() or not signer.secret:
        raise HandError("A card correction needs the pit manager's name and password or PIN.")
    if signer.username == by.get_username():
        raise NotAllowed("You keyed this correction: another member of staff, a pit manager, must sign it.")
    hand = lock_hand(hand_id, expected_seq)
    card = _correctable(hand, card_seq)
    _check_rank(hand, card, rank)
    pit_manager, method = signer_check(given=signer, role=PIT_MANAGER, table=hand.table, device=device)
    hand.seq += 1
    correction = CardCorrection(
        card=card,
        hand=hand,
        seq=hand.seq,
        rank=rank,
        reason=reason.strip(),
        by=by,
        signed_by=pit_manager,
        method=method,
        device=device,
        at=timezone.now(),
    )
    chain_append(correction, chain_lock(table=hand.table))
    card.rank = rank  # the answer's screen replays the loaded cards: show it as corrected
    hand.save(update_fields=["seq"])
    return hand


def _correctable(hand: Hand, card_seq: int) -> CardEvent:
    """The card at `card_seq`, if it may be corrected; else a refusal saying why."""
    card = next((card for card in hand.card_list if card.seq == card_seq), None)
    if card is None:
        raise HandError(f"Hand {hand.number} has no card at step {card_seq}.")
    if card.receiver in FACE_DOWN or card.rank is None:
        raise HandError(f"The card at step {card_seq} left the shoe face down: it has no rank to correct.")
    latest = _latest_record(hand)
    if latest is not card:
        raise HandError(
            f"Only the most recent card can be corrected, and {_described(latest)} was recorded after "
            f"the {card.rank} at step {card_seq}. {VOID_INSTEAD}"
        )
    if hand.shoe.kind == Shoe.Kind.SYSTEM:
        raise HandError(
            "This card came from a system-shuffled shoe, whose order is committed: it is the card the "
            "shoe dealt and cannot be corrected. If the card on the table differs, ask the pit to void "
            "the hand."
        )
    return card


def _latest_record(hand: Hand):
    records = [*hand.card_list, *hand.decision_list, *hand.recycle_list]
    return max(records, key=lambda record: record.seq, default=None)


def _described(record) -> str:
    if isinstance(record, Decision):
        return f"a decision (step {record.seq})"
    if isinstance(record, Recycle):
        return f"a recycle of the discards (step {record.seq})"
    if record.receiver == Receiver.BURN:
        return f"a burn (step {record.seq})"
    return f"another card (step {record.seq})"


def _check_rank(hand: Hand, card: CardEvent, rank) -> None:
    """The hand replays with `rank` in place of the card: the shoe can hold it, the rules take it."""
    if rank == card.rank:
        raise HandError(f"The card at step {card.seq} is already a {rank}: there is nothing to correct.")
    others = [other for other in hand.card_list if other is not card]
    try:
        game = replay(hand, [*others, *hand.decision_list, *hand.recycle_list])
        game.shoe.check(rank)
        game.deal(rank)
    except IllegalAction as error:
        raise HandError(f"The card cannot be corrected to {rank!r}: {error}") from error
    if hand.game == Game.BLACKSTONE and game.finished and unrevealed_after_last_take(game.transcript):
        # The cards of the take left unseen would have to leave the shoe too: more than one record.
        raise HandError(f"A {rank} here ends the game with cards of the take still unseen. {VOID_INSTEAD}")
