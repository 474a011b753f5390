"""Simulated shoes, strategies and the runner (tables/simulation.py; no Django needed)."""

from __future__ import annotations

import random
from collections import Counter
from dataclasses import replace

import pytest

from tables.games import IllegalAction
from tables.games.cards import RANKS
from tables.games.rocket_exact import fresh_shoe
from tables.simulation import (
    BURN,
    RunSpec,
    ShoeExhausted,
    SimShoe,
    always_hit,
    clustered_estimate,
    estimate,
    fold_at_most,
    pair_chance,
    points_chunk,
    rocket_strategy,
    run,
    secret_hands_chunk,
)


def mask(*ranks: int) -> int:
    return sum(1 << r for r in ranks)


def test_a_fresh_shoe_burns_five_and_places_the_cut_card_at_eighty_percent_burn_included():
    shoe = SimShoe(8, random.Random(1))
    assert shoe.pos == BURN and shoe.discards == shoe.order[:BURN]
    assert shoe.cut == 352  # 0.8 x 55 x 8
    assert Counter(shoe.order) == Counter({r: 8 * r for r in RANKS})


def test_the_shoe_is_reshuffled_before_the_hand_after_the_cut_card_came_out():
    shoe = SimShoe(1, random.Random(2))
    shoe.begin_hand()
    while shoe.pos < shoe.cut:
        shoe.draw()
    shoe.draw()  # the hand goes on past the cut card
    shoe.end_hand()
    assert shoe.shuffles == 1
    shoe.begin_hand()
    assert shoe.shuffles == 2 and shoe.pos == BURN


def test_a_shoe_dry_mid_hand_reshuffles_only_the_discards():
    # given a one-deck shoe with no cut card, most of it dealt in earlier hands
    shoe = SimShoe(1, random.Random(3), penetration=None)
    shoe.begin_hand()
    for _ in range(40):
        shoe.draw()
    shoe.end_hand()
    shoe.begin_hand()
    # when one hand takes the last 10 cards and then 15 more
    on_table = [shoe.draw() for _ in range(25)]
    # then the refill held only earlier hands' cards and the burn: never this hand's first ten
    assert shoe.refills == 1
    everything = Counter(on_table) + Counter(shoe.order[: shoe.pos - 15]) + Counter(shoe.order[shoe.pos :])
    assert everything == Counter({r: r for r in RANKS})
    cards = shoe.end_hand()
    assert Counter(cards) == Counter(on_table)


def test_held_cards_stay_out_of_the_discards_until_released():
    shoe = SimShoe(1, random.Random(4), penetration=None)
    shoe.begin_hand()
    dealt = [shoe.draw() for _ in range(3)]
    shoe.end_hand(held=dealt[:1])
    assert Counter(shoe.discards) == Counter(shoe.order[:BURN] + dealt[1:])
    shoe.begin_hand()
    shoe.end_hand(held=[])
    assert Counter(shoe.discards) == Counter(shoe.order[:BURN] + dealt)


def test_put_back_cards_are_shuffled_into_the_undealt_part_without_a_burn():
    # given a hand that has been dealt a 10
    shoe = SimShoe(1, random.Random(5), penetration=None)
    shoe.begin_hand()
    dealt = [shoe.draw()]
    while dealt[-1] != 10:
        dealt.append(shoe.draw())
    pos = shoe.pos
    # when the game puts the 10 back
    shoe.put_back([10])
    # then it is among the undealt cards, nothing was burned, and the hand no longer holds it
    assert shoe.pos == pos
    assert shoe.order[pos:].count(10) == 10 - shoe.order[:pos].count(10) + 1
    assert Counter(shoe.end_hand()) == Counter(dealt) - Counter([10])


def test_the_named_strategies_decide_from_the_two_stacks():
    assert not always_hit(mask(10, 9), mask(1))
    assert fold_at_most(2)(mask(5), mask(2)) and not fold_at_most(2)(mask(5), mask(4))
    assert rocket_strategy("fold_at_most_2")(mask(5), mask(2))
    assert rocket_strategy("fold_at_most_2") is rocket_strategy("fold_at_most_2")  # its tables are cached
    # holding 10 and 9 a hit pairs 19 times in 55: more than the 2-tenth fold price's share
    assert pair_chance(mask(10, 9), mask(2)) and not pair_chance(mask(1), mask(5))
    with pytest.raises(IllegalAction):
        rocket_strategy("fold_at_most_11")
    with pytest.raises(IllegalAction):
        rocket_strategy("yolo")


def test_the_fast_path_and_the_checked_engine_give_the_same_figures_from_one_seed():
    spec = RunSpec(hands=1500, players=4, seed=11, workers=1, strategy="pair_chance", decks=2)
    for options in ({}, {"start": "button"}):
        fast = run(replace(spec, options=options)).tally
        checked = run(replace(spec, options=options, checked=True)).tally
        assert replace(checked, decisions=0) == fast


def test_a_seeded_run_gives_the_same_figures_with_any_number_of_workers(monkeypatch):
    monkeypatch.setattr("tables.simulation.CHUNK_HANDS", 500)
    spec = RunSpec(hands=2100, seed="audit", strategy="fold_at_most_1")
    assert run(replace(spec, workers=1)).tally == run(replace(spec, workers=2)).tally


def test_an_unseeded_run_uses_the_system_random_shuffler():
    report = run(RunSpec(hands=200, workers=1))
    assert report.tally.hands == 200 and report.tally.cards > 200 * 4


@pytest.mark.parametrize(
    "game, options",
    [
        ("blackstone", {}),
        ("starboard", {"knockout_on_draw": True}),
        ("pairs", {}),
        ("pairs", {"continuous": True, "ending": "portland"}),
        (
            "pairs",
            {"pieces_of_eight": True, "calamities": True, "ending": "cutchfeld", "five_card_catch": True},
        ),
    ],
)
@pytest.mark.parametrize("strategy", ["random", "cautious"])
def test_pot_games_run_through_the_checked_engine(game, options, strategy):
    report = run(
        RunSpec(game=game, players=4, hands=60, seed=1, workers=1, strategy=strategy, options=options)
    )
    assert report.tally.games == 60 and report.tally.hands >= 60
    assert report.tally.cards > 0 and report.tally.decisions > 0
    assert any("average pot" in line for line in report.lines())


def test_the_report_gives_the_edge_per_unit_bet_with_its_interval():
    report = run(RunSpec(hands=4000, seed=2, workers=1))
    text = "\n".join(report.lines())
    assert "house edge per unit bet" in text and "hands/s" in text
    edge = report.edge_per_unit
    assert 0 < edge.half_width < 0.05 and -0.1 < edge.mean < 0.2


def test_estimate_is_the_mean_with_a_normal_95_percent_half_width():
    est = estimate(total=10.0, total_sq=30.0, n=10)
    assert est.mean == 1.0
    assert est.half_width == pytest.approx(1.959964 * (20 / 9 / 10) ** 0.5, rel=1e-5)


def test_the_clustered_estimate_is_the_ratio_of_totals_with_the_spread_of_the_shoes():
    # given three shoes of 2, 3 and 5 hands whose house totals are 4, 3 and 13 (20 in 10 hands)
    shoes = [(2, 4), (3, 3), (5, 13)]
    sums = [sum(y * y for _, y in shoes), sum(y * n for n, y in shoes), sum(n * n for n, _ in shoes)]
    est = clustered_estimate(20, 10, 3, *sums)
    # then the mean is 2 a hand and the variance that of y_s - 2 n_s = 0, -3, 3 over 10 hands
    assert est.mean == 2.0
    assert est.half_width == pytest.approx(1.959964 * (18 * 3 / 2 / 100) ** 0.5, rel=1e-5)


def test_about_95_percent_of_the_shoe_clustered_intervals_contain_the_exact_edge():
    # given an 8-deck shoe dealt to the bottom with no cut card: every hand of it, whatever came
    # out before, is worth exactly a fresh shoe's first hand to a player who does not count
    exact = fresh_shoe(8, "always_hit", always_hit).edge
    spec = RunSpec(players=1, hands=2000, decks=8, penetration=None, adjusted=True, workers=1)
    # when 200 seeded luck-adjusted runs each state their 95% interval
    reports = [run(replace(spec, seed=f"coverage:{i}")) for i in range(200)]
    covered = sum(abs(r.edge_per_unit.mean - exact) <= r.edge_per_unit.half_width for r in reports)
    naive = sum(abs(r.naive_edge_per_unit.mean - exact) <= r.naive_edge_per_unit.half_width for r in reports)
    # then between 182 and 197 contain it (a binomial 200 x 0.95 lands there 99% of the time)
    assert 182 <= covered <= 197
    # while intervals that take the hands of a shoe as independent miss it far more often
    assert naive < 182


def test_bad_runs_are_refused_with_a_sentence():
    with pytest.raises(IllegalAction, match="Unknown game"):
        run(RunSpec(game="poker"))
    with pytest.raises(IllegalAction, match="strategy"):
        run(RunSpec(game="starboard", strategy="always_hit"))


def test_a_hand_that_wants_a_card_when_every_card_is_on_the_table_or_held_is_abandoned():
    # given a one-deck shoe whose every card is held out or on the table this hand
    shoe = SimShoe(1, random.Random(6), burn=0, penetration=None)
    shoe.begin_hand()
    held = [shoe.draw() for _ in range(30)]
    shoe.end_hand(held=held)
    shoe.begin_hand()
    for _ in range(25):
        shoe.draw()
    # when one more card is wanted, then the shoe says it is exhausted
    with pytest.raises(ShoeExhausted):
        shoe.draw()
    # and abandoning the hand gathers every card for a fresh shuffle
    shoe.abandon()
    assert Counter(shoe.order) == Counter({r: r for r in RANKS}) and shoe.held == []


@pytest.mark.parametrize("game", ["hawthorn", "goblin_poker", "monster", "regent", "troll_guts"])
@pytest.mark.parametrize("strategy", ["random", "cautious"])
def test_the_secret_hand_games_run_with_named_strategies_and_report_the_house(game, strategy):
    options = {"rake_percent": 10}
    report = run(
        RunSpec(game=game, players=4, hands=40, seed=2, workers=1, strategy=strategy, options=options)
    )

    assert report.tally.games == 40 and report.tally.decisions > 0
    # the pot is raked at 10%, capped at 10: the house's collection is that of each game's pot
    assert 0 < report.tally.house <= report.tally.pot // 10
    lines = "\n".join(report.lines())
    assert "average pot" in lines and "decisions per hand" in lines and "house's collection" in lines


@pytest.mark.parametrize(
    "game, players",
    [("port", 4), ("pickup", 3), ("pickup", 6), ("five_cards", 2), ("venture", 5), ("kitty", 4)]
    + [("sweep", 3)],
)
@pytest.mark.parametrize("strategy", ["random", "cautious"])
def test_the_points_games_play_whole_games_and_report_length_spread_and_the_first_seat(
    game, players, strategy
):
    report = run(RunSpec(game=game, players=players, hands=30, seed=3, workers=1, strategy=strategy))

    tally = report.tally
    assert tally.games == 30 and tally.hands >= 30 and tally.house == 0  # no money moves
    assert 0 <= tally.first_wins <= 30 and tally.spread >= 0
    if game == "pickup":  # one deal a game, the whole deck: hands of 6 or 5, five-card pools
        assert tally.hands == 30 and tally.cards == 30 * (players * 6 + 30 if players == 3 else 55)
    lines = "\n".join(report.lines())
    assert "rounds per game" in lines and "score spread" in lines and "first seat" in lines


def shoe_log(monkeypatch) -> list:
    """What every simulated shoe does, in order: each card it deals (its rank), "shuffle",
    "refill" (dry: its discards shuffled again) and "end_hand" after each game or round."""
    log: list = []

    def logged(name, entry):
        method = getattr(SimShoe, name)

        def logging(self, *args, **kwargs):
            result = method(self, *args, **kwargs)
            log.append(entry(result))
            return result

        monkeypatch.setattr(SimShoe, name, logging)

    logged("draw", lambda rank: rank)
    for name in ("shuffle", "refill", "end_hand"):
        logged(name, lambda _, name=name: name)
    return log


def split(log: list, at: tuple[str, ...]) -> list[list]:
    parts: list[list] = [[]]
    for entry in log:
        if entry in at:
            parts.append([])
        parts[-1].append(entry)
    return parts


def ranks_within_the_deck(log: list) -> bool:
    """No rank dealt more often than one deck holds it between two shuffles or recycles."""
    for deck in split(log, ("shuffle", "refill")):
        dealt = Counter(entry for entry in deck if isinstance(entry, int))
        if any(dealt[rank] > rank for rank in RANKS):
            return False
    return True


def test_regent_deals_game_after_game_on_from_one_deck_recycling_it_when_dry(monkeypatch):
    log = shoe_log(monkeypatch)

    secret_hands_chunk(RunSpec(game="regent", players=4, hands=40, seed=7, strategy="cautious"), 0, 40)

    # one shuffle (the deck's first): the games deal on, and a dry deck recycles its discards
    assert log.count("end_hand") == 40 and log.count("shuffle") == 1 and log.count("refill") >= 1
    assert max(deck.count("end_hand") for deck in split(log, ("shuffle", "refill"))) >= 2
    assert ranks_within_the_deck(log)


def test_regent_with_a_new_deck_each_game_shuffles_a_fresh_deck_for_every_game(monkeypatch):
    log = shoe_log(monkeypatch)
    options = {"new_deck_each_game": True}

    secret_hands_chunk(RunSpec(game="regent", players=4, hands=40, seed=7, options=options), 0, 40)

    games = split(log, ("end_hand",))[:-1]
    assert len(games) == 40 and all(game[game[0] == "end_hand"] == "shuffle" for game in games)
    assert ranks_within_the_deck(log)


@pytest.mark.parametrize("fresh", [False, True])
def test_port_deals_its_rounds_on_from_one_deck_unless_its_house_rule_asks_for_a_fresh_one(fresh):
    spec = RunSpec(game="port", players=4, hands=10, seed=3, options={"new_deck_each_round": fresh})

    tally = points_chunk(spec, 0, 10)

    # the shoe's first shuffle, then one for every round (tally.hands) or none: dealt on
    assert tally.shuffles == 1 + (tally.hands if fresh else 0)
