"""The member of staff who asked takes a pending request back (issue 14, point 6): an approval
nobody decides cannot hold a hand or a slip for ever. Withdrawing undoes what a rejection undoes,
and is sealed and audited; nobody else may withdraw."""

import pytest
from django.core.management import call_command

from casino.errors import DomainError, NotAllowed
from casino.models import AuditEvent
from tables.models import ApprovalRequest, Game, Hand, Slip
from tables.services import (
    approval_decide,
    approval_withdraw,
    fill_request,
    hand_start,
    hand_void_request,
    shift_start,
)
from tests.api.conftest import Client as ApiClient

from .conftest import card, key, open_table, person, play, seat
from .test_hands import settle

pytestmark = pytest.mark.django_db


@pytest.fixture
def on_shift(rocket, dana, pete):
    shift_start(user=pete, pit=rocket.pit, by=pete)
    shift_start(user=dana, table=rocket, by=pete)
    seat(rocket, 1, 500, dana)
    return rocket


def withdraw(request, by, reason="Asked by mistake."):
    return approval_withdraw(request=request, by=by, reason=reason, device="tablet-1", key=key())


def test_a_withdrawn_void_request_unfreezes_its_hand(on_shift, dana):
    hand = hand_start(table=on_shift, bets={1: 10}, by=dana, key=key())
    asked = hand_void_request(hand=hand, by=dana, reason="Misdeal?", expected_seq=hand.seq, key=key())

    withdrawn = withdraw(asked, dana)

    assert (withdrawn.status, withdrawn.decided_by, withdrawn.decision_reason) == (
        ApprovalRequest.Status.WITHDRAWN, None, "Asked by mistake."
    )
    hand.refresh_from_db()
    assert card(hand, 5, dana).seq == hand.seq + 1  # the hand goes on
    event = AuditEvent.objects.get(action=AuditEvent.Action.APPROVAL)
    assert (event.user, event.detail["decision"]) == (dana, "withdrawn")


def test_a_withdrawn_payout_goes_back_to_the_dealer(on_shift, dana):
    on_shift.payout_approval_threshold = 5
    on_shift.save()
    hand = hand_start(table=on_shift, bets={1: 100}, by=dana, key=key())
    hand = settle(play(hand, [5, 9, 4, 9], [("hit",)], dana), dana)  # the dealer pairs: pays 90
    assert hand.status == Hand.Status.AWAITING_APPROVAL

    withdraw(ApprovalRequest.objects.get(hand=hand), dana)

    hand.refresh_from_db()
    assert hand.status == Hand.Status.IN_PROGRESS


def test_a_withdrawn_fill_voids_its_slip(on_shift, dana):
    asked = fill_request(table=on_shift, denominations={"25": 4}, by=dana, secret="dana-password", key=key())

    withdraw(asked, dana, "Found the chips.")

    slip = Slip.objects.get(request=asked)
    assert (slip.status, slip.void_reason) == (Slip.Status.VOIDED, "Withdrawn: Found the chips.")


def test_only_the_one_who_asked_may_withdraw_and_only_with_a_reason(on_shift, dana, pete):
    asked = fill_request(table=on_shift, denominations={"25": 4}, by=dana, secret="dana-password", key=key())

    with pytest.raises(NotAllowed, match="Only the member of staff who asked"):
        withdraw(asked, pete)
    with pytest.raises(DomainError, match="needs a reason"):
        withdraw(asked, dana, " ")
    asked.refresh_from_db()
    assert asked.status == ApprovalRequest.Status.PENDING
    withdraw(asked, dana)
    with pytest.raises(DomainError, match="already withdrawn"):
        withdraw(asked, dana)


def test_a_withdrawal_is_sealed_so_the_ledger_still_verifies(on_shift, dana):
    asked = fill_request(table=on_shift, denominations={"25": 4}, by=dana, secret="dana-password", key=key())
    withdraw(asked, dana)

    call_command("verify_ledger")  # raises (exits non-zero) on any finding


def test_the_pit_page_offers_the_requester_a_withdrawal(client, on_shift, pete, dana):
    petra = person("petra", "Pit manager")
    shift_start(user=petra, pit=on_shift.pit, by=pete)
    asked = fill_request(table=on_shift, denominations={"25": 4}, by=pete, secret="pete-password", key=key())
    client.force_login(pete)

    page = client.get("/pit/approvals/").content.decode()
    answer = client.post(f"/pit/approvals/{asked.pk}/withdraw/", {"key": key(), "reason": "Not needed."})

    assert f'action="/pit/approvals/{asked.pk}/withdraw/"' in page
    assert answer.status_code == 302
    asked.refresh_from_db()
    assert asked.status == ApprovalRequest.Status.WITHDRAWN
    client.force_login(petra)  # another manager sees no withdrawal form for it, and may not withdraw
    refused = client.post(f"/pit/approvals/{asked.pk}/withdraw/", {"key": key(), "reason": "x"})
    assert refused.status_code in (403, 409)  # withdrawn already: 409; else not hers: 403


def test_the_api_withdraws_a_void_the_dealer_asked_for(on_shift, dana):
    hand = hand_start(table=on_shift, bets={1: 10}, by=dana, key=key())
    asked = hand_void_request(hand=hand, by=dana, reason="Misdeal?", expected_seq=hand.seq, key=key())
    api = ApiClient()
    api.force_authenticate(dana)

    answer = api.change(f"/api/approvals/{asked.pk}/withdraw/", {"reason": "Dealt right after all."})

    assert answer.status_code == 200 and answer.json()["status"] == "withdrawn"


def test_a_request_decided_meanwhile_is_refused_with_its_sentence_above_the_queue(client, on_shift, pete):
    petra = person("petra", "Pit manager")
    shift_start(user=petra, pit=on_shift.pit, by=pete)
    asked = fill_request(table=on_shift, denominations={"25": 4}, by=pete, secret="pete-password", key=key())
    client.force_login(pete)
    client.post(f"/pit/approvals/{asked.pk}/withdraw/", {"key": key(), "reason": "Not needed."})

    again = client.post(f"/pit/approvals/{asked.pk}/withdraw/", {"key": key(), "reason": "Not needed."})
    client.force_login(petra)  # her page was open before the withdrawal: she rejects it
    late = client.post(f"/pit/approvals/{asked.pk}/", {"key": key(), "decision": "reject", "reason": "No."})
    queue = client.get("/pit/approvals/").content.decode()

    for answer in (again, late):
        html = answer.content.decode()
        assert answer.status_code == 409 and 'class="banner error" role="alert"' in html
        assert "withdrawn" in html.split('role="alert">')[1].split("</p>")[0].lower()
    assert "Withdrawn by the one who asked: Not needed." in queue and " by None" not in queue


# The tablet: a dealer takes back a fill or credit asked by mistake, from the table's screen


def tablet_withdraw(client, asked, reason="Wrong chips: asked 25s, meant 5s.", table=None):
    table_id = table.pk if table is not None else asked.table_id
    url = f"/tablet/{table_id}/requests/{asked.pk}/withdraw/"
    return client.post(url, {"key": key(), "reason": reason})


def test_the_dealer_withdraws_her_fill_from_the_table_screen(client, on_shift, dana, pete):
    asked = fill_request(table=on_shift, denominations={"25": 4}, by=dana, secret="dana-password", key=key())
    client.force_login(dana)

    screen = client.get(f"/tablet/{on_shift.pk}/").content.decode()
    answer = tablet_withdraw(client, asked)

    assert f'action="/tablet/{on_shift.pk}/requests/{asked.pk}/withdraw/"' in screen
    assert "Fill of <b class=\"num\">100</b> units asked for" in screen
    assert answer.status_code == 302 and answer.url == f"/tablet/{on_shift.pk}/"
    asked.refresh_from_db()
    assert (asked.status, asked.decided_by, asked.decision_reason) == (
        ApprovalRequest.Status.WITHDRAWN, None, "Wrong chips: asked 25s, meant 5s."
    )
    assert Slip.objects.get(request=asked).status == Slip.Status.VOIDED
    event = AuditEvent.objects.get(action=AuditEvent.Action.APPROVAL)
    assert (event.user, event.detail["decision"], event.detail["kind"]) == (dana, "withdrawn", "fill")
    client.force_login(pete)
    assert f"/pit/approvals/{asked.pk}/" not in client.get("/pit/approvals/").content.decode()
    assert "requests/" not in client.get(f"/tablet/{on_shift.pk}/").content.decode()  # nothing waits


def test_the_table_screen_offers_no_withdrawal_of_someone_elses_fill(client, on_shift, dana, pete):
    fill_request(table=on_shift, denominations={"25": 4}, by=pete, secret="pete-password", key=key())
    client.force_login(dana)

    screen = client.get(f"/tablet/{on_shift.pk}/").content.decode()

    assert "units asked for: it waits for the pit" in screen and "/withdraw/" not in screen


def test_a_withdrawal_without_a_reason_is_refused_and_names_the_field(client, on_shift, dana):
    asked = fill_request(table=on_shift, denominations={"25": 4}, by=dana, secret="dana-password", key=key())
    client.force_login(dana)

    answer = tablet_withdraw(client, asked, reason="")

    assert answer.status_code == 400 and "Why withdraw it: This field is required." in answer.content.decode()
    asked.refresh_from_db()
    assert asked.status == ApprovalRequest.Status.PENDING


def test_a_fill_the_pit_has_approved_cannot_be_withdrawn(client, on_shift, dana, pete):
    asked = fill_request(table=on_shift, denominations={"25": 4}, by=dana, secret="dana-password", key=key())
    approval_decide(request=asked, by=pete, approve=True, secret="pete-password", key=key())
    client.force_login(dana)

    answer = tablet_withdraw(client, asked)

    assert answer.status_code == 409 and "This request was already approved." in answer.content.decode()
    asked.refresh_from_db()
    assert asked.status == ApprovalRequest.Status.APPROVED
    assert Slip.objects.get(request=asked).status != Slip.Status.VOIDED


def test_a_fill_the_pit_has_refused_cannot_be_withdrawn(client, on_shift, dana, pete):
    asked = fill_request(table=on_shift, denominations={"25": 4}, by=dana, secret="dana-password", key=key())
    approval_decide(request=asked, by=pete, approve=False, reason="Tray is full.", key=key())
    client.force_login(dana)

    answer = tablet_withdraw(client, asked)

    assert answer.status_code == 409 and "This request was already rejected." in answer.content.decode()


def test_only_the_one_who_asked_withdraws_from_the_tablet(client, on_shift, dana, pete, ada, olga):
    asked = fill_request(table=on_shift, denominations={"25": 4}, by=dana, secret="dana-password", key=key())
    other = open_table(on_shift.pit, pete, Game.BLACKSTONE, "Blackstone 1", 5, 500)
    shift_start(user=olga, table=other, by=pete)

    client.force_login(pete)  # deals anywhere in his pit, but did not ask
    by_pete = tablet_withdraw(client, asked)
    client.force_login(ada)  # sees the table, deals nowhere
    by_ada = tablet_withdraw(client, asked)
    client.force_login(olga)  # another table's dealer: the table does not exist for her
    by_olga = tablet_withdraw(client, asked)
    client.force_login(dana)
    at_another_table = tablet_withdraw(client, asked, table=other)

    assert by_pete.status_code == 403 and "Only the member of staff who asked" in by_pete.content.decode()
    assert by_ada.status_code == 403
    assert (by_olga.status_code, at_another_table.status_code) == (404, 404)
    asked.refresh_from_db()
    assert asked.status == ApprovalRequest.Status.PENDING


def test_a_void_is_not_withdrawn_through_the_tables_fill_control(client, on_shift, dana):
    hand = hand_start(table=on_shift, bets={1: 10}, by=dana, key=key())
    asked = hand_void_request(hand=hand, by=dana, reason="Misdeal?", expected_seq=hand.seq, key=key())
    client.force_login(dana)

    assert tablet_withdraw(client, asked).status_code == 404  # the hand's own control takes it back
