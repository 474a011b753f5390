"""Rocket's house edge, exactly for an endless shoe and variance-reduced for a real one.

Endless shoe (every card drawn with the fresh-deck odds r/55): a player's fate
depends only on their own stack and the dealer's, so two tables, built backwards
from full stacks, give the exact expected result of any strategy
`fold(own_mask, dealer_mask)`, in tenths of the bet:

- `acting[D][own]`: the player is about to fold or hit;
- `waiting[D][own]`: the player has hit safely and the dealer draws next.

With `fold=None` the tables play the best strategy for an endless shoe
(`best_fold` reads it back); `edge` is the exact house edge per unit bet.

A real shoe (finite, with a cut card) drifts from those odds as cards come out.
`play_adjusted` plays a hand like `rocket_fast.play` and also returns a
*luck-adjusted* result: after every card, it replaces the value the card brought
by its expectation over the cards really left in the shoe (a martingale control
variate, as in AIVAT for poker). The adjusted result has exactly the same mean as
the real one, so it estimates the same house edge, with a far smaller variance
because the tables already know what each card is worth. Tested against plain
simulation in tests/games/test_rocket_edge.py.

Pure like the rest of the engine: no clock, no `random`, no I/O.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from functools import lru_cache

from .cards import DECK_SIZE, RANKS
from .rocket import DEATH_CARD
from .rocket_fast import DEATH_BIT, CardSource, Fold, lowest

MASKS = 1 << (max(RANKS) + 1)  # stack bitmasks use bits 1..10
ODDS = [0.0] + [rank / DECK_SIZE for rank in RANKS]  # an endless shoe: rank r is r/55 of every card
DEALER_RANKS = tuple(r for r in RANKS if r != DEATH_CARD)  # the dealer never holds a 3: it ends the hand
# Sum of r * r/55 over a stack: a hit's expected pair cost in tenths.
PAIR_COST = [sum(r * ODDS[r] for r in RANKS if mask >> r & 1) for mask in range(MASKS)]


def _by_size(ranks: Sequence[int]) -> list[int]:
    """Every non-empty stack of `ranks`, largest first (each depends on bigger ones)."""
    masks = range(1, 1 << len(ranks))
    stacks = [sum(1 << ranks[i] for i in range(len(ranks)) if m >> i & 1) for m in masks]
    return sorted(stacks, key=lambda mask: -mask.bit_count())


OWN_STACKS = _by_size(RANKS)
DEALER_STACKS = _by_size(DEALER_RANKS)


@dataclass(frozen=True)
class Tables:
    """Endless-shoe values in tenths: `acting[D][own]`, `waiting[D][own]`, `folds[D][own]`
    (the strategy's choice), and `first[own]`: a player holding only the first card,
    before the dealer's first card."""

    acting: dict[int, list[float]]
    waiting: dict[int, list[float]]
    folds: dict[int, list[bool]]
    first: list[float]

    @property
    def start(self) -> float:
        """A seat's expected result before any card, in tenths of its bet."""
        return sum(ODDS[c] * self.first[1 << c] for c in RANKS)

    @property
    def edge(self) -> float:
        """The house edge per unit bet in an endless shoe (0.05 is 5%)."""
        return -self.start / 10

    def fold(self, own: int, dealer: int) -> bool:
        """The tables' own strategy as a fast-path `fold` function."""
        return self.folds[dealer][own]


def build_tables(fold: Fold | None = None) -> Tables:
    """Exact endless-shoe values for strategy `fold` (None: the best strategy)."""
    acting: dict[int, list[float]] = {}
    waiting: dict[int, list[float]] = {}
    folds: dict[int, list[bool]] = {}
    for dealer in DEALER_STACKS:
        waiting[dealer] = _waiting(dealer, acting)
        acting[dealer], folds[dealer] = _acting(dealer, waiting[dealer], fold)
    first = [0.0] * MASKS
    for c in RANKS:
        own = 1 << c
        first[own] = ODDS[DEATH_CARD] * DEATH_CARD + sum(ODDS[d] * acting[1 << d][own] for d in DEALER_RANKS)
    return Tables(acting, waiting, folds, first)


def _waiting(dealer: int, acting: dict[int, list[float]]) -> list[float]:
    """The dealer draws: a 3 or a pair pays the player; else the player acts again."""
    paid = ODDS[DEATH_CARD] * DEATH_CARD + sum(ODDS[d] * d for d in RANKS if dealer >> d & 1)
    values = [paid] * MASKS
    for d in DEALER_RANKS:
        if not dealer >> d & 1:
            odds, after = ODDS[d], acting[dealer | 1 << d]
            values = [v + odds * a for v, a in zip(values, after, strict=True)]
    return values


def _acting(dealer: int, waiting: list[float], fold: Fold | None) -> tuple[list[float], list[bool]]:
    """The player folds (pays the lowest card of both stacks) or hits (pays a pair, else waits)."""
    values, folds = [0.0] * MASKS, [False] * MASKS
    low_dealer = lowest(dealer)
    for own in OWN_STACKS:
        hit = -PAIR_COST[own]
        for c in RANKS:
            bit = 1 << c
            if not own & bit:
                hit += ODDS[c] * waiting[own | bit]
        price = -min(lowest(own), low_dealer)
        folds[own] = price > hit if fold is None else fold(own, dealer)
        values[own] = price if folds[own] else hit
    return values, folds


@lru_cache(maxsize=8)
def tables_for(name: str, fold: Fold | None) -> Tables:
    """`build_tables`, kept per strategy name: a build takes seconds."""
    return build_tables(fold)


def shoe_counts(order: Sequence[int], pos: int) -> list[int]:
    """How many of each rank are left undealt in `order` from `pos`."""
    counts = [0] * (len(RANKS) + 1)
    for rank in order[pos:]:
        counts[rank] += 1
    return counts


def play_adjusted(
    tenths: Sequence[int],
    source: CardSource,
    tables: Tables,
    counts: list[int],
    starter: int = 0,
    button: Callable[[list[int]], int] | None = None,
) -> tuple[list[int], float, int, int]:
    """Play one hand as `rocket_fast.play` does, with the tables' own strategy; return
    (units won per seat, the luck-adjusted total the seats won in units, cards used,
    starter); `starter` and `button` as in `rocket_fast.play`.

    `counts` are the ranks left undealt in `source` (see `shoe_counts`); they are
    kept up to date here (also across a mid-hand refill) and must be refreshed by
    the caller after a reshuffle between hands. The adjusted total is the endless-
    shoe start value plus, for every card, the card's expected value over the
    cards really left less its expected value under the endless shoe's odds.
    """
    n = len(tenths)
    acting, waiting, folds, first = tables.acting, tables.waiting, tables.folds, tables.first
    adjusted = sum(tenths) * tables.start
    own = [0] * n
    deltas = [0] * n
    order, pos, used = source.order, source.pos, 0
    for i in range(n):
        if pos == len(order):
            order, pos = _refill(source, pos, counts)
        total = sum(counts[c] * first[1 << c] for c in RANKS)
        adjusted += tenths[i] * (total / (len(order) - pos) - tables.start)
        card = order[pos]
        pos += 1
        used += 1
        counts[card] -= 1
        own[i] = 1 << card
    if button is not None:
        starter = button([lowest(mask) for mask in own])
    # The dealer's first card: a 3 pays 3 tenths, else each player acts.
    if pos == len(order):
        order, pos = _refill(source, pos, counts)
    left = len(order) - pos
    for i in range(n):
        mine = own[i]
        total = counts[DEATH_CARD] * DEATH_CARD + sum(counts[d] * acting[1 << d][mine] for d in DEALER_RANKS)
        adjusted += tenths[i] * (total / left - first[mine])
    card = order[pos]
    pos += 1
    used += 1
    counts[card] -= 1
    if card == DEATH_CARD:
        source.pos = pos
        return [t * DEATH_CARD for t in tenths], adjusted, used, starter
    dealer = 1 << card
    live = list(range(starter, n)) + list(range(starter))
    while live:
        still = []
        act, wait, fold = acting[dealer], waiting[dealer], folds[dealer]
        for i in live:
            mine = own[i]
            if fold[mine]:
                deltas[i] = -tenths[i] * lowest(mine | dealer)
                continue
            if pos == len(order):
                order, pos = _refill(source, pos, counts)
            total = 0.0
            for c in RANKS:
                bit = 1 << c
                total += counts[c] * (-c if mine & bit else wait[mine | bit])
            adjusted += tenths[i] * (total / (len(order) - pos) - act[mine])
            card = order[pos]
            pos += 1
            used += 1
            counts[card] -= 1
            bit = 1 << card
            if mine & bit:
                deltas[i] = -tenths[i] * card
            else:
                own[i] = mine | bit
                still.append(i)
        live = still
        if not live:
            break
        if pos == len(order):
            order, pos = _refill(source, pos, counts)
        left = len(order) - pos
        paid = counts[DEATH_CARD] * DEATH_CARD
        unseen = []
        for d in DEALER_RANKS:
            if dealer >> d & 1:
                paid += counts[d] * d
            else:
                unseen.append((counts[d], acting[dealer | 1 << d]))
        for i in live:
            mine = own[i]
            total = paid
            for count, after in unseen:
                total += count * after[mine]
            adjusted += tenths[i] * (total / left - wait[mine])
        card = order[pos]
        pos += 1
        used += 1
        counts[card] -= 1
        bit = 1 << card
        if bit == DEATH_BIT or dealer & bit:
            for i in live:
                deltas[i] = tenths[i] * card
            break
        dealer |= bit
    source.pos = pos
    return deltas, adjusted, used, starter


def _refill(source: CardSource, pos: int, counts: list[int]) -> tuple[list[int], int]:
    """The shoe ran dry mid-hand: refill it and count what it now holds."""
    source.pos = pos
    source.refill()
    counts[:] = shoe_counts(source.order, source.pos)
    return source.order, source.pos
