"""Devices: a card-reading shoe signs in with a token and posts each card it reads to its table.
The tablet's session, by contrast, must carry the CSRF token with every change."""

from io import StringIO

import pytest
from django.contrib.sessions.models import Session
from django.core.management import CommandError, call_command
from django.db import connection
from django.test.utils import CaptureQueriesContext
from rest_framework.authtoken.models import Token
from rest_framework.test import APIClient

from casino.models import User
from casino.roles import DEALER
from ledger.models import Account, Seal
from ledger.services import account_get
from tables.models import CardEvent, CashIn, Incident, SeatSession, Shift
from tables.services import shift_rotate

from .conftest import new_key, records

pytestmark = pytest.mark.django_db


def device_token(*args) -> str:
    out = StringIO()
    call_command("device_token", *args, stdout=out)
    return out.getvalue().strip()


def token_client(key: str) -> APIClient:
    client = APIClient(enforce_csrf_checks=True)
    client.credentials(HTTP_AUTHORIZATION=f"Token {key}")
    return client


@pytest.fixture
def open_hand(as_dana, rocket) -> dict:
    """Ann at seat 1 bets 10 at Rocket 1; the hand waits for its first card."""
    as_dana.change(f"/api/tables/{rocket.pk}/seats/", {"seat": 1, "buy_in": 200, "player_name": "Ann"})
    return as_dana.change(f"/api/tables/{rocket.pk}/hands/", {"bets": {"1": 10}}).json()


@pytest.fixture
def shoe_device(floor, rocket, pete):
    """shoe-rocket-1: a device account with a token, on shift at Rocket 1."""
    key = device_token("shoe-rocket-1", "--create", "--table", str(rocket.pk), "--by", "pete")
    return token_client(key)


def read_card(client, table, rank, **headers):
    headers.setdefault("HTTP_IDEMPOTENCY_KEY", new_key())
    return client.post(f"/api/tables/{table.pk}/cards/", {"rank": rank}, format="json", **headers)


def test_device_token_makes_a_dealer_account_without_a_password_and_prints_its_token(floor):
    key = device_token("shoe-rocket-1", "--create")

    device = User.objects.get(username="shoe-rocket-1")
    assert Token.objects.get(user=device).key == key
    assert list(device.groups.values_list("name", flat=True)) == [DEALER]
    assert not device.has_usable_password()
    assert device_token("shoe-rocket-1") == key


def test_device_token_rotates_a_token_and_refuses_an_unknown_account_without_create(floor):
    old = device_token("shoe-rocket-1", "--create")

    assert device_token("shoe-rocket-1", "--rotate") not in ("", old)
    with pytest.raises(CommandError, match="add --create"):
        device_token("shoe-rocket-2")


def test_device_token_puts_the_device_on_shift_only_for_a_pit_manager(floor, rocket, pete):
    with pytest.raises(CommandError, match="'dana' is not a pit manager"):
        device_token("shoe-rocket-1", "--create", "--table", str(rocket.pk), "--by", "dana")
    assert not User.objects.filter(username="shoe-rocket-1").exists()

    device_token("shoe-rocket-1", "--create", "--table", str(rocket.pk), "--by", "pete")

    shift = Shift.objects.get(user__username="shoe-rocket-1", ended_at=None)
    assert (shift.table, shift.started_by) == (rocket, pete)


def test_a_card_reading_shoe_posts_each_card_to_its_table_with_its_token(shoe_device, open_hand, rocket):
    first = read_card(shoe_device, rocket, 5, HTTP_X_DEVICE="shoe-rocket-1")
    second = read_card(shoe_device, rocket, 9, HTTP_X_DEVICE="shoe-rocket-1")

    assert (first.status_code, second.status_code) == (201, 201)
    assert second.json()["hand"] == open_hand["hand"] and second.json()["seq"] == 2
    cards = CardEvent.objects.filter(hand_id=open_hand["hand"]).order_by("seq")
    assert [(c.rank, c.receiver, c.keyed_by.username, c.device) for c in cards] == [
        (5, "seat", "shoe-rocket-1", "shoe-rocket-1"),
        (9, "dealer", "shoe-rocket-1", "shoe-rocket-1"),
    ]


def test_a_key_claimed_first_by_another_account_neither_blocks_nor_answers_the_shoe(
    shoe_device, as_dana, open_hand, rocket
):
    # given: dana, dealing at the same table, sends a card under the key the shoe will send next
    claimed = read_card(as_dana, rocket, 5, HTTP_IDEMPOTENCY_KEY="shoe-read-1")

    # when: the shoe reads its card under that key
    read = read_card(shoe_device, rocket, 9, HTTP_IDEMPOTENCY_KEY="shoe-read-1")

    # then: the shoe's card is its own request, recorded and answered as such
    assert (claimed.status_code, read.status_code) == (201, 201)
    assert (claimed.json()["seq"], read.json()["seq"]) == (1, 2)
    cards = CardEvent.objects.filter(hand_id=open_hand["hand"]).order_by("seq")
    assert [(c.rank, c.keyed_by.username) for c in cards] == [(5, "dana"), (9, "shoe-rocket-1")]


def test_a_shoe_retrying_a_card_whose_answer_it_lost_gets_the_first_answer_and_one_card(
    shoe_device, open_hand, rocket
):
    first = read_card(shoe_device, rocket, 5, HTTP_IDEMPOTENCY_KEY="shoe-read-7")
    before = records()

    again = read_card(shoe_device, rocket, 5, HTTP_IDEMPOTENCY_KEY="shoe-read-7")

    assert (first.status_code, again.status_code) == (201, 201) and again.json() == first.json()
    assert records() == before
    assert CardEvent.objects.filter(hand_id=open_hand["hand"]).count() == 1


def test_a_shoe_giving_the_sequence_it_saw_is_told_when_the_hand_moved_on(shoe_device, open_hand, rocket):
    read_card(shoe_device, rocket, 5)
    before = records()

    response = shoe_device.post(
        f"/api/tables/{rocket.pk}/cards/",
        {"rank": 9, "expected_seq": 0},
        format="json",
        HTTP_IDEMPOTENCY_KEY=new_key(),
    )

    assert response.status_code == 409
    assert records() == before


def test_a_card_read_with_no_hand_open_is_refused(shoe_device, rocket):
    before = records()

    response = read_card(shoe_device, rocket, 5)

    assert response.status_code == 400
    assert response.json() == {"detail": "No hand is open at Rocket 1: start a hand before dealing cards."}
    assert records() == before


def test_a_shoe_at_another_table_is_refused(shoe_device, blackstone):
    before = records()

    assert read_card(shoe_device, blackstone, 5).status_code == 404  # not its table to see
    assert records() == before


def test_a_wrong_token_is_answered_401(open_hand, rocket):
    before = records()

    response = read_card(token_client("not-a-token"), rocket, 5)

    assert response.status_code == 401
    assert response["WWW-Authenticate"] == "Token"
    assert records() == before


def test_a_tablet_session_must_send_the_csrf_token_with_a_change(floor, dana, rocket):
    tablet = APIClient(enforce_csrf_checks=True)
    tablet.force_login(dana)
    before = records()

    refused = tablet.post(
        f"/api/tables/{rocket.pk}/seats/",
        {"seat": 1, "buy_in": 50},
        format="json",
        HTTP_IDEMPOTENCY_KEY="s-1",
    )

    assert refused.status_code == 403
    assert "CSRF" in refused.json()["detail"]
    assert records() == before
    tablet.get("/accounts/login/")  # any page that renders a form sets the CSRF cookie
    accepted = tablet.post(
        f"/api/tables/{rocket.pk}/seats/",
        {"seat": 1, "buy_in": 50},
        format="json",
        HTTP_IDEMPOTENCY_KEY="s-1",
        HTTP_X_CSRFTOKEN=tablet.cookies["csrftoken"].value,
    )
    assert accepted.status_code == 201


def test_a_session_cookie_naming_no_session_stores_no_session(shoe_device, rocket, open_hand):
    shoe_device.cookies["sessionid"] = "l&aeQ`X-E<rDsB"  # what the fuzzer sent: a made-up or stale cookie
    sessions = Session.objects.count()  # dana's, signed in to open the hand

    refused = read_card(shoe_device, rocket, 99)
    read = shoe_device.get(f"/api/tables/{rocket.pk}/")

    assert (refused.status_code, read.status_code) == (400, 200)
    assert Session.objects.count() == sessions


def test_a_token_reads_its_users_roles_afresh_on_every_request(floor, ada, rocket, blackstone):
    # given: an auditor signing in with a token sees every table (the roles come with the token)
    client = token_client(Token.objects.create(user=ada).key)
    every = {rocket.pk, blackstone.pk}
    assert {row["id"] for row in client.get("/api/tables/").json()} == every

    # when: the auditor's role is taken away; then: the same token sees none at the next request
    ada.groups.clear()
    assert client.get("/api/tables/").json() == []


def test_a_token_reads_its_users_shift_with_it_and_afresh_on_every_request(
    shoe_device, open_hand, rocket, blackstone, pete
):
    # issue 17 point 2: the shift comes with the token in one query, none of its own
    with CaptureQueriesContext(connection) as captured:
        assert read_card(shoe_device, rocket, 5).status_code == 201
    assert not [q for q in captured if '"tables_shift"' in q["sql"] and '"authtoken_token"' not in q["sql"]]

    # when: the pit moves the shoe's account to another table; then: its next card is refused
    shift = Shift.objects.get(user__username="shoe-rocket-1", ended_at=None)
    shift_rotate(shift=shift, table=blackstone, by=pete)
    before = records()
    assert read_card(shoe_device, rocket, 6).status_code == 404  # no longer its table to see
    assert records() == before

    # and when it is back on shift at the table, its cards are taken again
    shift = Shift.objects.get(user__username="shoe-rocket-1", ended_at=None)
    shift_rotate(shift=shift, table=rocket, by=pete)
    assert read_card(shoe_device, rocket, 6).status_code == 201


def test_a_card_from_a_shoe_sends_at_most_eighteen_statements(shoe_device, open_hand, rocket):
    # issue 17 (25 before): the token with its roles and shift, the table found, the open hand,
    # the key claimed, the hand and shoe locked with the hand's records, the chain, the card, the
    # updates, and the answer's names and chips: a new statement here should be a choice
    read_card(shoe_device, rocket, 5)
    with CaptureQueriesContext(connection) as captured:
        assert read_card(shoe_device, rocket, 6).status_code == 201
    assert len(captured) <= 18


def test_a_hand_start_opens_its_wagers_account_without_a_savepoint(shoe_device, as_dana, rocket):
    # issue 17: the new hand's account is inserted as it is (no one else can know the hand yet), the
    # seats' accounts are read once, and the bets are posted in the step's own transaction: the one
    # savepoint is the step's, inside the test's own transaction
    as_dana.change(f"/api/tables/{rocket.pk}/seats/", {"seat": 1, "buy_in": 200, "player_name": "Ann"})
    account_get(kind="carry", table=rocket)  # made by a table's first hand, behind a savepoint
    with CaptureQueriesContext(connection) as captured:
        path, bets = f"/api/tables/{rocket.pk}/hands/", {"bets": {"1": 20}}
        started = shoe_device.post(path, bets, format="json", HTTP_IDEMPOTENCY_KEY=new_key())
    assert started.status_code == 201, started.content
    statements = [q["sql"] for q in captured]
    assert len([sql for sql in statements if sql.startswith("SAVEPOINT")]) == 1
    assert len([sql for sql in statements if sql.startswith('INSERT INTO "ledger_account"')]) == 1
    assert Account.objects.get(code=f"t{rocket.pk}:wager:{started.json()['hand']}").balance == 20


def test_a_buy_in_sends_at_most_twenty_four_statements_and_answers_the_chips(shoe_device, open_hand, rocket):
    # issue 17 point 1 (29 here before; 2 of them the savepoint of the test's own transaction): the
    # token, the seat session found, the key claimed with the session's lock, the table's last count,
    # the casino's rules and the accounts, the day's cash, the chain and the accounts locked, the
    # ledger's writes, the cash-in, its seal and the chain's head (22 before it was sealed), the
    # key's answer, the chips
    session = SeatSession.objects.get(player_name="Ann")
    path = f"/api/seat-sessions/{session.pk}/buy-in/"
    with CaptureQueriesContext(connection) as captured:
        answer = shoe_device.post(path, {"amount": 50}, format="json", HTTP_IDEMPOTENCY_KEY=new_key())
    assert answer.status_code == 200, answer.content
    assert len(captured) <= 24, "\n".join(q["sql"][:150] for q in captured)
    assert answer.json()["chips"] == 200 - 10 + 50  # the bet of the open hand is in it
    assert CashIn.objects.filter(session=session).count() == 2


@pytest.mark.parametrize("next_hand", [False, True], ids=["no hand open", "the next hand started"])
def test_a_shoe_retrying_its_last_card_after_the_hand_settled_is_answered_with_that_hand(
    shoe_device, as_dana, open_hand, rocket, next_hand
):
    # a retry is applied once and answered as a success, whatever happened at the table since: the
    # hand the card went to, as it stands now (as any step's retry answers)
    read_card(shoe_device, rocket, 5)
    first = read_card(shoe_device, rocket, 9, HTTP_IDEMPOTENCY_KEY="shoe-read-9")
    hand = as_dana.change(f"/api/hands/{open_hand['hand']}/decisions/", {"move": "fold", **seq(first)})
    assert as_dana.change(f"/api/hands/{open_hand['hand']}/settle/", seq(hand)).status_code == 200
    if next_hand:
        assert as_dana.change(f"/api/tables/{rocket.pk}/hands/", {"bets": {"1": 10}}).status_code == 201
    before = records()

    again = read_card(shoe_device, rocket, 9, HTTP_IDEMPOTENCY_KEY="shoe-read-9")

    assert (first.status_code, again.status_code) == (201, 201)
    assert again.json()["hand"] == first.json()["hand"] and again.json()["status"] == "settled"
    assert records() == before


def test_a_rank_the_shoe_cannot_hold_read_by_a_shoe_is_refused_and_only_the_incident_is_recorded_once(
    as_olga, blackstone
):
    key = device_token("shoe-blackstone-1", "--create", "--table", str(blackstone.pk), "--by", "pete")
    shoe = token_client(key)
    for number in (1, 2):
        as_olga.change(f"/api/tables/{blackstone.pk}/seats/", {"seat": number, "buy_in": 50})
    hand = as_olga.change(f"/api/tables/{blackstone.pk}/hands/", {}).json()
    assert read_card(shoe, blackstone, 1).status_code == 201  # a single deck holds one 1
    before = records()

    refused = {"HTTP_X_DEVICE": "shoe-blackstone-1", "HTTP_IDEMPOTENCY_KEY": new_key()}
    response = read_card(shoe, blackstone, 1, **refused)
    retried = read_card(shoe, blackstone, 1, **refused)  # its answer was lost: sent again

    assert response.status_code == retried.status_code == 400
    assert retried.json() == response.json()
    incident = Incident.objects.get()  # one refusal on file, however often it was sent
    assert (incident.kind, incident.hand_id, incident.by.username, incident.device, incident.detail) == (
        "rank_refused", hand["hand"], "shoe-blackstone-1", "shoe-blackstone-1", response.json()["detail"]
    )
    # the incident and its seal in the table's chain, nothing of the step
    added = {label: before[label] + 1 for label in ("tables.Incident", "ledger.Seal")}
    assert records() == {**before, **added}
    assert Seal.objects.get(model="tables.Incident").record == incident.pk


def seq(response) -> dict:
    return {"expected_seq": response.json()["seq"]}
