"""A settled hand whose money was wrong is voided, whole, by two pit managers.

Found as the floor would: a pit manager approved a correction of a settled hand's settlement; the
ledger reversed it but the hand stayed "settled": it could not be settled again nor voided, its bets
stayed netted in and out of its wager account, and the reconciliation listed "replay disagrees with
the ledger" for it for ever. RULINGS ("A mis-keyed card"): anything older than the last card is
settled by voiding the hand. So a hand's transactions are never corrected one by one: the pit asks
for a void of the settled hand, another pit manager approves it, and every transaction of the hand
is reversed through the one void path (a void slip, sealed, in the audit log).
"""

import pytest

from casino.errors import Conflict, DomainError, NotAllowed
from casino.models import AuditEvent
from casino.roles import PIT_MANAGER
from ledger.models import Account, Posting, Seal, Transaction
from ledger.services import LedgerError, account_get, ledger_reverse
from tables.models import ApprovalRequest, Hand, Slip
from tables.review import hand_replay_check
from tables.services import (
    approval_decide,
    correction_request,
    hand_settle,
    hand_start,
    hand_void_request,
    seat_close,
    shift_start,
)

from .conftest import key, person, play, seat, signed_in

pytestmark = pytest.mark.django_db

# Seat 1 (Ann) bets 20 and is paid 18; seat 2 (Bob) bets 50 and folds for 30: the tray wins 12.
CARDS, DECISIONS, BETS = [5, 6, 9, 4, 9], [("hit",), ("fold",)], {1: 20, 2: 50}
BUY_IN = 200


@pytest.fixture
def pam(rocket, pete):
    """The pit's second pit manager, on shift with pete: one asks, the other decides."""
    shift_start(user=pete, pit=rocket.pit, by=pete)
    pam = person("pam", PIT_MANAGER)
    shift_start(user=pam, pit=rocket.pit, by=pam)
    return pam


@pytest.fixture
def settled(rocket, dana, pete, pam):
    """Hand 1 at Rocket 1, dealt by dana to Ann and Bob and settled: Ann 218, Bob 170."""
    shift_start(user=dana, table=rocket, by=pete)
    seat(rocket, 1, BUY_IN, dana, "Ann")
    seat(rocket, 2, BUY_IN, dana, "Bob")
    return settle(play(hand_start(table=rocket, bets=BETS, by=dana, key=key()), CARDS, DECISIONS, dana), dana)


def settle(hand, dana):
    return hand_settle(hand=hand, by=dana, expected_seq=hand.seq, key=key())


def chips(hand, seat_number) -> int:
    return Account.objects.get(kind=Account.Kind.PLAYER, ref=hand.sessions[str(seat_number)]).balance


def tray(table) -> int:
    return account_get(kind=Account.Kind.TRAY, table=table).balance


def ask(hand, by, key_=None):
    hand = Hand.objects.get(pk=hand.pk)
    return hand_void_request(
        hand=hand, by=by, reason="The dealer's second 9 was an 8.", expected_seq=hand.seq, key=key_ or key()
    )


def approve(request, by, key_=None):
    return approval_decide(request=request, by=by, approve=True, key=key_ or key())


def rows() -> tuple:
    return (
        Transaction.objects.count(), Posting.objects.count(), Slip.objects.count(), Seal.objects.count(),
        AuditEvent.objects.count(), ApprovalRequest.objects.filter(status="pending").count(),
    )


def test_a_settled_hand_voided_by_two_pit_managers_gives_every_chip_back(settled, rocket, pete, pam):
    # given hand 1 settled: Ann won 18, Bob lost 30, the tray won 12
    hand = settled
    tray_then = tray(rocket)
    assert (chips(hand, 1), chips(hand, 2)) == (218, 170)

    # when pete asks for its void and pam approves it
    request = ask(hand, pete)
    assert Hand.objects.get(pk=hand.pk).status == Hand.Status.SETTLED  # settled until the pit decides
    approve(request, pam)

    # then the hand is voided, every one of its transactions reversed (the settlement first, then the
    # bets out of the wager account), the chips where they were, a void slip issued, sealed, audited
    hand.refresh_from_db()
    assert hand.status == Hand.Status.VOIDED
    assert (chips(hand, 1), chips(hand, 2), tray(rocket)) == (BUY_IN, BUY_IN, tray_then - 12)
    assert account_get(kind=Account.Kind.WAGER, table=rocket, ref=hand.pk).balance == 0
    originals = Transaction.objects.filter(hand_id=hand.pk, reverses=None)
    assert sorted(originals.values_list("kind", flat=True)) == ["bet", "settlement"]
    reversals = Transaction.objects.filter(hand_id=hand.pk, reverses__isnull=False).order_by("position")
    assert [r.reverses.kind for r in reversals] == ["settlement", "bet"]
    assert {(r.created_by, r.approved_by) for r in reversals} == {(pete, pam)}
    slip = Slip.objects.get(kind=Slip.Kind.VOID, hand=hand)
    assert slip.request == request
    assert Seal.objects.filter(model="tables.Hand", record=hand.pk, event="voided").exists()
    assert AuditEvent.objects.filter(action=AuditEvent.Action.VOID_REQUEST, detail__hand=hand.pk).exists()
    assert AuditEvent.objects.filter(action=AuditEvent.Action.APPROVAL, detail__request=request.pk).exists()
    # and the replay compares nothing: the pit's review and the reconciliation agree it moved nothing
    assert hand_replay_check(hand)["matches"] is None


def test_a_retried_void_request_and_approval_are_each_applied_once(settled, pete, pam):
    first = ask(settled, pete, key_="void-settled-1")
    again = hand_void_request(
        hand=Hand.objects.get(pk=settled.pk), by=pete, reason="The dealer's second 9 was an 8.",
        expected_seq=settled.seq, key="void-settled-1",
    )
    assert again == first and ApprovalRequest.objects.filter(hand=settled).count() == 1

    approve(first, pam, key_="approve-settled-1")
    before = rows()
    approve(first, pam, key_="approve-settled-1")

    assert rows() == before
    assert Transaction.objects.filter(hand_id=settled.pk, reverses__isnull=False).count() == 2


def test_a_settled_hands_settlement_is_not_corrected_alone_but_voided(settled, pete):
    settlement = Transaction.objects.get(hand_id=settled.pk, kind="settlement")
    before = rows()

    with pytest.raises(DomainError, match=f"voiding the whole hand. Ask for a void of hand {settled.number}"):
        correction_request(transaction=settlement, by=pete, reason="Paid the wrong seat.", key=key())
    assert rows() == before


def test_a_correction_asked_for_before_is_refused_when_approved(settled, pete, pam):
    # A request asked for when a settled hand's settlement could still be corrected alone.
    settlement = Transaction.objects.get(hand_id=settled.pk, kind="settlement")
    request = ApprovalRequest.objects.create(
        kind=ApprovalRequest.Kind.CORRECTION, table=settled.table, transaction=settlement,
        reason="Paid the wrong seat.", requested_by=pete,
    )
    with pytest.raises(DomainError, match="voiding the whole hand"):
        approve(request, pam)
    assert not Transaction.objects.filter(reverses=settlement).exists()


def test_only_a_pit_manager_on_shift_asks_to_void_a_settled_hand(settled, dana):
    before = rows()
    with pytest.raises(NotAllowed, match="Only a pit manager on shift in Pit 1 may ask to void a settled"):
        ask(settled, dana)
    assert rows() == before


def test_nobody_approves_their_own_settled_hands_void(settled, pete):
    request = ask(settled, pete)
    with pytest.raises(NotAllowed, match="another pit manager must decide it"):
        approve(request, pete)


def test_a_settled_hand_is_voided_between_hands(settled, rocket, dana, pete, pam):
    request = ask(settled, pete)
    hand_start(table=rocket, bets={1: 10}, by=dana, key=key())
    before = rows()

    with pytest.raises(Conflict, match="Hand 2 is in play at Rocket 1: void hand 1 between hands"):
        approve(request, pam)
    assert rows() == before


def test_an_older_rocket_hand_is_voided_once_the_hand_in_play_is_settled(settled, rocket, dana, pete, pam):
    request = ask(settled, pete)
    settle(play(hand_start(table=rocket, bets=BETS, by=dana, key=key()), CARDS, DECISIONS, dana), dana)

    approve(request, pam)

    assert Hand.objects.get(pk=settled.pk).status == Hand.Status.VOIDED
    assert (chips(settled, 1), chips(settled, 2)) == (218, 170)  # hand 2 stands: +18 and -30 once


@pytest.mark.parametrize("when", ["asked", "approved"])
def test_a_hand_whose_player_has_cashed_out_is_not_voided(when, settled, dana, pete, pam):
    request = ask(settled, pete) if when == "approved" else None
    seat_close(session=settled.table.seats.get(number=2).sessions.get(), by=dana, key=key())
    before = rows()

    with pytest.raises(Conflict, match=r"Seat 2 \(Bob\) has cashed out since hand 1"):
        approve(request, pam) if request else ask(settled, pete)
    assert rows() == before


def test_a_player_without_the_winnings_to_give_back_is_named(settled, rocket, dana, pete, pam):
    # given Ann (seat 1) lost 210 of her 218 in a later hand
    request = ask(settled, pete)
    later = hand_start(table=rocket, bets={1: 210}, by=dana, key=key())
    settle(play(later, [10, 10, 9], [("fold",)], dana), dana)  # folds for 21 x 10
    assert chips(settled, 1) == 8

    before = rows()
    # the settlement paid her 38 (her bet of 20 and 18): it is taken back before her bet goes back
    short = "Seat 1 has 8 units in front; voiding hand 1 first takes back the 38 its settlement paid"
    with pytest.raises(LedgerError, match=short):
        approve(request, pam)
    assert rows() == before


def test_the_pit_manager_asks_from_the_hands_review_and_the_other_approves_in_the_queue(settled, pete, pam):
    as_pete, as_pam = signed_in(pete), signed_in(pam)
    review = as_pete.get(f"/pit/hands/{settled.pk}/").content.decode()
    assert "Ask to void hand 1" in review

    form = {"reason": "The second 9 was an 8", "seq": settled.seq, "key": "k1"}
    asked = as_pete.post(f"/pit/hands/{settled.pk}/void/", form)
    assert asked.status_code == 302 and asked.url == f"/pit/hands/{settled.pk}/"
    request = ApprovalRequest.objects.get(hand=settled, kind="void")
    assert "A void of this hand waits for the pit" in as_pete.get(asked.url).content.decode()
    pending = as_pam.get("/pit/approvals/").content.decode()
    assert "Void of a settled hand: every posting of it reversed" in pending

    decided = as_pam.post(f"/pit/approvals/{request.pk}/", {"decision": "approve", "reason": "", "key": "k2"})

    assert decided.status_code == 302
    queue = as_pam.get(decided.url).content.decode()
    # the flash and the decided list name it as the queue did: it was no misdeal
    assert "Approved: void of a settled hand at" in queue and "misdeal" not in queue
    review = as_pam.get(f"/pit/hands/{settled.pk}/").content.decode()
    assert "Voided after it settled" in review and "Ask to void" not in review
    assert Hand.objects.get(pk=settled.pk).status == Hand.Status.VOIDED


def test_a_refused_void_from_the_review_says_why_and_writes_nothing(settled, dana, pete):
    seat_close(session=settled.table.seats.get(number=1).sessions.get(), by=dana, key=key())
    as_pete = signed_in(pete)  # signing in is audited
    before = rows()

    refused = as_pete.post(
        f"/pit/hands/{settled.pk}/void/", {"reason": "Wrong card", "seq": settled.seq, "key": "k3"}
    )

    assert refused.status_code == 409
    assert "Seat 1 (Ann) has cashed out since hand 1" in refused.content.decode()
    assert rows() == before


def test_a_hand_whose_settlement_a_correction_reversed_before_is_voided_with_what_is_left(settled, pete, pam):
    # given a settlement reversed alone, as a correction could before: the hand "settled", its bets
    # netted in and out of its wager account
    settlement = Transaction.objects.get(hand_id=settled.pk, kind="settlement")
    ledger_reverse(transaction=settlement, reason="Paid the wrong seat.", by=pete, approved_by=pam)

    approve(ask(settled, pete), pam)

    # then the bets are reversed too, and only they: the hand is voided, every chip back
    assert Hand.objects.get(pk=settled.pk).status == Hand.Status.VOIDED
    assert sorted(Transaction.objects.filter(hand_id=settled.pk, reverses__isnull=False).values_list(
        "reverses__kind", flat=True)) == ["bet", "settlement"]
    assert (chips(settled, 1), chips(settled, 2)) == (BUY_IN, BUY_IN)
