"""Starting a report through the API: every parameter is checked before anything is written.

A report over a table, casino, shift or count that does not exist used to be recorded and sent to a
worker, which then found nothing or failed; now the request is refused with 400 naming the field,
and neither a report nor a task comes of it.
"""

import json
import re
from urllib.parse import urlencode

import pytest

from reports.models import Report
from tables.models import Casino, TableCount
from tables.services import shift_start

from .conftest import count

pytestmark = pytest.mark.django_db
DAY = "2026-03-01"
NOWHERE = 999_999  # no record has this number


@pytest.fixture
def as_pete(client, pete):
    client.force_login(pete)
    return client


def start(client, kind, params):
    return client.post("/api/reports/", {"kind": kind, "params": params}, content_type="application/json")


def refused(client, kind, params, callbacks) -> dict:
    """Start a report that must be refused; the answer's body, once nothing was written or queued."""
    with callbacks() as queued:
        response = start(client, kind, params)
    assert response.status_code == 400, response.content
    assert not Report.objects.exists() and queued == []
    return response.json()


@pytest.mark.parametrize(
    "kind, params, field, message",
    [
        ("house_edge", {"date_from": DAY, "date_to": DAY, "tables": [NOWHERE]}, "tables", "no table 999999"),
        ("house_edge", {"date_from": DAY, "date_to": DAY, "casino": NOWHERE}, "casino", "no casino 999999"),
        ("house_edge", {"date_from": DAY, "date_to": DAY, "dealer": NOWHERE}, "dealer", "no staff account"),
        ("house_edge", {"date_from": DAY, "date_to": DAY, "shift": NOWHERE}, "shift", "no shift 999999"),
        ("house_edge", {"date_from": DAY, "date_to": DAY, "game": "bingo"}, "game", "no game 'bingo'"),
        ("house_edge", {"date_from": DAY, "date_to": DAY, "group": "moon"}, "group", "Group by"),
        ("house_edge", {"date_from": "2026-03-02", "date_to": DAY}, "date_to", "comes after the last"),
        ("house_edge", {"date_from": "2026-02-30", "date_to": DAY}, "date_from", "as a date"),
        ("house_edge", {"date_from": DAY}, "date_to", "as a date"),
        ("house_edge", {"date_from": DAY, "date_to": DAY, "tabel": 1}, "tabel", "takes no 'tabel'"),
        ("house_edge", {"date_from": DAY, "date_to": DAY, "tables": [1.5]}, "tables", "record number"),
        ("statistics", {"casino": NOWHERE, "date": DAY}, "casino", "no casino 999999"),
        ("statistics", {"date": DAY}, "casino", "Choose a casino"),
        ("statistics", {"casino": "one", "date": DAY}, "casino", "record number, not 'one'"),
        ("reconciliation", {"table": NOWHERE, "date_from": DAY, "date_to": DAY}, "table", "no table 999999"),
        ("reconciliation", {"shift": NOWHERE}, "shift", "no shift 999999"),
        ("reconciliation", {"session": NOWHERE}, "session", "no opening count 999999"),
        ("reconciliation", {"session": 1, "table": 1}, "table", "only one of session, table"),
        ("reconciliation", {"table": True, "date_from": DAY, "date_to": DAY}, "table", "record number"),
        # Past the database's 64 bits, or digits int() refuses ("²") or reads ("١"): these were 500s
        ("house_edge", {"date_from": DAY, "date_to": DAY, "tables": [2**64]}, "tables", "record number"),
        ("house_edge", {"date_from": DAY, "date_to": DAY, "tables": [str(2**63)]}, "tables", "record number"),
        ("statistics", {"casino": "\u00b2", "date": DAY}, "casino", "record number"),
        ("statistics", {"casino": "\u0661", "date": DAY}, "casino", "record number"),
        ("reconciliation", {"table": "9" * 5000, "date_from": DAY, "date_to": DAY}, "table", "record number"),
    ],
)
def test_a_parameter_that_cannot_be_right_is_refused_naming_it_and_nothing_is_written(
    as_pete, django_capture_on_commit_callbacks, kind, params, field, message
):
    body = refused(as_pete, kind, params, django_capture_on_commit_callbacks)

    assert list(body) == ["params"] and list(body["params"]) == [field]
    assert message in body["params"][field][0]


def test_a_kind_that_does_not_exist_is_refused_naming_the_kind(as_pete, django_capture_on_commit_callbacks):
    body = refused(as_pete, "lottery", {}, django_capture_on_commit_callbacks)

    choices = "house_edge, statistics, reconciliation, master_game"
    assert body == {"kind": [f"There is no report 'lottery'; choose one of {choices}."]}


def test_a_table_of_another_casino_is_refused(client, ada, rocket, django_capture_on_commit_callbacks):
    # ada reads every casino; a pit manager could not name the other casino at all (test_scope)
    other = Casino.objects.create(name="Other Casino")
    params = {"date_from": DAY, "date_to": DAY, "casino": other.pk, "tables": [rocket.pk]}
    client.force_login(ada)

    body = refused(client, "house_edge", params, django_capture_on_commit_callbacks)

    assert body == {"params": {"tables": [f"Table Rocket 1 is not in casino {other.pk}."]}}


def test_a_shift_in_a_pit_or_a_closing_count_is_no_period_of_a_table(
    as_pete, rocket, pete, dana, django_capture_on_commit_callbacks
):
    pit_shift = shift_start(user=pete, pit=rocket.pit, by=pete)
    shift_start(user=dana, table=rocket, by=pete)
    closer = count(rocket, TableCount.Kind.CLOSER, 10_000, dana, pete)  # it was opened by the fixture

    shift = refused(as_pete, "reconciliation", {"shift": pit_shift.pk}, django_capture_on_commit_callbacks)
    session = refused(as_pete, "reconciliation", {"session": closer.pk}, django_capture_on_commit_callbacks)

    assert "a shift in a pit has no table" in shift["params"]["shift"][0]
    assert f"There is no opening count {closer.pk}" in session["params"]["session"][0]


def test_records_that_exist_start_the_report_and_queue_it_once(
    as_pete, rocket, blackstone, pete, dana, django_capture_on_commit_callbacks
):
    shift_start(user=pete, pit=rocket.pit, by=pete)
    shift = shift_start(user=dana, table=rocket, by=pete)
    opener = TableCount.objects.get(table=rocket)  # the fixture's opening count
    asked = [
        ("house_edge", {"date_from": DAY, "date_to": DAY, "casino": rocket.pit.casino_id,
                        "tables": [rocket.pk, str(blackstone.pk)], "game": "rocket", "dealer": dana.pk,
                        "shift": shift.pk, "group": "dealer"}),
        ("statistics", {"casino": rocket.pit.casino_id, "date": DAY}),
        ("reconciliation", {"shift": shift.pk}),
        ("reconciliation", {"session": opener.pk}),
        ("reconciliation", {"table": rocket.pk, "date_from": DAY, "date_to": DAY}),
    ]

    with django_capture_on_commit_callbacks() as queued:
        answers = [start(as_pete, kind, params) for kind, params in asked]

    assert [answer.status_code for answer in answers] == [202] * len(asked)
    assert Report.objects.count() == len(queued) == len(asked)
    assert Report.objects.get(kind="house_edge").params["tables"] == sorted([rocket.pk, blackstone.pk])


# A form-encoded body (and the browsable API's HTML form): `params` as JSON text

FORMS = {
    "urlencoded": lambda client, body: client.post(
        "/api/reports/", urlencode(body), content_type="application/x-www-form-urlencoded"
    ),
    "multipart": lambda client, body: client.post("/api/reports/", body),  # the browsable API's form
}


@pytest.mark.parametrize("encoding", FORMS)
def test_a_form_gives_the_params_as_json_text_and_starts_the_report_a_json_body_would(
    as_pete, rocket, pete, encoding, django_capture_on_commit_callbacks
):
    # found on the floor: a form's `params` could not be a dict (DictField), so every form was 400
    shift_start(user=pete, pit=rocket.pit, by=pete)
    params = {"table": rocket.pk, "date_from": DAY, "date_to": DAY}

    with django_capture_on_commit_callbacks() as queued:
        answer = FORMS[encoding](as_pete, {"kind": "reconciliation", "params": json.dumps(params)})
    assert answer.status_code == 202, answer.content
    again = start(as_pete, "reconciliation", params)  # the same report, asked for as JSON

    assert again.status_code == 202 and again.json()["id"] == answer.json()["id"]
    assert Report.objects.get().params["table"] == rocket.pk and len(queued) == 1


@pytest.mark.parametrize(
    "params, said",
    [
        ("{table: 1}", "Value must be valid JSON"),
        ('{"table": 1, "table": 2}', "written twice"),
        ("[" * 20 + "]" * 20, "nests more than 16 levels deep"),
        ("[1, 2]", "Give the parameters as one JSON object"),
        ('"table=1"', "Give the parameters as one JSON object"),
    ],
)
@pytest.mark.parametrize("encoding", FORMS)
def test_a_form_whose_params_are_not_one_json_object_is_refused_naming_params(
    as_pete, encoding, params, said, django_capture_on_commit_callbacks
):
    with django_capture_on_commit_callbacks() as queued:
        answer = FORMS[encoding](as_pete, {"kind": "statistics", "params": params})

    assert answer.status_code == 400
    assert list(answer.json()) == ["params"] and said in answer.json()["params"][0]
    assert not Report.objects.exists() and queued == []


@pytest.mark.parametrize("params", ['{"casino": 1, "date": "2026-03-01"}', ["casino"], None])
def test_a_json_body_still_gives_the_params_as_an_object_not_as_text(
    as_pete, params, django_capture_on_commit_callbacks
):
    body = refused(as_pete, "statistics", params, django_capture_on_commit_callbacks)

    assert list(body) == ["params"]


def test_the_browsable_api_draws_a_text_box_for_the_params(as_pete):
    page = as_pete.get("/api/reports/", HTTP_ACCEPT="text/html").content.decode()

    assert re.search(r'<textarea name="params"', page)
