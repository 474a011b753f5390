"""The OpenAPI schema: it validates, it documents every change's headers and refusals, and the
answers the API gives match it (every game played through the API, each answer checked)."""

import copy
import itertools

import jsonschema
import pytest
from django.core.management import call_command

from .conftest import signed_in

pytestmark = pytest.mark.django_db

MAX_STEPS = 300  # no hand of any game comes near this many cards and decisions
TABLE_OPERATIONS = ("/api/tables/", "/api/seat-sessions/", "/api/shoes/", "/api/hands/", "/api/approvals/")


@pytest.fixture
def schema(client) -> dict:
    response = client.get("/api/schema/", {"format": "json"})
    assert response.status_code == 200
    return response.json()


def strict(node):
    """OpenAPI 3.0 to JSON Schema: `nullable` becomes a null alternative, and an object accepts only
    the properties it documents, so an undocumented key in an answer fails the check."""
    if isinstance(node, list):
        return [strict(item) for item in node]
    if not isinstance(node, dict):
        return node
    node = {key: strict(value) for key, value in node.items()}
    if "properties" in node:
        node.setdefault("additionalProperties", False)
    if node.pop("nullable", False):
        return {"anyOf": [node, {"type": "null"}]}
    return node


class Checked:
    """A client whose every answer must match the schema's description of that operation."""

    def __init__(self, client, schema: dict):
        self.client, self.schema = client, schema
        self.components = strict(copy.deepcopy(schema["components"]))
        self.seen: set[tuple[str, str, int]] = set()

    def get(self, url: str, path: str):
        return self._check(self.client.get(url), path, "get")

    def change(self, url: str, path: str, body: dict | None = None):
        return self._check(self.client.change(url, body), path, "post")

    def _check(self, response, path: str, method: str):
        documented = self.schema["paths"][path][method]["responses"][str(response.status_code)]
        body = documented["content"]["application/json"]["schema"]
        jsonschema.validate(response.json(), {**strict(body), "components": self.components})
        self.seen.add((path, method, response.status_code))
        return response.json()


def test_the_schema_validates_without_a_warning(tmp_path):
    call_command("spectacular", "--validate", "--fail-on-warn", "--file", str(tmp_path / "schema.yaml"))


def test_every_change_at_a_table_needs_a_key_and_documents_its_refusals(schema):
    changes = [
        (path, op)
        for path, ops in schema["paths"].items()
        for method, op in ops.items()
        if method == "post" and path.startswith(TABLE_OPERATIONS)
    ]

    assert len(changes) == 15
    for path, operation in changes:
        headers = {p["name"]: p for p in operation["parameters"] if p["in"] == "header"}
        assert headers["Idempotency-Key"]["required"] is True, path
        assert "X-Device" in headers, path
        # 409: the hand moved on, or the record went through the step already (docs/api.md, "Errors")
        expected = {"400", "401", "403", "409"}
        assert expected <= set(operation["responses"]), path
        assert operation["responses"].keys() - expected - {"200", "201"} == set(), path


def test_every_change_that_reads_a_key_documents_it(schema):
    # Swagger UI offers only the headers the schema names: without it "Try it out" is always a 400
    starting_a_report = ("/api/reports/", "post")
    changes = [
        (path, method, op)
        for path, ops in schema["paths"].items()
        for method, op in ops.items()
        if method in ("post", "patch") and (path, method) != starting_a_report
    ]

    for path, method, operation in changes:
        headers = {p["name"]: p for p in operation.get("parameters", []) if p["in"] == "header"}
        assert headers.get("Idempotency-Key", {}).get("required") is True, (method, path)


def test_the_ledger_is_documented_read_only(schema):
    ledger = {path: set(ops) for path, ops in schema["paths"].items() if path.startswith("/api/ledger/")}

    assert ledger == {
        "/api/ledger/transactions/": {"get"},
        "/api/ledger/transactions/{id}/": {"get"},
        "/api/ledger/accounts/": {"get"},
        "/api/ledger/accounts/{id}/": {"get"},
    }


def play(api: Checked, table) -> dict:
    """Seat three players, shuffle a system shoe, start a hand, then feed it the shoe's cards and the
    first legal move (a take of the fewest cards) until it is over, and settle it."""
    for number in (1, 2, 3):
        api.change(
            f"/api/tables/{table.pk}/seats/", "/api/tables/{id}/seats/", {"seat": number, "buy_in": 200}
        )
    decks = 8 if table.game == "rocket" else 1
    shuffle = {"decks": decks, "kind": "system", "reason": "Test"}
    api.change(f"/api/tables/{table.pk}/shoes/", "/api/tables/{id}/shoes/", shuffle)
    bets = {"bets": {"1": 10, "2": 20, "3": 30}} if table.game == "rocket" else {}
    hand = api.change(f"/api/tables/{table.pk}/hands/", "/api/tables/{id}/hands/", bets)
    for _ in range(MAX_STEPS):
        if hand["next"]["kind"] == "finished":
            break
        url = f"/api/hands/{hand['hand']}/"
        if hand["next"]["kind"] == "card":
            hand = api.change(
                url + "cards/", "/api/hands/{id}/cards/", {"rank": None, "expected_seq": hand["seq"]}
            )
        else:
            hand = api.change(url + "decisions/", "/api/hands/{id}/decisions/", first_move(hand))
    settled = api.change(
        f"/api/hands/{hand['hand']}/settle/", "/api/hands/{id}/settle/", {"expected_seq": hand["seq"]}
    )
    assert settled["status"] == "settled"
    return settled


def first_move(hand: dict) -> dict:
    actions = hand["actions"]
    move = {"move": actions["moves"][0], "expected_seq": hand["seq"]}
    if move["move"] == "take":
        move["count"] = actions["min_take"]
    if move["move"] == "fold" and actions["fold_picks_card"]:
        move["card"] = actions["fold_cards"][0]
    return move


@pytest.mark.parametrize("game", ["rocket", "blackstone", "starboard", "pairs"])
def test_every_answer_of_a_game_played_through_the_api_matches_the_schema(game, request, floor, pete, schema):
    table = request.getfixturevalue(game)
    api = Checked(signed_in(pete), schema)

    settled = play(api, table)

    assert settled["settlement"] is not None
    seat = api.get(f"/api/tables/{table.pk}/", "/api/tables/{id}/")["seats"][0]
    api.get("/api/tables/", "/api/tables/")
    api.get(f"/api/seat-sessions/{seat['id']}/", "/api/seat-sessions/{id}/")
    api.get(f"/api/hands/{settled['hand']}/", "/api/hands/{id}/")
    shoe = api.get(f"/api/shoes/{settled['shoe']['id']}/", "/api/shoes/{id}/")
    api.change(f"/api/shoes/{shoe['id']}/retire/", "/api/shoes/{id}/retire/")
    api.change(f"/api/seat-sessions/{seat['id']}/buy-in/", "/api/seat-sessions/{id}/buy-in/", {"amount": 5})
    api.change(f"/api/seat-sessions/{seat['id']}/cash-out/", "/api/seat-sessions/{id}/cash-out/")
    page = api.get(f"/api/ledger/transactions/?table={table.pk}", "/api/ledger/transactions/")
    api.get(f"/api/ledger/transactions/{page['results'][0]['id']}/", "/api/ledger/transactions/{id}/")
    accounts = api.get(f"/api/ledger/accounts/?table={table.pk}", "/api/ledger/accounts/")
    api.get(f"/api/ledger/accounts/{accounts['results'][0]['id']}/", "/api/ledger/accounts/{id}/")


def test_the_answers_of_the_approval_queue_and_the_refusals_match_the_schema(floor, dana, pete, ada, schema):
    dealer, pit_manager, other = (Checked(signed_in(user), schema) for user in (dana, pete, ada))
    table = floor
    dealer.change(f"/api/tables/{table.pk}/seats/", "/api/tables/{id}/seats/", {"seat": 1, "buy_in": 200})
    hand = dealer.change(f"/api/tables/{table.pk}/hands/", "/api/tables/{id}/hands/", {"bets": {"1": 10}})
    hand_url = f"/api/hands/{hand['hand']}/"
    dealer.change(hand_url + "cards/", "/api/hands/{id}/cards/", {"rank": 99, "expected_seq": 0})  # 400
    dealer.change(hand_url + "cards/", "/api/hands/{id}/cards/", {"rank": 4, "expected_seq": 7})  # 409
    other.change(hand_url + "cards/", "/api/hands/{id}/cards/", {"rank": 4, "expected_seq": 0})  # 403: audits
    asked = dealer.change(
        hand_url + "void/", "/api/hands/{id}/void/", {"reason": "Misdeal", "expected_seq": 0}
    )
    pit_manager.get("/api/approvals/", "/api/approvals/")
    pit_manager.get(f"/api/approvals/{asked['id']}/", "/api/approvals/{id}/")
    pit_manager.change(
        f"/api/approvals/{asked['id']}/reject/", "/api/approvals/{id}/reject/", {"reason": "No"}
    )
    asked = dealer.change(
        hand_url + "void/", "/api/hands/{id}/void/", {"reason": "Misdeal", "expected_seq": 2}
    )
    pit_manager.change(f"/api/approvals/{asked['id']}/approve/", "/api/approvals/{id}/approve/")

    codes = {code for _, _, code in itertools.chain(dealer.seen, other.seen, pit_manager.seen)}
    assert codes == {200, 201, 400, 403, 409}
