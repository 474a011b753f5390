"""Hands over the API: start, cards, decisions, settlement; stale screens and refusals."""

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from ledger.models import Account, Transaction
from tables.models import CardEvent, Decision, Hand, IdempotentRequest, Incident, Shift
from tables.services import shift_rotate

from .conftest import records

pytestmark = pytest.mark.django_db


def start_rocket(client, table, bets=None) -> dict:
    """Ann (seat 1) bets 10; the hand is started."""
    client.change(f"/api/tables/{table.pk}/seats/", {"seat": 1, "buy_in": 200, "player_name": "Ann"})
    response = client.change(f"/api/tables/{table.pk}/hands/", {"bets": bets or {"1": 10}})
    assert response.status_code == 201, response.json()
    return response.json()


def card(client, hand: dict, rank, **headers):
    return client.change(
        f"/api/hands/{hand['hand']}/cards/", {"rank": rank, "expected_seq": hand["seq"]}, **headers
    )


def decide(client, hand: dict, move: str, headers: dict | None = None, **extra):
    return client.change(
        f"/api/hands/{hand['hand']}/decisions/",
        {"move": move, "expected_seq": hand["seq"], **extra},
        **(headers or {}),
    )


def settle(client, hand: dict):
    return client.change(f"/api/hands/{hand['hand']}/settle/", {"expected_seq": hand["seq"]})


@pytest.fixture
def dealt(as_dana, rocket) -> dict:
    """Ann got a 5 and the dealer a 9: Ann is to hit or fold."""
    hand = start_rocket(as_dana, rocket)
    hand = card(as_dana, hand, 5).json()
    return card(as_dana, hand, 9).json()


def test_a_rocket_hand_is_played_and_settled_through_the_api(as_dana, rocket, dana):
    # given Ann at seat 1 betting 10
    hand = start_rocket(as_dana, rocket)
    assert (hand["status"], hand["seq"], hand["turn"]) == ("in_progress", 0, 1)
    assert hand["next"]["kind"] == "card" and hand["next"]["says"] == "Next card: seat 1 (deal)."

    # when she gets a 5, the dealer a 9, she hits a 4 and the dealer pairs his 9s
    for step in [5, 9, "hit", 4, 9]:
        if step == "hit":
            response = decide(as_dana, hand, "hit", {"HTTP_X_DEVICE": "tablet-1"})
        else:
            response = card(as_dana, hand, step, HTTP_X_DEVICE="tablet-1")
        assert response.status_code == 201, response.json()
        hand = response.json()
    assert hand["next"]["kind"] == "finished"
    assert hand["settlement"]["paid"] == [
        {"party": "1", "who": "Seat 1 (Ann)", "amount": 9, "reason": "dealer pair"}
    ]
    settled = settle(as_dana, hand)

    # then the dealer pair pays her a tenth x 9, and every record says who and where
    assert settled.status_code == 200
    assert settled.json()["status"] == "settled"
    session = as_dana.get(f"/api/tables/{rocket.pk}/").json()["seats"][0]
    assert session["chips"] == 209
    cards = CardEvent.objects.filter(hand_id=hand["hand"]).order_by("seq")
    assert [(c.rank, c.receiver) for c in cards] == [(5, "seat"), (9, "dealer"), (4, "seat"), (9, "dealer")]
    assert {(c.keyed_by, c.device) for c in cards} == {(dana, "tablet-1")}
    decision = Decision.objects.get(hand_id=hand["hand"])
    assert (decision.action, decision.device) == (["hit"], "tablet-1")
    assert Transaction.objects.filter(hand_id=hand["hand"], kind="settlement").count() == 1


def test_the_hand_says_who_acts_and_what_a_fold_costs(dealt, as_dana):
    hand = as_dana.get(f"/api/hands/{dealt['hand']}/").json()

    assert hand["next"] == {"kind": "decision", "seat": 1, "says": "Seat 1 to act."}
    assert (hand["actions"]["moves"], hand["actions"]["fold_price"]) == (["hit", "fold"], 5)
    assert [card["rank"] for card in hand["seats"][0]["cards"]] == [5]
    assert hand["dealer"] == [9]


def test_a_stale_screen_is_answered_409_and_writes_nothing(dealt, as_dana):
    before = records()

    response = as_dana.change(f"/api/hands/{dealt['hand']}/decisions/", {"move": "hit", "expected_seq": 1})

    assert response.status_code == 409
    assert "has moved on" in response.json()["detail"] and "Refresh" in response.json()["detail"]
    assert records() == before


@pytest.mark.parametrize(
    ("path", "body", "errors"),
    [
        (
            "cards",
            {"rank": 11, "expected_seq": 2},
            {"rank": ["A rank is 1 to 10."]},
        ),
        ("cards", {"rank": 4}, {"expected_seq": ["This field is required."]}),
        ("decisions", {"move": "stand", "expected_seq": 2}, {"move": ['"stand" is not a valid choice.']}),
        ("decisions", {"move": "take", "expected_seq": 2}, {"count": ["Say how many cards to take."]}),
        (
            "decisions",
            {"move": "hit", "count": 2, "expected_seq": 2},
            {"count": ["Only a take has a count."]},
        ),
        ("settle", {}, {"expected_seq": ["This field is required."]}),
        ("void", {"expected_seq": 2}, {"reason": ["This field is required."]}),
    ],
)
def test_a_malformed_step_names_the_field_and_writes_nothing(dealt, as_dana, path, body, errors):
    before = records()

    response = as_dana.change(f"/api/hands/{dealt['hand']}/{path}/", body)

    assert (response.status_code, response.json()) == (400, errors)
    assert records() == before


@pytest.mark.parametrize("bets", [{"01": 20, "1": 30}, {" 1": 20}, {"\uff11": 20}, {"0": 20}, {"one": 20}])
def test_bets_keyed_other_than_by_a_plain_seat_number_are_refused_and_nothing_written(as_dana, rocket, bets):
    as_dana.change(f"/api/tables/{rocket.pk}/seats/", {"seat": 1, "buy_in": 200, "player_name": "Ann"})
    before = records()

    response = as_dana.change(f"/api/tables/{rocket.pk}/hands/", {"bets": bets})

    assert response.status_code == 400
    assert "Bets are keyed by seat number from 1, written plainly" in response.json()["bets"][0]
    assert records() == before


@pytest.mark.parametrize(
    ("path", "body", "message"),
    [
        (
            "cards",
            {"rank": 4, "expected_seq": 2},
            "No card is due: the hand waits for a decision from seat 1",
        ),
        ("decisions", {"move": "take", "count": 2, "expected_seq": 2}, "take"),
        ("settle", {"expected_seq": 2}, "Hand 1 is not over"),
    ],
)
def test_a_step_the_rules_refuse_is_answered_400_with_their_reason_and_writes_nothing(
    dealt, as_dana, path, body, message
):
    before = records()

    response = as_dana.change(f"/api/hands/{dealt['hand']}/{path}/", body)

    assert response.status_code == 400
    assert message in response.json()["detail"]
    assert records() == before


def test_a_rank_the_shoe_cannot_hold_is_refused_and_only_the_incident_is_recorded(as_olga, blackstone, olga):
    for number in (1, 2):
        as_olga.change(f"/api/tables/{blackstone.pk}/seats/", {"seat": number, "buy_in": 50})
    hand = as_olga.change(f"/api/tables/{blackstone.pk}/hands/", {}).json()
    hand = card(as_olga, hand, 1).json()  # a single deck holds one 1
    before = records()

    response = card(as_olga, hand, 1, HTTP_X_DEVICE="tablet-2")

    assert response.status_code == 400
    incident = Incident.objects.get()
    assert (incident.kind, incident.by, incident.device, incident.detail) == (
        "rank_refused",
        olga,
        "tablet-2",
        response.json()["detail"],
    )
    # the incident and its seal in the table's chain, nothing of the step
    added = {label: before[label] + 1 for label in ("tables.Incident", "ledger.Seal")}
    assert records() == {**before, **added}


@pytest.mark.parametrize(("who", "status"), [("as_olga", 404), ("as_ada", 403)])
def test_only_the_tables_dealer_deals_decides_settles_or_asks_for_a_void(who, status, request, dealt, rocket):
    client = request.getfixturevalue(who)
    before = records()

    for path, body in [
        (f"/api/tables/{rocket.pk}/hands/", {"bets": {"1": 10}}),
        (f"/api/hands/{dealt['hand']}/cards/", {"rank": 4, "expected_seq": 2}),
        (f"/api/hands/{dealt['hand']}/decisions/", {"move": "hit", "expected_seq": 2}),
        (f"/api/hands/{dealt['hand']}/settle/", {"expected_seq": 2}),
        (f"/api/hands/{dealt['hand']}/void/", {"reason": "misdeal", "expected_seq": 2}),
    ]:
        assert client.change(path, body).status_code == status, path
    assert records() == before


def test_a_step_reads_no_hand_before_the_keys_claim_and_locks_it_in_the_claims_round_trip(dealt, as_dana):
    # issue 17: the permission is checked on the hand as the step locks it, not on a read before
    with CaptureQueriesContext(connection) as captured:
        assert decide(as_dana, dealt, "hit").status_code == 201
    statements = [q["sql"] for q in captured]
    claimed = 'INSERT INTO "tables_idempotentrequest"'
    claim = next(at for at, sql in enumerate(statements) if sql.startswith(claimed))
    assert not [sql for sql in statements[:claim] if '"tables_hand"' in sql]
    assert 'FROM "tables_hand"' in statements[claim + 1]  # locked, where the database can


def test_a_steps_answer_reads_its_players_with_the_steps_writes_before_the_commit(as_dana, dealt):
    # issue 17: the answer's names and chips come back with the step's writes, not in a round trip
    # after the commit; the chips are the ones the step left (a settlement's pay-out included)
    hand = dealt
    for step, chips in [("hit", 190), (4, 190), (9, 190), ("settle", 209)]:
        with CaptureQueriesContext(connection) as captured:
            if step == "settle":
                response = settle(as_dana, hand)
            else:
                response = decide(as_dana, hand, step) if step == "hit" else card(as_dana, hand, step)
        hand = response.json()
        statements = [q["sql"] for q in captured]
        read = [at for at, sql in enumerate(statements) if '"ledger_account"' in sql and "player_name" in sql]
        answered = 'UPDATE "tables_idempotentrequest"'
        answer = next(at for at, sql in enumerate(statements) if sql.startswith(answered))
        assert len(read) == 1 and read[0] < answer, step
        assert (hand["seats"][0]["player"], hand["seats"][0]["chips"]) == ("Ann", chips)


def test_a_start_reads_no_table_before_the_keys_claim_and_locks_it_in_the_claims_round_trip(as_dana, rocket):
    as_dana.change(f"/api/tables/{rocket.pk}/seats/", {"seat": 1, "buy_in": 200, "player_name": "Ann"})
    with CaptureQueriesContext(connection) as captured:
        assert as_dana.change(f"/api/tables/{rocket.pk}/hands/", {"bets": {"1": 10}}).status_code == 201
    statements = [q["sql"] for q in captured]
    claimed = 'INSERT INTO "tables_idempotentrequest"'
    claim = next(at for at, sql in enumerate(statements) if sql.startswith(claimed))
    assert not [sql for sql in statements[:claim] if 'FROM "tables_table"' in sql]
    assert statements[claim + 1].startswith('SELECT "tables_table"."id"')  # locked, where the database can


def test_a_start_at_a_table_that_does_not_exist_is_404_and_claims_no_key(as_dana, rocket):
    before, keys = records(), IdempotentRequest.objects.count()

    response = as_dana.change(f"/api/tables/{rocket.pk + 1000}/hands/", {"bets": {"1": 10}})

    assert response.status_code == 404
    assert (records(), IdempotentRequest.objects.count()) == (before, keys)


@pytest.mark.parametrize("path", ["/api/hands/abc/", "/api/hands/-1/cards/", "/api/shoes/1e3/", "/api/none/"])
def test_an_api_address_that_names_nothing_is_a_json_404(as_dana, path):
    response = as_dana.get(path)

    assert response.status_code == 404 and response.json() == {"detail": "Not found."}


def test_a_dealer_moved_off_the_table_is_refused_a_retry_of_a_step_already_answered(
    dealt, as_dana, rocket, blackstone, pete
):
    # given: a card answered under a key
    hand = decide(as_dana, dealt, "hit").json()
    body = {"rank": 4, "expected_seq": hand["seq"]}
    assert as_dana.change(f"/api/hands/{hand['hand']}/cards/", body, key="card-4").status_code == 201

    # when: the pit moves the dealer to another table, and the tablet retries the card
    shift_rotate(shift=Shift.objects.get(user__username="dana", ended_at=None), table=blackstone, by=pete)
    before = records()
    retry = as_dana.change(f"/api/hands/{hand['hand']}/cards/", body, key="card-4")

    # then: the retry is refused as a new request would be (the table is no longer hers to see)
    assert retry.status_code == 404
    assert records() == before


@pytest.mark.parametrize("path", ["cards", "decisions", "settle"])
def test_a_step_of_a_hand_that_does_not_exist_is_404_and_claims_no_key(path, as_dana, dealt):
    before, keys = records(), IdempotentRequest.objects.count()

    body = {"move": "hit", "expected_seq": 2}
    response = as_dana.change(f"/api/hands/{dealt['hand'] + 1000}/{path}/", body)

    assert response.status_code == 404
    assert (records(), IdempotentRequest.objects.count()) == (before, keys)


def test_an_auditor_reads_the_hand_and_another_dealer_does_not(dealt, as_ada, as_olga):
    assert as_ada.get(f"/api/hands/{dealt['hand']}/").status_code == 200
    assert as_olga.get(f"/api/hands/{dealt['hand']}/").status_code == 404


def test_a_retried_card_returns_the_first_answer_and_records_one_card(dealt, as_dana):
    first = decide(as_dana, dealt, "hit").json()
    sent = as_dana.change(f"/api/hands/{first['hand']}/cards/", {"rank": 4, "expected_seq": 3}, key="card-4")
    before = records()

    again = as_dana.change(f"/api/hands/{first['hand']}/cards/", {"rank": 4, "expected_seq": 3}, key="card-4")

    assert (again.status_code, again.json()) == (201, sent.json())
    assert records() == before
    assert CardEvent.objects.filter(hand_id=first["hand"], rank=4).count() == 1


def test_a_system_shoe_shows_the_card_to_place_and_takes_it_with_a_null_rank(as_dana, rocket):
    as_dana.change(f"/api/tables/{rocket.pk}/shoes/", {"decks": 8, "kind": "system", "reason": "Test"})
    hand = start_rocket(as_dana, rocket)
    to_place = hand["next"]["place"]

    response = card(as_dana, hand, None)

    assert response.status_code == 201
    assert response.json()["seats"][0]["cards"][0]["rank"] == to_place


def test_a_payout_above_the_threshold_waits_for_the_pit_who_approves_it(as_dana, as_pete, rocket):
    rocket.payout_approval_threshold = 5
    rocket.save()
    hand = start_rocket(as_dana, rocket)
    for step in [5, 9, "hit", 4, 9]:
        hand = (decide(as_dana, hand, step) if step == "hit" else card(as_dana, hand, step)).json()

    waiting = settle(as_dana, hand)

    assert (waiting.status_code, waiting.json()["status"]) == (200, "awaiting_approval")
    pending = as_pete.get("/api/approvals/").json()
    assert [(p["kind"], p["hand"], p["amount"], p["requested_by"]) for p in pending] == [
        ("payout", hand["hand"], 9, "dana")
    ]
    approved = as_pete.change(f"/api/approvals/{pending[0]['id']}/approve/")
    assert (approved.status_code, approved.json()["status"], approved.json()["decided_by"]) == (
        200,
        "approved",
        "pete",
    )
    assert Hand.objects.get(pk=hand["hand"]).status == "settled"
    assert as_pete.get("/api/approvals/").json() == []


def test_a_void_request_waits_for_the_pit_and_its_approval_reverses_the_hands_postings(
    dealt, as_dana, as_pete
):
    response = as_dana.change(
        f"/api/hands/{dealt['hand']}/void/", {"reason": "Two cards stuck", "expected_seq": 2}
    )

    assert response.status_code == 201
    request = response.json()
    assert (request["kind"], request["status"], request["reason"]) == ("void", "pending", "Two cards stuck")
    assert as_dana.get(f"/api/hands/{dealt['hand']}/").json()["seq"] == 3  # other screens refresh

    as_pete.change(f"/api/approvals/{request['id']}/approve/", {"reason": "Seen on camera"})

    assert Hand.objects.get(pk=dealt["hand"]).status == "voided"
    assert Account.objects.get(kind="wager", ref=dealt["hand"]).balance == 0
    assert Transaction.objects.filter(hand_id=dealt["hand"], kind="correction").count() == 1


def test_a_regent_game_is_played_through_the_api_face_down_cards_blind_and_an_attack_aimed(
    as_dana, dana, pete, pit
):
    from tables.review import posted_results
    from tests.tables.conftest import deal_at, open_table

    regent = open_table(pit, pete, "regent", "Regent 1", 1, 100, options={"collection": "none"})
    deal_at(regent, dana, pete)
    for number in (1, 2):
        as_dana.change(f"/api/tables/{regent.pk}/seats/", {"seat": number, "buy_in": 50})
    hand = as_dana.change(f"/api/tables/{regent.pk}/hands/", {}).json()
    for _ in range(4):  # two face down each: keyed without a rank
        assert hand["next"]["face_down"] is True
        hand = card(as_dana, hand, None).json()
    hand = card(as_dana, card(as_dana, hand, 3).json(), 5).json()  # the upcards: seat 1's 3 is low
    assert hand["actions"]["targeted"] == ["attack", "gift", "see"] and hand["actions"]["targets"] == [2]

    refused = decide(as_dana, hand, "attack")
    assert refused.status_code == 400 and "target" in refused.json()
    assert decide(as_dana, hand, "draw", target=2).status_code == 400
    hand = decide(as_dana, hand, "attack", target=2).json()
    hand = card(as_dana, hand, 5).json()  # the attack's card pairs seat 2's 5: seat 1 pays 5 and loses
    hand = settle(as_dana, hand).json()

    assert hand["status"] == "settled"
    assert Decision.objects.get(hand_id=hand["hand"]).action == ["attack", 2]
    assert [card.rank for card in CardEvent.objects.filter(hand_id=hand["hand"]).order_by("seq")] == [
        None, None, None, None, 3, 5, 5
    ]
    assert posted_results(Hand.objects.get(pk=hand["hand"])) == {"1": -5, "2": 5}
