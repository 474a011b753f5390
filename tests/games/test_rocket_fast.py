"""The fast Rocket path agrees exactly with the checked engine on the same cards and decisions."""

from __future__ import annotations

import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tables.games import CardDue, IllegalAction, replay
from tables.games.cards import RANKS
from tables.games.rocket import Rocket
from tables.games.rocket_fast import button_index, lowest, play_hand


def mask(stack) -> int:
    bits = 0
    for rank in stack:
        bits |= 1 << rank
    return bits


class Stream:
    """A strategy that answers from a list of fold/hit choices in order, then hits."""

    def __init__(self, choices):
        self.choices = list(choices)
        self.asked: list[tuple[int, int]] = []

    def __call__(self, own: int, dealer: int) -> bool:
        self.asked.append((own, dealer))
        return self.choices[len(self.asked) - 1] if len(self.asked) <= len(self.choices) else False


def play_checked(bets, cards, fold, options):
    """Drive the checked engine, asking `fold` with the same masks the fast path uses."""
    seats = sorted(bets)
    game = Rocket(seats, bets, options)
    cards = list(cards)
    used = 0
    while not game.finished:
        due = game.next
        if isinstance(due, CardDue):
            if used == len(cards):
                raise IllegalAction("out of cards")
            game.deal(cards[used])
            used += 1
        else:
            folds = fold(mask(game.stacks[due.seat]), mask(game.dealer))
            game.act(("fold",) if folds else ("hit",))
    return game, used


def shoe(decks: int, rnd: random.Random) -> list[int]:
    cards = [rank for rank in RANKS for _ in range(decks * rank)]
    rnd.shuffle(cards)
    return cards


tables = st.lists(st.integers(1, 9), min_size=1, max_size=6, unique=True).flatmap(
    lambda seats: st.fixed_dictionaries({seat: st.integers(1, 30).map(lambda t: 10 * t) for seat in seats})
)
options = st.fixed_dictionaries(
    {
        "decks": st.integers(1, 8),
        "start": st.sampled_from(["left", "button"]),
        "previous_button": st.none() | st.integers(1, 9),
    }
)


@settings(max_examples=400, deadline=None)
@given(bets=tables, options=options, rnd=st.randoms(use_true_random=False), choices=st.lists(st.booleans()))
def test_the_fast_hand_settles_exactly_as_the_checked_engine(bets, options, rnd, choices):
    # given a shuffled shoe and a stream of fold/hit choices
    cards = shoe(options["decks"], rnd)
    fast_fold, checked_fold = Stream(choices), Stream(choices)
    # when both paths play the hand
    try:
        game, used = play_checked(bets, cards, checked_fold, options)
    except IllegalAction:
        # the whole shoe was not enough for this hand: the fast path must run out too
        with pytest.raises(IllegalAction):
            play_hand(bets, cards, fast_fold, options)
        return
    fast = play_hand(bets, cards, fast_fold, options)
    # then they agree on money, cards, starter and the decisions asked, in order
    settlement = game.settlement()
    assert fast.deltas == {seat: settlement.deltas[seat] for seat in game.seats}
    assert fast.house == settlement.deltas["house"]
    assert fast.cards_used == used
    assert fast.starter == settlement.result["starter"]
    assert fast_fold.asked == checked_fold.asked


@settings(max_examples=200, deadline=None)
@given(bets=tables, options=options, rnd=st.randoms(use_true_random=False), salt=st.integers(0, 2**32))
def test_a_state_based_strategy_gives_the_same_replayable_hand(bets, options, rnd, salt):
    # given a strategy that folds on a fixed pseudo-random subset of states
    def fold(own: int, dealer: int) -> bool:
        return hash((salt, own, dealer)) % 3 == 0

    cards = shoe(options["decks"], rnd)
    fast = play_hand(bets, iter(cards), fold, options)
    game, used = play_checked(bets, cards, fold, options)
    decisions = [event.action.as_record() for event in game.transcript if hasattr(event, "action")]
    # when the checked transcript is replayed
    again = replay("rocket", sorted(bets), bets, cards[:used], decisions, options)
    # then the fast hand, the checked hand and the replay all settle the same
    assert again.settlement.deltas == game.settlement().deltas
    assert fast.deltas == {seat: game.settlement().deltas[seat] for seat in game.seats}
    assert fast.cards_used == again.cards_used == used


def test_a_dealer_three_on_the_deal_pays_every_player_three_tenths():
    hand = play_hand({1: 20, 4: 50}, [5, 9, 3], lambda own, dealer: False)
    assert hand.deltas == {1: 6, 4: 15}
    assert hand.cards_used == 3


def test_fold_costs_a_tenth_times_the_lowest_card_of_either_stack():
    # seat 1 holds 6 against a dealer 4: folding a 20 bet pays 2 x 4
    hand = play_hand({1: 20}, [6, 4], lambda own, dealer: True)
    assert hand.deltas == {1: -8}


def test_a_record_that_ends_early_is_refused():
    with pytest.raises(IllegalAction):
        play_hand({1: 20}, [6, 4], lambda own, dealer: False)


def test_the_button_tie_goes_to_the_first_tied_seat_after_the_previous_button():
    seats = (1, 3, 5, 6)
    assert button_index(seats, [2, 4, 2, 2], None) == 0
    assert button_index(seats, [2, 4, 2, 2], 1) == 2
    assert button_index(seats, [2, 4, 2, 2], 5) == 3
    assert button_index(seats, [2, 4, 2, 2], 6) == 0
    assert button_index(seats, [2, 4, 2, 9], 5) == 0


def test_lowest_reads_the_lowest_rank_of_a_bitmask():
    assert lowest(mask([7, 2, 9])) == 2
