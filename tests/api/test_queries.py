"""Lists cost a fixed number of queries, however many rows they show."""

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from tables.models import Game
from tests.tables.conftest import open_table

pytestmark = pytest.mark.django_db


def queries(client, url: str) -> tuple[int, int]:
    """Queries the request ran, and rows it answered with."""
    with CaptureQueriesContext(connection) as captured:
        response = client.get(url)
    assert response.status_code == 200
    body = response.json()
    return len(captured), len(body["results"] if isinstance(body, dict) else body)


def seat_and_void(client, table) -> None:
    """A seated player, a started hand, and a void request for it: rows in every list."""
    client.change(f"/api/tables/{table.pk}/seats/", {"seat": 1, "buy_in": 200})
    bets = {"bets": {"1": 10}} if table.game == Game.ROCKET else {}
    if table.game != Game.ROCKET:
        client.change(f"/api/tables/{table.pk}/seats/", {"seat": 2, "buy_in": 200})
    hand = client.change(f"/api/tables/{table.pk}/hands/", bets).json()
    client.change(f"/api/hands/{hand['hand']}/void/", {"reason": "Misdeal", "expected_seq": 0})


@pytest.mark.parametrize(
    "url", ["/api/tables/", "/api/approvals/", "/api/ledger/transactions/", "/api/ledger/accounts/"]
)
def test_a_list_does_not_query_once_per_row(url, as_pete, pit, pete, rocket):
    seat_and_void(as_pete, rocket)
    few, rows = queries(as_pete, url)

    for number in range(3):
        seat_and_void(as_pete, open_table(pit, pete, Game.STARBOARD, f"Starboard {number}", 1, 100))

    many, more_rows = queries(as_pete, url)
    assert more_rows > rows
    assert many == few
