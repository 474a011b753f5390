"""The round-trip benchmark prints, per pause, the first round trip's CPU and each further one's
(benchmarks/round_trips.py)."""

from benchmarks.round_trips import table


def test_each_pause_is_a_line_of_the_first_round_trip_and_each_further_one():
    lines = table({0.0: (0.075, 0.071), 10.0: (0.286, 0.030)})

    assert lines[0].split() == ["pause", "ms", "first", "round", "trip", "ms", "each", "further", "ms"]
    assert lines[1].split() == ["0", "0.075", "0.071"]
    assert lines[2].split() == ["10", "0.286", "0.030"]
