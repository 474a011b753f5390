"""The load benchmark's figures say what its refused requests were told, and its tablets answer a
refusal for a player's chips as a dealer does (benchmarks/load.py)."""

import random

from benchmarks.load import BUY_IN_MORE, Answer, Tablet, figures


def test_the_figures_say_what_each_refusal_was_told_the_most_frequent_first():
    # given a phase with one card answered, three starts refused alike and a settlement refused
    no_chips = {"detail": "Seat 2 has no chips in front: the player buys in or leaves."}
    answers = [
        Answer("card", "a", 201, 0.01, {"hand": 1}),
        *(Answer("start hand", f"s{n}", 400, 0.01, no_chips) for n in range(3)),
        Answer("settle", "b", 409, 0.02, {"detail": "Hand 4 has moved on."}),
    ]

    lines = figures("a phase", answers, 1.0)

    # then the endpoints' lines count the refusals, and the last lines say what they were told
    assert lines[-3].split()[:5] == ["all", "5", "5.0", "4", "0"]
    assert lines[-2:] == [
        f"  refused 3 x start hand (400): {no_chips['detail']}",
        "  refused 1 x settle (409): Hand 4 has moved on.",
    ]


def test_a_tablet_refused_for_a_players_chips_buys_that_player_in_then_starts_again():
    # given a Rocket tablet whose start is refused: seat 2's player has nothing left in front
    tablet = Tablet(table=1, game="rocket", token="t", rng=random.Random(1), sessions=(11, 12, 13))
    label, _, _, key = tablet.next_request()
    refusal = {"detail": "Seat 2 (P2) has 0 units in front; a bet of 10 is more than that."}
    tablet.absorb(Answer(label, key, 400, 0.01, refusal))

    # then the tablet buys seat 2's player in, as a dealer would ask
    label, path, body, key = tablet.next_request()
    assert (label, path, body) == ("buy-in", "/api/seat-sessions/12/buy-in/", {"amount": BUY_IN_MORE})

    # and once the buy-in is answered, starts the hand again
    tablet.absorb(Answer(label, key, 201, 0.01, {}))
    assert tablet.next_request()[0] == "start hand"
