"""Rocket's theoretical edge: computed through the engine, cached per rules configuration, and equal
to an independent calculation written here from the rulebook."""

from functools import cache

import pytest

from reports.models import TheoreticalEdge
from reports.services import RocketConfig, theoretical_edge
from tables.games.rocket_exact import fresh_shoe
from tables.simulation import RunSpec, always_hit, run

pytestmark = pytest.mark.django_db

DECK = 55  # rank r is r of the 55 cards of a Pairs deck


def endless_value(fold_when_worth_it: bool) -> float:
    """A seat's expected result in tenths of its bet with an endless shoe, by plain recursion over
    the rules (docs/rules/rocket.md), written without the engine's tables:

    the player's first card, then the dealer's (a 3 pays 3 tenths); then in turn the player folds
    (pays the lowest card of both stacks) or hits (a pair pays its rank); the dealer draws (a 3 or a
    pair pays the player), and round again. `fold_when_worth_it`: fold whenever folding costs less
    than hitting is expected to (the best play); otherwise always hit.
    """
    odds = [(rank, 1 << rank, rank / DECK) for rank in range(1, 11)]  # stacks are sets of ranks, as bits

    @cache
    def acting(own: int, dealer: int) -> float:
        hit = sum(p * (-rank if own & bit else dealer_draws(own | bit, dealer)) for rank, bit, p in odds)
        both = own | dealer
        fold = -((both & -both).bit_length() - 1)  # the lowest card of both stacks
        return max(hit, fold) if fold_when_worth_it else hit

    @cache
    def dealer_draws(own: int, dealer: int) -> float:
        value = 0.0
        for rank, bit, p in odds:
            if rank == 3 or dealer & bit:
                value += p * (3 if rank == 3 else rank)
            else:
                value += p * acting(own, dealer | bit)
        return value

    return sum(
        p * q * (3 if second == 3 else acting(first_bit, second_bit))
        for _, first_bit, p in odds
        for second, second_bit, q in odds
    )


@pytest.mark.parametrize(("strategy", "best"), [("always_hit", False), ("best", True)])
def test_the_endless_shoe_edge_agrees_with_an_independent_recursion(strategy, best):
    edge = theoretical_edge(config=RocketConfig(decks=8, strategy=strategy))

    assert edge.endless_edge == pytest.approx(-endless_value(best) / 10, abs=1e-12)


def test_the_finite_shoe_edge_is_the_luck_adjusted_simulation_with_its_interval(settings):
    config = RocketConfig(decks=8, strategy="always_hit")

    edge = theoretical_edge(config=config)

    # the same figure as the simulator gives for this configuration and seed
    again = run(
        RunSpec(
            hands=settings.REPORTS_EDGE_HANDS,
            strategy="always_hit",
            decks=8,
            players=3,
            seed=f"{edge.config_hash}:edge",
            workers=1,
            adjusted=True,
            options={"start": "left"},
        )
    )
    assert edge.edge == again.edge_per_unit.mean and edge.half_width == again.edge_per_unit.half_width
    # a real shoe is close to the endless one, and the simulation says how close it can tell
    assert 0 < edge.half_width < 0.005
    assert abs(edge.edge - edge.endless_edge) < 0.01
    assert 0.3 < edge.seat_variance < 1 and 0 < edge.pair_covariance < edge.seat_variance


def test_an_edge_is_computed_once_per_rules_configuration():
    first = theoretical_edge(config=RocketConfig(decks=8, strategy="always_hit"))
    again = theoretical_edge(config=RocketConfig(decks=8, strategy="always_hit"))
    button = theoretical_edge(config=RocketConfig(decks=8, start="button", strategy="always_hit"))

    assert again.pk == first.pk and button.pk != first.pk
    assert TheoreticalEdge.objects.count() == 2
    assert first.config["strategy"] == "always_hit" and button.config["start"] == "button"


def test_a_shoe_reshuffled_before_every_hand_takes_the_exact_fresh_shoe_edge_without_simulation():
    # given a cut card placed before the end of the first hand (4 cards into 8 decks, burn 5)
    config = RocketConfig(decks=8, penetration=0.01, strategy="always_hit")

    edge = theoretical_edge(config=config)

    # then the table's edge is the exact fresh-shoe figure, with no interval and no hands simulated
    assert config.fresh_every_hand
    assert edge.method == TheoreticalEdge.Method.EXACT
    assert edge.edge == edge.fresh_edge == fresh_shoe(8, "always_hit", always_hit).edge
    assert edge.half_width == 0 and edge.hands == 0


def test_a_shoe_dealt_to_the_cut_card_is_simulated_and_shows_the_fresh_shoe_figure_beside_it():
    edge = theoretical_edge(config=RocketConfig(decks=1, strategy="always_hit"))

    assert edge.method == TheoreticalEdge.Method.SIMULATED and edge.hands > 0
    assert edge.fresh_edge == fresh_shoe(1, "always_hit", always_hit).edge
    # one deck is cheaper for the player than an endless shoe, fresh or dealt to the cut card
    assert edge.fresh_edge < edge.endless_edge and edge.edge < edge.endless_edge
