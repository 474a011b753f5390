"""A player busy at another table: the buy-in waits for them, in the one lock order (the player,
then the table's chain), and goes through. Before, a buy-in of an anonymous session identified
since the sit-down took its table's chain first and then refused the player locked elsewhere:
409 "try again". These commit for real (transactional tests): one test transaction would hide the
wait."""

import threading
import time

import pytest
from django.db import connection, transaction

from ledger.chain import chain_lock
from tables.models import CashIn, Player, SeatSession
from tables.players import player_cash_days
from tables.services import seat_buy_in, seat_open
from tables.services.players import identify_session, player_create
from tables.services.seating import player_account

from .conftest import deal_at, key

pytestmark = [
    pytest.mark.django_db(transaction=True),
    pytest.mark.skipif(connection.vendor != "postgresql", reason="SQLite takes one lock for every write"),
]

BLOCKED_WITHIN = 10  # seconds: far beyond a buy-in's own time; only a broken wait ever reaches it
BUY_IN = 10


def backend_pid() -> int:
    with connection.cursor() as cursor:
        cursor.execute("SELECT pg_backend_pid()")
        return cursor.fetchone()[0]


class Waiter:
    """The tablet that is to wait: its database backend once it has one, and whether it is done
    (refused at once, it never waited)."""

    def __init__(self):
        self.known, self.done, self.pid = threading.Event(), threading.Event(), None

    def connect(self) -> None:
        self.pid = backend_pid()
        self.known.set()

    def blocked_by_me(self) -> None:
        """Until the waiter waits on a lock this connection holds, or is done. Reads the lock
        manager live (`pg_blocking_pids`), not a statistics snapshot."""
        self.known.wait(BLOCKED_WITHIN)
        mine, deadline = backend_pid(), time.monotonic() + BLOCKED_WITHIN
        while not self.done.is_set() and time.monotonic() < deadline:
            with connection.cursor() as cursor:
                cursor.execute("SELECT %s = ANY(pg_blocking_pids(%s))", [mine, self.pid])
                if cursor.fetchone()[0]:
                    return
            time.sleep(0.01)


def buy_in(session: SeatSession, by) -> None:
    seat_buy_in(session=session, amount=BUY_IN, by=by, key=key())


def together(*steps) -> list[str]:
    """Run each of `steps` in its own thread (and connection); what each was refused with."""
    failures = []

    def run(step):
        try:
            step()
        except Exception as error:  # noqa: BLE001 - the test reports what each tablet was answered
            failures.append(repr(error))
        finally:
            connection.close()

    threads = [threading.Thread(target=run, args=(step,)) for step in steps]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    return failures


@pytest.fixture
def ann(pit, pete):
    return player_create(casino=pit.casino, name="Ann Smith", card_number="1001", by=pete)


@pytest.fixture
def stranger(rocket, dana, pete, ann):
    """An anonymous player at Rocket's seat 3, identified as Ann since."""
    deal_at(rocket, dana, pete)
    session = seat_open(table=rocket, seat=3, buy_in=100, player_name="red tie", by=dana, key=key())
    identify_session(session=session, player=ann, reason="Showed her licence", by=pete, key=key())
    return session


def test_buy_ins_for_one_player_at_two_tables_in_opposite_orders_both_go_through(
    ann, stranger, rocket, blackstone, dana, olga, pete
):
    # given Ann carded at Blackstone, and her anonymous session at Rocket identified as hers
    deal_at(blackstone, olga, pete)
    carded = seat_open(table=blackstone, seat=2, buy_in=100, card_number="1001", by=olga, key=key())

    # when one tablet buys in at Blackstone and then at Rocket, the other at Rocket and then at
    # Blackstone, the second starting while the first holds Ann at Blackstone
    holding, waiter = threading.Event(), Waiter()

    def first():
        with transaction.atomic():
            buy_in(carded, olga)
            holding.set()
            waiter.blocked_by_me()
        buy_in(stranger, dana)

    def second():
        waiter.connect()
        holding.wait(BLOCKED_WITHIN)
        try:
            buy_in(stranger, dana)
        finally:
            waiter.done.set()
        buy_in(carded, olga)

    failures = together(first, second)

    # then neither was refused; each session holds its three buy-ins (the sit-down's and two more),
    # all counted as Ann's cash
    assert failures == []
    for session in (carded, stranger):
        assert player_account(session).balance == 100 + 2 * BUY_IN
        assert CashIn.objects.filter(session=session).count() == 3
    cash = sum(row["cents"] for row in player_cash_days(pete, ann))
    assert cash == (100 + 2 * BUY_IN) * (rocket.chip_unit_cents + blackstone.chip_unit_cents)


def test_an_identified_players_buy_in_takes_the_player_before_the_tables_chain(ann, stranger, rocket, dana):
    # given a write holding Ann and about to take Rocket's chain, as a carded buy-in or a merge does
    holding, waiter = threading.Event(), Waiter()

    def player_then_chain():
        with transaction.atomic():
            Player.objects.select_for_update(no_key=True).get(pk=ann.pk)
            holding.set()
            waiter.blocked_by_me()
            chain_lock(table=rocket)

    def identified_buy_in():
        waiter.connect()
        holding.wait(BLOCKED_WITHIN)
        try:
            buy_in(stranger, dana)
        finally:
            waiter.done.set()

    # when Ann's identified session at Rocket buys in meanwhile: it waits for Ann, holding no
    # chain (had it locked the chain first, PostgreSQL would abort one of the two as a deadlock)
    failures = together(player_then_chain, identified_buy_in)

    # then both went through
    assert failures == []
    assert player_account(stranger).balance == 100 + BUY_IN
