"""Kitty (booklet, "Bidding Games" and "Variations on Kitty"; RULINGS.md "Points and bidding games")."""

from collections import Counter

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tables.games import CardDue, IllegalAction, new_game, replay
from tables.games.cards import composition
from tables.games.kitty import kitty_points
from tables.games.rounds import PointsOptions, stakes_entries

from .secret_play import play, play_at_random

FULL = list(composition(1))
A_COIN_A_POINT = PointsOptions.build({"point_value": 1, "collection": "none"})


def gambling_entries(scores, winners, options=A_COIN_A_POINT):
    return stakes_entries(options, list(scores), scores, winners, first=False, over=True)


def dealt(kitty: list[int], hands: dict[int, list[int]], removed=(), **options):
    """A game with this kitty (dealt in order: its top is the last), removed cards and hands."""
    seats = list(hands)
    game = new_game("kitty", seats, dict.fromkeys(seats, 0), options)
    kitty, removed, left = list(kitty), list(removed), {s: list(c) for s, c in hands.items()}
    while game.to_deal:
        due = game.next
        rank = {"kitty": kitty, "removed": removed}.get(due.why, None)
        game.deal(rank.pop(0) if rank is not None else left[due.seat].pop(0))
    return game


def share_out(kitty, firsts: dict[int, list[int]], removed=()) -> dict[int, list[int]]:
    """Hands starting with `firsts`, the rest of the deck shared out."""
    rest = Counter({rank: n for rank, n in enumerate(FULL) if n})
    rest.subtract([*kitty, *removed, *(r for cards in firsts.values() for r in cards)])
    cards, n = sorted(rest.elements()), len(firsts)
    return {seat: firsts[seat] + cards[i::n] for i, seat in enumerate(firsts)}


def test_the_booklet_s_gambling_example():
    # "if the winner has 19 points, he would get 4 coins from a player with 15 points, and 6 from 13"
    entries = gambling_entries({1: 19, 2: 15, 3: 13}, [1])
    paid = Counter()
    for entry in entries:
        paid[entry.party] += entry.amount
    assert paid == {1: 10, 2: -4, 3: -6, "pot": 0}


def test_tied_winners_split_each_payment_and_odd_coins_carry():
    paid = Counter()
    for entry in gambling_entries({1: 20, 2: 20, 3: 15}, [1, 2]):
        paid[entry.party] += entry.amount
    assert paid == {1: 2, 2: 2, 3: -5, "carry": 1, "pot": 0}


def test_played_for_stakes_the_house_rakes_what_the_winner_collects_or_takes_a_fee_on_the_first_round():
    raked = Counter()
    for entry in gambling_entries({1: 30, 2: 10}, [1], PointsOptions.build({"point_value": 1})):
        raked[entry.party] += entry.amount
    assert raked == {1: 20 - 1, 2: -20, "house": 1, "pot": 0}  # 5% of 20, rounded down
    fee = PointsOptions.build({"point_value": 1, "collection": "fee", "fee": 2})
    entries = stakes_entries(fee, [1, 2], {1: 0, 2: 0}, [], first=True, over=False)
    assert sorted((e.party, e.amount) for e in entries if e.party != "house") == [(1, -2), (2, -2)]
    assert stakes_entries(PointsOptions.build({}), [1, 2], {1: 9, 2: 1}, [1], first=True, over=True) == []


def test_the_most_cards_of_a_rank_score_it_and_ties_score_it_for_each():
    hands = {1: [8, 8, 3], 2: [8, 3, 3], 3: [5]}
    assert kitty_points(hands) == {1: 8, 2: 3, 3: 5}
    assert kitty_points({1: [4, 4], 2: [4, 4]}) == {1: 4, 2: 4}
    # partners (seats opposite): the team's hands are combined; two 6s each, a tie, and the 2
    def team(seat):
        return (1, 3) if seat in (1, 3) else (2, 4)

    assert kitty_points({1: [6], 2: [6, 6], 3: [6, 2], 4: []}, team) == {1: 6 + 2, 2: 6, 3: 6 + 2, 4: 6}


def test_a_hard_round_the_top_of_the_kitty_goes_to_the_lowest_single_bid():
    kitty = [9, 9, 9, 9, 9, 9, 10]  # 10 on top: the last dealt
    game = dealt(kitty, share_out(kitty, {1: [3, 2], 2: [3, 4], 3: [5, 7], 4: [6, 8]}))
    play(game, 10)  # the target turned up
    play(game, *(("pass", game.hands[seat].known[-1]) for seat in (1, 2, 3, 4)))
    play(game, ("choose", 3), ("choose", 3), ("choose", 5), ("choose", 6))
    # the two 3s are ignored: the 5 is the lowest single bid
    assert game.rounds[0]["taken"] == {3: 10} and 10 in game.hands[3].known


def test_with_no_single_bid_the_target_is_discarded_and_the_1_gives_what_it_takes():
    kitty = [9, 9, 9, 9, 9, 8, 10]
    game = dealt(kitty, share_out(kitty, {1: [5, 1], 2: [5, 4], 3: [6, 7], 4: [6, 7]}))
    play(game, 10, *(("pass", game.hands[seat].known[-1]) for seat in (1, 2, 3, 4)))
    play(game, ("choose", 5), ("choose", 5), ("choose", 6), ("choose", 6))
    assert game.rounds[0]["discarded"] == [10]
    play(game, 8, *(("pass", game.hands[seat].known[-1]) for seat in (1, 2, 3, 4)))
    one = next(seat for seat in (1, 2, 3, 4) if 1 in game.hands[seat].known)
    bids = {seat: ("choose", 1 if seat == one else max(game.hands[seat].known)) for seat in (1, 2, 3, 4)}
    play(game, *(bids[seat] for seat in (1, 2, 3, 4)))
    assert game.next.seat == one and game.next.moves == ("give",)
    with pytest.raises(IllegalAction, match="another player"):
        game.act(("give", one))
    other = next(seat for seat in (1, 2, 3, 4) if seat != one)
    before = Counter(game.hands[other].known)[8]
    play(game, ("give", other))
    assert Counter(game.hands[other].known)[8] == before + 1
    assert game.rounds[1]["taken"] == {one: 8} and game.rounds[1]["given"] == {one: other}


def test_the_soft_game_plays_4_rounds_of_1_2_2_2_targets_and_is_the_default_for_5_and_6():
    assert new_game("kitty", [1, 2, 3, 4, 5], dict.fromkeys(range(1, 6), 0)).soft is True
    assert new_game("kitty", [1, 2, 3, 4], dict.fromkeys(range(1, 5), 0)).soft is False
    kitty = [2, 3, 4, 5, 6, 7, 8]
    game = dealt(kitty, share_out(kitty, {1: [], 2: [], 3: [], 4: []}), soft=True)
    sizes = []
    while not game.finished and len(game.shown) == 0:
        due = game.next
        if isinstance(due, CardDue):
            game.deal(due.ranks[0])
            continue
        if due.moves[0].value == "choose" and due.seat == 1:
            sizes.append(len(game.targets))
        game.act(due.choices[0])
    assert sizes == [1, 2, 2, 2]


def test_five_players_remove_3_cards_unseen_and_refusals_say_why():
    game = new_game("kitty", [1, 2, 3, 4, 5], dict.fromkeys(range(1, 6), 0))
    whys = []
    while game.to_deal:
        whys.append(game.next.why)
        game.deal(None)
    assert whys[:10] == ["kitty"] * 7 + ["removed"] * 3 and [len(h) for h in game.hands.values()] == [9] * 5
    with pytest.raises(IllegalAction, match="Partners is played by 4 or 6"):
        new_game("kitty", [1, 2, 3], dict.fromkeys([1, 2, 3], 0), {"partners": True})
    with pytest.raises(IllegalAction, match="3 to 6 players"):
        new_game("kitty", [1, 2], {1: 0, 2: 0})


@settings(max_examples=40, deadline=None)
@given(st.integers(3, 6), st.booleans(), st.booleans(), st.randoms(use_true_random=False))
def test_any_game_scores_the_shown_hands_and_replays_equal(players, soft, partners, rng):
    seats = list(range(1, players + 1))
    options = {"soft": soft, "partners": partners and players in (4, 6), "point_value": 1}  # raked 5%
    game = new_game("kitty", seats, dict.fromkeys(seats, 0), options)
    cards, decisions = play_at_random(game, rng)
    settlement = game.settlement()
    result = settlement.result
    assert result["points"] == kitty_points({s: list(h) for s, h in result["hands"].items()}, game.team)
    assert sum(settlement.deltas.values()) == 0
    again = replay("kitty", seats, dict.fromkeys(seats, 0), cards, decisions, options)
    assert again.settlement == settlement
