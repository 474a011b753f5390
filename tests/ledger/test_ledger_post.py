"""ledger_post, account_get, account_balance and ledger_reverse: the one way money moves."""

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from ledger.models import Account, Posting, Seal, Transaction
from ledger.selectors import account_movements, transactions_for_hand
from ledger.services import (
    LedgerError,
    Line,
    OverdrawError,
    account_balance,
    account_get,
    ledger_post,
    ledger_reverse,
)

pytestmark = pytest.mark.django_db


def balance(account):
    return Account.objects.get(pk=account.pk).balance


def nothing_written(before):
    return (Transaction.objects.count(), Posting.objects.count()) == before


# --- Accounts ---------------------------------------------------------------------------------


def test_accounts_are_coded_by_table_and_casino(table, casino):
    assert account_get(kind="tray", table=table).code == f"t{table.pk}:tray"
    assert account_get(kind="player", table=table, ref=345).code == f"t{table.pk}:player:345"
    assert account_get(kind="pot", table=table, ref=77).code == f"t{table.pk}:pot:77"
    assert account_get(kind="cage", casino=casino).code == f"c{casino.pk}:cage"


def test_a_table_account_belongs_to_the_tables_casino(table, casino):
    assert account_get(kind="drop", table=table).casino == casino


def test_account_get_returns_the_same_row_twice(table):
    assert account_get(kind="tray", table=table) == account_get(kind="tray", table=table)
    assert Account.objects.filter(kind="tray").count() == 1


def test_chips_that_must_be_there_have_a_floor_and_the_outside_world_has_none(table, casino):
    floors = {kind: account_get(kind=kind, table=table).floor for kind in ("tray", "carry", "rake")}
    floors |= {kind: account_get(kind=kind, table=table, ref=1).floor for kind in ("player", "wager", "pot")}
    assert set(floors.values()) == {0}
    assert account_get(kind="drop", table=table).floor is None
    assert account_get(kind="cage", casino=casino).floor is None
    assert account_get(kind="patrons", casino=casino).floor is None


def test_a_tray_needs_its_table(casino):
    with pytest.raises(ValueError, match="belongs to a table"):
        account_get(kind="tray", casino=casino)


def test_a_players_chips_need_the_seat_session_and_a_tray_takes_none(table):
    with pytest.raises(ValueError, match="needs ref"):
        account_get(kind="player", table=table)
    with pytest.raises(ValueError, match="takes no ref"):
        account_get(kind="tray", table=table, ref=3)


def test_the_cage_is_the_casinos_not_a_tables(table, casino):
    with pytest.raises(ValueError, match="casino"):
        account_get(kind="cage", casino=casino, table=table)


# --- Posting ----------------------------------------------------------------------------------


def test_an_opening_moves_chips_from_the_cage_to_the_tray(open_table, tray, cage, tray_opening):
    assert balance(tray) == tray_opening == account_balance(tray)
    assert account_balance(cage) == -tray_opening
    assert balance(cage) is None  # a casino-wide account keeps no cached balance: see the next test


def test_a_buy_in_takes_cash_to_the_drop_and_chips_from_the_tray(
    open_table, seat3, drop, patrons, tray, dana, buy_in, tray_opening
):
    txn = buy_in(table=open_table, player=seat3, amount=200, by=dana)

    assert {(p.account.code, p.amount) for p in txn.postings.select_related("account")} == {
        (patrons.code, -200), (drop.code, 200), (tray.code, -200), (seat3.code, 200)
    }
    assert (balance(seat3), balance(drop), balance(tray)) == (200, 200, tray_opening - 200)
    assert txn.created_by == dana and txn.table == open_table and txn.casino == open_table.pit.casino


def test_each_post_is_the_next_link_of_its_tables_chain(
    open_table, other_table, seat3, dana, cage, pete, buy_in
):
    first = Transaction.objects.get()
    second = buy_in(table=open_table, player=seat3, amount=50, by=dana)
    other_tray = account_get(kind="tray", table=other_table)
    elsewhere = ledger_post(lines=[Line(cage, -10, "fill"), Line(other_tray, 10, "fill")],
                            kind="fill", memo="", by=pete, table=other_table)

    # its chain's first records: the table and its tray, drop box, carry and rake; then the opening,
    # seat 3's chips account and the buy-in
    sealed = list(Seal.objects.filter(chain=first.chain).order_by("position"))
    assert [(seal.position, seal.model) for seal in sealed] == [(1, "tables.Table")] + [
        (position, "ledger.Account") for position in (2, 3, 4, 5, 7)
    ]
    assert (first.position, second.position) == (6, 8)
    assert first.prev_hash == sealed[-2].hash and first.chain == sealed[-2].chain
    assert second.prev_hash == sealed[-1].hash and sealed[-1].prev_hash == first.hash
    assert second.chain == first.chain
    assert first.chain.name == f"table:{open_table.pk}"
    other_sealed = Seal.objects.filter(chain=elsewhere.chain).order_by("position").last()
    assert elsewhere.chain.name == f"table:{other_table.pk}" and elsewhere.prev_hash == other_sealed.hash
    assert elsewhere.position == other_sealed.position + 1 == 6


def test_a_post_without_a_table_goes_to_the_casinos_chain(casino, cage, patrons, pete):
    txn = ledger_post(lines=[Line(patrons, -500, "chips redeemed"), Line(cage, 500, "chips redeemed")],
                      kind="cash_out", memo="Cage redemption", by=pete, casino=casino)
    assert txn.chain.name == f"casino:{casino.pk}" and txn.table is None


@pytest.mark.parametrize(
    ("amounts", "message"),
    [
        ((10, -5), "must balance: these lines sum to 5 units"),
        ((10.0, -10.0), "whole units"),
        ((True, -1), "whole units"),
        ((0, 0), "0 units"),
        ((10,), "at least two lines"),
    ],
)
def test_bad_lines_are_refused_before_anything_is_written(open_table, tray, seat3, dana, amounts, message):
    before = (Transaction.objects.count(), Posting.objects.count())
    accounts = [tray, seat3]
    lines = [Line(accounts[i], amount, "payout") for i, amount in enumerate(amounts)]

    with pytest.raises(LedgerError, match=message):
        ledger_post(lines=lines, kind="settlement", memo="", by=dana, table=open_table)
    assert nothing_written(before)


def test_an_account_of_another_casino_cannot_take_part(open_table, tray, dana):
    from tables.models import Casino

    elsewhere = account_get(kind="cage", casino=Casino.objects.create(name="Across the river"))
    with pytest.raises(LedgerError, match="another casino"):
        ledger_post(lines=[Line(tray, -10, "x"), Line(elsewhere, 10, "x")], kind="credit", memo="", by=dana,
                    table=open_table)


# --- Floors -----------------------------------------------------------------------------------


def test_the_tray_cannot_pay_chips_it_does_not_hold(table, tray, cage, seat3, pete, dana):
    ledger_post(lines=[Line(cage, -40, "opening"), Line(tray, 40, "opening")], kind="opening", memo="",
                by=pete, table=table)
    before = (Transaction.objects.count(), Posting.objects.count())

    with pytest.raises(OverdrawError) as refused:
        ledger_post(lines=[Line(tray, -50, "dealer pays"), Line(seat3, 50, "dealer pays")],
                    kind="settlement", memo="", by=dana, table=table)

    assert refused.value.message == "The tray holds 40 units; it cannot pay 50. Ask the pit for a fill."
    assert (refused.value.balance, refused.value.wanted) == (40, 50)
    assert nothing_written(before) and balance(tray) == 40 and balance(seat3) == 0


def test_a_player_cannot_bet_more_than_the_chips_in_front(open_table, seat3, dana, buy_in):
    buy_in(table=open_table, player=seat3, amount=20, by=dana)
    wager = account_get(kind="wager", table=open_table, ref=1)
    before = (Transaction.objects.count(), Posting.objects.count())

    with pytest.raises(OverdrawError) as refused:
        ledger_post(lines=[Line(seat3, -30, "bet"), Line(wager, 30, "bet")], kind="bet", memo="", by=dana,
                    table=open_table, hand_id=1)

    assert refused.value.message == "Seat 3 has 20 units in front; a bet of 30 is more than that."
    assert nothing_written(before) and balance(seat3) == 20


def test_a_post_writes_the_cached_balances_of_its_accounts_in_one_statement(open_table, seat3, dana, buy_in):
    # issue 17: a settlement moves chips between four to six accounts; one UPDATE writes them all
    buy_in(table=open_table, player=seat3, amount=100, by=dana)
    wager, pot = (account_get(kind=kind, table=open_table, ref=1) for kind in ("wager", "pot"))
    lines = [Line(seat3, -30, "bet"), Line(wager, 20, "bet"), Line(pot, 10, "ante")]

    with CaptureQueriesContext(connection) as captured:
        ledger_post(lines=lines, kind="bet", memo="", by=dana, table=open_table, hand_id=1)

    # in a pipeline, that UPDATE may go in one statement with the chain's (casino.compiled._Pipeline)
    assert sum(q["sql"].count('UPDATE "ledger_account"') for q in captured) == 1
    assert (balance(seat3), balance(wager), balance(pot)) == (70, 20, 10)
    assert all(balance(a) == account_balance(a) for a in (seat3, wager, pot))


def test_a_player_without_a_label_is_named_by_the_seat_session(open_table, dana):
    player = account_get(kind="player", table=open_table, ref=9)
    pot = account_get(kind="pot", table=open_table, ref=4)
    with pytest.raises(OverdrawError, match="The player of seat session 9 has 0 units in front"):
        ledger_post(lines=[Line(player, -5, "ante"), Line(pot, 5, "ante")], kind="ante", memo="", by=dana,
                    table=open_table)


def test_the_floor_applies_to_the_net_of_an_accounts_lines(open_table, seat3, dana, buy_in):
    buy_in(table=open_table, player=seat3, amount=20, by=dana)
    wager = account_get(kind="wager", table=open_table, ref=1)
    # 30 out and 15 back in the same transaction leaves 5: allowed.
    ledger_post(lines=[Line(seat3, -30, "bet"), Line(seat3, 15, "change"), Line(wager, 15, "bet")],
                kind="bet", memo="", by=dana, table=open_table)
    assert balance(seat3) == 5 == account_balance(seat3)


# --- Corrections ------------------------------------------------------------------------------


def test_a_correction_negates_the_original_and_says_why_and_who_approved(
    open_table, seat3, dana, pete, buy_in
):
    original = buy_in(table=open_table, player=seat3, amount=100, by=dana)

    correction = ledger_reverse(transaction=original, reason="Keyed 100, patron gave 10", by=dana,
                                approved_by=pete)

    assert correction.kind == Transaction.Kind.CORRECTION and correction.reverses == original
    assert (correction.reason, correction.approved_by, correction.created_by) == (
        "Keyed 100, patron gave 10", pete, dana)
    assert sorted(p.amount for p in correction.postings.all()) == sorted(
        -p.amount for p in original.postings.all())
    assert balance(seat3) == 0 and account_balance(seat3) == 0
    assert correction.chain == original.chain and correction.position == original.position + 1


@pytest.mark.parametrize(
    ("reason", "approver", "message"),
    [
        ("", "pete", "needs a reason"),
        ("   ", "pete", "needs a reason"),
        ("Miskeyed", None, "approval of a pit manager"),
        ("Miskeyed", "dana", "someone other than the person asking"),
    ],
)
def test_a_correction_needs_a_reason_and_another_persons_approval(
    open_table, seat3, dana, pete, buy_in, reason, approver, message
):
    original = buy_in(table=open_table, player=seat3, amount=100, by=dana)
    before = (Transaction.objects.count(), Posting.objects.count())
    people = {"pete": pete, "dana": dana, None: None}

    with pytest.raises(LedgerError, match=message):
        ledger_reverse(transaction=original, reason=reason, by=dana, approved_by=people[approver])
    assert nothing_written(before)


def test_a_transaction_is_reversed_only_once(open_table, seat3, dana, pete, buy_in):
    original = buy_in(table=open_table, player=seat3, amount=100, by=dana)
    ledger_reverse(transaction=original, reason="Miskeyed", by=dana, approved_by=pete)

    with pytest.raises(LedgerError, match="already been reversed"):
        ledger_reverse(transaction=original, reason="Miskeyed again", by=dana, approved_by=pete)


def test_chips_that_have_moved_on_cannot_be_reversed_out_from_under_a_floor(
    open_table, seat3, dana, pete, buy_in
):
    original = buy_in(table=open_table, player=seat3, amount=100, by=dana)
    wager = account_get(kind="wager", table=open_table, ref=1)
    ledger_post(lines=[Line(seat3, -100, "bet"), Line(wager, 100, "bet")], kind="bet", memo="", by=dana,
                table=open_table)

    with pytest.raises(OverdrawError, match="Seat 3 has 0 units in front"):
        ledger_reverse(transaction=original, reason="Miskeyed", by=dana, approved_by=pete)


# --- Reads ------------------------------------------------------------------------------------


def test_a_hands_transactions_come_with_their_postings_in_few_queries(
    open_table, seat3, dana, buy_in, django_assert_max_num_queries
):
    buy_in(table=open_table, player=seat3, amount=100, by=dana)
    wager = account_get(kind="wager", table=open_table, ref=7)
    tray = account_get(kind="tray", table=open_table)
    ledger_post(lines=[Line(seat3, -30, "bet"), Line(wager, 30, "bet")], kind="bet", memo="", by=dana,
                table=open_table, hand_id=7)
    ledger_post(lines=[Line(wager, -30, "pair loss"), Line(tray, 30, "pair loss")], kind="settlement",
                memo="", by=dana, table=open_table, hand_id=7)

    with django_assert_max_num_queries(2):
        lines = [(t.kind, p.account.code, p.amount) for t in transactions_for_hand(hand_id=7)
                 for p in t.postings.all()]

    assert [kind for kind, *_ in lines] == ["bet", "bet", "settlement", "settlement"]


def test_the_tray_equation_holds(open_table, tray, cage, seat3, dana, pete, buy_in):
    # given an opening of 1000, a buy-in of 300, a lost bet of 50, a payout of 20, a fill and a credit
    buy_in(table=open_table, player=seat3, amount=300, by=dana)
    wager = account_get(kind="wager", table=open_table, ref=1)
    ledger_post(lines=[Line(seat3, -50, "bet"), Line(wager, 50, "bet")], kind="bet", memo="", by=dana,
                table=open_table)
    ledger_post(lines=[Line(wager, -50, "pair loss"), Line(tray, 50, "pair loss")], kind="settlement",
                memo="", by=dana, table=open_table)
    ledger_post(lines=[Line(tray, -20, "dealer pays"), Line(seat3, 20, "dealer pays")], kind="settlement",
                memo="", by=dana, table=open_table)
    ledger_post(lines=[Line(cage, -500, "fill"), Line(tray, 500, "fill")], kind="fill", memo="", by=pete,
                table=open_table, approved_by=pete)
    ledger_post(lines=[Line(tray, -200, "credit"), Line(cage, 200, "credit")], kind="credit", memo="",
                by=pete, table=open_table)

    # then the tray is its opening, plus what it collected, minus what it paid, plus fills, minus credits
    moves = account_movements(tray)
    assert moves == {"opening": 1000, "buy_in": -300, "settlement": 30, "fill": 500, "credit": -200}
    assert balance(tray) == 1000 - 300 + 50 - 20 + 500 - 200 == sum(moves.values())
