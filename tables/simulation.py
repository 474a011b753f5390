"""Simulated play: shuffled shoes, named strategies, and a runner using every core.

Outside `tables/games` because it draws random numbers and starts processes; it
imports nothing from Django. Shoes follow RULINGS.md (burn after every shuffle,
a cut card at 0.8 penetration for Rocket, a dry shoe refilled from the discards
mid-hand). Rocket runs on the fast path by default (`tables.games.rocket_fast`,
tested equal to the checked engine) or, with `checked=True`, through the checked
engine like every other game. Results come with a 95% confidence interval.

Hands dealt from one shoe are not independent (they share its composition), so
Rocket's intervals treat each shoe as one sample (a cluster): a shoe is the hands
dealt between two shuffles, a mid-hand refill counting as a shuffle. Without
this, luck-adjusted intervals for 8 decks were 1.4 to 1.9 times too narrow.

Reproducibility: with a seed, hands are split into fixed chunks (`chunk_size`),
chunk i shuffles with `random.Random(f"{seed}:{i}")`, so a run
gives the same figures whatever the number of workers. Without a seed every
shuffle uses the operating system's CSPRNG (`secrets.SystemRandom`).
"""

from __future__ import annotations

import math
import os
import random
import re
import secrets
import time
from collections.abc import Callable, Sequence
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass, field
from functools import cache

from tables.games import CardDue, DecisionDue, IllegalAction, Move, new_game
from tables.games.base import DEALER, SEAT
from tables.games.cards import DECK_SIZE, RANKS, Shoe
from tables.games.rocket import TENTH, Start
from tables.games.rocket_edge import play_adjusted, shoe_counts, tables_for
from tables.games.rocket_fast import Fold, button_index, lowest, play
from tables.games.rounds import (
    NEW_DECK_OPTIONS,
    POINTS_GAMES,
    WHOLE_DECK,
    new_deck_each,
    next_round_seats,
    next_round_state,
)

BURN = 5  # RULINGS: burn 5 cards face down after every shuffle (option 0..10)
MAX_BURN = 10
PENETRATION = 0.8  # RULINGS: the cut card sits at 0.8 of 55 x D cards from the top, burn included
CHUNK_HANDS = 20_000  # fast-path hands per work unit: large enough to hide process overhead
SLOW_CHUNK_HANDS = 2_000  # the same for the checked engine and the luck-adjusted path (~0.2 s each)
Z95 = 1.959963984540054  # two-sided 95% normal quantile
# The secret-hand games, dealt by a system shoe that names every face-down card.
SECRET_HANDS = ("hawthorn", "goblin_poker", "monster", "regent", "troll_guts")
# The points games (tables.games.rounds): a simulated "hand" is a whole game, rounds until it is over.
GAMES = ("rocket", "blackstone", "starboard", "pairs", *SECRET_HANDS, *POINTS_GAMES)


# -- shoes -------------------------------------------------------------------


class ShoeExhausted(IllegalAction):
    """Every card is on the table or held out and the hand still wants one.

    The rules give no way on (a Pairs tie-break whose every possible card pairs,
    with the rest held for score); a simulation abandons the hand, moves no money,
    counts it, and reshuffles."""


class SimShoe:
    """A simulated shoe of `decks` Pairs decks, dealt from `order[pos]`.

    `penetration` (a fraction, or None for no cut card) places the cut card,
    counted from the top with the burn; once it has come out, `begin_hand`
    reshuffles the whole shoe. A shoe that runs dry mid-hand is refilled from the
    discards only (cards of earlier hands and the burn pile), burned again, and
    play goes on; `end_hand` moves the hand's cards to the discards except those
    kept (Pairs scores). `rng` shuffles: seeded `random.Random` or `SystemRandom`.
    """

    def __init__(
        self, decks: int, rng: random.Random, burn: int = BURN, penetration: float | None = PENETRATION
    ):
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
        self.returned: list[int] = []  # this hand's cards the game put back in the shoe
        self.held: list[int] = []  # cards kept out of play across hands (Pairs scores)
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
        self.earlier, self.returned, self.held = [], [], []

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
            raise ShoeExhausted("The shoe is empty and every card is on the table or held out.")
        self.order, self.discards = self.discards, []
        self.rng.shuffle(self.order)
        self.refills += 1
        burn = min(self.burn, len(self.order) - 1)  # always leave the card that is due
        self.discards = self.order[:burn]
        self.pos = self.hand_start = burn
        # A cut card is long out when a shoe runs dry: reshuffle everything before the next hand.
        self.cut_out = self.penetration is not None

    def end_hand(self, held: Sequence[int] | None = None) -> list[int]:
        """The hand is over: its cards go to the discards, except the cards `held` out of
        play after it (Pairs: scored cards and, in Continuous, stacks still in play; the
        full list, including cards held from earlier hands). Return the hand's cards."""
        cards = self.order[self.hand_start : self.pos]
        if self.earlier:
            cards = self.earlier + cards
            self.earlier = []
        for rank in self.returned:
            cards.remove(rank)
        self.returned = []
        self.hand_start = self.pos
        if held is None:
            self.discards += cards
            return cards
        pool = self.held + cards
        for rank in held:
            pool.remove(rank)
        self.held = list(held)
        self.discards += pool
        return cards

    def abandon(self) -> None:
        """The hand could not finish (ShoeExhausted): gather everything and reshuffle."""
        self.shuffle()

    def put_back(self, ranks: Sequence[int]) -> None:
        """The game returned dealt cards to the shoe (Blackstone's extra 10s): shuffle
        them into the undealt cards, without a burn (RULINGS)."""
        rest = self.order[self.pos :] + list(ranks)
        self.rng.shuffle(rest)
        self.order = self.order[: self.pos] + rest
        self.returned += ranks


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
BEST = "best"  # the best strategy for an endless shoe, read from rocket_edge's exact tables


def best(own: int, dealer: int) -> bool:
    """Fold exactly when folding is worth more than hitting in an endless shoe (basic strategy)."""
    return tables_for(BEST, None).folds[dealer][own]


@cache  # one function per name, so `tables_for(name, fold)` finds its tables again in every chunk
def rocket_strategy(name: str) -> Fold:
    """A Rocket strategy by name: always_hit, fold_at_most_K (K = 0..10), pair_chance, pair_cost, best."""
    if name in ROCKET_STRATEGIES:
        return ROCKET_STRATEGIES[name]
    if name == BEST:
        return tables_for(BEST, None).fold
    match = FOLD_AT_MOST.match(name)
    if match and int(match.group(1)) <= max(RANKS):
        return fold_at_most(int(match.group(1)))
    names = ", ".join([*ROCKET_STRATEGIES, "fold_at_most_K", BEST])
    raise IllegalAction(f"Unknown Rocket strategy {name!r}; expected one of {names}.")


# -- pot-game and checked-engine strategies -----------------------------------

Choose = Callable[[object, DecisionDue], tuple]
"""A checked-engine strategy: given the game and the decision due, the action record to play."""


def random_legal(rng: random.Random) -> Choose:
    """Any legal move, uniformly; Blackstone takes the minimum or up to two more cards;
    a Continuous Pairs fold takes any card it may."""

    def choose(game, due: DecisionDue) -> tuple:
        if due.choices:
            return rng.choice(due.choices)
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
        if due.choices:
            return _cautious_choice(rng, due.choices, quiet)
        careful = [m for m in due.moves if m in quiet]
        bold = [m for m in due.moves if m not in quiet]
        move = rng.choice(careful) if careful and (not bold or rng.random() < 0.25) else bold[0]
        if move is Move.TAKE:
            return (move.value, due.min_take)
        if move is Move.FOLD and due.fold_cards:
            return (move.value, *min(due.fold_cards, key=lambda card: card[1]))
        return (move.value,)

    return choose


def _cautious_choice(rng: random.Random, choices, quiet) -> tuple:
    """A secret-hand decision: a quiet move a quarter of the time, else the lowest card named (or
    the first bold move listed: a hit, a draw)."""
    careful = [c for c in choices if c[0] in quiet]
    bold = sorted((c for c in choices if c[0] not in quiet), key=lambda c: (len(c) > 1, c[1:]))
    return rng.choice(careful) if careful and (not bold or rng.random() < 0.25) else bold[0]


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


def play_checked(game, shoe: SimShoe, choose: Choose, watch_returns: bool = False):
    """Play `game` through the checked engine to the end, cards from `shoe`; return the settlement.

    With `watch_returns`, cards the game puts back in its shoe (Blackstone's extra
    10s) are put back in the simulated shoe too."""
    while True:
        due = game.next
        if due.__class__ is CardDue and due.pile:
            # Goblin Poker's pitched cards, shuffled: each card of the pile equally likely.
            game.deal(shoe.rng.choice(due.ranks))
        elif due.__class__ is CardDue:
            if shoe.pos == len(shoe.order):
                _refill(game, shoe)
            if watch_returns:
                _deal_watching(game, shoe)
            else:
                game.deal(shoe.draw())
        elif due.__class__ is DecisionDue:
            game.act(choose(game, due))
        else:
            return due.settlement


def _refill(game, shoe: SimShoe) -> None:
    """The shoe is dry with a card due: refill it from its discards and tell the game, as the
    services record a recycle and its burns (`Game.recycle`, `Game.burn`)."""
    shoe.refill()
    game.recycle([0] + [shoe.order.count(rank) for rank in RANKS])
    for rank in shoe.discards:  # the refill's burn, all its discards so far
        game.burn(rank)


def _deal_watching(game, shoe: SimShoe) -> None:
    before = list(game.shoe.remaining)
    card = shoe.draw()
    game.deal(card)
    after = game.shoe.remaining
    returned = [r for r in RANKS for _ in range(after[r] - before[r] + (r == card))]
    if returned:
        shoe.put_back(returned)


# -- the runner ----------------------------------------------------------------


@dataclass(frozen=True)
class RunSpec:
    """What to simulate. `options` are the game's house rules (for Rocket, e.g. start);
    `decks` is Rocket's shoe (pot games deal from one deck); `bet` is each Rocket
    seat's bet; `chips` what each pot-game player has in front of it at the start of
    every game; `strategy` names a Rocket strategy (see `rocket_strategy`) or a
    pot-game one ("random", "cautious"). `adjusted` estimates Rocket's edge with the
    luck-adjusted results of `rocket_edge` (same mean, far smaller variance)."""

    game: str = "rocket"
    players: int = 3
    hands: int = 100_000
    strategy: str | None = None
    decks: int = 8
    seed: int | str | None = None
    workers: int | None = None
    checked: bool = False
    adjusted: bool = False
    bet: int = 10
    chips: int = 100
    burn: int = BURN
    penetration: float | None = PENETRATION
    options: dict = field(default_factory=dict)

    @property
    def strategy_name(self) -> str:
        return self.strategy or ("always_hit" if self.game == "rocket" else "random")


@dataclass
class ShoeSums:
    """Per-shoe sums for Rocket's clustered intervals, added across chunks: `count` shoes;
    for each shoe s its hands n_s, the house's total y_s and the luck-adjusted total a_s,
    kept as sums of n_s^2, y_s^2, y_s n_s, a_s^2 and a_s n_s."""

    count: int = 0
    hands_sq: int = 0
    house_sq: int = 0
    house_hands: int = 0
    adjusted_sq: float = 0.0
    adjusted_hands: float = 0.0

    def add(self, other: ShoeSums) -> ShoeSums:
        for name in self.__dataclass_fields__:
            setattr(self, name, getattr(self, name) + getattr(other, name))
        return self


@dataclass
class Tally:
    """Sums over simulated hands, added across chunks. `house` is what the house won
    (Rocket); `pot` what went into the pot (pot games); `games` counts whole games
    (Pairs plays several hands per game; elsewhere games == hands)."""

    hands: int = 0
    games: int = 0
    cards: int = 0
    decisions: int = 0
    house: int = 0
    house_sq: int = 0
    bet: int = 0
    pot: int = 0
    pot_sq: int = 0
    moved: int = 0
    abandoned: int = 0
    adjusted: float = 0.0
    adjusted_sq: float = 0.0
    shuffles: int = 0
    refills: int = 0
    spread: int = 0  # points games: the final scores' top less bottom, summed over games
    spread_sq: int = 0
    first_wins: int = 0  # points games: games the first seat (the dealer's left) won alone
    shoes: ShoeSums = field(default_factory=ShoeSums)

    def add(self, other: Tally) -> Tally:
        for name in self.__dataclass_fields__:
            if name != "shoes":
                setattr(self, name, getattr(self, name) + getattr(other, name))
        self.shoes.add(other.shoes)
        return self


class ShoeCounter:
    """Adds a chunk's hands to its shoes: call `start` after `SimShoe.begin_hand`, `hand` with
    each played hand's results, `close` at the end."""

    def __init__(self, shoe: SimShoe, sums: ShoeSums):
        self.shoe, self.sums = shoe, sums
        self.epoch = shoe.shuffles + shoe.refills
        self.hands = self.house = 0
        self.adjusted = 0.0

    def start(self) -> None:
        """A hand begins: after a shuffle or a refill it begins a new shoe (so a hand that ran
        the shoe dry stays with the shoe it started in)."""
        epoch = self.shoe.shuffles + self.shoe.refills
        if epoch != self.epoch:
            self.close()
            self.epoch = epoch

    def hand(self, house: int, adjusted: float = 0.0, weight: int = 1) -> None:
        """A played hand's results; `weight` is what it adds to the estimate's denominator
        (one hand, or the units it bet for an edge per unit bet when bets vary)."""
        self.hands += weight
        self.house += house
        self.adjusted += adjusted

    def close(self) -> None:
        if self.hands:
            n, y, a, sums = self.hands, self.house, self.adjusted, self.sums
            sums.count += 1
            sums.hands_sq += n * n
            sums.house_sq += y * y
            sums.house_hands += y * n
            sums.adjusted_sq += a * a
            sums.adjusted_hands += a * n
        self.hands = self.house = 0
        self.adjusted = 0.0


@dataclass(frozen=True)
class Estimate:
    """A mean with the half-width of its 95% confidence interval."""

    mean: float
    half_width: float

    def __str__(self) -> str:
        return f"{self.mean:.4f} +/- {self.half_width:.4f}"


def estimate(total: float, total_sq: float, n: int, scale: float = 1.0) -> Estimate:
    """Mean and 95% half-width of n samples from their sum and sum of squares, divided by `scale`.

    For independent samples (pot games: every game from a fresh deck). Rocket's hands share
    their shoe: see `clustered_estimate`."""
    if n == 0:
        return Estimate(math.nan, math.nan)
    mean = total / n
    variance = max(total_sq / n - mean * mean, 0.0) * n / max(n - 1, 1)
    return Estimate(mean / scale, Z95 * math.sqrt(variance / n) / scale)


def clustered_estimate(
    total: float, n: int, shoes: int, total_sq: float, total_n: float, n_sq: int, scale: float = 1.0
) -> Estimate:
    """Mean per hand and its 95% half-width when the hands come in shoes (clusters), divided
    by `scale`: the ratio estimator r = sum y_s / sum n_s over `shoes` shoes, with variance
    shoes / (shoes - 1) * sum (y_s - r n_s)^2 / n^2, from sum y_s^2 (`total_sq`), sum y_s n_s
    (`total_n`) and sum n_s^2 (`n_sq`)."""
    if n == 0 or shoes < 2:
        return Estimate(total / n / scale if n else math.nan, math.nan)
    mean = total / n
    spread = max(total_sq - 2 * mean * total_n + mean * mean * n_sq, 0.0)
    variance = spread * shoes / (shoes - 1) / (n * n)
    return Estimate(mean / scale, Z95 * math.sqrt(variance) / scale)


@dataclass(frozen=True)
class Report:
    """The figures of a run. Rocket: `edge_per_hand` in units the house wins per hand,
    `edge_per_unit` per unit bet (0.05 = 5%). Pot games: `pot` per game."""

    spec: RunSpec
    tally: Tally
    seconds: float
    workers: int

    @property
    def hands_per_second(self) -> float:
        return self.tally.hands / self.seconds if self.seconds else math.inf

    @property
    def cards_per_hand(self) -> float:
        return self.tally.cards / self.tally.hands if self.tally.hands else math.nan

    def _edge(self, adjusted: bool, scale: float = 1.0) -> Estimate:
        """Rocket's house result per hand, clustered by shoe."""
        t, shoes = self.tally, self.tally.shoes
        if adjusted:
            sums = (t.adjusted, shoes.adjusted_sq, shoes.adjusted_hands)
        else:
            sums = (t.house, shoes.house_sq, shoes.house_hands)
        return clustered_estimate(sums[0], t.hands, shoes.count, *sums[1:], shoes.hands_sq, scale)

    @property
    def edge_per_hand(self) -> Estimate:
        return self._edge(self.spec.adjusted)

    @property
    def edge_per_unit(self) -> Estimate:
        return self._edge(self.spec.adjusted, self._bet_per_hand)

    @property
    def plain_edge_per_unit(self) -> Estimate:
        """The edge from the hands' real results, whatever the method."""
        return self._edge(False, self._bet_per_hand)

    @property
    def naive_edge_per_unit(self) -> Estimate:
        """The edge's interval as if every hand were independent of its shoe (too narrow)."""
        t = self.tally
        sums = (t.adjusted, t.adjusted_sq) if self.spec.adjusted else (t.house, t.house_sq)
        return estimate(*sums, t.hands, self._bet_per_hand)

    @property
    def _bet_per_hand(self) -> float:
        return self.tally.bet / self.tally.hands if self.tally.hands else 1

    @property
    def pot(self) -> Estimate:
        return estimate(self.tally.pot, self.tally.pot_sq, self.tally.games)

    def lines(self) -> list[str]:
        """The report as printed by `manage.py simulate` and the benchmark."""
        s, t = self.spec, self.tally
        path = "checked engine" if s.checked or s.game != "rocket" else "fast path"
        if s.adjusted:
            path = "luck-adjusted fast path"
        out = [
            f"game {s.game} ({path}), {s.players} players, strategy {s.strategy_name}, seed {s.seed}",
            f"hands {t.hands}, games {t.games}, workers {self.workers}, {self.seconds:.2f} s, "
            f"{self.hands_per_second:,.0f} hands/s",
            f"cards per hand {self.cards_per_hand:.3f}, decisions per hand "
            f"{f'{t.decisions / t.hands:.3f}' if t.decisions else 'not counted on the fast path'}, "
            f"shuffles {t.shuffles}, dry-shoe refills {t.refills}, "
            f"abandoned (shoe exhausted, no money moved) {t.abandoned}",
        ]
        if s.game == "rocket":
            unit, hand = self.edge_per_unit, self.edge_per_hand
            out += [
                f"house edge per unit bet {100 * unit.mean:.3f}% +/- {100 * unit.half_width:.3f}% "
                f"(95% CI) over {t.shoes.count} shoes",
                f"house edge per hand {hand.mean:.4f} +/- {hand.half_width:.4f} units "
                f"({s.players} seats x bet {s.bet})",
            ]
            if s.adjusted:
                plain = self.plain_edge_per_unit
                out.append(
                    f"(unadjusted results of the same hands: {100 * plain.mean:.3f}% "
                    f"+/- {100 * plain.half_width:.3f}%)"
                )
        elif s.game in POINTS_GAMES:
            spread = estimate(t.spread, t.spread_sq, t.games)
            out += [
                f"rounds per game {t.hands / max(t.games, 1):.3f} (game length)",
                f"final score spread (top less bottom) {spread.mean:.3f} +/- {spread.half_width:.3f} "
                f"points (95% CI)",
                f"first seat (the dealer's left) won alone {100 * t.first_wins / max(t.games, 1):.2f}% "
                f"of games against {100 / s.players:.2f}% for an even share",
            ]
        else:
            pot, won = self.pot, t.moved / max(t.games, 1)
            out += [
                f"games per second {t.games / self.seconds if self.seconds else math.inf:,.1f}",
                f"average pot per game {pot.mean:.3f} +/- {pot.half_width:.3f} units (95% CI)",
                f"average won by the winners per game {won:.3f} units",
                f"house's collection per game {t.house / max(t.games, 1):.3f} units",
            ]
        return out


def chunks(hands: int, size: int) -> list[tuple[int, int]]:
    """(chunk index, hands) work units of `size` hands: fixed, so a seed gives one result."""
    return [(i, min(size, hands - start)) for i, start in enumerate(range(0, hands, size))]


def chunk_size(spec: RunSpec) -> int:
    fast = spec.game == "rocket" and not (spec.checked or spec.adjusted)
    return CHUNK_HANDS if fast else SLOW_CHUNK_HANDS


def run(spec: RunSpec) -> Report:
    """Simulate `spec.hands` hands on `spec.workers` processes (default: every core)."""
    _check(spec)
    work = [(spec, index, hands) for index, hands in chunks(spec.hands, chunk_size(spec))]
    workers = max(1, min(spec.workers or os.cpu_count() or 1, len(work)))
    started = time.perf_counter()
    total = Tally()
    if workers == 1:
        for unit in work:
            total.add(run_chunk(unit))
    else:
        with ProcessPoolExecutor(max_workers=workers) as pool:
            for tally in pool.map(run_chunk, work):
                total.add(tally)
    return Report(spec, total, time.perf_counter() - started, workers)


def _check(spec: RunSpec) -> None:
    if spec.game not in GAMES:
        raise IllegalAction(f"Unknown game {spec.game!r}; expected one of {', '.join(GAMES)}.")
    if spec.hands < 1:
        raise IllegalAction(f"Simulate at least one hand, not {spec.hands!r}.")
    if spec.adjusted and (spec.game != "rocket" or spec.checked):
        raise IllegalAction("The luck-adjusted estimate is for Rocket on the fast path only.")
    if spec.game == "rocket":
        fold = rocket_strategy(spec.strategy_name)
        if spec.adjusted:
            tables_for(spec.strategy_name, fold)  # built once here, before the workers fork
    elif spec.strategy_name not in POT_STRATEGIES:
        raise IllegalAction(
            f"Unknown {spec.game} strategy {spec.strategy_name!r}; "
            f"expected one of {', '.join(POT_STRATEGIES)}."
        )


def run_chunk(unit: tuple[RunSpec, int, int]) -> Tally:
    """Play one work unit: `hands` hands with the chunk's own shuffler."""
    spec, index, hands = unit
    if spec.game == "rocket" and spec.adjusted:
        return rocket_adjusted_chunk(spec, index, hands)
    if spec.game == "rocket":
        return (rocket_checked_chunk if spec.checked else rocket_fast_chunk)(spec, index, hands)
    return POT_CHUNKS[spec.game](spec, index, hands)


def rocket_fast_chunk(spec: RunSpec, index: int, hands: int) -> Tally:
    """Rocket hands on the fast path; the button passes to each hand's starter."""
    shoe = SimShoe(spec.decks, shuffler(spec.seed, index), spec.burn, spec.penetration)
    fold = rocket_strategy(spec.strategy_name)
    seats = list(range(1, spec.players + 1))
    tenths = [spec.bet // TENTH] * spec.players
    previous = spec.options.get("previous_button")
    button = None
    if spec.options.get("start", Start.LEFT) == Start.BUTTON:
        button = lambda first: button_index(seats, first, previous)  # noqa: E731 (reads `previous` live)
    house = house_sq = cards = abandoned = 0
    sums = ShoeSums()
    shoes = ShoeCounter(shoe, sums)
    for _ in range(hands):
        shoe.begin_hand()
        shoes.start()
        try:
            deltas, used, starter = play(tenths, shoe, fold, 0, button)
        except ShoeExhausted:
            shoe.abandon()
            abandoned += 1
            continue
        shoe.end_hand()
        previous = seats[starter]
        won = -sum(deltas)
        house += won
        house_sq += won * won
        cards += used
        shoes.hand(won)
    shoes.close()
    played = hands - abandoned
    return Tally(
        hands=played, games=played, cards=cards, house=house, house_sq=house_sq, abandoned=abandoned,
        bet=played * spec.players * spec.bet, shuffles=shoe.shuffles, refills=shoe.refills, shoes=sums,
    )  # fmt: skip


def rocket_adjusted_chunk(spec: RunSpec, index: int, hands: int) -> Tally:
    """Rocket hands on the fast path with luck-adjusted results (see `tables.games.rocket_edge`)."""
    shoe = SimShoe(spec.decks, shuffler(spec.seed, index), spec.burn, spec.penetration)
    tables = tables_for(spec.strategy_name, rocket_strategy(spec.strategy_name))
    seats = list(range(1, spec.players + 1))
    tenths = [spec.bet // TENTH] * spec.players
    previous = spec.options.get("previous_button")
    button = None
    if spec.options.get("start", Start.LEFT) == Start.BUTTON:
        button = lambda first: button_index(seats, first, previous)  # noqa: E731 (reads `previous` live)
    tally = Tally(hands=hands, games=hands, bet=hands * spec.players * spec.bet)
    shoes = ShoeCounter(shoe, tally.shoes)
    counts, shuffles = shoe_counts(shoe.order, shoe.pos), shoe.shuffles
    for _ in range(hands):
        shoe.begin_hand()
        shoes.start()
        if shoe.shuffles != shuffles:
            counts, shuffles = shoe_counts(shoe.order, shoe.pos), shoe.shuffles
        try:
            deltas, adjusted, used, starter = play_adjusted(tenths, shoe, tables, counts, 0, button)
        except ShoeExhausted:
            shoe.abandon()
            tally.abandoned += 1
            continue
        shoe.end_hand()
        previous = seats[starter]
        won = -sum(deltas)
        tally.house += won
        tally.house_sq += won * won
        tally.adjusted -= adjusted
        tally.adjusted_sq += adjusted * adjusted
        tally.cards += used
        shoes.hand(won, -adjusted)
    shoes.close()
    tally.hands = tally.games = hands - tally.abandoned
    tally.bet = tally.hands * spec.players * spec.bet
    tally.shuffles, tally.refills = shoe.shuffles, shoe.refills
    return tally


def rocket_checked_chunk(spec: RunSpec, index: int, hands: int) -> Tally:
    """Rocket hands through the checked engine, same shoe and strategy as the fast path."""
    shoe = SimShoe(spec.decks, shuffler(spec.seed, index), spec.burn, spec.penetration)
    choose = rocket_chooser(rocket_strategy(spec.strategy_name))
    seats = list(range(1, spec.players + 1))
    stakes = dict.fromkeys(seats, spec.bet)
    options = {"decks": spec.decks, **spec.options}
    tally = Tally()
    shoes = ShoeCounter(shoe, tally.shoes)
    for _ in range(hands):
        shoe.begin_hand()
        shoes.start()
        game = new_game("rocket", seats, stakes, options)
        try:
            settlement = play_checked(game, shoe, choose)
        except ShoeExhausted:
            shoe.abandon()
            tally.abandoned += 1
            continue
        shoe.end_hand()
        if settlement.result.get("button") is not None:
            options["previous_button"] = settlement.result["button"]
        _count(tally, game, settlement.deltas["house"])
        shoes.hand(settlement.deltas["house"])
    shoes.close()
    tally.bet = tally.hands * spec.players * spec.bet
    tally.shuffles, tally.refills = shoe.shuffles, shoe.refills
    return tally


def _count(tally: Tally, game, house: int = 0) -> None:
    tally.hands += 1
    tally.games += 1
    tally.house += house
    tally.house_sq += house * house
    for event in game.transcript:
        if hasattr(event, "rank"):
            tally.cards += 1
        else:
            tally.decisions += 1


def _count_money(tally: Tally, settlement) -> None:
    """A finished game's pot (everything paid into it, carry included) and what the winners gained."""
    pot = sum(e.amount for e in settlement.entries if e.party == "pot" and e.amount > 0)
    tally.pot += pot
    tally.pot_sq += pot * pot
    tally.moved += sum(d for party, d in settlement.deltas.items() if isinstance(party, int) and d > 0)


def _pot_table(spec: RunSpec, index: int) -> tuple[list[int], SimShoe, Choose]:
    seats = list(range(1, spec.players + 1))
    shoe = SimShoe(1, shuffler(spec.seed, index), spec.burn, penetration=None)
    play_rng = (
        random.Random(f"{spec.seed}:{index}:play")
        if spec.seed is not None
        else random.Random(secrets.randbits(64))
    )
    return seats, shoe, POT_STRATEGIES[spec.strategy_name](play_rng)


def blackstone_chunk(spec: RunSpec, index: int, hands: int) -> Tally:
    """Blackstone games, each from a freshly shuffled deck (RULINGS), odd units carried on."""
    seats, shoe, choose = _pot_table(spec, index)
    stakes = dict.fromkeys(seats, spec.chips)
    tally, carry = Tally(), 0
    for _ in range(hands):
        shoe.shuffle()
        game = new_game("blackstone", seats, stakes, spec.options, carry)
        settlement = play_checked(game, shoe, choose, watch_returns=True)
        shoe.end_hand()
        carry = settlement.carry_out
        _count(tally, game, settlement.deltas["house"])
        _count_money(tally, settlement)
    tally.shuffles, tally.refills = shoe.shuffles, shoe.refills
    return tally


def secret_hands_chunk(spec: RunSpec, index: int, hands: int) -> Tally:
    """Secret-hand games, each from a freshly shuffled deck whose burn the engine is told of, but
    Regent's, which deal on from the deck the game before left, recycling its discards when it runs
    dry, unless the house rule asks for a fresh deck every game (`new_deck_each`, as the table
    reads it); the house's collection is counted per game."""
    seats, shoe, choose = _pot_table(spec, index)
    stakes = dict.fromkeys(seats, spec.chips)
    deals_on = spec.game in NEW_DECK_OPTIONS and not new_deck_each(spec.game, spec.options)
    tally, carry = Tally(), 0
    for _ in range(hands):
        if deals_on:
            game = new_game(spec.game, seats, stakes, spec.options, carry, shoe=_deck_held(shoe))
        else:
            shoe.shuffle()
            game = new_game(spec.game, seats, stakes, spec.options, carry)
            for rank in shoe.discards:
                game.burn(rank)
        settlement = play_checked(game, shoe, choose)
        shoe.end_hand()
        carry = settlement.carry_out
        _count(tally, game, settlement.deltas["house"])
        _count_money(tally, settlement)
    tally.shuffles, tally.refills = shoe.shuffles, shoe.refills
    return tally


def _deck_held(shoe: SimShoe) -> Shoe:
    """What the deck still holds, for a game dealt on from it (a table tells its game so:
    `tables.services.hands._shoe_held`); every card out of it is a discard, burns included."""
    left = shoe.order[shoe.pos :]
    return Shoe(1, [0] + [left.count(rank) for rank in RANKS])


def starboard_chunk(spec: RunSpec, index: int, hands: int) -> Tally:
    """Starboard games, each from a freshly shuffled deck; the button moves one seat left a game."""
    seats, shoe, choose = _pot_table(spec, index)
    stakes = dict.fromkeys(seats, spec.chips)
    tally, carry = Tally(), 0
    for number in range(hands):
        shoe.shuffle()
        options = {**spec.options, "button": seats[number % len(seats)]}
        game = new_game("starboard", seats, stakes, options, carry)
        settlement = play_checked(game, shoe, choose)
        shoe.end_hand()
        carry = settlement.carry_out
        _count(tally, game, settlement.deltas["house"])
        _count_money(tally, settlement)
    tally.shuffles, tally.refills = shoe.shuffles, shoe.refills
    return tally


def pairs_chunk(spec: RunSpec, index: int, hands: int) -> Tally:
    """Pairs: `hands` whole games (hands until a player reaches the losing score), each from
    a fresh shuffle; within a game one deck recycles, scored cards held out (RULINGS)."""
    seats, shoe, choose = _pot_table(spec, index)
    tally, carry = Tally(), 0
    for _ in range(hands):
        shoe.shuffle()
        try:
            carry = _pairs_game(spec, seats, shoe, choose, tally, carry)
        except ShoeExhausted:
            tally.abandoned += 1  # the next game starts from a fresh shuffle anyway
            continue
        tally.games += 1
    tally.shuffles, tally.refills = shoe.shuffles, shoe.refills
    return tally


def _pairs_game(
    spec: RunSpec, seats: list[int], shoe: SimShoe, choose: Choose, tally: Tally, carry: int
) -> int:
    scores, state, scored = dict.fromkeys(seats, 0), {}, []
    while True:
        game = new_game("pairs", seats, scores, spec.options, carry, **state)
        settlement = play_checked(game, shoe, choose)
        result = settlement.result
        _count(tally, game)
        tally.games -= 1  # a Pairs game is many hands; counted by the caller
        if result["card"] is not None:
            scored.append(result["card"])
        in_play = [rank for stack in result.get("in_play", {}).values() for rank in stack]
        if result["game_over"]:
            shoe.end_hand(held=[])
            _count_money(tally, settlement)
            return settlement.carry_out
        shoe.end_hand(held=scored + in_play)
        scores = dict(result["scores"])
        if spec.options.get("continuous"):
            state = {"in_play": result["in_play"], "to_act": result["next_to_act"]}


def points_chunk(spec: RunSpec, index: int, games: int) -> Tally:
    """Whole games of a points game, every seat from 0: rounds until the result says the game is
    over (a Port playoff deals the tied players). Port deals on from one deck unless its house rule
    asks for a fresh deck every round (`new_deck_each`); the others deal each round whole from a
    fresh shuffle. Counts rounds, the final scores' spread, and the games the first seat won alone."""
    seats, shoe, choose = _pot_table(spec, index)
    if spec.game in WHOLE_DECK:
        shoe = SimShoe(1, shuffler(spec.seed, index), 0, penetration=None)
    fresh = spec.game in WHOLE_DECK or new_deck_each(spec.game, spec.options)  # Port's house rule
    tally = Tally()
    for _ in range(games):
        scores, playing, state = dict.fromkeys(seats, 0), seats, {}
        while True:
            if fresh:
                shoe.shuffle()
            game = new_game(spec.game, playing, scores, spec.options, **state)
            result = play_checked(game, shoe, choose).result
            shoe.end_hand()
            _count(tally, game)
            tally.games -= 1  # a game is many rounds: counted once below
            scores = dict(result["scores"])
            if result["game_over"]:
                break
            playing = next_round_seats(result, seats)
            state = next_round_state(result)
        tally.games += 1
        spread = max(scores.values()) - min(scores.values())
        tally.spread, tally.spread_sq = tally.spread + spread, tally.spread_sq + spread * spread
        winners = result.get("winners") or [result.get("winner")]
        tally.first_wins += winners == [seats[0]]
    tally.shuffles, tally.refills = shoe.shuffles, shoe.refills
    return tally


POT_CHUNKS: dict[str, Callable[[RunSpec, int, int], Tally]] = {
    **dict.fromkeys(POINTS_GAMES, points_chunk),
    "blackstone": blackstone_chunk,
    **dict.fromkeys(SECRET_HANDS, secret_hands_chunk),
    "starboard": starboard_chunk,
    "pairs": pairs_chunk,
}
