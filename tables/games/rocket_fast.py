"""A fast Rocket hand for simulations: the rules of `rocket.Rocket`, in plain ints.

The checked engine builds a dataclass for every step and checks every card, which
is right at a live table and too slow for millions of simulated hands. This
module plays the same hand with bitmasks and lists: a stack is an int whose bit r
is set when it holds rank r; a strategy is a function
`fold(own_mask, dealer_mask) -> bool`. It trusts its card source (no shoe checks)
and settles in units per seat. `tests/games/test_rocket_fast.py` checks that it
agrees exactly with the checked engine on the same cards and decisions.

Like the checked engine this is pure: no clock, no `random`, no I/O.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Protocol

from .errors import IllegalAction
from .rocket import DEATH_CARD, TENTH, RocketOptions, Start, check_table

Fold = Callable[[int, int], bool]
"""A strategy: given the player's stack and the dealer's stack as rank bitmasks, fold?"""

DEATH_BIT = 1 << DEATH_CARD


class CardSource(Protocol):
    """Where the fast path takes cards: `order[pos]` is the next card.

    When `pos` reaches `len(order)` the fast path stores `pos` and calls
    `refill()`, which must give a fresh `order` and `pos` (a simulation's shoe
    reshuffles its discards; a recorded hand has no more cards and raises).
    """

    order: list[int]
    pos: int

    def refill(self) -> None: ...


def lowest(mask: int) -> int:
    """The lowest rank in a non-empty rank bitmask."""
    return (mask & -mask).bit_length() - 1


def play(
    tenths: Sequence[int],
    source: CardSource,
    fold: Fold,
    starter: int = 0,
    button: Callable[[list[int]], int] | None = None,
) -> tuple[list[int], int, int]:
    """Play one hand; return (units won by each seat, negative when it pays; cards used; starter).

    `tenths[i]` is seat i's bet / 10, seats in clockwise order; `starter` is the
    index of the seat that acts first, unless `button` is given: then the
    starter is `button(first cards)` (see `button_index`). Kept in one
    function, with the draw inlined, because this loop is what a simulation
    spends its time in.
    """
    n = len(tenths)
    deltas = [0] * n
    own = [0] * n
    order, pos = source.order, source.pos
    start = pos
    used = 0
    for i in range(n):
        if pos == len(order):
            used += pos - start
            order, pos = _refill(source, pos)
            start = pos
        own[i] = 1 << order[pos]
        pos += 1
    if button is not None:
        starter = button([lowest(mask) for mask in own])
    if pos == len(order):
        used += pos - start
        order, pos = _refill(source, pos)
        start = pos
    card = order[pos]
    pos += 1
    if card == DEATH_CARD:
        source.pos = pos
        return [t * DEATH_CARD for t in tenths], used + pos - start, starter
    dealer = 1 << card
    live = list(range(starter, n)) + list(range(starter))
    while live:
        still = []
        for i in live:
            mine = own[i]
            if fold(mine, dealer):
                deltas[i] = -tenths[i] * lowest(mine | dealer)
                continue
            if pos == len(order):
                used += pos - start
                order, pos = _refill(source, pos)
                start = pos
            card = order[pos]
            pos += 1
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
            used += pos - start
            order, pos = _refill(source, pos)
            start = pos
        card = order[pos]
        pos += 1
        bit = 1 << card
        if bit == DEATH_BIT or dealer & bit:
            for i in live:
                deltas[i] = tenths[i] * card
            break
        dealer |= bit
    source.pos = pos
    return deltas, used + pos - start, starter


def _refill(source: CardSource, pos: int) -> tuple[list[int], int]:
    """The source ran dry mid-hand: let it refill (a shoe reshuffles its discards)."""
    source.pos = pos
    source.refill()
    return source.order, source.pos


def button_index(seats: Sequence[int], first: Sequence[int], previous_button: int | None) -> int:
    """Index of the seat with the single lowest first card; ties go to the tied seat
    met first clockwise from the seat after `previous_button` (which comes last),
    or the lowest seat when there was no previous button. Seats are ascending."""
    low = min(first)
    best = -1
    for i, rank in enumerate(first):
        if rank != low:
            continue
        if best < 0:
            best = i
        elif previous_button is not None and seats[best] <= previous_button < seats[i]:
            best = i  # an earlier seat wrapped round; this one comes first after the button
    return best


class _Recorded:
    """A card source over a recorded sequence or iterator, one card at a time."""

    def __init__(self, cards: Iterable[int]):
        self._cards = iter(cards)
        self.order: list[int] = []
        self.pos = 0

    def refill(self) -> None:
        try:
            self.order = [next(self._cards)]
        except StopIteration:
            raise IllegalAction("The card record ends before the hand does.") from None
        self.pos = 0


@dataclass(frozen=True)
class FastHand:
    """The result of `play_hand`: units won per seat, cards used, and the starter seat."""

    deltas: dict[int, int]
    cards_used: int
    starter: int

    @property
    def house(self) -> int:
        return -sum(self.deltas.values())


def play_hand(
    bets: Mapping[int, int],
    cards: Iterable[int],
    fold: Fold,
    options: Mapping | RocketOptions | None = None,
) -> FastHand:
    """Play one Rocket hand fast from `bets` (seat -> units), a card sequence or iterator,
    and a `fold(own_mask, dealer_mask)` strategy, under Rocket's `options` (decks,
    start, previous_button). Checks the table as the engine does, not the cards.
    """
    if not isinstance(options, RocketOptions):
        options = RocketOptions.build(options)
    seats = tuple(sorted(bets))
    check_table(seats, dict(bets))
    tenths = [bets[s] // TENTH for s in seats]
    source = _Recorded(cards)
    button = None
    if options.start == Start.BUTTON:
        previous = options.previous_button
        button = lambda first: button_index(seats, first, previous)  # noqa: E731
    deltas, used, starter = play(tenths, source, fold, 0, button)
    return FastHand(dict(zip(seats, deltas, strict=True)), used, seats[starter])
