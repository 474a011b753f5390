"""Monster: the booklet's rules as written, the house rulings, hidden hands and replay.

Each seat's six face-down cards are written in the order dealt; then the steps: tuples are
decisions ("discard", *ranks), ("fold",), ("show", *ranks); ints are the Monster's cards as they
are turned over.
"""

from __future__ import annotations

import pytest

from tables.games import CardDue, DecisionDue, Finished, IllegalAction, Move, replay
from tables.games.base import Entry
from tables.games.monster import MonsterOptions, hand_key

from .secret_play import play, public_record, start

FOLD = ("fold",)
HANDS = {
    1: [10, 9, 8, 7, 6, 5],
    2: [1, 2, 2, 3, 3, 4],
    3: [4, 4, 5, 5, 6, 6],
    4: [7, 7, 8, 8, 9, 9],
}


def four(hands=HANDS, **options):
    return start("monster", hands, chips=30, **options)


def test_the_ante_is_two_coins_with_four_or_five_players_and_one_with_more():
    assert four().purse.pot == 8
    six = start("monster", {seat: [None] * 6 for seat in range(1, 7)})
    assert six.purse.pot == 6


def test_each_player_discards_zero_to_three_cards_or_folds_and_may_not_keep_a_pair():
    g = four()
    assert g.next.seat == 1 and g.next.moves == (Move.DISCARD, Move.FOLD)

    play(g, ("discard",))
    with pytest.raises(IllegalAction, match="may not keep a hand with a pair"):
        g.act(("discard", 2))
    with pytest.raises(IllegalAction, match="zero to 3 cards"):
        g.act(("discard", 1, 2, 3, 4))
    play(g, ("discard", 2, 3))

    assert sorted(g.monster.known) == [2, 3] and sorted(g.hands[2].known) == [1, 2, 3, 4]


def test_a_card_is_better_than_nothing_and_the_monster_ignores_its_pairs():
    assert hand_key([10, 8, 7, 4]) > hand_key([10, 8, 7])
    assert hand_key([10, 9, 8, 7, 6, 5]) > hand_key([10, 9, 8, 7, 6, 4])


def test_the_high_hand_that_beats_the_monster_takes_the_pot():
    g = play(four(collection="rake", rake_percent=10), ("discard",), ("discard", 2, 3), ("discard", 4, 5, 6))
    play(g, ("discard", 7, 8, 9))
    assert g.next.moves == (Move.SHOW,)
    play(g, ("show", 5, 6, 7, 8, 9, 10), ("show", 1, 2, 3, 4), ("show", 4, 5, 6), ("show", 7, 8, 9))
    assert g.next == CardDue("monster", "monster", pile=True, ranks=(2, 3, 4, 5, 6, 7, 8, 9))

    play(g, 9, 8, 7, 6, 5, 4, 3, 2)

    settlement = g.settlement()
    # the Monster shows 9-8-7-6-5-4-3-2; seat 1's 10-9-8-7-6-5 beats it; pot 8, rake 10% = 0
    assert settlement.result["winners"] == (1,)
    assert settlement.deltas[1] == 6


def test_when_every_player_still_in_ties_and_loses_all_pay_and_play_again():
    hands = {1: [1, 2, 3, 4, 5, 6], 2: [1, 2, 3, 4, 5, 6], 3: [10, 9, 8, 7, 6, 5], 4: [10, 9, 8, 7, 6, 5]}
    hands[2] = [2, 3, 4, 5, 6, 7]
    g = play(four(hands), FOLD, FOLD, ("discard", 10, 9, 8), ("discard", 10, 9, 8))
    play(g, ("show", 5, 6, 7), ("show", 5, 6, 7), 10, 9, 8, 10, 9, 8)

    assert g.out == {1: "folded", 2: "folded"}
    assert g.purse.pot == 8 + 5 + 5
    assert g.rounds == 2 and g.live == [3, 4]


def test_a_perfect_tie_goes_to_the_monster():
    hands = {1: [10, 9, 8, 1, 2, 3], 2: [10, 9, 8, 4, 5, 6], 3: [7, 7, 6, 6, 5, 5], 4: [7, 8, 9, 4, 5, 6]}
    g = four(hands)
    play(g, ("discard",), ("discard", 10, 9, 8), ("discard", 7, 6, 5), ("discard", 7, 8, 9))
    play(g, ("show", 1, 2, 3, 8, 9, 10), ("show", 4, 5, 6), ("show", 5, 6, 7), ("show", 4, 5, 6))
    # the Monster: 10-9-8-7-6-5 plus 8-7-9 again: as a set 10-9-8-7-6-5 beats 10-9-8-3-2-1
    play(g, 10, 9, 8, 7, 6, 5, 7, 8, 9)

    assert g.out == {1: "lost to the Monster"}
    assert g.purse.pot == 8 + 5
    assert g.rounds == 2 and g.live == [2, 3, 4]
    assert g.next == CardDue("seat", "deal", 2, face_down=True)
    assert g.shoe.remaining == list(g.shoe.full)  # the whole deck, shuffled again


def test_if_every_other_player_folds_the_last_takes_the_pot_without_facing_the_monster():
    g = play(four(), FOLD, FOLD, FOLD)

    assert isinstance(g.next, Finished)
    assert g.settlement().result["winners"] == (4,) and g.settlement().deltas[4] == 6


def test_one_player_left_at_the_showdown_takes_the_pot_without_facing_the_monster_or_paying():
    # A physical table: seat 3's hand, which nobody saw, is shown with a pair and is out; seat 4's
    # 3-2-1 would lose to the Monster's 10-9-8-7-6-4, but only one player is left, so the game ends.
    hands = {seat: [None] * 6 for seat in (1, 2, 3, 4)}
    g = start("monster", hands, chips=30, collection="rake", rake_percent=20)
    play(g, FOLD, FOLD, ("discard", None, None, None), ("discard", None, None, None))
    play(g, ("show", 5, 5, 6), ("show", 1, 2, 3), 10, 9, 8, 7, 6, 4)

    settlement = g.settlement()
    assert settlement.result["winners"] == (4,) and g.out[3] == "kept a pair" and 4 not in g.out
    assert [e for e in settlement.entries if e.party == 4 and e.amount < 0] == [Entry(4, -2, "ante")]
    # the pot: four antes of 2 and seat 3's penalty, 13; the house takes 20%, 2
    assert settlement.result["pot"] == 13 and settlement.deltas["house"] == 2 and settlement.deltas[4] == 9


def test_an_empty_monster_loses_to_any_hand():
    hands = {1: [1, 2, 3, 4, 5, 6], 2: [2, 3, 4, 5, 6, 7], 3: [4, 5, 6, 7, 8, 9], 4: [7, 8, 9, 10, 5, 6]}
    g = play(four(hands), FOLD, ("discard",), ("discard",), ("discard",))
    play(g, ("show", 2, 3, 4, 5, 6, 7), ("show", 4, 5, 6, 7, 8, 9), ("show", 5, 6, 7, 8, 9, 10))

    assert g.settlement().result["winners"] == (4,)


def test_tied_players_who_beat_the_monster_split_the_pot():
    hands = {1: [10, 9, 1, 2, 3, 4], 2: [10, 9, 2, 3, 4, 5], 3: [5, 5, 6, 6, 7, 7], 4: [8, 8, 6, 7, 3, 4]}
    g = play(four(hands), ("discard", 1, 2, 3), ("discard", 2, 3, 5), ("discard", 5, 6, 7))
    play(g, ("discard", 8, 6, 7))
    play(g, ("show", 4, 9, 10), ("show", 4, 9, 10), ("show", 5, 6, 7), ("show", 3, 4, 8))
    play(g, 1, 2, 3, 2, 3, 5, 5, 6, 7, 8, 6, 7)

    settlement = g.settlement()
    assert settlement.result["winners"] == (1, 2)
    assert settlement.deltas[1] == 2 and settlement.deltas[2] == 2


def test_at_a_physical_table_discards_are_unseen_until_the_monster_is_turned_over():
    g = start("monster", {seat: [None] * 6 for seat in (1, 2, 3, 4)})
    assert g.next == DecisionDue(1, (Move.DISCARD, Move.FOLD))

    play(g, ("discard", None, None), FOLD, FOLD, FOLD)

    assert g.settlement().result["winners"] == (1,)


def test_the_game_replays_from_what_was_revealed():
    g = play(four(), ("discard",), ("discard", 2, 3), ("discard", 4, 5, 6), ("discard", 7, 8, 9))
    play(g, ("show", 5, 6, 7, 8, 9, 10), ("show", 1, 2, 3, 4), ("show", 4, 5, 6), ("show", 7, 8, 9))
    play(g, 9, 8, 7, 6, 5, 4, 3, 2)
    cards, decisions = public_record(g)

    again = replay(
        "monster", [1, 2, 3, 4], dict.fromkeys([1, 2, 3, 4], 30), cards, decisions, {"collection": "none"}
    )

    assert again.settlement == g.settlement()


def test_bad_house_rules_and_tables_are_refused():
    with pytest.raises(IllegalAction, match="penalty"):
        MonsterOptions.build({"penalty": -5})
    with pytest.raises(IllegalAction, match="4 to 8 players"):
        start("monster", {1: [1] * 6, 2: [2] * 6, 3: [3] * 6})
