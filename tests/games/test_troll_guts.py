"""Troll Guts: the booklet's rules as written, the house rulings, hidden downcards and replay.

Each seat's five downcards are written in the order the system shoe dealt them; then the upcards,
then the steps: ints are cards from the deck, tuples are decisions ("draw",), ("steal", seat, rank),
("buy", rank).
"""

from __future__ import annotations

import pytest

from tables.games import CardDue, Finished, IllegalAction, Move, Shoe, replay
from tables.games.troll_guts import TrollGutsOptions

from .secret_play import play, public_record, start

DRAW = ("draw",)
HANDS = {1: [1, 2, 3, 4, 5], 2: [6, 7, 8, 9, 10], 3: [10, 9, 8, 7, 6]}


def three(upcards=(5, 4, 9), **options):
    """Three players with 10 chips each and their upcards dealt (seat 2's 4 is low)."""
    return play(start("troll_guts", HANDS, chips=10, **options), *upcards)


def test_everyone_antes_and_gets_five_downcards_then_one_upcard():
    g = start("troll_guts", HANDS, chips=10)

    assert g.purse.pot == 3
    assert g.next == CardDue("seat", "upcard", 1)
    play(g, 5, 4, 9)
    assert g.stacks == {1: [5], 2: [4], 3: [9]}


def test_the_low_card_goes_first_and_play_proceeds_to_the_left():
    g = three()

    assert g.next.seat == 2
    assert g.next.moves == (Move.DRAW, Move.STEAL, Move.BUY)
    play(g, DRAW, 2)
    assert g.next.seat == 3


def test_a_tie_for_low_is_broken_as_in_pairs():
    g = three(upcards=(4, 4, 9))
    assert g.next == CardDue("seat", "tiebreak", 1)

    play(g, 7, 4, 3)  # seat 2's 4 pairs its 4: discarded and replaced by a 3

    assert g.stacks == {1: [4, 7], 2: [4, 3], 3: [9]}
    assert g.turn == 2


def test_draw_takes_a_card_from_the_deck_face_up():
    g = play(three(), DRAW, 2)

    assert g.stacks[2] == [4, 2]


def test_steal_takes_the_top_of_another_players_downcards():
    g = play(three(), ("steal", 3, 10))

    assert g.stacks[2] == [4, 10]
    assert len(g.hands[3]) == 4
    assert g.purse.pot == 3


def test_buy_pays_a_coin_for_the_top_of_your_own_downcards():
    g = play(three(), ("buy", 8))

    assert g.stacks[2] == [4, 8]
    assert g.purse.pot == 3 + 1


def test_catching_a_pair_of_4s_costs_4_and_knocks_you_out():
    g = play(three(), ("steal", 1, 4))

    assert g.out == {2: "pair of 4s"}
    assert g.purse.pot == 3 + 4
    # a knocked-out player's downcards cannot be stolen
    assert 2 not in g.steal_targets(3)


def test_you_cannot_steal_from_yourself_unless_the_house_allows_it():
    g = three()
    with pytest.raises(IllegalAction, match="cannot steal from seat 2"):
        g.act(("steal", 2, 8))

    own = play(three(steal_own=True), ("steal", 2, 8))
    assert own.stacks[2] == [4, 8] and own.purse.pot == 3


def test_there_is_no_folding():
    g = three()

    with pytest.raises(IllegalAction, match="cannot fold"):
        g.act(("fold",))


def test_the_survivor_takes_the_pot():
    g = play(three(collection="rake", rake_percent=10), ("steal", 1, 4), ("buy", 9))

    assert isinstance(g.next, Finished)
    settlement = g.settlement()
    # pot: antes 3 + pair of 4s + a buy + pair of 9s, of which seat 3 has only 8 left = 16;
    # rake 10% = 1; seat 1 takes 15
    assert settlement.deltas == {1: 14, 2: -5, 3: -10, "house": 1, "carry": 0}
    assert settlement.shortfalls == {3: 1}


def test_at_a_physical_table_a_downcard_is_recorded_when_it_is_revealed():
    g = play(start("troll_guts", {seat: [None] * 5 for seat in (1, 2, 3)}), 5, 4, 9)
    assert g.next.choices == ()

    play(g, ("steal", 3, 10), ("buy", 10), DRAW, 1)

    assert g.stacks == {1: [5, 1], 2: [4, 10], 3: [9, 10]}
    with pytest.raises(IllegalAction, match="cannot hold another 1"):
        g.act(("steal", 3, 1))


def test_the_game_replays_from_what_was_revealed():
    g = play(three(), ("steal", 3, 10), ("buy", 8), DRAW, 2, ("steal", 1, 4))
    play(g, ("steal", 1, 5), ("buy", 2))
    assert isinstance(g.next, Finished)
    cards, decisions = public_record(g)

    again = replay("troll_guts", [1, 2, 3], {1: 10, 2: 10, 3: 10}, cards, decisions, {"collection": "none"})

    assert again.settlement == g.settlement()


@pytest.mark.parametrize(
    ("options", "sentence"), [({"buy_price": -1}, "buy price"), ({"steal_own": "yes"}, "steal_own")]
)
def test_impossible_house_rules_are_refused_with_a_sentence(options, sentence):
    with pytest.raises(IllegalAction, match=sentence):
        TrollGutsOptions.build(options)


def test_two_players_are_refused():
    with pytest.raises(IllegalAction, match="3 to 6 players"):
        start("troll_guts", {1: [1] * 5, 2: [2] * 5})


def test_a_player_may_still_draw_at_the_bottom_of_the_deck_from_its_discards():
    # RULINGS: any shoe that runs dry mid-hand recycles its discards "as in Pairs".
    cards = [*HANDS[1], *HANDS[2], *HANDS[3], 5, 4, 9]
    remaining = [0] + [cards.count(rank) for rank in range(1, 11)]
    g = play(start("troll_guts", HANDS, chips=10, shoe=Shoe(1, remaining)), 5, 4, 9)

    assert len(g.shoe) == 0 and g.discards == 55 - len(cards)
    assert g.next.moves[0] is Move.DRAW
    play(g, DRAW)
    g.recycle([0, 0, 0, 2, 0, 0, 0, 0, 0, 0, 0])  # the discards, shuffled: two 3s
    play(g, 3)
    assert g.stacks[2] == [4, 3]
