"""The master game report: one casino's gaming day, one row per table, by the formula.

Beside them, each dealer's shift at a table that started in the day, by the formula with the
ledger's tray at its edges (`reports.services.win.shift_figures`).

Each row: opener, fills, credits, drop (counted; the keyed drop beside it as expected), closer,
win, hold, system win and the difference (flagged beyond the casino's `win_tolerance`), with the
slips and counts behind each figure (`reports.services.win`). Below the rows: the adjustments of
earlier, closed days posted into this day (`DayAdjustment`).

A closed day (`GamingDayClose`) reports the figures frozen at its close, never recomputed; what
was found for it later is listed from its adjustments, which the page reads when it is shown.
"""

from __future__ import annotations

import re
from datetime import date, timedelta

from django.db.models import Count

from reports.models import DayAdjustment, GamingDayClose
from reports.periods import days_bounds
from reports.services.house_edge import Progress, rules_for
from reports.services.links import adjustment_url, transaction_url
from reports.services.win import casino_day, casino_tables, shift_figures, table_day
from tables.models import Casino, Shift


def master_game_figures(casino_id: int, day: date, progress: Progress | None = None) -> dict:
    """The day's figures as the records stand now (what a close freezes)."""
    rules = rules_for(casino_id)
    tables = list(casino_tables(casino_id))
    rows = []
    for number, table in enumerate(tables):
        if progress:
            progress(5 + 90 * number // max(len(tables), 1), f"Table {table.name}")
        rows.append(table_day(table, day, rules))
    if progress:
        progress(95, "Shifts")
    return {
        "date": day.isoformat(),
        "casino": casino_id,
        "casino_name": Casino.objects.get(pk=casino_id).name,
        "tolerance": rules.win_tolerance,
        "tables": rows,
        "total": casino_day(rows, rules),
        "shifts": [shift_figures(shift, rules) for shift in shifts_of_day(casino_id, day)],
        **adjustments_summary(casino_id, day),
        "flags": [row["name"] for row in rows if row["flag"]],
    }


def master_game_report(*, params: dict, progress: Progress) -> dict:
    """The report kind's run: the frozen figures of a closed day, else the figures now."""
    casino_id, day = params["casino"], date.fromisoformat(params["date"])
    close = GamingDayClose.objects.filter(casino_id=casino_id, day=day).first()
    if close is not None:
        return close.figures
    return master_game_figures(casino_id, day, progress)


def adjustment_record(adjustment: DayAdjustment) -> dict:
    return {
        "id": adjustment.pk,
        "table": adjustment.table_id,
        "name": adjustment.table.name,
        "closed_day": adjustment.closed.day.isoformat(),
        "day": adjustment.day.isoformat(),
        "changes": adjustment.changes,
        "memo": adjustment.memo,
        "at": adjustment.at.isoformat(),
        "link": adjustment_url(adjustment.pk),
    }


def adjustments_summary(casino_id: int, day: date) -> dict:
    """The adjustments of closed days posted into gaming day `day`, and what they add to its win."""
    found = DayAdjustment.objects.filter(casino_id=casino_id, day=day).select_related("table", "closed")
    adjustments = [adjustment_record(a) for a in found]
    return {"adjustments": adjustments, "adjusted_win": sum(a["changes"].get("win", 0) for a in adjustments)}


def adjustments_of(casino_id: int, day: date) -> list[dict]:
    """Adjustments made after the close of `day` for it (posted into later days)."""
    found = DayAdjustment.objects.filter(casino_id=casino_id, closed__day=day).select_related(
        "table", "closed"
    )
    return [adjustment_record(a) for a in found]


def master_game_shown(report) -> dict:
    """What a master game report's page and CSV show: the frozen figures once the day is closed
    (whenever the report ran), with the adjustments found for it since; else the report's result."""
    params = report.params
    close = GamingDayClose.objects.filter(casino_id=params["casino"], day=params["date"]).first()
    if close is None:
        return {"result": linked(report.result), "close": None, "later": []}
    later = adjustments_of(params["casino"], close.day)
    return {"result": linked(close.figures), "close": close, "later": later}


def linked(result: dict) -> dict:
    """`result` (a report's run, a day's frozen close) with its links rebuilt as the pages link
    today, for every reader of stored figures (the page, the CSV, the API's closed days): figures
    stored (a close is sealed, never rewritten) before the pit and the reports had these pages link
    to the admin, which a pit manager cannot open. An adjustment keeps its id; a bare cage move's
    admin link names its transaction."""
    shown = {**result}
    if "tables" in result:
        shown["tables"] = [_records_linked(row) for row in result["tables"]]
    if "adjustments" in result:
        shown["adjustments"] = [{**a, "link": adjustment_url(a["id"])} for a in result["adjustments"]]
    return shown


# The admin's change page of a ledger transaction (its id a UUID), which a bare cage move linked to
# before it had a pit page (whatever the admin's mount point then).
_ADMIN_TRANSACTION = re.compile(r"/ledger/transaction/([^/]+)/change/$")


def _records_linked(row: dict) -> dict:
    records = {
        figure: [{**r, "link": _pit_link(r.get("link", ""))} for r in shown]
        for figure, shown in row.get("records", {}).items()
    }
    return {**row, "records": records}


def _pit_link(link: str) -> str:
    transaction = _ADMIN_TRANSACTION.search(link)
    return transaction_url(transaction[1]) if transaction else link


def days_shown(casino_id: int, last: date, count: int) -> list[dict]:
    """The `count` gaming days up to `last`, newest first, each with its close (or None) and the
    number of adjustments found for it since."""
    first = last - timedelta(days=count - 1)
    closes = {
        close.day: close
        for close in GamingDayClose.objects.filter(casino_id=casino_id, day__range=(first, last))
        .select_related("signed_by")
        .annotate(later=Count("adjustments"))
    }
    return [
        {"day": day, "close": closes.get(day)} for day in (last - timedelta(days=n) for n in range(count))
    ]


def shifts_of_day(casino_id: int, day: date):
    """Dealers' shifts at the casino's tables that started in gaming day `day`."""
    start, end = days_bounds(day, day)
    shifts = Shift.objects.filter(table__pit__casino_id=casino_id, started_at__gte=start, started_at__lt=end)
    return shifts.select_related("table", "user").order_by("table__name", "started_at")
