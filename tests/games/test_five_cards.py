"""Five Cards (booklet, "Bidding Games"; RULINGS.md "Points and bidding games")."""

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tables.games import IllegalAction, new_game, replay
from tables.games.five_cards import column_points, starts_next

from .secret_play import play, play_at_random


def round_of(scores=None, first=None, targets=(3, 5, 6, 7, 9), **options):
    game = new_game("five_cards", [1, 2], scores or {1: 0, 2: 0}, options, first=first)
    return play(game, *targets)


def test_the_booklet_s_columns_top_wins_3_5_6_9_bottom_the_7_and_another_7_ends_the_round():
    game = round_of()
    # seat 1 (top) puts a 7 on the 3, 5, 6 and 9; seat 2 (bottom) builds the 7's column
    play(game, 7, ("place", 3), 1, ("place", 7), 7, ("place", 5), 2, ("place", 7))
    play(game, 7, ("place", 6), 4, ("place", 7), 7, ("place", 9))
    assert game.open_columns(7) == []  # every column already holds a 7
    play(game, 7)  # seat 2 draws the last one: unplayable, the round is over
    result = game.settlement().result
    assert result["unplayable"] == 7 and result["points"] == {1: 3 + 5 + 6 + 9, 2: 7}
    assert result["next_first"] == 2  # fewer points this round


def test_targets_are_five_unmatched_cards_sorted_and_the_matches_go_back_into_the_deck():
    game = new_game("five_cards", [1, 2], {1: 0, 2: 0})
    play(game, 5, 3, 5, 9, 6)
    assert game.set_aside == [5] and len(game.targets) == 4
    before = game.shoe.remaining[5]
    play(game, 7)
    assert game.targets == [3, 5, 6, 7, 9] and game.shoe.remaining[5] == before + 1


def test_a_card_cannot_go_where_it_matches_and_a_playable_card_must_be_played():
    game = play(round_of(), 3)  # seat 1 draws a 3: not on the 3's column
    assert [rank for _, rank in game.next.choices] == [5, 6, 7, 9]
    with pytest.raises(IllegalAction, match="matches nothing"):
        game.act(("place", 3))
    with pytest.raises(IllegalAction):
        game.act(("decline",))


def test_a_tied_column_gives_each_half_rounded_down_an_empty_one_too():
    assert column_points(7, {1: 5, 2: 5}) == {1: 3, 2: 3}
    assert column_points(9, {1: 0, 2: 0}) == {1: 4, 2: 4}
    assert column_points(6, {1: 8, 2: 2}) == {1: 6, 2: 0}


def test_the_player_with_fewer_points_starts_next_and_with_equal_points_the_one_who_went_second():
    assert starts_next({1: 10, 2: 20}, first=2) == 1
    assert starts_next({1: 12, 2: 12}, first=1) == 2
    assert starts_next({1: 12, 2: 12}, first=2) == 1


def test_the_first_to_100_wins_the_game():
    game = round_of(first=1, scores={1: 95, 2: 10})
    play(game, 10)  # seat 1 draws a 10
    play(game, ("place", 9), 10, ("place", 3), 10, ("place", 5), 10, ("place", 6), 10, ("place", 7))
    play(game, 10)  # seat 2's 10 fits nowhere
    result = game.settlement().result
    assert result["points"] == {1: 9 + 5 + 7, 2: 3 + 6} and result["scores"] == {1: 116, 2: 19}
    assert result["game_over"] is True and result["winner"] == 1


@settings(max_examples=60, deadline=None)
@given(st.randoms(use_true_random=False))
def test_any_round_scores_column_by_column_and_replays_equal(rng):
    game = new_game("five_cards", [1, 2], {1: 0, 2: 0})
    cards, decisions = play_at_random(game, rng)
    result = game.settlement().result
    expected = {1: 0, 2: 0}
    for target, sides in result["columns"].items():
        one, two = sum(sides[1]), sum(sides[2])
        expected[1] += target if one > two else target // 2 if one == two else 0
        expected[2] += target if two > one else target // 2 if one == two else 0
    assert result["points"] == expected
    assert not game.open_columns(result["unplayable"])
    again = replay("five_cards", [1, 2], {1: 0, 2: 0}, cards, decisions)
    assert again.settlement.result == result
