"""Signed slips: fills and credits, blind table counts, serial numbers per table and year."""

import pytest
from django.utils import timezone

from casino.errors import DomainError, NotAllowed
from casino.models import AuditEvent
from ledger.models import Account, Transaction
from ledger.services import account_balance, account_get
from tables.models import ApprovalRequest, Game, Signature, Slip, SlipSeries, Table, TableCount
from tables.services import (
    SignatureGiven,
    approval_decide,
    credit_request,
    fill_request,
    shift_start,
    slip_void,
    slips_report,
    table_count,
    table_is_open,
)
from tables.services.slips import slip_issue

from .conftest import TRAY_OPENING, key, open_table

pytestmark = pytest.mark.django_db


@pytest.fixture
def on_shift(rocket, dana, pete):
    shift_start(user=pete, pit=rocket.pit, by=pete)
    shift_start(user=dana, table=rocket, by=pete)
    pete.set_pin("2468")
    pete.save()
    return rocket


@pytest.fixture
def to_open(pit, dana, pete):
    """A Rocket table with its tray filled that nobody has opened yet; dana and pete on shift."""
    table = open_table(pit, pete, Game.ROCKET, "Rocket 1", 10, 500, decks=8, opened=False)
    shift_start(user=pete, pit=pit, by=pete)
    shift_start(user=dana, table=table, by=pete)
    return table


def tray(table):
    return account_get(kind=Account.Kind.TRAY, table=table).balance


def test_a_fill_is_signed_by_the_dealer_and_the_pit_manager_and_moves_chips_from_the_cage(
    on_shift, dana, pete
):
    request = fill_request(
        table=on_shift,
        denominations={"25": 20, "5": 100},
        by=dana,
        secret="dana-password",
        device="tablet-1",
        key=key(),
    )
    assert (request.kind, request.amount, tray(on_shift)) == ("fill", 1000, TRAY_OPENING)

    approval_decide(request=request, by=pete, approve=True, secret="2468", device="pit-pc", key=key())

    assert tray(on_shift) == TRAY_OPENING + 1000
    slip = Slip.objects.get(request=request)
    signatures = [(s.user, s.role, s.method, s.device) for s in slip.signatures.order_by("at")]
    assert signatures == [(dana, "dealer", "password", "tablet-1"), (pete, "pit manager", "pin", "pit-pc")]
    assert slip.transaction.approved_by == pete and slip.transaction.kind == "fill"


def test_a_credit_sends_chips_from_the_tray_back_to_the_cage(on_shift, dana, pete):
    request = credit_request(
        table=on_shift, denominations={"100": 30}, by=dana, secret="dana-password", key=key()
    )
    approval_decide(request=request, by=pete, approve=True, secret="pete-password", key=key())

    assert tray(on_shift) == TRAY_OPENING - 3000
    cage = account_get(kind=Account.Kind.CAGE, casino=on_shift.pit.casino)
    assert account_balance(cage) == -TRAY_OPENING + 3000


def test_a_wrong_password_signs_nothing_writes_nothing_and_is_logged(on_shift, dana):
    before = (ApprovalRequest.objects.count(), Slip.objects.count(), Signature.objects.count())

    with pytest.raises(NotAllowed, match="not right"):
        fill_request(table=on_shift, denominations={"25": 4}, by=dana, secret="guess", key=key())

    assert (ApprovalRequest.objects.count(), Slip.objects.count(), Signature.objects.count()) == before
    assert AuditEvent.objects.get(action="signature_failed").username == "dana"


def test_a_pit_manager_cannot_approve_without_signing_afresh(on_shift, dana, pete):
    request = fill_request(
        table=on_shift, denominations={"25": 4}, by=dana, secret="dana-password", key=key()
    )

    with pytest.raises(NotAllowed, match="not right"):
        approval_decide(request=request, by=pete, approve=True, secret="guess", key=key())
    with pytest.raises(DomainError, match="Type your password or PIN") as empty:
        approval_decide(request=request, by=pete, approve=True, secret="", key=key())
    assert not isinstance(empty.value, NotAllowed)  # asked for, not counted as a failed signature
    assert AuditEvent.objects.filter(action="signature_failed").count() == 1
    assert tray(on_shift) == TRAY_OPENING
    request.refresh_from_db()
    assert request.status == "pending"


def test_the_requester_of_a_fill_can_never_approve_it(on_shift, pete):
    request = fill_request(table=on_shift, denominations={"25": 4}, by=pete, secret="2468", key=key())
    with pytest.raises(NotAllowed, match="another pit manager"):
        approval_decide(request=request, by=pete, approve=True, secret="2468", key=key())


def test_a_rejected_fill_voids_its_slip(on_shift, dana, pete):
    request = fill_request(
        table=on_shift, denominations={"25": 4}, by=dana, secret="dana-password", key=key()
    )
    approval_decide(request=request, by=pete, approve=False, reason="Tray has enough 25s.", key=key())

    slip = Slip.objects.get(request=request)
    assert slip.status == "voided" and "Tray has enough 25s." in slip.void_reason
    assert tray(on_shift) == TRAY_OPENING


def count(table, kind, denominations, by, witness):
    return table_count(
        table=table,
        kind=kind,
        denominations=denominations,
        by=by,
        counter=SignatureGiven(by.username, f"{by.username}-password"),
        witness=SignatureGiven(witness.username, f"{witness.username}-password"),
        key=key(),
    )


def test_a_table_closes_with_a_chip_difference_recorded_and_the_next_opener_checks_it(to_open, dana, pete):
    # the tray holds TRAY_OPENING = 10,000 units: 100 x 100
    opener = count(to_open, "opener", {"100": 100}, dana, pete)
    assert table_is_open(to_open) and opener.difference == 0

    closer = count(to_open, "closer", {"100": 99, "25": 3}, dana, pete)  # 25 units short

    assert not table_is_open(to_open)
    assert (closer.counted, closer.expected, closer.difference) == (9975, 10_000, -25)
    reopened = count(to_open, "opener", {"100": 99, "25": 3}, dana, pete)
    assert reopened.previous_closer == closer and reopened.against_previous_closer == 0
    assert reopened.slip.signatures.count() == 2
    actions = AuditEvent.objects.filter(action__in=["table_open", "table_close"]).order_by("at", "pk")
    assert list(actions.values_list("action", flat=True)) == ["table_open", "table_close", "table_open"]


def test_a_count_needs_two_different_people(to_open, dana):
    with pytest.raises(NotAllowed, match="second person"):
        count(to_open, "opener", {"100": 100}, dana, dana)
    assert not TableCount.objects.exists()


def test_a_table_cannot_close_unopened_or_open_twice(to_open, dana, pete):
    with pytest.raises(DomainError, match="not open"):
        count(to_open, "closer", {"100": 100}, dana, pete)
    count(to_open, "opener", {"100": 100}, dana, pete)
    with pytest.raises(DomainError, match="already open"):
        count(to_open, "opener", {"100": 100}, dana, pete)


def runs(report):
    return {
        run.series.table.name if run.series.table else "casino-wide": (run.used, run.voided, run.missing)
        for run in report
    }


def test_slip_serials_run_per_table_and_year_and_the_report_shows_used_voided_and_missing(
    to_open, pit, dana, pete
):
    other = open_table(pit, pete, Game.BLACKSTONE, "Blackstone 1", 5, 500, opened=False)
    for _ in (1, 2):  # the table is closed: no fill is asked at it, a void slip is still written
        slip_issue(kind=Slip.Kind.VOID, table=to_open, by=pete)
    lost = slip_issue(kind=Slip.Kind.VOID, table=to_open, by=pete)
    theirs = slip_issue(kind=Slip.Kind.VOID, table=other, by=pete)
    slip_issue(kind=Slip.Kind.VOID, table=to_open, by=pete)
    slips = list(Slip.objects.filter(table=to_open).order_by("serial"))
    assert [s.serial for s in slips] == [1, 2, 3, 4] and theirs.serial == 1
    assert str(theirs) == f"Void slip T{other.pk}-{theirs.year}-000001"
    slip_void(slip=slips[1], by=pete, reason="Written on the wrong table.")
    Slip.objects.filter(pk=lost.pk).delete()  # a slip that went missing

    report = runs(slips_report(timezone.localdate().year))

    assert report == {"Rocket 1": ([1, 4], [2], [3]), "Blackstone 1": ([1], [], [])}


def test_a_year_numbered_casino_wide_before_goes_on_in_each_table_s_own_run(to_open, pit, dana, pete):
    year = timezone.localdate().year
    other = open_table(pit, pete, Game.BLACKSTONE, "Blackstone 1", 5, 500, opened=False)
    # as migration 0022 leaves a year numbered casino-wide: serials 1-3 issued, at either table
    SlipSeries.objects.create(table=None, year=year, first=1, last=3)
    for serial, table in ((1, to_open), (3, other)):  # serial 2 went missing
        Slip.objects.create(year=year, serial=serial, kind=Slip.Kind.VOID, table=table, created_by=pete)

    mine, theirs = (slip_issue(kind=Slip.Kind.VOID, table=t, by=pete) for t in (to_open, other))

    assert mine.serial == theirs.serial == 4  # each table's run starts after the casino-wide one
    assert runs(slips_report(year)) == {
        "casino-wide": ([1, 3], [], [2]),
        "Blackstone 1": ([4], [], []),
        "Rocket 1": ([4], [], []),
    }
    # a reader who sees only one table sees its run, and every gap of the casino-wide one
    shown = runs(slips_report(year, tables=Table.objects.filter(pk=other.pk)))
    assert shown == {"casino-wide": ([3], [], [2]), "Blackstone 1": ([4], [], [])}


def test_an_approved_void_issues_a_void_slip(rocket, dana, pete):
    from tables.services import hand_start, hand_void_request

    from .conftest import seat

    shift_start(user=pete, pit=rocket.pit, by=pete)
    seat(rocket, 1, 100, dana)
    hand = hand_start(table=rocket, bets={1: 10}, by=dana, key=key())
    request = hand_void_request(hand=hand, by=dana, reason="Misdeal.", expected_seq=0, key=key())
    approval_decide(request=request, by=pete, approve=True, key=key())

    assert Slip.objects.get(kind="void").hand == hand
    assert Transaction.objects.filter(hand_id=hand.pk, kind="correction").count() == 1


def test_a_correction_reverses_a_transaction_once_a_second_person_approves(on_shift, dana, pete):
    from tables.services import correction_request

    from .conftest import seat

    seat(on_shift, 1, 300, dana)
    buy_in = Transaction.objects.get(kind="buy_in")
    request = correction_request(
        transaction=buy_in, by=dana, reason="Keyed 300, the player gave 30.", key=key()
    )
    with pytest.raises(NotAllowed, match="another pit manager"):
        approval_decide(request=request, by=dana, approve=True, key=key())

    approval_decide(request=request, by=pete, approve=True, key=key())

    reversal = Transaction.objects.get(reverses=buy_in)
    assert (reversal.kind, reversal.approved_by, reversal.reason) == (
        "correction",
        pete,
        "Keyed 300, the player gave 30.",
    )
    assert tray(on_shift) == TRAY_OPENING
    with pytest.raises(DomainError, match="reversed already"):
        correction_request(transaction=buy_in, by=dana, reason="Again.", key=key())


def test_a_name_that_keeps_failing_to_sign_is_locked_out_like_a_sign_in(on_shift, dana, settings):
    for _ in range(settings.AXES_FAILURE_LIMIT):
        with pytest.raises(NotAllowed, match="not right"):
            fill_request(table=on_shift, denominations={"25": 4}, by=dana, secret="guess", key=key())

    with pytest.raises(NotAllowed, match="Too many"):
        fill_request(table=on_shift, denominations={"25": 4}, by=dana, secret="dana-password", key=key())
    assert not ApprovalRequest.objects.exists()


def witness_on(table, device, by, witness, secret):
    """An opening count on `device`, witnessed as `witness` with `secret`."""
    return table_count(
        table=table,
        kind="opener",
        denominations={"100": 100},
        by=by,
        counter=SignatureGiven(by.username, f"{by.username}-password"),
        witness=SignatureGiven(witness.username, secret),
        device=device,
        key=key(),
    )


def test_wrong_passwords_for_a_managers_name_on_one_tablet_do_not_lock_the_name_on_another(
    to_open, dana, pete, settings
):
    # given: dana types pete's name with wrong passwords on tablet-1 until it is locked there
    for _ in range(settings.AXES_FAILURE_LIMIT):
        with pytest.raises(NotAllowed, match="not right"):
            witness_on(to_open, "tablet-1", dana, pete, "guess")
    with pytest.raises(NotAllowed, match="'pete' on this device: signing as them is locked for 15 minutes"):
        witness_on(to_open, "tablet-1", dana, pete, "pete-password")

    settings.SIGNIN_NAME_FAILURE_LIMIT = 2 * settings.AXES_FAILURE_LIMIT
    for _ in range(2 * settings.AXES_FAILURE_LIMIT):  # guessing on at the locked tablet is not counted
        with pytest.raises(NotAllowed, match="on this device"):
            witness_on(to_open, "tablet-1", dana, pete, "guess")

    # when: pete witnesses the count on tablet-2
    count = witness_on(to_open, "tablet-2", dana, pete, "pete-password")

    # then: he signs there, and the failures stay on file against tablet-1
    assert [s.user for s in count.slip.signatures.order_by("pk")] == [dana, pete]
    failed = AuditEvent.objects.filter(action="signature_failed", username="pete")
    assert set(failed.values_list("device", flat=True)) == {"tablet-1"}
    locked = [event.detail["locked_out"] for event in failed.order_by("pk")]
    assert locked == [False] * settings.AXES_FAILURE_LIMIT + [True] * (2 * settings.AXES_FAILURE_LIMIT + 1)


def test_a_name_failing_to_sign_on_many_devices_is_locked_on_every_device(to_open, dana, pete, settings):
    settings.SIGNIN_NAME_FAILURE_LIMIT = 3
    for device in ("tablet-1", "tablet-2", "tablet-3"):  # each one below the per-device limit
        with pytest.raises(NotAllowed, match="not right"):
            witness_on(to_open, device, dana, pete, "guess")

    with pytest.raises(NotAllowed, match="'pete' on every device"):
        witness_on(to_open, "tablet-4", dana, pete, "pete-password")
    assert not TableCount.objects.exists()


def test_a_bet_of_a_hand_in_play_is_voided_with_its_hand_not_corrected(on_shift, dana, pete):
    # Found with the stateful test: a correction reversed the bet of a hand in play; the hand could
    # then neither settle (its wager short) nor be voided (its bet reversed already), and the table
    # could start no other hand.
    from tables.models import Hand
    from tables.services import correction_request, hand_start, hand_void_request

    from .conftest import seat

    seat(on_shift, 1, 300, dana)
    hand = hand_start(table=on_shift, bets={1: 50}, by=dana, key=key())
    bet = Transaction.objects.get(hand_id=hand.pk, kind="bet")

    with pytest.raises(DomainError, match="hand still in play"):
        correction_request(transaction=bet, by=dana, reason="Keyed 50, the player bet 10.", key=key())
    assert not ApprovalRequest.objects.exists()

    void = hand_void_request(hand=hand, by=dana, reason="Bet keyed wrong.", expected_seq=0, key=key())
    approval_decide(request=void, by=pete, approve=True, key=key())
    hand.refresh_from_db()
    assert hand.status == Hand.Status.VOIDED
    hand_start(table=on_shift, bets={1: 10}, by=dana, key=key())
