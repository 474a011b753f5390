"""Statistics as regulators ask for them, and the casino's variance rules.

Per table and per game, for the gaming day, the month to date and the year to date: drop (the
keyed buy-ins into the drop box: the expected drop) and win (the system win, as the master game's:
the tray's side of the hands' transactions and everything the rake account took) from the ledger;
the counted drop and the win by the formula (`reports.services.win`) over the table's days that
are counted, with the number of days that are not yet (adjustments of closed days included on the
day they were posted into), and win-to-drop from those counted figures only (RULINGS, "Drop and
count"); hands, handle and hold from the hands; for pot games pots, rake per hand and rake over
pots. Two aggregate queries do the summing: the ledger's postings per table and day for the year,
and the hands per table, day and rules configuration since the first hand; a closed day's counted
figures are read from its close, the others are worked out per table and day that saw play.

Variance rules (`VarianceRules`, per casino), per table; each flag opens an `Investigation`
(one per rule, table and report date: running the report again opens no second one):
- z-score: the day's win against the theoretical expected win, in standard deviations (the win by
  the formula once the day is counted, the hands' win until then);
- win difference: the day's win by the formula and its system win differ by more than
  `win_tolerance` units;
- confidence: the month's hold outside the confidence interval around the theoretical edge;
- base level: the month's hold more than `base_points` percentage points from the base level
  (the theoretical edge for Rocket, the lifetime hold otherwise);
- rolling: the hold of the last `rolling_days` days more than `rolling_points` percentage points
  from the lifetime hold.
The point rules wait for `minimum_hands` hands in each period compared.
"""

from __future__ import annotations

import math
from collections import defaultdict
from datetime import date, timedelta
from statistics import NormalDist

from django.db import IntegrityError, transaction

from reports.models import DayAdjustment, GamingDayClose, Investigation, Report, VarianceRules
from reports.periods import day_start, days_bounds, gaming_day_of
from reports.selectors import hand_totals, ledger_daily, settled_hands
from reports.services.house_edge import Progress, _add_theory, _config, rules_for
from reports.services.investigations import investigation_seal
from reports.services.links import table_url
from reports.services.theory import theoretical_edge
from reports.services.win import COUNTED, table_day
from tables.models import Game, Hand, Table, TableCount

PERIODS = ("day", "mtd", "ytd")
POINT = 0.01  # a percentage point of hold


def statistics_report(*, params: dict, progress: Progress, report: Report | None = None) -> dict:
    """Day, month-to-date and year-to-date figures per table and game, and the variance flags."""
    casino_id, as_of = params["casino"], date.fromisoformat(params["date"])
    rules = rules_for(casino_id)
    progress(5, "Summing the ledger")
    year_start = as_of.replace(month=1, day=1)
    ledger = ledger_daily(casino_id=casino_id, start=day_start(year_start), end=days_bounds(as_of, as_of)[1])
    progress(35, "Summing the hands")
    hands = hand_totals(_all_hands(casino_id, as_of), group="table")
    progress(65, "Theoretical edges")
    edges = {}
    for row in hands:
        config = _config(row, rules.strategy)
        if config is not None and config not in edges:
            edges[config] = theoretical_edge(config=config)
        _add_theory(row, edges.get(config))
    tables = Table.objects.filter(pit__casino_id=casino_id).order_by("name")
    progress(75, "Win by the formula")
    counted = counted_days(tables, year_start, as_of, ledger, rules)
    table_rows = [_table_figures(table, as_of, ledger, hands, counted) for table in tables]
    progress(85, "Variance rules")
    flags = [
        flag
        for table in tables
        for flag in _flags(table, as_of, hands, rules, counted.get((table.pk, as_of)))
    ]
    investigations = open_investigations(flags, casino_id=casino_id, as_of=as_of, report=report)
    for flag, investigation in zip(flags, investigations, strict=True):
        flag["investigation"] = investigation.pk
    return {
        "date": as_of.isoformat(),
        "tables": [row for row in table_rows if _active(row)],
        "games": _games(table_rows),
        "flags": flags,
        "rules": _rules_record(rules),
    }


def _all_hands(casino_id: int, as_of: date):
    first = (
        Hand.objects.filter(table__pit__casino_id=casino_id, settled_at__isnull=False)
        .order_by("settled_at")
        .values_list("settled_at", flat=True)
        .first()
    )
    start = min(first, day_start(as_of)) if first else day_start(as_of)
    return settled_hands(start=start, end=days_bounds(as_of, as_of)[1], casino_id=casino_id)


def _windows(as_of: date) -> dict[str, date]:
    """The first gaming day of each period ending on `as_of`."""
    return {"day": as_of, "mtd": as_of.replace(day=1), "ytd": as_of.replace(month=1, day=1)}


def _within(rows: list[dict], first: date, last: date) -> list[dict]:
    return [row for row in rows if first <= row["gaming_day"] <= last]


def counted_days(tables, first: date, last: date, ledger: list[dict], rules: VarianceRules) -> dict:
    """(table, gaming day) -> the day by the formula, for every table and day in [first, last] that
    saw play, opened, or has an adjustment posted into it: a closed day's frozen row, else worked
    out now. Adjustments posted into the day are added to its counted drop and win.

    A table session belongs to the day it opened in (`reports.services.win`): one opened at 05:45
    whose first buy-in came after 06:00 posted nothing in its own day, so the ledger alone would
    leave that day out here while the master game report counts it."""
    by_id = {table.pk: table for table in tables}
    closes = GamingDayClose.objects.filter(casino_id=rules.casino_id, day__range=(first, last))
    frozen = {(row["table"], close.day): row for close in closes for row in close.figures["tables"]}
    adjustments = DayAdjustment.objects.filter(casino_id=rules.casino_id, day__range=(first, last))
    posted = defaultdict(lambda: {"drop": 0, "win": 0})
    for adjustment in adjustments:
        for name in ("drop", "win"):
            posted[(adjustment.table_id, adjustment.day)][name] += adjustment.changes.get(name, 0)
    active = {(row["table"], row["gaming_day"]) for row in ledger if row["table"] in by_id} | set(posted)
    active |= _opened(by_id, first, last)
    days = {}
    for table_id, day in active:
        row = frozen.get((table_id, day)) or table_day(by_id[table_id], day, rules)
        days[(table_id, day)] = {**row, "posted": posted.get((table_id, day), {"drop": 0, "win": 0})}
    return days


def _opened(tables: dict, first: date, last: date) -> set[tuple[int, date]]:
    """(table, gaming day) of every opening count of `tables` in the gaming days [first, last]."""
    start, end = days_bounds(first, last)
    openers = TableCount.objects.filter(
        table__in=list(tables), kind=TableCount.Kind.OPENER, at__gte=start, at__lt=end
    )
    return set(openers.annotate(day=gaming_day_of("at")).values_list("table_id", "day"))


def _table_figures(table: Table, as_of: date, ledger: list[dict], hands: list[dict], counted: dict) -> dict:
    mine_ledger = [row for row in ledger if row["table"] == table.pk]
    mine_hands = [row for row in hands if row["group_key"] == table.pk]
    mine_days = [
        {**row, "gaming_day": day} for (table_id, day), row in counted.items() if table_id == table.pk
    ]
    figures = {"table": table.pk, "name": table.name, "game": table.game, "link": table_url(table.pk)}
    for period, first in _windows(as_of).items():
        figures[period] = _figures(
            _within(mine_ledger, first, as_of),
            _within(mine_hands, first, as_of),
            _within(mine_days, first, as_of),
        )
    return figures


def _counted_figures(days: list[dict]) -> dict:
    """The counted drop and win over the counted days (adjustments posted into a day with them),
    None when no day is counted, and how many days are not counted yet."""
    counted = [day for day in days if day["status"] == COUNTED]
    drop = sum(day["drop"] for day in counted) + sum(day["posted"]["drop"] for day in days)
    win = sum(day["win"] for day in counted) + sum(day["posted"]["win"] for day in days)
    played = [day for day in days if day["status"] != "not opened"]
    any_counted = bool(counted) or any(day["posted"]["drop"] or day["posted"]["win"] for day in days)
    return {
        "counted_drop": drop if any_counted else None,
        "counted_win": win if any_counted else None,
        "uncounted": len(played) - len(counted),
    }


def _figures(ledger: list[dict], hands: list[dict], days: list[dict]) -> dict:
    drop = sum(row["drop"] for row in ledger)
    win = sum(row["win"] for row in ledger)
    counted = _counted_figures(days)
    rake = sum(row["rake"] for row in ledger)
    count = sum(row["hands"] for row in hands)
    handle = sum(row["handle"] for row in hands)
    hand_win = sum(row["win"] for row in hands)
    pots = sum(row["pot"] for row in hands if row["game"] != Game.ROCKET)
    return {
        "drop": drop,
        "win": win,
        **counted,
        "win_to_drop": counted["counted_win"] / counted["counted_drop"] if counted["counted_drop"] else None,
        "hands": count,
        "handle": handle,
        "hold": hand_win / handle if handle else None,
        "pots": pots,
        "rake": rake,
        "rake_per_hand": rake / count if count and pots else None,
        "rake_over_pots": rake / pots if pots else None,
    }


def _active(row: dict) -> bool:
    return any(row[p]["hands"] or row[p]["drop"] or row[p]["win"] or row[p]["counted_drop"] for p in PERIODS)


def _games(table_rows: list[dict]) -> list[dict]:
    by_game = defaultdict(list)
    for row in table_rows:
        by_game[row["game"]].append(row)
    games = []
    for game, rows in sorted(by_game.items()):
        entry = {"game": game, "name": dict(Game.choices)[game]}
        for period in PERIODS:
            entry[period] = _sum_figures([row[period] for row in rows])
        games.append(entry)
    return games


def _sum_figures(figures: list[dict]) -> dict:
    total = {
        k: sum(f[k] for f in figures) for k in ("drop", "win", "hands", "handle", "pots", "rake", "uncounted")
    }
    hold_win = sum(f["hold"] * f["handle"] for f in figures if f["hold"] is not None)
    counted = [f for f in figures if f["counted_drop"] is not None]
    counted_drop = sum(f["counted_drop"] for f in counted) if counted else None
    counted_win = sum(f["counted_win"] for f in counted) if counted else None
    return {
        **total,
        "counted_drop": counted_drop,
        "counted_win": counted_win,
        "win_to_drop": counted_win / counted_drop if counted_drop else None,
        "hold": hold_win / total["handle"] if total["handle"] else None,
        "rake_per_hand": total["rake"] / total["hands"] if total["hands"] and total["pots"] else None,
        "rake_over_pots": total["rake"] / total["pots"] if total["pots"] else None,
    }


# Variance rules


def _period(rows: list[dict]) -> dict:
    handle = sum(row["handle"] for row in rows)
    win = sum(row["win"] for row in rows)
    expected = sum(row["expected"] for row in rows)
    variance = sum(row["variance"] for row in rows) + sum(row["theory_sd"] for row in rows) ** 2
    return {
        "hands": sum(row["hands"] for row in rows),
        "handle": handle,
        "win": win,
        "hold": win / handle if handle else None,
        "expected": expected,
        "sd": math.sqrt(variance),
        "theoretical": expected / handle if handle and variance else None,
    }


def _flags(
    table: Table, as_of: date, hands: list[dict], rules: VarianceRules, counted: dict | None
) -> list[dict]:
    """Every variance rule the table breaks on `as_of`, as flags (rule, period, figure, limit, words);
    `counted` is its day by the formula (None when it saw no play)."""
    base = {"table": table.pk, "name": table.name, "game": table.game, "link": table_url(table.pk)}
    day = {"from": as_of.isoformat(), "to": as_of.isoformat()}
    difference = _win_difference(counted, rules) if counted else None
    found = [{**base, **difference, **day}] if difference else []
    rows = [row for row in hands if row["group_key"] == table.pk]
    if not rows:
        return found
    month_start = as_of.replace(day=1)
    rolling_start = as_of - timedelta(days=rules.rolling_days - 1)
    periods = {
        "day": _counted_day(_period(_within(rows, as_of, as_of)), counted),
        "month": _period(_within(rows, month_start, as_of)),
        "rolling": _period(_within(rows, rolling_start, as_of)),
        "lifetime": _period(rows),
    }
    found_rules = [
        (as_of, _z_score(periods["day"], rules)),
        (month_start, _confidence(periods["month"], rules)),
        (month_start, _base_level(periods["month"], periods["lifetime"], rules)),
        (rolling_start, _rolling(periods["rolling"], periods["lifetime"], rules)),
    ]
    return found + [
        {**base, **broken, "from": first.isoformat(), "to": as_of.isoformat()}
        for first, broken in found_rules
        if broken is not None
    ]


def _counted_day(day: dict, counted: dict | None) -> dict:
    """The day's hands, with the win by the formula in place of the hands' win once it is counted."""
    if counted is None or counted["status"] != COUNTED:
        return day
    return {**day, "win": counted["win"]}


def _win_difference(counted: dict, rules: VarianceRules) -> dict | None:
    if not counted.get("flag"):
        return None
    return _broken(
        Investigation.Rule.WIN_DIFFERENCE,
        counted["difference"],
        rules.win_tolerance,
        f"The day's win by the formula {counted['win']} and its win from settlements "
        f"{counted['system_win']} differ by {counted['difference']:+} (limit {rules.win_tolerance}).",
    )


def _broken(rule: str, measured: float, limit: float, detail: str) -> dict:
    return {"rule": rule, "measured": measured, "limit": limit, "detail": detail}


def _z_score(day: dict, rules: VarianceRules) -> dict | None:
    if not day["sd"]:
        return None
    z = (day["win"] - day["expected"]) / day["sd"]
    if abs(z) <= rules.z_limit:
        return None
    return _broken(
        Investigation.Rule.Z_SCORE,
        z,
        rules.z_limit,
        f"The day's win {day['win']} is {z:+.2f} standard deviations from the expected "
        f"{day['expected']:.0f} (limit {rules.z_limit}).",
    )


def _confidence(month: dict, rules: VarianceRules) -> dict | None:
    if not (month["sd"] and month["handle"]):
        return None
    spread = NormalDist().inv_cdf((1 + rules.confidence) / 2) * month["sd"] / month["handle"]
    low, high = month["theoretical"] - spread, month["theoretical"] + spread
    if low <= month["hold"] <= high:
        return None
    return _broken(
        Investigation.Rule.CONFIDENCE,
        month["hold"],
        rules.confidence,
        f"The month's hold {100 * month['hold']:.2f}% lies outside the {100 * rules.confidence:g}% "
        f"interval {100 * low:.2f}% to {100 * high:.2f}% around the theoretical.",
    )


def _base_level(month: dict, lifetime: dict, rules: VarianceRules) -> dict | None:
    """The base level: the theoretical edge where the game has one, else the lifetime hold."""
    base = month["theoretical"] if month["theoretical"] is not None else lifetime["hold"]
    if month["hands"] < rules.minimum_hands or base is None or month["hold"] is None:
        return None
    points = (month["hold"] - base) / POINT
    if abs(points) <= rules.base_points:
        return None
    return _broken(
        Investigation.Rule.BASE_LEVEL,
        points,
        rules.base_points,
        f"The month's hold {100 * month['hold']:.2f}% is {points:+.2f} points from the base "
        f"level {100 * base:.2f}% (limit {rules.base_points:g} points).",
    )


def _rolling(rolling: dict, lifetime: dict, rules: VarianceRules) -> dict | None:
    if min(rolling["hands"], lifetime["hands"]) < rules.minimum_hands:
        return None
    if rolling["hold"] is None or lifetime["hold"] is None:
        return None
    points = (rolling["hold"] - lifetime["hold"]) / POINT
    if abs(points) <= rules.rolling_points:
        return None
    return _broken(
        Investigation.Rule.ROLLING,
        points,
        rules.rolling_points,
        f"The last {rules.rolling_days} days' hold {100 * rolling['hold']:.2f}% is {points:+.2f} "
        f"points from the lifetime hold {100 * lifetime['hold']:.2f}% "
        f"(limit {rules.rolling_points:g} points).",
    )


def open_investigations(flags: list[dict], *, casino_id: int, as_of: date, report) -> list[Investigation]:
    """One investigation per flag, keyed by rule, table and date: a second run opens none."""
    opened = []
    for flag in flags:
        key = f"{flag['rule']}:table:{flag['table']}:{as_of.isoformat()}"
        fields = {
            "casino_id": casino_id,
            "table_id": flag["table"],
            "game": flag["game"],
            "rule": flag["rule"],
            "report": report,
            "period_start": date.fromisoformat(flag["from"]),
            "period_end": as_of,
            "measured": flag["measured"],
            "limit": flag["limit"],
            "detail": flag["detail"],
        }
        try:
            with transaction.atomic():
                investigation, created = Investigation.objects.get_or_create(key=key, defaults=fields)
                if created:
                    investigation_seal(investigation, event="opened")
        except IntegrityError:  # opened by a run at the same moment
            investigation = Investigation.objects.get(key=key)
        opened.append(investigation)
    return opened


def _rules_record(rules: VarianceRules) -> dict:
    return {
        "strategy": rules.strategy,
        "z_limit": rules.z_limit,
        "base_points": rules.base_points,
        "confidence": rules.confidence,
        "rolling_days": rules.rolling_days,
        "rolling_points": rules.rolling_points,
        "minimum_hands": rules.minimum_hands,
    }
