"""How a finished Pairs game is paid: every ending, splits and carried pots, Five Card Catch.

Scores are written in seat order: `scores(17, 10, 8, 7, 2)` puts 17 points on
seat 1 and 2 on seat 5. Points are bad; the loser is the player who reached
the losing score.
"""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tables.games import IllegalAction
from tables.games.pairs import Pairs
from tables.games.pairs_endings import ENDINGS, SPLIT_ENDINGS, canonical_ending, is_gambling, settle_game

# The book's examples take no collection (settle_game collects nothing unless told).
NONE = {"collection": "none"}


def scores(*points: int) -> dict[int, int]:
    return {seat: score for seat, score in enumerate(points, start=1)}


def money(settlement) -> dict:
    """Seats' deltas plus the carry, the way the pit reads them."""
    return dict(settlement.deltas)


def play(game: Pairs, *steps: int | str) -> Pairs:
    for step in steps:
        if isinstance(step, int):
            game.deal(step)
        else:
            game.act((step,))
    return game


# -- Cutchfeld ------------------------------------------------------------------


def test_cutchfeld_17_10_8_7_2_the_player_with_17_pays_17_to_the_player_with_2():
    settlement = settle_game(scores(17, 10, 8, 7, 2), ending="cutchfeld", loser=1)

    assert money(settlement) == {1: -17, 2: 0, 3: 0, 4: 0, 5: 17, "house": 0, "carry": 0}
    assert settlement.result["winners"] == [5]


def test_cutchfeld_tied_winners_split_the_payment_and_odd_coins_stay_in_the_pot_for_the_next_game():
    settlement = settle_game(scores(17, 10, 2, 2), ending="cutchfeld", loser=1)

    assert money(settlement) == {1: -17, 2: 0, 3: 8, 4: 8, "house": 0, "carry": 1}
    assert settlement.carry_out == 1


def test_a_carried_pot_joins_the_next_split_and_is_paid_to_the_winners_with_it():
    settlement = settle_game(scores(17, 10, 2, 2), ending="cutchfeld", loser=1, carry=1)

    assert money(settlement) == {1: -17, 2: 0, 3: 9, 4: 9, "house": 0, "carry": -1}
    assert settlement.carry_out == 0


def test_the_loser_always_pays_the_full_amount_even_when_three_winners_share_it():
    settlement = settle_game(scores(14, 3, 3, 3), ending="cutchfeld", loser=1, carry=2)

    # 14 + 2 carried = 16 among three: 5 each, 1 stays
    assert money(settlement) == {1: -14, 2: 5, 3: 5, 4: 5, "house": 0, "carry": -1}
    assert settlement.carry_out == 1


def test_the_hand_that_ends_a_cutchfeld_game_carries_the_games_money():
    # given five players at 12, 10, 8, 7, 2 with 13 to lose; Angie starts on a 1
    game = Pairs([1, 2, 3, 4, 5], scores(12, 10, 8, 7, 2), options={"ending": "cutchfeld", **NONE})
    # when everybody hits clean once round the table and Angie then pairs her 5s
    play(game, 1, 3, 4, 6, 8, "hit", 5, "hit", 7, "hit", 9, "hit", 10, "hit", 2, "hit", 5)
    # then Angie scores 5, reaches 17, loses, and pays her 17 to the player with 2
    outcome = game.settlement().result
    assert (outcome["scorer"], outcome["points"], outcome["loser"]) == (1, 5, 1)
    assert outcome["scores"] == scores(17, 10, 8, 7, 2)
    assert money(game.settlement()) == {1: -17, 2: 0, 3: 0, 4: 0, 5: 17, "house": 0, "carry": 0}


def test_a_hand_that_does_not_end_the_game_moves_no_money_whatever_the_ending():
    game = Pairs([1, 2, 3], scores(0, 0, 0), options={"ending": "portland", **NONE}, carry=3)
    play(game, 8, 5, 9, "fold")

    assert set(money(game.settlement()).values()) == {0}
    assert game.settlement().carry_out == 3


# -- The other endings -----------------------------------------------------------


@pytest.mark.parametrize("ending", ["downspear", "seattle"])
def test_downspear_or_seattle_the_loser_pays_one_coin_to_every_other_player(ending):
    settlement = settle_game(scores(13, 4, 4, 9), ending=ending, loser=1, carry=2)

    assert money(settlement) == {1: -3, 2: 1, 3: 1, 4: 1, "house": 0, "carry": 0}
    assert settlement.carry_out == 2  # nothing is split, so the carried pot waits
    assert settlement.result["ending"] == "downspear"


def test_norland_the_loser_pays_one_coin_to_each_lowest_scorer():
    assert money(settle_game(scores(13, 4, 6, 9), ending="norland", loser=1)) == {
        1: -1, 2: 1, 3: 0, 4: 0, "house": 0, "carry": 0}
    assert money(settle_game(scores(13, 4, 4, 9), ending="norland", loser=1)) == {
        1: -2, 2: 1, 3: 1, 4: 0, "house": 0, "carry": 0}


def test_tacoma_the_loser_pays_six_coins_to_the_lowest_score_and_tied_players_split_them():
    assert money(settle_game(scores(21, 5, 11), ending="tacoma", loser=1)) == {
        1: -6, 2: 6, 3: 0, "house": 0, "carry": 0}
    assert money(settle_game(scores(21, 5, 5), ending="tacoma", loser=1)) == {
        1: -6, 2: 3, 3: 3, "house": 0, "carry": 0}


def test_tacoma_odd_coins_stay_in_the_pot_and_the_amount_is_a_house_rule():
    settlement = settle_game(scores(16, 0, 0, 0), ending="tacoma", loser=1, tacoma_amount=10)

    assert money(settlement) == {1: -10, 2: 3, 3: 3, 4: 3, "house": 0, "carry": 1}


def test_olympia_the_loser_pays_the_lowest_scorers_the_difference_between_the_two_scores():
    assert money(settle_game(scores(22, 5, 11), ending="olympia", loser=1)) == {
        1: -17, 2: 17, 3: 0, "house": 0, "carry": 0}
    assert money(settle_game(scores(22, 5, 5), ending="olympia", loser=1)) == {
        1: -17, 2: 8, 3: 8, "house": 0, "carry": 1}


def test_portland_the_loser_pays_every_player_the_difference_between_their_scores():
    settlement = settle_game(scores(13, 4, 12, 0), ending="portland", loser=1, carry=1)

    assert money(settlement) == {1: -23, 2: 9, 3: 1, 4: 13, "house": 0, "carry": 0}
    assert settlement.carry_out == 1


def test_forfeit_moves_no_money_but_names_the_loser():
    settlement = settle_game(scores(31, 20), ending="forfeit", loser=1, carry=4)

    assert set(money(settlement).values()) == {0}
    assert settlement.carry_out == 4
    assert settlement.result["loser"] == 1


def test_the_hand_that_ends_a_forfeit_game_names_the_loser_and_moves_nothing():
    game = play(Pairs([1, 2], scores(25, 3), options=NONE), 6, 9, "hit", 6)

    assert game.settlement().result["loser"] == 1
    assert set(money(game.settlement()).values()) == {0}


def test_the_hand_that_ends_a_tacoma_game_pays_the_tables_amount():
    game = Pairs([1, 2, 3], scores(18, 2, 2), options={"ending": "tacoma", "tacoma_amount": 12, **NONE},
                 carry=1)
    play(game, 3, 5, 6, "hit", 3)

    assert money(game.settlement()) == {1: -12, 2: 6, 3: 6, "house": 0, "carry": 0}
    assert game.settlement().carry_out == 1


# -- Five Card Catch ----------------------------------------------------------------


def test_five_card_catch_every_other_player_pays_the_winner_their_own_score():
    settlement = settle_game(scores(9, 4, 0, 12), ending="cutchfeld", loser=None, five_card_winner=2, carry=3)

    assert money(settlement) == {1: -9, 2: 24, 3: 0, 4: -12, "house": 0, "carry": -3}
    assert settlement.result["winners"] == [2]


@pytest.mark.parametrize("kwargs, message", [
    ({"ending": "tacoma", "loser": None, "five_card_winner": 1}, "only with Cutchfeld"),
    ({"ending": "cutchfeld", "loser": 2, "five_card_winner": 1}, "has no loser"),
    ({"ending": "cutchfeld", "loser": None, "five_card_winner": 9}, "five-card winner must be one of"),
    ({"ending": "vegas", "loser": 1}, "Unknown Pairs ending 'vegas'"),
    ({"ending": "cutchfeld", "loser": 9}, "The loser must be one of the seats"),
    ({"ending": "cutchfeld", "loser": 2}, "another player's score is as high"),
    ({"ending": "tacoma", "loser": 1, "tacoma_amount": 0}, "Tacoma amount"),
    ({"ending": "tacoma", "loser": 1, "carry": -1}, "carried pot"),
])
def test_a_game_that_cannot_be_settled_so_is_refused(kwargs, message):
    with pytest.raises(IllegalAction, match=message):
        settle_game(scores(13, 4, 4), **kwargs)


def test_a_settlement_needs_two_players_with_whole_scores():
    with pytest.raises(IllegalAction, match="at least 2 players"):
        settle_game({1: 13}, ending="forfeit", loser=1)
    with pytest.raises(IllegalAction, match="score of seat 2"):
        settle_game({1: 13, 2: 1.5}, ending="forfeit", loser=1)


def test_seattle_is_another_name_for_downspear_and_only_forfeit_moves_no_money():
    assert canonical_ending("seattle") == "downspear"
    assert [e for e in ENDINGS if not is_gambling(e)] == ["forfeit"]


# -- Properties ---------------------------------------------------------------------


@st.composite
def finished_games(draw):
    seats = draw(st.integers(2, 8))
    others = draw(st.lists(st.integers(0, 30), min_size=seats - 1, max_size=seats - 1))
    loser_score = draw(st.integers(max(others) + 1, 60))
    return {1: loser_score, **{seat: s for seat, s in enumerate(others, start=2)}}


@settings(max_examples=300, deadline=None)
@given(finished_games(), st.sampled_from(ENDINGS), st.integers(1, 12), st.integers(0, 9))
def test_every_ending_balances_the_loser_pays_in_full_and_only_odd_units_stay(points, ending, amount, carry):
    settlement = settle_game(points, ending=ending, loser=1, tacoma_amount=amount, carry=carry)

    assert sum(settlement.deltas.values()) == 0
    assert all(delta >= 0 for seat, delta in settlement.deltas.items() if seat not in (1, "carry"))
    low = min(s for seat, s in points.items() if seat != 1)
    owed = {"forfeit": 0, "downspear": len(points) - 1, "seattle": len(points) - 1,
            "norland": list(points.values()).count(low), "tacoma": amount, "cutchfeld": points[1],
            "olympia": points[1] - low, "portland": sum(points[1] - s for s in list(points.values())[1:])}
    assert settlement.deltas[1] == -owed[ending]
    if ending in SPLIT_ENDINGS:
        assert 0 <= settlement.carry_out < len(settlement.result["winners"])
    else:
        assert settlement.carry_out == carry
