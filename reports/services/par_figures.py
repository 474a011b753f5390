"""The figures of a par sheet, from exact methods where they exist and seeded simulation elsewhere.

No Django here: `par_sheet` gives these functions a configuration and a progress callback and stores
what they return (plain JSON). Every figure is a dict with its `value`, its `method` ("exact" or
"simulated") and, when simulated, the `half_width` of its 95% interval.

Rocket (per seat; a seat's result is in tenths of its bet, so a payment of +0.3 is 3 tenths won):
- `rocket_payments`: the exact distribution of one seat's result for a hand dealt from a freshly
  shuffled shoe, by a forward pass over (own stack, dealer stack) with the strategy of the exact
  solution `tables.games.rocket_exact.fresh_shoe` (valid for any number of seats, as that module
  shows). From it: win, push and loss probabilities, fold rate, mean and standard deviation. The
  mean equals the exact solution's value (a test checks it), an independent check on both passes.
- `rocket_shoe_run`: a full table dealt through the table's own shoe (cut card, burn) on the fast
  path: cards per hand (mean with its interval, 95th and 99th percentiles, the most seen) and how
  often a hand runs the shoe dry, with intervals clustered by shoe as `tables.simulation` does.

Pot games (the house earns only what it collects: `tables.games.collection`):
- `pot_run`: seeded games through the checked engine (`tables.simulation.play_checked`): the rake
  per game, each seat's net result per game, the game's length; for Pairs the final scores, from
  which every ending's payment is worked out (`settle_game`), and the Five Card Catch rate.
"""

from __future__ import annotations

import math
import random
from collections import Counter
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field

from tables.games import new_game
from tables.games.pairs_endings import ALIASES, ENDINGS, settle_game
from tables.games.rocket import DEATH_CARD, TENTH
from tables.games.rocket_exact import Values
from tables.games.rocket_fast import lowest, play
from tables.simulation import (
    BURN,
    POT_STRATEGIES,
    SECRET_HANDS,
    Estimate,
    ShoeCounter,
    ShoeExhausted,
    ShoeSums,
    SimShoe,
    clustered_estimate,
    estimate,
    play_checked,
    rocket_strategy,
    shuffler,
)

Progress = Callable[[int, str], None]
EXACT, SIMULATED = "exact", "simulated"
PERCENTILES = (95, 99)  # the tail of cards per hand a par sheet states
CHUNK = 5_000  # hands or games between two progress reports (and one seeded shuffler each)
PLAY_SEED = "play"  # the pot games' players choose with their own seeded generator, apart from the shoe


def exact(value: float) -> dict:
    return {"value": value, "method": EXACT}


def simulated(found: Estimate) -> dict:
    return {"value": found.mean, "method": SIMULATED, "half_width": found.half_width}


# -- Rocket: the exact distribution of a seat's result from a fresh shoe ---------------------


def rocket_payments(values: Values) -> dict:
    """One seat's exact result distribution (tenths of its bet -> probability) and fold rate for a
    hand dealt from the shoe of `values.counts`, playing `values`' own strategy."""
    counts = values.counts
    total = sum(counts)
    outcomes: Counter = Counter()
    folded = 0.0
    acting: dict[tuple[int, int], float] = Counter()
    for c in range(1, len(counts)):
        for d in range(1, len(counts)):
            n = counts[d] - (c == d)
            if counts[c] and n > 0:
                p = counts[c] / total * n / (total - 1)
                if d == DEATH_CARD:
                    outcomes[DEATH_CARD] += p
                else:
                    acting[(1 << c, 1 << d)] += p
    cards = 2
    while acting:
        waiting: dict[tuple[int, int], float] = Counter()
        for (own, dealer), p in acting.items():
            if values.folds[dealer][own]:
                outcomes[-lowest(own | dealer)] += p
                folded += p
                continue
            for c, share in _draws(counts, own, dealer, total - cards):
                if own >> c & 1:
                    outcomes[-c] += p * share
                else:
                    waiting[(own | 1 << c, dealer)] += p * share
        acting = Counter()
        for (own, dealer), p in waiting.items():
            for d, share in _draws(counts, own, dealer, total - cards - 1):
                if d == DEATH_CARD or dealer >> d & 1:
                    outcomes[d] += p * share
                else:
                    acting[(own, dealer | 1 << d)] += p * share
        cards += 2
    return {"outcomes": dict(sorted(outcomes.items())), "fold_rate": folded}


def _draws(counts, own: int, dealer: int, left: int) -> Iterator[tuple[int, float]]:
    """Each rank the next card may be, with its chance given the two stacks are out of the shoe."""
    for rank in range(1, len(counts)):
        n = counts[rank] - (own >> rank & 1) - (dealer >> rank & 1)
        if n > 0:
            yield rank, n / left


def distribution_figures(outcomes: dict[int, float]) -> dict:
    """Win, push and loss probabilities, mean and standard deviation per unit bet, and the
    payments as (multiple of the bet, probability), from a distribution in tenths."""
    mean = sum(x * p for x, p in outcomes.items()) / TENTH
    square = sum((x / TENTH) ** 2 * p for x, p in outcomes.items())
    return {
        "win": sum(p for x, p in outcomes.items() if x > 0),
        "push": sum(p for x, p in outcomes.items() if x == 0),
        "loss": sum(p for x, p in outcomes.items() if x < 0),
        "mean": mean,
        "sd": math.sqrt(max(square - mean * mean, 0.0)),
        "payments": [[x / TENTH, p] for x, p in sorted(outcomes.items())],
    }


# -- Rocket: a full table dealt through the shoe -----------------------------------------------


@dataclass
class ShoeRun:
    """What a run through the shoe counted: cards per hand, hands that ran the shoe dry."""

    hands: int = 0
    cards: Counter = field(default_factory=Counter)
    card_sums: ShoeSums = field(default_factory=ShoeSums)
    dry_sums: ShoeSums = field(default_factory=ShoeSums)
    dry: int = 0
    card_total: int = 0
    abandoned: int = 0

    def figures(self) -> dict:
        n, shoes = self.hands, self.card_sums
        cards = clustered_estimate(
            self.card_total, n, shoes.count, shoes.house_sq, shoes.house_hands, shoes.hands_sq
        )
        dry = self.dry_sums
        share = clustered_estimate(self.dry, n, dry.count, dry.house_sq, dry.house_hands, dry.hands_sq)
        tail = {f"p{q}": _percentile(self.cards, n, q) for q in PERCENTILES}
        return {
            "hands": n,
            "cards_mean": simulated(cards),
            "cards_tail": tail,
            "cards_max": max(self.cards) if self.cards else None,
            "dry_share": simulated(share),
            "dry_hands": self.dry,
            "abandoned": self.abandoned,
        }


def rocket_shoe_run(
    *, decks: int, burn: int, penetration: float | None, strategy: str, players: int, hands: int,
    seed: str, progress: Progress,
) -> dict:  # fmt: skip
    """Deal `hands` hands to `players` seats through the shoe, seeded; see the module docstring."""
    fold = rocket_strategy(strategy)
    tenths = [1] * players  # one tenth each: the cards dealt do not depend on the bets
    counted = ShoeRun()
    for index, size in enumerate(_chunks(hands)):
        shoe = SimShoe(decks, shuffler(seed, index), burn, penetration)
        by_cards, by_dry = ShoeCounter(shoe, counted.card_sums), ShoeCounter(shoe, counted.dry_sums)
        for _ in range(size):
            shoe.begin_hand()
            by_cards.start()
            by_dry.start()
            refills = shoe.refills
            try:
                _, used, _ = play(tenths, shoe, fold)
            except ShoeExhausted:  # no way on: abandoned as `tables.simulation` does, and counted
                shoe.abandon()
                counted.abandoned += 1
                continue
            shoe.end_hand()
            ran_dry = int(shoe.refills != refills)
            counted.hands += 1
            counted.cards[used] += 1
            counted.card_total += used
            counted.dry += ran_dry
            by_cards.hand(used)
            by_dry.hand(ran_dry)
        by_cards.close()
        by_dry.close()
        done = counted.hands + counted.abandoned
        progress(round(100 * done / hands), f"Dealt {done:,} of {hands:,} hands")
    return counted.figures()


def _chunks(total: int) -> list[int]:
    return [min(CHUNK, total - start) for start in range(0, total, CHUNK)]


def _percentile(counts: Counter, n: int, q: int) -> int | None:
    """The smallest value at or below which at least q% of the n samples lie."""
    seen = 0
    for value in sorted(counts):
        seen += counts[value]
        if 100 * seen >= q * n:
            return value
    return None


# -- pot games ---------------------------------------------------------------------------------


@dataclass
class PotRun:
    """Sums over simulated pot games: the house's take, each seat's result, the game's length,
    and for Pairs every ending's payment and the Five Card Catches."""

    seats: list[int]
    games: int = 0
    house: int = 0
    house_sq: int = 0
    seat: dict = field(default_factory=dict)
    hands: Counter = field(default_factory=Counter)
    cards: int = 0
    catches: int = 0
    abandoned: int = 0
    endings: dict = field(default_factory=dict)

    def add(self, deltas: dict, hands: int, cards: int) -> None:
        self.games += 1
        self.house += deltas["house"]
        self.house_sq += deltas["house"] ** 2
        for seat in self.seats:
            total, square = self.seat.get(seat, (0, 0))
            self.seat[seat] = (total + deltas[seat], square + deltas[seat] ** 2)
        self.hands[hands] += 1
        self.cards += cards

    def add_endings(self, scores: dict, loser: int, tacoma_amount: int) -> None:
        """What the loser pays under every ending, for the same final scores (no rake, no carry)."""
        for ending in ENDINGS:
            if ending in ALIASES:
                continue
            paid = -settle_game(scores, ending=ending, loser=loser, tacoma_amount=tacoma_amount).deltas[loser]
            total, square = self.endings.get(ending, (0, 0))
            self.endings[ending] = (total + paid, square + paid * paid)

    def figures(self) -> dict:
        n = self.games
        hands = sum(k * v for k, v in self.hands.items())
        finished = n - self.catches
        return {
            "games": n,
            "house_per_game": simulated(estimate(self.house, self.house_sq, n)),
            "seats": {seat: simulated(estimate(*sums, n)) for seat, sums in sorted(self.seat.items())},
            "abandoned": self.abandoned,
            "hands_per_game": hands / n if n else math.nan,
            "hands_tail": {f"p{q}": _percentile(self.hands, n, q) for q in PERCENTILES},
            "hands_max": max(self.hands) if self.hands else None,
            "cards_per_game": self.cards / n if n else math.nan,
            "catch_share": simulated(estimate(self.catches, self.catches, n)),
            "endings": {
                ending: simulated(estimate(*sums, finished)) for ending, sums in sorted(self.endings.items())
            },
        }


def pot_run(
    *, game: str, options, players: int, strategy: str, games: int, seed: str, progress: Progress
) -> dict:
    """Play `games` seeded games of `game` under `options` (its house rules); see the docstring."""
    seats = list(range(1, players + 1))
    counted = PotRun(seats)
    for index, size in enumerate(_chunks(games)):
        shoe = SimShoe(getattr(options, "decks", 1), shuffler(seed, index), BURN, penetration=None)
        choose = POT_STRATEGIES[strategy](random.Random(f"{seed}:{index}:{PLAY_SEED}"))
        play_game = POT_GAMES[game]
        carry = 0
        for number in range(size):
            shoe.shuffle()  # every game from a freshly shuffled deck (RULINGS)
            try:
                carry = play_game(counted, options, seats, shoe, choose, carry, number)
            except ShoeExhausted:  # no way on (a Pairs tie-break): no money moved, counted
                counted.abandoned += 1
        done = counted.games + counted.abandoned
        progress(round(100 * done / games), f"Played {done:,} of {games:,} games")
    return counted.figures()


def _cards(game) -> int:
    return sum(1 for event in game.transcript if hasattr(event, "rank"))


def _blackstone(counted: PotRun, options, seats, shoe, choose, carry: int, number: int) -> int:
    game = new_game("blackstone", seats, dict.fromkeys(seats, 100), options.as_record(), carry)
    settlement = play_checked(game, shoe, choose, watch_returns=True)
    shoe.end_hand()
    counted.add(settlement.deltas, 1, _cards(game))
    return settlement.carry_out


def _starboard(counted: PotRun, options, seats, shoe, choose, carry: int, number: int) -> int:
    # The button moves one seat to the left each game, as `tables.simulation` deals it.
    record = {**options.as_record(), "button": seats[number % len(seats)]}
    game = new_game("starboard", seats, dict.fromkeys(seats, 100), record, carry)
    settlement = play_checked(game, shoe, choose)
    shoe.end_hand()
    counted.add(settlement.deltas, 1, _cards(game))
    return settlement.carry_out


def _pairs(counted: PotRun, options, seats, shoe, choose, carry: int, number: int) -> int:
    """A whole Pairs game: hands until a player reaches the losing score (or a Five Card Catch);
    scored cards, and in Continuous the stacks still in play, stay out of the deck (RULINGS)."""
    record = options.as_record()
    scores, state, held, hands, cards = dict.fromkeys(seats, 0), {}, [], 0, 0
    deltas = dict.fromkeys([*seats, "house", "carry"], 0)
    while True:
        game = new_game("pairs", seats, scores, record, carry, **state)
        settlement = play_checked(game, shoe, choose)
        result = settlement.result
        hands, cards = hands + 1, cards + _cards(game)
        for party, delta in settlement.deltas.items():
            deltas[party] += delta
        if result["game_over"]:
            shoe.end_hand(held=[])
            break
        held += [result["card"]] if result["card"] is not None else []
        in_play = [rank for stack in result.get("in_play", {}).values() for rank in stack]
        shoe.end_hand(held=held + in_play)
        scores = dict(result["scores"])
        if options.continuous:
            state = {"in_play": result["in_play"], "to_act": result["next_to_act"]}
    counted.add(deltas, hands, cards)
    if result["loser"] is None:
        counted.catches += 1
    else:
        counted.add_endings(dict(result["scores"]), result["loser"], options.tacoma_amount)
    return settlement.carry_out


def _secret(name: str):
    """A secret-hand game, dealt as `tables.simulation` deals it: the engine is told of the burn,
    and a system shoe names every face-down card."""

    def play(counted: PotRun, options, seats, shoe, choose, carry: int, number: int) -> int:
        game = new_game(name, seats, dict.fromkeys(seats, 100), options.as_record(), carry)
        for rank in shoe.discards:
            game.burn(rank)
        settlement = play_checked(game, shoe, choose)
        shoe.end_hand()
        counted.add(settlement.deltas, 1, _cards(game))
        return settlement.carry_out

    return play


POT_GAMES = {
    "blackstone": _blackstone,
    "starboard": _starboard,
    "pairs": _pairs,
    **{name: _secret(name) for name in SECRET_HANDS},
}
