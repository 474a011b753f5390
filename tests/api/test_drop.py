"""Drop boxes, the soft count and count incidents through the API: Rocket 1 closes after a day of
buy-ins; pete removes its box, delivers it and counts it with pam, blind; refusals write nothing."""

import pytest

from casino.roles import PIT_MANAGER
from ledger.models import Account
from ledger.services import account_get
from tables.models import CountedDrop, DropBox, DropCount, DropCustody, Game, Incident, IncidentFinding, Pit
from tables.services import seat_close, seat_open, shift_start
from tests.tables.conftest import key, open_table, person
from tests.tables.test_open_close import close_with_count

from .conftest import signed_in

pytestmark = pytest.mark.django_db

NOTES = {"100": 5, "50": 2}  # 600 units: the day's buy-ins
FOUND = "A colour-up left in the float."


def records() -> tuple[int, ...]:
    models = (DropBox, DropCustody, DropCount, CountedDrop, Incident, IncidentFinding)
    return tuple(model.objects.count() for model in models)


@pytest.fixture
def closed(floor, dana):
    """Rocket 1 after a day: two buy-ins, the players gone, the table closed with its count."""
    for number, amount in ((1, 400), (2, 200)):
        session = seat_open(table=floor, seat=number, buy_in=amount, by=dana, key=key())
        seat_close(session=session, by=dana, key=key())
    close_with_count(floor, account_get(kind=Account.Kind.TRAY, table=floor).balance)
    return floor.drop_boxes.get()


@pytest.fixture
def as_pam(floor):
    pam = person("pam", PIT_MANAGER)
    shift_start(user=pam, pit=floor.pit, by=pam)
    return signed_in(pam)


def test_a_box_is_removed_delivered_and_counted_blind_to_the_cage(closed, as_pete, as_pam):
    url = f"/api/drop-boxes/{closed.pk}/"
    removed = as_pete.change(url + "remove/", HTTP_X_DEVICE="pit-1")
    delivered = as_pete.change(url + "deliver/")
    first = as_pete.change(url + "counts/", {"denominations": NOTES})
    box_between = as_pam.get(url)
    second = as_pam.change(url + "counts/", {"denominations": NOTES})

    assert removed.status_code == delivered.status_code == 200
    assert removed.json()["custody"][0] == {**removed.json()["custody"][0], "step": "removed", "by": "pete"}
    assert [step["step"] for step in delivered.json()["custody"]] == ["removed", "delivered"]
    assert first.status_code == 201 and first.json()["result"] == "second"
    assert box_between.json()["counted"] is None and "denominations" not in str(box_between.json())
    assert second.json()["result"] == "accepted"
    counted = as_pete.get(url).json()["counted"]
    assert (counted["counted"], counted["expected"], counted["difference"]) == (600, 600, 0)
    assert closed.pk not in [box["id"] for box in as_pete.get("/api/drop-boxes/").json()]


def test_counts_that_differ_answer_recount(closed, as_pete, as_pam):
    url = f"/api/drop-boxes/{closed.pk}/"
    as_pete.change(url + "remove/")
    as_pete.change(url + "deliver/")
    as_pete.change(url + "counts/", {"denominations": NOTES})

    answer = as_pam.change(url + "counts/", {"denominations": {"100": 6}})

    assert answer.json()["result"] == "recount" and not CountedDrop.objects.exists()


@pytest.mark.parametrize(
    ("step", "body", "sentence"),
    [
        ("deliver/", None, "removed before it is delivered"),
        ("counts/", {"denominations": NOTES}, "has not been delivered to the count room"),
    ],
)
def test_custody_out_of_order_is_refused_and_writes_nothing(closed, as_pete, step, body, sentence):
    before = records()

    answer = as_pete.change(f"/api/drop-boxes/{closed.pk}/{step}", body)

    assert answer.status_code == 400 and sentence in answer.json()["detail"]
    assert records() == before


def test_a_bad_count_is_a_400_naming_the_field(closed, as_pete):
    as_pete.change(f"/api/drop-boxes/{closed.pk}/remove/")
    as_pete.change(f"/api/drop-boxes/{closed.pk}/deliver/")
    before = records()

    negative = as_pete.change(f"/api/drop-boxes/{closed.pk}/counts/", {"denominations": {"100": -1}})
    odd_note = as_pete.change(f"/api/drop-boxes/{closed.pk}/counts/", {"denominations": {"abc": 1}})
    no_key = as_pete.post(f"/api/drop-boxes/{closed.pk}/counts/", {"denominations": NOTES}, format="json")

    assert negative.status_code == 400 and "denominations" in negative.json()
    assert odd_note.status_code == 400 and "whole numbers" in odd_note.json()["detail"]
    assert no_key.status_code == 400 and "Idempotency-Key" in no_key.json()
    assert records() == before


def test_a_chip_value_given_twice_is_refused_not_counted_beside_the_figures_kept(closed, as_pete, as_pam):
    # "0100" and "100" are one value. The count kept one figure for it (the last) while its total
    # summed both, so this second count matched pete's figures and was accepted at 900 units.
    url = f"/api/drop-boxes/{closed.pk}/"
    as_pete.change(url + "remove/")
    as_pete.change(url + "deliver/")
    as_pete.change(url + "counts/", {"denominations": NOTES})
    before = records()

    answer = as_pam.change(url + "counts/", {"denominations": {"0100": 3, **NOTES}})

    assert answer.status_code == 400
    assert answer.json() == {"detail": "Give each chip value once: 100 is given twice."}
    assert records() == before


def test_a_dealer_reads_her_tables_box_but_handles_none(closed, as_dana):
    before = records()

    read = as_dana.get(f"/api/drop-boxes/{closed.pk}/")
    answer = as_dana.change(f"/api/drop-boxes/{closed.pk}/remove/")

    assert read.status_code == 200
    assert answer.status_code == 403 and "Only a pit manager on shift" in answer.json()["detail"]
    assert records() == before


def test_a_box_in_another_pit_is_not_there(as_pete, pete):
    other = Pit.objects.create(casino=Pit.objects.get().casino, name="Pit 2")
    far = open_table(other, pete, Game.BLACKSTONE, "Blackstone 9", 5, 500)
    before = records()

    answer = as_pete.change(f"/api/drop-boxes/{far.drop_boxes.get().pk}/remove/")
    attach = as_pete.change("/api/drop-boxes/", {"table": far.pk})

    assert answer.status_code == 404
    assert attach.status_code == 400
    assert attach.json() == {"table": [f"There is no table {far.pk} among your tables."]}
    assert records() == before


def test_the_pit_exchanges_the_box_of_an_open_table(floor, as_pete):
    answer = as_pete.change("/api/drop-boxes/", {"table": floor.pk})

    assert answer.status_code == 201 and answer.json()["number"] == 2
    assert DropCustody.objects.get().step == DropCustody.Step.REMOVED


def test_a_count_incident_is_listed_until_acknowledged_with_findings(floor, as_pete, as_dana):
    close_with_count(floor, account_get(kind=Account.Kind.TRAY, table=floor).balance + 150)
    incident = Incident.objects.get()
    url = f"/api/incidents/{incident.pk}/acknowledge/"

    listed = as_pete.get("/api/incidents/").json()
    empty = as_pete.change(url, {"findings": ""})
    dealer = as_dana.change(url, {"findings": "Not mine to say"})
    done = as_pete.change(url, {"findings": FOUND})

    assert [row["id"] for row in listed] == [incident.pk] and listed[0]["kind"] == "count_regulator"
    assert empty.status_code == 400 and dealer.status_code == 403
    assert done.status_code == 200 and done.json()["findings"] == FOUND
    assert as_pete.get("/api/incidents/").json() == []
    assert as_pete.get(f"/api/incidents/{incident.pk}/").json()["findings"] == FOUND
