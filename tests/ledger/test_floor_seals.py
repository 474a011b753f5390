"""Seals of the floor's own records: an incident, a time charge, a rating slip's step, a tablet's
held offline queue and an anonymous player's identification are append-only, and each is sealed
in its table's chain as it is written, so `verify_ledger` names one the tables' owner edited or
removed, and one inserted outside the app."""

import pytest

from casino.rules import rules_remove, rules_save
from ledger.audit import ledger_verify
from ledger.models import Seal, Transaction
from ledger.seals import seal, sealed_models
from reports.models import CountRules, VarianceRules
from tables.models import (
    Casino,
    Game,
    HeldQueue,
    Incident,
    Player,
    PlayerRules,
    RatingSlip,
    RatingSlipEvent,
    Seat,
    SeatSession,
    SeatSessionIdentified,
    Shift,
    Shoe,
    Slip,
    SlipSeries,
    Table,
    TimeCharge,
)
from tables.services import (
    HandError,
    hand_start,
    seat_buy_in,
    seat_close,
    seat_open,
    shift_end,
    shift_start,
    shoe_start,
    table_create,
    table_settings_change,
)
from tables.services.offline import hand_queue_apply, queued_steps
from tables.services.players import (
    Identification,
    identify_session,
    player_create,
    player_identify,
    player_merge,
)
from tables.services.rating_slips import rating_slip_pause, rating_slip_start
from tests.floor import new_table
from tests.tables.conftest import card, deal_at, key, open_table, seat

from .test_ledger_seals import copy_row, execute, inserted, latest_seal, named, verify

pytestmark = pytest.mark.django_db

PASSPORT = Identification(type="passport", number="X123", issuer="FR")


class Floor:
    """Starboard 9, collecting by time: Ann, carded and identified, buys in past the casino's
    reporting threshold (a cash report) and is rated; Bob sits anonymously and the pit identifies
    him later; each pays the time charge at the sit-down. In the hand, the shoe's only 1 comes out
    and a second is keyed (a rank refused), then a tablet's offline queue names the wrong receiver
    and is held."""

    def __init__(self, pit, dana, pete):
        rules_save(PlayerRules(casino=pit.casino, logging_threshold=50, reporting_threshold=100))
        options = {"collection": "time", "time_fee": 5, "time_minutes": 30}
        self.table = open_table(pit, pete, Game.STARBOARD, "Starboard 9", 1, 100, options=options)
        deal_at(self.table, dana, pete)
        player_create(casino=pit.casino, name="Ann Smith", card_number="1001", by=pete)
        ann = seat_open(table=self.table, seat=1, buy_in=150, card_number="1001", identification=PASSPORT,
                        by=dana, key=key())
        bob = seat(self.table, 2, 50, dana, "Bob")
        bo_brown = player_create(casino=pit.casino, name="Bo Brown", by=pete)
        identify_session(session=bob, player=bo_brown, reason="Showed his licence", by=pete, key=key())
        rating_slip_pause(slip=rating_slip_start(session=ann, by=dana, key=key()), by=dana, key=key())
        hand = card(hand_start(table=self.table, by=dana, key=key()), 1, dana)
        with pytest.raises(HandError, match="cannot hold another 1"):
            card(hand, 1, dana)
        step = {"kind": "card", "rank": 4, "to": "dealer", "seat": None, "key": key(), "seq": hand.seq}
        hand_queue_apply(hand=hand, steps=queued_steps([step]), by=dana, device="tablet-1")


@pytest.fixture
def floor(pit, dana, pete):
    return Floor(pit, dana, pete)


def test_each_record_is_sealed_in_its_tables_chain_as_it_is_written(floor):
    chain = f"table:{floor.table.pk}"
    sealed = {
        (seal.model, seal.event): seal.chain.name
        for seal in Seal.objects.filter(model__in=LABELS).select_related("chain")
    }

    assert sealed == {
        ("tables.Incident", "opened"): chain,  # the cash report and the rank refused
        ("tables.TimeCharge", "charged"): chain,
        ("tables.RatingSlipEvent", "started"): chain,
        ("tables.RatingSlipEvent", "paused"): chain,
        ("tables.HeldQueue", "held"): chain,
        ("tables.SeatSessionIdentified", "identified"): chain,
    }
    assert Seal.objects.filter(model="tables.Incident").count() == Incident.objects.count() == 2
    assert Seal.objects.filter(model="tables.TimeCharge").count() == TimeCharge.objects.count() == 2
    result = ledger_verify()
    assert result.clean, [str(finding) for finding in result.findings]
    assert set(LABELS) <= {model._meta.label for model in sealed_models()}


LABELS = (
    "tables.Incident",
    "tables.TimeCharge",
    "tables.RatingSlipEvent",
    "tables.HeldQueue",
    "tables.SeatSessionIdentified",
)

# What the tables' owner could change in each (the app's role may not: the rows are append-only).
EDITS = [
    (Incident, "tables_incident", "detail = 'Nothing to report'", 'detail is "Nothing to report"'),
    (Incident, "tables_incident", "kind = 'rank_refused'", 'kind is "rank_refused", sealed "cash_report"'),
    (TimeCharge, "tables_timecharge", "amount = 1", "amount is 1, sealed 5"),
    (TimeCharge, "tables_timecharge", "period = 7", "period is 7, sealed 0"),
    (RatingSlipEvent, "tables_ratingslipevent", "kind = 'closed'", 'kind is "closed", sealed "started"'),
    (HeldQueue, "tables_heldqueue", "refusal = 'Nothing'", 'refusal is "Nothing"'),
    (HeldQueue, "tables_heldqueue", "steps = '[]'", "steps is [], sealed [{"),
    # Bob's session given to Ann, whose cash and rating it would then swell
    (
        SeatSessionIdentified,
        "tables_seatsessionidentified",
        "player_id = (SELECT id FROM tables_player WHERE card_number = '1001')",
        "player is ",
    ),
    (SeatSessionIdentified, "tables_seatsessionidentified", "reason = 'Nothing'", 'reason is "Nothing"'),
]


@pytest.mark.parametrize(("model", "db_table", "change", "problem"), EDITS)
def test_a_record_edited_by_the_owner_is_named(floor, protection_lifted, model, db_table, change, problem):
    record = model.objects.order_by("pk").first()
    with protection_lifted(db_table):
        execute(f"UPDATE {db_table} SET {change} WHERE id = %s", [record.pk])

    ok, lines = verify()

    assert not ok and named(lines, record, problem), lines


@pytest.mark.parametrize(("model", "db_table"), [
    (Incident, "tables_incident"),
    (TimeCharge, "tables_timecharge"),
    (RatingSlipEvent, "tables_ratingslipevent"),
    (HeldQueue, "tables_heldqueue"),
    (SeatSessionIdentified, "tables_seatsessionidentified"),
])
def test_a_record_the_owner_removed_is_named_by_its_seal(floor, protection_lifted, model, db_table):
    record = model.objects.order_by("-pk").first()
    seal = Seal.objects.filter(model=record._meta.label, record=record.pk).latest("position")
    with protection_lifted(db_table):
        execute(f"DELETE FROM {db_table} WHERE id = %s", [record.pk])

    ok, lines = verify()

    where = f"position {seal.position}, {record._meta.label} {record.pk}"
    assert not ok
    assert any(where in line and "but the record is gone: it was deleted" in line for line in lines), lines


@pytest.mark.parametrize(("model", "overrides"), [
    (Incident, {"detail": "Forged"}),
    (RatingSlipEvent, {"kind": "resumed"}),
    (HeldQueue, {"first_key": "forged-key"}),
])
def test_a_record_inserted_outside_the_app_is_named(floor, model, overrides):
    forged = copy_row(model, model.objects.order_by("pk").first().pk, **overrides)

    ok, lines = verify()

    assert not ok and inserted(lines, model, forged), lines


def test_an_identification_inserted_outside_the_app_is_named(floor):
    """Ann's seat session, carded, given to Bo Brown by a row no service wrote (a seat session has
    one identification: the forged one is the only one it has)."""
    identified = SeatSessionIdentified.objects.get()
    ann = SeatSession.objects.exclude(player=None).get()
    forged = copy_row(SeatSessionIdentified, identified.pk, session_id=ann.pk)

    ok, lines = verify()

    assert not ok and inserted(lines, SeatSessionIdentified, forged), lines


# --- Shifts ----------------------------------------------------------------------------------
# Who dealt at a table and when is what the reports by shift and the hands' "dealt by" read: a
# shift is sealed as it starts and as it ends, a dealer's in the table's chain and a pit manager's
# in the casino's, so the owner's edit of a shift (its person, table or times) is named.


@pytest.fixture
def shifts(pit, dana, pete):
    """pete on shift in the pit; dana dealt at Rocket 9 and is on a break."""
    table = open_table(pit, pete, Game.ROCKET, "Rocket 9", 10, 500, decks=8)
    shift_end(shift=deal_at(table, dana, pete), by=pete, reason=Shift.Ended.BREAK)
    return {"dealer": Shift.objects.get(user=dana), "pit": Shift.objects.get(user=pete, ended_at=None)}


def test_a_shift_is_sealed_as_it_starts_and_ends(shifts):
    dealer, pit = shifts["dealer"], shifts["pit"]

    seals = Seal.objects.filter(model="tables.Shift").select_related("chain").order_by("position")

    assert [(s.record, s.event, s.chain.name) for s in seals.filter(record__in=[dealer.pk, pit.pk])] == [
        (pit.pk, "started", f"casino:{pit.pit.casino_id}"),
        (dealer.pk, "started", f"table:{dealer.table_id}"),
        (dealer.pk, "ended", f"table:{dealer.table_id}"),
    ]
    result = ledger_verify()
    assert result.clean, [str(finding) for finding in result.findings]


SHIFT_EDITS = [
    ("dealer", "user_id = (SELECT id FROM casino_user WHERE username = 'olga')", "user is "),
    ("dealer", "table_id = NULL, pit_id = (SELECT id FROM tables_pit)", "table is null"),
    ("dealer", "started_at = '2000-01-01 00:00:00'", "started_at is "),
    ("dealer", "ended_at = '2100-01-01 00:00:00'", "ended_at is "),
    ("pit", "started_at = '2000-01-01 00:00:00'", "started_at is "),
]


@pytest.mark.parametrize(("which", "change", "problem"), SHIFT_EDITS)
def test_a_shift_edited_outside_the_app_is_named(shifts, olga, which, change, problem):
    shift = shifts[which]
    execute(f"UPDATE tables_shift SET {change} WHERE id = %s", [shift.pk])

    ok, lines = verify()

    assert not ok and named(lines, shift, problem), lines


def test_a_shift_deleted_or_inserted_outside_the_app_is_named(shifts):
    dealer = shifts["dealer"]
    seal = Seal.objects.filter(model="tables.Shift", record=dealer.pk).latest("position")
    forged = copy_row(Shift, dealer.pk)
    execute("DELETE FROM tables_shift WHERE id = %s", [dealer.pk])

    ok, lines = verify()

    assert not ok and inserted(lines, Shift, forged), lines
    assert any(f"position {seal.position}, tables.Shift {dealer.pk}" in line and "it was deleted" in line
               for line in lines), lines


# --- Players ---------------------------------------------------------------------------------
# Whose cash the cash reports add up (a merge) and whom a currency transaction report names (the
# identification) are a player's row: it is sealed in the casino's chain as it is created,
# identified and merged, so the owner's edit of either is named.


@pytest.fixture
def players(pit, pete):
    """Ann identified; Bob merged into Carl."""
    casino = pit.casino
    ann = player_create(casino=casino, name="Ann Smith", card_number="1001", by=pete)
    player_identify(player=ann, identification=PASSPORT, by=pete)
    bob = player_create(casino=casino, name="Bob Jones", card_number="1002", by=pete)
    carl = player_create(casino=casino, name="Carl Jones", card_number="1003", by=pete)
    shift_start(user=pete, pit=pit, by=pete)
    player_merge(duplicate=bob, into=carl, by=pete)
    return {name: Player.objects.get(name__startswith=name.title()) for name in ("ann", "bob", "carl")}


def test_a_player_is_sealed_in_the_casinos_chain_as_created_identified_and_merged(players):
    ann, bob = players["ann"], players["bob"]

    seals = Seal.objects.filter(model="tables.Player").select_related("chain").order_by("position")

    assert {seal.chain.name for seal in seals} == {f"casino:{ann.casino_id}"}
    assert [(seal.record, seal.event) for seal in seals if seal.record in (ann.pk, bob.pk)] == [
        (ann.pk, "created"), (ann.pk, "identified"), (bob.pk, "created"), (bob.pk, "merged"),
    ]
    result = ledger_verify()
    assert result.clean, [str(finding) for finding in result.findings]


PLAYER_EDITS = [
    ("ann", "id_number = 'X999', id_issuer = 'US'", 'id_number is "X999", sealed "X123"'),
    ("bob", "merged_into_id = (SELECT id FROM tables_player WHERE name = 'Ann Smith')", "merged_into is "),
    ("carl", "merged_into_id = (SELECT id FROM tables_player WHERE name = 'Ann Smith')", "merged_into is "),
    ("bob", "merged_into_id = NULL", "merged_into is null"),
    ("carl", "name = 'Someone Else', card_number = '9999'", 'card_number is "9999", sealed "1003"'),
]


@pytest.mark.parametrize(("which", "change", "problem"), PLAYER_EDITS)
def test_a_player_edited_outside_the_app_is_named(players, which, change, problem):
    player = players[which]
    execute(f"UPDATE tables_player SET {change} WHERE id = %s", [player.pk])

    ok, lines = verify()

    assert not ok and named(lines, player, problem), lines


def test_a_player_deleted_or_inserted_outside_the_app_is_named(players):
    ann = players["ann"]
    seal = Seal.objects.filter(model="tables.Player", record=ann.pk).latest("position")
    forged = copy_row(Player, ann.pk, card_number="2001")
    execute("DELETE FROM tables_player WHERE id = %s", [ann.pk])

    ok, lines = verify()

    assert not ok and inserted(lines, Player, forged), lines
    assert any(f"position {seal.position}, tables.Player {ann.pk}" in line and "it was deleted" in line
               for line in lines), lines


# --- Rating slips ----------------------------------------------------------------------------
# Whose slip it is says whose rating, and so whose comps, its time earns: the slip is sealed as it
# starts, in the chain of the table it starts at (its steps are sealed there as well).


def test_a_rating_slip_is_sealed_in_its_tables_chain_as_it_starts(floor):
    slip = RatingSlipEvent.objects.get(kind="started").slip

    seal = Seal.objects.select_related("chain").get(model="tables.RatingSlip", record=slip.pk)

    assert (seal.event, seal.chain.name, seal.figures["player"]) == (
        "started", f"table:{floor.table.pk}", slip.player_id)


def test_a_rating_slip_given_to_another_player_or_inserted_outside_the_app_is_named(floor, pete):
    slip = RatingSlipEvent.objects.get(kind="started").slip
    bob = player_create(casino=floor.table.pit.casino, name="Bob Jones", card_number="1002", by=pete)
    execute("UPDATE tables_ratingslip SET player_id = %s WHERE id = %s", [bob.pk, slip.pk])
    forged = copy_row(RatingSlip, slip.pk)

    ok, lines = verify()

    assert not ok and named(lines, slip, f"player is {bob.pk}, sealed {slip.player_id}"), lines
    assert inserted(lines, RatingSlip, forged), lines


# --- Seat sessions ---------------------------------------------------------------------------
# Who sat, the sit-down's buy-in and the times are what ratings, comps and the reports by player
# read: a seat session is sealed in its table's chain as the player sits down and as they leave.


def test_a_seat_session_is_sealed_as_the_player_sits_down_and_leaves(floor, dana):
    cleo = seat(floor.table, 3, 50, dana, "Cleo")  # out of the hand being played
    seat_buy_in(session=cleo, amount=20, by=dana, key=key())  # a later buy-in seals nothing
    seat_close(session=cleo, by=dana, key=key())

    seals = Seal.objects.filter(model="tables.SeatSession", record=cleo.pk).select_related("chain")

    assert [(seal.event, seal.chain.name) for seal in seals.order_by("position")] == [
        ("opened", f"table:{floor.table.pk}"), ("closed", f"table:{floor.table.pk}"),
    ]
    result = ledger_verify()
    assert result.clean, [str(finding) for finding in result.findings]


def test_a_sit_down_with_a_buy_in_and_chips_brought_is_sealed_after_both_posts(floor, dana):
    """Two posts (the buy-in, then the chips brought), each locking the table's chain: the sit-down's
    seals go after the second, not at a position it already holds."""
    cleo = seat_open(table=floor.table, seat=3, buy_in=50, chips=30, player_name="Cleo", by=dana, key=key())

    chain = f"table:{floor.table.pk}"
    posts = Transaction.objects.filter(kind__in=("buy_in", "chips_in"), postings__account__ref=cleo.pk)
    opened = Seal.objects.get(model="tables.SeatSession", record=cleo.pk)
    assert opened.chain.name == chain and opened.position > max(posts.values_list("position", flat=True))
    result = ledger_verify()
    assert result.clean, [str(finding) for finding in result.findings]


SESSION_EDITS = [
    ("player_id = (SELECT id FROM tables_player WHERE name = 'Bob Jones'), buy_in = 9000", "buy_in is 9000"),
    ("player_id = (SELECT id FROM tables_player WHERE name = 'Bob Jones')", "player is "),
    ("seat_id = (SELECT id FROM tables_seat WHERE number = 2)", "seat is "),
    ("started_at = '2000-01-01 00:00:00'", "started_at is "),
    ("ended_at = '2000-01-01 00:00:00'", "ended_at is "),
]


@pytest.mark.parametrize(("change", "problem"), SESSION_EDITS)
def test_a_seat_session_edited_outside_the_app_is_named(floor, pete, change, problem):
    player_create(casino=floor.table.pit.casino, name="Bob Jones", card_number="1002", by=pete)
    ann = SeatSession.objects.get(player__name="Ann Smith")
    # The seat is free while the edit moves Ann there: the unique open session per seat holds.
    execute("UPDATE tables_seatsession SET ended_at = started_at WHERE player_name = 'Bob'")
    execute(f"UPDATE tables_seatsession SET {change} WHERE id = %s", [ann.pk])

    ok, lines = verify()

    assert not ok and named(lines, ann, problem), lines


def test_a_seat_session_inserted_outside_the_app_is_named(floor):
    ann = SeatSession.objects.get(player__name="Ann Smith")
    forged = copy_row(SeatSession, ann.pk, ended_at="2000-01-01 00:00:00+00:00")

    ok, lines = verify()

    assert not ok and inserted(lines, SeatSession, forged), lines


# --- Tables and shoes ------------------------------------------------------------------------
# A table's game, limits, options, threshold and chip value are what every hand is judged by and
# every count priced in; a shoe's decks, kind, burn, cut card and commitment are what the card
# accounting and the payouts rest on. A table is sealed in its own chain as it is created and as
# its settings change; a shoe in its table's chain as it starts and as it retires.


@pytest.fixture
def rocket7(pit, pete):
    """Rocket 7, created and then changed by pete on shift in the pit; a physical 8-deck shoe,
    replaced by a system-shuffled one."""
    shift_start(user=pete, pit=pit, by=pete)
    table = table_create(pit=pit, name="Rocket 7", game=Game.ROCKET, min_bet=10, max_bet=500,
                         payout_approval_threshold=400, by=pete)
    table = table_settings_change(table=table, by=pete, max_bet=1000, options={"start": "button"},
                                  reason="High limit tonight")
    shoe_start(table=table, decks=8, by=pete, key=key())
    shoe_start(table=table, decks=6, kind=Shoe.Kind.SYSTEM, burn=3, reason="Damaged cards", by=pete,
               key=key())
    return table


def test_a_table_and_its_shoes_are_sealed_in_its_chain_as_written(rocket7):
    first, second = rocket7.shoes.order_by("pk")
    chain = f"table:{rocket7.pk}"

    seals = Seal.objects.filter(model__in=("tables.Table", "tables.Shoe")).select_related("chain")

    assert [(s.model, s.record, s.event, s.chain.name) for s in seals.order_by("position")] == [
        ("tables.Table", rocket7.pk, "created", chain),
        ("tables.Table", rocket7.pk, "changed", chain),
        ("tables.Shoe", first.pk, "started", chain),
        ("tables.Shoe", first.pk, "retired", chain),
        ("tables.Shoe", second.pk, "started", chain),
    ]
    assert seals.get(model="tables.Table", event="created").position == 1  # its chain opens with it
    figures = latest_seal(second).figures
    assert (figures["decks"], figures["burn"], figures["commitment"]) == (6, 3, second.commitment)
    assert "order" not in figures and "salt" not in figures  # secret while the shoe deals
    assert latest_seal(rocket7).figures["max_bet"] == 1000
    result = ledger_verify()
    assert result.clean, [str(finding) for finding in result.findings]


TABLE_EDITS = [
    ("min_bet = 20, max_bet = 5000", "max_bet is 5000, sealed 1000"),
    ("payout_approval_threshold = 5000", "payout_approval_threshold is 5000, sealed 400"),
    ("""options = '{"start": "left"}'""", 'options.start is "left", sealed "button"'),
    ("game = 'blackstone'", 'game is "blackstone", sealed "rocket"'),
    ("chip_unit_cents = 500", "chip_unit_cents is 500, sealed 100"),
]


@pytest.mark.parametrize(("change", "problem"), TABLE_EDITS)
def test_a_tables_settings_edited_outside_the_app_are_named(rocket7, change, problem):
    execute(f"UPDATE tables_table SET {change} WHERE id = %s", [rocket7.pk])

    ok, lines = verify()

    assert not ok and named(lines, rocket7, problem), lines


SHOE_EDITS = [
    ("decks = 8", "decks is 8, sealed 6"),
    ("burn = 0", "burn is 0, sealed 3"),
    ("cut_position = 300", "cut_position is 300, sealed 264"),
    ("kind = 'physical'", 'kind is "physical", sealed "system"'),
    ("commitment = 'forged'", 'commitment is "forged", sealed "'),
    ("state = 'retired'", 'state is "retired", sealed "in_play"'),
]


@pytest.mark.parametrize(("change", "problem"), SHOE_EDITS)
def test_a_shoes_figures_edited_outside_the_app_are_named(rocket7, change, problem):
    shoe = rocket7.shoes.get(state=Shoe.State.IN_PLAY)
    execute(f"UPDATE tables_shoe SET {change} WHERE id = %s", [shoe.pk])

    ok, lines = verify()

    assert not ok and named(lines, shoe, problem), lines


def test_a_table_or_a_shoe_inserted_outside_the_app_is_named(rocket7):
    table = copy_row(Table, rocket7.pk, name="Rocket 8")
    shoe = copy_row(Shoe, rocket7.shoes.get(state=Shoe.State.RETIRED).pk)

    ok, lines = verify()

    assert not ok and inserted(lines, Table, table) and inserted(lines, Shoe, shoe), lines


def test_a_table_renamed_and_sealed_again_is_named(rocket7):
    execute("UPDATE tables_table SET name = 'Rocket 70' WHERE id = %s", [rocket7.pk])
    rocket7.refresh_from_db()
    seal(rocket7, table=rocket7, event="changed")  # as anyone who may call `seal` could

    ok, lines = verify()

    assert not ok and any(
        "sealed again (changed) with a figure fixed when first sealed (created): "
        'name is "Rocket 70", first sealed "Rocket 7"' in line for line in lines
    ), lines


# A casino's rules, a table's runs of slip serials and its seats: figures an auditor reads (what was
# reported or investigated, which slips are missing, who sat where), sealed as they are written.


@pytest.fixture
def rules(casino):
    """The casino's cash thresholds set and then raised, its count rules set and then removed (the
    defaults again), and its variance rules set, all through the admin's one way (`casino.rules`)."""
    player_rules = PlayerRules(casino=casino, logging_threshold=3000, reporting_threshold=10000)
    rules_save(player_rules)
    player_rules.reporting_threshold = 12000
    rules_save(player_rules)
    count_rules = CountRules(casino=casino, regulator_over=500)
    rules_save(count_rules)
    rules_remove(count_rules)
    rules_save(VarianceRules(casino=casino, z_limit=3, confidence=0.99))
    return casino


def test_a_casinos_rules_are_sealed_in_its_chain_as_written_and_removed(rules):
    seals = Seal.objects.filter(model__in=RULES_LABELS).select_related("chain").order_by("position")

    assert [(s.model, s.event, s.chain.name) for s in seals] == [
        ("tables.PlayerRules", "created", f"casino:{rules.pk}"),
        ("tables.PlayerRules", "changed", f"casino:{rules.pk}"),
        ("reports.CountRules", "created", f"casino:{rules.pk}"),
        ("reports.CountRules", "removed", f"casino:{rules.pk}"),
        ("reports.VarianceRules", "created", f"casino:{rules.pk}"),
    ]
    assert latest_seal(PlayerRules.objects.get()).figures["comp_share"] == "0.300"
    assert latest_seal(VarianceRules.objects.get()).figures["z_limit"] == 3.0  # as the column holds it
    result = ledger_verify()
    assert result.clean, [str(finding) for finding in result.findings]


RULES_LABELS = ("tables.PlayerRules", "reports.CountRules", "reports.VarianceRules")

RULES_EDITS = [
    (PlayerRules, "reporting_threshold = 1000000", "reporting_threshold is 1000000, sealed 12000"),
    (PlayerRules, "logging_threshold = 9000", "logging_threshold is 9000, sealed 3000"),
    (PlayerRules, "comp_share = 0.9", 'comp_share is "0.900", sealed "0.300"'),
    (VarianceRules, "z_limit = 30", "z_limit is 30.0, sealed 3.0"),
    (VarianceRules, "win_tolerance = 100000", "win_tolerance is 100000, sealed 100"),
]


@pytest.mark.parametrize(("model", "change", "problem"), RULES_EDITS)
def test_a_casinos_rules_edited_in_the_database_are_named(rules, model, change, problem):
    record = model.objects.get()
    execute(f"UPDATE {model._meta.db_table} SET {change} WHERE id = %s", [record.pk])

    ok, lines = verify()

    assert not ok and named(lines, record, problem), lines


def test_a_casinos_rules_deleted_inserted_or_put_back_in_the_database_are_named(rules):
    thresholds = PlayerRules.objects.get()
    removed = Seal.objects.get(model="reports.CountRules", event="removed")
    execute("DELETE FROM tables_playerrules WHERE id = %s", [thresholds.pk])
    execute("INSERT INTO reports_countrules (id, casino_id, investigation_over, explanation_over, "
            "regulator_over) VALUES (%s, %s, 25, 25, 100000)", [removed.record, rules.pk])  # put back, higher
    other = Casino.objects.create(name="Lakeside")
    execute("INSERT INTO reports_variancerules (casino_id, strategy, z_limit, base_points, confidence, "
            "rolling_days, rolling_points, minimum_hands, win_tolerance) "
            "VALUES (%s, 'best', 99, 3, 0.95, 30, 4, 1000, 100)", [other.pk])
    inserted_pk = VarianceRules.objects.get(casino=other).pk

    ok, lines = verify()

    assert not ok, lines
    gone = "but the record is gone: it was deleted"
    back = "sealed here as removed, but the record is there: it was put back outside the app (inserted)"
    assert any(f"tables.PlayerRules {thresholds.pk}" in line and gone in line for line in lines), lines
    assert any(f"reports.CountRules {removed.record} (" in line and back in line for line in lines), lines
    assert inserted(lines, VarianceRules, inserted_pk), lines


def test_a_tables_run_of_serials_is_sealed_with_each_number_and_its_seats_as_they_are_made(floor, dana):
    run = SlipSeries.objects.get(table=floor.table)
    issued = Slip.objects.filter(table=floor.table).count()
    seals = Seal.objects.filter(model="tables.SlipSeries", record=run.pk)

    assert issued and seals.count() == issued and {s.event for s in seals} == {"issued"}
    assert latest_seal(run).figures == {"table": floor.table.pk, "year": run.year, "first": 1, "last": issued}
    made = Seal.objects.filter(model="tables.Seat").order_by("position")
    assert [(s.figures["number"], s.event) for s in made] == [(1, "created"), (2, "created")]
    cleo = seat(floor.table, 3, 50, dana, "Cleo")
    seat_close(session=cleo, by=dana, key=key())
    seat(floor.table, 3, 50, dana, "Dan")  # the seat is there already: nothing more sealed
    assert Seal.objects.filter(model="tables.Seat").count() == 3
    result = ledger_verify()
    assert result.clean, [str(finding) for finding in result.findings]


SERIES_EDITS = [
    ("first = 2", "first is 2, sealed 1"),  # the slips before it drop out of the slips report
    ("last = 0", "last is 0, sealed 1"),  # the last slip's number no longer in the run
]


@pytest.mark.parametrize(("change", "problem"), SERIES_EDITS)
def test_a_run_of_serials_edited_in_the_database_is_named(floor, change, problem):
    run = SlipSeries.objects.get(table=floor.table)
    execute(f"UPDATE tables_slipseries SET {change} WHERE id = %s", [run.pk])

    ok, lines = verify()

    assert not ok and named(lines, run, problem), lines


def test_a_seat_renumbered_moved_or_inserted_in_the_database_is_named(floor, pit):
    other = new_table(pit=pit, name="Rocket 8", game=Game.ROCKET, min_bet=10, max_bet=500)
    first, second = Seat.objects.filter(table=floor.table).order_by("number")
    execute("UPDATE tables_seat SET number = 5 WHERE id = %s", [first.pk])
    execute("UPDATE tables_seat SET table_id = %s WHERE id = %s", [other.pk, second.pk])
    added = copy_row(Seat, first.pk, number=6)

    ok, lines = verify()

    assert not ok and named(lines, first, "number is 5, sealed 1"), lines
    assert named(lines, second, f"table is {other.pk}, sealed {floor.table.pk}"), lines
    assert inserted(lines, Seat, added), lines
