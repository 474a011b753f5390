"""Pickup (the rules card, seeds 002; RULINGS.md "Points and bidding games")."""

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tables.games import IllegalAction, new_game, replay
from tables.games.pickup import HAND_SIZES, deal_result

from .secret_play import play, play_at_random


def dealt(hands: dict[int, list[int]], pool: list[int], scores=None, **options):
    """A deal whose hands are `hands` (dealt one card at a time), and the first round's pool."""
    seats = list(hands)
    game = new_game("pickup", seats, scores or dict.fromkeys(seats, 0), options)
    left = {seat: list(cards) for seat, cards in hands.items()}
    while game.to_deal:
        game.deal(left[game.next.seat].pop(0))
    return play(game, *pool)


def test_hands_are_7_6_or_5_cards_by_the_number_of_players():
    assert HAND_SIZES == {2: 7, 3: 6, 4: 6, 5: 5, 6: 5}
    game = new_game("pickup", [1, 2, 3], dict.fromkeys([1, 2, 3], 0))
    for _ in range(18):
        assert game.next.face_down
        game.deal(None)  # dealt face down at a physical table
    assert game.next.to == "centre" and not game.next.face_down


def test_the_card_s_example_two_8s_on_10_9_8_8_one_picks_up_and_knocks_out_the_other_stacks():
    hands = {1: [8, 3, 4, 5, 6, 7, 9], 2: [8, 3, 4, 5, 6, 7, 9]}
    game = dealt(hands, [10, 9, 8, 8, 10])
    play(game, ("choose", 8), ("choose", 8))
    # seat 1 is closest to the left of the last to act (the dealer, seat 2) in the first round
    assert game.next.seat == 1 and ("pick", 8) in game.next.choices
    play(game, ("pick", 8))
    assert sorted(game.pool) == [9, 10, 10]  # the other 8 knocked out of the pool
    assert game.next.seat == 2 and game.next.choices == (("stack",), ("decline",))  # no legal pickup
    play(game, ("stack",))
    assert game.piles == {1: [8], 2: [8]}  # stacking does not knock out seat 1's 8


def test_a_pickup_knocks_the_rank_out_of_the_other_score_piles():
    hands = {1: [5, 9, 3, 3, 6, 7, 7], 2: [6, 9, 4, 4, 6, 7, 8]}
    game = dealt(hands, [5, 10, 10, 10, 10])
    play(game, ("choose", 5), ("choose", 6), ("pick", 5), ("decline",))  # seat 2's 6 finds nothing
    assert game.piles == {1: [5], 2: []}
    play(game, 5, 7, 8, 8, 10)  # round two's pool
    # two 9s: seat 1 is closest to the left of seat 2, who acted last
    play(game, ("choose", 9), ("choose", 9), ("pick", 7), ("pick", 5))
    assert game.piles == {1: [7], 2: [5]}  # seat 2's 5 knocked seat 1's 5 out


def test_the_short_game_is_one_deal_and_the_long_game_plays_to_the_card_s_target():
    assert new_game("pickup", [1, 2], {1: 0, 2: 0}).target is None
    assert new_game("pickup", [1, 2], {1: 0, 2: 0}, {"game": "long"}).target == 150
    assert new_game("pickup", [1, 2, 3, 4], dict.fromkeys(range(1, 5), 0), {"game": "long"}).target == 100
    with pytest.raises(IllegalAction, match="5 or 6 players"):
        new_game("pickup", [1, 2, 3, 4, 5], dict.fromkeys(range(1, 6), 0), {"game": "long"})
    assert deal_result({1: 40, 2: 40}, None) == {"game_over": True, "winners": [1, 2]}
    assert deal_result({1: 160, 2: 120}, 150) == {"game_over": True, "winners": [1]}
    assert deal_result({1: 160, 2: 160}, 150) == {"game_over": False, "winners": []}  # deal again


def test_refusals_say_why():
    game = dealt({1: [8, 3, 4, 5, 6, 7, 9], 2: [8, 3, 4, 5, 6, 7, 9]}, [10, 9, 8, 8, 10])
    with pytest.raises(IllegalAction):
        game.act(("choose", 10))  # seat 1 holds no 10
    play(game, ("choose", 8), ("choose", 8))
    with pytest.raises(IllegalAction, match="rank 8 or lower"):
        game.act(("pick", 9))
    with pytest.raises(IllegalAction, match="cannot stack"):
        game.act(("stack",))


@settings(max_examples=40, deadline=None)
@given(st.integers(2, 6), st.randoms(use_true_random=False))
def test_any_deal_scores_the_piles_and_replays_equal(players, rng):
    seats = list(range(1, players + 1))
    game = new_game("pickup", seats, dict.fromkeys(seats, 0))
    cards, decisions = play_at_random(game, rng)
    result = game.settlement().result
    assert result["points"] == {seat: sum(pile) for seat, pile in result["piles"].items()}
    assert result["game_over"] is True and sum(game.shoe.remaining) == 55 - sum(1 for _ in cards)
    again = replay("pickup", seats, dict.fromkeys(seats, 0), cards, decisions)
    assert again.settlement.result == result
