"""Goblin Poker: the booklet's rules as written, the house rulings, hidden hands and replay.

Each seat's six face-down cards are written in the order dealt; then the steps: ints are cards
(from the deck, or from the pitched pile once every player has acted), tuples are decisions
("choose", 4), ("pitch", 7), ("fold",).
"""

from __future__ import annotations

import pytest

from tables.games import CardDue, Finished, IllegalAction, Move, replay
from tables.games.goblin_poker import GoblinPokerOptions, stack_key

from .secret_play import play, public_record, start

FOLD = ("fold",)
HANDS = {1: [2, 5, 6, 7, 9, 10], 2: [3, 3, 8, 10, 4, 6], 3: [6, 9, 10, 1, 8, 7]}


def three(**options):
    return start("goblin_poker", HANDS, chips=30, **options)


def chosen(**options):
    """First cards 5, 3, 6: seat 2 goes first."""
    return play(three(**options), ("choose", 5), ("choose", 3), ("choose", 6))


def test_everyone_antes_and_is_dealt_six_cards():
    g = three()

    assert g.purse.pot == 3 and [len(h) for h in g.hands.values()] == [6, 6, 6]
    assert g.next.moves == (Move.CHOOSE,)


def test_the_first_cards_are_revealed_together_and_the_lowest_goes_first():
    g = play(three(), ("choose", 5), ("choose", 3))
    assert g.stacks == {1: [], 2: [], 3: []}

    play(g, ("choose", 6))

    assert g.stacks == {1: [5], 2: [3], 3: [6]}
    assert g.next.seat == 2 and g.next.moves == (Move.PITCH, Move.FOLD)


def test_a_tie_for_the_first_card_is_broken_as_in_pairs():
    g = play(three(), ("choose", 6), ("choose", 8), ("choose", 6))
    assert g.next == CardDue("seat", "tiebreak", 1)

    play(g, 5, 4)

    assert g.next.seat == 3


def test_an_extra_card_is_lower_than_no_card():
    assert stack_key([2, 3, 6]) < stack_key([2, 3])
    assert stack_key([6, 2, 3]) < stack_key([2, 4])


def test_folding_costs_the_smallest_card_in_play():
    g = play(chosen(), FOLD)

    assert g.purse.pot == 3 + 3 and g.out == {2: "folded"}
    assert g.next.fold_price == 5


def test_pitched_cards_are_dealt_from_the_lowest_stack_to_the_left():
    g = play(chosen(), ("pitch", 8), ("pitch", 1), ("pitch", 2))
    assert g.next == CardDue("seat", "pitched", 2, pile=True, ranks=(1, 2, 8))

    play(g, 1, 8, 2)  # seat 2 gets the 1, seat 3 the 8, seat 1 the 2

    assert g.stacks == {1: [5, 2], 2: [3, 1], 3: [6, 8]}
    # the next round starts with the lowest stack: 1-3 is lowest
    assert g.next.seat == 2


def test_a_pitched_card_must_be_one_of_the_pitched_cards():
    g = play(chosen(), ("pitch", 8), ("pitch", 1), ("pitch", 2))

    with pytest.raises(IllegalAction, match="The pitched pile holds no 9"):
        g.deal(9)


def test_catching_a_pair_costs_its_rank():
    g = play(chosen(), ("pitch", 6), ("pitch", 8), ("pitch", 2), 8, 6, 2)

    # seat 2 got the 8, seat 3 the 6 (a pair of 6s: it pays 6 and is out), seat 1 the 2
    assert g.out == {3: "pair of 6s"} and g.purse.pot == 3 + 6


def test_the_deal_stops_when_one_player_is_left_alive():
    hands = {1: [5, 5, 6, 7, 9, 10], 2: [3, 8, 10, 4, 6, 2], 3: [6, 9, 10, 1, 8, 7]}
    g = play(start("goblin_poker", hands, chips=30), ("choose", 5), ("choose", 3), ("choose", 6))
    play(g, FOLD, ("pitch", 1), ("pitch", 5))
    # seats 3 and 1 are in; seat 1 (5) is lower than seat 3 (6): it receives first
    assert g.next.seat == 1

    play(g, 5)  # seat 1 pairs its 5; the 1 is never dealt

    assert isinstance(g.next, Finished)
    assert g.settlement().result["winners"] == (3,)


def test_a_perfect_tie_for_lowest_stack_is_broken_with_cards_from_the_deck():
    hands = {1: [2, 9, 6, 7, 3, 10], 2: [8, 2, 4, 6, 7, 10], 3: [5, 5, 10, 1, 8, 9]}
    g = play(start("goblin_poker", hands, chips=30), ("choose", 2), ("choose", 8), ("choose", 5))
    play(g, ("pitch", 9), ("pitch", 2), ("pitch", 5))
    play(g, 5, 9, 2)
    # seats 1 and 3 both show 2-5: a perfect tie for the lowest stack
    assert g.stacks == {1: [2, 5], 2: [8, 9], 3: [5, 2]}
    assert g.next == CardDue("seat", "tiebreak", 1)

    play(g, 7, 5, 6)  # seat 3's 5 pairs: discarded and replaced by a 6

    assert g.stacks[1] == [2, 5, 7] and g.stacks[3] == [5, 2, 6]
    assert g.next.seat == 3 and g.next.moves == (Move.PITCH, Move.FOLD)


def test_players_still_in_after_the_fifth_round_split_the_pot_and_odd_coins_carry():
    hands = {1: [1, 2, 3, 4, 5, 6], 2: [2, 3, 4, 5, 6, 7], 3: [3, 4, 5, 6, 7, 8]}
    g = play(start("goblin_poker", hands, chips=30, carry=1), *[("choose", r) for r in (1, 2, 3)])
    for _ in range(5):
        pitched = {}
        while g.next.__class__ is not CardDue:
            seat = g.next.seat
            pitched[seat] = min(g.hands[seat].known)
            g.act(("pitch", pitched[seat]))
        while isinstance(g.next, CardDue):
            g.deal(pitched[g.next.seat])  # the shuffle gave each player its own card back

    assert g.rounds == 5 and isinstance(g.next, Finished)
    settlement = g.settlement()
    # the pot: 1 carried in and 3 antes; 1 each, 1 carried on
    assert settlement.result["winners"] == (1, 2, 3)
    assert settlement.deltas == {1: 0, 2: 0, 3: 0, "house": 0, "carry": 0}
    assert settlement.carry_out == 1


def test_two_survivors_split_only_under_the_literal_reading():
    g = play(chosen(two_survivors="split"), ("pitch", 6), ("pitch", 8), ("pitch", 2), 8, 6, 2)

    assert isinstance(g.next, Finished)
    settlement = g.settlement()
    assert settlement.result["winners"] == (1, 2)
    # pot 9 split two ways: 4 each, 1 carried
    assert settlement.deltas[1] == 3 and settlement.deltas[2] == 3 and settlement.carry_out == 1

    g = play(chosen(), ("pitch", 6), ("pitch", 8), ("pitch", 2), 8, 6, 2)
    assert not isinstance(g.next, Finished)


def test_at_a_physical_table_a_pitch_is_unseen_until_the_pitched_card_is_dealt():
    g = play(
        start("goblin_poker", {seat: [None] * 6 for seat in (1, 2, 3)}), *[("choose", r) for r in (5, 3, 6)]
    )
    play(g, ("pitch",), ("pitch",), ("pitch",))
    assert g.next.pile and g.next.ranks == ()

    play(g, 1, 8, 2)

    assert g.stacks == {1: [5, 2], 2: [3, 1], 3: [6, 8]}
    assert g.shoe.unseen == 18 - 3 - 3


def test_the_game_replays_from_what_was_revealed():
    g = play(chosen(), ("pitch", 6), ("pitch", 8), ("pitch", 2), 8, 6, 2, FOLD)
    assert isinstance(g.next, Finished)
    cards, decisions = public_record(g)

    again = replay(
        "goblin_poker", [1, 2, 3], dict.fromkeys([1, 2, 3], 30), cards, decisions, {"collection": "none"}
    )

    assert again.settlement == g.settlement()


def test_bad_house_rules_and_tables_are_refused():
    with pytest.raises(IllegalAction, match="two_survivors is one of"):
        GoblinPokerOptions.build({"two_survivors": "maybe"})
    with pytest.raises(IllegalAction, match="3 to 8 players"):
        start("goblin_poker", {1: [1] * 6, 2: [2] * 6})
