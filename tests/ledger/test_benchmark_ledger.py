"""benchmarks/ledger.py compares like with like: its bulk modes write exactly the rows `ledger_post` wrote.

The benchmark itself checks each bulk copy against the service's rows after timing it; these tests
hold the pieces to that with a few hands, so a change to them cannot make it compare other work.
"""

from dataclasses import replace

import pytest
from django.db import connection

from benchmarks import ledger as bench
from ledger.models import Posting, Transaction

HANDS = 25  # a bet and a settlement each: 50 transactions


@pytest.fixture
def postgresql():
    if connection.vendor != "postgresql":
        pytest.skip("The bulk modes are psycopg 3's COPY and executemany, PostgreSQL only: "
                    "set DATABASE_URL to a PostgreSQL database to run it")


@pytest.fixture
def posted(db):
    floor = bench.open_floor(2, HANDS)
    posts = bench.plan(floor, HANDS)
    return posts, bench.post_all(posts, floor.user)


def test_the_rows_read_back_are_all_the_service_wrote(posted):
    posts, ids = posted
    postings, transactions = bench.service_rows(ids)

    assert len(set(ids)) == len(transactions.values) == 2 * HANDS
    assert len(postings.values) == sum(len(post.lines) for post in posts)
    assert Posting.objects.filter(transaction_id__in=ids).count() == len(postings.values)
    # Every column, so the bulk modes write the ids, positions, hashes and times the service made.
    assert transactions.columns == tuple(f.column for f in Transaction._meta.concrete_fields)
    assert postings.columns == tuple(f.column for f in Posting._meta.concrete_fields)
    assert all(row[transactions.columns.index("hash")] for row in transactions.values)


def test_the_hands_look_like_the_services(posted):
    posts, _ = posted
    assert [post.kind for post in posts[:2]] == ["bet", "settlement"]
    assert {len(post.lines) for post in posts if post.kind == "bet"} <= {2, 4}
    assert {len(post.lines) for post in posts if post.kind == "settlement"} <= {4, 7, 8}
    assert len({post.table.pk for post in posts}) == 2  # dealt round the tables' chains


@pytest.mark.parametrize("write", [bench.copy_rows, bench.insert_rows], ids=["copy", "executemany"])
def test_bulk_rows_equal_the_service_rows(postgresql, posted, write):
    _, ids = posted
    rows = bench.service_rows(ids)
    # Empty tables of the same shape: the ledger's own already hold these ids.
    copies = [replace(r, table=f"bench_{r.table}") for r in rows]
    with connection.cursor() as cursor:
        for original, copy in zip(rows, copies, strict=True):
            cursor.execute(f"CREATE TEMP TABLE {copy.table} (LIKE {original.table} INCLUDING ALL)")
        write(cursor.cursor, copies)
        assert bench.stored_rows(cursor.cursor, copies, ids) == copies
