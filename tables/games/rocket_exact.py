"""Rocket's exact house edge off the top of a freshly shuffled shoe of 1 to 8 decks.

In a fresh shoe every card not on the table is equally likely to come next, so when
a hand starts from the full shoe the cards left are the shoe less the player's and the
dealer's stacks: the state (own stack, dealer stack) fixes the composition. Dynamic
programming over all such states, as `rocket_edge` does for an endless shoe but with
each draw's odds taken from the cards really left, gives the exact expected result
of any strategy `fold(own_mask, dealer_mask)`, or with `fold=None` the best play for
the exact composition (the composition-dependent optimum: in a one-seat fresh-shoe
hand the two stacks are all the player could know).

Several seats: for a strategy that looks only at its own and the dealer's stacks,
one seat's expected result is the same whatever the other seats hold or do. Each
card is a uniform draw from the cards left, so the other seats' cards may as well
be taken from the bottom of the shoe: the seat and the dealer then get the top
cards in order, exactly as with one seat (the burn, face down, likewise). This
holds as long as the hand does not run the shoe dry (more than 50 cards in one
hand of one deck: six seats each hitting about eight times unpaired; never seen in
simulation). Checked against every deal order of small shoes, one and two seats, in
tests/games/test_rocket_exact.py. The start rule does not matter either: a seat's
cards alternate with the dealer's whoever starts.

Not covered: hands dealt after the first one of a shoe (the composition has
drifted, and the cut card ends a shoe earlier when many low cards came out); that
is what `tables.simulation` estimates. Floats (IEEE doubles): a value is a sum of
at most about 20 products of probabilities, exact to about 1e-15 tenths;
`fractions=True` computes in exact fractions (small shoes only: slow).

Pure like the rest of the engine: no clock, no `random`, no I/O.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from fractions import Fraction
from functools import lru_cache

from .cards import RANKS, composition
from .rocket import DEATH_CARD
from .rocket_fast import Fold, lowest

DEATH_CAP = 1  # a dealer never holds a 3: it ends the hand
STACK_CAP = 2  # before the hand ends at most one card of a rank sits in each of the two stacks


@dataclass(frozen=True)
class Values:
    """Exact values in tenths of the bet for one starting shoe: `acting[dealer][own]`,
    `waiting[dealer][own]` and `folds[dealer][own]` as in `rocket_edge.Tables`
    (dicts keyed by stack bitmasks), and `start`: a seat's expected result before
    any card. Unreachable states are absent."""

    counts: tuple[int, ...]
    acting: dict[int, dict[int, float]]
    waiting: dict[int, dict[int, float]]
    folds: dict[int, dict[int, bool]]
    start: float

    @property
    def edge(self) -> float:
        """The house edge per unit bet (0.05 is 5%)."""
        return -self.start / 10

    def fold(self, own: int, dealer: int) -> bool:
        """The values' own strategy as a fast-path `fold` function."""
        return self.folds[dealer][own]


def _submasks(ranks: Sequence[int]) -> list[int]:
    """Every stack of `ranks` (the empty one included), largest first."""
    masks = [sum(1 << ranks[i] for i in range(len(ranks)) if m >> i & 1) for m in range(1 << len(ranks))]
    return sorted(masks, key=lambda mask: -mask.bit_count())


def check_shoe(counts: Sequence[int]) -> None:
    """Raise ValueError unless no one-seat hand can run a shoe of `counts` (indexed by rank) dry."""
    caps = sum(min(n, DEATH_CAP if r == DEATH_CARD else STACK_CAP) for r, n in enumerate(counts) if r)
    if sum(counts) <= caps or any(n < 0 for n in counts):
        raise ValueError(f"A shoe of {list(counts[1:])} could run dry within one hand.")


def solve(counts: Sequence[int], fold: Fold | None = None, fractions: bool = False) -> Values:
    """Exact values of strategy `fold` (None: the composition-dependent optimum) for a hand
    dealt from the top of a shuffled shoe holding `counts[r]` cards of rank r (index 0 unused)."""
    check_shoe(counts)
    counts = tuple(counts) + (0,) * (len(RANKS) + 1 - len(counts))  # short lists: no higher ranks
    present = [r for r in RANKS if counts[r]]
    owns = [mask for mask in _submasks(present) if mask]
    acting: dict[int, dict[int, float]] = {}
    waiting: dict[int, dict[int, float]] = {}
    folds: dict[int, dict[int, bool]] = {}
    div = Fraction if fractions else (lambda a, b: a / b)
    for dealer in _submasks([r for r in present if r != DEATH_CARD])[:-1]:  # the dealer holds a card
        left = [n - (dealer >> r & 1) for r, n in enumerate(counts)]
        # Stacks that need a card the shoe does not hold (a 1 in both stacks of one deck) never happen.
        mine = [own for own in owns if all(left[r] > 0 for r in RANKS if own >> r & 1)]
        waiting[dealer] = _waiting(dealer, left, mine, acting, div)
        acting[dealer], folds[dealer] = _acting(dealer, left, mine, waiting[dealer], fold, div)
    start = _start(counts, present, acting, div)
    return Values(counts, acting, waiting, folds, start)


def _waiting(dealer: int, left: list[int], mine: list[int], acting: dict, div) -> dict[int, float]:
    """The dealer draws: a 3 or a pair pays the player; else the player acts again."""
    values = {}
    total = sum(left)
    for own in mine:
        paid = 0
        rest = 0
        for d in RANKS:
            n = left[d] - (own >> d & 1)
            if not n:
                continue
            if d == DEATH_CARD or dealer >> d & 1:
                paid += n * d
            else:
                rest += n * acting[dealer | 1 << d][own]
        values[own] = div(paid + rest, total - own.bit_count())
    return values


def _acting(
    dealer: int, left: list[int], mine: list[int], waiting: dict, fold: Fold | None, div
) -> tuple[dict[int, float], dict[int, bool]]:
    """The player folds (pays the lowest card of both stacks) or hits (pays a pair, else waits)."""
    values, folds = {}, {}
    total = sum(left)
    low_dealer = lowest(dealer)
    for own in mine:
        hit = 0
        for c in RANKS:
            n = left[c] - (own >> c & 1)
            if n:
                hit += n * (-c if own >> c & 1 else waiting[own | 1 << c])
        hit = div(hit, total - own.bit_count())
        price = -min(lowest(own), low_dealer)
        folds[own] = price > hit if fold is None else fold(own, dealer)
        values[own] = price if folds[own] else hit
    return values, folds


def _start(counts: tuple[int, ...], present: list[int], acting: dict, div) -> float:
    """Before any card: the seat's first card, then the dealer's (a 3 pays 3 tenths at once)."""
    total = sum(counts)
    value = 0
    for c in present:
        own = 1 << c
        after = 0
        for d in present:
            n = counts[d] - (d == c)
            if n:
                after += n * (DEATH_CARD if d == DEATH_CARD else acting[1 << d][own])
        value += counts[c] * div(after, total - 1)
    return div(value, total)


@lru_cache(maxsize=32)
def fresh_shoe(decks: int, name: str, fold: Fold | None) -> Values:
    """`solve` for a fresh shoe of `decks` Pairs decks, kept per (decks, strategy name): a
    solve takes a few seconds."""
    return solve(composition(decks), fold)
