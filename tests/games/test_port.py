"""Port (booklet, "The Basics"; RULINGS.md "Points and bidding games")."""

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tables.games import CardDue, IllegalAction, new_game, replay
from tables.games.port import game_result, round_points

from .secret_play import play_at_random


def port(scores, seats=None, **options):
    seats = seats or list(scores)
    return new_game("port", seats, scores, options)


def play(game, *steps):
    for step in steps:
        if isinstance(step, tuple):
            game.act(step)
        else:
            game.deal(step)
    return game


def test_the_booklet_s_five_player_example_scores_5_4_4_2_and_0():
    # "the stacks are 23, 22, 22, 17, and bust. These players earn 5, 4, 4, 2, and 0 game points."
    assert round_points([1, 2, 3, 4, 5], {1: 23, 2: 22, 3: 22, 4: 17}) == {1: 5, 2: 4, 3: 4, 4: 2, 5: 0}


def test_a_round_played_low_card_first_hits_and_locks_until_everyone_is_done():
    game = port({1: 0, 2: 0, 3: 0})
    play(game, 6, 2, 9)  # seat 2's 2 is low: seat 2 starts
    assert game.next.seat == 2 and {m.value for m in game.next.moves} == {"hit", "lock"}
    play(game, ("hit",), 10, ("lock",), ("hit",), 6)  # seat 2 takes 10 and... seat 3 locks, seat 1 pairs 6s
    assert game.busted == {1: 6}
    play(game, ("hit",), 7, ("lock",))  # seat 2: 2 + 10 + 7 = 19, locks
    result = game.settlement().result
    assert result["totals"] == {2: 19, 3: 9} and result["points"] == {1: 0, 2: 3, 3: 2}
    assert result["scores"] == {1: 0, 2: 3, 3: 2} and result["game_over"] is False
    assert game.settlement().deltas == {1: 0, 2: 0, 3: 0, "house": 0, "carry": 0}


def test_tie_break_cards_stay_in_the_stack_and_count_and_a_pairing_one_is_replaced():
    game = port({1: 0, 2: 0})
    play(game, 3, 3)  # tied for low
    assert isinstance(game.next, CardDue) and game.next.why == "tiebreak"
    play(game, 3)  # pairs seat 1's 3: discarded and replaced
    assert game.stacks[1] == [3] and game.next.seat == 1
    play(game, 5, 4)  # seat 2's 4 is the lower tie-breaker: seat 2 starts
    assert game.stacks == {1: [3, 5], 2: [3, 4]} and game.next.seat == 2
    play(game, ("lock",), ("lock",))
    assert game.settlement().result["totals"] == {1: 8, 2: 7}


def test_the_first_to_21_wins_and_a_tie_at_the_top_is_played_off_by_the_tied_players():
    assert game_result({1: 20, 2: 19}, 21, "tied")["game_over"] is False
    won = game_result({1: 22, 2: 19}, 21, "tied")
    assert won == {"game_over": True, "winner": 1, "playoff": None}
    tied = game_result({1: 22, 2: 22, 3: 10}, 21, "tied")
    assert tied == {"game_over": False, "winner": None, "playoff": [1, 2]}
    assert game_result({1: 22, 2: 22, 3: 10}, 21, "all")["playoff"] == [1, 2, 3]


def test_a_playoff_deals_only_the_tied_players_and_n_counts_them():
    game = port({1: 22, 2: 22, 3: 10}, seats=[1, 2])
    play(game, 4, 5, ("lock",), ("lock",))  # seat 1 starts (the 4), both lock: 5 beats 4
    result = game.settlement().result
    assert result["points"] == {1: 1, 2: 2} and result["scores"] == {1: 23, 2: 24, 3: 10}
    assert result["winner"] == 2 and result["game_over"] is True


def test_pieces_of_eight_trades_the_8_for_two_hits_and_a_pair_on_the_first_stops_the_trade():
    game = port({1: 0, 2: 0}, pieces_of_eight=True)
    play(game, 8, 9)  # seat 1 starts with the 8
    assert "eight" in {m.value for m in game.next.moves}
    play(game, ("eight",), 2, 3)
    assert game.stacks[1] == [2, 3]
    play(game, ("hit",), 9)  # seat 2 pairs 9s
    play(game, ("hit",), 2)  # seat 1 pairs its 2
    assert game.busted == {2: 9, 1: 2}


def test_refusals_say_why():
    with pytest.raises(IllegalAction, match="2 to 7 players"):
        port({1: 0})
    with pytest.raises(IllegalAction, match="already won"):
        port({1: 25, 2: 3})
    game = play(port({1: 0, 2: 0}), 1, 2)
    with pytest.raises(IllegalAction, match="eight"):
        game.act(("eight",))
    with pytest.raises(IllegalAction, match="playoff"):
        port({1: 0, 2: 0}, playoff="sudden")


@settings(max_examples=60, deadline=None)
@given(st.integers(2, 7), st.randoms(use_true_random=False))
def test_any_round_scores_as_the_text_counts_and_replays_equal(players, rng):
    seats = list(range(1, players + 1))
    game = port(dict.fromkeys(seats, 0))
    cards, decisions = play_at_random(game, rng)
    result = game.settlement().result
    for seat in seats:  # N less the live stacks above, 0 when busted: counted again here
        above = sum(1 for other in result["totals"].values() if other > result["totals"].get(seat, -1))
        assert result["points"][seat] == (0 if seat in result["busted"] else players - above)
    again = replay("port", seats, dict.fromkeys(seats, 0), cards, decisions)
    assert again.settlement.result == result
