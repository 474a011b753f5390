"""A hand's setup as one record, and the shoe's own steps: a burn and a recycle."""

import json

import pytest

from tables.games import CardDue, HandSetup, IllegalAction, replay
from tables.games.cards import composition

CONTINUOUS = HandSetup(
    game="pairs",
    seats=(1, 2, 3),
    stakes={1: 4, 2: 0, 3: 7},
    options={"continuous": True, "ending": "downspear", "collection": "rake"},
    carry=2,
    state={"in_play": {1: [5, 9], 2: [], 3: [2]}, "to_act": 2},
    decks=1,
    remaining=(0, 1, 1, 3, 4, 4, 6, 7, 8, 8, 10),
    unseen=3,
)


def test_a_setup_record_is_json_and_reads_back_as_the_same_setup():
    record = json.loads(json.dumps(CONTINUOUS.to_record()))

    assert record == CONTINUOUS.to_record()  # nothing a JSON column would change
    assert record["stakes"] == {"1": 4, "2": 0, "3": 7}
    assert record["state"]["in_play"] == {"1": [5, 9], "2": [], "3": [2]}
    assert HandSetup.from_record(record) == CONTINUOUS


def test_a_pot_games_record_from_before_the_collection_option_reads_as_collecting_nothing():
    record = CONTINUOUS.to_record()
    del record["options"]["collection"]
    assert HandSetup.from_record(record).options["collection"] == "none"
    rocket = HandSetup(game="rocket", seats=(1,), stakes={1: 10}, options={"decks": 6}, decks=6)
    assert HandSetup.from_record(rocket.to_record()).options == {"decks": 6}


def test_a_setup_starts_its_game_from_what_the_shoe_held():
    game = CONTINUOUS.start()

    assert game.stacks == {1: [5, 9], 2: [], 3: [2]}
    assert game.shoe.remaining == list(CONTINUOUS.remaining)
    assert len(game.shoe) == sum(CONTINUOUS.remaining) - 3  # three left face down
    assert game.carry_in == 2 and game.stakes == {1: 4, 2: 0, 3: 7}


def test_a_setup_without_shoe_facts_records_a_full_shoe():
    setup = HandSetup(game="rocket", seats=(1,), stakes={1: 10}, options={"decks": 2}, decks=2)

    assert setup.to_record()["shoe"] == {"decks": 2, "remaining": list(composition(2)), "unseen": 0}


def test_the_documented_replay_takes_a_setup_as_its_arguments():
    setup = HandSetup(game="rocket", seats=(1, 2), stakes={1: 30, 2: 100}, options={"decks": 1})
    # seat 1 gets 2, seat 2 gets 7, dealer 8; seat 1 hits a 2 and pairs (pays 3 x 2); seat 2 hits a 5;
    # the dealer pairs 8s and pays seat 2 ten times 8
    played = replay(cards=[2, 7, 8, 2, 5, 8], decisions=[("hit",), ("hit",)], **setup.arguments())

    assert played.settlement.deltas == {1: -6, 2: 80, "house": -74, "carry": 0}


def test_a_burn_leaves_the_shoe_without_reaching_the_rules():
    game = HandSetup(game="rocket", seats=(1,), stakes={1: 10}, options={"decks": 1}).start()
    due = game.next

    game.burn(4)
    game.burn(None)

    assert game.shoe.remaining[4] == 3 and len(game.shoe) == 55 - 2
    assert game.next == due and game.transcript == []


def test_a_burn_the_shoe_cannot_give_is_refused():
    game = HandSetup(game="rocket", seats=(1,), stakes={1: 10}, options={"decks": 1},
                     remaining=(0, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0)).start()  # fmt: skip

    with pytest.raises(IllegalAction, match="cannot hold another 2"):
        game.burn(2)
    game.burn(None)
    with pytest.raises(IllegalAction, match="no card left to burn"):
        game.burn(None)


def test_a_recycle_refills_the_shoe_with_the_discards():
    game = CONTINUOUS.start()
    discards = [0, 1, 2, 0, 0, 1, 0, 0, 0, 0, 0]

    game.recycle(discards)

    assert game.shoe.remaining == discards and len(game.shoe) == 4
    assert game.next == CardDue("seat", "hit", 2)  # an empty stack must hit
    with pytest.raises(IllegalAction, match="cannot hold another 3"):
        game.deal(3)  # not among the discards
    game.deal(2)


def test_a_recycle_the_shoe_could_not_hold_is_refused_and_changes_nothing():
    game = CONTINUOUS.start()

    with pytest.raises(IllegalAction, match="cannot hold"):
        game.recycle([0, 2, 0, 0, 0, 0, 0, 0, 0, 0, 0])  # one deck has a single 1

    assert game.shoe.remaining == list(CONTINUOUS.remaining) and game.shoe.unseen == 3
