"""Rocket's exact endless-shoe values and the luck-adjusted estimate, checked against simulation."""

from __future__ import annotations

import random
from functools import cache

import pytest

from tables.games.cards import RANKS
from tables.games.rocket import DEATH_CARD
from tables.games.rocket_edge import ODDS, build_tables, play_adjusted, shoe_counts, tables_for
from tables.games.rocket_fast import lowest, play
from tables.simulation import SimShoe, estimate, fold_at_most, pair_chance, rocket_strategy


@pytest.fixture(scope="module")
def cautious_tables():
    return tables_for("pair_chance", pair_chance)


@pytest.fixture(scope="module")
def best_tables():
    return tables_for("best", None)


def reference(fold):
    """The values straight from the rules, by plain recursion (slow: only for big stacks)."""

    @cache
    def acting(own: int, dealer: int) -> float:
        if fold(own, dealer):
            return -lowest(own | dealer)
        return sum(ODDS[c] * (-c if own >> c & 1 else waiting(own | 1 << c, dealer)) for c in RANKS)

    @cache
    def waiting(own: int, dealer: int) -> float:
        total = 0.0
        for d in RANKS:
            if d == DEATH_CARD or dealer >> d & 1:
                total += ODDS[d] * d
            else:
                total += ODDS[d] * acting(own, dealer | 1 << d)
        return total

    return acting, waiting


def big_stacks(rnd: random.Random, n: int):
    """Random (own, dealer) stacks holding 12 or more cards between them: small recursions."""
    dealer_ranks = [r for r in RANKS if r != DEATH_CARD]
    for _ in range(n):
        own = sum(1 << r for r in rnd.sample(RANKS, rnd.randint(5, 10)))
        dealer = sum(1 << r for r in rnd.sample(dealer_ranks, rnd.randint(7, 9)))
        yield own, dealer


def test_the_tables_agree_with_the_rules_read_as_a_recursion(cautious_tables):
    acting, waiting = reference(pair_chance)
    for own, dealer in big_stacks(random.Random(1), 60):
        assert cautious_tables.acting[dealer][own] == pytest.approx(acting(own, dealer), abs=1e-12)
        assert cautious_tables.waiting[dealer][own] == pytest.approx(waiting(own, dealer), abs=1e-12)


def test_the_best_strategy_folds_exactly_when_folding_is_worth_more(best_tables):
    acting, _ = reference(best_tables.fold)
    for own, dealer in big_stacks(random.Random(2), 40):
        price = -lowest(own | dealer)
        hit = best_tables.acting[dealer][own] if not best_tables.folds[dealer][own] else None
        assert best_tables.acting[dealer][own] >= price - 1e-12
        if hit is not None:
            assert hit == pytest.approx(acting(own, dealer))


def test_no_named_strategy_beats_the_best_in_an_endless_shoe(best_tables):
    for name in ("always_hit", "fold_at_most_1", "fold_at_most_3", "pair_chance", "pair_cost"):
        assert best_tables.edge <= tables_for(name, rocket_strategy(name)).edge


def test_a_one_card_player_folds_only_when_the_price_is_cheap_under_the_best_strategy(best_tables):
    # holding a lone 10 against a dealer 1, the 1-tenth fold is cheaper than a 10/55 chance of paying 10
    assert best_tables.folds[1 << 1][1 << 10]
    # holding a lone 1 nothing is cheaper than hitting
    assert not best_tables.folds[1 << 9][1 << 1]


class Endless:
    """A card source with the fresh-deck odds on every draw (the tables' own world)."""

    def __init__(self, rnd: random.Random):
        self.rnd, self.order, self.pos = rnd, [], 0

    def refill(self) -> None:
        self.order = self.rnd.choices(RANKS, weights=RANKS, k=4096)
        self.pos = 0


def test_the_endless_shoe_edge_matches_simulation_of_an_endless_shoe():
    # given the exact endless-shoe edge of a strategy that folds cheap hands
    fold = fold_at_most(2)
    exact = build_tables(fold).edge
    # when 50,000 hands of three seats are simulated against an endless shoe
    source, total, total_sq, hands = Endless(random.Random(3)), 0, 0, 50_000
    source.refill()
    for _ in range(hands):
        deltas, _, _ = play([1, 1, 1], source, fold)
        won = -sum(deltas)
        total += won
        total_sq += won * won
    simulated = estimate(total, total_sq, hands, scale=30)
    # then the exact figure lies within four standard errors of the simulation
    assert abs(simulated.mean - exact) < 2.05 * simulated.half_width


@pytest.mark.parametrize("decks", [1, 8])
def test_the_adjusted_estimate_has_the_mean_of_the_real_results_and_less_spread(decks, cautious_tables):
    # given the same seeded shoe for the real and the luck-adjusted results of 30,000 hands
    shoe = SimShoe(decks, random.Random(decks))
    counts, shuffles = shoe_counts(shoe.order, shoe.pos), shoe.shuffles
    real = [0, 0]
    adjusted = [0.0, 0.0]
    difference = [0.0, 0.0]
    hands = 30_000
    for _ in range(hands):
        shoe.begin_hand()
        if shoe.shuffles != shuffles:
            counts, shuffles = shoe_counts(shoe.order, shoe.pos), shoe.shuffles
        deltas, value, _, _ = play_adjusted([1, 2], shoe, cautious_tables, counts)
        shoe.end_hand()
        assert counts == shoe_counts(shoe.order, shoe.pos)
        won = sum(deltas)
        real[0], real[1] = real[0] + won, real[1] + won * won
        adjusted[0], adjusted[1] = adjusted[0] + value, adjusted[1] + value * value
        gap = won - value
        difference[0], difference[1] = difference[0] + gap, difference[1] + gap * gap
    # then the paired difference of the two estimates is centred on zero
    gap = estimate(*difference, hands)
    assert abs(gap.mean) < 2.05 * gap.half_width
    # and the adjusted spread is many times smaller
    assert estimate(*adjusted, hands).half_width * 4 < estimate(*real, hands).half_width


def test_the_adjusted_hand_plays_the_same_cards_as_the_fast_path(cautious_tables):
    for seed in range(30):
        first, second = SimShoe(1, random.Random(seed)), SimShoe(1, random.Random(seed))
        counts = shoe_counts(second.order, second.pos)
        for _ in range(5):  # five hands of one deck: well before the cut card
            first.begin_hand()
            second.begin_hand()
            fast = play([1, 3, 2], first, cautious_tables.fold, 1)
            deltas, _, used, starter = play_adjusted([1, 3, 2], second, cautious_tables, counts, 1)
            first.end_hand()
            second.end_hand()
            assert (deltas, used, starter) == fast
