"""Where a figure or a finding points: the pit's pages (a table's history, a slip, a hand's review,
a count, a shift, a shoe, a ledger transaction), which pit managers (their pit's records) and
auditors (every record) both read, and the reports' own page of a record the pit has none for (a
gaming day's adjustment). A report is computed once and read by both, so its links never go to
the admin: a pit manager has no admin, and a link there was a page refused to the very person
reading the report."""

from django.urls import NoReverseMatch, reverse


def pit_url(name: str, pk: int, path: str) -> str:
    """The pit page `name` of record `pk`; the pit pages are mounted at /pit/ by casino.urls."""
    try:
        return reverse(f"pit:{name}", args=[pk])
    except NoReverseMatch:
        return f"/pit/{path}/{pk}/"


def hand_url(hand_id: int) -> str:
    """The pit manager's review of one hand (cards, decisions, postings, replay)."""
    return pit_url("hand", hand_id, "hands")


def slip_url(slip_id: int) -> str:
    """A slip as issued and signed (a count's inventory slip, a fill, a credit, a void)."""
    return pit_url("slip", slip_id, "slip")


def count_url(count_id: int) -> str:
    """An opening or closing count as counted and signed, with its chips and the tray expected."""
    return pit_url("count", count_id, "counts")


def adjustment_url(adjustment_id: int) -> str:
    """A closed gaming day's adjustment, read-only, for whoever reads the day's master game report."""
    return reverse("reports:adjustment", args=[adjustment_id])


def table_url(table_id: int) -> str:
    """The table's history: its hands, counts, fills and credits, settings."""
    return pit_url("table", table_id, "tables")


def shoe_url(shoe_id: int) -> str:
    """A shoe: its state, cards out, recycles, incidents, and its order once retired."""
    return pit_url("shoe", shoe_id, "shoes")


def shift_url(shift_id: int) -> str:
    """A shift: who, where, from when to when, and a dealer's hands in it."""
    return pit_url("shift", shift_id, "shifts")


def transaction_url(transaction_id) -> str:
    """A ledger transaction with its postings, slips and place in the chain (a bare cage move)."""
    return pit_url("transaction", transaction_id, "transactions")
