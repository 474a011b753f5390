"""The house's named people and a small floor (from tests/tables), and reports kept fast:
Rocket's theoretical edge is simulated over a few thousand hands instead of a hundred thousand."""

import pytest

from casino.celery import app
from reports.services import report_request, report_run
from tables.services import SignatureGiven, hand_settle, hand_start, shift_start, table_count
from tests.tables.conftest import (  # noqa: F401  (fixtures)
    ada,
    blackstone,
    dana,
    key,
    olga,
    open_table,
    pete,
    pit,
    play,
    rocket,
    seat,
    starboard,
)

EDGE_HANDS = 4_000  # luck-adjusted hands: about +/- 0.15% on an 8-deck shoe, a quarter of a second
VARIANCE_HANDS = 20_000


@pytest.fixture(autouse=True)
def small_simulations(settings):
    settings.REPORTS_EDGE_HANDS = EDGE_HANDS
    settings.REPORTS_VARIANCE_HANDS = VARIANCE_HANDS


@pytest.fixture
def in_process():
    """Tasks run at once in this process, whatever broker CI configured (the worker test uses one)."""
    before = app.conf.task_always_eager, app.conf.task_eager_propagates
    app.conf.update(task_always_eager=True, task_eager_propagates=True)
    yield
    app.conf.update(task_always_eager=before[0], task_eager_propagates=before[1])


# A Rocket hand as the tables' tests play it: seat 1 bets 20 and hits a 4 after a 5; seat 2 bets 50
# and folds a 6 (5 tenths x 6 = 30); the dealer pairs his 9s and pays seat 1 2 tenths x 9 = 18.
ROCKET_CARDS, ROCKET_DECISIONS, ROCKET_BETS = [5, 6, 9, 4, 9], [("hit",), ("fold",)], {1: 20, 2: 50}
ROCKET_HOUSE_WIN = 30 - 18


def seated(table, by):
    """Two players at seats 1 and 2 with 2,000 units each."""
    seat(table, 1, 2000, by)
    seat(table, 2, 2000, by)
    return table


def settle(hand, by):
    return hand_settle(hand=hand, by=by, expected_seq=hand.seq, key=key())


def rocket_hands(table, count, by):
    """Play `count` of the hand above at `table` (players seated) through the services."""
    hands = []
    for _ in range(count):
        hand = hand_start(table=table, bets=ROCKET_BETS, by=by, key=key())
        hands.append(settle(play(hand, ROCKET_CARDS, ROCKET_DECISIONS, by), by))
    return hands


def run(kind, params, by=None):
    """Ask for a report and run it here and now (the worker's part, in this process)."""
    report = report_request(kind=kind, params=params, by=by)
    return report_run(report_id=report.pk)


def count(table, kind, chips, by, witness):
    """A signed opening or closing count of `chips` units in 100-unit chips (and 1s for the rest)."""
    hundreds, ones = divmod(chips, 100)
    return table_count(
        table=table,
        kind=kind,
        denominations={"100": hundreds, "1": ones},
        by=by,
        counter=SignatureGiven(by.username, f"{by.username}-password"),
        witness=SignatureGiven(witness.username, f"{witness.username}-password"),
        key=key(),
    )


def lifting_protection(*statements):
    """Run SQL as someone who lifted the database's protection would (to plant a discrepancy)."""
    from django.db import connection, transaction

    from ledger.db import protection_drop_sql, protection_sql

    q = connection.ops.quote_name
    with transaction.atomic(), connection.cursor() as cursor:
        if connection.vendor == "postgresql":  # check what the test wrote so far, before ALTER TABLE
            cursor.execute("SET CONSTRAINTS ALL IMMEDIATE")
        for sql in protection_drop_sql(connection.vendor, q):
            cursor.execute(sql)
        for statement, params in statements:
            cursor.execute(statement, params)
        for sql in protection_sql(connection.vendor, q):
            cursor.execute(sql)


def play_out(hand, by):
    """Play a hand from a system-shuffled shoe to its end, each seat taking the first legal move."""
    from tables.games import CardDue, Move
    from tables.services.engine import engine_for
    from tests.tables.conftest import card, decide

    while not (game := engine_for(hand)).finished:
        due = game.next
        if isinstance(due, CardDue):
            hand = card(hand, None, by)
        else:
            move = due.moves[0]
            hand = decide(hand, (move.value, due.min_take) if move is Move.TAKE else (move.value,), by)
    return settle(hand, by)


@pytest.fixture
def day_table(pit, pete):  # noqa: F811  (the fixtures imported above)
    """Rocket 1 with 10,000 in its tray from the cage, not yet opened (tests/reports/worked_day.py)."""
    return open_table(pit, pete, "rocket", "Rocket 1", 10, 500, decks=8, opened=False)


@pytest.fixture
def day_shift(day_table, dana, pete):  # noqa: F811
    """pete on shift in the pit, dana dealing at the day's table: both sign its counts."""
    shift_start(user=pete, pit=day_table.pit, by=pete)
    return shift_start(user=dana, table=day_table, by=pete)
