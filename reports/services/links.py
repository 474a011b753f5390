"""Where a finding points: the pit's hand review, or the admin's page for a shoe or a table."""

from django.urls import NoReverseMatch, reverse


def hand_url(hand_id: int) -> str:
    """The pit manager's review of one hand (cards, decisions, postings, replay)."""
    try:
        return reverse("pit:hand", args=[hand_id])
    except NoReverseMatch:  # the pit pages are mounted at /pit/ by casino.urls
        return f"/pit/hands/{hand_id}/"


def admin_url(model: str, pk) -> str:
    """The admin's change page of a record, e.g. admin_url("tables.shoe", 3)."""
    app, name = model.split(".")
    try:
        return reverse(f"admin:{app}_{name}_change", args=[pk])
    except NoReverseMatch:
        return ""


def table_url(table_id: int) -> str:
    return admin_url("tables.table", table_id)


def shoe_url(shoe_id: int) -> str:
    return admin_url("tables.shoe", shoe_id)
