"""Writes at one table never deadlock each other (docs/records.md, "Lock order"), through the API.

Before the one lock order, a hand start holding the table row and a buy-in holding the table's
chain while filing a transaction that names the table deadlocked on PostgreSQL: one of them was
aborted and its tablet was answered 503 "database unavailable". Here a hand start, buy-ins and a
cash-out at one table are released together through the whole web stack (authentication, the
API's exception handler that turns a database failure into 503), many times over."""

import threading

import pytest
from django.db import connection

from ledger.models import Transaction
from tables.models import Hand, SeatSession

from .conftest import signed_in

pytestmark = pytest.mark.django_db(transaction=True)  # each thread commits for real

ROUNDS = 4
BUY_INS = 6


def released_together(requests: list) -> list:
    """Send every request from its own thread at the same moment; their responses, in order."""
    barrier, answers = threading.Barrier(len(requests)), [None] * len(requests)

    def send(index, request):
        barrier.wait()
        try:
            answers[index] = request()
        finally:
            connection.close()

    threads = [threading.Thread(target=send, args=pair) for pair in enumerate(requests)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    return answers


def one_round(table: str, dana) -> list:
    """Players at seats 1 to 4; then a hand start, buy-ins at seats 1 to 3 and seat 4's cash-out,
    released together, each from its own tablet. Their answers."""
    seat = signed_in(dana)
    seated = [seat.change(f"{table}/seats/", {"seat": n, "buy_in": 500}).json()["id"] for n in (1, 2, 3)]
    leaving = seat.change(f"{table}/seats/", {"seat": 4, "buy_in": 500}).json()["id"]
    tablets = [signed_in(dana) for _ in range(BUY_INS + 2)]
    requests = [lambda: tablets[0].change(f"{table}/hands/", {"bets": {"1": 10, "2": 10}})]
    requests += [
        lambda i=i: tablets[i + 1].change(f"/api/seat-sessions/{seated[i % 3]}/buy-in/", {"amount": 10})
        for i in range(BUY_INS)
    ]
    requests.append(lambda: tablets[-1].change(f"/api/seat-sessions/{leaving}/cash-out/"))
    return released_together(requests)


def test_a_hand_start_racing_buy_ins_and_a_cash_out_gets_no_503(floor, dana, rocket):
    for round_ in range(ROUNDS):
        answers = one_round(f"/api/tables/{rocket.pk}", dana)

        statuses = [answer.status_code for answer in answers]
        assert statuses == [201] + [200] * (BUY_INS + 1), [answer.content[:200] for answer in answers]
        # clear the table for the next round: the hand set aside, every player gone
        Hand.objects.filter(table=rocket, status=Hand.Status.IN_PROGRESS).update(status=Hand.Status.VOIDED)
        for session in SeatSession.objects.filter(seat__table=rocket, ended_at=None):
            signed_in(dana).change(f"/api/seat-sessions/{session.pk}/cash-out/")
        assert Transaction.objects.filter(table=rocket, kind="buy_in").count() == (round_ + 1) * (4 + BUY_INS)
