"""Reads across ledger rows, for the auditor's views and the reports."""

from django.db.models import Prefetch, QuerySet, Sum

from ledger.models import Account, Posting, Transaction


def transactions_for_hand(*, hand_id: int) -> QuerySet[Transaction]:
    """Every transaction a hand caused, in chain order, with postings and accounts prefetched."""
    postings = Posting.objects.select_related("account").order_by("id")
    return (
        Transaction.objects.filter(hand_id=hand_id)
        .select_related("created_by", "approved_by", "reverses")
        .prefetch_related(Prefetch("postings", queryset=postings))
        .order_by("position")
    )


def account_movements(account: Account) -> dict[str, int]:
    """The account's net movement by transaction kind, e.g. {"opening": 1000, "fill": 500, ...}.

    For the tray this is its equation: balance = opening + collected - paid + fills - credits.
    """
    rows = (
        Posting.objects.filter(account=account)
        .values_list("transaction__kind")
        .annotate(total=Sum("amount"))
        .order_by()
    )
    return dict(rows)
