"""Back-entry: a hand dealt on paper while the system was down, entered afterwards by the pit.

The paper sheet gives the players and their bets, every card in order with who received it, and
every decision. `hand_back_enter` replays it through the hand services (`hand_start`, then each
step through `step_apply` as a tablet's offline queue is, then `hand_settle`), all in one
transaction: the rules engine checks every step as it is replayed, and the first step it refuses
(or a receiver that is not the one the rules name) refuses the whole entry, and nothing is written.
The hand is settled through the ledger like any other and marked back-entered (`BackEntry`) with
the reason, who entered it and a second person's signature.
"""

from functools import partial

from casino.audit import audit_record
from casino.errors import DomainError, NotAllowed
from casino.models import AuditEvent
from ledger.seals import seal
from tables.models import BackEntry, Game, Hand, Table
from tables.selectors import user_can_supervise

from .hands import HandError, hand_settle, hand_start
from .idempotency import MAX_KEY_LENGTH, run_once
from .offline import queued_steps, step_apply
from .slips import (
    DEALER,
    PIT_MANAGER,
    SignatureGiven,
    SignatureRefused,
    signature_failure_record,
    signer_check,
)

SIGNERS = (PIT_MANAGER, DEALER)  # a second pit manager, or the dealer who dealt the hand
NEXT_ROUND = "round"  # the sheet's mark between two rounds of a Pairs game
KEY_ROOM = 20  # each round's and step's key is the entry's and ":<round>:<step>" or ":<round>:settle"


def hand_back_enter(
    *,
    table: Table,
    bets: dict[int, int] | None,
    steps: list[dict],
    reason: str,
    signer: SignatureGiven,
    signed_as: str,
    by,
    device: str = "",
    key: str,
) -> Hand:
    """Enter a hand dealt on paper at `table` and settle it; return the hand.

    `bets` as for `hand_start` (Rocket; None for the pot games and Pairs, whose seated players
    play). `steps` in the order dealt: a card {"kind": "card", "rank", "to", "seat"} or a decision
    {"kind": "decision", "seat", "action"}; at Pairs, {"kind": "round"} between two rounds of a
    game: each round is started, replayed and settled in turn (each marked back-entered), and the
    hand returned is the last. `by` must supervise the table's pit; `signer` (not
    `by`) signs as a pit manager on shift in the pit or as a dealer at the table. One transaction
    under `key`: a retry answers the hand the first entry made; a refusal writes nothing (a refused
    signature is kept on file for the lockout).
    """
    if len(key) > MAX_KEY_LENGTH - KEY_ROOM:
        raise HandError(f"A back-entry's key is at most {MAX_KEY_LENGTH - KEY_ROOM} characters.")
    request = {"op": "back_enter", "table": table.pk, "bets": bets, "steps": steps, "reason": reason}
    work = partial(_back_enter, table, bets, steps, reason, signer, signed_as, by, device, key)
    try:
        answer = run_once(key=key, request={**request, "signer": signer.username}, by=by, work=work)
    except SignatureRefused as refusal:
        signature_failure_record(refusal, device)
        raise
    return Hand.objects.select_related("table", "back_entry").get(pk=answer["hand"])


def _back_enter(table, bets, steps, reason, signer, signed_as, by, device, key) -> dict:
    if not user_can_supervise(by, table):
        raise NotAllowed(f"Only a pit manager on shift in the pit of {table} may enter a hand from paper.")
    if not reason.strip():
        raise HandError("Say why this hand is entered from paper (what was down, and when).")
    if signed_as not in SIGNERS or signer.username == by.get_username():
        raise NotAllowed("A second person, a pit manager or the table's dealer, must sign a back-entry.")
    signed_by, method = signer_check(given=signer, role=signed_as, table=table, device=device)
    rounds = _rounds(table, steps)
    hands = [_replayed(table, bets, sheet, by, device, f"{key}:{n}") for n, sheet in enumerate(rounds, 1)]
    for hand in hands:
        entry = BackEntry.objects.create(
            hand=hand, reason=reason.strip(), by=by, signed_by=signed_by, signed_as=signed_as, method=method,
            device=device,
        )
        seal(entry, table=table, event="entered")
    audit_record(
        action=AuditEvent.Action.BACK_ENTRY,
        user=by,
        device=device,
        table=table.pk,
        hands=[hand.pk for hand in hands],
        signed_by=signed_by.get_username(),
        signed_as=signed_as,
        reason=reason.strip(),
    )
    return {"hand": hands[-1].pk}


def _rounds(table: Table, steps: list[dict]) -> list[list[tuple[int, dict]]]:
    """The sheet's steps with their line numbers, cut at each {"kind": "round"}: a Pairs game's
    rounds, each a hand of its own."""
    if not isinstance(steps, list) or not all(isinstance(step, dict) for step in steps):
        raise HandError("A paper hand is a list of cards and decisions.")
    rounds: list[list[tuple[int, dict]]] = [[]]
    for line, step in enumerate(steps, start=1):
        if step.get("kind") == NEXT_ROUND:
            rounds.append([])
        else:
            rounds[-1].append((line, step))
    if len(rounds) > 1 and table.game != Game.PAIRS:
        raise HandError("Only a Pairs game is entered round after round; enter any other hand on its own.")
    return rounds


def _replayed(table: Table, bets, lines: list[tuple[int, dict]], by, device: str, key: str) -> Hand:
    """One hand (or Pairs round) of the sheet started, replayed step by step and settled; a
    refusal names the sheet's line."""
    hand = hand_start(table=table, bets=bets, by=by, device=device, key=f"{key}:start")
    seq = hand.seq
    steps = _paper_steps([step for _, step in lines], key, seq)
    for (line, _), step in zip(lines, steps, strict=True):
        try:
            seq = step_apply(hand, step, seq, by, device)
        except DomainError as refusal:
            raise HandError(f"Line {line} of the sheet: {refusal.message}") from refusal
    return hand_settle(hand=hand, by=by, expected_seq=seq, key=f"{key}:settle")


def _paper_steps(steps: list[dict], key: str, seq: int):
    """The sheet's steps as keyed steps, each under a key of its own made from the entry's."""
    keyed = [{**step, "key": f"{key}:{n}", "seq": seq} for n, step in enumerate(steps, 1)]
    return queued_steps(keyed, source="paper hand")
