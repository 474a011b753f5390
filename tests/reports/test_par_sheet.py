"""Par sheets: the figures against independent checks, the page that never computes, the task that
fills it in, who may see it, the printable sheet and the CSV."""

import csv
import io
import itertools
import math
import threading
from collections import Counter

import pytest

from reports.models import ParSheet
from reports.services.dispatch import in_thread
from reports.services.par_figures import distribution_figures, pot_run, rocket_payments
from reports.services.par_sheet import (
    collection_modes,
    par_sheet_request,
    par_sheet_rows,
    par_sheet_run,
    seat_verdict,
    table_configuration,
)
from tables.games.collection import CollectionOptions
from tables.games.replay import games
from tables.games.rocket_exact import fresh_shoe, solve
from tables.games.rocket_fast import play_hand
from tables.models import Game
from tables.services import shift_start
from tables.simulation import RunSpec, rocket_strategy, run
from tests.floor import new_table
from tests.tables.conftest import deal_at, open_table

ROCKET_HANDS = 2_000  # full-table hands through the shoe in these tests
POT_GAMES = 300  # pot games per run in these tests: one chunk, as `tables.simulation` plays it


@pytest.fixture(autouse=True)
def small_sheets(settings):
    settings.PAR_SHEET_ROCKET_HANDS = ROCKET_HANDS
    settings.PAR_SHEET_GAMES = POT_GAMES


@pytest.fixture
def one_deck(pit, pete):
    """A one-deck Rocket table (the exact solve of one deck is the quickest)."""
    return open_table(pit, pete, Game.ROCKET, "Rocket single", 10, 500, decks=1)


def computed(table):
    return par_sheet_run(sheet_id=par_sheet_request(table=table).pk)


# -- Rocket's figures ---------------------------------------------------------------------------


def test_the_payments_of_a_small_shoe_match_every_deal_order_played_out():
    # given a shoe small enough to deal in every order: two 1s, two 2s, a 3 and three 4s
    counts = [0, 2, 2, 1, 3]
    values = solve(counts)  # the composition's own best play
    # when every order of the eight cards is played by the fast path
    cards = [rank for rank, n in enumerate(counts) for _ in range(n)]
    seen = Counter(
        play_hand({1: 10}, order, values.fold).deltas[1] for order in itertools.permutations(cards)
    )
    orders = sum(seen.values())
    # then the forward pass gives each result's probability exactly as often as it happens
    outcomes = rocket_payments(values)["outcomes"]
    assert set(outcomes) == set(seen)
    for tenths, p in outcomes.items():
        assert p == pytest.approx(seen[tenths] / orders, abs=1e-12)


def test_rocket_payments_sum_to_one_and_their_mean_is_minus_the_exact_edge():
    values = fresh_shoe(1, "best", rocket_strategy("best"))
    payments = rocket_payments(values)
    figures = distribution_figures(payments["outcomes"])

    assert sum(p for _, p in figures["payments"]) == pytest.approx(1, abs=1e-12)
    assert figures["mean"] == pytest.approx(-values.edge, abs=1e-12)
    assert figures["win"] + figures["push"] + figures["loss"] == pytest.approx(1, abs=1e-12)
    assert figures["push"] == 0  # every Rocket result moves money: a fold pays its lowest card
    assert 0 < payments["fold_rate"] < figures["loss"]


def test_the_standard_deviation_is_the_spread_of_the_payments():
    payments = rocket_payments(fresh_shoe(1, "best", rocket_strategy("best")))["outcomes"]
    figures = distribution_figures(payments)
    square = sum(p * (tenths / 10) ** 2 for tenths, p in payments.items())

    assert figures["sd"] == pytest.approx(math.sqrt(square - figures["mean"] ** 2), rel=1e-12)
    assert figures["sd"] == pytest.approx(0.705, abs=0.001)  # one unit bet moves about 0.7 units


def test_a_rocket_sheet_states_which_figures_are_exact_and_which_simulated(one_deck):
    sheet = computed(one_deck)
    f = sheet.figures

    assert sheet.status == ParSheet.Status.DONE
    exact = fresh_shoe(1, "best", rocket_strategy("best")).edge
    assert f["fresh_edge"] == {"value": pytest.approx(exact, abs=1e-12), "method": "exact"}
    # a one-deck shoe dealt to its cut card at 0.8: the edge as dealt is simulated, with its interval
    assert f["edge"]["method"] == "simulated" and f["edge"]["half_width"] > 0
    assert f["mean"]["value"] == pytest.approx(-exact, abs=1e-12)
    assert f["cards_mean"]["method"] == "simulated" and f["cards_mean"]["half_width"] > 0
    assert f["cards_tail"]["p95"] <= f["cards_tail"]["p99"] <= f["cards_max"]
    assert 0 <= f["dry_share"]["value"] == f["dry_hands"] / f["hands"]
    assert f["hands"] == ROCKET_HANDS
    # and the sheet reads as the floor speaks: "loses 1.0 x the bet", never a bare "-1.0"
    rows = {row["name"]: row for row in par_sheet_rows(sheet)}
    assert rows["loses 1.0 x the bet"]["method"] == "exact"
    assert rows["wins 0.3 x the bet"]["value"].endswith("%")  # the dealer's 3 pays 3 tenths


def test_cards_per_hand_agree_with_the_simulation_of_tables(one_deck):
    f = computed(one_deck).figures
    report = run(RunSpec(players=6, hands=20_000, decks=1, seed="check", workers=1, strategy="best"))

    gap = abs(f["cards_mean"]["value"] - report.cards_per_hand)
    assert gap < f["cards_mean"]["half_width"] + 0.3  # two seeded estimates of one mean


# -- pot games' figures -------------------------------------------------------------------------


def options_of(game, **given):
    return games()[game].Options.build(given)


def test_collection_none_is_nothing_and_a_fee_is_the_fee_times_the_players():
    rake = {"value": 1.5, "method": "simulated", "half_width": 0.1}
    options = CollectionOptions(collection="fee", fee=2, time_fee=5, time_minutes=30)

    modes = collection_modes(options, 4, rake, games_per_hour=30)

    assert modes["none"]["game"]["value"] == 0 and modes["none"]["hour"]["value"] == 0
    assert modes["fee"]["game"] == {"value": 8, "method": "exact"}  # 2 units from each of 4 players
    assert modes["fee"]["hour"]["value"] == 8 * 30
    assert modes["time"]["hour"] == {"value": 5 * 4 * 2, "method": "exact"}  # two periods an hour
    assert modes["time"]["game"]["value"] == pytest.approx(40 / 30)
    assert modes["rake"]["game"] == rake
    assert modes["rake"]["hour"] == {"value": 45.0, "method": "simulated", "half_width": pytest.approx(3.0)}


def test_no_collection_takes_nothing_in_the_simulated_games_and_a_rake_takes_at_most_its_cap():
    common = {"players": 4, "strategy": "cautious", "games": POT_GAMES, "seed": "s", "progress": print}
    free = pot_run(game="blackstone", options=options_of("blackstone", collection="none"), **common)
    raked = pot_run(
        game="blackstone", options=options_of("blackstone", rake_percent=10, rake_cap=3), **common
    )

    assert free["house_per_game"] == {"value": 0, "method": "simulated", "half_width": 0}
    assert 0 < raked["house_per_game"]["value"] <= 3
    # what the house takes, the seats lose: the same games, raked
    seats_free = sum(s["value"] for s in free["seats"].values())
    seats_raked = sum(s["value"] for s in raked["seats"].values())
    assert seats_free - seats_raked == pytest.approx(raked["house_per_game"]["value"], abs=0.5)


def test_the_games_played_are_those_tables_simulation_plays():
    options = options_of("starboard")
    mine = pot_run(
        game="starboard",
        options=options,
        players=4,
        strategy="cautious",
        games=POT_GAMES,
        seed="x",
        progress=print,
    )
    theirs = run(
        RunSpec(game="starboard", players=4, hands=POT_GAMES, strategy="cautious", seed="x", workers=1)
    )

    assert mine["cards_per_game"] == pytest.approx(theirs.cards_per_hand)


def test_a_pot_sheet_gives_the_rake_per_game_and_per_hour_under_the_tables_hours(settings, blackstone):
    settings.PAR_SHEET_HANDS_PER_HOUR = {"blackstone": 25}
    f = computed(blackstone).figures

    assert f["collection"] == "rake" and f["games_per_hour"] == 25
    rake = f["modes"]["rake"]
    assert rake["game"] == f["house_per_game"]  # the table rakes: its own games are the raked ones
    assert rake["hour"]["value"] == pytest.approx(25 * rake["game"]["value"])
    assert set(f["seats"]) == {"1", "2", "3", "4"}
    assert all(seat["half_width"] > 0 for seat in f["seats"].values())


def test_a_table_that_charges_a_fee_is_also_shown_what_a_rake_would_take(pit, pete):
    table = open_table(
        pit, pete, Game.BLACKSTONE, "Fee table", 5, 500, options={"collection": "fee", "fee": 2}
    )
    f = computed(table).figures

    assert f["collection"] == "fee"
    assert f["house_per_game"]["value"] == 2 * 4  # the fee, as the simulated games charged it
    assert f["modes"]["fee"]["game"]["value"] == 2 * 4
    assert f["modes"]["rake"]["game"]["value"] > 0  # the same games raked instead


def test_a_pairs_sheet_gives_every_endings_payment_and_the_five_card_catch_rate(pit, pete):
    options = {"ending": "cutchfeld", "five_card_catch": True}
    table = open_table(pit, pete, Game.PAIRS, "Pairs catch", 1, 100, options=options)
    f = computed(table).figures

    assert f["endings"]["forfeit"]["value"] == 0
    assert f["endings"]["downspear"] == {"value": 3, "method": "simulated", "half_width": 0}  # 1 to each of 3
    assert f["endings"]["tacoma"]["value"] == 6  # the default amount, whatever the scores
    assert f["endings"]["cutchfeld"]["value"] > f["endings"]["olympia"]["value"]  # the score, less the lowest
    assert 0 < f["catch_share"]["value"] < 0.2
    assert f["hands_per_game"] > 1 and f["hands_max"] >= f["hands_tail"]["p99"]


# -- the page never computes; the task fills it in -----------------------------------------------


def test_the_page_answers_at_once_and_the_task_fills_it_in(
    client, pete, blackstone, in_process, django_capture_on_commit_callbacks
):
    shift_start(user=pete, pit=blackstone.pit, by=pete)
    client.force_login(pete)
    url = f"/reports/par-sheets/table/{blackstone.pk}/"

    # when the page is asked for, the task is only queued for after the commit
    with django_capture_on_commit_callbacks(execute=False) as queued:
        page = client.get(url)
    sheet = ParSheet.objects.get()
    assert page.status_code == 200 and b"Being computed" in page.content
    assert sheet.status == ParSheet.Status.PENDING and sheet.figures is None
    assert len(queued) == 1

    # then the task computes it, once
    queued[0]()
    assert ParSheet.objects.get().status == ParSheet.Status.DONE
    page = client.get(url)
    assert b"Being computed" not in page.content and b"House collection per game" in page.content
    assert ParSheet.objects.count() == 1


def test_asking_again_queues_nothing_and_tables_set_up_alike_share_one_sheet(
    pit, pete, blackstone, django_capture_on_commit_callbacks
):
    twin = open_table(pit, pete, Game.BLACKSTONE, "Blackstone 2", 5, 500)
    with django_capture_on_commit_callbacks() as queued:
        first = par_sheet_request(table=blackstone)
        second = par_sheet_request(table=twin)
    assert first.pk == second.pk and len(queued) == 1
    assert table_configuration(blackstone) == table_configuration(twin)


@pytest.mark.django_db(transaction=True)
def test_without_a_broker_in_debug_the_page_answers_before_the_task_runs_in_a_thread(
    client, settings, pit, pete, in_process
):
    # given make run: no broker, DEBUG, and a sheet that takes a few seconds to compute
    settings.DEBUG = True
    settings.PAR_SHEET_GAMES = 5_000
    table = open_table(pit, pete, Game.STARBOARD, "Starboard 9", 1, 100)
    shift_start(user=pete, pit=pit, by=pete)
    client.force_login(pete)
    assert in_thread()

    # when the page is asked for, it answers while a thread of this process computes the sheet
    page = client.get(f"/reports/par-sheets/table/{table.pk}/")
    computing = [thread for thread in threading.enumerate() if thread.name.startswith("reports.par_sheet")]
    assert page.status_code == 200 and b"Being computed" in page.content
    assert computing and ParSheet.objects.get().status != ParSheet.Status.DONE

    # then the thread fills it in
    for thread in computing:
        thread.join(120)
    assert ParSheet.objects.get().status == ParSheet.Status.DONE


def test_a_rocket_table_without_a_shoe_says_why_it_has_no_sheet(client, pit, pete):
    table = new_table(pit=pit, name="New Rocket", game=Game.ROCKET, min_bet=10, max_bet=100)
    shift_start(user=pete, pit=pit, by=pete)
    client.force_login(pete)

    page = client.get(f"/reports/par-sheets/table/{table.pk}/")

    assert page.status_code == 200 and b"has never had a shoe" in page.content
    assert not ParSheet.objects.exists()


# -- scope, the printable sheet, the CSV, the links -----------------------------------------------


def test_whoever_sees_the_table_sees_its_sheet_and_no_one_else(
    client, pit, pete, dana, olga, ada, blackstone
):
    other = open_table(pit, pete, Game.STARBOARD, "Starboard 2", 1, 100)
    deal_at(blackstone, dana, pete)
    deal_at(other, olga, pete)
    url = f"/reports/par-sheets/table/{blackstone.pk}/"

    for user, status in ((dana, 200), (pete, 200), (ada, 200), (olga, 404)):
        client.force_login(user)
        assert client.get(url).status_code == status, user
        assert client.get(url + "csv/").status_code == status, user
    client.force_login(olga)  # a dealer reads no reports list
    assert client.get("/reports/par-sheets/").status_code == 403
    assert client.get("/reports/par-sheets/table/999999/").status_code == 404


def test_the_printable_sheet_and_the_csv_carry_every_figure(client, pete, blackstone):
    computed(blackstone)
    shift_start(user=pete, pit=blackstone.pit, by=pete)
    client.force_login(pete)

    printable = client.get(f"/reports/par-sheets/table/{blackstone.pk}/print/")
    rows = list(
        csv.reader(
            io.StringIO(client.get(f"/reports/par-sheets/table/{blackstone.pk}/csv/").content.decode())
        )
    )

    assert printable.status_code == 200
    assert b"All par sheets" not in printable.content and b"Printable sheet" not in printable.content
    assert rows[0] == ["section", "figure", "value", "method", "95% interval (half-width)"]
    figures = {(row[0], row[1]): row for row in rows[1:]}
    assert figures[("House collection per game (units)", "none")][2:4] == ["0.0000", "exact"]
    assert figures[("House collection per game (units)", "rake (this table)")][3] == "simulated"
    assert all(name.encode() in printable.content for _, name in figures)


def test_the_tables_settings_and_the_reports_lead_to_the_par_sheets(client, pete, blackstone):
    shift_start(user=pete, pit=blackstone.pit, by=pete)
    client.force_login(pete)
    sheet_url = f"/reports/par-sheets/table/{blackstone.pk}/".encode()

    assert sheet_url in client.get(f"/pit/tables/{blackstone.pk}/settings/").content
    assert sheet_url in client.get("/reports/par-sheets/").content
    assert b"/reports/par-sheets/" in client.get("/reports/").content


def test_seed_demo_with_figures_computes_every_demo_tables_sheet_and_the_edges_the_reports_read(db):
    from io import StringIO

    from django.core.management import call_command

    from reports.models import TheoreticalEdge
    from tables.models import POINTS_GAMES, Table

    out = StringIO()
    call_command("seed_demo", force=True, figures=True, stdout=out)

    for table in Table.objects.filter(game__in=POINTS_GAMES):  # no par sheet: their rounds move no money
        assert f"par sheet of {table.name}:" not in out.getvalue()
    tables = Table.objects.exclude(game__in=POINTS_GAMES)
    assert tables.count() >= 6
    for table in tables:
        assert f"par sheet of {table.name}:" in out.getvalue()
        assert par_sheet_request(table=table).status == ParSheet.Status.DONE  # found, not queued
    # the Rocket tables' theoretical edge is in the cache the house-edge report reads
    assert TheoreticalEdge.objects.filter(config__decks=8, config__strategy="best").exists()


def test_the_progress_bar_reloads_a_done_sheet_and_only_the_page_asks_again_for_a_failed_one(
    client, pete, blackstone, django_capture_on_commit_callbacks
):
    shift_start(user=pete, pit=blackstone.pit, by=pete)
    client.force_login(pete)
    url = f"/reports/par-sheets/table/{blackstone.pk}/"
    sheet = computed(blackstone)

    assert client.get(url + "progress/")["HX-Refresh"] == "true"

    # given the sheet failed (a worker's error, say)
    ParSheet.objects.filter(pk=sheet.pk).update(status=ParSheet.Status.FAILED, error="out of memory")
    # when the progress bar, the printable sheet or the CSV is read, nothing is asked for
    with django_capture_on_commit_callbacks() as queued:
        progress = client.get(url + "progress/")
        client.get(url + "print/")
        client.get(url + "csv/")
    assert b"could not be computed: out of memory" in progress.content
    assert "HX-Refresh" not in progress and not queued
    # when the page is opened again, it is asked for again, once
    with django_capture_on_commit_callbacks() as queued:
        client.get(url)
    assert len(queued) == 1 and ParSheet.objects.get().status == ParSheet.Status.PENDING


def test_the_seat_verdict_names_a_seat_only_when_its_interval_misses_the_average():
    def seat(value):
        return {"value": value, "method": "simulated", "half_width": 0.5}

    assert seat_verdict({"1": seat(0.2), "2": seat(-0.2)}).startswith("no difference shown")
    assert seat_verdict({"1": seat(1.0), "2": seat(-1.0), "3": seat(0.0)}) == (
        "seats 1, 2: beyond their interval from the average seat"
    )


def test_a_points_game_has_no_par_sheet_and_its_page_says_why(client, pit, pete):
    table = open_table(pit, pete, Game.PICKUP, "Pickup 1", 1, 100, burn=0)
    shift_start(user=pete, pit=pit, by=pete)
    client.force_login(pete)

    page = client.get(f"/reports/par-sheets/table/{table.pk}/")

    assert page.status_code == 200 and b"deals a points game" in page.content
    assert not ParSheet.objects.exists()


def test_a_secret_hand_game_s_sheet_gives_the_house_s_collection(pit, pete):
    table = open_table(pit, pete, Game.HAWTHORN, "Hawthorn 1", 1, 100)
    f = computed(table).figures
    assert f["collection"] == "rake" and f["games_per_hour"] == 20  # the house's estimate
    assert f["modes"]["rake"]["game"]["value"] > 0  # the pots are raked
