"""The pit's queue over the API: who sees pending requests, and who may decide them."""

import pytest

from casino.models import User
from casino.roles import PIT_MANAGER
from tables.models import ApprovalRequest, Hand
from tables.services import hand_settle, hand_start, shift_start

from .conftest import records, signed_in

pytestmark = pytest.mark.django_db


@pytest.fixture
def void_asked(as_dana, rocket) -> dict:
    """dana asked the pit to void hand 1 at Rocket 1 (Ann's 5 was dealt face up by mistake)."""
    as_dana.change(f"/api/tables/{rocket.pk}/seats/", {"seat": 1, "buy_in": 200})
    hand = as_dana.change(f"/api/tables/{rocket.pk}/hands/", {"bets": {"1": 10}}).json()
    hand = as_dana.change(f"/api/hands/{hand['hand']}/cards/", {"rank": 5, "expected_seq": 0}).json()
    return as_dana.change(
        f"/api/hands/{hand['hand']}/void/", {"reason": "Card flashed", "expected_seq": hand["seq"]}
    ).json()


def test_the_pit_manager_on_shift_sees_the_pending_requests_of_his_pit(void_asked, as_pete, rocket):
    response = as_pete.get("/api/approvals/")

    assert response.status_code == 200
    assert [(r["id"], r["kind"], r["reason"], r["requested_by"]) for r in response.json()] == [
        (void_asked["id"], "void", "Card flashed", "dana")
    ]
    assert as_pete.get(f"/api/approvals/?table={rocket.pk}").json() == response.json()
    assert as_pete.get(f"/api/approvals/{void_asked['id']}/").json() == void_asked


@pytest.mark.parametrize("table", ["²", "99999999999999999999999", "first"])  # "²".isdigit() is True
def test_a_malformed_table_filter_is_refused_not_a_server_error(void_asked, as_pete, table):
    response = as_pete.get("/api/approvals/", {"table": table})

    assert response.status_code == 400
    assert list(response.json()) == ["table"]


def test_a_dealer_at_another_table_sees_nothing_pending_there(void_asked, as_olga):
    assert as_olga.get("/api/approvals/").json() == []
    assert as_olga.get(f"/api/approvals/{void_asked['id']}/").status_code == 404


def test_a_rejection_gives_the_hand_back_and_needs_a_reason(void_asked, as_pete):
    before = records()
    without = as_pete.change(f"/api/approvals/{void_asked['id']}/reject/")
    assert (without.status_code, without.json()) == (400, {"detail": "Say why: a rejection needs a reason."})
    assert records() == before

    rejected = as_pete.change(f"/api/approvals/{void_asked['id']}/reject/", {"reason": "Play on"})

    assert rejected.status_code == 200
    assert (rejected.json()["status"], rejected.json()["decision_reason"]) == ("rejected", "Play on")
    assert Hand.objects.get(pk=void_asked["hand"]).status == "in_progress"


# olga does not see Rocket 1: its request is not found for her; dana and ada see it but may not decide
@pytest.mark.parametrize(("who", "status"), [("as_dana", 403), ("as_olga", 404), ("as_ada", 403)])
def test_only_a_pit_manager_on_shift_in_the_pit_decides(who, status, request, void_asked):
    client = request.getfixturevalue(who)
    before = records()

    for verdict in ("approve", "reject"):
        response = client.change(f"/api/approvals/{void_asked['id']}/{verdict}/", {"reason": "no"})
        assert response.status_code == status, verdict
    assert records() == before
    assert ApprovalRequest.objects.get(pk=void_asked["id"]).status == "pending"


def test_a_pit_manager_cannot_approve_his_own_request(as_pete, rocket, pete):
    # given pete deals a hand himself and asks for its void
    as_pete.change(f"/api/tables/{rocket.pk}/seats/", {"seat": 1, "buy_in": 200})
    hand = as_pete.change(f"/api/tables/{rocket.pk}/hands/", {"bets": {"1": 10}}).json()
    asked = as_pete.change(
        f"/api/hands/{hand['hand']}/void/", {"reason": "Misdeal", "expected_seq": 0}
    ).json()
    before = records()

    # when he approves it
    response = as_pete.change(f"/api/approvals/{asked['id']}/approve/")

    # then he is refused, and a second pit manager may decide
    assert (response.status_code, response.json()) == (
        403,
        {"detail": "You asked for this: another pit manager must decide it."},
    )
    assert records() == before
    paula = User.objects.create_user(username="paula")
    paula.groups.add(pete.groups.get(name=PIT_MANAGER))
    shift_start(user=paula, pit=rocket.pit, by=pete)
    assert signed_in(paula).change(f"/api/approvals/{asked['id']}/approve/").json()["status"] == "approved"


def test_a_retried_approval_answers_the_same_and_reverses_once(void_asked, as_pete):
    first = as_pete.change(f"/api/approvals/{void_asked['id']}/approve/", key="approve-void-1")
    before = records()

    again = as_pete.change(f"/api/approvals/{void_asked['id']}/approve/", key="approve-void-1")

    assert (again.status_code, again.json()) == (first.status_code, first.json())
    assert records() == before


@pytest.mark.parametrize("then", ["approve", "reject"])
def test_a_request_decided_already_is_a_conflict_not_a_malformed_request(then, void_asked, as_pete):
    # Well formed, and taken a moment earlier: the request moved on (409, as a stale hand), where it
    # answered 400 as if the client had sent something wrong. docs/api.md, "Errors".
    as_pete.change(f"/api/approvals/{void_asked['id']}/approve/", {"reason": "Seen on camera"})
    before = records()

    late = as_pete.change(f"/api/approvals/{void_asked['id']}/{then}/", {"reason": "Play on"})

    assert (late.status_code, late.json()) == (409, {"detail": "This request was already approved."})
    assert records() == before


@pytest.fixture
def settled_hand(floor, rocket, dana, pete) -> Hand:
    """Hand 1 at Rocket 1 settled (Ann bet 20 and was paid 18); pam, a second pit manager, on shift."""
    from tests.tables.conftest import key, person, play, seat

    pam = person("pam", PIT_MANAGER)
    shift_start(user=pam, pit=rocket.pit, by=pam)
    seat(rocket, 1, 200, dana, "Ann")
    hand = play(hand_start(table=rocket, bets={1: 20}, by=dana, key=key()), [5, 9, 4, 9], [("hit",)], dana)
    return hand_settle(hand=hand, by=dana, expected_seq=hand.seq, key=key())


def test_a_settled_hand_is_voided_by_one_pit_manager_asking_and_another_approving(settled_hand, as_pete):
    as_pam = signed_in(User.objects.get(username="pam"))
    hand_url = f"/api/hands/{settled_hand.pk}/"
    body = {"reason": "Ann's 4 was a 3.", "expected_seq": settled_hand.seq}

    asked = as_pete.change(f"{hand_url}void/", body)
    assert (asked.status_code, asked.json()["kind"], asked.json()["requested_by"]) == (201, "void", "pete")
    assert as_pam.get(hand_url).json()["status"] == "settled"  # until the pit decides

    approved = as_pam.change(f"/api/approvals/{asked.json()['id']}/approve/", key="approve-settled-void")
    before = records()
    again = as_pam.change(f"/api/approvals/{asked.json()['id']}/approve/", key="approve-settled-void")

    assert approved.status_code == 200 and (again.status_code, again.json()) == (200, approved.json())
    assert records() == before  # the retry is answered, not applied twice
    assert as_pam.get(hand_url).json()["status"] == "voided"
    assert as_pam.get(f"/api/approvals/{asked.json()['id']}/").json()["status"] == "approved"


def test_a_dealer_does_not_ask_to_void_a_settled_hand(settled_hand, as_dana):
    before = records()

    refused = as_dana.change(
        f"/api/hands/{settled_hand.pk}/void/", {"reason": "Wrong card", "expected_seq": settled_hand.seq}
    )

    assert refused.status_code == 403
    only = "Only a pit manager on shift in Pit 1 may ask to void a settled hand."
    assert refused.json() == {"detail": only}
    assert records() == before
