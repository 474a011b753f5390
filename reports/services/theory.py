"""Rocket's theoretical house edge, through the engine, computed once per rules configuration.

Three figures per configuration (decks, start, burn, penetration and an assumed player strategy):

- the exact edge for an endless shoe, read from `tables.games.rocket_edge`'s tables;
- the exact edge of a hand dealt from a freshly shuffled shoe of this many decks
  (`tables.games.rocket_exact`; any number of seats, either start rule);
- the edge the table holds (`edge`, the one the reports use): that exact fresh-shoe figure when the
  cut card sits so high that the shoe is reshuffled before every hand (method "exact"); otherwise
  the shoe is dealt hand after hand to the cut card, which the exact method does not cover, and the
  edge is the luck-adjusted simulation (`tables.simulation.run(..., adjusted=True)`) with the
  half-width of its 95% interval, hands clustered by shoe (method "simulated"). Its difference
  from the fresh-shoe figure is the effect of dealing through the shoe to the cut card.

The reports also need the spread of a result: the variance of one seat's result per unit bet and
the covariance of two seats in the same hand (the dealer's cards are common to both, so seats are
not independent). Both come from plain fast-path simulations with one and two seats.

Seeds derive from the configuration's hash, so a configuration always gives the same figures; the
row is keyed by that hash, so it is computed once whoever asks first.
"""

from __future__ import annotations

import hashlib
import json
import time
from dataclasses import dataclass

from django.conf import settings
from django.db import IntegrityError, transaction

from reports.models import DEFAULT_STRATEGY, TheoreticalEdge
from tables.games.cards import DECK_SIZE
from tables.games.rocket import Start
from tables.games.rocket_edge import tables_for
from tables.games.rocket_exact import fresh_shoe
from tables.simulation import BURN, PENETRATION, Estimate, RunSpec, rocket_strategy, run

EDGE_HANDS = 100_000  # luck-adjusted hands: about +/- 0.045 points (95%, by shoe) for 8 decks, seconds
VARIANCE_HANDS = 200_000  # plain fast-path hands per seat count: the spread to within about 1%
SIM_PLAYERS = 3  # seats simulated for the edge; the number of players barely moves it (docs)
SIM_BET = 10  # one tenth per unit: results in units per seat are tenths of the bet
# Workers for the simulation: one, because a Celery worker's pool processes may not fork children.
SIM_WORKERS = 1
MIN_HAND_CARDS = 2  # a hand takes at least a seat's card and the dealer's (a dealer 3 ends it)
INTERVALS = "by shoe"  # recorded with the configuration: rows from before clustering are recomputed


@dataclass(frozen=True)
class RocketConfig:
    """What the edge depends on: the shoe, the start rule and the assumed player strategy."""

    decks: int
    start: str = Start.LEFT.value
    burn: int = BURN
    penetration: float = PENETRATION
    strategy: str = DEFAULT_STRATEGY

    @property
    def fresh_every_hand(self) -> bool:
        """The cut card comes out within the first hand, so every hand is dealt from a fresh shoe."""
        return round(float(self.penetration) * DECK_SIZE * self.decks) <= self.burn + MIN_HAND_CARDS

    def as_record(self, hands: int, variance_hands: int) -> dict:
        return {
            "game": "rocket",
            "decks": self.decks,
            "start": self.start,
            "burn": self.burn,
            "penetration": round(float(self.penetration), 4),
            "strategy": self.strategy,
            "players": SIM_PLAYERS,
            "hands": hands,
            "variance_hands": variance_hands,
            "intervals": INTERVALS,
        }


def config_hash(record: dict) -> str:
    """SHA-256 of the configuration as canonical JSON (sorted keys, no spaces)."""
    return hashlib.sha256(json.dumps(record, sort_keys=True, separators=(",", ":")).encode()).hexdigest()


def simulation_sizes() -> tuple[int, int]:
    """Hands for the edge and for the variance (settings REPORTS_EDGE_HANDS, REPORTS_VARIANCE_HANDS)."""
    return (
        getattr(settings, "REPORTS_EDGE_HANDS", EDGE_HANDS),
        getattr(settings, "REPORTS_VARIANCE_HANDS", VARIANCE_HANDS),
    )


def theoretical_edge(*, config: RocketConfig) -> TheoreticalEdge:
    """The cached theoretical edge of `config`, computed now if no one has yet.

    The simulation runs outside any database transaction (it takes seconds); two workers that
    compute the same configuration at once store one row, the second reads the first's.
    """
    hands, variance_hands = simulation_sizes()
    record = config.as_record(hands, variance_hands)
    digest = config_hash(record)
    found = TheoreticalEdge.objects.filter(config_hash=digest).first()
    if found:
        return found
    figures = _simulate(config, record, digest)
    try:
        with transaction.atomic():
            return TheoreticalEdge.objects.create(config_hash=digest, config=record, **figures)
    except IntegrityError:  # another worker stored the same configuration first
        return TheoreticalEdge.objects.get(config_hash=digest)


def _simulate(config: RocketConfig, record: dict, digest: str) -> dict:
    started = time.perf_counter()
    fold = rocket_strategy(config.strategy)
    endless = tables_for(config.strategy, fold).edge
    fresh = fresh_shoe(config.decks, config.strategy, fold).edge
    one = run(_spec(config, record["variance_hands"], f"{digest}:one", 1))
    two = run(_spec(config, record["variance_hands"], f"{digest}:two", 2))
    if config.fresh_every_hand:
        edge, hands, method = Estimate(fresh, 0.0), 0, TheoreticalEdge.Method.EXACT
    else:
        finite = run(_spec(config, record["hands"], f"{digest}:edge", SIM_PLAYERS, adjusted=True))
        edge, hands, method = finite.edge_per_unit, finite.tally.hands, TheoreticalEdge.Method.SIMULATED
    # Results per unit bet: x = a seat's result / bet. E[x^2] from one seat; E[(x1 + x2)^2] =
    # 2 E[x^2] + 2 E[x1 x2] from two. The house's results are minus the seats', squares alike.
    square_one = one.tally.house_sq / one.tally.hands / SIM_BET**2
    square_two = two.tally.house_sq / two.tally.hands / SIM_BET**2
    product = square_two / 2 - square_one
    return {
        "endless_edge": endless,
        "fresh_edge": fresh,
        "method": method,
        "edge": edge.mean,
        "half_width": edge.half_width,
        "seat_variance": square_one - edge.mean**2,
        "pair_covariance": product - edge.mean**2,
        "hands": hands,
        "seconds": time.perf_counter() - started,
    }


def _spec(config: RocketConfig, hands: int, seed: str, players: int, adjusted: bool = False) -> RunSpec:
    return RunSpec(
        game="rocket",
        players=players,
        hands=hands,
        strategy=config.strategy,
        decks=config.decks,
        seed=seed,
        workers=SIM_WORKERS,
        adjusted=adjusted,
        bet=SIM_BET,
        burn=config.burn,
        penetration=config.penetration,
        options={"start": config.start},
    )
