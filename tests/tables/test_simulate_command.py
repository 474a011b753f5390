"""`manage.py simulate` prints the simulation figures."""

from __future__ import annotations

import io
import re

import pytest
from django.core.management import CommandError, call_command


def simulate(*args: str) -> str:
    out = io.StringIO()
    call_command("simulate", *args, stdout=out)
    return out.getvalue()


def test_simulate_rocket_prints_the_house_edge_with_its_interval_and_the_speed():
    # when a small seeded Rocket run is simulated on one process
    text = simulate(
        "--game",
        "rocket",
        "--decks",
        "8",
        "--players",
        "3",
        "--hands",
        "3000",
        "--strategy",
        "fold_at_most_2",
        "--seed",
        "7",
        "--workers",
        "1",
    )
    # then it prints the edge per unit bet with a 95% interval, cards per hand and hands per second
    edge = re.search(r"house edge per unit bet (-?[\d.]+)% \+/- ([\d.]+)% \(95% CI\)", text)
    assert edge and 0 < float(edge.group(2)) < 5
    assert re.search(r"cards per hand [\d.]+", text)
    assert re.search(r"[\d,]+ hands/s", text)
    assert "fold_at_most_2" in text and "fast path" in text


def test_a_seeded_run_prints_the_same_edge_on_the_checked_engine():
    args = ("--hands", "400", "--seed", "3", "--workers", "1", "--strategy", "pair_chance")
    fast, checked = simulate(*args), simulate(*args, "--checked")
    pick = re.compile(r"house edge per unit bet .*")
    assert pick.search(fast).group() == pick.search(checked).group()
    assert "checked engine" in checked


def test_the_luck_adjusted_estimate_prints_a_narrower_interval_than_the_real_results():
    text = simulate("--hands", "3000", "--seed", "5", "--workers", "1", "--adjusted", "--strategy", "best")
    adjusted = re.search(r"house edge per unit bet (-?[\d.]+)% \+/- ([\d.]+)%", text)
    plain = re.search(r"unadjusted results of the same hands: (-?[\d.]+)% \+/- ([\d.]+)%", text)
    assert adjusted and plain and float(adjusted.group(2)) * 4 < float(plain.group(2))
    assert "luck-adjusted" in text


@pytest.mark.parametrize("game", ["blackstone", "starboard", "pairs"])
def test_simulate_a_pot_game_prints_the_average_pot(game):
    text = simulate("--game", game, "--players", "4", "--hands", "30", "--seed", "1", "--workers", "1")
    assert re.search(r"average pot per game [\d.]+ \+/- [\d.]+ units", text)


def test_an_unknown_strategy_is_refused():
    with pytest.raises(CommandError, match="Unknown Rocket strategy"):
        simulate("--hands", "10", "--strategy", "yolo", "--workers", "1")


@pytest.mark.parametrize("game", ["hawthorn", "goblin_poker", "monster", "regent", "troll_guts"])
def test_simulate_a_secret_hand_game_prints_pot_length_and_the_house_collection(game):
    text = simulate(
        "--game",
        game,
        "--players",
        "4",
        "--hands",
        "30",
        "--strategy",
        "cautious",
        "--seed",
        "3",
        "--workers",
        "1",
        "--options",
        '{"collection": "fee", "fee": 2}',
    )

    assert re.search(r"average pot per game [\d.]+ \+/- [\d.]+ units", text)
    assert re.search(r"cards per hand [\d.]+, decisions per hand [\d.]+", text)
    collected = re.search(r"house's collection per game ([\d.]+) units", text)
    # a fee of 2 from each of the 4 players dealt into every game
    assert collected and float(collected.group(1)) == 8
