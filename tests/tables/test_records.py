"""What the table records prove: nothing edited, every card accounted for, money carried right."""

import pytest
from django.core.exceptions import ValidationError
from django.core.management import call_command
from django.db import IntegrityError, connection, transaction

from ledger.models import Account
from ledger.selectors import account_movements
from ledger.services import account_get
from tables.models import CardEvent, Decision, Game, Hand, Receiver, Shoe, Table
from tables.services import hand_start, shoe_retire, tray_credit, tray_fill
from tables.services.shoes import shoe_commitment

from .conftest import TRAY_OPENING, card, decide, key, open_table, play, seat
from .test_hands import settle

pytestmark = pytest.mark.django_db


@pytest.fixture
def played(rocket, dana):
    seat(rocket, 1, 200, dana)
    hand = hand_start(table=rocket, bets={1: 10}, by=dana, key=key())
    return play(hand, [5, 9, 4, 9], [("hit",)], dana)


@pytest.mark.parametrize("sql", ["UPDATE {table} SET device = 'edited'", "DELETE FROM {table}"])
@pytest.mark.parametrize("model", [CardEvent, Decision])
def test_raw_sql_cannot_edit_or_remove_cards_and_decisions(played, model, sql):
    with (
        pytest.raises(IntegrityError, match="append-only"),
        transaction.atomic(),
        connection.cursor() as cursor,
    ):
        cursor.execute(sql.format(table=model._meta.db_table))


def test_the_orm_refuses_to_edit_a_card(played):
    event = CardEvent.objects.filter(hand=played).first()
    event.rank = 1
    with pytest.raises(Exception, match="append-only"):
        event.save()
    with pytest.raises(Exception, match="append-only"):
        CardEvent.objects.filter(hand=played).delete()


def test_cards_and_decisions_verify_in_the_tables_chain(played, tmp_path):
    call_command("verify_ledger", stdout=open(tmp_path / "out", "w"))  # exits non-zero on any finding
    chain_records = (
        CardEvent.objects.filter(hand=played).count() + Decision.objects.filter(hand=played).count()
    )
    assert chain_records == 5


def test_a_system_shoe_deals_its_committed_order_and_reveals_it_when_retired(pit, pete, dana):
    table = open_table(pit, pete, Game.ROCKET, "Electronic", 10, 500, decks=2, kind=Shoe.Kind.SYSTEM)
    shoe = table.shoes.get()
    assert shoe.commitment and len(shoe.order) == 110
    seat(table, 1, 200, dana)
    hand = hand_start(table=table, bets={1: 10}, by=dana, key=key())

    while not hand.status == Hand.Status.SETTLED:
        hand = _system_step(hand, dana)

    shoe = shoe_retire(shoe=shoe, by=pete, key=key())
    dealt = list(CardEvent.objects.filter(shoe=shoe).order_by("shoe_position").values_list("rank", flat=True))
    assert shoe.state == Shoe.State.RETIRED
    assert dealt == shoe.order[: len(dealt)]
    assert shoe_commitment(shoe.order, shoe.salt) == shoe.commitment


def _system_step(hand, by):
    from tables.games import CardDue
    from tables.services.engine import engine_for

    game = engine_for(hand)
    if game.finished:
        return settle(hand, by)
    if isinstance(game.next, CardDue):
        return card(hand, None, by)  # the shoe gives its next card
    return decide(hand, ("hit",), by)


def test_a_keyed_rank_must_match_a_system_shoes_next_card(pit, pete, dana):
    table = open_table(pit, pete, Game.ROCKET, "Electronic", 10, 500, decks=1, kind=Shoe.Kind.SYSTEM, burn=0)
    seat(table, 1, 200, dana)
    hand = hand_start(table=table, bets={1: 10}, by=dana, key=key())
    wrong = 1 if table.shoes.get().order[0] != 1 else 2

    with pytest.raises(Exception, match="place the card shown"):
        card(hand, wrong, dana)


def test_blackstone_records_the_cards_counted_but_never_revealed(blackstone, dana):
    seat(blackstone, 1, 100, dana), seat(blackstone, 2, 100, dana)
    hand = hand_start(table=blackstone, by=dana, key=key())
    # seat 1 gets the low 3 and starts; it takes 4 cards, and the first two are 10s: the second
    # 10 ends the game, so the other two counted cards are never revealed
    hand = card(card(hand, 3, dana), 5, dana)
    hand = decide(hand, ("take", 4), dana)
    hand = card(card(hand, 10, dana), 10, dana)

    discards = CardEvent.objects.filter(hand=hand, receiver=Receiver.DISCARD)
    assert [(d.rank, d.seq) for d in discards] == [(None, 6), (None, 7)]
    assert hand.shoe.cards.count() == 5 + 2 + 2 + 2  # burn, deal, revealed, unrevealed
    settle(hand, dana)


def test_odd_units_of_a_pot_carry_to_the_tables_next_game(starboard, dana):
    for number in (1, 2, 3):
        seat(starboard, number, 50, dana)
    hand = hand_start(table=starboard, by=dana, key=key())
    # antes make 3; common hand 4, 6. Seat 1 (the button) draws an 8 (pot 4), seat 2 locks at
    # three cards, seat 3 draws a 4 and busts (pot 5), seat 1 locks at three cards.
    hand = settle(play(hand, [4, 6, 8, 4], [("draw",), ("lock",), ("draw",), ("lock",)], dana), dana)

    carry = account_get(kind=Account.Kind.CARRY, table=starboard)
    assert hand.settlement["deltas"] == {"1": 0, "2": 1, "3": -2, "house": 0, "carry": 1}  # seat 1 drew once
    assert carry.balance == 1
    assert hand_start(table=starboard, by=dana, key=key()).carry_in == 1


def test_pairs_scores_carry_from_hand_to_hand(pairs, dana):
    seat(pairs, 1, 50, dana), seat(pairs, 2, 50, dana)
    hand = hand_start(table=pairs, by=dana, key=key())
    hand = settle(play(hand, [3, 7], [("fold",)], dana), dana)  # seat 1 folds and scores the 3
    assert hand.settlement["result"]["scores"] == {"1": 3, "2": 0}

    following = hand_start(table=pairs, by=dana, key=key())
    assert following.stakes == {"1": 3, "2": 0}


def test_the_tray_is_its_opening_plus_collected_minus_paid_plus_fills_minus_credits(rocket, pete, dana):
    seat(rocket, 1, 500, dana), seat(rocket, 2, 500, dana)
    hand = hand_start(table=rocket, bets={1: 100, 2: 50}, by=dana, key=key())
    settle(play(hand, [5, 6, 8, 5, 2, 8], [("hit",), ("hit",)], dana), dana)  # seat 1 pairs 5s, dealer 8s
    tray_fill(table=rocket, amount=300, by=pete, key=key())
    tray_credit(table=rocket, amount=120, by=pete, key=key())

    tray = account_get(kind=Account.Kind.TRAY, table=rocket)
    moves = account_movements(tray)
    assert moves == {"fill": TRAY_OPENING + 300, "buy_in": -1000, "settlement": 50 - 40, "credit": -120}
    assert tray.balance == TRAY_OPENING - 1000 + 10 * 5 - 5 * 8 + 300 - 120
    assert tray.balance == sum(moves.values())


def test_a_table_option_the_engine_does_not_know_is_refused(pit):
    table = Table(pit=pit, name="Odd", game=Game.ROCKET, min_bet=10, max_bet=100, options={"jokers": True})
    with pytest.raises(ValidationError, match="Unknown house rule jokers"):
        table.full_clean()


def test_the_admin_hides_a_system_shoes_order_until_it_retires(pit, pete, admin_client):
    table = open_table(pit, pete, Game.ROCKET, "Electronic", 10, 500, decks=1, kind=Shoe.Kind.SYSTEM)
    shoe = table.shoes.get()
    url = f"/admin/tables/shoe/{shoe.pk}/change/"

    assert shoe.salt not in admin_client.get(url).content.decode()
    shoe_retire(shoe=shoe, by=pete, key=key())
    assert shoe.salt in admin_client.get(url).content.decode()
