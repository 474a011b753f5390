"""The bridge between a recorded hand and the rules engine.

A hand's engine is rebuilt from its start record and its card events and
decisions in sequence order: the same replay an auditor runs.
"""

from collections.abc import Iterable

from tables.games import Action, Move, new_game
from tables.games.base import CardEvent as EngineCard
from tables.games.base import DecisionEvent, Game
from tables.games.cards import Shoe as EngineShoe
from tables.models import CardEvent, Decision, Hand, Receiver

# Cards the rules never see: burns, and cards counted off but not revealed.
UNSEEN_BY_RULES = (Receiver.BURN, Receiver.DISCARD)


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
    cards = CardEvent.objects.filter(hand=hand).exclude(receiver__in=UNSEEN_BY_RULES)
    return sorted([*cards, *Decision.objects.filter(hand=hand)], key=lambda event: event.seq)


def feed(game: Game, events: Iterable) -> Game:
    for event in events:
        if isinstance(event, CardEvent):
            game.deal(event.rank)
        else:
            game.act(Action.parse(event.action))
    return game


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
