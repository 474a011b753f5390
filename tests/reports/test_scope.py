"""Reports and investigations kept to the reader's pit and casino (issue 14, point 5).

pete runs Pit 1 of the Test Casino (Rocket 1); paul runs Pit 2 of the same casino (Blackstone 9);
the Harbour is another casino (Rocket 7). ada audits every casino; hugo audits the Harbour only
(`StaffCasino`); pia is a pit manager off shift. A pit manager reads the reports of his own pit's
tables and his casino's casino-wide reports; whatever he may not read answers as if it did not
exist, on the pages and through the API, and nothing is written.
"""

import datetime
from importlib import import_module

import pytest
from django.apps import apps as django_apps
from django.test import Client

from casino.roles import AUDITOR, PIT_MANAGER
from reports.models import DayAdjustment, GamingDayClose, Investigation, Report
from reports.services import report_request
from reports.services.runs import MISSING
from tables.models import Casino, Game, Pit, StaffCasino, TableCount
from tables.services import shift_start
from tests.api.conftest import Client as APIClient
from tests.tables.conftest import key, open_table, person

pytestmark = pytest.mark.django_db

DAY = "2026-03-01"
NOWHERE = 987_654  # no record has this number


@pytest.fixture
def floor(rocket, pete, dana, olga):
    """Three tables in two casinos, the people above, and one report and investigation of each
    kind of scope, asked for by the schedule (which reads everything)."""
    casino = rocket.pit.casino
    shift_start(user=pete, pit=rocket.pit, by=pete)
    nine = open_table(
        Pit.objects.create(casino=casino, name="Pit 2"), pete, Game.BLACKSTONE, "Blackstone 9", 5, 500
    )
    harbour = Casino.objects.create(name="Harbour")
    seven = open_table(
        Pit.objects.create(casino=harbour, name="Pit 7"), pete, Game.ROCKET, "Rocket 7", 10, 500
    )
    paul = person("paul", PIT_MANAGER)
    shift_start(user=paul, pit=nine.pit, by=paul)
    olga_at_nine = shift_start(user=olga, table=nine, by=paul)
    hugo = person("hugo", AUDITOR)
    StaffCasino.objects.create(user=hugo, casino=harbour)
    days = {"date_from": DAY, "date_to": DAY}
    reports = {
        "mine": report_request(kind="reconciliation", params={"table": rocket.pk, **days}),
        "theirs": report_request(kind="reconciliation", params={"shift": olga_at_nine.pk}),
        "casino": report_request(kind="statistics", params={"casino": casino.pk, "date": DAY}),
        "harbour": report_request(kind="statistics", params={"casino": harbour.pk, "date": DAY}),
        "everywhere": report_request(kind="house_edge", params=days),
    }
    investigations = {
        "mine": investigation(casino, rocket),
        "theirs": investigation(casino, nine),
        "casino": investigation(casino, None),
        "harbour": investigation(harbour, seven),
    }
    return {
        "rocket": rocket,
        "nine": nine,
        "seven": seven,
        "harbour": harbour,
        "olga_at_nine": olga_at_nine,
        "reports": reports,
        "investigations": investigations,
        "people": {"pete": pete, "paul": paul, "hugo": hugo, "pia": person("pia", PIT_MANAGER)},
    }


def investigation(casino, table) -> Investigation:
    day = datetime.date(2026, 3, 1)
    return Investigation.objects.create(
        key=f"scope-{casino.pk}-{table.pk if table else 'game'}",
        casino=casino,
        table=table,
        game=Game.ROCKET,
        rule=Investigation.Rule.Z_SCORE,
        period_start=day,
        period_end=day,
        measured=3.5,
        limit=3.0,
        detail="Win 3.5 standard deviations from the theoretical.",
    )


def signed_in(user, api=False):
    client = APIClient() if api else Client()
    client.force_login(user)
    return client


def who(floor, name, ada):
    return ada if name == "ada" else floor["people"][name]


SEES = {
    "pete": {"mine", "casino"},
    "paul": {"theirs", "casino"},
    "hugo": {"harbour"},
    "ada": {"mine", "theirs", "casino", "harbour", "everywhere"},
    "pia": set(),  # off shift: nothing, as for tables
}
SEES_INVESTIGATIONS = {
    "pete": {"mine", "casino"},
    "paul": {"theirs", "casino"},
    "hugo": {"harbour"},
    "ada": {"mine", "theirs", "casino", "harbour"},
    "pia": set(),
}


@pytest.mark.parametrize("name", list(SEES))
def test_each_reader_lists_the_reports_of_his_scope_on_the_page_and_through_the_api(floor, ada, name):
    user = who(floor, name, ada)
    ids = {floor["reports"][label].pk: label for label in floor["reports"]}

    page = signed_in(user).get("/reports/")
    answer = signed_in(user, api=True).get("/api/reports/").json()

    assert {ids[report.pk] for report in page.context["reports"]} == SEES[name]
    assert {ids[report["id"]] for report in answer["results"]} == SEES[name]


@pytest.mark.parametrize("name", list(SEES_INVESTIGATIONS))
def test_each_reader_lists_the_investigations_of_his_scope(floor, ada, name):
    ids = {floor["investigations"][label].pk: label for label in floor["investigations"]}

    page = signed_in(who(floor, name, ada)).get("/reports/investigations/")

    assert {ids[found.pk] for found in page.context["investigations"]} == SEES_INVESTIGATIONS[name]


@pytest.mark.parametrize(
    "url",
    [
        "/reports/{}/",
        "/reports/{}/progress/",
        "/reports/{}/csv/",
        "/reports/{}/chart.svg",
        "/api/reports/{}/",
    ],
)
@pytest.mark.parametrize("label", ["theirs", "harbour", "everywhere"])
def test_a_report_outside_the_pit_answers_as_one_that_does_not_exist(floor, url, label):
    Report.objects.update(status=Report.Status.DONE, result={"series": [], "findings": [], "flags": []})
    client = signed_in(floor["people"]["pete"], api=url.startswith("/api"))

    hidden, absent = client.get(url.format(floor["reports"][label].pk)), client.get(url.format(NOWHERE))

    assert hidden.status_code == absent.status_code == 404
    assert hidden.content == absent.content


def test_the_same_reports_open_for_the_pit_manager_who_reads_them(floor):
    client = signed_in(floor["people"]["pete"])

    for label in ("mine", "casino"):
        assert client.get(f"/reports/{floor['reports'][label].pk}/").status_code == 200, label


def record_counts() -> tuple[int, int]:
    return Report.objects.count(), Investigation.objects.filter(status="open").count()


# What pete may not name, and the field the refusal names: each is asked for once with the record
# he does not see and once with a number no record has.
OUTSIDE = [
    ("reconciliation", "table", lambda f: {"table": f["nine"].pk, "date_from": DAY, "date_to": DAY}),
    ("reconciliation", "shift", lambda f: {"shift": f["olga_at_nine"].pk}),
    ("reconciliation", "session", lambda f: {"session": TableCount.objects.get(table=f["nine"]).pk}),
    ("house_edge", "tables", lambda f: {"tables": [f["nine"].pk], "date_from": DAY, "date_to": DAY}),
    ("house_edge", "casino", lambda f: {"casino": f["harbour"].pk, "date_from": DAY, "date_to": DAY}),
    ("house_edge", "shift", lambda f: {"shift": f["olga_at_nine"].pk, "date_from": DAY, "date_to": DAY}),
    ("statistics", "casino", lambda f: {"casino": f["harbour"].pk, "date": DAY}),
]


def nowhere(params: dict, field: str) -> dict:
    return {**params, field: [NOWHERE] if field == "tables" else NOWHERE}


@pytest.mark.parametrize(("kind", "field", "params"), OUTSIDE)
def test_asking_the_api_for_a_report_over_what_one_does_not_see_is_refused_as_if_it_did_not_exist(
    floor, django_capture_on_commit_callbacks, kind, field, params
):
    client = signed_in(floor["people"]["pete"], api=True)
    given = params(floor)
    outside = given[field][0] if field == "tables" else given[field]
    before = record_counts()

    with django_capture_on_commit_callbacks() as queued:
        hidden = client.post("/api/reports/", {"kind": kind, "params": given}, format="json")
        absent = client.post("/api/reports/", {"kind": kind, "params": nowhere(given, field)}, format="json")

    template = MISSING["table" if field == "tables" else field]
    assert hidden.status_code == absent.status_code == 400
    assert hidden.json() == {"params": {field: [template.format(outside)]}}
    assert absent.json() == {"params": {field: [template.format(NOWHERE)]}}
    assert record_counts() == before and queued == []


def test_the_refusal_for_a_table_outside_the_pit_is_the_sentence_for_a_table_that_does_not_exist(floor):
    client = signed_in(floor["people"]["pete"], api=True)
    nine = floor["nine"].pk
    body = {"kind": "reconciliation", "params": {"date_from": DAY, "date_to": DAY}}

    hidden = client.post(
        "/api/reports/", {**body, "params": {**body["params"], "table": nine}}, format="json"
    )
    absent = client.post(
        "/api/reports/", {**body, "params": {**body["params"], "table": NOWHERE}}, format="json"
    )

    sentence = hidden.json()["params"]["table"][0]
    assert sentence == f"There is no table {nine}." and "Blackstone" not in sentence
    assert sentence.replace(str(nine), str(NOWHERE)) == absent.json()["params"]["table"][0]


def test_the_start_form_refuses_a_table_outside_the_pit_naming_nothing_of_it(floor):
    client = signed_in(floor["people"]["pete"])
    before = record_counts()

    form = {"kind": "reconciliation", "table": floor["nine"].pk, "date_from": DAY, "date_to": DAY}
    hidden = client.post("/reports/start/", form)
    absent = client.post("/reports/start/", {**form, "table": NOWHERE})

    assert hidden.status_code == absent.status_code == 400
    page = hidden.content.decode()
    assert (
        f"There is no table {floor['nine'].pk}." in page
        and f"There is no table {NOWHERE}." in absent.content.decode()
    )
    assert "Blackstone 9" not in page and "Harbour" not in page and "Rocket 7" not in page
    assert record_counts() == before


def test_a_pit_manager_names_a_casino_for_a_house_edge_report_and_never_all_of_them(floor):
    client = signed_in(floor["people"]["pete"], api=True)
    days = {"date_from": DAY, "date_to": DAY}

    everywhere = client.post("/api/reports/", {"kind": "house_edge", "params": days}, format="json")
    his = client.post(
        "/api/reports/",
        {"kind": "house_edge", "params": {**days, "casino": floor["rocket"].pit.casino_id}},
        format="json",
    )

    assert everywhere.status_code == 400 and everywhere.json() == {"params": {"casino": ["Choose a casino."]}}
    assert his.status_code == 202 and his.json()["title"].endswith("(Test Casino, by table)")


def test_the_start_form_offers_only_the_casinos_and_tables_one_reads(floor, ada):
    pete = signed_in(floor["people"]["pete"]).get("/reports/").content.decode()
    hugo = signed_in(floor["people"]["hugo"]).get("/reports/").content.decode()
    everyone = signed_in(ada).get("/reports/").content.decode()

    assert ">Rocket 1<" in pete and ">Test Casino<" in pete
    assert all(name not in pete for name in ("Blackstone 9", "Rocket 7", "Harbour"))
    assert ">Rocket 7<" in hugo and ">Harbour<" in hugo
    assert all(name not in hugo for name in ("Blackstone 9", "Rocket 1", "Test Casino"))
    assert all(f">{name}<" in everyone for name in ("Rocket 1", "Blackstone 9", "Rocket 7", "Harbour"))


def test_closing_another_pit_s_investigation_answers_as_one_that_does_not_exist(floor):
    client = signed_in(floor["people"]["pete"])
    theirs = floor["investigations"]["theirs"]
    before = record_counts()

    form = {"key": key(), "findings": "Looked at it."}
    hidden = client.post(f"/reports/investigations/{theirs.pk}/close/", form)
    absent = client.post(f"/reports/investigations/{NOWHERE}/close/", form)

    assert hidden.status_code == absent.status_code == 404 and hidden.content == absent.content
    assert record_counts() == before
    theirs.refresh_from_db()
    assert theirs.status == "open" and theirs.findings == ""


def test_a_pit_manager_closes_his_own_pit_s_investigation(floor):
    mine = floor["investigations"]["mine"]

    answer = signed_in(floor["people"]["pete"]).post(
        f"/reports/investigations/{mine.pk}/close/", {"key": key(), "findings": "A lucky player."}
    )

    mine.refresh_from_db()
    assert answer.status_code == 302 and mine.status == "closed" and mine.closed_by.username == "pete"


def test_an_auditor_held_to_one_casino_asks_for_its_reports_and_no_other(floor):
    client = signed_in(floor["people"]["hugo"], api=True)
    test_casino = floor["rocket"].pit.casino_id

    harbour = client.post(
        "/api/reports/",
        {"kind": "statistics", "params": {"casino": floor["harbour"].pk, "date": "2026-03-02"}},
        format="json",
    )
    other = client.post(
        "/api/reports/", {"kind": "statistics", "params": {"casino": test_casino, "date": DAY}}, format="json"
    )

    assert harbour.status_code == 202
    assert other.status_code == 400
    assert other.json() == {"params": {"casino": [f"There is no casino {test_casino}."]}}


def test_an_auditor_held_to_one_casino_sees_only_its_reports_and_investigations_in_the_admin(floor):
    hugo = floor["people"]["hugo"]
    hugo.is_staff = True  # auditors work in the admin site
    hugo.save()
    client = signed_in(hugo)

    reports = client.get("/admin/reports/report/").context["cl"].queryset
    investigations = client.get("/admin/reports/investigation/").context["cl"].queryset
    elsewhere = client.get(f"/admin/reports/report/{floor['reports']['casino'].pk}/change/")

    assert set(reports) == {floor["reports"]["harbour"]}
    assert set(investigations) == {floor["investigations"]["harbour"]}
    assert elsewhere.status_code == 302  # the admin's answer to an id it does not know


def test_a_report_over_tables_of_two_casinos_is_read_only_by_whoever_reads_every_casino(floor, ada):
    both = [floor["rocket"].pk, floor["seven"].pk]
    report = report_request(
        kind="house_edge", params={"date_from": DAY, "date_to": DAY, "tables": both}, by=ada
    )

    assert report.casino is None and {table.pk for table in report.tables.all()} == set(both)
    assert signed_in(ada).get(f"/reports/{report.pk}/").status_code == 200
    for name in ("pete", "hugo"):
        assert signed_in(floor["people"][name]).get(f"/reports/{report.pk}/").status_code == 404, name


def test_reports_asked_for_before_scopes_were_kept_get_theirs_from_their_parameters(floor):
    shift = floor["olga_at_nine"]
    old = Report.objects.create(kind="reconciliation", key="before", params={"shift": shift.pk})
    casino_wide = Report.objects.create(
        kind="statistics", key="casino", params={"casino": floor["harbour"].pk}
    )

    import_module("reports.migrations.0003_report_scope").scope_of_reports(django_apps, None)

    old.refresh_from_db(), casino_wide.refresh_from_db()
    assert old.casino_id == floor["nine"].pit.casino_id and list(old.tables.all()) == [floor["nine"]]
    assert casino_wide.casino == floor["harbour"] and not casino_wide.tables.exists()


def test_an_auditor_held_to_one_casino_reads_its_closed_days_and_their_adjustments_in_the_admin(floor):
    hugo = floor["people"]["hugo"]
    hugo.is_staff = True  # auditors work in the admin site
    hugo.save()
    pete = floor["people"]["pete"]
    day = datetime.date(2026, 3, 1)
    closes, adjustments = {}, {}
    for name, table in (("harbour", floor["seven"]), ("casino", floor["rocket"])):
        casino = table.pit.casino
        closes[name] = GamingDayClose.objects.create(
            casino=casino, day=day, figures={"tables": []}, signed_by=pete, method="password"
        )
        adjustments[name] = DayAdjustment.objects.create(
            casino=casino, closed=closes[name], day=day + datetime.timedelta(days=1), table=table,
            changes={"fills": -500, "win": 500}, memo="A fill reversed after the close", created_by=pete,
        )
    client = signed_in(hugo)

    closed = client.get("/admin/reports/gamingdayclose/").context["cl"].queryset
    adjusted = client.get("/admin/reports/dayadjustment/").context["cl"].queryset
    elsewhere = client.get(f"/admin/reports/gamingdayclose/{closes['casino'].pk}/change/")

    assert set(closed) == {closes["harbour"]}
    assert set(adjusted) == {adjustments["harbour"]}
    assert elsewhere.status_code == 302  # the admin's answer to an id it does not know
