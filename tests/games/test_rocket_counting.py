"""The card counter's simulation and the table-setup warnings (tables/rocket_counting.py)."""

from __future__ import annotations

from decimal import Decimal

import pytest

from tables.rocket_counting import (
    ONE_DECK_EFFECTS,
    configuration_warnings,
    counter_edge,
    effect_of_removal,
    refill_share,
)


@pytest.mark.parametrize("rank", [3, 10])
def test_the_stored_one_deck_effects_of_removal_are_the_exact_ones(rank):
    assert ONE_DECK_EFFECTS[rank] == pytest.approx(effect_of_removal(1, rank), abs=1e-12)


def test_a_three_out_of_the_shoe_hurts_the_player_most_and_high_cards_out_help_it():
    # a 3 is the dealer's death card: one fewer in the shoe costs the player most
    assert min(ONE_DECK_EFFECTS[1:]) == ONE_DECK_EFFECTS[3] < 0
    assert all(ONE_DECK_EFFECTS[r] > 0 for r in range(4, 11))


def test_on_the_same_hands_the_counter_faces_a_lower_edge_than_the_flat_bettor():
    # given one deck cut deep, 20,000 hands of best play
    result = counter_edge(0.9, 20_000, seed="test")
    # then the counter bets big on a minority of hands and the house holds less of its bets
    assert 0.05 < result.big_bets < 0.5
    assert result.counter.mean < result.flat.mean - 0.01
    assert result.counter.half_width > result.flat.half_width > 0


def test_a_full_one_deck_table_cut_at_eighty_percent_often_runs_the_shoe_dry_mid_hand():
    assert refill_share(1, 0.8) > 0.1
    assert refill_share(8, 0.8) == 0


def test_the_table_setup_warns_of_mid_hand_reshuffles_and_of_a_beatable_single_deck():
    warnings = configuration_warnings("rocket", {}, 1, 0.8)
    assert any("card counter" in w and "-1.10% +/- 0.33%" in w for w in warnings)
    assert any("run the shoe dry" in w for w in warnings)
    # a shallow single deck is not measured beatable; eight decks neither, nor dry mid-hand
    assert not any("card counter" in w for w in configuration_warnings("rocket", {}, 1, 0.5))
    assert configuration_warnings("rocket", {}, 8, Decimal("0.80")) == []  # as a Shoe row holds it
    assert configuration_warnings("blackstone", {}, 1, 0.9) == []
