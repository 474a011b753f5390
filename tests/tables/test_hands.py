"""Hands through the services: records, the ledger, and everything they refuse."""

import pytest

from casino.errors import Conflict, DomainError
from ledger.models import Account, Posting, Transaction
from ledger.services import account_get
from tables.games import replay
from tables.models import CardEvent, Decision, Hand, Receiver
from tables.services import hand_settle, hand_start

from .conftest import TRAY_OPENING, card, decide, key, play, seat

pytestmark = pytest.mark.django_db


def balance(table, kind, ref=None):
    return account_get(kind=kind, table=table, ref=ref).balance


def chips(session):
    return balance(session.seat.table, Account.Kind.PLAYER, session.pk)


def written():
    return (
        CardEvent.objects.count(),
        Decision.objects.count(),
        Transaction.objects.count(),
        Hand.objects.count(),
    )


def settle(hand, by):
    return hand_settle(hand=hand, by=by, expected_seq=hand.seq, key=key())


def test_a_rocket_hand_moves_every_chip_through_the_ledger(rocket, dana):
    # given two players with 200 units each, betting 20 and 50
    first, second = seat(rocket, 1, 200, dana), seat(rocket, 2, 200, dana)
    hand = hand_start(table=rocket, bets={1: 20, 2: 50}, by=dana, key=key())
    assert chips(first) == 180 and chips(second) == 150

    # when seat 1 hits a 4 safely, seat 2 folds (5 tenths x the lower of 6 and
    # the dealer's 9 = 30), and the dealer pairs her 9s (pays seat 1 2 x 9 = 18)
    hand = play(hand, cards=[5, 6, 9, 4, 9], decisions=[("hit",), ("fold",)], by=dana)
    hand = settle(hand, dana)

    # then
    assert hand.status == Hand.Status.SETTLED
    assert chips(first) == 218
    assert chips(second) == 170
    assert balance(rocket, Account.Kind.TRAY) == TRAY_OPENING - 400 + 30 - 18
    assert balance(rocket, Account.Kind.DROP) == 400
    assert balance(rocket, Account.Kind.WAGER, hand.pk) == 0


def test_every_card_and_decision_is_recorded_in_order_with_who_and_where(rocket, dana):
    seat(rocket, 1, 200, dana)
    hand = hand_start(table=rocket, bets={1: 10}, by=dana, key=key())
    hand = play(hand, cards=[5, 9, 4, 9], decisions=[("hit",)], by=dana)

    cards = list(CardEvent.objects.filter(hand=hand).order_by("seq"))
    assert [(c.rank, c.receiver, c.seat) for c in cards] == [
        (5, Receiver.SEAT, 1),
        (9, Receiver.DEALER, None),
        (4, Receiver.SEAT, 1),
        (9, Receiver.DEALER, None),
    ]
    assert {c.keyed_by for c in cards} == {dana} and {c.device for c in cards} == {"tablet-1"}
    decision = Decision.objects.get(hand=hand)
    assert (decision.seq, decision.seat, decision.action) == (3, 1, ["hit"])
    assert [c.shoe_position for c in cards] == [6, 7, 8, 9]  # after the 5 burned cards


def test_the_posted_settlement_equals_a_replay_of_the_records(rocket, dana):
    seat(rocket, 1, 200, dana), seat(rocket, 3, 200, dana)
    hand = hand_start(table=rocket, bets={1: 30, 3: 100}, by=dana, key=key())
    hand = settle(play(hand, [2, 7, 8, 2, 5, 8], [("hit",), ("hit",)], dana), dana)

    cards = CardEvent.objects.filter(hand=hand, receiver__in=["seat", "dealer", "tiebreak"]).order_by("seq")
    decisions = Decision.objects.filter(hand=hand).order_by("seq")
    again = replay(
        "rocket",
        hand.seats,
        {1: 30, 3: 100},
        [c.rank for c in cards],
        [tuple(d.action) for d in decisions],
        options=hand.options,
    )

    assert {str(k): v for k, v in again.settlement.deltas.items()} == hand.settlement["deltas"]
    posted = Posting.objects.filter(transaction__hand_id=hand.pk, account__kind=Account.Kind.TRAY)
    assert -sum(p.amount for p in posted) == sum(
        v for k, v in again.settlement.deltas.items() if k != "house"
    )


@pytest.mark.parametrize(
    ("bets", "message"),
    [
        ({1: 25}, "multiple of 10"),
        ({1: 510}, "between 10 and 500"),
        ({4: 10}, "Nobody is seated at seat 4"),
        ({}, "at least one bet"),
    ],
)
def test_a_bad_bet_is_refused_and_writes_nothing(rocket, dana, bets, message):
    seat(rocket, 1, 1000, dana)
    before = written()
    with pytest.raises(DomainError, match=message):
        hand_start(table=rocket, bets=bets, by=dana, key=key())
    assert written() == before


def test_a_bet_above_the_chips_in_front_is_refused(rocket, dana):
    seat(rocket, 1, 40, dana)
    before = written()
    with pytest.raises(DomainError, match="40"):
        hand_start(table=rocket, bets={1: 50}, by=dana, key=key())
    assert written() == before


def test_a_rank_the_shoe_cannot_hold_is_refused_and_writes_nothing(pairs, dana):
    seat(pairs, 1, 50, dana), seat(pairs, 2, 50, dana)
    hand = hand_start(table=pairs, by=dana, key=key())
    hand = card(hand, 1, dana)  # the deck's only 1
    before = written()

    with pytest.raises(DomainError, match="cannot hold another 1"):
        card(hand, 1, dana)
    assert written() == before


def test_an_action_out_of_turn_is_refused_and_writes_nothing(rocket, dana):
    seat(rocket, 1, 200, dana)
    hand = hand_start(table=rocket, bets={1: 10}, by=dana, key=key())
    before = written()

    with pytest.raises(DomainError, match="No decision is due"):
        decide(hand, ("hit",), dana)
    hand = card(card(hand, 5, dana), 9, dana)
    with pytest.raises(DomainError, match="cannot take"):
        decide(hand, ("take", 2), dana)
    with pytest.raises(DomainError, match="No card is due"):
        card(hand, 4, dana)
    cards, decisions, transactions, hands = written()
    assert (cards, decisions, transactions, hands) == (before[0] + 2, *before[1:])


def test_a_stale_screen_gets_a_conflict_and_writes_nothing(rocket, dana):
    seat(rocket, 1, 200, dana)
    hand = hand_start(table=rocket, bets={1: 10}, by=dana, key=key())
    stale_seq = hand.seq
    card(hand, 5, dana)
    before = written()

    from tables.services import hand_record_card

    with pytest.raises(Conflict, match="Refresh"):
        hand_record_card(hand=hand, rank=9, by=dana, expected_seq=stale_seq, key=key())
    assert written() == before


def test_a_retry_with_the_same_key_is_applied_once(rocket, dana):
    from tables.services import hand_record_card

    seat(rocket, 1, 200, dana)
    hand = hand_start(table=rocket, bets={1: 10}, by=dana, key=key())
    first = hand_record_card(hand=hand, rank=5, by=dana, expected_seq=0, key="retry-me")
    again = hand_record_card(hand=hand, rank=5, by=dana, expected_seq=0, key="retry-me")

    assert first.seq == again.seq == 1
    assert CardEvent.objects.filter(hand=hand).count() == 1
    with pytest.raises(DomainError, match="different request"):
        hand_record_card(hand=hand, rank=6, by=dana, expected_seq=0, key="retry-me")
    assert CardEvent.objects.filter(hand=hand).count() == 1


def test_the_same_key_from_another_user_is_another_request(rocket, dana, pete):
    from tables.services import hand_record_card, seat_buy_in

    # given: dana sells Ann 50 more chips, and pete claims the key of dana's next card first
    session = seat(rocket, 1, 200, dana)
    seat_buy_in(session=session, amount=50, by=dana, key="more-chips")
    hand = hand_start(table=rocket, bets={1: 10}, by=dana, key=key())
    pete_saw = hand_record_card(hand=hand, rank=5, by=pete, expected_seq=0, key="next-card")

    # when: pete sends dana's buy-in under her key, and dana sends her card under the key pete used
    seat_buy_in(session=session, amount=50, by=pete, key="more-chips")
    dana_saw = hand_record_card(hand=hand, rank=9, by=dana, expected_seq=1, key="next-card")

    # then: each is applied once, for its own sender, and answered with its own result
    assert chips(session) == 300 - 10
    assert (pete_saw.seq, dana_saw.seq) == (1, 2)
    cards = CardEvent.objects.filter(hand=hand).order_by("seq")
    assert [(c.rank, c.keyed_by) for c in cards] == [(5, pete), (9, dana)]


def test_the_tray_cannot_pay_chips_it_does_not_hold(pit, pete, dana):
    from tables.models import Game

    from .conftest import open_table

    table = open_table(pit, pete, Game.ROCKET, "Short tray", 10, 500, decks=8)
    seat(table, 1, 500, dana)
    hand = hand_start(table=table, bets={1: 500}, by=dana, key=key())
    hand = play(hand, [5, 9, 4, 9], [("hit",)], dana)  # dealer pairs 9s: pays 50 x 9 = 450
    from tables.services import tray_credit

    tray_credit(table=table, amount=TRAY_OPENING - 500 - 100, by=pete, key=key())  # tray keeps 100
    before = written()

    with pytest.raises(DomainError, match="fill"):
        settle(hand, dana)
    assert written() == before


def test_a_shoe_is_not_retired_while_a_hand_dealt_from_it_is_open(rocket, dana, pete):
    # Found by the stateful test: start a hand, retire its shoe, and the hand went on dealing from
    # a retired shoe (a retired system shoe shows its order and salt to anyone).
    from tables.models import Shoe
    from tables.services import ShoeError, shoe_retire

    shoe = rocket.shoes.get()
    seat(rocket, 1, 200, dana)
    hand = card(hand_start(table=rocket, bets={1: 10}, by=dana, key=key()), 5, dana)

    with pytest.raises(ShoeError, match="hand is in progress"):
        shoe_retire(shoe=shoe, by=pete, key=key())
    shoe.refresh_from_db()
    assert shoe.state == Shoe.State.IN_PLAY

    settle(play(hand, [9, 4, 9], [("hit",)], dana), dana)
    assert shoe_retire(shoe=shoe, by=pete, key=key()).state == Shoe.State.RETIRED
