"""Property: whatever sequence of posts arrives, the ledger stays balanced and its caches true."""

import pytest
from django.db import transaction
from django.db.models import Sum
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from ledger.audit import ledger_verify
from ledger.models import Account, Posting, Transaction
from ledger.services import LedgerError, Line, OverdrawError, account_balance, account_get, ledger_post
from tests.floor import player_chips

pytestmark = pytest.mark.django_db

ACCOUNTS = 5  # tray, seat, pot (floors of 0), cage and patrons (no floor)
units = st.integers(min_value=1, max_value=300)
account_index = st.integers(min_value=0, max_value=ACCOUNTS - 1)
balanced = st.tuples(st.just("balanced"), account_index, account_index, units)
unbalanced = st.tuples(st.just("unbalanced"), account_index, account_index, units,
                       st.integers(min_value=-5, max_value=5).filter(bool))


def snapshot():
    return (Transaction.objects.count(), Posting.objects.count(),
            dict(Account.objects.values_list("pk", "balance")))


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(posts=st.lists(st.one_of(balanced, unbalanced), max_size=12))
def test_random_posts_leave_every_transaction_balanced_and_every_cache_true(table, casino, dana, posts):
    with transaction.atomic():
        accounts = [
            account_get(kind="tray", table=table),
            player_chips(table, 1, "Seat 1"),
            account_get(kind="pot", table=table, ref=1),
            account_get(kind="cage", casino=casino),
            account_get(kind="patrons", casino=casino),
        ]
        expected = {account.pk: 0 for account in accounts}
        for i, (shape, source, target, amount, *skew) in enumerate(posts):
            src, dst = accounts[source], accounts[target]
            lines = [Line(src, -amount, "out"), Line(dst, amount + sum(skew), "in")]
            where = {"table": table} if i % 3 else {"casino": casino}
            before = snapshot()
            overdrawn = src.pk != dst.pk and src.floor is not None and expected[src.pk] - amount < src.floor
            try:
                # a correction: the one kind whose lines may move any account (a settlement never
                # moves the cage, and verify_ledger names one that does)
                ledger_post(lines=lines, kind="correction", memo="", by=dana, **where)
            except LedgerError as error:
                # then a refused post wrote nothing, and was refused for the right reason
                assert snapshot() == before
                assert shape == "unbalanced" or (overdrawn and isinstance(error, OverdrawError))
            else:
                assert shape == "balanced" and not overdrawn
                expected[src.pk] -= amount
                expected[dst.pk] += amount

        cached = {account.pk: expected[account.pk] if account.cached else None for account in accounts}
        assert dict(Account.objects.filter(pk__in=cached).values_list("pk", "balance")) == cached
        assert all(account_balance(account) == expected[account.pk] for account in accounts)
        sums = Posting.objects.values("transaction").annotate(total=Sum("amount"))
        assert {row["total"] for row in sums} <= {0}
        assert ledger_verify().clean
        transaction.set_rollback(True)
