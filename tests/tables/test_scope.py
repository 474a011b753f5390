"""Refusals never confirm what a user may not see (issue 15, point 5).

A record the user does not see (a table, seat session, shoe, hand, approval request or count at a
table outside their scope; a report or investigation for a dealer) is answered exactly as an id
that does not exist: the same status and the same body, on the tablet, the pit, the report pages
and the API, for a read and for a change alike, and nothing is written. A record the user sees but
may not act on is a 403 with a sentence.

olga deals at Blackstone 1 and does not see Rocket 1 (dana's table); paul runs another pit; dana,
a dealer, reads no reports.
"""

import datetime

import pytest
from django.apps import apps
from django.contrib.auth import get_user_model
from django.test import Client

from casino.roles import PIT_MANAGER
from reports.models import Investigation, Report
from tables.models import Game, Pit, TableCount
from tables.services import fill_request, hand_start, shift_start
from tests.api.conftest import Client as APIClient

from .conftest import key, open_table, person, seat

pytestmark = pytest.mark.django_db

MISSING = 987_654  # an id no record has
RECORDED_APPS = ("casino", "tables", "ledger", "reports")
SECRET_FORM = {"key": "k-1", "secret": "paul-password", "reason": "no", "decision": "approve"}

# (who, method, url): every page and endpoint that names one record, with what it would send.
PAGES = [
    ("olga", "get", "/tablet/{table}/"),
    ("olga", "get", "/tablet/{table}/poll/"),
    ("olga", "post", "/tablet/{table}/seats/"),
    ("olga", "post", "/tablet/{table}/shoe/"),
    ("olga", "post", "/tablet/{table}/hands/"),
    ("olga", "post", "/tablet/{table}/seats/{session}/buy/"),
    ("olga", "post", "/tablet/{table}/seats/{session}/leave/"),
    ("olga", "get", "/tablet/hands/{hand}/"),
    ("olga", "get", "/tablet/hands/{hand}/poll/"),
    ("olga", "post", "/tablet/hands/{hand}/card/"),
    ("olga", "post", "/tablet/hands/{hand}/void/"),
    ("olga", "post", "/tablet/hands/{hand}/correct-card/"),
    ("paul", "get", "/pit/tables/{table}/"),
    ("paul", "get", "/pit/tables/{table}/count/"),
    ("paul", "post", "/pit/tables/{table}/count/"),
    ("paul", "post", "/pit/tables/{table}/tray/"),
    ("paul", "get", "/pit/tables/{table}/settings/"),
    ("paul", "post", "/pit/tables/{table}/settings/"),
    ("paul", "get", "/pit/counts/{count}/"),
    ("paul", "get", "/pit/slip/{slip}/"),
    ("paul", "get", "/pit/hands/{hand}/"),
    ("paul", "post", "/pit/approvals/{approval}/"),
    ("dana", "get", "/reports/{report}/"),
    ("dana", "get", "/reports/{report}/progress/"),
    ("dana", "get", "/reports/{report}/csv/"),
    ("dana", "get", "/reports/{report}/chart.svg"),
    ("dana", "post", "/reports/investigations/{investigation}/close/"),
]
API = [
    ("olga", "get", "/api/tables/{table}/"),
    ("olga", "post", "/api/tables/{table}/seats/"),
    ("olga", "post", "/api/tables/{table}/shoes/"),
    ("olga", "post", "/api/tables/{table}/hands/"),
    ("olga", "post", "/api/tables/{table}/cards/"),
    ("olga", "patch", "/api/tables/{table}/settings/"),
    ("olga", "get", "/api/seat-sessions/{session}/"),
    ("olga", "post", "/api/seat-sessions/{session}/buy-in/"),
    ("olga", "post", "/api/seat-sessions/{session}/cash-out/"),
    ("olga", "get", "/api/shoes/{shoe}/"),
    ("olga", "post", "/api/shoes/{shoe}/retire/"),
    ("olga", "get", "/api/hands/{hand}/"),
    ("olga", "post", "/api/hands/{hand}/cards/"),
    ("olga", "post", "/api/hands/{hand}/decisions/"),
    ("olga", "post", "/api/hands/{hand}/settle/"),
    ("olga", "post", "/api/hands/{hand}/void/"),
    ("olga", "post", "/api/hands/{hand}/card-corrections/"),
    ("olga", "get", "/api/approvals/{approval}/"),
    ("olga", "post", "/api/approvals/{approval}/approve/"),
    ("olga", "post", "/api/approvals/{approval}/reject/"),
    ("dana", "get", "/api/reports/{report}/"),
]
API_BODY = {"seat": 3, "buy_in": 50, "amount": 50, "rank": 5, "expected_seq": 0, "reason": "no"}


@pytest.fixture
def rocket_records(rocket, blackstone, dana, olga, pete):
    """At Rocket 1 (dana's, in pete's pit): a seated player, a shoe, a hand, a pending fill, the
    opening count; a finished report and an open investigation about it. olga deals at Blackstone
    1 in the same pit; paul runs Pit 2."""
    shift_start(user=pete, pit=rocket.pit, by=pete)
    shift_start(user=dana, table=rocket, by=pete)
    shift_start(user=olga, table=blackstone, by=pete)
    paul = person("paul", PIT_MANAGER)
    shift_start(user=paul, pit=Pit.objects.create(casino=rocket.pit.casino, name="Pit 2"), by=paul)
    session = seat(rocket, 1, 200, dana)
    hand = hand_start(table=rocket, bets={1: 20}, by=dana, key=key())
    fill = fill_request(table=rocket, denominations={"25": 4}, by=dana, secret="dana-password", key=key())
    report = Report.objects.create(
        kind=Report.Kind.HOUSE_EDGE, params={}, key="scope", status=Report.Status.DONE, result={"series": []}
    )
    return {
        "table": rocket.pk,
        "session": session.pk,
        "shoe": rocket.shoes.get(state="in_play").pk,
        "hand": hand.pk,
        "approval": fill.pk,
        "count": TableCount.objects.get(table=rocket).pk,
        "slip": fill.slips.get().pk,
        "report": report.pk,
        "investigation": investigation_of(rocket).pk,
    }


def investigation_of(table) -> Investigation:
    day = datetime.date(2026, 1, 5)
    return Investigation.objects.create(
        key="scope",
        casino=table.pit.casino,
        table=table,
        game=table.game,
        rule=Investigation.Rule.choices[0][0],
        period_start=day,
        period_end=day,
        measured=3.0,
        limit=2.0,
        detail="A hold outside its limit.",
    )


def records() -> dict[str, int]:
    ours = [model for app in RECORDED_APPS for model in apps.get_app_config(app).get_models()]
    return {model._meta.label: model.objects.count() for model in ours}


def missing(ids: dict) -> dict:
    return dict.fromkeys(ids, MISSING)


def send(client, method: str, url: str, api: bool):
    if method == "get":
        return client.get(url)
    if api and method == "patch":
        return client.patch(url, API_BODY, format="json", HTTP_IDEMPOTENCY_KEY=key())
    if api:
        return client.change(url, API_BODY)
    return client.post(url, SECRET_FORM)


def signed_in(user, api: bool):
    client = APIClient() if api else Client()
    client.force_login(user)
    return client


def user(name: str):
    return get_user_model().objects.get(username=name)


def both(client, ids, method, url, api):
    """The answers to the id the user may not see and to an id that does not exist."""
    return send(client, method, url.format(**ids), api), send(client, method, url.format(**missing(ids)), api)


@pytest.mark.parametrize(("who", "method", "url"), PAGES)
def test_a_page_of_a_record_the_user_does_not_see_answers_as_one_that_does_not_exist(
    rocket_records, who, method, url
):
    client = signed_in(user(who), api=False)  # signing in is audited: before the count
    before = records()

    hidden, absent = both(client, rocket_records, method, url, api=False)

    assert hidden.status_code == absent.status_code == 404
    assert hidden.content == absent.content
    assert b"Rocket 1" not in hidden.content
    assert records() == before


@pytest.mark.parametrize(("who", "method", "url"), API)
def test_the_api_answers_a_record_the_user_does_not_see_as_one_that_does_not_exist(
    rocket_records, who, method, url
):
    client = signed_in(user(who), api=True)
    before = records()

    hidden, absent = both(client, rocket_records, method, url, api=True)

    assert hidden.status_code == absent.status_code == 404
    assert hidden.json() == absent.json() and "Rocket 1" not in hidden.json()["detail"]
    assert records() == before


def test_a_record_the_user_sees_but_may_not_act_on_is_a_403_with_a_sentence(rocket_records, ada):
    # ada audits: she sees Rocket 1's hand, so her refusal may say why
    pages, api = signed_in(ada, api=False), signed_in(ada, api=True)
    before = records()

    page = pages.post(f"/tablet/hands/{rocket_records['hand']}/card/", {"key": key(), "seq": 0, "rank": 5})
    answer = api.change(f"/api/hands/{rocket_records['hand']}/cards/", {"rank": 5, "expected_seq": 0})

    assert page.status_code == 403 and "You may not deal at Rocket 1" in page.content.decode()
    assert (answer.status_code, answer.json()) == (
        403,
        {"detail": "Your role reads the tables; it cannot change anything at them."},
    )
    assert records() == before


def test_another_pit_s_manager_does_not_see_its_table_but_his_own_opens(rocket_records, pete):
    # the scoped fetch narrows, it does not refuse everything: paul's own table still opens
    paul_table = open_table(Pit.objects.get(name="Pit 2"), pete, Game.BLACKSTONE, "Blackstone 9", 5, 500)
    client = signed_in(user("paul"), api=False)

    assert client.get(f"/pit/tables/{paul_table.pk}/").status_code == 200
    assert client.get(f"/pit/tables/{rocket_records['table']}/").status_code == 404


def test_the_table_s_dealer_changes_a_record_read_by_id_not_looked_up_among_the_tables_seen(
    rocket_records, dana, olga, monkeypatch
):
    # the scoped lookup is what a refused user needs (404 or 403); whoever may deal at the table
    # sees it, so their change reads its record by id alone (issue 17: the lookup cost more than
    # many a change)
    import tables.api.views
    import tables.views
    from tables.selectors import at_tables_seen

    looked_up = []

    def counted(records, user, *path):
        looked_up.append(user.username)
        return at_tables_seen(records, user, *path)

    monkeypatch.setattr(tables.views, "at_tables_seen", counted)
    monkeypatch.setattr(tables.api.views, "at_tables_seen", counted)
    hand = rocket_records["hand"]
    page, api = signed_in(dana, api=False), signed_in(dana, api=True)

    tapped = page.post(f"/tablet/hands/{hand}/card/", {"key": key(), "seq": 0, "rank": 5})
    sent = api.change(f"/api/hands/{hand}/cards/", {"rank": 6, "expected_seq": 1})

    assert tapped.status_code == 302 and sent.status_code == 201, sent.content
    assert sent.json()["seq"] == 2
    assert looked_up == []

    # olga deals at another table: her change is looked up among her tables, and is not found
    other_api, other_page = signed_in(olga, api=True), signed_in(olga, api=False)
    assert other_api.change(f"/api/hands/{hand}/cards/", {"rank": 7, "expected_seq": 2}).status_code == 404
    tapped = other_page.post(f"/tablet/hands/{hand}/card/", {"key": key(), "seq": 2, "rank": 7})
    assert tapped.status_code == 404
    assert looked_up == ["olga", "olga"]
