"""A strategy chart for Rocket: the best play as a grid a player or a floor person can read.

The best basic strategy (`rocket_edge`, endless shoe) folds on about 330,000 of the
520,000 (own stack, dealer stack) pairs: no one reads that. What decides is how
much a hit risks (the higher your cards, the likelier and dearer a pair), how much
the dealer's pair would pay (the dealer's cards), and the fold price (the lowest
card on the table). So the chart's rows are the total of your cards, its columns
the total of the dealer's cards, each in bands of `CHART_BAND`, and each cell says
"fold when the lowest card on the table is K or less" (0: always hit).

Each cell's K is the one that loses least against the best play, summed over the
stacks of the cell weighted by how often the best player reaches them (endless-shoe
odds). The chart is a strategy like any other; its exact edge (endless shoe here,
any fresh shoe with `rocket_exact.solve`) says what reading it costs: about 0.16
points over `best` with bands of 5 (docs/simulation.md).

Pure like the rest of the engine: no clock, no `random`, no I/O.
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass
from functools import lru_cache

from .cards import RANKS
from .rocket_edge import DEALER_RANKS, ODDS, Tables, tables_for
from .rocket_fast import lowest

CHART_BAND = 5  # stack totals grouped by 5: an 11 x 11 grid, within 0.2 points of the best play
TOTAL = [sum(r for r in RANKS if mask >> r & 1) for mask in range(1 << (max(RANKS) + 1))]
HIT = 0  # a cell's K when the player never folds there


@dataclass(frozen=True)
class Chart:
    """`cells[(own band, dealer band)]` = K: fold when the lowest card of both stacks is at most K.
    Band i holds totals i * band to i * band + band - 1; cells the best player never reaches are
    absent (hit)."""

    band: int
    cells: dict[tuple[int, int], int]

    def fold(self, own: int, dealer: int) -> bool:
        """The chart as a fast-path `fold` function."""
        key = (TOTAL[own] // self.band, TOTAL[dealer] // self.band)
        return lowest(own | dealer) <= self.cells.get(key, HIT)

    def grid(self) -> dict:
        """Labels and rows for display: `columns` (dealer totals), `rows` as (own totals, cells);
        a cell is K, or None where the best player never stands."""
        own_bands = sorted({o for o, _ in self.cells})
        dealer_bands = sorted({d for _, d in self.cells})
        return {
            "columns": [self._label(d) for d in dealer_bands],
            "rows": [(self._label(o), [self.cells.get((o, d)) for d in dealer_bands]) for o in own_bands],
        }

    def _label(self, band: int) -> str:
        return f"{max(band * self.band, 1)}-{band * self.band + self.band - 1}"


@lru_cache(maxsize=4)
def best_play_chart(band: int = CHART_BAND) -> Chart:
    """The chart of the best basic strategy, bands of `band` (a few seconds, then cached)."""
    best = tables_for("best", None)
    losses: dict[tuple[int, int], list[float]] = defaultdict(lambda: [0.0] * (max(RANKS) + 1))
    for (own, dealer), reach in _reach(best).items():
        price, hit = lowest(own | dealer), _hit(best, own, dealer)
        cell = losses[(TOTAL[own] // band, TOTAL[dealer] // band)]
        for k in range(len(cell)):
            cell[k] += reach * (-price if price <= k else hit)
    return Chart(band, {key: max(range(len(cell)), key=cell.__getitem__) for key, cell in losses.items()})


def _hit(tables: Tables, own: int, dealer: int) -> float:
    waiting = tables.waiting[dealer]
    return sum(ODDS[c] * (-c if own >> c & 1 else waiting[own | 1 << c]) for c in RANKS)


def _reach(tables: Tables) -> dict[tuple[int, int], float]:
    """How often the tables' player stands before each decision (own, dealer), endless shoe."""
    acting: dict[tuple[int, int], float] = defaultdict(float)
    for c in RANKS:
        for d in DEALER_RANKS:
            acting[(1 << c, 1 << d)] += ODDS[c] * ODDS[d]
    frontier = dict(acting)
    while frontier:
        waiting: dict[tuple[int, int], float] = defaultdict(float)
        for (own, dealer), reach in frontier.items():
            if not tables.folds[dealer][own]:
                for c in RANKS:
                    if not own >> c & 1:
                        waiting[(own | 1 << c, dealer)] += reach * ODDS[c]
        frontier = defaultdict(float)
        for (own, dealer), reach in waiting.items():
            for d in DEALER_RANKS:
                if not dealer >> d & 1:
                    frontier[(own, dealer | 1 << d)] += reach * ODDS[d]
        for state, reach in frontier.items():
            acting[state] += reach
    return acting
