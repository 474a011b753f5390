"""Correcting a cash-out: the seat session the cash-out closed keeps no chips.

A cash-out takes every chip the ledger has at the seat. Reversing it alone (as any other
transaction is corrected) put those chips back on a seat whose player had gone: stranded on a
closed session, where nothing could ever move them. A cash-out is corrected instead to the chips the
player really left with, in one correction that reverses it and books the right one; the
difference stayed in the tray, or was paid from it.
"""

import pytest
from django.db.models import Sum

from casino.errors import DomainError
from ledger.models import Account, Posting, Transaction
from ledger.services import LedgerError, account_balance, account_get
from tables.models import SeatSession
from tables.services import approval_decide, correction_request, seat_close, shift_start

from .conftest import TRAY_OPENING, key, seat

pytestmark = pytest.mark.django_db
BUY_IN = 300


@pytest.fixture
def cashed_out(rocket, dana, pete):
    """Ann bought 300 units of chips at seat 1 of Rocket 1 and cashed out with all of them."""
    shift_start(user=pete, pit=rocket.pit, by=pete)
    shift_start(user=dana, table=rocket, by=pete)
    session = seat_close(session=seat(rocket, 1, BUY_IN, dana, "Ann"), by=dana, key=key())
    return Transaction.objects.get(kind="cash_out", table=rocket), session


def balance(kind, **where) -> int:
    return account_balance(account_get(kind=kind, **where))  # the patrons keep no cached balance


def ledger_rows() -> set:
    """Every transaction and posting as recorded, to show that none was changed or deleted."""
    return set(Transaction.objects.values_list()) | set(Posting.objects.values_list())


def correct(cash_out, taken, dana, pete):
    request = correction_request(
        transaction=cash_out, taken=taken, by=dana, reason="Ann left 50 on the layout.", key=key()
    )
    approval_decide(request=request, by=pete, approve=True, key=key())
    return Transaction.objects.get(reverses=cash_out)


def test_a_cash_out_corrected_to_fewer_chips_leaves_the_seat_at_zero_and_the_rest_in_the_tray(
    cashed_out, rocket, dana, pete
):
    cash_out, session = cashed_out
    casino = rocket.pit.casino
    before, transactions = ledger_rows(), Transaction.objects.count()

    correction = correct(cash_out, 250, dana, pete)

    player = Account.objects.get(kind="player", ref=session.pk)
    assert player.balance == 0 and SeatSession.objects.get(pk=session.pk).ended_at is not None
    assert balance("tray", table=rocket) == TRAY_OPENING - BUY_IN + 50
    assert balance("patrons", casino=casino) == -BUY_IN + 250  # Ann paid 300 and took 250 away
    cached = Account.objects.aggregate(total=Sum("balance"))["total"]  # the patrons keep none: add theirs
    uncached = Posting.objects.filter(account__balance__isnull=True).aggregate(total=Sum("amount"))["total"]
    assert cached + uncached == 0  # chips conserved
    # one transaction more, and every row recorded before it as it was: nothing updated or deleted
    assert Transaction.objects.count() == transactions + 1 and before < ledger_rows()
    lines = sorted(correction.postings.values_list("account__kind", "amount", "reason"))
    assert lines == sorted(
        [
            ("player", BUY_IN, "cash-out"),  # the wrong cash-out, reversed...
            ("patrons", -BUY_IN, "cash-out"),
            ("player", -BUY_IN, "cash-out"),  # ...and the right one: every chip left the seat,
            ("patrons", 250, "cash-out"),  # 250 with Ann,
            ("tray", 50, "cash-out corrected"),  # 50 into the tray
        ]
    )
    assert (correction.kind, correction.approved_by, correction.created_by) == ("correction", pete, dana)
    assert correction.memo == f"Reverses the cash-out {cash_out.pk} and books it corrected"


def test_a_cash_out_corrected_to_more_chips_pays_the_difference_from_the_tray(cashed_out, rocket, dana, pete):
    cash_out, session = cashed_out

    correct(cash_out, 340, dana, pete)

    assert Account.objects.get(kind="player", ref=session.pk).balance == 0
    assert balance("tray", table=rocket) == TRAY_OPENING - BUY_IN - 40
    assert balance("patrons", casino=rocket.pit.casino) == -BUY_IN + 340


def test_a_tray_that_cannot_pay_the_difference_refuses_the_correction_and_nothing_is_written(
    cashed_out, rocket, dana, pete
):
    cash_out, _ = cashed_out
    taken = TRAY_OPENING + 1  # the tray holds 9,700 after selling Ann her 300: it cannot pay 9,701 more
    request = correction_request(transaction=cash_out, taken=taken, by=dana, reason="Camera.", key=key())
    before = ledger_rows()

    with pytest.raises(LedgerError, match="The tray holds"):
        approval_decide(request=request, by=pete, approve=True, key=key())

    request.refresh_from_db()
    assert ledger_rows() == before and request.status == "pending"


@pytest.mark.parametrize(
    "taken, message",
    [
        (None, "corrected to the chips the player really left with: give that amount"),
        (BUY_IN, "already books 300 units: there is nothing to correct"),
        (-5, "whole number of units from 0 to 1,000,000,000,000, not -5"),
        (12.5, "whole number of units from 0 to 1,000,000,000,000, not 12.5"),
    ],
)
def test_a_cash_out_is_never_reversed_alone_nor_corrected_to_what_it_booked(
    cashed_out, dana, taken, message
):
    cash_out, _ = cashed_out

    with pytest.raises(DomainError, match=message):
        correction_request(transaction=cash_out, taken=taken, by=dana, reason="Wrong.", key=key())


def test_only_a_cash_out_is_corrected_to_an_amount(cashed_out, rocket, dana):
    buy_in = Transaction.objects.get(kind="buy_in", table=rocket)

    with pytest.raises(DomainError, match="Only a cash-out is corrected to an amount"):
        correction_request(transaction=buy_in, taken=30, by=dana, reason="Keyed 300, not 30.", key=key())
