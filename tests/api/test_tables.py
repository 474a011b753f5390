"""GET /api/tables/: the tables a user may see, with who sits where."""

import pytest
from rest_framework.test import APIClient

from .conftest import signed_in

pytestmark = pytest.mark.django_db


def names(response) -> list[str]:
    return [table["name"] for table in response.json()]


def test_a_dealer_sees_only_the_table_she_is_on_shift_at(as_dana):
    response = as_dana.get("/api/tables/")

    assert response.status_code == 200
    assert names(response) == ["Rocket 1"]


def test_a_pit_manager_sees_the_tables_of_his_pit_and_an_auditor_sees_every_table(as_pete, as_ada):
    assert names(as_pete.get("/api/tables/")) == ["Blackstone 1", "Rocket 1"]
    assert names(as_ada.get("/api/tables/")) == ["Blackstone 1", "Rocket 1"]


def test_a_dealer_off_shift_sees_no_table(floor, dana, pete):
    from tables.selectors import open_shifts
    from tables.services import shift_end

    shift_end(shift=open_shifts(dana).get(), by=pete)

    assert signed_in(dana).get("/api/tables/").json() == []


def test_a_table_shows_its_limits_shoe_open_hand_and_seated_players(as_dana, rocket):
    as_dana.change(f"/api/tables/{rocket.pk}/seats/", {"seat": 2, "buy_in": 300, "player_name": "Ann"})

    table = as_dana.get(f"/api/tables/{rocket.pk}/").json()

    assert (table["game"], table["min_bet"], table["max_bet"]) == ("rocket", 10, 500)
    assert table["shoe"] == rocket.shoes.get(state="in_play").pk
    assert table["open_hand"] is None
    assert [(s["seat"], s["player_name"], s["chips"]) for s in table["seats"]] == [(2, "Ann", 300)]


def test_another_dealers_table_is_not_found_for_her(as_olga, rocket):
    response = as_olga.get(f"/api/tables/{rocket.pk}/")

    assert response.status_code == 404
    assert response.json() == {"detail": "No Table matches the given query."}


def test_nobody_signed_in_is_answered_401(floor, rocket):
    response = APIClient().get(f"/api/tables/{rocket.pk}/")

    assert response.status_code == 401
