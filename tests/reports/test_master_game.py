"""The master game report (one row per table of a casino's gaming day), its print stylesheet and
CSV, and the gaming days page and API that close a day."""

import csv
import io
import json
import re
from datetime import timedelta
from pathlib import Path

import pytest
from django.contrib.staticfiles import finders

from casino.roles import PIT_MANAGER
from ledger.models import Transaction
from reports.models import DayAdjustment, GamingDayClose, Report
from reports.periods import today
from reports.services import gaming_day_adjust
from reports.services.master_game import master_game_figures, master_game_shown
from tables.models import Casino, Pit
from tables.services import shift_start
from tests.tables.conftest import person

from .conftest import key, run
from .worked_day import BUY_INS, CLOSER, CREDIT, FILL, HOUSE_WIN, OPENER, drop_counted, play_the_day

pytestmark = pytest.mark.django_db


@pytest.fixture
def counted_day(monkeypatch, day_table, day_shift, dana, pete):
    fill = play_the_day(day_table, dana, pete)
    drop_counted(monkeypatch, BUY_INS - 200)  # 200 short at the soft count: flagged (tolerance 100)
    return fill


def master_game(casino):
    report = run(Report.Kind.MASTER_GAME, {"casino": casino.pk, "date": today().isoformat()})
    assert report.status == Report.Status.DONE, report.error
    return report


def test_one_row_per_table_with_every_figure_and_the_slips_behind_them(counted_day, day_table):
    report = master_game(day_table.pit.casino)

    [row] = report.result["tables"]
    assert (row["opener"], row["fills"], row["credits"], row["drop"], row["closer"]) == (
        OPENER,
        FILL,
        CREDIT,
        BUY_INS - 200,
        CLOSER,
    )
    assert (row["win"], row["system_win"], row["difference"], row["flag"]) == (
        HOUSE_WIN - 200,
        HOUSE_WIN,
        -200,
        True,
    )
    assert report.result["flags"] == ["Rocket 1"] and report.flags == 1
    slip = counted_day.slips.get()
    assert row["records"]["fills"][0]["label"] == f"slip {slip.number}: 500"
    [shift] = report.result["shifts"]  # dana's, still on shift: the ledger's tray at its start only
    assert (shift["dealer"], shift["name"], shift["opener"], shift["status"]) == (
        "dana",
        "Rocket 1",
        OPENER,
        "open",
    )


def test_the_page_links_each_figure_to_its_slip_and_prints_on_a4_landscape(
    client, counted_day, day_table, pete
):
    report = master_game(day_table.pit.casino)
    client.force_login(pete)

    page = client.get(f"/reports/{report.pk}/").content.decode()

    slip = counted_day.slips.get()
    assert f'href="/pit/slip/{slip.pk}/"' in page
    assert "Not closed yet" in page and "over 100" in page
    assert "reports/reports.css" in page and 'class="no-print"' in page
    css = Path(finders.find("reports/reports.css")).read_text()
    assert "@media print" in css and "size: A4 landscape" in css
    assert "header.bar" in css.split("@media print")[1]  # the site's bar is not printed


@pytest.mark.parametrize("reader", ["pete", "ada"])
def test_the_pit_manager_and_the_auditor_open_the_records_behind_each_figure(
    client, counted_day, day_table, pete, ada, reader
):
    # given the report of the day: the table, its two counts' slips and the fill's slip
    report = master_game(day_table.pit.casino)
    [row] = report.result["tables"]
    records = row["records"]
    links = [row["link"]] + [r["link"] for r in records["opener"] + records["closer"] + records["fills"]]
    client.force_login({"pete": pete, "ada": ada}[reader])

    # then each opens for both (pete has no admin: a link there was a page refused to him)
    assert all(link.startswith("/pit/") for link in links) and len(links) == 4
    assert [client.get(link).status_code for link in links] == [200] * 4


def test_the_csv_has_a_row_per_table_and_the_casinos_total(client, counted_day, day_table, pete):
    report = master_game(day_table.pit.casino)
    client.force_login(pete)

    response = client.get(f"/reports/{report.pk}/csv/")

    rows = list(csv.reader(io.StringIO(response.content.decode())))
    assert rows[0][:4] == ["table", "status", "opener", "fills"]
    header = rows[0]
    table, total = dict(zip(header, rows[1], strict=True)), dict(zip(header, rows[2], strict=True))
    assert (table["table"], table["win"], table["system_win"], table["difference"]) == (
        "Rocket 1",
        str(HOUSE_WIN - 200),
        str(HOUSE_WIN),
        "-200",
    )
    assert "slip" in table["records"] and total["table"] == "Casino"


def test_an_uncounted_day_says_so_and_shows_the_keyed_drop(client, day_table, day_shift, dana, pete):
    play_the_day(day_table, dana, pete)
    report = master_game(day_table.pit.casino)
    client.force_login(pete)

    page = client.get(f"/reports/{report.pk}/").content.decode()

    assert report.result["tables"][0]["win"] is None
    assert "not counted yet" in page and f"{BUY_INS:,}" in page


def close_form(secret="pete-password"):
    return {"key": key(), "day": today().isoformat(), "secret": secret}


def test_a_pit_manager_closes_the_day_on_its_page(client, counted_day, day_table, pete):
    casino = day_table.pit.casino
    client.force_login(pete)
    assert "Close and sign" in client.get(f"/reports/days/{casino.pk}/").content.decode()

    response = client.post(f"/reports/days/{casino.pk}/close/", close_form())

    assert response.status_code == 302
    close = GamingDayClose.objects.get()
    assert close.signed_by == pete and close.figures["tables"][0]["difference"] == -200
    report = master_game(casino)
    assert "Closed by pete" in client.get(f"/reports/{report.pk}/").content.decode()


def test_the_days_page_posts_what_was_found_since_once_however_often_it_is_sent(
    client, monkeypatch, counted_day, day_table, pete
):
    casino = day_table.pit.casino
    client.force_login(pete)
    client.post(f"/reports/days/{casino.pk}/close/", close_form())
    drop_counted(monkeypatch, BUY_INS)
    page = client.get(f"/reports/days/{casino.pk}/").content.decode()
    minted = re.search(r'/adjust/">.*?name="key" value="([^"]+)"', page, re.S).group(1)  # the page's key
    form = {"key": minted, "day": today().isoformat()}

    sent = [client.post(f"/reports/days/{casino.pk}/adjust/", form) for _ in range(2)]  # a double tap

    assert [response.status_code for response in sent] == [302, 302]
    [adjustment] = DayAdjustment.objects.all()
    assert adjustment.changes == {"drop": 200, "win": 200}
    assert "1 adjustment since" in client.get(f"/reports/days/{casino.pk}/").content.decode()


def test_a_wrong_password_on_the_page_is_refused_with_a_sentence(client, counted_day, day_table, pete):
    client.force_login(pete)

    response = client.post(f"/reports/days/{day_table.pit.casino_id}/close/", close_form("guess"))

    assert response.status_code == 403
    assert "is not right; nothing was signed" in response.content.decode()
    assert not GamingDayClose.objects.exists()


def test_an_auditor_reads_the_days_but_may_not_close_one(client, counted_day, day_table, ada):
    client.force_login(ada)
    page = client.get(f"/reports/days/{day_table.pit.casino_id}/")
    assert page.status_code == 200 and "Close and sign" not in page.content.decode()

    response = client.post(f"/reports/days/{day_table.pit.casino_id}/close/", close_form("ada-password"))

    assert response.status_code == 403 and "Only a pit manager on shift" in response.content.decode()
    assert not GamingDayClose.objects.exists()


def test_a_dealer_does_not_see_the_days(client, counted_day, day_table, dana):
    client.force_login(dana)

    assert client.get(f"/reports/days/{day_table.pit.casino_id}/").status_code == 404


def api_close(client, casino, secret="pete-password", idempotency="close-1"):
    return client.post(
        "/api/reports/days/",
        {"casino": casino.pk, "day": today().isoformat(), "secret": secret},
        content_type="application/json",
        headers={"Idempotency-Key": idempotency},
    )


def test_the_api_closes_a_day_once_and_lists_it(client, counted_day, day_table, pete):
    casino = day_table.pit.casino
    client.force_login(pete)

    response = api_close(client, casino)
    again = api_close(client, casino)  # a retry with the same key: the same answer
    other = api_close(client, casino, idempotency="close-2")

    assert response.status_code == 201 and again.json()["id"] == response.json()["id"]
    assert response.json()["signed_by"] == "pete" and "secret" not in response.json()
    assert other.status_code == 409 and "was closed already" in other.json()["detail"]
    [listed] = client.get("/api/reports/days/").json()["results"]
    assert listed["day"] == today().isoformat() and listed["later"] == []


def test_the_api_refuses_a_wrong_password_and_writes_nothing(client, counted_day, day_table, pete):
    client.force_login(pete)

    response = api_close(client, day_table.pit.casino, secret="guess")

    assert response.status_code == 403 and "nothing was signed" in response.json()["detail"]
    assert not GamingDayClose.objects.exists()


def test_the_api_posts_what_was_found_since_a_close(client, monkeypatch, counted_day, day_table, pete):
    casino = day_table.pit.casino
    client.force_login(pete)
    api_close(client, casino)
    drop_counted(monkeypatch, BUY_INS)  # recounted: the 200 was there after all

    body = {"casino": casino.pk, "day": today().isoformat()}
    unkeyed = client.post("/api/reports/days/adjust/", body, content_type="application/json")
    response = client.post(
        "/api/reports/days/adjust/", body, content_type="application/json", HTTP_IDEMPOTENCY_KEY="adjust-1"
    )
    again = client.post(
        "/api/reports/days/adjust/", body, content_type="application/json", HTTP_IDEMPOTENCY_KEY="adjust-1"
    )

    assert unkeyed.status_code == 400 and "Idempotency-Key" in unkeyed.json()
    assert response.status_code == 201
    [made] = response.json()
    assert made["changes"] == {"drop": 200, "win": 200} and made["closed_day"] == today().isoformat()
    assert again.status_code == 201 and again.json() == response.json()  # the retry: the first answer
    assert DayAdjustment.objects.count() == 1


def test_the_csv_tells_a_dealers_shifts_at_a_table_apart_by_their_times(
    client, counted_day, day_table, day_shift, pete
):
    report = master_game(day_table.pit.casino)
    client.force_login(pete)

    rows = list(csv.reader(io.StringIO(client.get(f"/reports/{report.pk}/csv/").content.decode())))

    [shift] = report.result["shifts"]
    end = shift["end"][11:16] if shift["end"] else "on shift"
    assert [row[0] for row in rows if row[0].startswith("shift of")] == [
        f"shift of dana at Rocket 1, {shift['start'][11:16]} to {end}"
    ]


@pytest.fixture
def adjusted(client, monkeypatch, counted_day, day_table, pete):
    """The day closed by pete, then its drop recounted (the 200 was there) and posted as found since."""
    casino = day_table.pit.casino
    client.force_login(pete)
    client.post(f"/reports/days/{casino.pk}/close/", close_form())
    drop_counted(monkeypatch, BUY_INS)
    gaming_day_adjust(casino=casino, day=today(), by=pete, key=key())
    client.logout()
    return DayAdjustment.objects.get()


@pytest.mark.parametrize("reader", ["pete", "ada"])
def test_the_reports_link_a_day_adjustment_to_a_page_its_readers_open(
    client, adjusted, day_table, pete, ada, reader
):
    # given the closed day's report, which lists what was found for it since
    report = master_game(day_table.pit.casino)
    client.force_login({"pete": pete, "ada": ada}[reader])
    [later] = master_game_shown(report)["later"]

    # then its link is the adjustment's page in the reports (pete has no admin), which shows it
    assert later["link"] == f"/reports/adjustments/{adjusted.pk}/"
    assert f'href="{later["link"]}"' in client.get(f"/reports/{report.pk}/").content.decode()
    page = client.get(later["link"])
    assert page.status_code == 200
    text = page.content.decode()
    assert "Rocket 1" in text and "+200" in text and adjusted.memo in text and "pete" in text


def test_a_day_adjustment_outside_ones_scope_answers_404(client, adjusted, dana, pete):
    other = Pit.objects.create(casino=Casino.objects.create(name="Other Casino"), name="Pit 9")
    pam = person("pam", PIT_MANAGER)
    shift_start(user=pam, pit=other, by=pam)
    link = f"/reports/adjustments/{adjusted.pk}/"

    client.force_login(pete)
    answers = {"missing": client.get(f"/reports/adjustments/{adjusted.pk + 1}/").status_code}
    for user in (pete, pam, dana):
        client.force_login(user)
        answers[user.username] = client.get(link).status_code

    # pete reads it; another casino's pit manager and a dealer get what an id that does not exist gets
    assert answers == {"pete": 200, "pam": 404, "dana": 404, "missing": 404}


@pytest.fixture
def closed_before_the_pages(counted_day, day_table, pete):
    """The day closed as an old close stored it: a bare cage move (the credit) and an adjustment of
    an earlier closed day posted into this one linked to the admin (a close is sealed, never
    rewritten)."""
    casino = day_table.pit.casino
    signed = {"signed_by": pete, "method": "password"}
    yesterday = today() - timedelta(days=1)
    earlier = GamingDayClose.objects.create(casino=casino, day=yesterday, figures={}, **signed)
    adjustment = DayAdjustment.objects.create(
        casino=casino, closed=earlier, day=today(), table=day_table,
        changes={"fills": -500, "win": 500}, memo="A fill reversed after the close", created_by=pete,
    )  # fmt: skip
    credit = Transaction.objects.get(kind=Transaction.Kind.CREDIT, table=day_table)
    figures = master_game_figures(casino.pk, today())
    [row] = figures["tables"]
    row["records"]["credits"] = [
        {"label": "credit 14:00 (no slip)", "link": f"/admin/ledger/transaction/{credit.pk}/change/"}
    ]
    [stored] = figures["adjustments"]
    stored["link"] = f"/admin/reports/dayadjustment/{adjustment.pk}/change/"
    GamingDayClose.objects.create(casino=casino, day=today(), figures=figures, **signed)
    return credit, adjustment


def test_the_api_links_a_closed_days_figures_as_its_page_does_never_to_the_admin(
    client, closed_before_the_pages, day_table, pete
):
    credit, adjustment = closed_before_the_pages
    report = master_game(day_table.pit.casino)
    client.force_login(pete)

    listed = {day["day"]: day for day in client.get("/api/reports/days/").json()["results"]}
    figures = listed[today().isoformat()]["figures"]

    # the page's figures, links rebuilt, which pete (no admin) opens
    assert figures == master_game_shown(report)["result"]
    assert "/admin/" not in json.dumps(figures)
    [row] = figures["tables"]
    [moved] = row["records"]["credits"]
    [adjusted] = figures["adjustments"]
    assert (moved["link"], adjusted["link"]) == (
        f"/pit/transactions/{credit.pk}/",
        f"/reports/adjustments/{adjustment.pk}/",
    )
    assert [client.get(link).status_code for link in (moved["link"], adjusted["link"])] == [200, 200]
