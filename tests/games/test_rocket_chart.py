"""The best-play chart: a grid a floor person reads, and what playing it costs against the best play."""

from __future__ import annotations

import pytest

from tables.games.rocket_chart import best_play_chart
from tables.games.rocket_edge import build_tables, tables_for
from tables.simulation import rocket_strategy


def stack(*ranks: int) -> int:
    return sum(1 << r for r in ranks)


@pytest.fixture(scope="module")
def chart():
    return best_play_chart()


def test_the_chart_reads_as_the_best_play_on_the_plain_cases(chart):
    # a lone 10 against a dealer 1: the 1-tenth fold beats a 10/55 chance of paying 10
    assert chart.fold(stack(10), stack(1))
    # a lone 1 always hits: its row (totals 1-4) says 0 everywhere
    label, cells = chart.grid()["rows"][0]
    assert label == "1-4" and set(cells) - {None} == {0}
    assert not chart.fold(stack(1), stack(2, 5, 9))


def test_playing_the_chart_costs_little_against_the_best_play_and_beats_every_other_strategy(chart):
    best = tables_for("best", None).edge
    edge = build_tables(chart.fold).edge
    assert best < edge < best + 0.002
    for name in ("always_hit", "fold_at_most_1", "pair_cost", "pair_chance"):
        assert edge < tables_for(name, rocket_strategy(name)).edge


def test_the_grid_has_a_label_for_every_column_and_a_threshold_or_blank_per_cell(chart):
    grid = chart.grid()
    assert all(len(cells) == len(grid["columns"]) for _, cells in grid["rows"])
    assert all(k is None or 0 <= k <= 10 for _, cells in grid["rows"] for k in cells)
