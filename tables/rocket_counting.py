"""What a card counter gains at Rocket, and when a table's shoe setup should warn the floor.

The counter (simulated, `counter_edge`): sits alone at the table, plays the best basic
strategy, and keeps a count of every card seen (not the burn). Before each hand it
estimates the hand's value for the remaining cards with the exact effects of removal
(`effects_of_removal`: how much taking one card of each rank out of a fresh shoe moves
a seat's exact value, from `tables.games.rocket_exact`), a linear count as blackjack
counters use: value(p) = fresh value - (N - 1) * sum_r EoR_r * (p_r - p0_r), with p the
share of each rank among the unseen cards (p0 in a fresh shoe of N cards). It bets
`spread` units when that estimate favours the player and one unit otherwise. The house
edge it faces is the house's win over the units bet, with a 95% interval clustered by
shoe. The deeper the cut card, the more hands are dealt from a drifted composition and
the more the counter gains.

`configuration_warnings` tells the table setup when a Rocket configuration is beatable
that way (from the figures measured by `benchmarks/rocket_exact.py`, see
docs/simulation.md) or makes mid-hand reshuffles frequent (a quick seeded simulation of
a full table).
"""

from __future__ import annotations

import random
from dataclasses import dataclass
from functools import lru_cache

from tables.games.cards import DECK_SIZE, RANKS, composition
from tables.games.rocket import MAX_PLAYERS
from tables.games.rocket_exact import fresh_shoe, solve
from tables.games.rocket_fast import play
from tables.simulation import (
    BURN,
    Estimate,
    RunSpec,
    ShoeCounter,
    ShoeSums,
    SimShoe,
    clustered_estimate,
    rocket_strategy,
    run,
)
from tables.simulation import best as best_fold

SPREAD = 10  # the counter bets 1 to 10 units: a common spread at a blackjack table
# House edge per unit bet the counter faces at one deck (best play, 1-10 spread, burn 5) and its
# 95% half-width, by penetration: `benchmarks/rocket_exact.py`, 400,000 hands each, seed "bench".
# Below zero the table is beatable. (A flat bettor faces about +2.2% at every penetration.)
COUNTER_EDGE_ONE_DECK = {
    0.5: (0.00227, 0.00357),
    0.6: (-0.00150, 0.00349),
    0.7: (-0.00558, 0.00339),
    0.8: (-0.01100, 0.00328),
    0.9: (-0.01278, 0.00319),
}
REFILL_WARNING = 0.05  # warn when more than 5% of full-table hands run the shoe dry mid-hand
REFILL_PROBE_HANDS = 5_000  # full-table hands simulated for that warning: about 0.1 s
REFILL_PROBE_SEED = "refills"  # a fixed seed: the same configuration always gets the same answer


# `effects_of_removal(1)` as computed by `effect_of_removal` (eleven exact solves, half a minute or
# more on a shared machine), kept so that a counter's run starts at once; tested rank by rank.
ONE_DECK_EFFECTS = (
    0.0,
    -0.10942074582688355,
    -0.04844324599930544,
    -0.23955676447907076,
    0.0035786134568995542,
    0.010164189804917262,
    0.015464915023342601,
    0.019914801411635263,
    0.02195507678152686,
    0.023485144410171716,
    0.02406421144452589,
)


def effect_of_removal(decks: int, rank: int) -> float:
    """A seat's exact value in tenths (best play) with one card of `rank` taken out of a fresh
    shoe of `decks` decks, less its value with the full shoe."""
    fold = rocket_strategy("best")
    less = list(composition(decks))
    less[rank] -= 1
    return solve(less, fold).start - fresh_shoe(decks, "best", fold).start


@lru_cache(maxsize=8)
def effects_of_removal(decks: int) -> tuple[float, ...]:
    """`effect_of_removal` of every rank (index 0 unused)."""
    if decks == 1:
        return ONE_DECK_EFFECTS
    return (0.0, *(effect_of_removal(decks, rank) for rank in RANKS))


@dataclass(frozen=True)
class CounterResult:
    """A counter's run: the house edge per unit bet it faced, the flat bettor's on the same hands
    (both with the best basic strategy), and the share of hands it bet big."""

    penetration: float
    counter: Estimate
    flat: Estimate
    big_bets: float


def counter_edge(
    penetration: float, hands: int, seed: int | str, decks: int = 1, spread: int = SPREAD
) -> CounterResult:
    """Simulate `hands` hands of one counter alone at a `decks`-deck table cut at `penetration`."""
    effects = effects_of_removal(decks)
    full = composition(decks)
    size = DECK_SIZE * decks
    fresh = fresh_shoe(decks, "best", best_fold).start
    shoe = SimShoe(decks, random.Random(f"{seed}:counter"), BURN, penetration)
    counter_sums, flat_sums = ShoeSums(), ShoeSums()
    counter, flat = ShoeCounter(shoe, counter_sums), ShoeCounter(shoe, flat_sums)
    won = bet = flat_won = big = 0
    for _ in range(hands):
        shoe.begin_hand()
        counter.start()
        flat.start()
        seen = shoe.order[shoe.burn : shoe.pos]  # the burn stays face down
        tenths = spread if _favourable(seen, full, size, fresh, effects) else 1
        deltas, _, _ = play([1], shoe, best_fold)
        shoe.end_hand()
        big += tenths > 1
        counter.hand(-deltas[0] * tenths, weight=tenths)
        flat.hand(-deltas[0])
        won, bet, flat_won = won - deltas[0] * tenths, bet + tenths, flat_won - deltas[0]
    counter.close()
    flat.close()
    return CounterResult(
        penetration,
        _per_unit(won, bet, counter_sums),
        _per_unit(flat_won, hands, flat_sums),
        big / hands,
    )


def _favourable(seen: list[int], full: tuple[int, ...], size: int, fresh: float, effects) -> bool:
    left = size - len(seen)
    counts = list(full)
    for rank in seen:
        counts[rank] -= 1
    drift = sum(effects[r] * (counts[r] / left - full[r] / size) for r in RANKS)
    return fresh - (size - 1) * drift > 0


def _per_unit(won: int, bet: int, sums: ShoeSums) -> Estimate:
    """House win per unit bet; results are in tenths of one unit, so divide by ten."""
    return clustered_estimate(won, bet, sums.count, sums.house_sq, sums.house_hands, sums.hands_sq, 10)


@lru_cache(maxsize=64)
def refill_share(decks: int, penetration: float | None, burn: int = BURN) -> float:
    """Share of full-table hands (six seats, best play) that run the shoe dry mid-hand: seeded,
    so a configuration always gets the same answer, and kept per configuration."""
    spec = RunSpec(
        players=MAX_PLAYERS, hands=REFILL_PROBE_HANDS, decks=decks, seed=REFILL_PROBE_SEED,
        workers=1, strategy="best", burn=burn, penetration=penetration,
    )  # fmt: skip
    report = run(spec)
    return report.tally.refills / report.tally.hands


def configuration_warnings(game: str, options: dict, decks: int, penetration: float | None) -> list[str]:
    """Sentences for the table setup when a configuration is beatable by counting or makes
    mid-hand reshuffles frequent. Only Rocket deals hand after hand from a multi-deck shoe."""
    if game != "rocket":
        return []
    penetration = None if penetration is None else float(penetration)  # a Shoe's is a Decimal
    warnings = []
    measured = _counter_edge_at(decks, penetration)
    if measured is not None and measured[1][0] < 0:
        cut, (edge, half_width) = measured
        warnings.append(
            f"A card counter betting 1 to {SPREAD} units can beat this table: with one deck cut at "
            f"{cut:.1f} or deeper it faces a house edge of {100 * edge:.2f}% +/- {100 * half_width:.2f}% "
            f"(simulated). Cut the shoe earlier or deal from more decks."
        )
    share = refill_share(decks, penetration, options.get("burn", BURN))
    if share > REFILL_WARNING:
        warnings.append(
            f"About {100 * share:.0f}% of full-table hands would run the shoe dry and be finished "
            f"from a reshuffle of the discards. Use more decks or cut the shoe earlier."
        )
    return warnings


def _counter_edge_at(decks: int, penetration: float | None) -> tuple[float, tuple[float, float]] | None:
    """The deepest measured penetration not deeper than this one, with its measured (edge,
    half-width); one deck only, and no cut card counts as deeper than any."""
    if decks != 1:
        return None
    deep = max(COUNTER_EDGE_ONE_DECK) if penetration is None else penetration
    measured = [p for p in COUNTER_EDGE_ONE_DECK if p <= deep + 1e-9]
    return (max(measured), COUNTER_EDGE_ONE_DECK[max(measured)]) if measured else None
