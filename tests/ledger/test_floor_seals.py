"""Seals of the floor's own records: an incident, a time charge, a rating slip's step and a tablet's
held offline queue are append-only, and each is sealed in its table's chain as it is written, so
`verify_ledger` names one the tables' owner edited or removed, and one inserted outside the app."""

import pytest

from ledger.audit import ledger_verify
from ledger.models import Seal
from ledger.seals import sealed_models
from tables.models import Game, HeldQueue, Incident, PlayerRules, RatingSlipEvent, TimeCharge
from tables.services import HandError, hand_start, seat_open
from tables.services.offline import hand_queue_apply, queued_steps
from tables.services.players import Identification, player_create
from tables.services.rating_slips import rating_slip_pause, rating_slip_start
from tests.tables.conftest import card, deal_at, key, open_table, seat

from .test_ledger_seals import copy_row, execute, inserted, named, verify

pytestmark = pytest.mark.django_db

PASSPORT = Identification(type="passport", number="X123", issuer="FR")


class Floor:
    """Starboard 9, collecting by time: Ann, carded and identified, buys in past the casino's
    reporting threshold (a cash report) and is rated; Bob sits anonymously; each pays the time
    charge at the sit-down. In the hand, the shoe's only 1 comes out and a second is keyed (a rank
    refused), then a tablet's offline queue names the wrong receiver and is held."""

    def __init__(self, pit, dana, pete):
        PlayerRules.objects.create(casino=pit.casino, logging_threshold=50, reporting_threshold=100)
        options = {"collection": "time", "time_fee": 5, "time_minutes": 30}
        self.table = open_table(pit, pete, Game.STARBOARD, "Starboard 9", 1, 100, options=options)
        deal_at(self.table, dana, pete)
        player_create(casino=pit.casino, name="Ann Smith", card_number="1001", by=pete)
        ann = seat_open(table=self.table, seat=1, buy_in=150, card_number="1001", identification=PASSPORT,
                        by=dana, key=key())
        seat(self.table, 2, 50, dana, "Bob")
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
    }
    assert Seal.objects.filter(model="tables.Incident").count() == Incident.objects.count() == 2
    assert Seal.objects.filter(model="tables.TimeCharge").count() == TimeCharge.objects.count() == 2
    result = ledger_verify()
    assert result.clean, [str(finding) for finding in result.findings]
    assert set(LABELS) <= {model._meta.label for model in sealed_models()}


LABELS = ("tables.Incident", "tables.TimeCharge", "tables.RatingSlipEvent", "tables.HeldQueue")

# What the tables' owner could change in each (the app's role may not: the rows are append-only).
EDITS = [
    (Incident, "tables_incident", "detail = 'Nothing to report'", 'detail is "Nothing to report"'),
    (Incident, "tables_incident", "kind = 'rank_refused'", 'kind is "rank_refused", sealed "cash_report"'),
    (TimeCharge, "tables_timecharge", "amount = 1", "amount is 1, sealed 5"),
    (TimeCharge, "tables_timecharge", "period = 7", "period is 7, sealed 0"),
    (RatingSlipEvent, "tables_ratingslipevent", "kind = 'closed'", 'kind is "closed", sealed "started"'),
    (HeldQueue, "tables_heldqueue", "refusal = 'Nothing'", 'refusal is "Nothing"'),
    (HeldQueue, "tables_heldqueue", "steps = '[]'", "steps is [], sealed [{"),
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
