"""The bridge between a recorded hand and the rules engine.

A hand's engine is rebuilt from its start record and its card events and
decisions in sequence order: the same replay an auditor runs. Cards are read
as dealt (`CardEvent.objects.as_dealt()`): a corrected card plays its corrected rank.
"""

from collections.abc import Iterable

from django.db.models import Prefetch, prefetch_related_objects

from tables.games import Action, Move, new_game
from tables.games.base import CardEvent as EngineCard
from tables.games.base import DecisionEvent, Game
from tables.games.cards import Shoe as EngineShoe
from tables.models import ApprovalRequest, CardEvent, Decision, Hand, Receiver, Recycle

# Cards counted off but never revealed (Blackstone) stay out of the replay: they
# leave the shoe only once the hand is over.
UNREVEALED = Receiver.DISCARD


def seat_keyed(mapping: dict) -> dict:
    """JSON turns seat numbers into strings; the engine wants ints back."""
    return {int(seat): value for seat, value in mapping.items()}


def plain(value):
    """JSON-able as the database gives it back: tuples become lists, mapping keys strings."""
    if isinstance(value, dict):
        return {str(key): plain(item) for key, item in value.items()}
    if isinstance(value, (list, tuple)):
        return [plain(item) for item in value]
    return value


def engine_state(hand: Hand) -> dict:
    state = dict(hand.state)
    if "in_play" in state:
        state["in_play"] = seat_keyed(state["in_play"])
    return state


def start_engine(hand: Hand) -> Game:
    before = hand.shoe_before
    shoe = EngineShoe(hand.shoe.decks, remaining=before["remaining"], unseen=before["unseen"])
    return new_game(
        hand.game,
        hand.seats,
        seat_keyed(hand.stakes),
        hand.options,
        hand.carry_in,
        shoe,
        **engine_state(hand),
    )


HAND_RECORDS = (
    Prefetch("cards", CardEvent.objects.as_dealt().order_by("seq"), to_attr="card_list"),
    Prefetch("decisions", Decision.objects.order_by("seq"), to_attr="decision_list"),
    Prefetch("recycles", Recycle.objects.order_by("seq"), to_attr="recycle_list"),
    Prefetch("approvals", ApprovalRequest.objects.order_by("requested_at", "pk"), to_attr="approval_list"),
)
RECORD_LISTS = [prefetch.to_attr for prefetch in HAND_RECORDS]


def hand_records(hand: Hand) -> Hand:
    """`hand` with its cards, decisions, recycles and approval requests in order (`card_list`,
    `decision_list`, `recycle_list`, `approval_list`), each kind read once.

    A hand that already holds them keeps them: a service's step sets them to what it read and
    wrote under the hand's lock, so its answer screen reads none of them again. Like any model
    instance, such a hand shows the hand as it was then; read it again to see later changes.
    """
    prefetch_related_objects([hand], *HAND_RECORDS)
    return hand


def hand_records_again(hand: Hand) -> Hand:
    """Read the hand's records again, after a step wrote some it did not keep (a recycle)."""
    for name in RECORD_LISTS:
        hand.__dict__.pop(name, None)
    return hand_records(hand)


def hand_records_none(hand: Hand) -> Hand:
    """A hand just created: it has no records yet."""
    for name in RECORD_LISTS:
        setattr(hand, name, [])
    return hand


def replay(hand: Hand, cards: Iterable[CardEvent], decisions: Iterable[Decision],
           recycles: Iterable[Recycle]) -> Game:
    """The hand's game fed with these records of it (raises IllegalAction if they do not replay)."""
    dealt = [card for card in cards if card.receiver != UNREVEALED]
    return feed(start_engine(hand), sorted([*dealt, *decisions, *recycles], key=lambda event: event.seq))


def feed(game: Game, events: Iterable) -> Game:
    """Play the hand's events, in sequence order, into `game`. A recycle refills the engine's
    shoe with the discards; the burns after it leave the shoe without the rules seeing them."""
    for event in events:
        if isinstance(event, Recycle):
            game.shoe.remaining, game.shoe.unseen = list(event.ranks), 0
        elif isinstance(event, Decision):
            game.act(Action.parse(event.action))
        elif event.receiver == Receiver.BURN:
            _burn(game.shoe, event.rank)
        else:
            game.deal(event.rank)
    return game


def _burn(shoe: EngineShoe, rank: int | None) -> None:
    if rank is None:
        shoe.unseen += 1
    else:
        shoe.take(rank)


def engine_for(hand: Hand) -> Game:
    """The hand's game as its records in the database leave it."""
    cards = CardEvent.objects.as_dealt().filter(hand=hand)
    return replay(hand, cards, *(model.objects.filter(hand=hand) for model in (Decision, Recycle)))


def unrevealed_after_last_take(transcript: list) -> int:
    """Blackstone: cards counted for the last take that were never revealed."""
    for index in range(len(transcript) - 1, -1, -1):
        event = transcript[index]
        if isinstance(event, DecisionEvent) and event.action.move is Move.TAKE:
            revealed = sum(isinstance(later, EngineCard) for later in transcript[index + 1 :])
            return event.action.count - revealed
    return 0


def receiver_for(to: str, why: str) -> str:
    return Receiver.TIEBREAK if why == "tiebreak" else Receiver(to)
