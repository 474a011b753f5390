"""Sweep (booklet, "Bidding Games"; RULINGS.md "Points and bidding games")."""

from collections import Counter

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tables.games import IllegalAction, new_game, replay
from tables.games.kitty import kitty_points

from .secret_play import play, play_at_random


def dealt(hands: dict[int, list[int]], first=None, **options):
    seats = list(hands)
    game = new_game("sweep", seats, dict.fromkeys(seats, 0), options, first=first)
    left = {seat: list(cards) for seat, cards in hands.items()}
    while game.to_deal:
        game.deal(left[game.next.seat].pop(0))
    return game


HANDS = {1: [4, 7, 8, 2, 10], 2: [6, 7, 8, 3, 10], 3: [5, 9, 8, 4, 10]}


def test_the_lowest_card_takes_every_centre_card_of_the_highest_rank_the_text_s_4_and_two_9s():
    game = play(dealt(HANDS), 9, 9, 3, 5, 6)  # the centre
    play(game, ("play", 4), ("play", 7), ("play", 5))
    # the 4 takes both 9s; the 5 then takes the 3 and the 4 (fallen into the centre); the 7 the 5s
    # and 6 below it
    captures = game.rounds[0]["captures"]
    assert captures == [(1, [9, 9]), (3, [3, 4]), (2, [5, 5, 6])]
    assert Counter(game.hands[2].known)[5] == 2
    assert game.rounds[0]["discarded"] == [7]  # the 7 fell into the centre and nothing took it
    assert game.starter == 2  # the last capture starts the next round


def test_tied_cards_take_single_cards_in_turn_from_the_first_played_choosing_the_rank():
    game = play(dealt(HANDS), 1, 2, 3, 6, 10)
    play(game, ("play", 8), ("play", 8), ("play", 4))
    # the 4 (lowest) takes the 10; then the two 8s share 1, 2, 3, 4 and 6: seat 1 picks first
    assert game.next.seat == 1 and {c[1] for c in game.next.choices} == {1, 2, 3, 4, 6}
    play(game, ("pick", 6), ("pick", 1), ("pick", 3), ("pick", 2))  # the last, a 4, is seat 1's
    assert game.rounds[0]["captures"][1:] == [(1, [6]), (2, [1]), (1, [3]), (2, [2]), (1, [4])]
    assert game.centre == [] and game.starter == 1  # the 8s fell in and the centre was discarded
    assert game.rounds[0]["discarded"] == [8, 8]


def test_a_tied_group_s_single_rank_targets_are_shared_and_the_rest_of_the_centre_is_discarded():
    game = play(dealt(HANDS), 10, 10, 9, 3, 5)
    play(game, ("play", 7), ("play", 7), ("play", 8))
    # the 7s (lowest, tied) take one 10 each, no choice to make; they fall in and the 8 takes them
    # with the 3 and the 5, then falls in beside the 9: both are left in the centre, to be discarded
    assert game.rounds[0]["captures"] == [(1, [10]), (2, [10]), (3, [3, 5, 7, 7])]
    assert game.rounds[0]["discarded"] == [8, 9]
    assert game.starter == 3


def test_the_round_starts_with_the_given_player_and_the_next_with_the_last_to_capture():
    game = play(dealt(HANDS, first=2), 10, 10, 10, 10, 10)
    assert game.next.seat == 2
    play(game, ("play", 7), ("play", 9), ("play", 4))
    # the 4 takes the five 10s, the 7 the fallen 4, the 9 the fallen 7: seat 3 captured last
    assert game.rounds[0]["captures"] == [(1, [10] * 5), (2, [4]), (3, [7])]
    assert game.rounds[0]["starter"] == 2 and game.starter == 3


def test_when_the_deck_is_exhausted_the_hands_are_shown_and_the_most_of_each_rank_scores_it():
    assert kitty_points({1: [9, 9, 2], 2: [9, 9, 3], 3: [2, 2]}) == {1: 9, 2: 9 + 3, 3: 2}
    with pytest.raises(IllegalAction, match="3 to 6 players"):
        new_game("sweep", [1, 2], {1: 0, 2: 0})


def test_refusals_say_why():
    game = play(dealt(HANDS), 9, 9, 3, 5, 6)
    with pytest.raises(IllegalAction):
        game.act(("play", 1))  # seat 1 holds no 1
    with pytest.raises(IllegalAction, match="name it"):
        game.act(("play", None))


@settings(max_examples=40, deadline=None)
@given(st.integers(3, 6), st.randoms(use_true_random=False))
def test_any_game_scores_the_shown_hands_and_replays_equal(players, rng):
    seats = list(range(1, players + 1))
    game = new_game("sweep", seats, dict.fromkeys(seats, 0))
    cards, decisions = play_at_random(game, rng)
    result = game.settlement().result
    assert result["points"] == kitty_points({s: list(h) for s, h in result["hands"].items()})
    assert len(game.shoe) == 0  # played until the deck is exhausted
    again = replay("sweep", seats, dict.fromkeys(seats, 0), cards, decisions)
    assert again.settlement.result == result
