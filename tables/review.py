"""A hand as an auditor reviews it, and whether its records replay to what was posted."""

from collections import defaultdict

from django.db.models import Prefetch, Q, Sum

from ledger.models import Account, Posting, Transaction
from tables.games import IllegalAction
from tables.games.base import NAMING, TARGETED
from tables.games.base import CardEvent as EngineCard
from tables.models import BackEntry, CardCorrection, CardEvent, Decision, Hand, HeldQueue, Receiver, Recycle

from .services.engine import engine_for
from .services.hands import forfeit_memo_start

# Cards that leave the shoe face down whatever the game: a burn, and Blackstone's cards counted off
# for a take and never revealed.
NEVER_TURNED_UP = (Receiver.BURN, Receiver.DISCARD)
OVER = (Hand.Status.SETTLED, Hand.Status.VOIDED)


def hand_review(hand: Hand) -> dict:
    """Cards in order with receivers (as keyed), decisions with who/device/time, the corrections of
    mis-keyed cards (who keyed, who signed, why, when), the recorded settlement, the ledger
    postings, the replay check (which plays the corrected ranks), and, for a hand dealt on paper
    while the system was down, its back-entry (why, who entered it, who signed); the steps a
    tablet keyed offline that the server refused and holds for the pit (`held`).

    While the hand is in play a card dealt face down shows no rank (`sealed`: the steps of those
    cards), though a system shoe knows it: a pit manager reading a live player's hole cards could
    pass them on. The moves that reveal cards show their ranks as the rules reveal them; once the
    hand is settled or voided every rank is shown."""
    cards = CardEvent.objects.filter(hand=hand).select_related("keyed_by").order_by("seq", "shoe_position")
    corrections = (
        CardCorrection.objects.filter(hand=hand).select_related("card", "by", "signed_by").order_by("seq")
    )
    decisions = list(Decision.objects.filter(hand=hand).select_related("by").order_by("seq"))
    cards = list(cards)
    face_down = face_down_cards(hand, cards)
    sealed = set() if hand.status in OVER else {card.seq for card in face_down}
    forfeit = game_forfeits(hand.table, [hand]).get(hand.number)
    postings = (
        Posting.objects.filter(Q(transaction__hand_id=hand.pk) | Q(transaction=forfeit))
        .select_related("account", "transaction")
        .order_by("transaction__position", "pk")
    )
    return {
        "hand": hand,
        "cards": cards,
        "sealed": sealed,
        "decisions": decisions,
        "recycles": list(Recycle.objects.filter(hand=hand).select_related("by").order_by("seq")),
        "corrections": list(corrections),
        "postings": list(postings),
        "replay": hand_replay_check(hand),
        "back_entry": BackEntry.objects.filter(hand=hand).select_related("by", "signed_by").first(),
        "held": list(HeldQueue.objects.filter(hand=hand).select_related("by")),
        "hidden": hidden_cards(face_down, decisions, sealed),
        "forfeit": forfeit,
    }


def game_forfeits(table, hands) -> dict[int, Transaction]:
    """The forfeit settlements (a player left the game and lost it: `game_forfeit`) of the games
    whose last rounds are among `hands`, by hand number, each with its postings and their accounts
    (`forfeit_parties`). Posted without a hand, they are known by their memo: the choice is
    explained at `forfeit_memo_start`."""
    starts = {forfeit_memo_start(hand.number): hand.number for hand in hands}
    if not starts:
        return {}
    memo = Q()
    for start in starts:
        memo |= Q(memo__startswith=start)
    forfeits = Transaction.objects.filter(
        memo, table=table, kind=Transaction.Kind.SETTLEMENT, hand_id=None
    ).prefetch_related(Prefetch("postings", Posting.objects.select_related("account").order_by("pk")))
    return {
        number: forfeit for forfeit in forfeits for start, number in starts.items()
        if forfeit.memo.startswith(start)
    }


def forfeit_parties(hand: Hand, forfeit: Transaction) -> dict[str, int]:
    """What each party to `hand` took (+) or paid (-) in its game's forfeit settlement, keyed as a
    hand's settlement deltas are ("3" for seat 3, "house", "carry")."""
    seats = {session: seat for seat, session in hand.sessions.items()}
    parties: dict[str, int] = defaultdict(int)
    for posting in forfeit.postings.all():
        account = posting.account
        if account.kind == Account.Kind.PLAYER:
            party = seats.get(account.ref, account.staff_name)
        else:
            party = {Account.Kind.CARRY: "carry", Account.Kind.POT: "pot"}.get(account.kind, "house")
        parties[party] += posting.amount
    return dict(parties)


def face_down_cards(hand: Hand, cards: list[CardEvent]) -> list[CardEvent]:
    """The hand's cards dealt face down into a hidden hand, as its replay says, then its burns and
    unrevealed discards. A hand whose records no longer replay (the replay check says so) counts
    every card it dealt to a seat as face down: nothing tells which of them went face up."""
    dealt_to_hands = [card for card in cards if card.receiver not in NEVER_TURNED_UP]
    try:
        transcript = engine_for(hand).transcript
    except IllegalAction:
        hidden = [card for card in dealt_to_hands if card.receiver == Receiver.SEAT]
    else:
        dealt = [event for event in transcript if isinstance(event, EngineCard)]
        hidden = [card for card, event in zip(dealt_to_hands, dealt, strict=False) if event.face_down]
    return hidden + [card for card in cards if card.receiver in NEVER_TURNED_UP]


def hidden_cards(face_down: list[CardEvent], decisions: list[Decision], sealed: set[int]) -> dict:
    """A secret-hand game's hidden cards: the steps that dealt a card face down (with its rank
    where a system shoe knows it and the hand is over: `keyed`; `sealed` while it is in play) and
    the steps that revealed ranks (a choice, a play, a showdown, a see), with the seat and move.
    Empty for a game that hides nothing."""
    face_down = [
        {"seq": card.seq, "seat": card.seat, "keyed": None if card.seq in sealed else card.rank,
         "sealed": card.seq in sealed and card.rank is not None, "at": card.at}
        for card in face_down
        if card.receiver not in NEVER_TURNED_UP
    ]  # fmt: skip
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
