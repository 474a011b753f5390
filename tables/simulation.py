"""Simulated play: shuffled shoes, named strategies, and a runner using every core.

Outside `tables/games` because it draws random numbers and starts processes; it
imports nothing from Django. Shoes follow RULINGS.md (burn after every shuffle,
a cut card at 0.8 penetration for Rocket, a dry shoe refilled from the discards
mid-hand). Rocket runs on the fast path by default (`tables.games.rocket_fast`,
tested equal to the checked engine) or, with `checked=True`, through the checked
engine like every other game. Results come with a 95% confidence interval.

Reproducibility: with a seed, hands are split into fixed chunks of
`CHUNK_HANDS`, chunk i shuffles with `random.Random(f"{seed}:{i}")`, so a run
gives the same figures whatever the number of workers. Without a seed every
shuffle uses the operating system's CSPRNG (`secrets.SystemRandom`).
"""

from __future__ import annotations

import math
import random
import re
import secrets
import time
from collections.abc import Callable, Sequence
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass, field

from tables.games import CardDue, DecisionDue, Finished, IllegalAction, Move, new_game
from tables.games.base import DEALER, SEAT
from tables.games.cards import DECK_SIZE, RANKS
from tables.games.rocket import TENTH, Start
from tables.games.rocket_fast import Fold, button_index, lowest, play

BURN = 5  # RULINGS: burn 5 cards face down after every shuffle (option 0..10)
MAX_BURN = 10
PENETRATION = 0.8  # RULINGS: the cut card sits at 0.8 of 55 x D cards from the top, burn included
CHUNK_HANDS = 20_000  # hands per work unit: large enough to hide process overhead, small to balance cores
Z95 = 1.959963984540054  # two-sided 95% normal quantile
GAMES = ("rocket", "blackstone", "starboard", "pairs")


# -- shoes -------------------------------------------------------------------


class SimShoe:
    """A simulated shoe of `decks` Pairs decks, dealt from `order[pos]`.

    `penetration` (a fraction, or None for no cut card) places the cut card,
    counted from the top with the burn; once it has come out, `begin_hand`
    reshuffles the whole shoe. A shoe that runs dry mid-hand is refilled from the
    discards only (cards of earlier hands and the burn pile), burned again, and
    play goes on; `end_hand` moves the hand's cards to the discards except those
    kept (Pairs scores). `rng` shuffles: seeded `random.Random` or `SystemRandom`.
    """

    def __init__(self, decks: int, rng: random.Random, burn: int = BURN, penetration: float | None = PENETRATION):
        if not 0 <= burn <= MAX_BURN:
            raise IllegalAction(f"The burn is 0 to {MAX_BURN} cards, not {burn!r}.")
        self.full = [rank for rank in RANKS for _ in range(decks * rank)]
        self.rng, self.burn = rng, burn
        self.penetration = penetration
        self.cut = len(self.full) if penetration is None else round(penetration * DECK_SIZE * decks)
        self.cut_out = False
        self.order: list[int] = []
        self.pos = self.hand_start = 0
        self.discards: list[int] = []
        self.earlier: list[int] = []  # this hand's cards dealt before a mid-hand refill
        self.shuffles = self.refills = 0
        self.shuffle()

    def shuffle(self) -> None:
        """Gather every card, shuffle, burn."""
        self.order = list(self.full)
        self.rng.shuffle(self.order)
        self.shuffles += 1
        self.discards = self.order[: self.burn]
        self.pos = self.hand_start = self.burn
        self.cut_out = False

    def begin_hand(self) -> None:
        if self.cut_out or self.pos >= self.cut:
            self.shuffle()
        self.hand_start = self.pos
        self.earlier = []

    def draw(self) -> int:
        if self.pos == len(self.order):
            self.refill()
        card = self.order[self.pos]
        self.pos += 1
        return card

    def refill(self) -> None:
        """Dry mid-hand: shuffle the discards (never a card on the table), burn, go on."""
        self.earlier += self.order[self.hand_start : self.pos]
        if not self.discards:
            raise IllegalAction("The shoe is empty and every card is on the table.")
        self.order, self.discards = self.discards, []
        self.rng.shuffle(self.order)
        self.refills += 1
        burn = min(self.burn, len(self.order) - 1)  # always leave the card that is due
        self.discards = self.order[:burn]
        self.pos = self.hand_start = burn
        # A cut card is long out when a shoe runs dry: reshuffle everything before the next hand.
        self.cut_out = self.penetration is not None

    def end_hand(self, kept: Sequence[int] = ()) -> None:
        """The hand is over: its cards go to the discards, except `kept` (Pairs scores, cards still in play)."""
        cards = self.order[self.hand_start : self.pos]
        if self.earlier:
            cards = self.earlier + cards
            self.earlier = []
        if kept:
            for rank in kept:
                cards.remove(rank)
        self.discards += cards
        self.hand_start = self.pos

    def release(self, cards: Sequence[int]) -> None:
        """Cards kept out of earlier hands (Pairs scores) go back to the discards."""
        self.discards += cards


def shuffler(seed: int | str | None, chunk: int) -> random.Random:
    """The chunk's random source: reproducible from the seed, else the OS CSPRNG."""
    if seed is None:
        return secrets.SystemRandom()
    return random.Random(f"{seed}:{chunk}")


# -- Rocket strategies -------------------------------------------------------

# RANK_SUM[mask]: sum of the ranks in a stack bitmask (bits 1..10).
RANK_SUM = [sum(r for r in RANKS if mask >> r & 1) for mask in range(1 << (max(RANKS) + 1))]
# RANK_SQUARES[mask]: sum of r*r, the expected pair cost of a hit times 55 (rank r is r/55 of a deck).
RANK_SQUARES = [sum(r * r for r in RANKS if mask >> r & 1) for mask in range(1 << (max(RANKS) + 1))]


def always_hit(own: int, dealer: int) -> bool:
    """Never fold."""
    return False


def fold_at_most(k: int) -> Fold:
    """Fold when the fold price is at most k tenths (lowest card of both stacks <= k)."""
    limit = 1 << k

    def fold(own: int, dealer: int) -> bool:
        both = own | dealer
        return both & -both <= limit  # the lowest set bit is 1 << (lowest rank)

    fold.__name__ = f"fold_at_most_{k}"
    return fold


def pair_chance(own: int, dealer: int) -> bool:
    """Fold when a hit pairs more often than the fold price's share of the bet:
    sum(own ranks)/55 > price/10, with a fresh shoe's odds (no counting)."""
    both = own | dealer
    return 10 * RANK_SUM[own] > DECK_SIZE * lowest(both)


def pair_cost(own: int, dealer: int) -> bool:
    """Fold when a hit's expected pair cost, sum(r * r/55) tenths, exceeds the fold price."""
    both = own | dealer
    return RANK_SQUARES[own] > DECK_SIZE * lowest(both)


ROCKET_STRATEGIES: dict[str, Fold] = {
    "always_hit": always_hit,
    "pair_chance": pair_chance,
    "pair_cost": pair_cost,
}
FOLD_AT_MOST = re.compile(r"fold_at_most_(\d+)$")


def rocket_strategy(name: str) -> Fold:
    """A Rocket strategy by name: always_hit, fold_at_most_K (K = 0..10), pair_chance, pair_cost."""
    if name in ROCKET_STRATEGIES:
        return ROCKET_STRATEGIES[name]
    match = FOLD_AT_MOST.match(name)
    if match and int(match.group(1)) <= max(RANKS):
        return fold_at_most(int(match.group(1)))
    names = ", ".join([*ROCKET_STRATEGIES, "fold_at_most_K"])
    raise IllegalAction(f"Unknown Rocket strategy {name!r}; expected one of {names}.")


# -- pot-game and checked-engine strategies -----------------------------------

Choose = Callable[[object, DecisionDue], tuple]
"""A checked-engine strategy: given the game and the decision due, the action record to play."""


def random_legal(rng: random.Random) -> Choose:
    """Any legal move, uniformly; Blackstone takes the minimum or up to two more cards;
    a Continuous Pairs fold takes any card it may."""

    def choose(game, due: DecisionDue) -> tuple:
        move = rng.choice(due.moves)
        if move is Move.TAKE:
            top = due.min_take if due.max_take is None else min(due.max_take, due.min_take + 2)
            return (move.value, rng.randint(due.min_take, top))
        if move is Move.FOLD and due.fold_cards:
            return (move.value, *rng.choice(due.fold_cards))
        return (move.value,)

    return choose


def cautious(rng: random.Random) -> Choose:
    """A simple player: hits/draws/takes the minimum, folding or locking one time in four."""
    quiet = (Move.FOLD, Move.LOCK)

    def choose(game, due: DecisionDue) -> tuple:
        careful = [m for m in due.moves if m in quiet]
        bold = [m for m in due.moves if m not in quiet]
        move = rng.choice(careful) if careful and (not bold or rng.random() < 0.25) else bold[0]
        if move is Move.TAKE:
            return (move.value, due.min_take)
        if move is Move.FOLD and due.fold_cards:
            return (move.value, *min(due.fold_cards, key=lambda card: card[1]))
        return (move.value,)

    return choose


POT_STRATEGIES: dict[str, Callable[[random.Random], Choose]] = {"random": random_legal, "cautious": cautious}


def rocket_chooser(fold: Fold) -> Choose:
    """Ask a fast-path Rocket strategy from the checked engine, with stacks read off the transcript."""

    def choose(game, due: DecisionDue) -> tuple:
        own = dealer = 0
        for event in game.transcript:
            if getattr(event, "to", None) == SEAT and event.seat == due.seat:
                own |= 1 << event.rank
            elif getattr(event, "to", None) == DEALER:
                dealer |= 1 << event.rank
        return ("fold",) if fold(own, dealer) else ("hit",)

    return choose


def play_checked(game, shoe: SimShoe, choose: Choose):
    """Play `game` through the checked engine to the end, cards from `shoe`; return the settlement."""
    while True:
        due = game.next
        if due.__class__ is CardDue:
            game.deal(shoe.draw())
        elif due.__class__ is DecisionDue:
            game.act(choose(game, due))
        else:
            return due.settlement
