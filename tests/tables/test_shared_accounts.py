"""No row that every table waits on (issue 17.3): a buy-in, a fill or a slip at one table, its
transaction still open, does not hold up the same at another table. Before, they locked the casino's
one `patrons` or `cage` account row, or the year's one slip counter, until commit. PostgreSQL only:
SQLite serialises every write."""

import threading

import pytest
from django.db import connection, transaction

from ledger.models import Transaction
from tables.models import Slip
from tables.services import seat_buy_in, tray_fill
from tables.services.slips import slip_issue

from .conftest import key, seat

pytestmark = [
    pytest.mark.django_db(transaction=True),
    pytest.mark.skipif(connection.vendor != "postgresql", reason="SQLite takes one lock for every write"),
]


def buy_in(table, pete):
    session = seat(table, 1, 100, pete)
    return lambda: seat_buy_in(session=session, amount=50, by=pete, key=key())


def fill(table, pete):
    return lambda: tray_fill(table=table, amount=500, by=pete, key=key())


def slip(table, pete):
    return lambda: slip_issue(kind=Slip.Kind.VOID, table=table, by=pete)


@pytest.mark.parametrize("write, written", [(buy_in, Transaction), (fill, Transaction), (slip, Slip)])
def test_a_write_at_one_table_does_not_wait_on_another_tables_transaction(
    rocket, blackstone, pete, write, written
):
    first, second = write(rocket, pete), write(blackstone, pete)
    holding, release = threading.Event(), threading.Event()

    def hold_open():
        try:
            with transaction.atomic():
                first()
                holding.set()
                release.wait(10)
        finally:
            connection.close()

    thread = threading.Thread(target=hold_open)
    thread.start()
    try:
        assert holding.wait(10)
        before = written.objects.count()
        with transaction.atomic():
            with connection.cursor() as cursor:  # waiting on the other table's row would fail here
                cursor.execute("SET LOCAL lock_timeout = '2s'")
            second()
        assert written.objects.count() == before + 1
    finally:
        release.set()
        thread.join()
