import pytest
from django.db import connection, transaction

from tables.review import hand_replay_check, hand_review
from tables.services import hand_start

from .conftest import key, play, seat
from .test_hands import settle

pytestmark = pytest.mark.django_db


@pytest.fixture
def settled(rocket, dana):
    seat(rocket, 1, 200, dana), seat(rocket, 2, 200, dana)
    hand = hand_start(table=rocket, bets={1: 20, 2: 50}, by=dana, key=key())
    return settle(play(hand, [5, 6, 9, 4, 9], [("hit",), ("fold",)], dana), dana)


def test_a_review_shows_cards_decisions_postings_and_a_matching_replay(settled, dana):
    review = hand_review(settled)

    assert [(c.rank, c.receiver) for c in review["cards"]] == [
        (5, "seat"),
        (6, "seat"),
        (9, "dealer"),
        (4, "seat"),
        (9, "dealer"),
    ]
    assert [(d.seat, d.action, d.by) for d in review["decisions"]] == [
        (1, ["hit"], dana),
        (2, ["fold"], dana),
    ]
    assert {p.transaction.kind for p in review["postings"]} == {"bet", "settlement"}
    assert review["replay"] == {
        "matches": True,
        "replayed": {"1": 18, "2": -30},
        "posted": {"1": 18, "2": -30},
        "error": "",
    }


def test_a_posting_that_disagrees_with_the_replay_is_caught(settled):
    # Tamper with the ledger the way only someone with the protection lifted could.
    from ledger.db import protection_drop_sql, protection_sql

    q = connection.ops.quote_name
    with transaction.atomic(), connection.cursor() as cursor:
        if connection.vendor == "postgresql":  # run the deferred checks now: ALTER TABLE waits for none
            cursor.execute("SET CONSTRAINTS ALL IMMEDIATE")
        for sql in protection_drop_sql(connection.vendor, q):
            cursor.execute(sql)
        cursor.execute(
            "UPDATE ledger_posting SET amount = amount + 10 WHERE reason = 'dealer pair' AND amount > 0"
        )
        cursor.execute(
            "UPDATE ledger_posting SET amount = amount - 10 WHERE reason = 'dealer pair' AND amount < 0"
        )
        for sql in protection_sql(connection.vendor, q):
            cursor.execute(sql)

    check = hand_replay_check(settled)
    assert check["matches"] is False and check["posted"]["1"] == 28 and check["replayed"]["1"] == 18


def test_an_unsettled_hand_has_nothing_to_compare_yet(rocket, dana):
    seat(rocket, 1, 200, dana)
    hand = hand_start(table=rocket, bets={1: 20}, by=dana, key=key())
    assert hand_replay_check(hand)["matches"] is None
