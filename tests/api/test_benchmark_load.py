"""The load benchmark's figures say what its refused requests were told (benchmarks/load.py)."""

from benchmarks.load import Answer, figures


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
