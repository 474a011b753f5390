"""Rocket's exact fresh-shoe values, checked against every deal order of small shoes."""

from __future__ import annotations

from fractions import Fraction
from functools import cache

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tables.games.rocket_edge import tables_for
from tables.games.rocket_exact import check_shoe, fresh_shoe, solve
from tables.games.rocket_fast import play_hand
from tables.simulation import rocket_strategy

# Small shoes (cards per rank, index 0 unused) that no hand can run dry.
ONE_SEAT_SHOE = (0, 3, 2, 2, 2)  # 9 cards: 7,560 deal orders
# 11 cards: 6,930 orders; never dry with two seats (three stacks, then two pair cards and one more)
TWO_SEAT_SHOE = (0, 5, 4, 2)
STRATEGIES = ("always_hit", "pair_cost", "fold_at_most_2", "best")


def deal_orders(counts: tuple[int, ...]):
    """Every distinct order of the shoe's cards: each is equally likely after a fair shuffle."""
    if not any(counts):
        yield ()
        return
    for rank, n in enumerate(counts):
        if n:
            rest = counts[:rank] + (n - 1,) + counts[rank + 1 :]
            for tail in deal_orders(rest):
                yield (rank, *tail)


def brute_force(counts: tuple[int, ...], fold, seats: int, options: dict | None = None) -> list[Fraction]:
    """Each seat's average result in tenths over every deal order, played by the fast path."""
    totals, orders = [0] * seats, 0
    bets = {seat: 10 for seat in range(1, seats + 1)}  # a bet of 10: one unit is one tenth
    for order in deal_orders(counts):
        hand = play_hand(bets, order, fold, {"decks": 1, **(options or {})})
        for seat in range(seats):
            totals[seat] += hand.deltas[seat + 1]
        orders += 1
    return [Fraction(total, orders) for total in totals]


def expectimax(counts: tuple[int, ...]) -> Fraction:
    """The best one-seat result in tenths, read straight from the rules over the cards left."""

    def draws(left):
        total = sum(left)
        for rank, n in enumerate(left):
            if n:
                yield rank, Fraction(n, total), left[:rank] + (n - 1,) + left[rank + 1 :]

    @cache
    def act(left, own, dealer):
        price = -min(own | dealer)
        hit = sum(p * (-c if c in own else wait(rest, own | {c}, dealer)) for c, p, rest in draws(left))
        return max(price, hit)

    @cache
    def wait(left, own, dealer):
        return sum(
            p * (d if d == 3 or d in dealer else act(rest, own, dealer | {d})) for d, p, rest in draws(left)
        )

    def first(left, c):
        own = frozenset({c})
        return sum(q * (3 if d == 3 else act(after, own, frozenset({d}))) for d, q, after in draws(left))

    return sum(p * first(rest, c) for c, p, rest in draws(counts))


@pytest.mark.parametrize("name", STRATEGIES)
def test_the_exact_value_equals_the_average_over_every_deal_order_of_a_small_shoe(name):
    fold = rocket_strategy(name)
    assert solve(ONE_SEAT_SHOE, fold, fractions=True).start == brute_force(ONE_SEAT_SHOE, fold, 1)[0]


@pytest.mark.parametrize(("name", "start"), [("pair_cost", "left"), ("always_hit", "button")])
def test_with_two_seats_each_seat_is_worth_what_one_seat_alone_is(name, start):
    fold = rocket_strategy(name)
    exact = solve(TWO_SEAT_SHOE, fold, fractions=True).start
    assert brute_force(TWO_SEAT_SHOE, fold, 2, {"start": start}) == [exact, exact]


def test_the_optimum_is_the_best_play_for_the_cards_left_and_beats_every_strategy():
    optimum = solve(ONE_SEAT_SHOE, None, fractions=True)
    assert optimum.start == expectimax(ONE_SEAT_SHOE)
    # playing the optimum's own folds through every deal order gives its value
    assert brute_force(ONE_SEAT_SHOE, optimum.fold, 1)[0] == optimum.start
    for name in STRATEGIES:
        assert optimum.start >= solve(ONE_SEAT_SHOE, rocket_strategy(name), fractions=True).start


@st.composite
def small_shoes(draw) -> tuple[int, ...]:
    """Up to 9 cards of 3 or 4 ranks that no one-seat hand can run dry."""
    ranks = draw(st.lists(st.integers(1, 10), min_size=3, max_size=4, unique=True))
    counts = [0] * 11
    for rank in ranks:
        counts[rank] = draw(st.integers(1, 3))
    shoe = tuple(counts)
    try:
        check_shoe(shoe)
    except ValueError:
        counts[max(ranks, key=counts.__getitem__)] = 3  # a third card of one rank always ends it
        shoe = tuple(counts)
    return shoe if sum(shoe) <= 9 else (0, 3, 2, 2, 2)


@settings(max_examples=12, deadline=None)
@given(shoe=small_shoes(), name=st.sampled_from(STRATEGIES))
def test_any_small_shoe_agrees_with_every_deal_order_and_the_optimum_is_never_worse(shoe, name):
    fold = rocket_strategy(name)
    value = solve(shoe, fold, fractions=True).start
    assert value == brute_force(shoe, fold, 1)[0]
    assert solve(shoe, None, fractions=True).start >= value


def test_floats_agree_with_fractions():
    exact = solve(TWO_SEAT_SHOE, rocket_strategy("pair_cost"), fractions=True).start
    assert solve(TWO_SEAT_SHOE, rocket_strategy("pair_cost")).start == pytest.approx(float(exact), abs=1e-14)


def test_a_shoe_a_hand_could_run_dry_is_refused():
    with pytest.raises(ValueError, match="run dry"):
        check_shoe((0, 2, 2, 1, 2))


def test_a_huge_shoe_has_the_endless_edge_and_one_deck_is_cheaper_than_eight():
    fold = rocket_strategy("always_hit")
    endless = tables_for("always_hit", fold).edge
    huge = solve((0, *(2000 * r for r in range(1, 11))), fold).edge
    assert huge == pytest.approx(endless, abs=2e-4)
    one, eight = fresh_shoe(1, "always_hit", fold).edge, fresh_shoe(8, "always_hit", fold).edge
    assert one < eight < endless
