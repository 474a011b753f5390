"""Ratings, slips, hands and the ledger kept to the reader's pit and casino (issue 14, point 5).

dana deals at Rocket 1 in pete's pit (Test Casino, Pit 1); olga deals at Blackstone 9 in paul's
pit (Pit 2, same casino); Rocket 7 stands in the Harbour, another casino. ada audits every casino;
hugo audits the Harbour only (`StaffCasino`).
"""

import pytest
from django.test import Client

from casino.roles import AUDITOR, PIT_MANAGER
from ledger.models import Account, Transaction
from tables.models import Casino, Game, Pit, Slip, StaffCasino, Table
from tables.pit.presenters import serial_ranges
from tables.services import fill_request, hand_start, shift_start
from tests.api.conftest import Client as APIClient

from .conftest import key, open_table, person, play, seat
from .test_hands import settle

pytestmark = pytest.mark.django_db

MISSING = 987_654  # an id no record has


@pytest.fixture
def floor(rocket, dana, olga, pete):
    shift_start(user=pete, pit=rocket.pit, by=pete)
    shift_start(user=dana, table=rocket, by=pete)
    nine = open_table(
        Pit.objects.create(casino=rocket.pit.casino, name="Pit 2"), pete, Game.ROCKET, "Blackstone 9", 10, 500
    )
    harbour = Casino.objects.create(name="Harbour")
    seven = open_table(
        Pit.objects.create(casino=harbour, name="Pit 7"), pete, Game.ROCKET, "Rocket 7", 10, 500
    )
    paul = person("paul", PIT_MANAGER)
    shift_start(user=paul, pit=nine.pit, by=paul)
    shift_start(user=olga, table=nine, by=paul)
    seat(nine, 1, 500, olga, name="Mr Lee")  # plays in paul's pit only
    hand = settle(
        play(hand_start(table=nine, bets={1: 20}, by=olga, key=key()), [5, 9, 4, 9], [("hit",)], olga), olga
    )
    fill_request(table=rocket, denominations={"25": 4}, by=dana, secret="dana-password", key=key())
    hugo = person("hugo", AUDITOR)
    StaffCasino.objects.create(user=hugo, casino=harbour)
    return {"rocket": rocket, "nine": nine, "seven": seven, "hand": hand, "paul": paul, "hugo": hugo}


def signed_in(user, api=False):
    client = APIClient() if api else Client()
    client.force_login(user)
    return client


def rating_table(page: str) -> str:
    return page[page.index('<table class="list rating">') :].split("</table>")[0]


def test_a_player_seen_only_in_another_pit_is_rated_as_one_never_seated(floor, pete):
    client = signed_in(pete)

    elsewhere = rating_table(client.get("/pit/ratings/", {"player": "Mr Lee"}).content.decode())
    nobody = rating_table(client.get("/pit/ratings/", {"player": "Mr Nobody"}).content.decode())
    paul_sees = rating_table(
        signed_in(floor["paul"]).get("/pit/ratings/", {"player": "Mr Lee"}).content.decode()
    )

    assert elsewhere.replace("Mr Lee", "Mr Nobody") == nobody
    assert '<th>Hands</th><td class="num">1<' in paul_sees  # his own pit's play is counted


def test_the_dealers_pace_lists_only_the_dealers_of_the_pit(floor, pete):
    page = signed_in(pete).get("/pit/ratings/").content.decode()
    pauls = signed_in(floor["paul"]).get("/pit/ratings/").content.decode()

    assert "<td>dana</td>" in page and "<td>olga</td>" not in page
    assert "<td>olga</td>" in pauls and "<td>dana</td>" not in pauls


def test_the_slips_page_lists_the_pit_s_own_serials_and_every_gap(floor, pete):
    year = Slip.objects.values_list("year", flat=True).first()
    page = signed_in(floor["paul"]).get(f"/pit/slips/{year}/").content.decode()

    his = Table.objects.filter(pit__name="Pit 2", slips__isnull=False).distinct()
    assert his and Slip.objects.exclude(table__in=his).exists()  # pete's pit's slips exist too
    for table in his:
        run = page[page.index(f"<h2>{table.name}") :].split("</section>")[0]
        used = run[run.index('class="slips-used"') :].split("</tr>")[0]
        serials = sorted(table.slips.values_list("serial", flat=True))
        assert f'<td class="num">{len(serials)}</td>' in used and f">{serial_ranges(serials)}<" in used
    for table in Table.objects.filter(slips__isnull=False).exclude(pit__name="Pit 2"):
        assert f"<h2>{table.name}" not in page  # pete's pit's runs are not listed


def test_another_pit_s_hand_answers_as_one_that_does_not_exist_on_the_page_and_through_the_api(floor, pete):
    page, api = signed_in(pete), signed_in(pete, api=True)
    hand = floor["hand"].pk

    hidden, absent = page.get(f"/pit/hands/{hand}/"), page.get(f"/pit/hands/{MISSING}/")
    hidden_api, absent_api = api.get(f"/api/hands/{hand}/"), api.get(f"/api/hands/{MISSING}/")

    assert hidden.status_code == absent.status_code == 404 and hidden.content == absent.content
    assert hidden_api.status_code == absent_api.status_code == 404 and hidden_api.json() == absent_api.json()


def test_an_auditor_held_to_one_casino_sees_its_tables_hands_and_ledger_only(floor):
    page, api = signed_in(floor["hugo"]), signed_in(floor["hugo"], api=True)
    harbour = floor["seven"].pit.casino_id

    tables = {table["name"] for table in api.get("/api/tables/").json()}
    floor_page = page.get("/pit/").content.decode()
    transactions = api.get("/api/ledger/transactions/", {"page_size": 1000}).json()["results"]
    accounts = api.get("/api/ledger/accounts/", {"page_size": 1000}).json()["results"]
    hand = api.get(f"/api/hands/{floor['hand'].pk}/")

    assert tables == {"Rocket 7"}
    assert "Rocket 7" in floor_page and "Rocket 1" not in floor_page and "Blackstone 9" not in floor_page
    assert transactions and {row["casino"] for row in transactions} == {harbour}
    assert len(transactions) == Transaction.objects.filter(casino=harbour).count()
    assert len(accounts) == Account.objects.filter(casino=harbour).count()
    assert {row["casino"] for row in accounts} == {harbour}
    assert hand.status_code == 404
    assert page.get(f"/pit/tables/{floor['rocket'].pk}/").status_code == 404


def test_an_auditor_of_every_casino_sees_every_table_and_the_whole_ledger(floor, ada):
    api = signed_in(ada, api=True)

    tables = {table["name"] for table in api.get("/api/tables/").json()}
    transactions = api.get("/api/ledger/transactions/", {"page_size": 1000}).json()["results"]

    assert tables == {"Rocket 1", "Blackstone 9", "Rocket 7"}
    assert len(transactions) == Transaction.objects.count()
    assert api.get(f"/api/hands/{floor['hand'].pk}/").status_code == 200


def test_an_auditor_held_to_one_casino_finds_and_reads_its_players_only(floor, pete):
    from tables.services.players import Identification, player_create, player_identify

    ann = player_create(casino=floor["rocket"].pit.casino, name="Ann Smith", card_number="1001", by=pete)
    player_identify(player=ann, identification=Identification("passport", "X123", "FR"), by=pete)
    zed = player_create(casino=floor["seven"].pit.casino, name="Zed Smith", card_number="1001", by=pete)
    page = signed_in(floor["hugo"])

    found = page.get("/pit/players/", {"q": "Smith"})
    hidden, absent = page.get(f"/pit/players/{ann.pk}/"), page.get(f"/pit/players/{MISSING}/")

    assert list(found.context["found"]) == [zed]
    assert hidden.status_code == absent.status_code == 404 and "X123" not in hidden.content.decode()
    assert page.get(f"/pit/players/{zed.pk}/").status_code == 200
    assert list(signed_in(person("ada", AUDITOR)).get("/pit/players/", {"q": "Smith"}).context["found"]) == [
        ann, zed
    ]


def test_an_auditor_held_to_one_casino_sees_the_rota_of_its_pits_only(floor):
    page = signed_in(floor["hugo"]).get("/pit/shifts/").content.decode()

    assert "Pit 7" in page and "Pit 2" not in page and "Pit 1" not in page
