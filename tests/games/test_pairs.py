"""Pairs: the booklet's hands as examples, the house rulings, the variants, and random legal play.

Hands are written as the dealer sees them: a number is the card that came out
of the shoe, "hit", "fold" and "eight" are the decisions of the player whose
turn it is, and ("fold", seat, rank) is a fold that names the card it takes.
The booklet's five players Angie, Bob, Carlos, Delia and Echo sit in seats 1 to 5.
"""

from __future__ import annotations

import copy

import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from tables.games import Action, CardDue, DecisionDue, Finished, IllegalAction, Move, Shoe, replay
from tables.games.base import SEAT
from tables.games.cards import RANKS, composition
from tables.games.collection import CollectionOptions
from tables.games.pairs import MAX_PLAYERS, MIN_PLAYERS, Pairs, PairsOptions, calamities_low, losing_score
from tables.games.pairs_endings import ENDINGS

from .strategies import collections

ANGIE, BOB, CARLOS, DELIA, ECHO = 1, 2, 3, 4, 5
HIT_OR_FOLD = (Move.HIT, Move.FOLD)
# Whole-game tests shuffle the discards back in between hands once fewer cards than this are left,
# so that no hand runs the shoe dry (a mid-hand reshuffle is the table's business, not the engine's).
RESHUFFLE_BELOW = 40


def play(game: Pairs, *steps: int | str | tuple) -> Pairs:
    """Feed cards (ints) and decisions ("hit", "fold", "eight" or a tuple) in order."""
    for step in steps:
        if isinstance(step, int):
            game.deal(step)
        else:
            game.act(step if isinstance(step, tuple) else (step,))
    return game


def table(n: int = 5, scores: dict[int, int] | None = None, **options) -> Pairs:
    """A Pairs hand for seats 1..n, everyone at 0 points unless `scores` says otherwise; the book's
    examples take no collection unless `options` name one."""
    seats = list(range(1, n + 1))
    return Pairs(seats, scores or dict.fromkeys(seats, 0), options={"collection": "none", **options})


def resume(in_play: dict[int, list[int]], to_act: int, scores=None, **options) -> Pairs:
    """A Continuous Pairs hand picked up between scoring events."""
    seats = sorted(in_play)
    return Pairs(seats, scores or dict.fromkeys(seats, 0), options={"continuous": True, **options},
                 in_play=in_play, to_act=to_act)


def snapshot(game: Pairs):
    """Everything the hand holds, the low-card contest opened up so copies compare equal."""
    state = {k: v for k, v in vars(game).items() if k not in ("shoe", "contest")}
    contest = vars(game.contest) if game.contest is not None else None
    return copy.deepcopy((state, contest)), list(game.shoe.remaining)


def result(game: Pairs) -> dict:
    return dict(game.settlement().result)


# -- Target scores --------------------------------------------------------------


@pytest.mark.parametrize("players, target", [(2, 31), (3, 21), (4, 16), (5, 13), (6, 11), (7, 11), (8, 11)])
def test_the_losing_score_depends_on_the_number_of_players(players, target):
    assert losing_score(players) == target
    assert table(players).target == target


def test_a_house_losing_score_replaces_the_chart():
    assert table(4, target=21).target == 21


def test_in_a_four_player_game_the_loser_is_the_first_player_to_score_16():
    # given Angie at 11 points, Bob at 15: one more pair of 5s puts Angie on 16
    game = table(4, {1: 11, 2: 15, 3: 3, 4: 0})
    # when she starts with the low 5 and catches another
    play(game, 5, 6, 9, 8, "hit", 5)
    # then the game is over and she lost it
    outcome = result(game)
    assert outcome["scores"] == {1: 16, 2: 15, 3: 3, 4: 0}
    assert outcome["game_over"] is True
    assert outcome["loser"] == ANGIE


def test_scoring_short_of_the_losing_score_does_not_end_the_game():
    game = play(table(4, {1: 10, 2: 15, 3: 3, 4: 0}), 5, 6, 9, 8, "hit", 5)

    assert result(game)["scores"][ANGIE] == 15
    assert result(game)["game_over"] is False
    assert result(game)["loser"] is None


# -- Starting the hand ------------------------------------------------------------


def test_one_card_goes_face_up_to_each_player_in_seat_order():
    game = table()
    seen = []
    for card in (7, 10, 10, 6, 9):
        seen.append(game.next)
        game.deal(card)

    assert seen == [CardDue(SEAT, "deal", seat) for seat in (ANGIE, BOB, CARLOS, DELIA, ECHO)]
    assert game.stacks == {1: [7], 2: [10], 3: [10], 4: [6], 5: [9]}


def test_delia_has_the_lowest_card_a_6_and_takes_the_first_turn():
    game = play(table(), 7, 10, 10, 6, 9)

    assert game.starter == DELIA
    assert game.next == DecisionDue(DELIA, HIT_OR_FOLD, fold_cards=((DELIA, 6),))


def test_a_tie_for_low_is_broken_by_dealing_more_cards_to_the_tied_players_b_goes_first():
    # the booklet's table: A 10, B 4 then 8, C 4 then 9, D 10, E 7
    game = play(table(), 10, 4, 4, 10)
    play(game, 7)
    assert game.next == CardDue(SEAT, "tiebreak", BOB)
    play(game, 8)
    assert game.next == CardDue(SEAT, "tiebreak", CARLOS)
    play(game, 9)

    assert game.stacks == {1: [10], 2: [4, 8], 3: [4, 9], 4: [10], 5: [7]}
    assert game.next == DecisionDue(BOB, HIT_OR_FOLD, fold_cards=((BOB, 4), (CARLOS, 4)))


def test_tie_breakers_are_dealt_again_while_the_tie_breakers_tie():
    game = play(table(3), 3, 3, 3, 5, 5, 6)
    assert game.next == CardDue(SEAT, "tiebreak", ANGIE)
    play(game, 4, 9)

    assert game.starter == ANGIE
    assert game.stacks == {1: [3, 5, 4], 2: [3, 5, 9], 3: [3, 6]}


def test_a_tie_break_card_that_pairs_is_discarded_and_replaced_again_and_again():
    game = play(table(2), 4, 4, 4)
    assert game.next == CardDue(SEAT, "replace", ANGIE)
    play(game, 4)
    assert game.next == CardDue(SEAT, "replace", ANGIE)
    play(game, 9, 2)

    # nobody is out on the deal: both 4s went to the discards, Bob's 2 breaks the tie
    assert game.stacks == {1: [4, 9], 2: [4, 2]}
    assert game.discards == [4, 4]
    assert game.starter == BOB
    assert [event.why for event in game.transcript] == ["deal", "deal", "tiebreak", "replace", "replace",
                                                        "tiebreak"]


# -- The five-player example --------------------------------------------------------


def test_the_booklet_example_delia_hits_echo_angie_and_bob_hit_and_carlos_folds_for_echos_3():
    # given the deal A 7, B 10, C 10, D 6, E 9
    game = play(table(), 7, 10, 10, 6, 9)
    # Delia hits and catches an 8
    play(game, "hit", 8)
    # Echo could fold for 6 points, but hits and catches a 3
    assert game.next == DecisionDue(ECHO, HIT_OR_FOLD, fold_cards=((DELIA, 6),))
    play(game, "hit", 3)
    # Angie could now fold for 3 points, since Echo has a 3; she hits a 9
    assert game.next.fold_cards == ((ECHO, 3),)
    play(game, "hit", 9)
    # Bob could fold for 3; he hits a 5
    assert game.next.seat == BOB
    play(game, "hit", 5)
    # Carlos folds rather than risk pairing his 10, and takes the 3
    assert game.next == DecisionDue(CARLOS, HIT_OR_FOLD, fold_cards=((ECHO, 3),))
    play(game, "fold")

    # then Carlos keeps Echo's 3 for three points and every other card is discarded
    outcome = result(game)
    assert (outcome["event"], outcome["scorer"], outcome["points"]) == ("fold", CARLOS, 3)
    assert (outcome["card"], outcome["taken_from"]) == (3, ECHO)
    assert outcome["scores"] == {1: 0, 2: 0, 3: 3, 4: 0, 5: 0}
    assert outcome["target"] == 13 and outcome["game_over"] is False
    assert sorted(game.discards) == [5, 6, 7, 8, 9, 9, 10, 10]
    assert game.stacks == {seat: [] for seat in range(1, 6)}
    assert game.settlement().deltas == {1: 0, 2: 0, 3: 0, 4: 0, 5: 0, "house": 0, "carry": 0}


def test_had_carlos_hit_and_paired_his_10_he_would_score_10_instead_of_3():
    game = play(table(), 7, 10, 10, 6, 9, "hit", 8, "hit", 3, "hit", 9, "hit", 5, "hit", 10)

    assert (result(game)["event"], result(game)["scorer"], result(game)["points"]) == ("pair", CARLOS, 10)


def test_a_pair_ends_the_hand_the_player_keeps_one_card_and_the_rest_are_discarded():
    game = play(table(3), 8, 5, 9, "hit", 8, "hit", 9)  # Bob starts on a 5 and hits an 8; Carlos pairs 9s

    outcome = result(game)
    assert (outcome["event"], outcome["scorer"], outcome["points"], outcome["card"]) == ("pair", 3, 9, 9)
    assert sorted(game.discards) == [5, 8, 8, 9]
    assert isinstance(game.next, Finished)


def test_a_basic_fold_may_name_the_lowest_card_it_takes():
    game = play(table(), 7, 10, 10, 6, 9, "hit", 8, "hit", 3, "hit", 9, "hit", 5, ("fold", ECHO, 3))

    assert (result(game)["scorer"], result(game)["points"], result(game)["taken_from"]) == (CARLOS, 3, ECHO)


def test_a_basic_fold_cannot_take_any_card_but_the_lowest():
    game = play(table(), 7, 10, 10, 6, 9)
    before = snapshot(game)

    with pytest.raises(IllegalAction, match=r"A fold takes the lowest card in play; \(5, 9\) is not one of"):
        game.act(("fold", ECHO, 9))

    assert snapshot(game) == before


def test_a_fold_with_the_lowest_card_in_two_stacks_takes_the_folders_own():
    game = play(table(3), 4, 4, 9, 6, 8, "fold")  # Angie's 4-6 beats Bob's 4-8; she folds for 4

    assert (result(game)["points"], result(game)["taken_from"]) == (4, ANGIE)


# -- Refusals ---------------------------------------------------------------------


def test_a_card_keyed_when_a_decision_is_due_is_refused_and_nothing_changes():
    game = play(table(), 7, 10, 10, 6, 9)
    before = snapshot(game)

    with pytest.raises(IllegalAction, match=r"No card is due: the game expects a decision from seat 4"):
        game.deal(3)

    assert snapshot(game) == before


def test_a_decision_when_a_card_is_due_is_refused_and_nothing_changes():
    game = play(table(), 7, 10)
    before = snapshot(game)

    with pytest.raises(IllegalAction, match=r"the game expects a card for seat 3 \(deal\)"):
        game.act(("hit",))

    assert snapshot(game) == before


def test_a_rank_the_shoe_cannot_hold_is_refused():
    game = play(table(), 1, 7, 10, 10, 6, "hit")

    with pytest.raises(IllegalAction, match="cannot hold another 1"):
        game.deal(1)

    assert game.next == CardDue(SEAT, "hit", ANGIE)


@pytest.mark.parametrize("decision, message", [
    (("eight",), "Pieces of Eight is not played at this table"),
    (("take", 2), "cannot take now"),
    (Action(Move.HIT, card=(5, 9)), "Pairs has no decision"),
])
def test_a_decision_pairs_does_not_know_is_refused_and_nothing_changes(decision, message):
    game = play(table(), 7, 10, 10, 6, 9)
    before = snapshot(game)

    with pytest.raises(IllegalAction, match=message):
        game.act(decision)

    assert snapshot(game) == before


def test_nothing_is_accepted_once_the_hand_is_over():
    game = play(table(3), 8, 5, 9, "fold")

    with pytest.raises(IllegalAction, match="the hand is over"):
        game.deal(2)
    with pytest.raises(IllegalAction, match="the hand is over"):
        game.act(("hit",))


@pytest.mark.parametrize("seats, scores, message", [
    ([1], {1: 0}, "2 to 8 players, not 1"),
    (list(range(1, 10)), dict.fromkeys(range(1, 10), 0), "2 to 8 players, not 9"),
    ([1, 2], {1: 0}, "Every seat needs its score"),
    ([1, 2], {1: 0, 2: -1}, "whole number of points"),
    ([1, 2], {1: 0, 2: 31}, "already has 31 points"),
])
def test_a_table_that_cannot_play_a_hand_is_refused(seats, scores, message):
    with pytest.raises(IllegalAction, match=message):
        Pairs(seats, scores)


def test_a_carried_pot_must_be_whole_units():
    with pytest.raises(IllegalAction, match="carried pot must be a whole number"):
        Pairs([1, 2], {1: 0, 2: 0}, carry=-1)


@pytest.mark.parametrize("options, message", [
    ({"target": 0}, "losing score"),
    ({"ending": "reno"}, "Unknown ending 'reno'"),
    ({"tacoma_amount": 0}, "Tacoma amount"),
    ({"five_card_catch": True}, "only with the cutchfeld ending"),
    ({"continuous": "yes"}, "on \\(True\\) or off"),
    ({"decks": 9}, "1 to 8 decks"),
    ({"button": 1}, "Unknown house rule button"),
])
def test_impossible_house_rules_are_refused(options, message):
    with pytest.raises(IllegalAction, match=message):
        table(3, **options)


def test_the_default_house_rules_are_the_rulings():
    assert PairsOptions().as_record() == {
        "target": None, "ending": "forfeit", "tacoma_amount": 6, "five_card_catch": False,
        "continuous": False, "pieces_of_eight": False, "calamities": False, "decks": 1,
        **CollectionOptions().as_record(),
    }


# -- Five Card Catch ----------------------------------------------------------------


def test_five_cards_in_a_stack_win_the_game_at_once_and_everyone_else_pays_their_score():
    # given a Cutchfeld table with Five Card Catch; Angie starts on the low 1
    game = table(3, {1: 4, 2: 7, 3: 2}, ending="cutchfeld", five_card_catch=True)
    play(game, 1, 2, 3)
    # when everybody hits clean until Angie holds five cards
    play(game, "hit", 4, "hit", 5, "hit", 6, "hit", 7, "hit", 8, "hit", 9, "hit", 10, "hit", 3, "hit", 2)
    assert game.stacks[ANGIE] == [1, 4, 7, 10]
    play(game, "hit", 5)

    # then Angie wins the game: Bob pays his 7 and Carlos his 2
    outcome = result(game)
    assert (outcome["event"], outcome["five_card_winner"], outcome["loser"]) == ("five_card_catch", 1, None)
    assert outcome["game_over"] is True and outcome["scorer"] is None and outcome["points"] == 0
    assert outcome["scores"] == {1: 4, 2: 7, 3: 2}
    assert game.settlement().deltas == {1: 9, 2: -7, 3: -2, "house": 0, "carry": 0}


def test_the_fifth_card_may_come_in_a_tie_break():
    game = Pairs([1, 2], {1: 3, 2: 5}, options={"ending": "cutchfeld", "five_card_catch": True})
    play(game, 5, 5, 6, 6, 7, 7, 8, 8)
    play(game, 9)  # Angie's fifth card: she wins before Bob's tie-breaker comes

    assert result(game)["five_card_winner"] == ANGIE
    assert game.settlement().deltas == {1: 5, 2: -5, "house": 0, "carry": 0}


def test_a_fifth_card_that_pairs_loses_the_hand_instead():
    game = table(3, ending="cutchfeld", five_card_catch=True)
    play(game, 1, 2, 3, "hit", 4, "hit", 5, "hit", 6, "hit", 7, "hit", 8, "hit", 9, "hit", 10, "hit", 3,
         "hit", 2, "hit", 7)

    assert (result(game)["event"], result(game)["scorer"], result(game)["points"]) == ("pair", ANGIE, 7)
    assert result(game)["five_card_winner"] is None


def test_without_five_card_catch_a_fifth_card_changes_nothing():
    game = table(3, ending="cutchfeld")
    play(game, 1, 2, 3, "hit", 4, "hit", 5, "hit", 6, "hit", 7, "hit", 8, "hit", 9, "hit", 10, "hit", 3,
         "hit", 2, "hit", 5)

    assert game.stacks[ANGIE] == [1, 4, 7, 10, 5]
    assert game.next.seat == BOB


# -- Continuous Pairs -----------------------------------------------------------------


def test_continuous_starts_with_the_usual_deal_and_only_the_out_players_stack_is_discarded():
    game = table(3, continuous=True)
    play(game, 8, 5, 9, "hit", 8, "hit", 9)  # Carlos pairs his 9s

    outcome = result(game)
    assert (outcome["scorer"], outcome["points"]) == (CARLOS, 9)
    assert outcome["in_play"] == {1: [8], 2: [5, 8], 3: []}
    assert outcome["next_to_act"] == ANGIE  # play passes to the left of the out player
    assert game.discards == [9]


def test_continuous_fold_taking_your_own_3_leaves_the_4_in_play():
    # given: your lowest card is a 3, the lowest among the others a 4, all other cards 7 or higher
    game = resume({1: [3, 9], 2: [4, 7], 3: [8, 10]}, to_act=1)
    # when you fold by taking your own 3
    play(game, ("fold", 1, 3))
    # then you score 3 and the 4 stays in play for the next player to fold on
    outcome = result(game)
    assert (outcome["scorer"], outcome["points"], outcome["taken_from"]) == (1, 3, 1)
    assert outcome["in_play"] == {1: [], 2: [4, 7], 3: [8, 10]}
    following = resume(outcome["in_play"], outcome["next_to_act"], outcome["scores"])
    assert following.next == DecisionDue(2, HIT_OR_FOLD, fold_cards=((2, 4), (2, 7), (3, 8), (3, 10)))


def test_continuous_fold_taking_the_others_4_removes_both_and_leaves_7_the_cheapest_fold():
    game = resume({1: [3, 9], 2: [4, 7], 3: [8, 10]}, to_act=1)
    play(game, ("fold", 2, 4))

    outcome = result(game)
    assert (outcome["scorer"], outcome["points"], outcome["taken_from"]) == (1, 4, 2)
    assert outcome["in_play"] == {1: [], 2: [7], 3: [8, 10]}
    assert sorted(game.discards) == [3, 9]
    following = resume(outcome["in_play"], outcome["next_to_act"], outcome["scores"])
    assert min(rank for _, rank in following.next.fold_cards) == 7


def test_a_continuous_fold_may_take_any_card_in_play_but_must_say_which():
    game = resume({1: [3, 9], 2: [4, 7]}, to_act=2)
    assert game.next.fold_cards == ((1, 3), (1, 9), (2, 4), (2, 7))

    with pytest.raises(IllegalAction, match=r"must say which card the fold takes, as \('fold', seat, rank\)"):
        game.act(("fold",))
    with pytest.raises(IllegalAction, match="A fold takes any card in play; \\(1, 5\\) is not one of"):
        game.act(("fold", 1, 5))
    play(game, ("fold", 1, 9))
    assert result(game)["points"] == 9


def test_in_continuous_a_player_with_no_cards_must_hit():
    game = resume({1: [], 2: [4, 7]}, to_act=1)

    assert game.next == CardDue(SEAT, "hit", 1)
    play(game, 6)
    assert game.next == DecisionDue(2, HIT_OR_FOLD, fold_cards=((1, 6), (2, 4), (2, 7)))


def test_continuous_hands_chain_from_scoring_event_to_scoring_event():
    first = play(table(2, continuous=True), 3, 6, "hit", 9, "hit", 6)  # Bob pairs 6s
    out = result(first)
    second = Pairs([1, 2], out["scores"], options={"continuous": True}, carry=first.settlement().carry_out,
                   shoe=first.shoe, in_play=out["in_play"], to_act=out["next_to_act"])

    assert out["next_to_act"] == ANGIE
    assert second.stacks == {1: [3, 9], 2: []}
    play(second, "hit", 5, 2)  # Angie hits a 5; Bob, empty, is dealt a 2 without being asked
    assert second.next == DecisionDue(ANGIE, HIT_OR_FOLD, fold_cards=((1, 3), (1, 5), (1, 9), (2, 2)))


@pytest.mark.parametrize("kwargs, message", [
    ({"options": {}, "in_play": {1: [3]}, "to_act": 1}, "Only Continuous Pairs keeps cards in play"),
    ({"in_play": {1: [3]}}, "needs the cards in play and the seat to act"),
    ({"in_play": {1: [3, 3]}, "to_act": 1}, "holds a pair"),
    ({"in_play": {7: [3]}, "to_act": 1}, "seat 7, who is not at this table"),
    ({"in_play": {1: [1], 2: [1]}, "to_act": 1}, "cannot hold another 1"),
])
def test_cards_in_play_that_cannot_be_are_refused(kwargs, message):
    kwargs = {"options": {"continuous": True}, **kwargs}
    with pytest.raises(IllegalAction, match=message):
        Pairs([1, 2], {1: 0, 2: 0}, **kwargs)


def test_cards_in_play_come_out_of_the_default_shoe_and_must_be_out_of_a_given_one():
    game = resume({1: [1], 2: [2, 3]}, to_act=1)
    assert game.shoe.remaining[1:4] == [0, 1, 2]

    with pytest.raises(IllegalAction, match="1 card\\(s\\) of rank 1 are in play but the shoe still holds 1"):
        Pairs([1, 2], {1: 0, 2: 0}, options={"continuous": True}, shoe=Shoe(1), in_play={1: [1]}, to_act=2)


# -- Pieces of Eight ---------------------------------------------------------------


def test_a_player_holding_an_8_may_discard_it_and_take_two_cards():
    game = play(table(3, pieces_of_eight=True), 2, 8, 9, "hit", 6)  # Angie starts on the 2
    assert game.next == DecisionDue(BOB, (Move.HIT, Move.FOLD, Move.EIGHT), fold_cards=((1, 2),))
    play(game, "eight")
    assert game.next == CardDue(SEAT, "eight", BOB)
    play(game, 4)
    assert game.next == CardDue(SEAT, "eight", BOB)
    play(game, 5)

    assert game.stacks[BOB] == [4, 5]
    assert game.discards == [8]
    assert game.next.seat == CARLOS


def test_pieces_of_eight_if_the_first_card_pairs_the_second_is_not_dealt():
    game = play(table(3, pieces_of_eight=True), 2, 3, 9, "hit", 8, "hit", 4, "hit", 7, "eight", 2)

    assert (result(game)["event"], result(game)["scorer"], result(game)["points"]) == ("pair", ANGIE, 2)
    assert isinstance(game.next, Finished)


def test_in_continuous_pieces_of_eight_stops_at_a_first_card_pair_and_play_passes_on():
    game = resume({1: [3, 8], 2: [5]}, to_act=1, pieces_of_eight=True)
    play(game, "eight", 3)

    assert result(game)["in_play"] == {1: [], 2: [5]}
    assert result(game)["next_to_act"] == BOB
    assert game.discards == [8, 3]


def test_pieces_of_eight_the_two_cards_may_pair_each_other():
    game = play(table(2, pieces_of_eight=True), 8, 9, "eight", 6, 6)

    assert (result(game)["scorer"], result(game)["points"]) == (ANGIE, 6)


def test_a_player_without_an_8_cannot_trade_one():
    game = play(table(3, pieces_of_eight=True), 2, 3, 9)

    with pytest.raises(IllegalAction, match="cannot trade an 8: seat 1 holds no 8"):
        game.act(("eight",))


# -- Calamities ---------------------------------------------------------------------


def test_calamities_7s_are_lower_than_1s_when_determining_who_goes_first():
    assert play(table(2, calamities=True), 1, 7).starter == BOB
    assert play(table(2), 1, 7).starter == ANGIE
    assert sorted(range(1, 11), key=calamities_low)[:2] == [7, 1]


def test_calamities_tie_breakers_follow_the_same_order():
    game = play(table(3, calamities=True), 2, 2, 5, 1, 7)  # Angie's 1 against Bob's 7

    assert game.starter == BOB


def test_calamities_a_7_tie_breaker_that_pairs_is_replaced_like_any_other():
    game = play(table(3, calamities=True), 7, 7, 1, 5, 7)
    assert game.next == CardDue(SEAT, "replace", BOB)
    play(game, 6)

    assert game.starter == ANGIE


def test_calamities_a_player_who_receives_a_7_takes_the_next_turn_too():
    game = play(table(3, calamities=True), 7, 2, 3, "hit", 5)
    assert game.next.seat == BOB
    play(game, "hit", 7)
    assert game.next.seat == BOB  # the turn stays on Bob
    play(game, "hit", 9)

    assert game.next.seat == CARLOS


def test_calamities_in_basic_pairs_a_7_that_pairs_ends_the_hand():
    game = play(table(2, calamities=True), 7, 2, "hit", 7)

    assert (result(game)["scorer"], result(game)["points"]) == (ANGIE, 7)


def test_calamities_in_continuous_a_7_that_pairs_discards_the_stack_and_the_player_is_dealt_again_at_once():
    game = resume({1: [7, 4], 2: [5]}, to_act=1, calamities=True)
    play(game, "hit", 7)

    outcome = result(game)
    assert (outcome["scorer"], outcome["points"], outcome["next_to_act"]) == (1, 7, 1)
    following = resume(outcome["in_play"], outcome["next_to_act"], outcome["scores"], calamities=True)
    assert following.next == CardDue(SEAT, "hit", 1)  # no cards: dealt again without being asked


# -- Random legal play ------------------------------------------------------------


@st.composite
def tables(draw, continuous: bool | None = None):
    """A table of 2 to 8 seats with random house rules and scores going in."""
    players = draw(st.integers(MIN_PLAYERS, MAX_PLAYERS))
    seats = sorted(draw(st.sets(st.integers(1, 12), min_size=players, max_size=players)))
    ending = draw(st.sampled_from(ENDINGS))
    options = {
        "ending": ending,
        "five_card_catch": ending == "cutchfeld" and draw(st.booleans()),
        "continuous": draw(st.booleans()) if continuous is None else continuous,
        "pieces_of_eight": draw(st.booleans()),
        "calamities": draw(st.booleans()),
        "target": draw(st.none() | st.integers(1, 40)),
        "tacoma_amount": draw(st.integers(1, 12)),
        "decks": draw(st.integers(1, 3)),
        **draw(collections()),
    }
    target = options["target"] or losing_score(players)
    stakes = {seat: draw(st.integers(0, target - 1)) for seat in seats}
    return seats, stakes, options, draw(st.integers(0, 5))


def shoe_order(data, shoe: Shoe) -> list[int]:
    """The shoe's cards in an order hypothesis shuffles."""
    cards = [rank for rank in RANKS for _ in range(shoe.remaining[rank])]
    return list(data.draw(st.permutations(cards)))


def play_out(game: Pairs, pile: list[int], data) -> tuple[list[int], list[tuple]]:
    """Play the hand to its end: cards from the top of `pile`, decisions chosen among the legal ones."""
    cards, decisions = [], []
    while not game.finished:
        due = game.next
        if isinstance(due, CardDue):
            assume(pile)  # a hand that empties the shoe needs a mid-hand reshuffle; not drawn here
            cards.append(pile.pop())
            game.deal(cards[-1])
            continue
        move = data.draw(st.sampled_from(due.moves))
        named = move is Move.FOLD and (game.options.continuous or data.draw(st.booleans()))
        decision = ("fold", *data.draw(st.sampled_from(due.fold_cards))) if named else (move.value,)
        assert Action.parse(decision).move in due.moves
        game.act(decision)
        decisions.append(decision)
    return cards, decisions


def card_counts(game: Pairs, scored: list[int]) -> list[int]:
    """Cards of each rank accounted for: in the shoe, in play, discarded or kept for score."""
    held = [rank for stack in game.stacks.values() for rank in stack] + game.discards + scored
    return [game.shoe.remaining[rank] + held.count(rank) for rank in RANKS]


def first_round_fee(options: dict, scores: dict[int, int]) -> int:
    """What each player pays the house on this round: the fee, on a fee table's first round of a
    game (nothing scored going in)."""
    return options.get("fee", 0) if options["collection"] == "fee" and not any(scores.values()) else 0


def round_money(seats, fee: int) -> dict:
    """The deltas of a round that does not end the game: each player's fee to the house, if any."""
    return {**dict.fromkeys(seats, -fee), "house": fee * len(seats), "carry": 0}


@settings(max_examples=400, deadline=None)
@given(tables(), st.data())
def test_random_legal_play_balances_and_replays_the_same(table_, data):
    seats, stakes, options, carry = table_
    game = Pairs(seats, stakes, options=options, carry=carry)

    cards, decisions = play_out(game, shoe_order(data, game.shoe), data)

    settlement = game.settlement()
    assert sum(settlement.deltas.values()) == 0  # chips are conserved, whatever the house collects
    assert settlement.deltas["house"] >= first_round_fee(options, stakes) * len(seats)
    assert all(cards.count(rank) <= composition(options["decks"])[rank] for rank in RANKS)
    record = replay("pairs", seats, stakes, cards, decisions, options, carry)
    assert record.settlement == settlement
    assert record.transcript == tuple(game.transcript)
    outcome = settlement.result
    if not outcome["game_over"]:
        assert settlement.deltas == round_money(seats, first_round_fee(options, stakes))
        assert settlement.carry_out == carry
    scorer = outcome["scorer"]
    if scorer is not None:
        assert outcome["scores"] == {**stakes, scorer: stakes[scorer] + outcome["points"]}
    kept = [outcome["card"]] if outcome["card"] is not None else []
    assert card_counts(game, kept) == list(composition(options["decks"])[1:])


@settings(max_examples=150, deadline=None)
@given(tables(), st.data())
def test_whole_games_hand_after_hand_move_money_only_at_the_end(table_, data):
    seats, stakes, options, carry = table_
    shoe, scored, discards = Shoe(options["decks"]), [], []
    state: dict = {}
    pile = shoe_order(data, shoe)
    for _hand in range(200):
        if len(pile) < RESHUFFLE_BELOW:
            # between hands the dealer shuffles the discards back (never cards in play or kept for score)
            for rank in discards:
                shoe.put_back(rank)
            pile, discards = shoe_order(data, shoe), []
        before = list(shoe.remaining)
        game = Pairs(seats, stakes, options=options, carry=carry, shoe=shoe, **state)
        cards, decisions = play_out(game, pile, data)
        settlement = game.settlement()
        record = replay("pairs", seats, stakes, cards, decisions, options, carry,
                        shoe=Shoe(options["decks"], before), **state)
        assert record.settlement == settlement
        outcome = settlement.result
        discards += game.discards
        scored += [outcome["card"]] if outcome["card"] is not None else []
        assert all(shoe.remaining[r] + discards.count(r) + scored.count(r)
                   + sum(stack.count(r) for stack in game.stacks.values()) == shoe.full[r] for r in RANKS)
        if outcome["game_over"]:
            assert sum(settlement.deltas.values()) == 0
            return
        assert settlement.deltas == round_money(seats, first_round_fee(options, stakes))
        stakes, carry = outcome["scores"], settlement.carry_out
        if options["continuous"]:
            state = {"in_play": outcome["in_play"], "to_act": outcome["next_to_act"]}
    raise AssertionError("the game never ended")


@settings(max_examples=200, deadline=None)
@given(tables(), st.data())
def test_refused_cards_and_decisions_leave_the_hand_as_it_was(table_, data):
    seats, stakes, options, carry = table_
    game = Pairs(seats, stakes, options=options, carry=carry)
    pile = shoe_order(data, game.shoe)
    while not game.finished:
        due, before = game.next, snapshot(game)
        with pytest.raises(IllegalAction):
            if isinstance(due, CardDue):
                wrong = data.draw(st.sampled_from([("hit",), ("fold",), ("eight",)]))
                game.act(wrong)
            elif data.draw(st.booleans()):
                game.deal(data.draw(st.sampled_from(RANKS)))
            else:
                game.act(data.draw(st.sampled_from(
                    [("take", 1), ("draw",), ("lock",), ("fold", seats[0], 11)]
                    + [("eight",)] * (Move.EIGHT not in due.moves))))
        assert snapshot(game) == before
        if isinstance(due, CardDue):
            assume(pile)
            game.deal(pile.pop())
        else:
            game.act((data.draw(st.sampled_from(due.moves)).value,) if not options["continuous"]
                     else ("fold", *due.fold_cards[0]))
