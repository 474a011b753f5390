"""Seats: a player sits down with a buy-in, buys more, cashes out; and what is refused."""

import pytest

from ledger.models import Account
from tables.models import SeatSession

from .conftest import records

pytestmark = pytest.mark.django_db


@pytest.fixture
def ann(as_dana, rocket):
    """Ann at seat 2 with 300 units."""
    return as_dana.change(f"/api/tables/{rocket.pk}/seats/", {"seat": 2, "buy_in": 300, "player_name": "Ann"})


def test_a_player_sits_down_with_a_buy_in(ann, rocket, dana):
    assert ann.status_code == 201
    body = ann.json()
    assert (body["table"], body["seat"], body["player_name"], body["buy_in"], body["chips"]) == (
        rocket.pk,
        2,
        "Ann",
        300,
        300,
    )
    session = SeatSession.objects.get(pk=body["id"])
    assert session.started_by == dana
    assert Account.objects.get(kind="drop", table=rocket).balance == 300


def test_a_player_moving_from_another_table_sits_down_with_the_chips_they_carry(as_dana, rocket):
    sat = as_dana.change(f"/api/tables/{rocket.pk}/seats/", {"seat": 3, "chips": 250, "player_name": "Bo"})
    before = records()
    neither = as_dana.change(f"/api/tables/{rocket.pk}/seats/", {"seat": 4, "player_name": "Cy"})

    assert (sat.status_code, sat.json()["buy_in"], sat.json()["chips"]) == (201, 0, 250)
    assert not Account.objects.filter(kind="drop", table=rocket).exclude(balance=0).exists()
    assert neither.status_code == 400
    assert "with a buy-in, or with the chips they bring" in neither.json()["detail"]
    assert records() == before


def test_a_seated_player_buys_more_and_cashes_out(ann, as_dana):
    session = ann.json()["id"]

    more = as_dana.change(f"/api/seat-sessions/{session}/buy-in/", {"amount": 200})
    gone = as_dana.change(f"/api/seat-sessions/{session}/cash-out/")

    assert (more.status_code, more.json()["chips"]) == (200, 500)
    assert gone.status_code == 200
    assert gone.json()["chips"] == 0 and gone.json()["ended_at"] is not None
    assert as_dana.get(f"/api/seat-sessions/{session}/").json() == gone.json()


def test_a_second_cash_out_under_a_new_key_is_a_conflict(ann, as_dana):
    # Two tablets (or a retry under a fresh key): the player is gone, the request itself was fine.
    session = ann.json()["id"]
    as_dana.change(f"/api/seat-sessions/{session}/cash-out/")
    before = records()

    again = as_dana.change(f"/api/seat-sessions/{session}/cash-out/")

    assert again.status_code == 409
    assert again.json()["detail"].endswith("seat 2: that player has already cashed out.")
    assert records() == before


def test_a_malformed_seat_names_the_fields_and_writes_nothing(as_dana, rocket):
    before = records()

    response = as_dana.change(f"/api/tables/{rocket.pk}/seats/", {"seat": "two", "buy_in": -1})

    assert response.status_code == 400
    assert set(response.json()) == {"seat", "buy_in"}
    assert response.json()["buy_in"] == ["Ensure this value is greater than or equal to 0."]
    assert records() == before


def test_a_buy_in_beyond_64_bits_is_refused_not_a_server_error(ann, as_dana, rocket):
    before = records()

    seated = as_dana.change(f"/api/tables/{rocket.pk}/seats/", {"seat": 1, "buy_in": 2**63})
    more = as_dana.change(f"/api/seat-sessions/{ann.json()['id']}/buy-in/", {"amount": 10**30})

    assert (seated.status_code, list(seated.json())) == (400, ["buy_in"])
    assert (more.status_code, list(more.json())) == (400, ["amount"])
    assert records() == before


def test_a_change_without_an_idempotency_key_is_refused(as_dana, rocket):
    before = records()

    response = as_dana.post(f"/api/tables/{rocket.pk}/seats/", {"seat": 2, "buy_in": 300}, format="json")

    assert response.status_code == 400
    assert list(response.json()) == ["Idempotency-Key"]
    assert records() == before


def test_an_idempotency_key_header_sent_twice_is_refused_naming_it(as_dana, rocket):
    # Two headers reach the app as one, joined by a comma (runserver, gunicorn and proxies alike):
    # applied under "first,second", a retry under "first" alone would seat the player again.
    before = records()

    body = {"seat": 2, "buy_in": 300}
    response = as_dana.change(f"/api/tables/{rocket.pk}/seats/", body, key="first,second")

    assert response.status_code == 400
    (said,) = response.json()["Idempotency-Key"]
    assert list(response.json()) == ["Idempotency-Key"] and said.startswith("Send one Idempotency-Key header")
    assert records() == before


def test_a_taken_seat_is_refused_with_the_reason_and_writes_nothing(ann, as_dana, rocket):
    before = records()

    response = as_dana.change(f"/api/tables/{rocket.pk}/seats/", {"seat": 2, "buy_in": 100})

    assert response.status_code == 400
    assert response.json() == {"detail": "Seat 2 is taken; the player there must cash out first."}
    assert records() == before


# olga does not see Rocket 1 (404, as a table that does not exist); ada sees it but changes nothing
@pytest.mark.parametrize(
    ("who", "status", "message"),
    [("as_olga", 404, "No Table matches"), ("as_ada", 403, "Your role reads the tables")],
)
def test_a_dealer_of_another_table_or_an_auditor_cannot_seat_anyone(who, status, message, request, rocket):
    client = request.getfixturevalue(who)
    before = records()

    response = client.change(f"/api/tables/{rocket.pk}/seats/", {"seat": 1, "buy_in": 50})

    assert response.status_code == status
    assert response.json()["detail"].startswith(message)
    assert records() == before


@pytest.mark.parametrize(("who", "status"), [("as_olga", 404), ("as_ada", 403)])
def test_nor_sell_chips_to_or_cash_out_a_seated_player(who, status, request, ann):
    client, session = request.getfixturevalue(who), ann.json()["id"]
    before = records()

    assert client.change(f"/api/seat-sessions/{session}/buy-in/", {"amount": 50}).status_code == status
    assert client.change(f"/api/seat-sessions/{session}/cash-out/").status_code == status
    assert records() == before


def test_a_retried_buy_in_returns_the_first_answer_and_sells_the_chips_once(ann, as_dana):
    session = ann.json()["id"]

    first = as_dana.change(f"/api/seat-sessions/{session}/buy-in/", {"amount": 200}, key="buy-more-1")
    before = records()
    again = as_dana.change(f"/api/seat-sessions/{session}/buy-in/", {"amount": 200}, key="buy-more-1")

    assert (again.status_code, again.json()) == (first.status_code, first.json())
    assert again.json()["chips"] == 500
    assert records() == before


def test_a_key_reused_for_another_request_is_refused(ann, as_dana):
    session = ann.json()["id"]
    as_dana.change(f"/api/seat-sessions/{session}/buy-in/", {"amount": 200}, key="buy-more-2")
    before = records()

    response = as_dana.change(f"/api/seat-sessions/{session}/buy-in/", {"amount": 900}, key="buy-more-2")

    assert response.status_code == 400
    assert "already used for a different request" in response.json()["detail"]
    assert records() == before
