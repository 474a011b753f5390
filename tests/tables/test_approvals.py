"""Large payouts and voids wait for a pit manager; nobody approves their own request."""

import pytest

from casino.errors import DomainError, NotAllowed
from casino.roles import AUDITOR
from ledger.models import Transaction
from tables.models import ApprovalRequest, CardEvent, Hand, Incident
from tables.selectors import tables_visible_to, user_can_deal, user_can_supervise
from tables.services import approval_decide, hand_start, hand_void_request, shift_rotate, shift_start

from .conftest import card, key, play, seat
from .test_hands import chips, settle

pytestmark = pytest.mark.django_db


@pytest.fixture
def big_payout(rocket, dana, pete):
    rocket.payout_approval_threshold = 100
    rocket.save()
    shift_start(user=pete, pit=rocket.pit, by=pete)
    shift_start(user=dana, table=rocket, by=pete)
    player = seat(rocket, 1, 500, dana)
    hand = hand_start(table=rocket, bets={1: 500}, by=dana, key=key())
    hand = play(hand, [5, 9, 4, 9], [("hit",)], dana)  # the dealer pairs 9s: pays 50 x 9 = 450
    return player, settle(hand, dana)


def decide(request, by, approve=True, reason=""):
    return approval_decide(request=request, by=by, approve=approve, reason=reason, key=key())


def test_a_payout_above_the_threshold_waits_for_the_pit(big_payout):
    player, hand = big_payout

    assert hand.status == Hand.Status.AWAITING_APPROVAL
    request = ApprovalRequest.objects.get(hand=hand)
    assert (request.kind, request.amount, request.status) == ("payout", 450, "pending")
    assert chips(player) == 0  # nothing paid yet: the bet is still on the layout


def test_the_pit_approves_and_the_payout_is_posted_with_the_approver(big_payout, pete):
    player, hand = big_payout

    decide(ApprovalRequest.objects.get(hand=hand), pete)

    hand.refresh_from_db()
    assert hand.status == Hand.Status.SETTLED
    assert chips(player) == 950
    assert Transaction.objects.get(hand_id=hand.pk, kind="settlement").approved_by == pete


def test_the_requester_can_never_approve_their_own_request(big_payout, dana):
    _, hand = big_payout
    request = ApprovalRequest.objects.get(hand=hand)

    with pytest.raises(NotAllowed, match="another pit manager"):
        decide(request, dana)
    request.refresh_from_db()
    assert request.status == "pending"


def test_a_pit_manager_off_shift_in_this_pit_cannot_decide(big_payout, pit):
    from .conftest import person

    other = person("paul", "Pit manager")
    with pytest.raises(NotAllowed, match="on shift"):
        decide(ApprovalRequest.objects.get(hand=big_payout[1]), other)


def test_a_rejection_needs_a_reason_and_hands_the_hand_back_to_the_dealer(big_payout, pete):
    player, hand = big_payout
    request = ApprovalRequest.objects.get(hand=hand)
    with pytest.raises(DomainError, match="needs a reason"):
        decide(request, pete, approve=False)

    decide(request, pete, approve=False, reason="Check the dealer's cards on camera first.")

    hand.refresh_from_db()
    assert hand.status == Hand.Status.IN_PROGRESS and chips(player) == 0
    assert not Transaction.objects.filter(hand_id=hand.pk, kind="settlement").exists()


def test_a_misdeal_is_voided_with_reversing_entries_once_the_pit_approves(rocket, dana, pete):
    shift_start(user=pete, pit=rocket.pit, by=pete)
    player = seat(rocket, 1, 200, dana)
    hand = card(hand_start(table=rocket, bets={1: 50}, by=dana, key=key()), 5, dana)
    assert chips(player) == 150

    request = hand_void_request(
        hand=hand, by=dana, reason="Two cards came out together.", expected_seq=1, key=key()
    )
    with pytest.raises(DomainError, match="void request"):
        card(hand.__class__.objects.get(pk=hand.pk), 9, dana)  # frozen until the pit decides
    decide(request, pete)

    hand.refresh_from_db()
    assert hand.status == Hand.Status.VOIDED
    assert chips(player) == 200
    reversal = Transaction.objects.get(kind="correction", hand_id=hand.pk)
    assert reversal.approved_by == pete and "Two cards came out together." in reversal.reason


def test_a_void_request_needs_a_reason(rocket, dana):
    seat(rocket, 1, 200, dana)
    hand = hand_start(table=rocket, bets={1: 50}, by=dana, key=key())
    with pytest.raises(DomainError, match="needs a reason"):
        hand_void_request(hand=hand, by=dana, reason=" ", expected_seq=0, key=key())
    assert not ApprovalRequest.objects.exists()


def test_a_refused_rank_is_kept_on_file_as_an_incident(pairs, dana):
    seat(pairs, 1, 50, dana), seat(pairs, 2, 50, dana)
    hand = card(hand_start(table=pairs, by=dana, key=key()), 1, dana)

    with pytest.raises(DomainError, match="cannot hold another 1"):
        card(hand, 1, dana)

    incident = Incident.objects.get()
    assert (incident.kind, incident.hand, incident.by, incident.device) == (
        "rank_refused",
        hand,
        dana,
        "tablet-1",
    )
    assert "cannot hold another 1" in incident.detail
    assert CardEvent.objects.filter(hand=hand).count() == 1


def test_each_sees_the_tables_of_their_shift(rocket, blackstone, dana, olga, pete, ada):
    shift_start(user=pete, pit=rocket.pit, by=pete)
    shift_start(user=dana, table=rocket, by=pete)
    shift_start(user=olga, table=blackstone, by=pete)

    assert list(tables_visible_to(dana)) == [rocket]
    assert user_can_deal(dana, rocket) and not user_can_deal(dana, blackstone)
    assert not user_can_deal(olga, rocket)
    assert set(tables_visible_to(pete)) == set(tables_visible_to(ada)) == {rocket, blackstone}
    assert user_can_supervise(pete, rocket) and not user_can_supervise(dana, rocket)
    assert not user_can_deal(ada, rocket)


def test_dealing_needs_the_role_now_not_only_when_the_shift_began(
    rocket, dana, pete, django_assert_num_queries
):
    from django.contrib.auth.models import Group, Permission

    shift_start(user=pete, pit=rocket.pit, by=pete)
    shift_start(user=dana, table=rocket, by=pete)
    with django_assert_num_queries(1):  # the role and the shift in one question, asked on every change
        assert user_can_deal(dana, rocket)

    dana.groups.clear()  # her role is taken away while she is on shift
    assert not user_can_deal(dana, rocket) and not dana.has_perm("tables.deal_table")

    dana.user_permissions.add(Permission.objects.get(codename="deal_table"))  # granted to her alone
    assert user_can_deal(dana, rocket)

    dana.is_active = False
    dana.save()
    assert not user_can_deal(dana, rocket)

    assert user_can_supervise(pete, rocket)
    pete.groups.set([Group.objects.get(name=AUDITOR)])  # supervising needs the pit manager's role
    assert not user_can_supervise(pete, rocket)
    pete.is_superuser = True
    assert user_can_supervise(pete, rocket)


def test_rotating_a_dealer_ends_the_shift_before(rocket, blackstone, dana, pete):
    shift_start(user=pete, pit=rocket.pit, by=pete)
    first = shift_start(user=dana, table=rocket, by=pete)
    shift_rotate(shift=first, table=blackstone, by=pete)

    first.refresh_from_db()
    assert first.ended_at is not None
    assert list(tables_visible_to(dana)) == [blackstone]


def test_a_hand_waiting_for_its_payout_and_a_void_has_one_rejected_before_the_other_is_approved(
    big_payout, dana, pete
):
    # Found while building the stateful test: the payout waits, the dealer asks for a void, the pit
    # approves the void and then rejects the payout, and the voided hand was back in progress with
    # nothing on the layout (or, approving the payout first, the void reversed a paid hand).
    player, hand = big_payout
    void = hand_void_request(hand=hand, by=dana, reason="Misdeal.", expected_seq=hand.seq, key=key())
    payout = ApprovalRequest.objects.get(hand=hand, kind="payout")

    with pytest.raises(DomainError, match="also has a large payout request pending"):
        decide(void, pete)
    with pytest.raises(DomainError, match=r"also has a void \(misdeal\) request pending"):
        decide(payout, pete)

    decide(payout, pete, approve=False, reason="The hand is being voided.")
    decide(void, pete)
    hand.refresh_from_db()
    assert hand.status == Hand.Status.VOIDED and chips(player) == 500
    assert not Transaction.objects.filter(hand_id=hand.pk, kind="settlement").exists()
