"""Tablets racing on one hand. These commit for real (transactional tests):
a test wrapped in one transaction would hide the race."""

import threading

import pytest
from django.db import connection

from casino.errors import Conflict, DomainError
from casino.roles import PIT_MANAGER
from ledger.models import Account, Transaction
from ledger.services import account_get
from tables.models import ApprovalRequest, Decision, Signature
from tables.services import (
    approval_decide,
    fill_request,
    hand_decide,
    hand_start,
    seat_buy_in,
    seat_close,
    shift_start,
    shoe_start,
)

from .conftest import card, deal_at, key, person, seat

pytestmark = pytest.mark.django_db(transaction=True)


def race(count, act):
    """Run `act(i)` in `count` threads released at once; return their outcomes."""
    barrier, outcomes = threading.Barrier(count), [None] * count

    def run(i):
        barrier.wait()
        try:
            outcomes[i] = act(i)
        except Conflict:
            outcomes[i] = "conflict"
        finally:
            connection.close()

    threads = [threading.Thread(target=run, args=(i,)) for i in range(count)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    return outcomes


@pytest.fixture
def waiting_hand(rocket, dana):
    seat(rocket, 1, 200, dana)
    hand = hand_start(table=rocket, bets={1: 10}, by=dana, key=key())
    return card(card(hand, 5, dana), 9, dana)  # seat 1 to act


def test_two_tablets_acting_on_one_hand_cannot_both_win(waiting_hand, dana):
    actions = [("hit",), ("fold",)]

    def act(i):
        hand_decide(hand=waiting_hand, action=actions[i], by=dana, expected_seq=2, key=f"tablet-{i}")
        return "recorded"

    assert sorted(race(2, act)) == ["conflict", "recorded"]
    assert Decision.objects.filter(hand=waiting_hand).count() == 1


def test_eight_retries_with_one_key_are_applied_once_with_one_answer(waiting_hand, dana):
    def act(i):
        hand = hand_decide(hand=waiting_hand, action=("hit",), by=dana, expected_seq=2, key="flaky-wifi")
        return hand.pk

    outcomes = race(8, act)

    assert outcomes == [waiting_hand.pk] * 8
    assert Decision.objects.filter(hand=waiting_hand).count() == 1


@pytest.mark.parametrize("second", ["approve", "reject"])
def test_two_pit_managers_deciding_one_fill_at_once_cannot_both_win(rocket, dana, pete, second):
    # given dana's fill of 100, and pete and pam on shift in the pit
    deal_at(rocket, dana, pete)
    pam = person("pam", PIT_MANAGER)
    shift_start(user=pam, pit=rocket.pit, by=pam)
    fill = fill_request(table=rocket, denominations={"25": 4}, by=dana, secret="dana-password", key=key())
    tray = account_get(kind=Account.Kind.TRAY, table=rocket).balance
    fills = Transaction.objects.filter(kind="fill", table=rocket)
    before = fills.count()
    deciders = [(pete, True), (pam, second == "approve")]

    def act(i):
        who, approve = deciders[i]
        try:
            secret = f"{who}-password"
            approval_decide(request=fill, by=who, approve=approve, reason="No", secret=secret, key=key())
        except DomainError as refusal:
            return refusal.message
        return "decided"

    # when both tap at the same instant, then one decides and the other is told it is decided
    outcomes = race(2, act)
    fill.refresh_from_db()
    already = f"This request was already {fill.get_status_display().lower()}."
    assert sorted(outcomes) == sorted(["decided", already])
    moved = 100 if fill.status == ApprovalRequest.Status.APPROVED else 0
    assert account_get(kind=Account.Kind.TRAY, table=rocket).balance == tray + moved
    assert fills.count() == before + (1 if moved else 0)
    assert Signature.objects.filter(slip__request=fill).count() == (2 if moved else 1)


TABLE_WRITES = {
    "hand start": lambda table, by: hand_start(table=table, bets={1: 10, 2: 10}, by=by, key=key()),
    "seat opened": lambda table, by: seat(table, 6, 100, by),
    "shoe started": lambda table, by: shoe_start(table=table, decks=8, reason="Test", by=by, key=key()),
}


@pytest.mark.parametrize("write", TABLE_WRITES)
def test_a_table_write_racing_buy_ins_and_cash_outs_never_deadlocks(rocket, dana, write):
    """Every write at a table takes its locks in one order (docs/records.md). A hand start holds
    the table row while a buy-in, holding the table's chain, files a transaction that names the
    table: the table is locked FOR NO KEY UPDATE, which such a reference does not wait on."""
    sessions = [seat(rocket, number, 500, dana) for number in range(1, 6)]
    leaving, staying = sessions[4], sessions[:4]

    def act(i):
        try:
            if i == 0:
                return TABLE_WRITES[write](rocket, dana)
            if i == 5:
                return seat_close(session=leaving, by=dana, key=key())
            return seat_buy_in(session=staying[i % 4], amount=10, by=dana, key=key())
        except Exception as error:  # a deadlock aborts one side: the test names it
            return error

    outcomes = race(9, act)

    assert not [outcome for outcome in outcomes if isinstance(outcome, Exception)], outcomes
    seated = 1 if write == "seat opened" else 0
    assert Transaction.objects.filter(kind="buy_in", table=rocket).count() == 5 + 7 + seated
