"""The house-edge report: handle, win, hold per group, the theoretical comparison, pot games."""

import math

import pytest

from casino.roles import PIT_MANAGER
from reports.models import Report, TheoreticalEdge, VarianceRules
from reports.periods import days_bounds, today
from reports.selectors import ledger_daily, settled_hands
from reports.services import RocketConfig, theoretical_edge
from reports.services.house_edge import rules_for
from reports.services.win import shift_figures
from tables.models import Game, Hand, Shoe
from tables.services import (
    SignatureGiven,
    approval_decide,
    hand_correct_card,
    hand_start,
    hand_void_request,
    shift_end,
    shift_start,
)
from tables.simulation import Z95
from tests.tables.conftest import card, decide, person, signed_in

from .conftest import (
    ROCKET_BETS,
    ROCKET_HOUSE_WIN,
    key,
    open_table,
    play_out,
    rocket_hands,
    run,
    seat,
    seated,
    settle,
)

pytestmark = pytest.mark.django_db


def house_edge(group="table", **params):
    day = today().isoformat()
    report = run(Report.Kind.HOUSE_EDGE, {"date_from": day, "date_to": day, "group": group, **params})
    assert report.status == Report.Status.DONE, report.error
    return report.result


def test_handle_win_and_hold_are_summed_from_the_hands(rocket, dana):
    # given three hands of bets 20 and 50 that each win the house 12
    rocket_hands(seated(rocket, dana), 3, dana)

    result = house_edge()

    [group] = result["groups"]
    assert (group["label"], group["hands"], group["handle"], group["bets"]) == ("Rocket 1", 3, 210, 6)
    assert group["win"] == 3 * ROCKET_HOUSE_WIN and group["hold"] == pytest.approx(36 / 210)
    assert group["average_bet"] == 35 and group["players"] == -36 and group["balanced"]
    assert group["link"] == f"/pit/tables/{rocket.pk}/"


def test_the_expected_win_and_its_spread_come_from_the_theoretical_edge(rocket, dana):
    rocket_hands(seated(rocket, dana), 3, dana)

    group = house_edge()["groups"][0]

    edge = TheoreticalEdge.objects.get()
    assert edge.config["decks"] == 8 and edge.config["strategy"] == "best"  # the house's default
    assert group["theoretical"] == pytest.approx(edge.edge)
    assert group["expected_win"] == pytest.approx(210 * edge.edge)
    # per hand: s2 x (20^2 + 50^2) + c x (70^2 - 20^2 - 50^2); plus the edge's own uncertainty
    variance = 3 * (edge.seat_variance * 2900 + edge.pair_covariance * 2000)
    theory = edge.half_width / Z95 * 210
    assert group["sd"] == pytest.approx(math.sqrt(variance + theory**2))
    assert group["z"] == pytest.approx((36 - 210 * edge.edge) / group["sd"])
    assert not group["flag"]


def test_a_result_beyond_the_casinos_z_limit_is_flagged(rocket, dana):
    rocket_hands(seated(rocket, dana), 3, dana)
    VarianceRules.objects.create(casino=rocket.pit.casino, z_limit=0.1)

    report = run(
        Report.Kind.HOUSE_EDGE,
        {"date_from": today().isoformat(), "date_to": today().isoformat(), "casino": rocket.pit.casino_id},
    )

    assert report.result["groups"][0]["flag"] and report.result["z_limit"] == 0.1
    assert report.flags == 1


def test_each_rules_configuration_has_its_own_theoretical_edge(pit, pete, rocket, dana):
    button = open_table(pit, pete, Game.ROCKET, "Rocket 2", 10, 500, options={"start": "button"}, decks=6)
    rocket_hands(seated(rocket, dana), 1, dana)
    rocket_hands(seated(button, dana), 1, dana)

    result = house_edge(group="game")

    configs = sorted((e["config"]["decks"], e["config"]["start"]) for e in result["edges"])
    assert configs == [(6, "button"), (8, "left")]
    [rocket_group] = result["groups"]
    edges = {(e.config["decks"], e.config["start"]): e.edge for e in TheoreticalEdge.objects.all()}
    assert rocket_group["expected_win"] == pytest.approx(70 * edges[(8, "left")] + 70 * edges[(6, "button")])


def test_hands_group_by_dealer_shift_and_day(rocket, dana, olga, pete):
    seated(rocket, dana)
    shift_start(user=pete, pit=rocket.pit, by=pete)  # the pit puts dana on Rocket 1
    shift = shift_start(user=dana, table=rocket, by=pete)
    rocket_hands(rocket, 2, dana)
    shift_end(shift=shift, by=pete)
    shift_start(user=olga, table=rocket, by=pete)
    rocket_hands(rocket, 1, olga)

    by_dealer = {g["label"]: g["hands"] for g in house_edge(group="dealer")["groups"]}
    by_shift = house_edge(group="shift")["groups"]
    by_day = house_edge(group="day")["groups"]
    only_dana = house_edge(dealer=dana.pk)["groups"]
    her_shift = house_edge(shift=shift.pk)["groups"]

    assert by_dealer == {"dana": 2, "olga": 1}
    assert sorted(g["hands"] for g in by_shift) == [1, 2]
    assert [(g["label"], g["hands"]) for g in by_day] == [(today().isoformat(), 3)]
    assert only_dana[0]["hands"] == 2 and her_shift[0]["hands"] == 2
    # each shift links to its page on the pit (pete has no admin), listing the hands counted in it
    [dana_group] = [g for g in by_shift if g["hands"] == 2]
    assert dana_group["link"] == f"/pit/shifts/{shift.pk}/"
    page = signed_in(pete).get(dana_group["link"])
    assert page.status_code == 200 and '<dd class="num" id="hands">2</dd>' in page.content.decode()


def test_pot_games_report_pots_rake_and_that_players_sum_to_minus_the_house(pit, pete, dana):
    starboard = open_table(pit, pete, Game.STARBOARD, "Starboard 1", 1, 100, kind=Shoe.Kind.SYSTEM)
    for number in (1, 2, 3):
        seat(starboard, number, 100, dana)
    hand = play_out(hand_start(table=starboard, by=dana, key=key()), dana)

    [group] = house_edge()["groups"]

    pot = sum(amount for party, amount, _ in hand.settlement["entries"] if party == "pot" and amount > 0)
    assert group["pots"] == pot > 0 and group["rake"] == 0 and group["rake_over_pots"] == 0
    assert group["players"] == -(group["win"] + group["carry"]) and group["balanced"]
    assert group["theoretical"] is None and group["z"] is None


def test_the_chart_series_shows_the_cumulative_hold_inside_its_band(rocket, dana):
    rocket_hands(seated(rocket, dana), 2, dana)

    [point] = house_edge()["series"]

    edge = theoretical_edge(config=RocketConfig(decks=8))
    assert point["cumulative_hold"] == pytest.approx(24 / 140)
    assert point["band"][0] < edge.edge < point["band"][1]


def test_the_report_says_how_each_edge_was_found_and_carries_the_best_play_chart(rocket, dana):
    rocket_hands(seated(rocket, dana), 3, dana)

    result = house_edge()

    [edge] = result["edges"]
    assert edge["method"] == TheoreticalEdge.Method.SIMULATED  # the table's shoe is dealt to its cut card
    assert 0 < edge["fresh_edge"] < edge["endless_edge"]
    # the chart: rows of your total, a threshold per dealer's total; a lone low card never folds
    assert result["chart"]["columns"][0] == "1-4"
    label, cells = result["chart"]["rows"][0]
    assert label == "1-4" and cells[0] == 0


def test_a_settled_hand_voided_afterwards_counts_as_voided_as_the_ledger_nets_it(rocket, dana, olga, pete):
    # given dana's shift at Rocket 1: a hand whose mis-keyed card was corrected before it settled, a
    # hand settled and then voided (pete asked, pam approved), and a third hand settled as dealt
    shift_start(user=pete, pit=rocket.pit, by=pete)
    pam = person("pam", PIT_MANAGER)
    shift_start(user=pam, pit=rocket.pit, by=pam)
    shift = shift_start(user=dana, table=rocket, by=pete)
    seated(rocket, dana)
    hand = hand_start(table=rocket, bets=ROCKET_BETS, by=dana, key=key())
    for step in (5, 6, 9, ("hit",), 4, ("fold",), 8):  # the dealer's second 9 keyed an 8
        hand = decide(hand, step, dana) if isinstance(step, tuple) else card(hand, step, dana)
    hand = hand_correct_card(
        hand=hand,
        card_seq=hand.seq,
        rank=9,
        reason="Keyed 8, the card is a 9",
        signer=SignatureGiven("pete", "pete-password"),
        by=dana,
        device="tablet-1",
        expected_seq=hand.seq,
        key=key(),
    )
    corrected = settle(hand, dana)
    reversed_hand, kept = rocket_hands(rocket, 2, dana)
    request = hand_void_request(
        hand=reversed_hand, by=pete, reason="Paid the wrong seat.", expected_seq=reversed_hand.seq, key=key()
    )
    approval_decide(request=request, by=pam, approve=True, key=key())

    [table_group] = house_edge()["groups"]
    [shift_group] = house_edge(group="shift")["groups"]
    [day_group] = house_edge(group="day")["groups"]

    # then each figure is the ledger's: the corrected hand as replayed, the voided one left out
    start, end = days_bounds(today(), today())
    [ledger] = ledger_daily(casino_id=rocket.pit.casino_id, start=start, end=end)
    by_shift = shift_figures(shift, rules_for(rocket.pit.casino_id))
    assert corrected.settlement["deltas"]["house"] == ROCKET_HOUSE_WIN == kept.settlement["deltas"]["house"]
    assert ledger["win"] == by_shift["system_win"] == 2 * ROCKET_HOUSE_WIN
    assert table_group["win"] == shift_group["win"] == day_group["win"] == ledger["win"]
    assert table_group["hands"] == 2 and table_group["handle"] == 2 * sum(ROCKET_BETS.values())
    assert table_group["balanced"]
    reversed_hand.refresh_from_db()
    assert reversed_hand.status == Hand.Status.VOIDED and reversed_hand.settled_at is not None
    assert not settled_hands(start=start, end=end).filter(pk=reversed_hand.pk).exists()
