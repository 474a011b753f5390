"""Where a figure or a finding points: the pit's pages (a table's history, a slip, a hand's review),
which pit managers and auditors both read, or the admin's page of a record the pit has no page for
(a shoe, a bare cage move). A pit manager has no admin: a link there was a page refused to them."""

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


def admin_url(model: str, pk) -> str:
    """The admin's change page of a record, e.g. admin_url("tables.shoe", 3)."""
    app, name = model.split(".")
    try:
        return reverse(f"admin:{app}_{name}_change", args=[pk])
    except NoReverseMatch:
        return ""


def table_url(table_id: int) -> str:
    """The table's history: its hands, counts, fills and credits, settings."""
    return pit_url("table", table_id, "tables")


def shoe_url(shoe_id: int) -> str:
    return admin_url("tables.shoe", shoe_id)
