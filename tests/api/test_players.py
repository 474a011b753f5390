"""Seating players by card through the API: refusals are 4xx and write nothing; a buy-in past the
reporting threshold asks for identification and goes through with it."""

import pytest

from tables.models import CashIn, Incident, Player, Table
from tables.services.players import player_create

from .conftest import records

pytestmark = pytest.mark.django_db

PASSPORT = {"type": "passport", "number": "X123", "issuer": "FR"}


@pytest.fixture
def ann(floor, pete):
    return player_create(casino=floor.pit.casino, name="Ann Smith", card_number="1001", by=pete)


def seats(rocket):
    return f"/api/tables/{rocket.pk}/seats/"


def test_a_player_is_seated_by_card_number(ann, as_dana, rocket):
    answer = as_dana.change(seats(rocket), {"seat": 1, "buy_in": 100, "card_number": "1001"})

    assert answer.status_code == 201
    assert (answer.json()["player"], answer.json()["player_name"]) == (ann.pk, "Ann Smith")
    assert "id_number" not in answer.json()  # identification is never sent to the tablet


def test_a_player_is_seated_by_id(ann, as_dana, rocket):
    answer = as_dana.change(seats(rocket), {"seat": 1, "buy_in": 100, "player": ann.pk})

    assert (answer.status_code, answer.json()["player"]) == (201, ann.pk)


def test_an_unknown_card_is_a_400_and_writes_nothing(ann, as_dana, rocket):
    before = records()

    answer = as_dana.change(seats(rocket), {"seat": 1, "buy_in": 100, "card_number": "9999"})

    assert answer.status_code == 400
    assert "No player holds card 9999" in answer.json()["detail"]
    assert records() == before


def test_a_player_of_another_casino_is_refused(as_dana, rocket, pete):
    from tables.models import Casino

    stranger = Player.objects.create(casino=Casino.objects.create(name="Elsewhere"), name="Zed")
    before = records()

    answer = as_dana.change(seats(rocket), {"seat": 1, "buy_in": 100, "player": stranger.pk})

    assert answer.status_code == 400
    assert records() == before


def test_a_buy_in_past_the_reporting_threshold_asks_for_identification(ann, as_dana, rocket):
    Table.objects.filter(pk=rocket.pk).update(chip_unit_cents=500)
    sat = as_dana.change(seats(rocket), {"seat": 1, "buy_in": 1800, "card_number": "1001"}).json()
    before = records()

    asked = as_dana.change(f"/api/seat-sessions/{sat['id']}/buy-in/", {"amount": 201})

    assert asked.status_code == 400
    assert "ask for identification" in asked.json()["detail"]
    assert records() == before

    more = {"amount": 201, "identification": PASSPORT}
    given = as_dana.change(f"/api/seat-sessions/{sat['id']}/buy-in/", more)

    assert given.status_code == 200
    assert Player.objects.get(pk=ann.pk).identified
    assert Incident.objects.filter(kind=Incident.Kind.CASH_REPORT, table=rocket).count() == 1
    assert list(CashIn.objects.order_by("pk").values_list("cents", "logged")) == [
        (900_000, True),
        (100_500, False),
    ]


def test_incomplete_identification_is_a_400(ann, as_dana, rocket):
    before = records()

    half = {"seat": 1, "buy_in": 100, "card_number": "1001", "identification": {"type": "passport"}}
    answer = as_dana.change(seats(rocket), half)

    assert answer.status_code == 400
    assert records() == before
