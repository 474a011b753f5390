"""Fuzz the API from its own OpenAPI schema (schemathesis): no answer is a 5xx, the documented
answers match the schema, and a refused request (any 4xx) writes nothing.

Every operation in /api/schema/ is one test. The fuzzer sends what the schema allows and what it
does not (wrong types, values off the limits, missing fields, other methods) as dana, on shift at
Rocket 1 with a seated player, a shoe and an open hand, or as pete, the pit manager, for the
approval queue, the ledger and the reports, so requests reach the services instead of bouncing off
401 or 403. FUZZ_EXAMPLES=500 fuzzes harder than CI does (docs/api.md, "Fuzzing").
"""

import os
import uuid

import hypothesis
import pytest
import schemathesis
from django.core.signals import request_finished, request_started
from django.db import close_old_connections
from rest_framework.authtoken.models import Token
from schemathesis import GenerationMode
from schemathesis.checks import not_a_server_error
from schemathesis.core.parameters import ParameterLocation
from schemathesis.specs.openapi.checks import content_type_conformance, response_schema_conformance

from casino.wsgi import application
from ledger.models import Account, Chain, Seal, Transaction
from reports.periods import today
from reports.services import report_request
from tables.models import Incident, Shift
from tables.services import hand_start, hand_void_request, seat_open
from tables.services.players import player_create
from tables.services.rating_slips import rating_slip_start
from tests.snapshot import snapshot, written
from tests.tables.conftest import seat

from .conftest import new_key

# schemathesis gives every operation's test one id, which pytest-xdist cannot tell apart (it would run
# one of them): `make test` runs these in a process of their own, after the parallel part.
pytestmark = pytest.mark.alone

EXAMPLES = int(os.environ.get("FUZZ_EXAMPLES", "25"))  # per operation and phase
# Fixed, so CI fuzzes the same requests every run and a failure reproduces; another seed explores.
SEED = int(os.environ.get("FUZZ_SEED", "20240808"))

# Over HTTPS, as in production: the app's middleware is built here, at import, with the redirect
# from plain HTTP on (the `plain_http` fixture comes too late to turn it off).
HTTPS = "https://localhost"
CONFIG = schemathesis.Config.from_dict({"seed": SEED})
schema = schemathesis.openapi.from_wsgi(
    "/api/schema/?format=json", application, config=CONFIG, base_url=HTTPS
)

CHECKS = [not_a_server_error, response_schema_conformance, content_type_conformance]
# pete's; dealers are refused there
PIT_PATHS = (
    "/api/approvals/", "/api/ledger/", "/api/reports/", "/api/shifts/", "/api/drop-boxes/", "/api/incidents/"
)

# A physical shoe's impossible rank is refused (400) and recorded as an integrity incident for the
# auditors, on purpose (docs/api.md, Errors): those rows may appear on a refusal, with the incident's
# seal and its chain's head moved by it; other incidents not (nor another record in any chain).
ALLOWED_ON_REFUSAL = {
    Incident._meta.db_table: f"kind <> '{Incident.Kind.RANK_REFUSED}'",
    Seal._meta.db_table: "model <> 'tables.Incident'",
    Chain._meta.db_table: "1 = 0",
}


@pytest.fixture
def fuzz_floor(floor, rocket, blackstone, dana, olga, pete):
    """Rocket 1: Ann's hand waits for its first card, Bo sat down after it started, carded Di is
    rated on a slip (dana deals).
    Blackstone 1: a void request from olga waits for the pit (pete decides). One report asked for.
    Rocket 1's drop box (its opening count's) and a count incident there that waits for findings.

    Returns the record each path's {id} names, and the tokens."""
    seat(rocket, 1, 200, dana, "Ann")
    hand = hand_start(table=rocket, bets={1: 10}, by=dana, key=new_key())
    bo = seat(rocket, 2, 200, dana, "Bo")  # out of the hand: free to buy more and cash out
    di = player_create(casino=rocket.pit.casino, name="Di", card_number="77", by=pete)
    carded = seat_open(table=rocket, seat=3, buy_in=200, player=di, by=dana, key=new_key())
    slip = rating_slip_start(session=carded, by=dana, key=new_key())  # Di is rated
    seat(blackstone, 1, 200, olga, "Bea")
    seat(blackstone, 2, 200, olga, "Cy")
    misdeal = hand_start(table=blackstone, by=olga, key=new_key())
    void = hand_void_request(hand=misdeal, by=olga, reason="Misdeal", expected_seq=0, key=new_key())
    day = today().isoformat()
    report = report_request(
        kind="reconciliation", params={"table": rocket.pk, "date_from": day, "date_to": day}, by=pete
    )
    return {
        "ids": {
            "/api/tables/": rocket.pk,
            "/api/seat-sessions/": bo.pk,
            "/api/shoes/": hand.shoe_id,
            "/api/hands/": hand.pk,
            "/api/approvals/": void.pk,
            "/api/ledger/transactions/": str(Transaction.objects.filter(table=rocket).first().pk),
            "/api/ledger/accounts/": Account.objects.filter(table=rocket).first().pk,
            "/api/reports/": report.pk,
            "/api/shifts/": Shift.objects.get(user=olga, ended_at=None).pk,
            "/api/drop-boxes/": rocket.drop_boxes.get().pk,
            "/api/rating-slips/": slip.pk,
            "/api/incidents/": Incident.objects.create(
                kind=Incident.Kind.COUNT_EXPLAIN, table=rocket, detail="Closing count: -30 units.", by=pete
            ).pk,
        },
        "dealer": Token.objects.create(user=dana).key,
        "pit": Token.objects.create(user=pete).key,
    }


@pytest.fixture
def one_connection():
    """Keep the test's database connection across requests, as Django's test client does: the real
    WSGI handler closes it at the start and end of every request, and the test's transaction with it."""
    request_started.disconnect(close_old_connections)
    request_finished.disconnect(close_old_connections)
    yield
    request_started.connect(close_old_connections)
    request_finished.connect(close_old_connections)


def meant_wrong(case, location: ParameterLocation) -> bool:
    """Whether the fuzzer made this part of the request break the schema on purpose."""
    component = case.meta.components.get(location) if case.meta else None
    return component is not None and component.mode == GenerationMode.NEGATIVE


def aim(case, floor: dict) -> dict:
    """Point the case at the floor's records and sign it in; return the headers to send.

    The fuzzer's own ids would almost always miss (a 404 before any real code runs), and its
    idempotency keys repeat ("" or "0" in many cases), so a retry or a reused key would be all it
    tested: a path's {id} becomes the floor's record and every change gets a fresh key, unless the
    fuzzer meant the path or the headers to be wrong.
    """
    if "id" in case.path_parameters and not meant_wrong(case, ParameterLocation.PATH):
        case.path_parameters["id"] = next(
            pk for where, pk in floor["ids"].items() if case.path.startswith(where)
        )
    token = floor["pit"] if case.path.startswith(PIT_PATHS) else floor["dealer"]
    headers = {"Authorization": f"Token {token}"}
    if case.method.upper() == "POST" and not meant_wrong(case, ParameterLocation.HEADER):
        headers["Idempotency-Key"] = f"fuzz-{uuid.uuid4()}"
    return headers


@pytest.mark.django_db
@schema.parametrize()
@hypothesis.settings(
    max_examples=EXAMPLES,
    deadline=None,
    derandomize=True,
    database=None,  # no examples saved between runs: every run, here and in CI, fuzzes the same
    # The floor is built once per operation, not per example, on purpose (examples may change it, as
    # requests change a real floor); and the fuzzer's inputs are large and slow by design.
    suppress_health_check=[
        hypothesis.HealthCheck.function_scoped_fixture,
        hypothesis.HealthCheck.too_slow,
        hypothesis.HealthCheck.data_too_large,
        hypothesis.HealthCheck.filter_too_much,
    ],
)
def test_no_server_error_and_a_refusal_writes_nothing(case, fuzz_floor, one_connection):
    headers = aim(case, fuzz_floor)
    before = snapshot(ALLOWED_ON_REFUSAL)

    response = case.call(base_url=HTTPS, headers=headers)

    assert not 300 <= response.status_code < 400, "a redirect: the request never reached the API"
    case.validate_response(response, checks=CHECKS, headers=headers)
    if 400 <= response.status_code < 500:
        tables = written(before, snapshot(ALLOWED_ON_REFUSAL))
        assert not tables, f"answered {response.status_code} ({response.text[:200]}) but wrote to {tables}"
