"""Starboard: the booklet's rules as examples, the house rulings, and random legal play.

Hands are written as the dealer sees them: a number is the card that came out
of the shoe, "draw" and "lock" are the decisions of the player whose turn it is.
"""

from __future__ import annotations

import copy
from collections import Counter

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tables.games import Action, CardDue, DecisionDue, Finished, IllegalAction, Move, Shoe, replay
from tables.games.base import COMMON, CardEvent, DecisionEvent
from tables.games.cards import RANKS, composition
from tables.games.collection import CollectionOptions
from tables.games.starboard import Starboard, StarboardOptions, split_pot

from .strategies import collections, expected_house

DRAW, LOCK = ("draw",), ("lock",)


def play(game: Starboard, *steps: int | str) -> Starboard:
    """Feed cards (ints) and decisions ("draw", "lock") in order."""
    for step in steps:
        if isinstance(step, int):
            game.deal(step)
        else:
            game.act((step,))
    return game


def table(n: int = 3, chips: int = 10, carry: int = 0, **options) -> Starboard:
    """A Starboard game for seats 1..n, each with `chips` in front; the book's examples take no
    collection unless `options` name one."""
    seats = list(range(1, n + 1))
    options = {"collection": "none", **options}
    return Starboard(seats, {s: chips for s in seats}, options=options, carry=carry)


def snapshot(game: Starboard):
    state = {k: v for k, v in vars(game).items() if k != "shoe"}
    return copy.deepcopy(state), list(game.shoe.remaining)


def deltas(game: Starboard) -> dict:
    return dict(game.settlement().deltas)


# -- To Begin ------------------------------------------------------------------


def test_the_house_rules_default_to_the_rulings():
    assert StarboardOptions().as_record() == {
        "ante": 1,
        "draw_fee": None,
        "knockout_on_draw": False,
        "button": None,
        **CollectionOptions().as_record(),
    }
    assert StarboardOptions().collection == "rake"
    options = StarboardOptions()
    assert options.draw_price == 1
    assert StarboardOptions(ante=3).draw_price == 3


def test_each_player_antes_one_coin_into_the_pot():
    game = table(4)
    assert game.pot == 4
    assert game.paid == {1: 1, 2: 1, 3: 1, 4: 1}


def test_the_first_two_cards_start_the_common_hand():
    game = table()
    assert game.next == CardDue(COMMON, "deal")
    play(game, 4)
    assert game.next == CardDue(COMMON, "deal")
    play(game, 9)
    assert game.common == [4, 9]
    assert isinstance(game.next, DecisionDue)


def test_if_the_first_two_cards_are_a_pair_one_is_discarded_and_replaced():
    game = play(table(), 6, 6)
    assert game.next == CardDue(COMMON, "replace")
    assert game.common == [6]
    play(game, 6)  # pairs again: replaced again, until no pair
    assert game.next == CardDue(COMMON, "replace")
    play(game, 2)
    assert game.common == [6, 2]
    assert game.discards == [6, 6]
    assert [e.why for e in game.transcript] == ["deal", "deal", "replace", "replace"]


def test_the_player_with_the_button_acts_first_and_play_passes_left():
    game = Starboard([2, 4, 6], {2: 9, 4: 9, 6: 9}, options={"button": 4})
    play(game, 3, 5)
    turns = []
    for _ in range(4):
        turns.append(game.next.seat)
        play(game, "draw", [7, 8, 9, 10][len(turns) - 1])
    assert turns == [4, 6, 2, 4]


def test_without_a_button_the_first_seat_acts_first():
    game = play(Starboard([3, 5], {3: 5, 5: 5}), 1, 2)
    assert game.next.seat == 3


# -- Draw ----------------------------------------------------------------------


def test_a_draw_pays_one_coin_into_the_pot_and_deals_a_card_to_the_hand():
    game = play(table(), 1, 2, "draw")
    assert game.next == CardDue(COMMON, "draw")
    assert game.pot == 4
    play(game, 3)
    assert game.common == [1, 2, 3]
    assert game.next.seat == 2


def test_a_draw_that_pairs_the_stack_busts_the_drawer_who_drops_out():
    game = play(table(), 5, 7, "draw", 3, "draw", 7)
    assert game.status[2] == "busted"
    assert game.discards == [7]
    assert game.common == [5, 7, 3]  # the paired card is discarded: the hand keeps its size
    # "but the game continues": seat 3 acts, then seat 1; the busted seat 2 is skipped.
    assert game.next.seat == 3
    play(game, "lock")
    assert game.next.seat == 1


def test_the_draw_fee_is_an_option_apart_from_the_ante():
    game = play(table(ante=2, draw_fee=5), 1, 2, "draw", 3)
    assert game.paid == {1: 7, 2: 2, 3: 2}


def test_a_player_who_cannot_pay_the_draw_fee_may_only_lock():
    game = Starboard([1, 2], {1: 3, 2: 1}, options={"ante": 1})
    play(game, 4, 8, "draw", 2)
    assert game.next == DecisionDue(2, (Move.LOCK,))
    before = snapshot(game)
    with pytest.raises(IllegalAction, match="Seat 2 cannot draw now; expected lock"):
        game.act(DRAW)
    assert snapshot(game) == before
    play(game, "lock")
    assert game.lock_counts == {2: 3}


def test_the_last_chips_pay_a_draw_fee_when_they_cover_it():
    game = play(Starboard([1, 2], {1: 2, 2: 2}), 4, 8, "draw", 2)
    assert game.next == DecisionDue(2, (Move.DRAW, Move.LOCK))
    play(game, "draw", 1)
    assert game.next == DecisionDue(1, (Move.LOCK,))


# -- Lock ----------------------------------------------------------------------


def test_a_lock_counts_the_cards_in_the_common_hand():
    game = play(table(), 1, 2, "lock", "draw", 3, "lock")
    assert game.lock_counts == {1: 2, 3: 3}


def test_when_a_player_locks_any_players_who_locked_with_fewer_cards_are_knocked_out():
    game = play(table(), 1, 2, "lock", "draw", 3, "lock")
    assert game.status == {1: "knocked out", 2: "active", 3: "locked"}


def test_a_lock_with_the_same_count_does_not_knock_out():
    game = play(table(), 1, 2, "lock", "lock")
    assert game.status == {1: "locked", 2: "locked", 3: "active"}


def test_by_default_a_draw_that_does_not_pair_knocks_out_nobody():
    game = play(table(), 1, 2, "lock", "draw", 3)
    assert game.status[1] == "locked"
    assert game.options.knockout_on_draw is False


def test_with_knockout_on_draw_a_draw_that_does_not_pair_knocks_out_smaller_locks():
    game = play(table(knockout_on_draw=True), 1, 2, "lock", "draw", 3)
    assert game.status == {1: "knocked out", 2: "active", 3: "active"}


def test_with_knockout_on_draw_a_draw_that_pairs_knocks_out_nobody():
    game = play(table(knockout_on_draw=True), 1, 2, "lock", "draw", 2)
    assert game.status == {1: "locked", 2: "busted", 3: "active"}


def test_both_knockout_readings_settle_the_same_hand_differently():
    """Seat 1 locks on 1-2; seat 2 draws a 3 and, where still asked, draws again and pairs the 3."""
    default = play(table(2), 1, 2, "lock", "draw", 3, "draw", 3)
    on = play(table(2, knockout_on_draw=True), 1, 2, "lock", "draw", 3)
    # Default: seat 1's lock stands until someone locks with more cards; seat 2 busted.
    assert default.settlement().result["winners"] == (1,)
    assert default.settlement().result["auto_lock"] is None
    # Option: the 3 knocked seat 1 out, so seat 2 was left alone and locked at once.
    assert on.settlement().result["winners"] == (2,)
    assert on.settlement().result["auto_lock"] == 2


# -- Ending the game -----------------------------------------------------------


def test_the_only_player_left_locks_automatically():
    game = play(table(3), 5, 7, "draw", 5, "draw", 7)
    assert isinstance(game.next, Finished)
    result = game.settlement().result
    assert result["auto_lock"] == 3
    assert result["lock_counts"] == {3: 2}
    assert result["winners"] == (3,)
    # No lock decision is recorded: the transcript holds only what the dealer keyed.
    assert [e.action.move for e in game.transcript if isinstance(e, DecisionEvent)] == ["draw", "draw"]


def test_the_last_active_player_does_not_lock_automatically_while_a_lock_stands():
    game = play(table(2), 5, 7, "lock")
    assert game.next == DecisionDue(2, (Move.DRAW, Move.LOCK))
    play(game, "draw", 5)  # busts: seat 1's lock takes the pot
    assert game.settlement().result["winners"] == (1,)


def test_a_player_alone_after_knockouts_locks_automatically_with_knockout_on_draw():
    game = play(table(2, knockout_on_draw=True), 5, 7, "lock", "draw", 9)
    assert isinstance(game.next, Finished)
    assert game.settlement().result["auto_lock"] == 2
    assert game.settlement().result["lock_counts"] == {1: 2, 2: 3}


def test_the_game_ends_when_every_player_busts_or_locks():
    game = play(table(3), 5, 7, "lock", "draw", 5, "draw", 2)
    assert game.next == DecisionDue(3, (Move.DRAW, Move.LOCK))
    play(game, "lock")
    assert isinstance(game.next, Finished)


# -- The pot -------------------------------------------------------------------


def test_a_single_winner_takes_the_whole_pot():
    game = play(table(3), 5, 7, "draw", 1, "lock", "draw", 2, "draw", 5, "lock")
    # Pot 6: 3 antes + 3 draws. Seat 1 busted; seat 3 locked at 4 and knocked out seat 2 (3 cards).
    assert game.status == {1: "busted", 2: "knocked out", 3: "locked"}
    assert game.settlement().result["winners"] == (3,)
    assert deltas(game) == {1: -3, 2: -1, 3: 4, "house": 0, "carry": 0}


def test_the_pot_is_split_among_players_who_locked_with_the_highest_number_of_cards():
    # Pot 6: 4 antes + 2 draws; seats 2 and 3 lock at 3, seat 4 busts, seat 1 locks at 3 too.
    game = play(table(4), 5, 7, "draw", 1, "lock", "lock", "draw", 5, "lock")
    assert game.settlement().result["winners"] == (1, 2, 3)
    assert deltas(game) == {1: 0, 2: 1, 3: 1, 4: -2, "house": 0, "carry": 0}


def test_odd_coins_are_left_for_the_next_pot():
    # Pot 5 (3 antes, 2 draws) split between seats 2 and 3: 2 each, 1 left for the next pot.
    game = play(table(3), 5, 7, "draw", 1, "lock", "lock", "draw", 5)
    settlement = game.settlement()
    assert settlement.result["winners"] == (2, 3)
    assert settlement.result["share"] == 2
    assert settlement.carry_out == 1
    assert settlement.deltas["carry"] == 1
    assert sum(settlement.deltas.values()) == 0


def test_a_pot_carried_in_joins_the_pot_and_its_odd_units_carry_again():
    game = play(table(2, carry=3), 5, 7, "lock", "lock")
    settlement = game.settlement()
    assert settlement.result["pot"] == 5
    assert settlement.deltas == {1: 1, 2: 1, "house": 0, "carry": -2}
    assert settlement.carry_out == 1


def test_with_no_player_locked_the_whole_pot_carries():
    """In play the last player left always locks, so this is the split rule by itself."""
    assert split_pot(9, {}) == ((), 0, 9)
    assert split_pot(9, {4: 3, 6: 3}) == ((4, 6), 4, 1)
    assert split_pot(9, {4: 3, 6: 4}) == ((6,), 9, 0)


def test_the_settlement_itemises_antes_draws_shares_and_carry():
    game = play(table(2, carry=1), 5, 7, "draw", 2, "lock", "draw", 9, "lock")
    reasons = Counter(e.reason for e in game.settlement().entries if e.party != "pot")
    assert reasons == {"carried in": 1, "ante": 2, "draw fee": 2, "pot share": 1}


# -- Refusals ------------------------------------------------------------------


def test_a_player_who_cannot_pay_the_ante_cannot_sit_in():
    with pytest.raises(IllegalAction, match="Seat 2 cannot sit in: the ante is 2"):
        Starboard([1, 2], {1: 5, 2: 1}, options={"ante": 2})


@pytest.mark.parametrize("n", [1, 8])
def test_starboard_is_for_two_to_seven_players(n):
    with pytest.raises(IllegalAction, match="2 to 7 players"):
        table(n)


@pytest.mark.parametrize(
    "options, message",
    [
        ({"ante": 0}, "ante must be a whole number"),
        ({"ante": 1.5}, "ante must be a whole number"),
        ({"draw_fee": True}, "draw fee must be a whole number"),
        ({"knockout_on_draw": "yes"}, "knockout_on_draw must be true or false"),
        ({"button": 9}, "button is on seat 9, who is not playing"),
        ({"decks": 2}, "Unknown house rule decks"),
    ],
)
def test_impossible_house_rules_are_refused(options, message):
    with pytest.raises(IllegalAction, match=message):
        table(3, **options)


def test_stakes_must_name_exactly_the_seats_playing():
    with pytest.raises(IllegalAction, match="exactly the seats playing"):
        Starboard([1, 2], {1: 5, 2: 5, 3: 5})


def test_no_game_state_is_taken_from_an_earlier_game():
    with pytest.raises(IllegalAction, match="no game state"):
        Starboard([1, 2], {1: 5, 2: 5}, in_play={1: [3]})


def test_a_decision_while_a_card_is_due_is_refused_and_changes_nothing():
    game = play(table(), 1, 2, "draw")
    before = snapshot(game)
    with pytest.raises(IllegalAction, match=r"the common \(draw\)"):
        game.act(LOCK)
    assert snapshot(game) == before


def test_a_card_while_a_decision_is_due_is_refused_and_changes_nothing():
    game = play(table(), 1, 2)
    before = snapshot(game)
    with pytest.raises(IllegalAction, match="No card is due: the game expects a decision from seat 1"):
        game.deal(5)
    assert snapshot(game) == before


def test_a_rank_the_shoe_cannot_hold_is_refused_and_changes_nothing():
    game = play(table(), 1, 2, "draw")
    before = snapshot(game)
    with pytest.raises(IllegalAction, match="cannot hold another 1"):
        game.deal(1)
    assert snapshot(game) == before


def test_a_draw_with_a_count_is_refused_and_changes_nothing():
    game = play(table(), 1, 2)
    before = snapshot(game)
    with pytest.raises(IllegalAction, match="only draw or lock"):
        game.act(Action(Move.DRAW, count=2))
    assert snapshot(game) == before


def test_a_finished_game_takes_nothing_more():
    game = play(table(2), 5, 7, "lock", "lock")
    before = snapshot(game)
    with pytest.raises(IllegalAction, match="the hand is over"):
        game.deal(3)
    with pytest.raises(IllegalAction, match="the hand is over"):
        game.act(DRAW)
    assert snapshot(game) == before


# -- Replay --------------------------------------------------------------------


def test_a_recorded_hand_replays_to_the_same_settlement_with_its_button():
    game = Starboard([2, 4, 6], {2: 9, 4: 9, 6: 9}, options={"button": 6}, carry=1)
    play(game, 3, 3, 5, "draw", 8, "lock", "draw", 5, "draw", 1, "lock")
    cards = [e.rank for e in game.transcript if isinstance(e, CardEvent)]
    decisions = [e.action.as_record() for e in game.transcript if isinstance(e, DecisionEvent)]
    record = replay("starboard", [2, 4, 6], {2: 9, 4: 9, 6: 9}, cards, decisions, {"button": 6}, carry=1)
    assert record.settlement == game.settlement()
    assert record.options["button"] == 6
    assert record.settlement.result["button"] == 6


# -- Random legal play ---------------------------------------------------------

DECK = [r for r in RANKS for _ in range(r)]


@st.composite
def tables(draw):
    seats = sorted(draw(st.sets(st.integers(1, 9), min_size=2, max_size=7)))
    ante = draw(st.integers(1, 3))
    options = {
        "ante": ante,
        "draw_fee": draw(st.none() | st.integers(1, 3)),
        "knockout_on_draw": draw(st.booleans()),
        "button": draw(st.none() | st.sampled_from(seats)),
        **draw(collections()),
    }
    least = ante + options.get("fee", 0)
    stakes = {s: draw(st.integers(least, least + 8)) for s in seats}
    return seats, stakes, options, draw(st.integers(0, 5))


def play_randomly(data, seats, stakes, options, carry, shoe_order):
    """Play to the end choosing among the legal moves; return the game and every (due, action)."""
    game = Starboard(seats, stakes, options=options, carry=carry)
    cards, decided = iter(shoe_order), []
    while not game.finished:
        due = game.next
        if isinstance(due, CardDue):
            game.deal(next(cards))
        else:
            action = Action(data.draw(st.sampled_from(due.moves)))
            game.act(action)
            decided.append((due, action))
    return game, decided


@settings(max_examples=300, deadline=None)
@given(tables(), st.permutations(DECK), st.data())
def test_random_legal_play_conserves_chips_and_replays_the_same(table_, shoe_order, data):
    seats, stakes, options, carry = table_
    game, decided = play_randomly(data, seats, stakes, options, carry, shoe_order)
    settlement = game.settlement()
    assert sum(settlement.deltas.values()) == 0  # chips are conserved, whatever the house collects
    raked = settlement.result["pot"] if settlement.result["winners"] else 0
    assert settlement.deltas["house"] == expected_house(options, len(seats), raked)
    cards = [e.rank for e in game.transcript if isinstance(e, CardEvent)]
    decisions = [e.action.as_record() for e in game.transcript if isinstance(e, DecisionEvent)]
    record = replay("starboard", seats, stakes, cards, decisions, options, carry)
    assert record.settlement == settlement
    assert record.cards_used == len(cards)
    dealt = Counter(cards)
    assert all(dealt[r] <= composition(1)[r] for r in RANKS)
    for due, action in decided:
        assert action.move in due.moves
    events = [e for e in game.transcript if isinstance(e, DecisionEvent)]
    assert [(e.seat, e.action) for e in events] == [(d.seat, a) for d, a in decided]


@settings(max_examples=300, deadline=None)
@given(tables(), st.permutations(DECK), st.data())
def test_random_legal_play_keeps_table_stakes_and_always_has_a_winner(table_, shoe_order, data):
    seats, stakes, options, carry = table_
    game, _ = play_randomly(data, seats, stakes, options, carry, shoe_order)
    settlement = game.settlement()
    result = settlement.result
    assert len(set(game.common)) == len(game.common)  # the hand never holds a pair
    fee = options.get("fee", 0)
    assert all(game.paid[s] + fee <= stakes[s] for s in seats)
    assert settlement.shortfalls == {}
    # The last player left always locks, so some lock always stands at the end.
    winners = result["winners"]
    assert winners
    assert {result["lock_counts"][w] for w in winners} == {max(result["lock_counts"].values())}
    assert 0 <= settlement.carry_out < len(winners)
    for seat in seats:
        won = result["share"] if seat in winners else 0
        assert settlement.deltas[seat] == won - game.paid[seat] - fee
    assert result["pot"] == carry + sum(game.paid.values())


@settings(max_examples=200, deadline=None)
@given(tables(), st.permutations(DECK), st.data())
def test_an_illegal_step_at_any_point_changes_nothing(table_, shoe_order, data):
    seats, stakes, options, carry = table_
    game = Starboard(seats, stakes, options=options, carry=carry)
    cards = iter(shoe_order)
    while not game.finished:
        due = game.next
        before = snapshot(game)
        with pytest.raises(IllegalAction):
            if isinstance(due, CardDue):
                game.act(data.draw(st.sampled_from([DRAW, LOCK])))
            else:
                game.deal(data.draw(st.sampled_from(RANKS)))
        assert snapshot(game) == before
        if isinstance(due, CardDue):
            game.deal(next(cards))
        else:
            game.act(Action(data.draw(st.sampled_from(due.moves))))


def test_a_short_shoe_refuses_a_rank_it_no_longer_holds():
    remaining = list(composition(1))
    remaining[4] = 0
    game = Starboard([1, 2], {1: 5, 2: 5}, shoe=Shoe(1, remaining))
    with pytest.raises(IllegalAction, match="cannot hold another 4"):
        game.deal(4)
    assert game.common == []
