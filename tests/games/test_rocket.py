"""Rocket: the booklet's worked examples, the house rulings, and random legal play."""

import copy
import importlib
from random import Random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tables.games.base import DEALER, SEAT, CardDue, DecisionDue, Finished, Move
from tables.games.cards import RANKS, Shoe
from tables.games.errors import IllegalAction
from tables.games.replay import replay
from tables.games.rocket import Rocket, RocketOptions, button_starter

replay_module = importlib.import_module("tables.games.replay")  # the package re-exports the function


@pytest.fixture(autouse=True, scope="module")
def rocket_is_registered():
    """`replay` looks games up in a registry that imports every game; while a
    sibling game module is still missing from the checkout, register Rocket alone."""
    with pytest.MonkeyPatch.context() as patch:
        try:
            replay_module.games()
        except ImportError:
            patch.setattr(replay_module, "games", lambda: {Rocket.name: Rocket})
        yield


def drive(game, cards=(), decisions=()):
    """Feed cards and decisions in the order the game asks for them, until the record runs out."""
    cards, decisions = list(cards), list(decisions)
    while not game.finished:
        due = game.next
        if isinstance(due, CardDue) and cards:
            game.deal(cards.pop(0))
        elif isinstance(due, DecisionDue) and decisions:
            game.act(decisions.pop(0))
        else:
            break
    assert not cards and not decisions, "the record had more than the game asked for"
    return game


def rocket(stakes, cards=(), decisions=(), **options):
    return drive(Rocket(tuple(sorted(stakes)), stakes, options or None), cards, decisions)


def snapshot(game):
    state = {k: v for k, v in vars(game).items() if not callable(v)}
    on_card = getattr(game._on_card, "__name__", None)
    return copy.deepcopy(state) | {"shoe": list(game.shoe.remaining), "on_card": on_card}


HIT, FOLD = ("hit",), ("fold",)


# -- the booklet's worked examples ---------------------------------------------


def test_fold_with_a_bet_of_20_and_a_lowest_card_of_4_costs_8_and_returns_the_rest():
    # "if your bet is 20 coins, and the lowest card between you and the dealer is a 4,
    #  you can fold by paying 2 x 4 = 8 coins. You retrieve the remainder of your bet."
    game = rocket({1: 20}, cards=[6, 4])

    assert game.next == DecisionDue(1, (Move.HIT, Move.FOLD), fold_price=8)
    game.act(FOLD)

    settlement = game.settlement()
    assert settlement.deltas == {1: -8, "house": 8, "carry": 0}
    assert [(e.party, e.amount, e.reason) for e in settlement.entries] == [
        (1, -8, "fold price"),
        ("house", 8, "fold price"),
    ]
    assert settlement.result["outcome"] == {1: "folded"}


def test_the_4_may_be_in_the_players_own_stack():
    game = rocket({1: 20}, cards=[4, 9])

    assert game.next.fold_price == 8
    game.act(FOLD)
    assert game.settlement().deltas[1] == -8


def test_bet_20_and_a_pair_of_8s_pays_16():
    # "if you have bet 20 coins and get a pair of 8's, you pay 2 x 8 = 16 coins."
    game = rocket({1: 20}, cards=[8, 5], decisions=[HIT])
    game.deal(8)

    settlement = game.settlement()
    assert settlement.deltas == {1: -16, "house": 16, "carry": 0}
    assert settlement.entries[0].reason == "pair"
    assert settlement.result["outcome"] == {1: "paired"}
    assert settlement.result["dealer"] == (5,)  # nobody left in: the dealer does not draw


def test_dealer_catches_7_7_and_pays_a_bet_of_50_35_and_the_bet_is_kept():
    # "if the dealer catches 7-7, and your bet was 50, the dealer pays you 5 x 7 = 35 coins.
    #  (You also keep your bet.)"
    game = rocket({1: 50}, cards=[2, 7], decisions=[HIT])
    game.deal(9)
    assert game.next == CardDue(DEALER, "hit")
    game.deal(7)

    settlement = game.settlement()
    assert settlement.deltas == {1: 35, "house": -35, "carry": 0}
    assert settlement.entries[0].reason == "dealer pair"
    assert settlement.result["outcome"] == {1: "paid by dealer"}
    assert settlement.result["end"] == "dealer pair"


def test_a_dealer_3_on_the_first_card_pays_all_bets_at_3_tenths_before_anyone_acts():
    # "The dealer loses immediately if she gets a 3, even on her first card.
    #  This pays all bets at 3/10 (as if the dealer caught a pair of 3's)."
    game = rocket({1: 10, 2: 20, 4: 50}, cards=[5, 6, 7, 3])

    settlement = game.settlement()
    assert settlement.deltas == {1: 3, 2: 6, 4: 15, "house": -24, "carry": 0}
    assert {e.reason for e in settlement.entries} == {"dealer three"}
    assert settlement.result["end"] == "dealer three"
    assert [e for e in game.transcript if not hasattr(e, "rank")] == []  # no player acted


def test_a_3_is_not_lethal_to_players():
    # "Note: A 3 is not lethal to players, only the dealer."
    game = rocket({1: 30}, cards=[5, 8], decisions=[HIT])
    game.deal(3)

    assert game.next == CardDue(DEALER, "hit")
    assert game.stacks[1] == [5, 3]


def test_a_dealer_3_later_pays_only_the_players_still_in():
    # given seat 1 folds and seat 2 pairs in the first round; seat 3 hits safely
    game = rocket({1: 20, 2: 20, 3: 40}, cards=[6, 5, 9, 8], decisions=[FOLD, HIT])
    game.deal(5)
    game.act(HIT)
    game.deal(2)

    # when the dealer draws a 3
    game.deal(3)

    # then only seat 3 is paid, 3 tenths of 40
    settlement = game.settlement()
    assert settlement.deltas == {1: -12, 2: -10, 3: 12, "house": 10, "carry": 0}
    assert settlement.result["outcome"] == {1: "folded", 2: "paired", 3: "paid by dealer"}


def test_a_player_pair_of_3s_costs_3_tenths():
    game = rocket({1: 10}, cards=[3, 6], decisions=[HIT])
    game.deal(3)

    assert game.settlement().deltas[1] == -3


# -- turns and rounds ----------------------------------------------------------


def test_play_begins_on_the_dealers_left_and_the_dealer_acts_last():
    game = rocket({1: 10, 2: 10, 3: 10}, cards=[9, 1, 5, 8])

    seen = []
    for _ in range(3):
        seen.append(game.next.seat)
        game.act(HIT)
        game.deal(10)

    assert seen == [1, 2, 3]
    assert game.next == CardDue(DEALER, "hit")


def test_the_initial_deal_goes_to_each_player_in_seat_order_then_the_dealer():
    game = Rocket((2, 4, 5), {2: 10, 4: 10, 5: 10})

    dues = []
    for rank in (6, 7, 8, 9):
        dues.append(game.next)
        game.deal(rank)

    assert dues == [
        CardDue(SEAT, "deal", 2),
        CardDue(SEAT, "deal", 4),
        CardDue(SEAT, "deal", 5),
        CardDue(DEALER, "deal"),
    ]


def test_rounds_repeat_with_every_player_still_in_acting_once_in_turn():
    # given round one: seat 1 hits safely, seat 2 folds, seat 3 pairs; the dealer survives
    game = rocket({1: 10, 2: 10, 3: 10}, cards=[9, 1, 5, 8], decisions=[HIT])
    game.deal(4)
    game.act(FOLD)
    game.act(HIT)
    game.deal(5)
    assert game.next == CardDue(DEALER, "hit")
    game.deal(6)

    # when round two starts, only seat 1 is still in
    assert game.next.seat == 1
    game.act(HIT)
    game.deal(2)
    assert game.next == CardDue(DEALER, "hit")
    game.deal(10)

    # and round three: seat 1 folds; nobody is left, so the dealer does not draw
    game.act(FOLD)
    assert isinstance(game.next, Finished)
    settlement = game.settlement()
    assert settlement.result["dealer"] == (8, 6, 10)
    assert settlement.deltas == {1: -2, 2: -1, 3: -5, "house": 8, "carry": 0}


def test_the_fold_price_looks_at_every_card_in_both_stacks():
    # seat 1 holds 9 and 5; the dealer holds 8 and 6: the lowest is the player's 5
    game = rocket({1: 30}, cards=[9, 8], decisions=[HIT])
    game.deal(5)
    game.deal(6)

    assert game.next.fold_price == 15
    game.act(HIT)
    game.deal(7)
    game.deal(2)  # the dealer's 2 is now the lowest
    assert game.next.fold_price == 6


def test_the_dealer_pair_pays_each_player_on_their_own_bet():
    game = rocket({1: 10, 2: 100}, cards=[4, 6, 9], decisions=[HIT])
    game.deal(1)
    game.act(HIT)
    game.deal(2)
    game.deal(9)

    assert game.settlement().deltas == {1: 9, 2: 90, "house": -99, "carry": 0}


# -- the button ----------------------------------------------------------------


def test_with_the_button_the_single_lowest_card_starts_and_takes_the_button():
    game = rocket({1: 10, 2: 10, 3: 10}, cards=[5, 2, 7, 9], start="button", previous_button=1)

    assert game.next.seat == 2
    assert game.starter == 2


def test_with_the_button_the_turn_goes_clockwise_from_the_starter_and_the_dealer_still_acts_last():
    game = rocket({1: 10, 2: 10, 3: 10}, cards=[5, 2, 7, 9], start="button")

    order = []
    for _ in range(3):
        order.append(game.next.seat)
        game.act(HIT)
        game.deal(10)
    assert order == [2, 3, 1]
    assert game.next == CardDue(DEALER, "hit")
    game.deal(8)
    assert game.next.seat == 2  # the next round starts with the starter again
    game.act(FOLD)
    game.act(FOLD)
    game.act(FOLD)

    assert game.settlement().result["button"] == 2


@pytest.mark.parametrize(
    ("previous_button", "tied", "starter"),
    [
        (2, (1, 4), 4),  # clockwise after seat 2: 3, 4, 5, 1, 2
        (2, (1, 3), 3),
        (4, (1, 3), 1),  # after seat 4: 5, then round past the dealer to 1
        (2, (2, 5), 5),  # the previous button's own seat comes last
        (2, (1, 2), 1),
        (5, (2, 5), 2),
        (None, (3, 5), 3),  # first hand: count from the dealer, the lowest tied seat wins
        (None, (1, 2, 5), 1),
    ],
)
def test_a_tie_for_low_card_goes_to_the_tied_player_nearest_the_left_of_the_previous_button(
    previous_button, tied, starter
):
    # "break ties by choosing the player closest to the left of the previous button
    #  (rather than by dealing an extra card)"
    first = {seat: (2 if seat in tied else 8) for seat in (1, 2, 3, 4, 5)}
    cards = [first[s] for s in (1, 2, 3, 4, 5)] + [9]

    game = rocket({s: 10 for s in first}, cards=cards, start="button", previous_button=previous_button)

    assert game.starter == starter
    assert game.next.seat == starter
    assert len(game.transcript) == 6  # no extra cards were dealt for the tie


def test_the_previous_button_may_have_left_the_table():
    # seats 1, 3 and 6 play; the button was at seat 4, now empty: clockwise from 5 comes 6, then 1
    assert button_starter({1: 2, 3: 2, 6: 2}, previous_button=4) == 6
    assert button_starter({1: 2, 3: 2, 6: 9}, previous_button=4) == 1


def test_the_button_moves_even_when_a_dealer_3_stops_the_hand_before_anyone_acts():
    game = rocket({1: 10, 2: 10, 3: 10}, cards=[5, 4, 4, 3], start="button", previous_button=2)

    assert game.settlement().result["button"] == 3


def test_without_the_button_there_is_no_button_to_record():
    game = rocket({1: 10, 2: 10}, cards=[5, 4, 3], previous_button=2)

    assert game.settlement().result["button"] is None
    assert game.settlement().result["starter"] == 1


# -- what the engine refuses -----------------------------------------------------


@pytest.mark.parametrize("bet", [0, -10, 15, 25, True, 20.0, "20", None])
def test_a_bet_must_be_a_positive_multiple_of_10(bet):
    with pytest.raises(IllegalAction, match="multiple of 10"):
        Rocket((1, 2), {1: 20, 2: bet})


def test_rocket_seats_one_to_six_players():
    with pytest.raises(IllegalAction, match="1 to 6 players, not 0"):
        Rocket((), {})
    with pytest.raises(IllegalAction, match="1 to 6 players, not 7"):
        Rocket(tuple(range(1, 8)), {s: 10 for s in range(1, 8)})
    assert Rocket((3,), {3: 10}).next == CardDue(SEAT, "deal", 3)


def test_every_seat_needs_exactly_one_bet():
    with pytest.raises(IllegalAction, match="Every seat needs one bet"):
        Rocket((1, 2), {1: 10})
    with pytest.raises(IllegalAction, match="Every seat needs one bet"):
        Rocket((1,), {1: 10, 2: 10})


def test_seats_are_listed_clockwise_from_the_dealers_left():
    with pytest.raises(IllegalAction, match="clockwise"):
        Rocket((3, 1), {1: 10, 3: 10})
    with pytest.raises(IllegalAction, match="twice"):
        Rocket((1, 1), {1: 10})


@pytest.mark.parametrize(
    ("options", "message"),
    [
        ({"decks": 0}, "1 to 8 decks"),
        ({"decks": 9}, "1 to 8 decks"),
        ({"decks": True}, "1 to 8 decks"),
        ({"start": "middle"}, "'left' or the 'button'"),
        ({"previous_button": "2"}, "previous button must be a seat"),
        ({"previous_button": True}, "previous button must be a seat"),
        ({"target": 21}, "Unknown house rule target"),
    ],
)
def test_house_rules_are_checked(options, message):
    with pytest.raises(IllegalAction, match=message):
        Rocket((1,), {1: 10}, options)


def test_the_house_rules_default_to_an_eight_deck_shoe_started_on_the_dealers_left():
    game = Rocket((1,), {1: 10})

    assert game.options == RocketOptions(decks=8, start="left", previous_button=None)
    assert game.shoe.decks == 8
    assert len(game.shoe) == 440


def test_the_shoe_must_hold_the_decks_the_table_plays():
    with pytest.raises(IllegalAction, match="holds 2 deck"):
        Rocket((1,), {1: 10}, {"decks": 6}, shoe=Shoe(2))


def refused(game, attempt, message):
    before = snapshot(game)
    with pytest.raises(IllegalAction, match=message):
        attempt(game)
    assert snapshot(game) == before, "a refused action changed the hand"


def test_a_card_is_refused_while_a_decision_is_due_and_nothing_changes():
    game = rocket({1: 10, 2: 10}, cards=[5, 6, 7])

    refused(
        game, lambda g: g.deal(4), r"No card is due: the game expects a decision from seat 1 \(hit or fold\)"
    )


def test_a_decision_is_refused_while_a_card_is_due_and_nothing_changes():
    game = rocket({1: 10, 2: 10}, cards=[5])
    refused(game, lambda g: g.act(FOLD), r"No decision is due: the game expects a card for seat 2 \(deal\)")

    game = rocket({1: 10}, cards=[5, 6], decisions=[HIT])
    refused(game, lambda g: g.act(HIT), "a card for seat 1")


@pytest.mark.parametrize(
    ("decision", "message"),
    [
        (("take", 3), "cannot take now; expected hit or fold"),
        (("draw",), "cannot draw now"),
        (("lock",), "cannot lock now"),
        (("eight",), "cannot eight now"),
        (("fold", 2, 6), r"just hits or folds: a fold names no count or card\.$"),
        (("jump",), "Unknown decision 'jump'"),
        (("hit", "now"), "extra parts"),
        ((), "cannot be empty"),
    ],
)
def test_only_hit_or_fold_is_accepted_from_a_player_and_nothing_changes(decision, message):
    game = rocket({1: 10, 2: 10}, cards=[5, 6, 7])

    refused(game, lambda g: g.act(decision), message)


def test_a_rank_the_shoe_cannot_hold_is_refused_and_nothing_changes():
    # a one-deck shoe holds a single 1
    game = rocket({1: 10}, cards=[1], decks=1)

    refused(game, lambda g: g.deal(1), "cannot hold another 1")
    refused(game, lambda g: g.deal(11), "rank from 1 to 10")
    refused(game, lambda g: g.deal(0), "rank from 1 to 10")


def test_nothing_is_accepted_once_the_hand_is_over():
    game = rocket({1: 10}, cards=[5, 3])

    refused(game, lambda g: g.deal(4), "No card is due: the game expects nothing: the hand is over")
    refused(game, lambda g: g.act(HIT), "No decision is due")


def test_the_settlement_is_refused_before_the_hand_is_over():
    game = rocket({1: 10}, cards=[5])

    with pytest.raises(IllegalAction, match="not over"):
        game.settlement()


# -- a shoe that runs dry ------------------------------------------------------


def test_a_shoe_that_runs_dry_is_refilled_with_the_discards_only():
    # given a one-deck shoe holding only a 9 and a 10
    shoe = Shoe(1, [0] * 9 + [1, 1])
    game = Rocket((1,), {1: 10}, {"decks": 1}, shoe=shoe)

    # when they are dealt to the player and the dealer
    game.deal(9)
    game.deal(10)

    # then the shoe is the deck less the two cards on the table
    assert shoe.remaining == [0, 1, 2, 3, 4, 5, 6, 7, 8, 8, 9]
    assert game.reshuffles == 1
    game.act(HIT)
    game.deal(9)
    assert game.settlement().result["reshuffles"] == 1


def test_a_card_on_the_table_never_comes_back_in_a_refilled_shoe():
    shoe = Shoe(1, [0, 1, 1, 0, 0, 0, 0, 0, 0, 0, 0])
    game = Rocket((1,), {1: 10}, {"decks": 1}, shoe=shoe)
    game.deal(1)
    game.deal(2)
    game.act(HIT)

    refused(game, lambda g: g.deal(1), "cannot hold another 1")


def test_an_empty_shoe_at_the_start_of_a_hand_is_refilled_with_every_card():
    shoe = Shoe(1, [0] * 11)

    Rocket((1,), {1: 10}, {"decks": 1}, shoe=shoe)

    assert shoe.remaining == list(Shoe(1).full)


# -- replay ----------------------------------------------------------------------


def test_a_recorded_hand_replays_to_the_same_settlement_with_its_house_rules():
    game = rocket({1: 20, 3: 50}, cards=[4, 4, 6], decisions=[HIT], start="button", previous_button=3)
    game.deal(7)
    game.act(FOLD)
    game.deal(6)
    cards = [e.rank for e in game.transcript if hasattr(e, "rank")]
    decisions = [e.action.as_record() for e in game.transcript if hasattr(e, "action")]

    again = replay("rocket", (1, 3), {1: 20, 3: 50}, cards, decisions, game.options.as_record())

    assert again.settlement == game.settlement()
    assert again.settlement.deltas == {1: 12, 3: -20, "house": 8, "carry": 0}
    assert again.options == {"decks": 8, "start": "button", "previous_button": 3}
    assert again.settlement.result["button"] == 1
    assert again.cards_used == 5


# -- random legal play -----------------------------------------------------------

hands = st.fixed_dictionaries(
    {
        "seats": st.lists(st.integers(1, 9), min_size=1, max_size=6, unique=True).map(sorted),
        "decks": st.integers(1, 8),
        "start": st.sampled_from(["left", "button"]),
        "previous_button": st.none() | st.integers(1, 9),
        "dealt_before": st.floats(0, 1),  # how much of the shoe earlier hands used
    }
)


def shuffled(shoe, rng):
    cards = [rank for rank in RANKS for _ in range(shoe.remaining[rank])]
    rng.shuffle(cards)
    return cards


@settings(max_examples=300, deadline=None)
@given(
    hand=hands, tenths=st.lists(st.integers(1, 100), min_size=6, max_size=6), rng=st.randoms(), data=st.data()
)
def test_random_legal_play_balances_replays_and_never_deals_more_than_the_shoe_holds(hand, tenths, rng, data):
    # given a shoe part dealt by earlier hands, shuffled by hypothesis
    seats = tuple(hand["seats"])
    stakes = {seat: 10 * t for seat, t in zip(seats, tenths, strict=False)}
    options = {k: hand[k] for k in ("decks", "start", "previous_button")}
    order = shuffled(Shoe(hand["decks"]), rng)
    before = Shoe(hand["decks"])
    for rank in order[: int(len(order) * hand["dealt_before"])]:
        before.take(rank)
    game = Rocket(seats, stakes, options, shoe=Shoe(hand["decks"], before.remaining))
    order = shuffled(game.shoe, rng)

    # when every decision is drawn from the legal moves
    fold_prices = {}
    while not game.finished:
        due = game.next
        if isinstance(due, CardDue):
            if not order:  # the shoe ran dry: the dealer reshuffles the discards
                assert game.reshuffles > 0
                order = shuffled(game.shoe, rng)
            game.deal(order.pop())
            continue
        move = data.draw(st.sampled_from(due.moves))
        assert move in (Move.HIT, Move.FOLD)
        with pytest.raises(IllegalAction):
            game.deal(10)  # a card is never taken while a decision is due
        if move is Move.FOLD:
            fold_prices[due.seat] = due.fold_price
        game.act((move.value,))

    # then the money balances and stays within what the bets allow
    settlement = game.settlement()
    assert sum(settlement.deltas.values()) == 0
    assert sum(e.amount for e in settlement.entries) == 0
    for seat in seats:
        assert -stakes[seat] <= settlement.deltas[seat] <= stakes[seat]
        if seat in fold_prices:
            assert settlement.deltas[seat] == -fold_prices[seat]
    assert set(settlement.result["outcome"]) == set(seats)

    # and no rank was dealt more often than the shoe holds: every card stays on the table
    dealt = [e.rank for e in game.transcript if hasattr(e, "rank")]
    assert all(dealt.count(r) <= game.shoe.full[r] for r in RANKS)
    if game.reshuffles == 0:
        assert all(dealt.count(r) <= before.remaining[r] for r in RANKS)

    # and the transcript replays to the same settlement
    decisions = [e.action.as_record() for e in game.transcript if hasattr(e, "action")]
    again = replay(
        "rocket", seats, stakes, dealt, decisions, options, shoe=Shoe(hand["decks"], before.remaining)
    )
    assert again.settlement == settlement
    assert again.transcript == tuple(game.transcript)
    assert again.cards_used == len(dealt)


@settings(max_examples=200, deadline=None)
@given(rng=st.randoms(), players=st.integers(1, 6))
def test_a_hand_ends_only_on_a_dealer_pair_a_dealer_3_or_an_empty_table(rng, players):
    seats = tuple(range(1, players + 1))
    game = Rocket(seats, {s: 10 for s in seats})
    order = shuffled(game.shoe, Random(rng.random()))
    while not game.finished:
        if isinstance(game.next, CardDue):
            game.deal(order.pop())
        else:
            game.act(rng.choice([HIT, FOLD]))

    result = game.settlement().result
    dealer = result["dealer"]
    if result["end"] == "dealer three":
        assert dealer[-1] == 3
    elif result["end"] == "dealer pair":
        assert dealer[-1] in dealer[:-1]
    else:
        assert set(result["outcome"].values()) <= {"folded", "paired"}
    assert len(set(dealer[:-1])) == len(dealer) - 1 and 3 not in dealer[:-1]
