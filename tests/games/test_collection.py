"""The house's collection on pot games: a worked example for each mode, in each game.

RULINGS.md "House revenue on pot games": rake (the default: 5%, rounded down, at most 10 units,
taken from a pot paid out before the split), fee (each player dealt into a game pays it as the game
starts), time (charged by the table services, never the engine) and none.
"""

from __future__ import annotations

import pytest

from tables.games import IllegalAction
from tables.games.blackstone import Blackstone
from tables.games.collection import CollectionOptions
from tables.games.pairs import Pairs
from tables.games.pairs_endings import settle_game
from tables.games.starboard import Starboard

# The book's example of a fold with 15 white stones: seats 3 and 1 fold for 13 each, seat 2 takes
# the pot of 26.
FIFTEEN_WHITE = (4, 2, 6, ("take", 12), 9, 9, 9, 9, 8, 8, 8, 8, 7, 7, 7, 7, ("fold",), ("fold",))


def play(game, *steps):
    for step in steps:
        if isinstance(step, tuple):
            game.act(step)
        elif isinstance(step, str):
            game.act((step,))
        else:
            game.deal(step)
    return game


def blackstone(stakes=100, carry=0, **options) -> Blackstone:
    return Blackstone((1, 2, 3), dict.fromkeys((1, 2, 3), stakes), options=options, carry=carry)


def scores(*points: int) -> dict[int, int]:
    return dict(enumerate(points, start=1))


# -- The rule itself ---------------------------------------------------------------


def test_rake_is_the_default_at_five_percent_rounded_down_and_capped_at_ten_units():
    rake = CollectionOptions()
    assert rake.collection == "rake"
    assert [rake.rake(pot) for pot in (19, 20, 26, 199, 200, 300)] == [0, 1, 1, 9, 10, 10]
    assert CollectionOptions(collection="fee").rake(300) == 0


@pytest.mark.parametrize("options, message", [
    ({"collection": "tip"}, "Unknown collection"),
    ({"rake_percent": 101}, "whole percentage"),
    ({"rake_cap": -1}, "rake cap must be whole units"),
    ({"fee": 1.5}, "fee must be whole units"),
    ({"time_minutes": 0}, "whole number of minutes"),
])
def test_an_impossible_collection_is_refused(options, message):
    with pytest.raises(IllegalAction, match=message):
        CollectionOptions.build(options)


# -- Blackstone --------------------------------------------------------------------


def test_blackstone_under_none_is_the_books_example():
    game = play(blackstone(collection="none"), *FIFTEEN_WHITE)
    assert game.settlement().deltas == {1: -13, 2: 26, 3: -13, "house": 0, "carry": 0}


def test_blackstone_rake_takes_one_unit_of_a_26_unit_pot_before_the_last_player_takes_it():
    game = play(blackstone(), *FIFTEEN_WHITE)
    assert game.settlement().deltas == {1: -13, 2: 25, 3: -13, "house": 1, "carry": 0}
    assert game.settlement().result["pot"] == 26


def test_blackstone_rake_is_capped_and_taken_before_the_split_so_odd_units_follow_the_raked_pot():
    # Seat 2 takes a second 10 with 5 white stones out: it pays the ante 100 plus 5, and with the
    # 3 carried in the pot is 108. 20% of it is 21, capped at 10; 98 split: 49 each, nothing odd.
    game = blackstone(stakes=300, carry=3, ante=100, rake_percent=20)
    play(game, 4, 2, 6, ("take", 1), 10, ("take", 1), 9, ("take", 1), 8, ("take", 1), 10)
    settlement = game.settlement()
    assert settlement.result["loser"] == 2 and settlement.result["pot"] == 108
    assert settlement.deltas == {1: 49, 2: -105, 3: 49, "house": 10, "carry": -3}


def test_blackstone_fee_each_player_pays_one_unit_as_the_game_starts():
    game = play(blackstone(collection="fee"), *FIFTEEN_WHITE)
    assert game.settlement().deltas == {1: -14, 2: 25, 3: -14, "house": 3, "carry": 0}


def test_blackstone_fee_a_player_without_the_ante_and_the_fee_cannot_sit_in():
    with pytest.raises(IllegalAction, match="the ante is 5 and the house's fee 1"):
        Blackstone((1, 2), {1: 5, 2: 50}, options={"collection": "fee"})
    Blackstone((1, 2), {1: 5, 2: 50}, options={"collection": "rake"})


def test_blackstone_fee_table_stakes_leave_the_fee_paid():
    # Seat 1 has 7: after the fee, 6 are left for a fold that costs the ante 5 plus 3 (6 white
    # stones): it pays 6 and is 2 short; seat 2 takes the 6 less its own fee.
    game = Blackstone((1, 2), {1: 7, 2: 50}, options={"collection": "fee"})
    play(game, 4, 2, ("take", 4), 9, 9, 9, 9, ("fold",))
    settlement = game.settlement()
    assert settlement.deltas == {1: -7, 2: 5, "house": 2, "carry": 0}
    assert settlement.shortfalls == {1: 2}


@pytest.mark.parametrize("mode", ["time", "none"])
def test_blackstone_time_and_none_collect_nothing_in_the_engine(mode):
    game = play(blackstone(collection=mode), *FIFTEEN_WHITE)
    assert game.settlement().deltas["house"] == 0


# -- Starboard ---------------------------------------------------------------------


def starboard(n=3, chips=10, carry=0, **options) -> Starboard:
    seats = list(range(1, n + 1))
    return Starboard(seats, dict.fromkeys(seats, chips), options=options, carry=carry)


# Pot 6: 3 antes + 3 draws; seat 3 locks at 4 cards and takes it (test_starboard's example).
SINGLE_WINNER = (5, 7, "draw", 1, "lock", "draw", 2, "draw", 5, "lock")


def test_starboard_rake_takes_five_percent_of_a_pot_paid_out():
    game = play(starboard(chips=50, ante=10, draw_fee=10), *SINGLE_WINNER)
    # Pot 60 (3 antes and 3 draws of 10): the house takes 3, seat 3 the other 57.
    assert game.settlement().deltas == {1: -30, 2: -10, 3: 37, "house": 3, "carry": 0}


def test_starboard_rake_counts_units_carried_in_when_the_pot_is_paid_out():
    game = play(starboard(carry=14, rake_percent=25), *SINGLE_WINNER)
    # Pot 6 + 14 carried = 20: 25% is 5; seat 3 takes 15.
    assert game.settlement().deltas == {1: -3, 2: -1, 3: 15 - 2, "house": 5, "carry": -14}


def test_starboard_fee_is_paid_by_every_player_on_top_of_the_ante():
    game = play(starboard(collection="fee", fee=2), *SINGLE_WINNER)
    assert game.settlement().deltas == {1: -5, 2: -3, 3: 2, "house": 6, "carry": 0}


def test_starboard_fee_leaves_a_player_who_can_pay_only_the_fee_and_ante_to_lock():
    game = play(Starboard([1, 2], {1: 2, 2: 9}, options={"collection": "fee"}), 4, 8)
    assert game.next.moves == ("lock",)
    with pytest.raises(IllegalAction, match="cannot sit in"):
        Starboard([1, 2], {1: 1, 2: 9}, options={"collection": "fee"})


def test_starboard_under_none_is_the_books_example():
    game = play(starboard(collection="none"), *SINGLE_WINNER)
    assert game.settlement().deltas == {1: -3, 2: -1, 3: 4, "house": 0, "carry": 0}


# -- Pairs -------------------------------------------------------------------------


def test_pairs_cutchfeld_rake_comes_out_of_the_prize_before_the_split():
    # The book's 17-10-8-7-2: the loser pays 17; at 10% the house takes 1, the player with 2 gets 16.
    rake = CollectionOptions(rake_percent=10)
    settlement = settle_game(scores(17, 10, 8, 7, 2), ending="cutchfeld", loser=1, collection=rake)
    assert dict(settlement.deltas) == {1: -17, 2: 0, 3: 0, 4: 0, 5: 16, "house": 1, "carry": 0}


def test_pairs_carried_units_are_raked_once_when_a_prize_pays_them_out():
    # Tacoma 10 plus 10 carried: the prize of 20 pays the house 1 and the lowest scorer 19.
    settlement = settle_game(
        scores(16, 0, 5), ending="tacoma", loser=1, tacoma_amount=10, carry=10, collection=CollectionOptions()
    )
    assert dict(settlement.deltas) == {1: -10, 2: 19, 3: 0, "house": 1, "carry": -10}


def test_pairs_portland_rake_comes_out_of_the_largest_payments_first():
    # The loser on 33 pays 29, 21 and 33: 83, whose 5% is 4, taken from the largest payments.
    settlement = settle_game(scores(33, 4, 12, 0), ending="portland", loser=1, collection=CollectionOptions())
    assert dict(settlement.deltas) == {1: -83, 2: 29, 3: 21, 4: 29, "house": 4, "carry": 0}


def test_pairs_downspear_pays_too_little_to_be_raked_and_forfeit_carries_the_pot_unraked():
    house = CollectionOptions()
    downspear = settle_game(scores(13, 4, 4, 9), ending="downspear", loser=1, carry=2, collection=house)
    assert downspear.deltas["house"] == 0 and downspear.carry_out == 2
    forfeit = settle_game(scores(31, 20), ending="forfeit", loser=1, carry=40, collection=house)
    assert forfeit.deltas["house"] == 0 and forfeit.carry_out == 40


def test_pairs_five_card_catch_rake_comes_out_of_all_the_winner_collects():
    settlement = settle_game(
        scores(9, 4, 0, 12), ending="cutchfeld", loser=None, five_card_winner=2, carry=3,
        collection=CollectionOptions(rake_percent=10),
    )
    # The winner collects 9 + 12 + 3 carried = 24; the house takes 2.
    assert dict(settlement.deltas) == {1: -9, 2: 22, 3: 0, 4: -12, "house": 2, "carry": -3}


def test_pairs_fee_is_paid_once_per_game_on_its_first_round():
    options = {"ending": "cutchfeld", "collection": "fee"}
    first = play(Pairs([1, 2, 3], scores(0, 0, 0), options=options), 3, 5, 6, "hit", 3)
    assert dict(first.settlement().deltas) == {1: -1, 2: -1, 3: -1, "house": 3, "carry": 0}
    later = play(Pairs([1, 2, 3], scores(3, 0, 0), options=options), 3, 5, 6, "hit", 3)
    assert set(later.settlement().deltas.values()) == {0}


def test_pairs_under_none_the_book_example_pays_in_full():
    settlement = settle_game(scores(17, 10, 8, 7, 2), ending="cutchfeld", loser=1)
    assert dict(settlement.deltas) == {1: -17, 2: 0, 3: 0, 4: 0, 5: 17, "house": 0, "carry": 0}
