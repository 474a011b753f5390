"""Limits that hold under races: these tests commit for real (transactional database tests).

PostgreSQL runs the threads' transactions at once and the row locks keep them apart; SQLite lets
one writer in at a time (immediate transactions), so there the same threads queue at the database.
"""

import threading

import pytest
from django.db import connection

from ledger.models import Account, Posting, Transaction
from ledger.services import (
    LedgerError,
    Line,
    OverdrawError,
    account_balance,
    account_get,
    ledger_post,
    ledger_reverse,
)

pytestmark = pytest.mark.django_db(transaction=True)

THREADS = 8
PAYOUT = 30
TRAY_HOLDS = 100  # room for three payouts of 30, not a fourth


def race(count, act):
    """Run act(i) in `count` threads released together; return what each returned or raised."""
    barrier, outcomes = threading.Barrier(count), [None] * count

    def run(i):
        barrier.wait()
        try:
            outcomes[i] = act(i)
        except Exception as error:  # the outcome is what the test inspects
            outcomes[i] = error
        finally:
            connection.close()

    threads = [threading.Thread(target=run, args=(i,)) for i in range(count)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    return outcomes


def test_eight_payouts_racing_on_one_tray_never_take_it_below_its_floor(table, casino, cage, dana, pete):
    tray = account_get(kind="tray", table=table)
    ledger_post(lines=[Line(cage, -TRAY_HOLDS, "opening"), Line(tray, TRAY_HOLDS, "opening")],
                kind="opening", memo="", by=pete, table=table)
    players = [account_get(kind="player", table=table, ref=i, label=f"Seat {i}") for i in range(THREADS)]

    def pay(i):
        # Half the threads post through the casino's chain, so only the tray's row lock, not the
        # table chain's, keeps them apart from the other half.
        where = {"table": table} if i % 2 else {"casino": casino}
        lines = [Line(tray, -PAYOUT, "dealer pays"), Line(players[i], PAYOUT, "dealer pays")]
        return ledger_post(lines=lines, kind="settlement", memo="", by=dana, **where)

    outcomes = race(THREADS, pay)

    paid = [o for o in outcomes if isinstance(o, Transaction)]
    refused = [o for o in outcomes if isinstance(o, OverdrawError)]
    assert (len(paid), len(refused)) == (TRAY_HOLDS // PAYOUT, THREADS - TRAY_HOLDS // PAYOUT), outcomes
    tray.refresh_from_db()
    assert tray.balance == TRAY_HOLDS - len(paid) * PAYOUT == account_balance(tray) >= tray.floor
    assert all(r.message.startswith("The tray holds") for r in refused)
    assert Posting.objects.filter(account=tray).count() == 1 + len(paid)


def test_eight_bets_racing_from_one_player_never_exceed_the_chips_in_front(table, cage, dana, pete, buy_in):
    tray = account_get(kind="tray", table=table)
    ledger_post(lines=[Line(cage, -1000, "opening"), Line(tray, 1000, "opening")], kind="opening", memo="",
                by=pete, table=table)
    player = account_get(kind="player", table=table, ref=1, label="Seat 1")
    buy_in(table=table, player=player, amount=50, by=dana)

    def bet(i):
        wager = account_get(kind="wager", table=table, ref=i)
        return ledger_post(lines=[Line(player, -20, "bet"), Line(wager, 20, "bet")], kind="bet", memo="",
                           by=dana, table=table, hand_id=i)

    outcomes = race(THREADS, bet)

    assert sum(isinstance(o, Transaction) for o in outcomes) == 2, outcomes
    assert all(isinstance(o, (Transaction, OverdrawError)) for o in outcomes)
    assert Account.objects.get(pk=player.pk).balance == 10 == account_balance(player)


def test_two_pit_managers_reversing_at_once_make_one_correction(table, cage, dana, pete, olga):
    tray = account_get(kind="tray", table=table)
    original = ledger_post(lines=[Line(cage, -100, "opening"), Line(tray, 100, "opening")], kind="opening",
                           memo="", by=dana, table=table)
    approvers = [pete, olga]

    outcomes = race(2, lambda i: ledger_reverse(transaction=original, reason="Miscounted", by=dana,
                                                approved_by=approvers[i]))

    assert sorted(type(o).__name__ for o in outcomes) == ["AlreadyReversed", "Transaction"], outcomes
    assert "already been reversed" in next(o.message for o in outcomes if isinstance(o, LedgerError))
    assert Transaction.objects.filter(reverses=original).count() == 1
    assert Account.objects.get(pk=tray.pk).balance == 0


def test_eight_first_uses_of_an_account_at_once_make_one_row(table):
    outcomes = race(THREADS, lambda i: account_get(kind="player", table=table, ref=42, label="Seat 4"))

    assert all(isinstance(o, Account) for o in outcomes), outcomes
    assert len({o.pk for o in outcomes}) == 1
    assert Account.objects.filter(code=f"t{table.pk}:player:42").count() == 1
