"""The action benchmark says, when the 3x goal is missed, what PostgreSQL's own CPU leaves of it
(benchmarks/actions.py)."""

from benchmarks.actions import table_of_costs

FLOOR = [(0.00067, 0.00019, 1)] * 4  # Django and PostgreSQL CPU seconds, statements: 0.86 ms


def test_a_missed_goal_says_what_an_action_would_cost_with_django_no_costlier_than_the_floor_view():
    # the first run of session 19: an action 5.35 ms of Django CPU and 1.93 ms of PostgreSQL's
    lines = table_of_costs({"card": [(0.00535, 0.00193, 12)] * 4}, FLOOR)

    assert "it costs 8.5x, missed by 2.8x" in lines[-2]
    assert lines[-1].startswith("  in the way: PostgreSQL's own CPU an action (1.93 ms) is 2.2x")
    assert lines[-1].endswith("(0.67 ms), an action would cost 3.0x: it still misses the goal")


def test_a_goal_missed_in_django_alone_says_it_would_meet_it():
    lines = table_of_costs({"card": [(0.00300, 0.00050, 12)] * 4}, FLOOR)

    assert lines[-1].endswith("an action would cost 1.4x: it would meet the goal")


def test_a_goal_met_says_no_more():
    lines = table_of_costs({"card": [(0.00150, 0.00050, 12)] * 4}, FLOOR)

    assert lines[-1].endswith("it costs 2.3x, met")
