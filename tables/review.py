"""A hand as an auditor reviews it, and whether its records replay to what was posted."""

from collections import defaultdict

from django.db.models import Sum

from ledger.models import Account, Posting
from tables.games import IllegalAction
from tables.games.base import NAMING, TARGETED
from tables.games.base import CardEvent as EngineCard
from tables.models import BackEntry, CardCorrection, CardEvent, Decision, Hand, HeldQueue, Receiver

from .services.engine import engine_for


def hand_review(hand: Hand) -> dict:
    """Cards in order with receivers (as keyed), decisions with who/device/time, the corrections of
    mis-keyed cards (who keyed, who signed, why, when), the recorded settlement, the ledger
    postings, the replay check (which plays the corrected ranks), and, for a hand dealt on paper
    while the system was down, its back-entry (why, who entered it, who signed); the steps a
    tablet keyed offline that the server refused and holds for the pit (`held`)."""
    cards = CardEvent.objects.filter(hand=hand).select_related("keyed_by").order_by("seq", "shoe_position")
    corrections = (
        CardCorrection.objects.filter(hand=hand).select_related("card", "by", "signed_by").order_by("seq")
    )
    decisions = Decision.objects.filter(hand=hand).select_related("by").order_by("seq")
    postings = (
        Posting.objects.filter(transaction__hand_id=hand.pk)
        .select_related("account", "transaction")
        .order_by("transaction__position", "pk")
    )
    return {
        "hand": hand,
        "cards": list(cards),
        "decisions": list(decisions),
        "corrections": list(corrections),
        "postings": list(postings),
        "replay": hand_replay_check(hand),
        "back_entry": BackEntry.objects.filter(hand=hand).select_related("by", "signed_by").first(),
        "held": list(HeldQueue.objects.filter(hand=hand).select_related("by")),
        "hidden": hidden_cards(hand, list(cards), list(decisions)),
    }


def hidden_cards(hand: Hand, cards: list[CardEvent], decisions: list[Decision]) -> dict:
    """A secret-hand game's hidden cards: the steps that dealt a card face down (with its rank
    where a system shoe knows it: `keyed`) and the steps that revealed ranks (a choice, a play, a
    showdown, a see), with the seat and move. Empty for a game that hides nothing, or whose records
    no longer replay (the replay check says so)."""
    try:
        transcript = engine_for(hand).transcript
    except IllegalAction:
        return {}
    dealt = [event for event in transcript if isinstance(event, EngineCard)]
    shown = [card for card in cards if card.receiver not in (Receiver.BURN, Receiver.DISCARD)]
    face_down = [
        {"seq": card.seq, "seat": card.seat, "keyed": card.rank, "at": card.at}
        for card, event in zip(shown, dealt, strict=False)
        if event.face_down
    ]
    if not face_down:
        return {}
    revealed = [
        {"seq": d.seq, "seat": d.seat, "move": d.action[0], "ranks": _revealed_ranks(d.action), "at": d.at}
        for d in decisions
        if d.action[0] in NAMING or d.action[0] in TARGETED
    ]
    return {"face_down": face_down, "revealed": revealed}


def _revealed_ranks(action: list) -> list:
    """The ranks a recorded move names ("?" for one left face down): after the target, if it aims."""
    ranks = action[2:] if action[0] in TARGETED else action[1:]
    return ["?" if rank is None else rank for rank in ranks]


def hand_replay_check(hand: Hand) -> dict:
    """Replay the hand from its setup and its records as the database holds them (`engine_for`:
    the replay every step of the hand was checked with) and compare each seat's result with the
    net of what the ledger posted to that seat for the hand.

    `matches` is None while the hand is not settled (nothing to compare yet).
    """
    try:
        game = engine_for(hand)
    except IllegalAction as error:
        return {"matches": False, "replayed": None, "posted": posted_results(hand), "error": str(error)}
    if not game.finished or hand.status != Hand.Status.SETTLED:
        return {"matches": None, "replayed": None, "posted": posted_results(hand), "error": ""}
    replayed = {
        str(seat): amount for seat, amount in game.settlement().deltas.items() if isinstance(seat, int)
    }
    posted = posted_results(hand)
    return {"matches": replayed == posted, "replayed": replayed, "posted": posted, "error": ""}


def posted_results(hand: Hand) -> dict[str, int]:
    """Each playing seat's net change from the hand's ledger transactions (bets and settlement)."""
    seat_of = {session: seat for seat, session in hand.sessions.items()}
    totals = (
        Posting.objects.filter(transaction__hand_id=hand.pk, account__kind=Account.Kind.PLAYER)
        .values("account__ref")
        .annotate(net=Sum("amount"))
        .order_by()
    )
    results = defaultdict(int, {seat: 0 for seat in hand.sessions})
    for row in totals:
        results[seat_of[row["account__ref"]]] += row["net"]
    return dict(results)
