"""The reconciliation report finds every discrepancy planted in chips, cards and hands."""

import pytest

from casino.roles import PIT_MANAGER
from ledger.models import Account, Transaction
from ledger.services import account_get
from reports.models import Report
from reports.periods import today
from tables.models import CardEvent, Hand, Incident, SeatSession, Shoe
from tables.services import (
    approval_decide,
    hand_start,
    hand_void_request,
    seat_close,
    shift_end,
    shift_start,
    shoe_retire,
    shoe_start,
    tray_fill,
)
from tests.tables.conftest import open_with_count, person, signed_in
from tests.tables.test_recycle import play_system_pairs

from .conftest import count, key, lifting_protection, open_table, play_out, rocket_hands, run, seat, seated

pytestmark = pytest.mark.django_db


def tray(table) -> int:
    return account_get(kind=Account.Kind.TRAY, table=table).balance


def reconcile(**params):
    if not params.keys() & {"session", "shift"}:
        params = {"date_from": today().isoformat(), "date_to": today().isoformat(), **params}
    report = run(Report.Kind.RECONCILIATION, params)
    assert report.status == Report.Status.DONE, report.error
    return report.result


@pytest.fixture
def rocket(pit, pete):
    """Rocket 1 with its tray filled, not yet opened: these tests open and close it with their counts."""
    return open_table(pit, pete, "rocket", "Rocket 1", 10, 500, decks=8, opened=False)


@pytest.fixture
def on_duty(rocket, dana, pete):
    """dana deals at Rocket 1 and pete runs its pit: both may sign its counts."""
    shift_start(user=pete, pit=rocket.pit, by=pete)
    shift_start(user=dana, table=rocket, by=pete)
    return rocket


@pytest.fixture
def session(on_duty, rocket, dana, pete):
    """A table session: opened with the tray counted right, two players, three hands."""
    opener = count(rocket, "opener", tray(rocket), dana, pete)
    rocket_hands(seated(rocket, dana), 3, dana)
    return opener


def cash_out_all(table, by) -> None:
    """Every player leaves: a closing count needs every seat closed."""
    for session in SeatSession.objects.filter(seat__table=table, ended_at=None):
        seat_close(session=session, by=by, key=key())


def test_a_clean_session_reconciles_chips_cards_hands_and_chain(session, rocket, dana, pete):
    cash_out_all(rocket, dana)
    count(rocket, "closer", tray(rocket), dana, pete)

    result = reconcile(session=session.pk)

    assert result["findings"] == []
    [chips] = result["chips"]
    # opening 10,000 - chips sold 4,000 + collected 3 x 30 - paid 3 x 18 = the closing count
    assert chips["terms"] == {"buy_in": -4000, "collected": 90, "paid": -54}
    assert chips["expected_tray"] == chips["closing_count"] == 10_000 - 4000 + 36
    [shoe] = result["cards"]["shoes"]
    assert (shoe["dealt"], shoe["face_down"], shoe["left"]) == (5 + 15, 5, 440 - 20)
    assert result["hands"]["replayed"] == 3 and result["chain"]["verifies"]


def test_a_settled_hand_voided_afterwards_reconciles_as_voided(session, rocket, dana, pete):
    # given hand 2 of the session voided once settled (pete asked, pam approved): RULINGS "A
    # mis-keyed card", anything older than the last card is settled by voiding the hand
    pam = person("pam", PIT_MANAGER)
    shift_start(user=pam, pit=rocket.pit, by=pam)
    hand = Hand.objects.get(table=rocket, number=2)
    request = hand_void_request(hand=hand, by=pete, reason="Seat 1 was paid 18 for 9s; it was 8s.",
                                expected_seq=hand.seq, key=key())
    approval_decide(request=request, by=pam, approve=True, key=key())
    cash_out_all(rocket, dana)
    count(rocket, "closer", tray(rocket), dana, pete)

    result = reconcile(session=session.pk)

    # then nothing disagrees: the hand is voided and nets to nothing, the other two replay
    assert result["findings"] == []
    assert (result["hands"]["replayed"], result["hands"]["voided"]) == (2, 1)


def test_a_wrong_closing_count_is_found(session, rocket, dana, pete):
    cash_out_all(rocket, dana)
    closer = count(rocket, "closer", tray(rocket) - 25, dana, pete)

    result = reconcile(session=session.pk)

    [finding] = result["findings"]
    assert (
        finding["section"] == "chips" and "differs from the expected tray 6036 by -25" in finding["problem"]
    )
    assert finding["link"] == f"/pit/counts/{closer.pk}/"  # the count that is short, on the pit
    assert result["chips"][0]["difference"] == -25


def test_an_opening_count_that_differs_from_the_previous_closer_is_found(on_duty, rocket, dana, pete):
    count(rocket, "opener", tray(rocket), dana, pete)
    count(rocket, "closer", tray(rocket), dana, pete)
    count(rocket, "opener", tray(rocket) + 100, dana, pete)

    problems = [f["problem"] for f in reconcile(table=rocket.pk)["findings"]]

    assert any("differs from the ledger's 10000 by +100" in p for p in problems)
    assert any("differs from the previous closing count 10000 by +100" in p for p in problems)


def test_a_missing_card_is_found(session, rocket, pete):
    # given someone removed the 4 seat 1 drew in the first hand
    gone = CardEvent.objects.filter(shoe__table=rocket, rank=4).order_by("shoe_position").first()
    lifting_protection(("DELETE FROM tables_cardevent WHERE id = %s", [gone.pk]))

    result = reconcile(table=rocket.pk)

    cards = [f for f in result["findings"] if f["section"] == "cards"]
    assert len(cards) == 1
    assert f"positions missing: {gone.shoe_position}" in cards[0]["problem"]
    assert cards[0]["link"] == f"/pit/shoes/{gone.shoe_id}/"  # on the pit: pete has no admin
    shoe = signed_in(pete).get(cards[0]["link"])
    assert shoe.status_code == 200 and f"Shoe {gone.shoe_id}" in shoe.content.decode()
    hands = [f for f in result["findings"] if f["section"] == "hands"]
    assert hands and hands[0]["link"] == f"/pit/hands/{gone.hand_id}/"  # it no longer replays
    assert any(f["section"] == "chain" for f in result["findings"])


def test_an_altered_posting_is_found(session, rocket):
    lifting_protection(
        (
            "UPDATE ledger_posting SET amount = amount + 10 WHERE reason = 'dealer pair' AND amount > 0 "
            "AND id = (SELECT MIN(id) FROM ledger_posting WHERE reason = 'dealer pair' AND amount > 0)",
            [],
        ),
        (
            "UPDATE ledger_posting SET amount = amount - 10 WHERE reason = 'dealer pair' AND amount < 0 "
            "AND id = (SELECT MIN(id) FROM ledger_posting WHERE reason = 'dealer pair' AND amount < 0)",
            [],
        ),
    )

    result = reconcile(table=rocket.pk)

    hands = [f for f in result["findings"] if f["section"] == "hands"]
    assert len(hands) == 1 and "the ledger posted" in hands[0]["problem"]
    first_hand = rocket.hands.order_by("number").first()
    assert hands[0]["link"] == f"/pit/hands/{first_hand.pk}/"
    chain = [f for f in result["findings"] if f["section"] == "chain"]
    assert chain and "hash does not match its content" in chain[0]["problem"]


def test_a_system_shoe_deals_its_committed_order_and_its_commitment_verifies(pit, pete, dana):
    table = open_table(pit, pete, "rocket", "Rocket 9", 10, 500, decks=1, kind=Shoe.Kind.SYSTEM)
    seated(table, dana)
    play_out(hand_start(table=table, bets={1: 10, 2: 10}, by=dana, key=key()), dana)
    shoe_retire(shoe=table.shoes.get(), by=pete, key=key())

    result = reconcile(table=table.pk)

    assert result["findings"] == [] and result["cards"]["shoes"][0]["commitment_verifies"]


def test_a_system_shoe_recycled_mid_hand_reconciles_deck_by_deck(pit, pete, dana):
    table = open_table(pit, pete, "pairs", "Pairs 9", 1, 100, {"ending": "cutchfeld"}, kind=Shoe.Kind.SYSTEM)
    seated(table, dana)  # findings mean a recycled deck that does not add up
    play_system_pairs(table, dana)
    shoe_retire(shoe=table.shoes.get(), by=pete, key=key())

    result = reconcile(table=table.pk)

    shoe = result["cards"]["shoes"][0]
    assert result["findings"] == [] and shoe["commitment_verifies"] and shoe["recycles"] >= 1
    assert shoe["dealt"] > 55 and result["hands"]["replayed"] == table.hands.count()


def test_a_changed_order_no_longer_verifies_and_its_dealt_cards_no_longer_match(pit, pete, dana):
    table = open_table(pit, pete, "rocket", "Rocket 9", 10, 500, decks=1, kind=Shoe.Kind.SYSTEM)
    seated(table, dana)
    play_out(hand_start(table=table, bets={1: 10}, by=dana, key=key()), dana)
    shoe = table.shoes.get()
    order = list(shoe.order)
    other = next(i for i, rank in enumerate(order) if rank != order[0])
    order[0], order[other] = order[other], order[0]  # the first (burned) card swapped for another rank
    Shoe.objects.filter(pk=shoe.pk).update(order=order)

    problems = [f["problem"] for f in reconcile(table=table.pk)["findings"]]

    assert "the shoe's order and salt do not hash to its commitment" in problems
    assert any(p.startswith("card 1 was recorded as") for p in problems)


def test_physical_shoe_incidents_are_listed(rocket, dana):
    open_with_count(rocket)
    hand = rocket_hands(seated(rocket, dana), 1, dana)[0]
    Incident.objects.create(
        kind=Incident.Kind.RANK_REFUSED,
        table=rocket,
        shoe=hand.shoe,
        hand=hand,
        detail="The shoe cannot hold another 1.",
        by=dana,
    )

    [incident] = reconcile(table=rocket.pk)["cards"]["incidents"]

    assert (
        incident["detail"] == "The shoe cannot hold another 1."
        and incident["link"] == f"/pit/hands/{hand.pk}/"
    )


def test_a_shift_is_reconciled_over_its_own_hours(rocket, dana, pete):
    open_with_count(rocket)
    seated(rocket, dana)
    rocket_hands(rocket, 1, dana)
    shift_start(user=pete, pit=rocket.pit, by=pete)  # the pit puts dana on Rocket 1
    shift = shift_start(user=dana, table=rocket, by=pete)
    rocket_hands(rocket, 2, dana)
    shift_end(shift=shift, by=pete)
    shoe_start(table=rocket, decks=8, reason="End of the shift", by=pete, key=key())

    result = reconcile(shift=shift.pk)

    assert result["hands"]["replayed"] == 2 and result["findings"] == []
    assert "dana's shift" in result["period"]
    seat(rocket, 3, 100, dana)  # later activity is no part of that report


def test_a_cage_move_while_the_table_is_closed_links_to_its_transaction_on_the_pit(
    session, rocket, dana, pete
):
    # given the table counted closed, then a fill posted straight to the ledger (no request, no slip)
    cash_out_all(rocket, dana)
    count(rocket, "closer", tray(rocket), dana, pete)
    tray_fill(table=rocket, amount=100, by=pete, key=key())

    findings = reconcile(table=rocket.pk)["findings"]
    [finding] = [f for f in findings if "while the table was closed" in f["problem"]]

    # then the finding links to the fill's page on the pit, which pete (no admin) opens
    move = Transaction.objects.filter(table=rocket, kind=Transaction.Kind.FILL).latest("created_at")
    assert finding["link"] == f"/pit/transactions/{move.pk}/"
    page = signed_in(pete).get(finding["link"]).content.decode()
    assert "Rocket 1: fill of 100" in page and "The cage" in page and "-100" in page
