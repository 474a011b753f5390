"""Regent: the booklet's rules for two players and for three to six, as written, with the house
rulings; hidden hands and replay.

Each seat's two face-down cards are written in the order dealt; then come the upcards and the
steps: ints are cards from the deck, tuples are decisions ("draw",), ("attack", seat),
("gift", seat, rank), ("fold",), ("see", seat, *ranks).
"""

from __future__ import annotations

import pytest

from tables.games import CardDue, DecisionDue, Finished, IllegalAction, Move, replay

from .secret_play import play, public_record, start


def duel(upcards=(4, 6), chips=30, **options):
    """Two players, seat 1 holding 8 and 3 face down, seat 2 holding 9 and 9."""
    return play(start("regent", {1: [8, 3], 2: [9, 9]}, chips=chips, **options), *upcards)


def four(**options):
    hands = {1: [8, 3], 2: [9, 9], 3: [7, 5], 4: [10, 2]}
    return play(start("regent", hands, chips=30, **options), 4, 6, 7, 10)


def test_two_cards_are_dealt_face_down_then_one_face_up_and_the_low_upcard_goes_first():
    g = start("regent", {1: [8, 3], 2: [9, 9]})
    assert g.next == CardDue("seat", "upcard", 1)

    play(g, 4, 6)

    assert g.stacks == {1: [4], 2: [6]} and len(g.hands[1]) == 2
    assert g.next.seat == 1
    assert g.next.moves == (Move.DRAW, Move.ATTACK, Move.GIFT, Move.FOLD, Move.SEE)


def test_a_tie_for_low_upcard_is_broken_with_more_cards():
    g = play(start("regent", {1: [8, 3], 2: [9, 9]}), 4, 4, 6, 5)

    assert g.stacks == {1: [4, 6], 2: [4, 5]} and g.turn == 2


def test_draw_takes_a_card_into_the_hand_face_down():
    g = play(duel(), ("draw",))
    assert g.next == CardDue("seat", "draw", 1, face_down=True)

    play(g, 2)

    assert len(g.hands[1]) == 3 and g.turn == 2


def test_an_attack_that_deals_a_pair_of_8s_loses_8_coins_to_the_opponent():
    g = play(duel(upcards=(4, 8)), ("attack", 2), 8)

    assert isinstance(g.next, Finished)
    assert g.settlement().deltas == {1: -8, 2: 8, "house": 0, "carry": 0}


def test_an_attack_without_a_pair_passes_the_turn():
    g = play(duel(), ("attack", 2), 5)

    assert g.stacks[2] == [6, 5] and g.turn == 2


def test_a_gift_plays_a_card_from_the_hand_but_never_gives_a_pair():
    g = duel(upcards=(4, 8))

    with pytest.raises(IllegalAction, match="cannot give seat 2 a pair of 8s"):
        g.act(("gift", 2, 8))
    play(g, ("gift", 2, 3))

    assert g.stacks[2] == [8, 3] and g.turn == 2


def test_fold_pays_the_opponent_the_lowest_face_up_card():
    g = play(duel(), ("fold",))

    assert g.settlement().deltas == {1: -4, 2: 4, "house": 0, "carry": 0}


def test_seeing_a_pair_wins_its_value():
    g = play(duel(), ("see", 2, 9, 9))

    assert g.settlement().deltas == {1: 9, 2: -9, "house": 0, "carry": 0}


def test_seeing_no_pair_pays_the_highest_card():
    g = play(duel(), ("draw",), 1, ("see", 1, 1, 3, 8))

    assert g.settlement().deltas == {1: 8, 2: -8, "house": 0, "carry": 0}


def test_a_pair_counts_up_and_down_cards_together_and_only_the_highest_pays():
    g = play(duel(upcards=(3, 8)), ("draw",), 8, ("see", 1, 3, 8, 8))

    # seat 1 shows a 3 up with 3, 8 and 8 down: pairs of 3s and 8s; it pays for the 8s
    assert g.settlement().deltas == {1: -8, 2: 8, "house": 0, "carry": 0}


def test_you_cannot_see_a_player_with_no_face_down_cards():
    g = play(duel(upcards=(4, 7)), ("gift", 2, 8), ("gift", 1, 9), ("gift", 2, 3))

    assert Move.SEE not in g.next.moves  # seat 1 has given away both its face-down cards
    with pytest.raises(IllegalAction, match="cannot see"):
        g.act(("see", 1))


def test_the_revealed_ranks_must_be_the_hand_the_shoe_dealt():
    g = duel()

    with pytest.raises(IllegalAction, match="holds no 8"):
        g.act(("see", 2, 9, 8))
    with pytest.raises(IllegalAction, match="all 2"):
        g.act(("see", 2, 9))


def test_with_more_players_an_attack_passes_the_turn_to_the_target():
    g = play(four(), ("attack", 3), 2)

    assert g.turn == 3 and g.stacks[3] == [7, 2]


def test_with_more_players_a_pairing_attack_knocks_the_attacker_out_and_the_target_plays_on():
    g = play(four(), ("attack", 3), 7)

    assert g.out == {1: "attack gave seat 3 a pair of 7s"}
    assert g.stacks[3] == [7]  # the paired card is discarded
    assert g.turn == 3 and g.purse.left[3] == 37


def test_with_more_players_a_fold_goes_into_the_centre_and_the_turn_passes_left():
    g = play(four(), ("fold",))

    assert g.purse.pot == 4 and g.turn == 2


def test_with_more_players_a_seen_pair_knocks_the_target_out_and_a_seen_hand_without_stays_face_up():
    g = play(four(), ("see", 3, 5, 7))
    assert g.out == {3: "seen by seat 1 with a pair of 7s"}  # 7 up and 7 down: a pair

    g = play(four(), ("see", 4, 2, 10))
    assert g.out == {4: "seen by seat 1 with a pair of 10s"}

    g = play(four(), ("draw",), 1, ("see", 1, 1, 3, 8))
    assert g.out == {2: "saw seat 1 without a pair"}
    assert g.stacks[1] == [4, 1, 3, 8]
    assert g.turn == 1


def test_with_more_players_the_last_one_left_takes_the_centre():
    g = play(four(collection="rake", rake_percent=50), ("fold",), ("fold",), ("fold",))

    settlement = g.settlement()
    # folds of 4, 6 (the 4 left with its owner) and 7 into the centre: 17, raked 50% capped at 10 = 8
    assert settlement.deltas == {1: -4, 2: -6, 3: -7, 4: 9, "house": 8, "carry": 0}


def test_at_a_physical_table_the_see_names_the_cards_turned_over():
    g = play(start("regent", {1: [None, None], 2: [None, None]}), 4, 6)
    moves = (Move.DRAW, Move.ATTACK, Move.GIFT, Move.FOLD, Move.SEE)
    assert g.next == DecisionDue(1, moves, fold_price=4, targets=(2,))

    play(g, ("see", 2, 6, 2))

    assert g.settlement().deltas[2] == -6 and g.shoe.unseen == 2


def test_the_round_replays_from_what_was_revealed():
    g = play(four(), ("attack", 3), 2, ("gift", 4, 5), ("draw",), 1, ("see", 4, 1, 2, 10))
    play(g, ("fold",), ("fold",))
    assert isinstance(g.next, Finished)
    cards, decisions = public_record(g)

    again = replay(
        "regent", [1, 2, 3, 4], dict.fromkeys([1, 2, 3, 4], 30), cards, decisions, {"collection": "none"}
    )

    assert again.settlement == g.settlement()


def test_seven_players_are_refused():
    with pytest.raises(IllegalAction, match="2 to 6 players"):
        start("regent", {seat: [1, 2] for seat in range(1, 8)})
