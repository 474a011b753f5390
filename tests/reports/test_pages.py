"""Report pages and the API: who may see them, starting a report, progress, result, CSV, chart."""

import csv
import io
import re

import pytest

from reports.models import Investigation, Report, VarianceRules
from reports.periods import today
from reports.services import report_request, report_run
from tables.models import Game
from tables.services import shift_start

from .conftest import key, open_table, rocket_hands, run, seated

pytestmark = pytest.mark.django_db


def signed_in(client, user):
    client.force_login(user)
    return client


def house_edge_form(casino=""):
    day = today().isoformat()
    return {"kind": "house_edge", "date_from": day, "date_to": day, "group": "table", "casino": casino}


@pytest.fixture(autouse=True)
def pete_on_shift(pete, pit):
    """pete runs the test pit: off shift, a pit manager reads no report (docs/reports.md, Scope)."""
    shift_start(user=pete, pit=pit, by=pete)


@pytest.fixture
def finished(rocket, dana):
    rocket_hands(seated(rocket, dana), 2, dana)
    day = today().isoformat()
    return run(Report.Kind.HOUSE_EDGE, {"date_from": day, "date_to": day, "casino": rocket.pit.casino_id})


def test_dealers_cannot_see_or_start_reports(client, dana, finished):
    signed_in(client, dana)

    for url in ["/reports/", "/reports/investigations/", "/api/reports/"]:
        assert client.get(url).status_code == 403, url
    for url in [  # a report a dealer does not see is answered as one that does not exist
        f"/reports/{finished.pk}/",
        f"/reports/{finished.pk}/csv/",
        f"/reports/{finished.pk}/chart.svg",
        f"/api/reports/{finished.pk}/",
    ]:
        assert client.get(url).status_code == 404, url
    assert client.post("/reports/start/", house_edge_form()).status_code == 403
    assert (
        client.post(
            "/api/reports/", {"kind": "house_edge", "params": {}}, content_type="application/json"
        ).status_code
        == 403
    )


def test_a_pit_manager_starts_a_report_and_opens_its_result(
    client, pete, rocket, dana, in_process, django_capture_on_commit_callbacks
):
    rocket_hands(seated(rocket, dana), 2, dana)
    signed_in(client, pete)
    assert client.get("/reports/").status_code == 200

    with django_capture_on_commit_callbacks(execute=True):
        response = client.post("/reports/start/", house_edge_form(rocket.pit.casino_id))

    report = Report.objects.get()
    assert response.status_code == 302 and response["Location"] == f"/reports/{report.pk}/"
    page = client.get(response["Location"]).content.decode()
    assert report.status == "done" and "Rocket 1" in page and "Download CSV" in page
    assert f'src="/reports/{report.pk}/chart.svg"' in page


def test_an_auditor_may_run_reports_too(client, ada):
    signed_in(client, ada)

    response = client.post("/reports/start/", {"kind": "statistics", "casino": "", "date": "2026-01-05"})

    assert response.status_code == 400 and "Choose a casino" in response.content.decode()


def test_the_progress_bar_polls_until_the_report_is_done(client, pete, rocket):
    signed_in(client, pete)
    day = today().isoformat()
    report = Report.objects.create(
        kind="reconciliation",
        key="k",
        title="Waiting",
        status="running",
        progress=40,
        stage="Hands: 10 of 25 replayed",
        params={"table": rocket.pk, "date_from": day, "date_to": day},
        casino=rocket.pit.casino,
    )
    report.tables.set([rocket])

    running = client.get(f"/reports/{report.pk}/progress/")
    body = running.content.decode()
    assert '<progress max="100" value="40">' in body and 'hx-trigger="every 1s"' in body
    assert "Hands: 10 of 25 replayed" in body and "HX-Refresh" not in running

    Report.objects.filter(pk=report.pk).update(status="done", progress=100, result={"findings": []})
    done = client.get(f"/reports/{report.pk}/progress/")
    assert done["HX-Refresh"] == "true" and "hx-trigger" not in done.content.decode()


def test_the_result_downloads_as_csv(client, pete, finished):
    response = signed_in(client, pete).get(f"/reports/{finished.pk}/csv/")

    assert response["Content-Type"].startswith("text/csv")
    rows = list(csv.reader(io.StringIO(response.content.decode())))
    assert rows[0][:4] == ["table", "games", "hands", "handle"]
    assert rows[1][:4] == ["Rocket 1", "rocket", "2", "140"] and rows[-1][0] == "All"


def test_the_hold_chart_is_svg_with_no_script(client, pete, finished):
    response = signed_in(client, pete).get(f"/reports/{finished.pk}/chart.svg")

    svg = response.content.decode()
    assert response["Content-Type"] == "image/svg+xml"
    assert svg.startswith("<svg") and "<polygon" in svg and "<polyline" in svg and "cumulative hold" in svg
    assert "<script" not in svg and "style=" not in svg


def test_the_house_edge_page_says_how_each_edge_was_found_and_shows_the_best_play_chart(
    client, pete, finished
):
    page = signed_in(client, pete).get(f"/reports/{finished.pk}/").content.decode()

    assert "Fresh shoe (exact)" in page and "simulated: dealt to the cut card, intervals by shoe" in page
    assert "Rocket: best play" in page and "Yours \\ dealer's" in page


def test_report_pages_carry_no_inline_script_or_style(client, pete, finished):
    signed_in(client, pete)
    for url in ["/reports/", f"/reports/{finished.pk}/", "/reports/investigations/"]:
        page = client.get(url).content.decode()
        assert not re.search(r"<script(?![^>]*\bsrc=)", page), url
        assert " style=" not in page and " on" + "click=" not in page, url


def test_a_pit_manager_closes_an_investigation_on_its_page(client, pete, ada, rocket, dana):
    VarianceRules.objects.create(casino=rocket.pit.casino, z_limit=0.1)
    rocket_hands(seated(rocket, dana), 3, dana)
    run(Report.Kind.STATISTICS, {"casino": rocket.pit.casino_id, "date": today().isoformat()})
    investigation = Investigation.objects.get()

    refused = signed_in(client, ada).post(
        f"/reports/investigations/{investigation.pk}/close/", {"key": key(), "findings": "x"}
    )
    assert refused.status_code == 403
    page = signed_in(client, pete).get("/reports/investigations/").content.decode()
    assert "Close with these findings" in page
    minted = re.search(r'name="key" value="([0-9a-f]+)"', page).group(1)  # the page's own key
    url = f"/reports/investigations/{investigation.pk}/close/"
    form = {"key": minted, "findings": "Three lucky hands."}
    closed, again = client.post(url, form), client.post(url, form)  # a double tap

    assert (closed.status_code, again.status_code) == (302, 302)  # the second is answered as the first
    investigation.refresh_from_db()
    assert investigation.status == "closed" and investigation.findings == "Three lucky hands."


def test_reports_start_from_the_api_once_and_report_their_progress(client, pete, rocket):
    signed_in(client, pete)
    day = today().isoformat()
    body = {"kind": "reconciliation", "params": {"table": rocket.pk, "date_from": day, "date_to": day}}

    first = client.post("/api/reports/", body, content_type="application/json")
    again = client.post("/api/reports/", body, content_type="application/json")

    assert first.status_code == again.status_code == 202
    assert first.json()["id"] == again.json()["id"] and Report.objects.count() == 1
    detail = client.get(f"/api/reports/{first.json()['id']}/").json()
    assert detail["status"] in ("pending", "running", "done") and "progress" in detail
    bad = client.post("/api/reports/", {"kind": "statistics", "params": {}}, content_type="application/json")
    assert bad.status_code == 400 and bad.json() == {"params": {"casino": ["Choose a casino."]}}


def test_staff_see_how_often_the_worker_died_running_a_report(client, pete, rocket, settings):
    settings.REPORTS_MAX_DELIVERIES = 3
    day = today().isoformat()
    report = report_request(
        kind="reconciliation", params={"table": rocket.pk, "date_from": day, "date_to": day}, by=pete
    )
    signed_in(client, pete)
    # the record as dead workers leave it: message "task-1:0" killed its worker once and runs again
    Report.objects.filter(pk=report.pk).update(status="running", delivery="task-1:0", deliveries=2)
    progress = client.get(f"/reports/{report.pk}/progress/").content.decode()
    # ... then killed it on that delivery and the next: the fourth fails the report
    Report.objects.filter(pk=report.pk).update(deliveries=3, attempts=3)
    report_run(report_id=report.pk, delivery="task-1:0")

    page = client.get(f"/reports/{report.pk}/").content.decode()
    answer = client.get(f"/api/reports/{report.pk}/").json()

    assert "delivered 2 times: the worker died 1 time running it" in progress
    assert "delivered 4 times: the worker died 3 times running it" in page
    assert "The report failed: The worker died 3 times running this report" in page
    assert (answer["status"], answer["attempts"], answer["deliveries"], answer["worker_deaths"]) == (
        "failed",
        3,
        4,
        3,
    )
    assert answer["error"].startswith("The worker died 3 times")


def test_an_investigation_closed_without_the_right_answers_with_the_page_and_its_sentence(
    client, ada, rocket, dana
):
    VarianceRules.objects.create(casino=rocket.pit.casino, z_limit=0.1)
    rocket_hands(seated(rocket, dana), 3, dana)
    run(Report.Kind.STATISTICS, {"casino": rocket.pit.casino_id, "date": today().isoformat()})
    investigation = Investigation.objects.get()

    refused = signed_in(client, ada).post(
        f"/reports/investigations/{investigation.pk}/close/", {"key": key(), "findings": "x"}
    )

    page = refused.content.decode()
    assert refused.status_code == 403 and "Only a pit manager closes an investigation." in page
    assert "<h1>Investigations</h1>" in page
    investigation.refresh_from_db()
    assert investigation.status == "open"


def test_report_titles_name_the_casino_and_the_table_on_the_page_and_the_csv(client, pete, rocket, dana):
    # given: a reconciliation of Rocket 1 and a statistics report of its casino
    rocket_hands(seated(rocket, dana), 1, dana)
    day = today().isoformat()
    reconciled = run(Report.Kind.RECONCILIATION, {"table": rocket.pk, "date_from": day, "date_to": day})
    statistics = run(Report.Kind.STATISTICS, {"casino": rocket.pit.casino_id, "date": day})
    signed_in(client, pete)

    # then: their titles say "Test Casino" and "Rocket 1", never "table 1" or "casino 1"
    assert str(reconciled) == f"Reconciliation (chips, cards, hands): {day} (Test Casino, Rocket 1)"
    assert str(statistics) == f"Statistics and variance rules: {day} (Test Casino)"
    page = client.get(f"/reports/{reconciled.pk}/").content.decode()
    assert "<h1>Reconciliation (chips, cards, hands): " in page and "(Test Casino, Rocket 1)</h1>" in page
    assert "Test Casino" in client.get("/reports/").content.decode()
    assert re.search(r"table \d|casino \d", page + str(statistics)) is None
    download = client.get(f"/reports/{reconciled.pk}/csv/")["Content-Disposition"]
    assert download.endswith(f'-reconciliation-chips-cards-hands-{day}-test-casino-rocket-1.csv"')


def test_the_reports_page_links_the_gaming_days_of_each_casino_read(client, pit, pete):
    page = signed_in(client, pete).get("/reports/").content.decode()

    assert f'href="/reports/days/{pit.casino_id}/"' in page
    assert f"Gaming days of {pit.casino}" in page


def test_a_table_number_past_64_bits_on_the_start_form_is_refused_not_a_500(client, pete):
    # The form's table goes to a house-edge report as its `tables`, a list the database was asked
    # about as given: a number past 64 bits overflowed the query.
    form = {**house_edge_form(), "casino": "", "table": str(2**64)}

    answer = signed_in(client, pete).post("/reports/start/", form)

    assert answer.status_code == 400
    assert "must be a record number" in answer.content.decode()
    assert not Report.objects.exists()


def test_the_statistics_page_counts_a_games_uncounted_days_table_by_table(
    client, ada, pit, pete, rocket, dana
):
    # given: two Rocket tables that played today, neither counted yet
    second = open_table(pit, pete, Game.ROCKET, "Rocket 2", 10, 500, decks=8)
    rocket_hands(seated(rocket, dana), 1, dana)
    rocket_hands(seated(second, dana), 1, dana)
    report = run(Report.Kind.STATISTICS, {"casino": rocket.pit.casino_id, "date": today().isoformat()})

    page = re.sub(r"\s+", " ", signed_in(client, ada).get(f"/reports/{report.pk}/").content.decode())

    # then: each table has its one day, and the game two tables' days, never "2 days" of one day
    assert page.count("(1 table day not counted yet)") == 2 * 3  # day, month and year of each table
    assert page.count("(2 table days not counted yet)") == 3
    assert "2 days not counted yet" not in page
