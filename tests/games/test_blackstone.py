"""Blackstone: the book's worked example, the house rulings, and random legal play."""

from __future__ import annotations

import copy
from collections import Counter

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tables.games import Action, CardDue, DecisionDue, Finished, IllegalAction, Move, Shoe, replay
from tables.games.base import CardEvent, DecisionEvent
from tables.games.blackstone import Blackstone, fold_penalty
from tables.games.cards import RANKS, LowCard
from tables.games.collection import CollectionOptions

from .strategies import collections, expected_house

TEN = 10
DEFAULT_COLLECTION = CollectionOptions().as_record()


def play(game: Blackstone, *steps) -> Blackstone:
    """Feed steps in order: an int is a card, a tuple a decision."""
    for step in steps:
        if isinstance(step, tuple):
            game.act(step)
        else:
            game.deal(step)
    return game


def state_of(game: Blackstone) -> dict:
    """Everything the game holds, copied, so a refused action can be shown to change nothing."""
    return copy.deepcopy({k: vars(v) if isinstance(v, LowCard | Shoe) else v for k, v in vars(game).items()})


# The book's examples take no collection; the house's is tested on its own below.
NO_COLLECTION = {"collection": "none"}


def table(seats=(1, 2, 3), stakes=None, options=NO_COLLECTION, **kwargs) -> Blackstone:
    return Blackstone(seats, stakes or {s: 100 for s in seats}, options=options, **kwargs)


# The book's worked example -------------------------------------------------


def test_folding_when_there_are_15_white_stones_costs_the_ante_plus_8():
    # given three players; seat 2 starts with the low card; 3 white stones are out
    game = play(table(), 4, 2, 6)
    assert game.next == DecisionDue(2, (Move.TAKE, Move.FOLD), 1, 52, fold_price=5 + 2)
    # when seat 2 takes twelve white stones, there are 15 in the centre
    play(game, ("take", 12), 9, 9, 9, 9, 8, 8, 8, 8, 7, 7, 7, 7)
    assert game.white == 15
    # then seat 3's fold costs the ante plus another 8 (half of 15, rounding up)
    assert game.next.seat == 3 and game.next.fold_price == 5 + 8
    play(game, ("fold",))
    assert game.next.seat == 1 and game.next.fold_price == 13
    play(game, ("fold",))
    settlement = game.settlement()
    assert settlement.deltas == {1: -13, 2: 26, 3: -13, "house": 0, "carry": 0}
    assert settlement.result["ending"] == "last_player_standing"


def test_the_fold_penalty_is_half_the_white_stones_rounded_up():
    assert [fold_penalty(w) for w in (0, 1, 2, 14, 15, 16)] == [0, 1, 1, 7, 8, 8]


# Deal and starter ------------------------------------------------------------


def test_low_card_starts_and_every_dealt_card_is_recorded_as_going_to_its_seat():
    game = play(table(), 7, 3, 5)
    assert game.next.seat == 2
    assert [(e.to, e.seat, e.why) for e in game.transcript] == [
        ("seat", 1, "deal"),
        ("seat", 2, "deal"),
        ("seat", 3, "deal"),
    ]
    assert game.white == 3


def test_a_tie_for_low_card_is_broken_with_more_cards_and_pairs_are_ignored():
    game = play(table((1, 2)), 4, 4)
    assert game.next == CardDue("seat", "tiebreak", 1)
    play(game, 4, 5)  # seat 1 pairs its 4: ignored, never replaced
    assert game.next.seat == 1 and isinstance(game.next, DecisionDue)
    assert game.white == 4


def test_extra_tens_from_a_tie_break_go_back_to_the_deck():
    # given all three players dealt a 10, then seats 1 and 2 catch a second 10 in the tie-break
    game = play(table(), TEN, TEN, TEN, TEN, TEN, 3)
    # then seat 3 starts, seats 1 and 2 each return one 10, and the deck holds them again
    result_tens = game.returned_tens
    assert game.next.seat == 3
    assert result_tens == {1: 1, 2: 1}
    assert game.shoe.remaining[TEN] == 10 - 5 + 2
    assert game.next.max_take == 55 - 6 + 2
    assert game.black == {1, 2, 3} and game.white == 1


def test_a_player_who_returned_an_extra_ten_still_holds_one_and_loses_on_the_next():
    game = play(table((1, 2)), TEN, TEN, TEN, 2)  # seat 2 starts; seat 1 returns one 10
    play(game, ("take", 1), 5, ("take", 1), TEN)
    settlement = game.settlement()
    assert settlement.result["returned_tens"] == {1: 1}
    # W counts white stones only: the 2 from the tie-break and the 5 taken
    assert settlement.result["loser"] == 1 and settlement.result["white_stones"] == 2
    assert settlement.deltas == {1: -(5 + 2), 2: 7, "house": 0, "carry": 0}


# Turns and the minimum take ------------------------------------------------


def test_the_first_taker_must_take_at_least_one_card_and_may_take_more():
    game = play(table(), 4, 2, 6)
    assert (game.next.min_take, game.next.max_take) == (1, 52)
    with pytest.raises(IllegalAction, match="from 1 to 52 cards, not 0"):
        game.act(("take", 0))
    play(game, ("take", 3), 9, 8, 7)
    assert game.next.seat == 3 and game.next.min_take == 3


def test_folds_do_not_change_the_minimum_take():
    # given seat 2 took three cards and seat 3 folded
    game = play(table(), 4, 2, 6, ("take", 3), 9, 8, 7, ("fold",))
    # then seat 1 must still take at least three
    assert game.next.seat == 1 and game.next.min_take == 3
    before = state_of(game)
    with pytest.raises(IllegalAction, match="Seat 1 must take from 3 to 49 cards, not 2"):
        game.act(("take", 2))
    assert state_of(game) == before


def test_play_goes_clockwise_from_the_starter_and_skips_players_who_folded():
    game = play(table((4, 6, 8, 1)), 5, 6, 2, 7)  # seat 8 starts
    order = []
    for _ in range(3):
        order.append(game.next.seat)
        play(game, ("take", 1), 9)
    assert order == [8, 1, 4]
    play(game, ("fold",))  # seat 6 folds
    assert game.next.seat == 8
    play(game, ("take", 1), 9, ("take", 1), 8)
    assert game.next.seat == 4


def test_a_player_cannot_take_more_cards_than_the_deck_holds_and_with_too_few_can_only_fold():
    # given a deck holding just four cards: a 1, two 2s and a 3
    shoe = Shoe(1, remaining=[0, 1, 2, 1, 0, 0, 0, 0, 0, 0, 0])
    game = play(Blackstone((1, 2), {1: 20, 2: 20}, shoe=shoe), 1, 2)
    with pytest.raises(IllegalAction, match="from 1 to 2 cards, not 3"):
        game.act(("take", 3))
    # when seat 1 takes the last two cards
    play(game, ("take", 2), 2, 3)
    # then seat 2 must take two but none are left: it can only fold, and seat 1 takes the pot
    assert game.next == DecisionDue(2, (Move.FOLD,), 2, 0, fold_price=5 + 2)
    with pytest.raises(IllegalAction, match="cannot take now; expected fold"):
        game.act(("take", 2))
    play(game, ("fold",))
    assert game.settlement().deltas == {1: 7, 2: -7, "house": 0, "carry": 0}


# Taking and the second black stone -----------------------------------------


def test_a_first_black_stone_is_kept_and_the_take_goes_on():
    game = play(table((1, 2)), 3, 5, ("take", 2), TEN, 9)
    assert game.black == {1} and game.white == 3
    assert game.next.seat == 2 and game.next.min_take == 2


def test_revealing_stops_at_the_second_black_stone_and_the_rest_stay_unseen():
    # given seat 1 holds a 10 and calls for four cards
    game = play(table(), TEN, 3, 5, ("take", 1), 9, ("take", 1), 8, ("take", 4), 6)
    assert game.next == CardDue("seat", "take", 1)
    # when the second card revealed is a 10
    play(game, TEN)
    # then the game is over: the two counted cards left are never fed
    assert isinstance(game.next, Finished)
    with pytest.raises(IllegalAction, match="No card is due"):
        game.deal(4)
    takes = [e for e in game.transcript if isinstance(e, CardEvent) and e.why == "take"]
    assert [e.rank for e in takes] == [9, 8, 6, TEN]


ODD_POT = (TEN, 3, 5, ("take", 1), 9, ("take", 1), 8, ("take", 3), 6, 7, TEN)  # seat 1 loses at W = 6


def test_the_loser_pays_the_ante_plus_one_unit_per_white_stone_and_the_survivors_split_the_pot():
    # given seat 1 holds a 10; seat 2 starts; each player takes one card at a time
    game = play(table(), TEN, 3, 5, ("take", 1), 9, ("take", 1), 8, ("take", 1), 7, ("take", 1), 6)
    # when seat 1 catches its second 10 with 7 white stones out (3, 5, 9, 8, 7, 6 and 4)
    play(game, ("take", 1), 4, ("take", 1), TEN)
    settlement = game.settlement()
    # then seat 1 pays 5 + 7 = 12, split 6 and 6; survivors keep their antes
    assert settlement.deltas == {1: -12, 2: 6, 3: 6, "house": 0, "carry": 0}
    assert settlement.result["white_stones"] == 7
    assert settlement.result["survivors"] == (2, 3)
    assert settlement.result["ending"] == "second_black_stone"


def test_odd_units_of_the_split_carry_to_the_next_pot():
    # given W = 6 when seat 1 loses: the pot of 11 splits 5 and 5, with 1 left over
    settlement = play(table(), *ODD_POT).settlement()
    assert settlement.result["white_stones"] == 6
    assert settlement.deltas == {1: -11, 2: 5, 3: 5, "house": 0, "carry": 1}
    assert settlement.carry_out == 1


def test_the_pot_carried_in_joins_the_split():
    # given 3 units carried in: the pot is 3 + 11 = 14
    settlement = play(table(carry=3), *ODD_POT).settlement()
    assert settlement.deltas == {1: -11, 2: 7, 3: 7, "house": 0, "carry": -3}
    assert settlement.carry_out == 0


def test_folded_players_antes_and_penalties_join_the_pot_the_survivors_split():
    # seat 3 folds at W = 3 (pays 5 + 2); then seat 1 loses at W = 4 (pays 5 + 4)
    game = play(table(), TEN, 3, 5, ("take", 1), 9, ("fold",), ("take", 2), 6, TEN)
    settlement = game.settlement()
    assert settlement.deltas == {1: -9, 2: 16, 3: -7, "house": 0, "carry": 0}
    assert settlement.result["folded"] == (3,)


def test_the_last_player_standing_takes_the_pot_and_keeps_the_ante():
    # given 1 unit carried in; seat 1 folds at W = 2 (ante 5 plus 1)
    game = play(table((1, 2), carry=1), 2, 4, ("fold",))
    settlement = game.settlement()
    assert settlement.deltas == {1: -6, 2: 7, "house": 0, "carry": -1}
    assert settlement.result["survivors"] == (2,)


# Table stakes ----------------------------------------------------------------


def test_a_loser_short_of_the_debt_pays_the_whole_stack_and_the_shortfall_is_recorded():
    # given seat 1 has 8 units in front and loses owing 5 + 7 = 12
    game = table(stakes={1: 8, 2: 50, 3: 50})
    play(game, TEN, 3, 5, ("take", 1), 9, ("take", 1), 8, ("take", 1), 7, ("take", 1), 6)
    play(game, ("take", 1), 4, ("take", 1), TEN)
    settlement = game.settlement()
    assert settlement.deltas == {1: -8, 2: 4, 3: 4, "house": 0, "carry": 0}
    assert settlement.shortfalls == {1: 4}


def test_a_folding_player_short_of_the_price_pays_the_whole_stack():
    game = table((1, 2), stakes={1: 6, 2: 50})
    play(game, 3, 5, ("take", 4), 9, 9, 8, 8, ("take", 4), 7, 7, 6, 6, ("fold",))  # W = 10: owes 10
    settlement = game.settlement()
    assert settlement.deltas == {1: -6, 2: 6, "house": 0, "carry": 0}
    assert settlement.shortfalls == {1: 4}


# Refusals --------------------------------------------------------------------


def test_a_player_without_the_ante_cannot_sit_in():
    with pytest.raises(IllegalAction, match="Seat 2 has 4 units in front; the ante is 5"):
        Blackstone((1, 2), {1: 5, 2: 4})
    with pytest.raises(IllegalAction, match="the ante is 10"):
        Blackstone((1, 2), {1: 20, 2: 9}, options={"ante": 10})


@pytest.mark.parametrize("seats", [(1,), tuple(range(1, 10))])
def test_blackstone_seats_two_to_eight_players(seats):
    with pytest.raises(IllegalAction, match="2 to 8 players"):
        Blackstone(seats, {s: 50 for s in seats})


@pytest.mark.parametrize("ante", [0, -5, 2.5, True, "5"])
def test_an_ante_that_is_not_a_positive_whole_number_is_refused(ante):
    with pytest.raises(IllegalAction, match="The ante must be"):
        Blackstone((1, 2), {1: 50, 2: 50}, options={"ante": ante})


def test_the_ante_defaults_to_five_and_is_recorded_as_a_house_rule():
    assert Blackstone((1, 2), {1: 50, 2: 50}).options.as_record() == {"ante": 5, **DEFAULT_COLLECTION}


def test_chips_for_a_seat_not_playing_and_a_multi_deck_shoe_are_refused():
    with pytest.raises(IllegalAction, match="which do not match"):
        Blackstone((1, 2), {1: 50, 2: 50, 3: 50})
    with pytest.raises(IllegalAction, match="one deck"):
        Blackstone((1, 2), {1: 50, 2: 50}, shoe=Shoe(2))
    with pytest.raises(IllegalAction, match="keeps no state"):
        Blackstone((1, 2), {1: 50, 2: 50}, scores={1: 3})


def test_a_card_fed_when_a_decision_is_due_is_refused_and_changes_nothing():
    game = play(table(), 4, 2, 6)
    before = state_of(game)
    with pytest.raises(IllegalAction, match="No card is due: the game expects a decision from seat 2"):
        game.deal(9)
    assert state_of(game) == before


def test_a_decision_when_a_card_is_due_is_refused_and_changes_nothing():
    game = play(table(), 4, 2, 6, ("take", 2), 9)
    before = state_of(game)
    with pytest.raises(IllegalAction, match="No decision is due: the game expects a card for seat 2"):
        game.act(("fold",))
    assert state_of(game) == before


def test_a_rank_the_deck_cannot_hold_is_refused_and_changes_nothing():
    game = play(table(), 1, 2, 6, ("take", 1))
    before = state_of(game)
    with pytest.raises(IllegalAction, match="cannot hold another 1"):
        game.deal(1)
    assert state_of(game) == before


@pytest.mark.parametrize(
    "decision, message",
    [
        (("take",), "from 1 to 52 cards, not None"),
        (Action(Move.TAKE, count=True), "not True"),
        (Action(Move.FOLD, count=2), "plain fold"),
        (("fold", 1, 4), "plain fold"),
        (("hit",), "cannot hit now; expected take or fold"),
    ],
)
def test_malformed_decisions_are_refused_and_change_nothing(decision, message):
    game = play(table(), 4, 2, 6)
    before = state_of(game)
    with pytest.raises(IllegalAction, match=message):
        game.act(decision)
    assert state_of(game) == before


# Replay ------------------------------------------------------------------------


def test_a_hand_replays_from_its_revealed_cards_and_decisions():
    cards = [TEN, 3, 5, 9, 8, 6, 7, TEN, 4, 4]  # the last two were counted but never revealed
    decisions = [("take", 1), ("take", 1), ("take", 3)]
    stakes = {1: 100, 2: 100, 3: 100}
    record = replay("blackstone", (1, 2, 3), stakes, cards, decisions, options=NO_COLLECTION, carry=3)
    assert record.cards_used == 8
    assert record.settlement == play(table(carry=3), *ODD_POT).settlement()
    assert record.settlement.deltas == {1: -11, 2: 7, 3: 7, "house": 0, "carry": -3}
    assert record.options == {"ante": 5, **DEFAULT_COLLECTION, "collection": "none"}


# Random legal play -------------------------------------------------------------

ILLEGAL_TRY = st.sampled_from(["none", "none", "none", "card", "too_few", "too_many"])


def draw_card(game: Blackstone, due: CardDue, data, tens_first: bool) -> int:
    """A card from what the deck still holds, as a shuffled deck would give it.

    With `tens_first` the deal hands out 10s while any are left, so ties for low
    card on 10s, and extra 10s going back to the deck, are played often (they
    are rare in a shuffled deck)."""
    if tens_first and due.why != "take" and game.shoe.remaining[TEN]:
        return TEN
    pool = [r for r in RANKS for _ in range(game.shoe.remaining[r])]
    return data.draw(st.sampled_from(pool), label="card")


def choose(due: DecisionDue, data) -> tuple:
    move = data.draw(st.sampled_from([m for m in (Move.TAKE, Move.TAKE, Move.FOLD) if m in due.moves]))
    if move is Move.FOLD:
        return ("fold",)
    near = st.integers(due.min_take, min(due.max_take, due.min_take + 2))
    return ("take", data.draw(st.one_of(near, st.integers(due.min_take, due.max_take)), label="k"))


def try_something_illegal(game: Blackstone, due: DecisionDue, data) -> None:
    """Now and then offer a move the rules refuse, and check nothing changed."""
    kind = data.draw(ILLEGAL_TRY, label="illegal")
    attempts = {"card": lambda: game.deal(1), "too_few": lambda: game.act(("take", due.min_take - 1))}
    attempts["too_many"] = lambda: game.act(("take", due.max_take + 1))
    if kind == "none":
        return
    before = state_of(game)
    with pytest.raises(IllegalAction):
        attempts[kind]()
    assert state_of(game) == before


@st.composite
def tables(draw):
    seats = draw(st.lists(st.integers(1, 9), min_size=2, max_size=8, unique=True))
    ante = draw(st.integers(1, 10))
    options = {"ante": ante, **draw(collections())}
    fee = options.get("fee", 0)
    stakes = {s: draw(st.integers(ante + fee, ante + fee + 40)) for s in seats}
    return seats, stakes, options, draw(st.integers(0, 9))


@settings(max_examples=300, deadline=None)
@given(setup=tables(), data=st.data())
def test_random_legal_play_balances_replays_and_never_overdeals(setup, data):
    seats, stakes, options, carry = setup
    game = Blackstone(seats, stakes, options=options, carry=carry)
    tens_first = data.draw(st.booleans(), label="tens first")
    cards, decisions = [], []
    while not game.finished:
        due = game.next
        if isinstance(due, CardDue):
            cards.append(draw_card(game, due, data, tens_first))
            game.deal(cards[-1])
            continue
        try_something_illegal(game, due, data)
        decision = choose(due, data)
        assert Move(decision[0]) in due.moves
        assert decision[0] == "fold" or due.min_take <= decision[1] <= due.max_take
        game.act(decision)
        decisions.append(decision)
    settlement = game.settlement()
    check_money(settlement, stakes, carry, options)
    check_deck(game, settlement)
    record = replay("blackstone", seats, stakes, cards, decisions, options=options, carry=carry)
    assert record.settlement == settlement
    assert record.cards_used == len(cards)
    assert [e for e in game.transcript if isinstance(e, DecisionEvent)] == [
        e for e in record.transcript if isinstance(e, DecisionEvent)
    ]


def check_money(settlement, stakes, carry, options) -> None:
    """Chips are conserved, whatever the house collects: players, house and carry sum to zero."""
    deltas = settlement.deltas
    assert sum(deltas.values()) == 0
    assert deltas["house"] == expected_house(options, len(stakes), settlement.result["pot"])
    assert all(deltas[s] >= -stakes[s] for s in stakes)  # table stakes
    assert all(deltas[s] == -stakes[s] for s in settlement.shortfalls)
    survivors = settlement.result["survivors"]
    assert 0 <= settlement.carry_out < len(survivors)
    assert settlement.carry_out == carry + deltas["carry"]
    assert all(deltas[s] >= -options.get("fee", 0) for s in survivors)


def check_deck(game: Blackstone, settlement) -> None:
    dealt = Counter(e.rank for e in game.transcript if isinstance(e, CardEvent))
    returned = sum(settlement.result["returned_tens"].values())
    for rank in RANKS:
        out = game.shoe.full[rank] - game.shoe.remaining[rank]
        assert dealt[rank] - (returned if rank == TEN else 0) == out
    assert settlement.result["white_stones"] == sum(n for r, n in dealt.items() if r != TEN)
