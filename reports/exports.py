"""A finished report as CSV rows: one header row, then one row per group, table or finding."""

from __future__ import annotations

from django.utils.text import slugify

from reports.models import Report

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
    rows = [list(FINDING)]
    rows += [[_cell(f[name]) for name in FINDING] for f in result.get("findings", [])]
    return rows
