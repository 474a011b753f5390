"""A field the API does not know is refused (400 naming it) and nothing is written, on every change.

A misspelt field (`player_nmae`, `amout`) used to be dropped without a word: the request answered
200 or 201 and the value the client meant to send was lost. Every change's body is checked by one
base serializer (`tables.api.serializers.RequestSerializer`); a change that takes no body refuses
any field at all (a cash-out sent `{"amount": 50}` cashed out every chip).
"""

import pytest
from rest_framework.authtoken.models import Token

from reports.periods import today
from tables.models import Incident
from tables.services import hand_start, hand_void_request, seat_open
from tables.services.players import player_create
from tables.services.rating_slips import rating_slip_start
from tests.snapshot import snapshot, written
from tests.tables.conftest import seat

from .conftest import Client, new_key

pytestmark = pytest.mark.django_db

# Every change of /api/schema/: who sends it, the record its {id} names, a well-formed body, and a
# field the endpoint does not know (a misspelling where one is likely).
CHANGES = {
    "PATCH /api/tables/{id}/settings/": ("pete", "table", {"max_bet": 1000, "reason": "VIP"}, "maxbet"),
    "POST /api/tables/{id}/seats/": ("dana", "table", {"seat": 4, "buy_in": 100}, "player_nmae"),
    "POST /api/tables/{id}/shoes/": ("dana", "table", {"decks": 8, "reason": "Flashed"}, "deks"),
    "POST /api/tables/{id}/hands/": ("dana", "table", {"bets": {"2": 10}}, "bet"),
    "POST /api/tables/{id}/cards/": ("dana", "table", {"rank": 5}, "expected_sq"),
    "POST /api/seat-sessions/{id}/buy-in/": ("dana", "session", {"amount": 50}, "amout"),
    "POST /api/seat-sessions/{id}/cash-out/": ("dana", "session", {}, "amount"),
    "POST /api/shoes/{id}/retire/": ("dana", "shoe", {}, "reason"),
    "POST /api/hands/{id}/cards/": ("dana", "hand", {"rank": 5, "expected_seq": 0}, "rnak"),
    "POST /api/hands/{id}/decisions/": ("dana", "hand", {"move": "hit", "expected_seq": 0}, "seat"),
    "POST /api/hands/{id}/settle/": ("dana", "hand", {"expected_seq": 0}, "confirm"),
    "POST /api/hands/{id}/void/": ("dana", "hand", {"reason": "Misdeal", "expected_seq": 0}, "reasn"),
    "POST /api/hands/{id}/card-corrections/": (
        "dana",
        "hand",
        {"card_seq": 1, "rank": 5, "reason": "Mis-keyed", "signer": "pete", "secret": "x", "expected_seq": 0},
        "signed_by",
    ),
    "POST /api/approvals/{id}/approve/": ("pete", "approval", {"reason": "Seen"}, "pin"),
    "POST /api/approvals/{id}/reject/": ("pete", "approval", {"reason": "No"}, "reson"),
    "POST /api/approvals/{id}/withdraw/": ("dana", "approval", {"reason": "Mine"}, "why"),
    "POST /api/shifts/": ("pete", None, {"user": "olga", "table": "blackstone"}, "tabel"),
    "POST /api/shifts/{id}/rotate/": ("pete", "shift", {"table": "rocket"}, "at_time"),
    "POST /api/shifts/{id}/break/": ("pete", "shift", {}, "minutes"),
    "POST /api/shifts/{id}/end/": ("pete", "shift", {}, "reason"),
    "POST /api/drop-boxes/": ("pete", None, {"table": "rocket"}, "box"),
    "POST /api/drop-boxes/{id}/remove/": ("pete", "box", {}, "reason"),
    "POST /api/drop-boxes/{id}/deliver/": ("pete", "box", {}, "to"),
    "POST /api/drop-boxes/{id}/counts/": ("pete", "box", {"denominations": {"100": 8}}, "counter"),
    "POST /api/incidents/{id}/acknowledge/": ("pete", "incident", {"findings": "Miscount"}, "finding"),
    "POST /api/rating-slips/": ("dana", None, {"session": "carded"}, "average_bet"),
    "POST /api/rating-slips/{id}/pause/": ("dana", "slip", {}, "minutes"),
    "POST /api/rating-slips/{id}/resume/": ("dana", "slip", {}, "at"),
    "POST /api/rating-slips/{id}/close/": ("dana", "slip", {}, "result"),
    "POST /api/rating-slips/{id}/move/": ("dana", "slip", {"session": "carded"}, "sesion"),
    "POST /api/reports/": ("pete", None, {"kind": "reconciliation", "params": "params"}, "title"),
    "POST /api/reports/days/": ("pete", None, {"casino": "casino", "day": "today", "secret": "x"}, "signer"),
    "POST /api/reports/days/adjust/": ("pete", None, {"casino": "casino", "day": "today"}, "memo"),
}


@pytest.fixture
def api_floor(floor, rocket, blackstone, dana, olga, pete):
    """Rocket 1: Ann's hand waits for its first card and dana asked to void it; carded Di is rated
    on a slip; a count incident waits for findings. The record each {id} names, and a token each."""
    seat(rocket, 1, 200, dana, "Ann")
    hand = hand_start(table=rocket, bets={1: 10}, by=dana, key=new_key())
    void = hand_void_request(hand=hand, by=dana, reason="Misdeal", expected_seq=0, key=new_key())
    di = player_create(casino=rocket.pit.casino, name="Di", card_number="77", by=pete)
    carded = seat_open(table=rocket, seat=3, buy_in=200, player=di, by=dana, key=new_key())
    slip = rating_slip_start(session=carded, by=dana, key=new_key())
    incident = Incident.objects.create(kind=Incident.Kind.COUNT_EXPLAIN, table=rocket, detail="-30.", by=pete)
    day = today().isoformat()
    records = {
        "table": rocket.pk,
        "rocket": rocket.pk,
        "blackstone": blackstone.pk,
        "session": carded.pk,
        "carded": carded.pk,
        "shoe": hand.shoe_id,
        "hand": hand.pk,
        "approval": void.pk,
        "shift": olga.shifts.get(ended_at=None).pk,
        "box": rocket.drop_boxes.get().pk,
        "incident": incident.pk,
        "slip": slip.pk,
        "casino": rocket.pit.casino_id,
        "today": day,
        "params": {"table": rocket.pk, "date_from": day, "date_to": day},
    }
    return records, {"dana": Token.objects.create(user=dana).key, "pete": Token.objects.create(user=pete).key}


def request_for(change: str, floor: dict) -> tuple:
    """The change's method, URL and well-formed body, pointed at the floor's records (a value that
    names one, "rocket", becomes its id)."""
    records, _ = floor
    _, named, body, _ = CHANGES[change]
    method, path = change.split()
    url = path.replace("{id}", str(records[named])) if named else path
    return method, url, {name: records.get(value, value) if isinstance(value, str) else value
                         for name, value in body.items()}


def send(floor: dict, who: str, method: str, url: str, body: dict, key: str | None = None):
    _, tokens = floor
    client = Client()
    client.credentials(HTTP_AUTHORIZATION=f"Token {tokens[who]}", HTTP_IDEMPOTENCY_KEY=key or new_key())
    return getattr(client, method.lower())(url, body, format="json")


@pytest.mark.parametrize("change", CHANGES)
def test_an_unknown_field_is_refused_naming_it_and_nothing_is_written(change, api_floor):
    who, _, _, unknown = CHANGES[change]
    method, url, body = request_for(change, api_floor)
    before = snapshot()

    answer = send(api_floor, who, method, url, {**body, unknown: 1})

    assert answer.status_code == 400, answer.content
    assert list(answer.json()) == [unknown], answer.json()  # the one thing wrong with the body
    assert "field" in answer.json()[unknown][0] or "setting" in answer.json()[unknown][0]
    assert written(before, snapshot()) == []


def test_every_change_in_the_schema_is_checked(client):
    schema = client.get("/api/schema/", {"format": "json"}).json()
    changes = {
        f"{method.upper()} {path}"
        for path, operations in schema["paths"].items()
        for method in operations
        if method in ("post", "put", "patch")
    }

    assert changes == set(CHANGES)
    request_bodies = [
        operation["requestBody"]["content"]["application/json"]["schema"]["$ref"].split("/")[-1]
        for operations in schema["paths"].values()
        for operation in operations.values()
        if "requestBody" in operation
    ]
    components = schema["components"]["schemas"]
    assert all(components[name]["additionalProperties"] is False for name in request_bodies)


def test_a_misspelt_field_is_named_beside_the_field_it_was_meant_for(api_floor):
    _, url, _ = request_for("POST /api/seat-sessions/{id}/buy-in/", api_floor)

    answer = send(api_floor, "dana", "POST", url, {"amout": 500})

    assert answer.status_code == 400
    assert answer.json() == {
        "amount": ["This field is required."],
        "amout": ["Not a field of this request; the fields are amount, identification."],
    }


def test_an_unknown_field_inside_the_identification_is_refused(api_floor):
    _, url, _ = request_for("POST /api/tables/{id}/seats/", api_floor)
    papers = {"type": "passport", "nmber": "X1", "issuer": "UK"}
    before = snapshot()

    answer = send(api_floor, "dana", "POST", url, {"seat": 4, "buy_in": 100, "identification": papers})

    assert answer.status_code == 400
    assert "nmber" in answer.json()["identification"]
    assert written(before, snapshot()) == []


def test_a_change_that_takes_no_body_says_so(api_floor):
    _, url, _ = request_for("POST /api/seat-sessions/{id}/cash-out/", api_floor)

    answer = send(api_floor, "dana", "POST", url, {"amount": 50})

    assert answer.json() == {"amount": ["This request takes no fields."]}


def test_a_refused_field_claims_no_key_and_a_retry_is_answered_as_the_first(api_floor):
    """The key of a request refused for an unknown field is not used up: the corrected request under
    it does the work, a retry of that gets its answer, and the refused body stays refused."""
    _, url, _ = request_for("POST /api/seat-sessions/{id}/buy-in/", api_floor)

    refused = send(api_floor, "dana", "POST", url, {"amount": 50, "amout": 50}, key="buy-in-1")
    first = send(api_floor, "dana", "POST", url, {"amount": 50}, key="buy-in-1")
    before = snapshot()
    again = send(api_floor, "dana", "POST", url, {"amount": 50}, key="buy-in-1")
    refused_again = send(api_floor, "dana", "POST", url, {"amount": 50, "amout": 50}, key="buy-in-1")

    assert refused.status_code == refused_again.status_code == 400
    assert first.status_code == again.status_code == 200
    assert first.json() == again.json() and first.json()["chips"] == 250
    assert written(before, snapshot()) == []


def test_a_form_post_may_carry_the_csrf_token_in_its_body(api_floor, pete):
    """The browsable API's forms send Django's CSRF token as a field: it is no field of the request."""
    records, _ = api_floor
    client = Client()
    client.force_login(pete)
    body = {"casino": records["casino"], "day": records["today"], "csrfmiddlewaretoken": "token"}

    answer = client.post("/api/reports/days/adjust/", body, HTTP_IDEMPOTENCY_KEY=new_key())

    assert answer.status_code == 400 and "is not closed" in answer.json()["detail"]  # the service's answer


@pytest.mark.parametrize(
    "url, form",
    [
        ("/api/reports/days/adjust/", "casino={casino}&casino={casino}0&day={today}"),
        ("/api/reports/", "kind=statistics&kind=house_edge"),
    ],
)
def test_a_form_field_given_twice_is_refused_naming_it_not_read_as_its_last_value(url, form, api_floor, pete):
    """A form-encoded body keeps every value of a field; DRF read the last one, and the first, maybe
    the one meant (casino 1 rather than casino 10), was dropped without a word."""
    records, _ = api_floor
    client = Client()
    client.force_login(pete)
    before = snapshot()

    form_type = "application/x-www-form-urlencoded"
    answer = client.post(url, form.format(**records), content_type=form_type, HTTP_IDEMPOTENCY_KEY=new_key())

    assert answer.status_code == 400
    assert answer.json()["kind" if "kind" in form else "casino"] == [
        "Give this field once: given twice, which of its values is meant cannot be told."
    ]
    assert written(before, snapshot()) in ([], ["django_session"])  # a signed-in page keeps its session
