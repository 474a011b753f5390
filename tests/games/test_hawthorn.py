"""Hawthorn: the booklet's rules as written, the house rulings, hidden hands and replay.

Hands are dealt face down clockwise from the dealer's left; the tests write each seat's five cards
and then the steps: ints are cards from the deck, tuples are decisions ("choose", 4), ("hit",),
("play", 7), ("fold",).
"""

from __future__ import annotations

import pytest

from tables.games import CardDue, DecisionDue, Finished, IllegalAction, Move, Shoe, replay
from tables.games.hawthorn import HawthornOptions

from .secret_play import play, public_record, start

HIT, FOLD = ("hit",), ("fold",)


def choose(*ranks):
    return [("choose", rank) for rank in ranks]


def three(**options):
    """Three players: A (seat 1), B (seat 2), C (seat 3), 10 chips each."""
    hands = {1: [2, 5, 6, 7, 9], 2: [3, 3, 8, 10, 4], 3: [6, 9, 10, 1, 8]}
    return start("hawthorn", hands, chips=10, **options)


def test_everyone_antes_one_coin_and_is_dealt_five_cards_face_down():
    g = three()

    assert g.purse.pot == 3
    assert {seat: len(hand) for seat, hand in g.hands.items()} == {1: 5, 2: 5, 3: 5}
    assert all(event.face_down for event in g.transcript)
    assert g.next == DecisionDue(
        1, (Move.CHOOSE,), choices=(("choose", 2), ("choose", 5), ("choose", 6), ("choose", 7), ("choose", 9))
    )


def test_first_cards_are_revealed_together_and_the_low_card_starts_a_deck_round():
    g = play(three(), ("choose", 7))
    # given seat 1's choice is keyed, it is not yet in play
    assert g.stacks[1] == []

    play(g, ("choose", 3), ("choose", 9))

    assert g.stacks == {1: [7], 2: [3], 3: [9]}
    assert g.button == 2
    assert g.next.seat == 2 and g.next.moves == (Move.HIT, Move.FOLD)
    assert g.next.fold_price == 3


def test_a_tie_for_low_card_is_broken_with_cards_from_the_deck_replacing_a_pair():
    g = play(three(), *choose(6, 8, 6))
    assert g.next == CardDue("seat", "tiebreak", 1)

    play(g, 5, 6, 4)  # seat 1 gets 5; seat 3's 6 pairs, is discarded, and it gets a 4

    assert g.stacks == {1: [6, 5], 2: [8], 3: [6, 4]}
    assert g.button == 3


def test_folding_costs_the_lowest_card_in_play():
    g = play(three(), *choose(7, 3, 9))

    play(g, FOLD)  # seat 2 folds for its own 3

    assert g.purse.pot == 3 + 3
    assert g.out == {2: "folded"}
    # the 3 left play with its owner: the price of folding went up
    assert g.next.seat == 3 and g.next.fold_price == 7


def test_a_pair_of_8s_costs_8_coins_and_the_player_is_out():
    g = play(three(), *choose(7, 8, 9), HIT, 5)  # seat 1 starts (7), hits a 5
    play(g, HIT, 8)  # seat 2 (8) catches a pair of 8s

    assert g.purse.pot == 3 + 8
    assert g.out == {2: "pair of 8s"}
    assert g.next.seat == 3


def test_rounds_alternate_deck_and_hand_starting_from_the_button():
    g = play(three(), *choose(2, 3, 6), HIT, 4, HIT, 5, HIT, 7)
    # the action returned to the button: a hand round
    assert g.round == "hand" and g.next.seat == 1
    assert g.next.moves == (Move.PLAY, Move.FOLD)

    play(g, ("play", 5), ("play", 8), ("play", 9))

    assert g.stacks == {1: [2, 4, 5], 2: [3, 5, 8], 3: [6, 7, 9]}
    assert g.round == "deck" and g.next.moves == (Move.HIT, Move.FOLD)


def test_playing_a_card_lower_than_any_in_play_lowers_the_price_of_folding():
    g = play(three(), *choose(5, 4, 6), HIT, 7, HIT, 8, HIT, 9)
    assert g.fold_price == 4

    play(g, ("play", 3))  # seat 2 plays its 3

    assert g.next.fold_price == 3


def test_playing_a_card_that_pairs_your_stack_is_legal_and_costs_the_pair():
    g = play(three(), *choose(5, 3, 6), HIT, 7, HIT, 8, HIT, 10)
    play(g, ("play", 3))  # seat 2 holds another 3 and plays it onto its 3

    assert g.out == {2: "pair of 3s"}
    assert g.purse.pot == 3 + 3


def test_a_card_not_in_the_hand_cannot_be_played():
    g = play(three(), *choose(5, 4, 6), HIT, 7, HIT, 8, HIT, 10)

    with pytest.raises(IllegalAction, match="holds no 1"):
        g.act(("play", 1))
    with pytest.raises(IllegalAction, match="names one card"):
        g.act(("play",))
    with pytest.raises(IllegalAction, match="cannot hit"):
        g.act(HIT)


def test_the_last_player_left_wins_the_pot_after_the_rake():
    g = play(three(collection="rake", rake_percent=10, rake_cap=10), *choose(7, 3, 9), FOLD, FOLD)

    settlement = g.settlement()
    # pot: antes 3, seat 2 folds for 3, seat 3 folds for 7 = 13; rake 10% = 1
    assert settlement.deltas == {1: 11, 2: -4, 3: -8, "house": 1, "carry": 0}


def test_a_player_with_an_empty_hand_must_fold_in_a_hand_round():
    # Only a shoe of two decks lets two players hold ten different ranks each.
    hands = {1: [1, 2, 3, 4, 5], 2: [6, 7, 8, 9, 10]}
    g = start("hawthorn", hands, chips=40, shoe=Shoe(2))
    play(g, *choose(1, 10), HIT, 6, HIT, 1)  # 1 hits 6; 2 hits 1
    play(g, ("play", 2), ("play", 9), HIT, 7, HIT, 2)
    play(g, ("play", 3), ("play", 8), HIT, 8, HIT, 3)
    play(g, ("play", 4), ("play", 6), HIT, 9, HIT, 4)
    play(g, ("play", 5), ("play", 7))
    play(g, HIT, 10, HIT, 5)
    # seat 1's hand is empty in this hand round
    assert g.next == DecisionDue(1, (Move.FOLD,), fold_price=1, choices=((FOLD),))

    hit = start("hawthorn", hands, chips=40, shoe=Shoe(2), empty_hand="hit")
    play(hit, *choose(1, 10), HIT, 6, HIT, 1, ("play", 2), ("play", 9), HIT, 7, HIT, 2)
    play(hit, ("play", 3), ("play", 8), HIT, 8, HIT, 3, ("play", 4), ("play", 6), HIT, 9, HIT, 4)
    play(hit, ("play", 5), ("play", 7), HIT, 10, HIT, 5)
    assert hit.next.moves == (Move.HIT, Move.FOLD)


def test_a_round_starts_left_of_the_button_when_its_holder_is_out():
    g = play(three(), *choose(5, 3, 6), FOLD, HIT, 7, HIT, 8)  # button seat 2 folds at once

    assert g.round == "hand" and g.next.seat == 3


def test_at_a_physical_table_the_hands_stay_unknown_until_cards_are_revealed():
    g = start("hawthorn", {1: [None] * 5, 2: [None] * 5})
    assert g.shoe.unseen == 10 and g.next.choices == ()

    play(g, ("choose", 4), ("choose", 6))

    assert g.stacks == {1: [4], 2: [6]}
    assert g.shoe.unseen == 8 and g.shoe.remaining[4] == 3


def test_a_reveal_is_refused_when_the_shoe_cannot_hold_the_rank():
    g = start("hawthorn", {1: [None] * 5, 2: [None] * 5})
    play(g, ("choose", 1), ("choose", 2), HIT, 2, FOLD)  # the only 1 is in play
    g = start("hawthorn", {1: [None] * 5, 2: [None] * 5})
    play(g, ("choose", 1))

    with pytest.raises(IllegalAction, match="cannot hold another 1"):
        g.act(("choose", 1))


def test_a_system_shoe_holds_players_to_the_cards_it_dealt():
    g = three()

    with pytest.raises(IllegalAction, match="holds no 3"):
        g.act(("choose", 3))


def test_the_hand_replays_from_what_was_revealed():
    g = play(three(), *choose(5, 3, 6), HIT, 7, HIT, 8, HIT, 10, ("play", 3), FOLD)
    assert isinstance(g.next, Finished)
    cards, decisions = public_record(g)

    again = replay("hawthorn", [1, 2, 3], {1: 10, 2: 10, 3: 10}, cards, decisions, {"collection": "none"})

    assert again.settlement == g.settlement()
    assert cards[:15] == [None] * 15


@pytest.mark.parametrize(
    ("options", "sentence"),
    [
        ({"empty_hand": "pass"}, "empty_hand is one of"),
        ({"deal": "fan"}, "Unknown deal"),
        ({"ante": -1}, "ante"),
    ],
)
def test_impossible_house_rules_are_refused_with_a_sentence(options, sentence):
    with pytest.raises(IllegalAction, match=sentence):
        HawthornOptions.build(options)


def test_a_table_of_seven_is_refused():
    with pytest.raises(IllegalAction, match="2 to 6 players"):
        start("hawthorn", {seat: [1, 2, 3, 4, 5] for seat in range(1, 8)})


def ranks_of(*stacks) -> list[int]:
    cards = [rank for stack in stacks for rank in stack]
    return [0] + [cards.count(rank) for rank in range(1, 11)]


def test_a_deck_round_at_the_bottom_of_the_deck_still_offers_a_hit_from_the_discards():
    # RULINGS: any shoe that runs dry mid-hand recycles its discards (the burn pile here: the
    # cards the shoe no longer holds and nobody was dealt) "as in Pairs", so a hit is still dealt.
    hands = {1: [2, 5, 6, 7, 9], 2: [3, 3, 8, 10, 4]}
    g = start("hawthorn", hands, chips=10, shoe=Shoe(1, ranks_of(*hands.values())))
    play(g, *choose(5, 3))

    assert len(g.shoe) == 0 and g.discards == 45
    assert g.next.moves == (Move.HIT, Move.FOLD)
    play(g, HIT)
    g.recycle(ranks_of([1, 4, 4, 9, 10]))
    play(g, 1)
    assert g.stacks[g.turn] != [] and g.round == "deck"
