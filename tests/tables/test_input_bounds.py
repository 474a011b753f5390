"""Bad numbers are refused with a sentence and write nothing (issue 15, point 2): a rank off the cards'
1 to 10, amounts past casino/limits.py's bounds, and a fill that would overflow a tray."""

import pytest

import ledger.services
from casino.errors import DomainError
from casino.limits import MAX_AMOUNT
from ledger.models import Account
from ledger.services import account_get
from tables.models import Incident, Player
from tables.services import (
    HandError,
    RankRefused,
    fill_request,
    hand_record_card,
    hand_start,
    seat_buy_in,
    seat_open,
    tray_credit,
    tray_fill,
)
from tables.services.counts import chip_total
from tests.api.conftest import records, signed_in

from .conftest import deal_at, key, seat

pytestmark = pytest.mark.django_db


@pytest.fixture
def rocket_hand(client, rocket, dana, pete):
    """Ann's hand at Rocket 1 waits for its first card; dana deals, signed in on the tablet."""
    deal_at(rocket, dana, pete)
    client.force_login(dana)
    seat(rocket, 1, 200, dana, "Ann")
    return hand_start(table=rocket, bets={1: 20}, by=dana, key=key())


@pytest.mark.parametrize("rank", [0, 11, -1, 99])
def test_a_rank_off_one_to_ten_keyed_on_the_tablet_is_400_and_writes_no_incident(client, rocket_hand, rank):
    before = records()

    response = client.post(
        f"/tablet/hands/{rocket_hand.pk}/card/", {"key": key(), "seq": rocket_hand.seq, "rank": rank}
    )

    assert response.status_code == 400
    assert "A rank is 1 to 10" in response.content.decode()
    assert records() == before


@pytest.mark.parametrize("rank", [0, 11, -1, 99, True, 5.0])
def test_the_service_refuses_a_rank_off_one_to_ten_as_bad_input_not_an_incident(rocket_hand, dana, rank):
    before = records()

    with pytest.raises(HandError, match="A rank is 1 to 10") as refused:
        hand_record_card(hand=rocket_hand, rank=rank, by=dana, expected_seq=rocket_hand.seq, key=key())

    assert not isinstance(refused.value, RankRefused)
    assert records() == before and not Incident.objects.exists()


@pytest.mark.parametrize("rank", [0, 11])
def test_the_api_refuses_a_rank_off_one_to_ten_and_writes_nothing(rocket_hand, dana, rank):
    dealer = signed_in(dana)  # signing in is audited: before the count
    before = records()

    response = dealer.change(
        f"/api/hands/{rocket_hand.pk}/cards/", {"rank": rank, "expected_seq": rocket_hand.seq}
    )

    assert response.status_code == 400 and response.json() == {"rank": ["A rank is 1 to 10."]}
    assert records() == before


def test_a_buy_in_a_fill_and_a_credit_past_the_largest_amount_are_refused(rocket, dana, pete):
    session = seat(rocket, 1, 200, dana)
    before = records()
    too_much = MAX_AMOUNT + 1
    attempts = [
        lambda: seat_open(table=rocket, seat=2, buy_in=too_much, by=dana, key=key()),
        lambda: seat_open(table=rocket, seat=2, chips=too_much, by=dana, key=key()),
        lambda: seat_buy_in(session=session, amount=too_much, by=dana, key=key()),
        lambda: tray_fill(table=rocket, amount=too_much, by=pete, key=key()),
        lambda: tray_credit(table=rocket, amount=10**30, by=pete, key=key()),
    ]

    for attempt in attempts:
        # a sit-down may bring no cash (chips brought) or no chips (a buy-in): each from 0
        with pytest.raises(DomainError, match=f"from [01] to {MAX_AMOUNT:,}"):
            attempt()

    assert records() == before


def test_the_largest_amount_itself_is_accepted(rocket, dana, pete):
    held = account_get(kind=Account.Kind.TRAY, table=rocket).balance
    tray_credit(table=rocket, amount=held, by=pete, key=key())  # an empty tray holds the largest fill
    tray_fill(table=rocket, amount=MAX_AMOUNT, by=pete, key=key())
    # cash past the reporting threshold: an identified player (tables.services.players)
    whale = Player.objects.create(
        casino=rocket.pit.casino, name="Whale", id_type="passport", id_number="1", id_issuer="FR"
    )
    session = seat_open(table=rocket, seat=1, buy_in=MAX_AMOUNT, player=whale, by=dana, key=key())

    assert session.buy_in == MAX_AMOUNT


@pytest.mark.parametrize(
    "denominations",
    [
        {"1000": MAX_AMOUNT},  # each count fits, their value does not
        {"1": MAX_AMOUNT, "5": 1},
        {"1" * 5000: 1},  # a chip value too long for int()
        {"٣": 1},  # a digit int() reads, but no chip value
        {"25": 10**5000},
    ],
)
def test_a_count_past_the_largest_amount_or_with_no_chip_value_is_refused(denominations):
    with pytest.raises(DomainError):
        chip_total(denominations)


def test_a_fill_request_past_the_largest_amount_writes_nothing(rocket, dana):
    before = records()

    with pytest.raises(DomainError, match="no count or slip is above"):
        chips = {"1000": MAX_AMOUNT}
        fill_request(table=rocket, denominations=chips, by=dana, secret="dana-password", key=key())

    assert records() == before


def test_a_fill_that_would_take_the_tray_past_the_ceiling_is_refused(rocket, pete, monkeypatch):
    """The ceiling (MAX_BALANCE) is lowered to just above the tray: filling past it is refused."""
    tray = account_get(kind=Account.Kind.TRAY, table=rocket)
    monkeypatch.setattr(ledger.services, "MAX_BALANCE", tray.balance + 100)
    before = records()

    with pytest.raises(DomainError, match="more than any account may hold or owe"):
        tray_fill(table=rocket, amount=101, by=pete, key=key())

    assert records() == before
    tray_fill(table=rocket, amount=100, by=pete, key=key())  # up to the ceiling is fine


def test_a_fill_that_would_leave_more_in_the_tray_than_a_count_records_is_refused(rocket, dana, pete):
    held = account_get(kind=Account.Kind.TRAY, table=rocket).balance
    chips = {"1000": MAX_AMOUNT // 1000}  # MAX_AMOUNT itself: a slip may say it, the tray may not hold it
    before = records()

    with pytest.raises(DomainError, match=f"would hold {held + MAX_AMOUNT:,} units after this fill"):
        fill_request(table=rocket, denominations=chips, by=dana, secret="dana-password", key=key())
    with pytest.raises(DomainError, match="so the table could never be closed"):
        tray_fill(table=rocket, amount=MAX_AMOUNT - held + 1, by=pete, key=key())

    assert records() == before
    tray_fill(table=rocket, amount=MAX_AMOUNT - held, by=pete, key=key())  # up to what a count records
