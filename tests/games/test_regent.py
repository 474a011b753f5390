"""Regent: the booklet's rules for two players and for three to six, as written, with the house
rulings; hidden hands and replay.

Each seat's two face-down cards are written in the order dealt; then come the upcards and the
steps: ints are cards from the deck, tuples are decisions ("draw",), ("attack", seat),
("gift", seat, rank), ("fold",), ("see", seat, *ranks).
"""

from __future__ import annotations

import random
from collections import Counter

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tables.games import CardDue, DecisionDue, Finished, HandSetup, IllegalAction, Move, new_game, replay
from tables.games.base import CardEvent
from tables.games.cards import RANKS, Shoe, composition
from tables.simulation import SimShoe

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


def test_a_fresh_deck_every_game_is_a_house_rule_off_by_default():
    assert duel().options.new_deck_each_game is False
    assert duel(new_deck_each_game=True).options.as_record()["new_deck_each_game"] is True
    with pytest.raises(IllegalAction, match="new_deck_each_game is on"):
        duel(new_deck_each_game="yes")


# -- dealing to the bottom of the deck ------------------------------------------------------------
# Booklet: "You can deal to the bottom of the deck, to minimize shuffling, and then recycle the
# discards, exactly as in Pairs." RULINGS: when the deck is empty, shuffle the discards only (the
# burn pile; never a card on the table in the hand, even an out player's), burn, and go on.

BURNED = (10, 9, 8, 7, 6)


def dealt_to_the_bottom(burned=BURNED):
    """Two players after the shuffle's burn: seat 1 holds 1 and 2 under a 4, seat 2 holds 2 and 3
    under a 5; then they draw, turn about, until the shoe is dry (each draw the lowest rank left)."""
    g = new_game("regent", [1, 2], {1: 30, 2: 30}, {"collection": "none"})
    for rank in burned:
        g.burn(rank)
    play(g, 1, 2, 2, 3, 4, 5)
    while len(g.shoe):
        play(g, ("draw",), min(r for r in RANKS if g.shoe.remaining[r]))
    return g


def ranks_of(cards) -> list[int]:
    return [0] + [list(cards).count(rank) for rank in RANKS]


def test_a_deck_dealt_to_its_bottom_still_offers_draw_and_attack_while_there_are_discards():
    g = dealt_to_the_bottom()

    assert len(g.shoe) == 0 and g.discards == len(BURNED)
    assert g.next.moves == (Move.DRAW, Move.ATTACK, Move.GIFT, Move.FOLD, Move.SEE)


def test_the_discards_refill_the_dry_deck_and_a_draw_and_an_attack_go_on_from_them():
    g = dealt_to_the_bottom()
    seat = g.turn

    # the dealer shuffles the burn pile, burns all but the card due, and deals it
    play(g, ("draw",))
    g.recycle(ranks_of(BURNED))
    for rank in (10, 9, 8, 7):
        g.burn(rank)
    with pytest.raises(IllegalAction, match="cannot hold another 1"):
        g.deal(1)  # every 1 is on the table: the recycled deck holds only the burn pile
    play(g, 6)

    assert 6 in g.hands[seat].known and g.discards == 4
    play(g, ("attack", seat))  # the next player attacks with a card of the 4 burned
    g.recycle(ranks_of((10, 9, 8, 7)))
    for rank in (10, 9, 8):
        g.burn(rank)
    play(g, 7)
    assert g.stacks[seat][-1] == 7


def test_with_no_discards_a_dry_deck_offers_only_gift_fold_and_see():
    g = dealt_to_the_bottom(burned=())

    assert len(g.shoe) == 0 and g.discards == 0
    assert g.next.moves == (Move.GIFT, Move.FOLD, Move.SEE)
    with pytest.raises(IllegalAction, match="cannot draw"):
        g.act(("draw",))


def test_a_physical_recycle_counts_the_hidden_hands_out_of_the_deck_but_keeps_their_ranks_possible():
    # At a physical table nobody saw the burn nor the face-down cards: the recycled deck is the
    # burn pile, whose ranks are unknown, so every rank not seen face up stays possible.
    g = new_game("regent", [1, 2], {1: 30, 2: 30}, {"collection": "none"})
    for _ in BURNED:
        g.burn(None)
    play(g, None, None, None, None, 4, 5)
    while len(g.shoe):
        play(g, ("draw",), None)
    hidden = len(g.hands[1]) + len(g.hands[2])
    possible = list(composition(1))
    possible[4] -= 1
    possible[5] -= 1

    play(g, ("draw",))
    g.recycle(possible, hidden)

    assert len(g.shoe) == len(BURNED) and g.discards == 0
    for _ in range(4):
        g.burn(None)
    play(g, None)
    seat = g.turn
    play(g, ("gift", 3 - seat, 10))  # a hidden card revealed: still off the deck
    assert len(g.shoe) == 0 and g.discards == 4
    assert g.next.moves[:2] == (Move.DRAW, Move.ATTACK)


def play_to_the_end(seats: int, burn: int, seed: int):
    """A Regent game from a shuffled deck burned `burn`, players drawing nine times in ten; the
    dry deck refilled from its discards as the dealer does. Return the game and every step."""
    rng = random.Random(seed)
    shoe = SimShoe(1, rng, burn=burn, penetration=None)
    players = list(range(1, seats + 1))
    g = new_game("regent", players, dict.fromkeys(players, 500), {"collection": "none"})
    steps = [("burn", rank) for rank in shoe.discards]
    for _, rank in steps:
        g.burn(rank)
    while not g.finished:
        due = g.next
        if isinstance(due, DecisionDue):
            draw = ("draw",) in due.choices and rng.random() < 0.9
            steps.append(("act", ("draw",) if draw else rng.choice(due.choices)))
        elif shoe.pos == len(shoe.order):
            shoe.refill()
            steps.append(("recycle", [0] + [shoe.order.count(rank) for rank in RANKS]))
            steps += [("burn", rank) for rank in shoe.discards]
            for kind, step in steps[-1 - len(shoe.discards):]:
                g.recycle(step) if kind == "recycle" else g.burn(step)
            continue
        else:
            steps.append(("card", shoe.draw()))
        kind, step = steps[-1]
        g.act(step) if kind == "act" else g.deal(step)
    return g, steps


@settings(max_examples=30, deadline=None)
@given(seats=st.integers(2, 6), burn=st.integers(0, 10), seed=st.integers(0, 2**32 - 1))
def test_a_recycled_deck_never_deals_a_card_twice_and_the_game_replays_from_its_steps(seats, burn, seed):
    g, steps = play_to_the_end(seats, burn, seed)

    on_table = Counter(e.rank for e in g.transcript if isinstance(e, CardEvent))
    assert all(on_table[rank] <= rank for rank in RANKS)  # a Pairs deck holds rank r r times
    again = new_game("regent", g.seats, g.stakes, {"collection": "none"})
    for kind, step in steps:
        {"burn": again.burn, "recycle": again.recycle, "card": again.deal, "act": again.act}[kind](step)
    assert again.settlement() == g.settlement() and again.transcript == g.transcript


# -- games dealt on from one deck ------------------------------------------------------------------
# The booklet's setting up (shuffle, burn five) is done once: each game is dealt on from the deck the
# game before left, its setup recording what the shoe held (tables.services.hands: `_shoe_held`).


def deal_on(seats: int, burn: int, seed: int, games: int):
    """`games` Regent games from one shuffled deck burned `burn` (no cut card), each started from
    the shoe the one before left, as a table's hand setup records it; a dry deck refilled with its
    discards (the earlier games' cards and the burns) as the dealer does. Return each game's setup,
    game and steps, and every card that left the deck in order (a refill as its ("recycle", ranks))."""
    rng = random.Random(seed)
    deck = SimShoe(1, rng, burn=burn, penetration=None)
    players = list(range(1, seats + 1))
    held = Shoe()
    for rank in deck.discards:
        held.take(rank)
    out: list = list(deck.discards)
    played = []
    for _ in range(games):
        assert held.remaining == ranks_of(deck.order[deck.pos :])  # the setup holds what the deck holds
        setup = HandSetup("regent", tuple(players), dict.fromkeys(players, 500), {"collection": "none"},
                          remaining=tuple(held.remaining), unseen=held.unseen)
        g, steps = setup.start(), []  # no `deck.begin_hand()`: at its bottom it would shuffle a new deck
        while not g.finished:
            due = g.next
            if isinstance(due, DecisionDue):
                draw = ("draw",) in due.choices and rng.random() < 0.9
                steps.append(("act", ("draw",) if draw else rng.choice(due.choices)))
                g.act(steps[-1][1])
            elif deck.pos == len(deck.order):
                deck.refill()
                steps.append(("recycle", ranks_of(deck.order)))
                steps += [("burn", rank) for rank in deck.discards]
                out += [steps[-1 - len(deck.discards)], *deck.discards]
                for kind, step in steps[-1 - len(deck.discards):]:
                    g.recycle(step) if kind == "recycle" else g.burn(step)
            else:
                steps.append(("card", deck.draw()))
                out.append(steps[-1][1])
                g.deal(steps[-1][1])
        deck.end_hand()
        played.append((setup, g, steps))
        held = g.shoe
    return played, out


@settings(max_examples=25, deadline=None)
@given(seats=st.integers(2, 6), burn=st.integers(0, 10), seed=st.integers(0, 2**32 - 1))
def test_games_dealt_on_from_one_deck_never_deal_a_card_twice_and_each_replay_from_its_setup(
    seats, burn, seed
):
    played, out = deal_on(seats, burn, seed, games=4)

    # between two shuffles (the first, then each refill) no rank leaves the deck more often than
    # the deck held it: no card is dealt twice, however many games it serves
    deck, dealt = list(composition(1)), Counter()
    for card in out:
        if isinstance(card, tuple):
            deck, dealt = card[1], Counter()
        else:
            dealt[card] += 1
            assert dealt[card] <= deck[card]
    for setup, g, steps in played:
        again = HandSetup.from_record(setup.to_record()).start()
        for kind, step in steps:
            {"burn": again.burn, "recycle": again.recycle, "card": again.deal, "act": again.act}[kind](step)
        assert again.settlement() == g.settlement() and again.transcript == g.transcript
        assert again.shoe.remaining == g.shoe.remaining and again.shoe.unseen == g.shoe.unseen
