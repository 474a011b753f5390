"""A finished report as CSV rows: one header row, then one row per group, table or finding."""

from __future__ import annotations

from django.utils.text import slugify

from reports.models import Report
from reports.services.master_game import master_game_shown

HOUSE_EDGE = (
    "label",
    "games",
    "hands",
    "handle",
    "bets",
    "average_bet",
    "win",
    "hold",
    "theoretical",
    "expected_win",
    "sd",
    "z",
    "flag",
    "pots",
    "rake",
    "rake_per_hand",
    "rake_over_pots",
    "players",
    "carry",
    "balanced",
    "first",
    "last",
)
STATISTICS = (
    "drop",
    "win",
    "counted_drop",
    "counted_win",
    "uncounted",
    "win_to_drop",
    "hands",
    "handle",
    "hold",
    "pots",
    "rake",
    "rake_per_hand",
    "rake_over_pots",
)
FINDING = ("section", "where", "problem", "link")
BACK_ENTERED = "hands dealt on paper while the system was down and entered afterwards"
MASTER_GAME = (
    "opener",
    "fills",
    "credits",
    "expected_drop",
    "drop",
    "closer",
    "collection",
    "win",
    "hold",
    "system_win",
    "difference",
    "flag",
)


def _cell(value) -> str:
    if value is None:
        return ""
    if isinstance(value, float):
        return f"{value:.6f}"
    if isinstance(value, list):
        return " ".join(str(v) for v in value)
    return str(value)


def report_filename(report: Report) -> str:
    """The CSV's file name: the report's number and title, so a saved file says what it covers."""
    return f"report-{report.pk}-{slugify(str(report))}.csv"


def report_rows(report: Report) -> list[list[str]]:
    """The report's result as rows of text, ready for csv.writer."""
    result = report.result or {}
    if report.kind == Report.Kind.HOUSE_EDGE:
        rows = [[report.params.get("group", "group"), *HOUSE_EDGE[1:]]]
        for group in [*result.get("groups", []), result.get("totals")]:
            if group:
                rows.append([_cell(group.get(name)) for name in HOUSE_EDGE])
        if result.get("back_entered"):  # as the page says it: these hands' cards were keyed from a sheet
            rows.append(["back_entered", str(result["back_entered"]), BACK_ENTERED])
        return rows
    if report.kind == Report.Kind.STATISTICS:
        rows = [["scope", "name", "period", *STATISTICS]]
        for scope, key in (("table", "tables"), ("game", "games")):
            for entry in result.get(key, []):
                for period in ("day", "mtd", "ytd"):
                    rows.append(
                        [scope, entry["name"], period, *(_cell(entry[period][n]) for n in STATISTICS)]
                    )
        for flag in result.get("flags", []):
            rows.append(
                ["flag", flag["name"], f"{flag['from']} to {flag['to']}", flag["rule"], flag["detail"]]
            )
        return rows
    if report.kind == Report.Kind.MASTER_GAME:
        return _master_game_rows(master_game_shown(report)["result"] or {})
    rows = [list(FINDING)]
    rows += [[_cell(f[name]) for name in FINDING] for f in result.get("findings", [])]
    return rows


def _master_game_rows(result: dict) -> list[list[str]]:
    """One row per table and the casino's total; the slips and counts behind each figure in the
    last column; then the adjustments posted into the day."""
    rows = [["table", "status", *MASTER_GAME, "records"]]
    for row in [*result.get("tables", []), result.get("total")]:
        if row:
            behind = [
                r["label"]
                for name in ("opener", "fills", "credits", "closer")
                for r in row.get("records", {}).get(name, [])
            ]
            rows.append(
                [row["name"], row["status"], *(_cell(row.get(n)) for n in MASTER_GAME), "; ".join(behind)]
            )
    for shift in result.get("shifts", []):
        rows.append(
            [
                # the times tell one shift of a dealer at a table from their next one there
                f"shift of {shift['dealer']} at {shift['name']}, {shift['start'][11:16]} to "
                f"{shift['end'][11:16] if shift['end'] else 'on shift'}",
                shift["status"],
                *(_cell(shift.get(n)) for n in MASTER_GAME),
            ]
        )
    for adjustment in result.get("adjustments", []):
        rows.append(
            ["adjustment", adjustment["name"], f"closed day {adjustment['closed_day']}", adjustment["memo"]]
        )
    return rows
