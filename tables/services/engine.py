"""The bridge between a recorded hand and the rules engine.

A hand's engine is rebuilt from its start record and its card events and
decisions in sequence order: the same replay an auditor runs.
"""

from collections.abc import Iterable

from tables.games import Action, Move, new_game
from tables.games.base import CardEvent as EngineCard
from tables.games.base import DecisionEvent, Game
from tables.games.cards import Shoe as EngineShoe
from tables.models import CardEvent, Decision, Hand, Receiver, Recycle

# Cards counted off but never revealed (Blackstone) stay out of the replay: they
# leave the shoe only once the hand is over.
UNREVEALED = Receiver.DISCARD


def seat_keyed(mapping: dict) -> dict:
    """JSON turns seat numbers into strings; the engine wants ints back."""
    return {int(seat): value for seat, value in mapping.items()}


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


def recorded_events(hand: Hand) -> list:
    cards = CardEvent.objects.filter(hand=hand).exclude(receiver=UNREVEALED)
    events = [*cards, *Decision.objects.filter(hand=hand), *Recycle.objects.filter(hand=hand)]
    return sorted(events, key=lambda event: event.seq)


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
    """The hand's game as its records leave it (raises IllegalAction if they do not replay)."""
    return feed(start_engine(hand), recorded_events(hand))


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
