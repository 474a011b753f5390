"""The ledger over the API: read-only, scoped to the reader's tables, filtered by table and hand."""

import pytest

from ledger.models import Transaction
from tables.models import Game, Pit
from tests.tables.conftest import open_table

from .conftest import records

pytestmark = pytest.mark.django_db


@pytest.fixture
def played(as_dana, rocket) -> dict:
    """Ann bought in for 200 and bet 10 on hand 1: the dealer pairs his 9s and pays her 9."""
    as_dana.change(f"/api/tables/{rocket.pk}/seats/", {"seat": 1, "buy_in": 200})
    hand = as_dana.change(f"/api/tables/{rocket.pk}/hands/", {"bets": {"1": 10}}).json()
    for step in [5, 9, "hit", 4, 9]:
        body = {"move": step} if step == "hit" else {"rank": step}
        path = "decisions" if step == "hit" else "cards"
        hand = as_dana.change(
            f"/api/hands/{hand['hand']}/{path}/", {**body, "expected_seq": hand["seq"]}
        ).json()
    return as_dana.change(f"/api/hands/{hand['hand']}/settle/", {"expected_seq": hand["seq"]}).json()


def test_a_hands_transactions_come_with_their_postings(played, as_pete):
    response = as_pete.get(f"/api/ledger/transactions/?hand={played['hand']}")

    assert response.status_code == 200
    page = response.json()
    assert page["count"] == 2
    bet, settlement = page["results"]
    assert (bet["kind"], bet["hand"], bet["created_by"]) == ("bet", played["hand"], "dana")
    assert settlement["kind"] == "settlement" and settlement["chain"] == f"table:{played['table']['id']}"
    assert sum(p["amount"] for p in settlement["postings"]) == 0
    assert {(p["account_code"], p["amount"], p["reason"]) for p in settlement["postings"]} >= {
        (f"t{played['table']['id']}:tray", -9, "dealer pair")
    }


def test_a_tables_transactions_and_accounts_with_their_balances(played, as_pete, rocket):
    kinds = [t["kind"] for t in as_pete.get(f"/api/ledger/transactions/?table={rocket.pk}").json()["results"]]
    accounts = as_pete.get(f"/api/ledger/accounts/?table={rocket.pk}").json()["results"]

    assert kinds == ["fill", "buy_in", "bet", "settlement"]
    balances = {account["kind"]: account["balance"] for account in accounts if account["kind"] != "player"}
    # A table is made with its tray, drop box, carry and rake (sealed as made): a Rocket table rakes nothing.
    assert balances == {"tray": 10_000 - 200 - 9, "drop": 200, "wager": 0, "carry": 0, "rake": 0}
    player = next(account for account in accounts if account["kind"] == "player")
    assert as_pete.get(f"/api/ledger/accounts/{player['id']}/").json()["balance"] == 209
    wagers = as_pete.get(f"/api/ledger/accounts/?hand={played['hand']}").json()["results"]
    assert [account["code"] for account in wagers] == [f"t{rocket.pk}:wager:{played['hand']}"]


def test_a_pit_manager_reads_only_his_pits_tables_and_an_auditor_reads_everything(
    played, as_pete, as_ada, pete, rocket
):
    pit_2 = Pit.objects.create(casino=rocket.pit.casino, name="Pit 2")
    other = open_table(pit_2, pete, Game.PAIRS, "Pairs 9", 1, 10)
    elsewhere = Transaction.objects.get(table=other)

    assert as_pete.get(f"/api/ledger/transactions/{elsewhere.pk}/").status_code == 404
    assert as_pete.get(f"/api/ledger/transactions/?table={other.pk}").json()["count"] == 0
    assert as_ada.get(f"/api/ledger/transactions/{elsewhere.pk}/").json()["kind"] == "fill"
    cage = [a["code"] for a in as_ada.get("/api/ledger/accounts/?kind=cage").json()["results"]]
    assert len(cage) == 1 and as_pete.get("/api/ledger/accounts/?kind=cage").json()["count"] == 0


def test_dealers_do_not_read_the_ledger(played, as_dana):
    response = as_dana.get("/api/ledger/transactions/")

    assert response.status_code == 403
    assert response.json() == {"detail": "Only pit managers, auditors and administrators read the ledger."}


def test_a_malformed_filter_names_the_field(played, as_pete):
    response = as_pete.get("/api/ledger/transactions/?hand=first&kind=gift")

    assert response.status_code == 400
    assert set(response.json()) == {"hand", "kind"}


@pytest.mark.parametrize(
    "url",
    [
        "/api/ledger/transactions/?table=-670122341378992470726246795086659584",  # found by the fuzzer
        f"/api/ledger/transactions/?hand={2**63}",
        f"/api/ledger/accounts/?table={2**63}",
    ],
)
def test_an_id_beyond_64_bits_in_a_filter_is_refused_not_a_server_error(played, as_pete, url):
    response = as_pete.get(url)

    assert response.status_code == 400
    assert len(response.json()) == 1


@pytest.mark.parametrize("method", ["post", "put", "patch", "delete"])
@pytest.mark.parametrize("who", ["as_pete", "as_ada"])
def test_the_ledger_cannot_be_written_through_the_api(played, request, who, method):
    client = request.getfixturevalue(who)
    transaction = Transaction.objects.filter(kind="settlement").get()
    account = transaction.postings.first().account_id
    before = records()

    for url in (
        "/api/ledger/transactions/",
        f"/api/ledger/transactions/{transaction.pk}/",
        "/api/ledger/accounts/",
        f"/api/ledger/accounts/{account}/",
    ):
        response = getattr(client, method)(url, {"amount": 1}, format="json", HTTP_IDEMPOTENCY_KEY="x")
        assert response.status_code == 405, url
    assert records() == before
