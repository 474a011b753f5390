"""Replay a whole hand from its recorded cards and decisions."""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass

from .base import CardDue, CardEvent, DecisionEvent, Game, Settlement
from .cards import Shoe
from .errors import IllegalAction


@dataclass(frozen=True)
class Replay:
    settlement: Settlement
    transcript: tuple[CardEvent | DecisionEvent, ...]
    cards_used: int
    options: dict


def games() -> dict[str, type[Game]]:
    from .blackstone import Blackstone
    from .five_cards import FiveCards
    from .goblin_poker import GoblinPoker
    from .hawthorn import Hawthorn
    from .kitty import Kitty
    from .monster import Monster
    from .pairs import Pairs
    from .pickup import Pickup
    from .port import Port
    from .regent import Regent
    from .rocket import Rocket
    from .starboard import Starboard
    from .sweep import Sweep
    from .troll_guts import TrollGuts
    from .venture import Venture

    secret_hands = (Hawthorn, GoblinPoker, Monster, Regent, TrollGuts)
    points = (Port, Pickup, FiveCards, Venture, Kitty, Sweep)  # the points and bidding games
    return {g.name: g for g in (Rocket, Blackstone, Starboard, Pairs, *secret_hands, *points)}


def new_game(
    game: str, seats, stakes, options=None, carry: int = 0, shoe: Shoe | None = None, **state
) -> Game:
    """Start a game by name ("rocket", "blackstone", "starboard", "pairs", or a secret-hand game:
    "hawthorn", "goblin_poker", "monster", "regent", "troll_guts").

    `state` passes game-specific facts that are not house rules (for example
    the cards a Continuous Pairs game still has in play); see each game.
    """
    try:
        cls = games()[game]
    except KeyError:
        raise IllegalAction(f"Unknown game {game!r}; expected one of {', '.join(games())}.") from None
    return cls(seats, stakes, options=options, carry=carry, shoe=shoe, **state)


def replay(
    game: str,
    seats: Sequence[int],
    stakes: Mapping[int, int],
    cards: Iterable[int],
    decisions: Iterable[tuple],
    options: Mapping | None = None,
    carry: int = 0,
    *,
    shoe: Shoe | None = None,
    **state,
) -> Replay:
    """Play a hand through the engine from its record and return its settlement.

    `seats` are the seat numbers playing, clockwise from the dealer's left;
    `stakes` maps each seat to its Rocket bet or, for pot games, the chips in
    front of it (for Pairs: its score going in); `cards` are the ranks in the
    order they were revealed (None for a card dealt face down that nobody saw:
    the secret-hand games' reveals then name it); `decisions` are tuples such as ("hit",),
    ("take", 3) in the order they were made; `carry` is the pot carried in.
    Cards left over once the hand is finished are not used (`cards_used` says
    how many were); a decision left over, or a record that ends before the hand
    does, raises IllegalAction. `shoe` is what the shoe held before the hand
    (default: a fresh one); `state` is passed on to the game (see `new_game`).
    """
    g = new_game(game, seats, stakes, options, carry, shoe, **state)
    cards, decisions = list(cards), [tuple(d) for d in decisions]
    used = made = 0
    while not g.finished:
        due = g.next
        if isinstance(due, CardDue):
            if used == len(cards):
                raise IllegalAction(f"The record ends early: the game expects {due.describe()}.")
            g.deal(cards[used])
            used += 1
        else:
            if made == len(decisions):
                raise IllegalAction(f"The record ends early: the game expects {due.describe()}.")
            g.act(decisions[made])
            made += 1
    if made != len(decisions):
        raise IllegalAction(f"The hand ended with {len(decisions) - made} decision(s) left over.")
    return Replay(g.settlement(), tuple(g.transcript), used, g.options.as_record())
