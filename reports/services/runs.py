"""Asking for a report and running it: one record per kind and parameters, progress as it goes.

`report_request` validates the parameters, puts them in canonical form and finds or creates the
report keyed by them; a new report (or one that failed) is sent to a worker once the database
transaction commits. `report_run` is what the worker runs: it does nothing for a report already
done, so a task delivered twice, or asked for twice, gives one report. Progress is saved (and
committed) as the work goes on, so a page can show it. A database error is left to propagate, so
that the task retries it with backoff; any other error marks the report failed with its message.
"""

from __future__ import annotations

import hashlib
import json
import logging
from collections.abc import Callable
from dataclasses import dataclass
from datetime import date, timedelta
from functools import partial

from django.conf import settings
from django.contrib.auth import get_user_model
from django.core.exceptions import ObjectDoesNotExist
from django.db import DatabaseError, InterfaceError, OperationalError, transaction
from django.db.models import QuerySet
from django.utils import timezone

from casino.errors import DomainError
from casino.limits import MAX_BIGINT
from reports.models import Report
from reports.periods import day_start
from reports.selectors import GROUPS
from tables.games import IllegalAction
from tables.models import Casino, Game, Shift, Table, TableCount
from tables.selectors import casinos_visible_to, sees_everything, tables_visible_to

from .dispatch import send
from .house_edge import house_edge_report
from .master_game import master_game_report
from .reconciliation import closer_after, reconciliation_report
from .statistics import statistics_report

log = logging.getLogger(__name__)
MAX_DAYS = 3660  # a report covers at most ten years of gaming days
MISSING = {
    "casino": "There is no casino {}.",
    "table": "There is no table {}.",
    "dealer": "There is no staff account {} to be the dealer.",
    "shift": "There is no shift {} at a table (a shift in a pit has no table to report on).",
    "session": "There is no opening count {} to start a table session from.",
}
TABLE_SHIFTS = Shift.objects.filter(table__isnull=False)  # what reports reconcile, and hands are dealt in
OPENING_COUNTS = TableCount.objects.filter(kind=TableCount.Kind.OPENER)


@dataclass(frozen=True)
class Seen:
    """The casinos and tables the one asking reads: a report may name no other. A record outside
    is refused with the sentence of a record that does not exist (MISSING), so the refusal
    confirms nothing. `everything`: they read every casino (auditors, administrators, the
    schedule), so a report may also cover several casinos, or all of them."""

    casinos: QuerySet[Casino]
    tables: QuerySet[Table]
    everything: bool


def seen_by(user) -> Seen:
    """What `user` may ask a report about (everything, for the schedule: `user` None)."""
    if user is None or sees_everything(user):
        return Seen(Casino.objects.all(), Table.objects.all(), everything=True)
    return Seen(casinos_visible_to(user), tables_visible_to(user), everything=False)


class ReportError(DomainError):
    """The report cannot be asked for with these parameters; `field` names the one at fault."""

    def __init__(self, message: str, field: str = "params"):
        super().__init__(message)
        self.field = field


# Parameters


def _date(params: dict, name: str) -> str:
    value = params.get(name)
    try:
        return date.fromisoformat(str(value)).isoformat()
    except ValueError as error:
        raise ReportError(
            f"Give {name.replace('_', ' ')} as a date (YYYY-MM-DD), not {value!r}.", name
        ) from error


def _id(params: dict, name: str, required: bool = False) -> int | None:
    value = params.get(name)
    if value in (None, ""):
        if required:
            raise ReportError(f"Choose a {name}.", name)
        return None
    number = _whole(value)
    if number is None or number <= 0:
        raise ReportError(f"{name.capitalize()} must be a record number, not {value!r}.", name)
    return number


def _whole(value) -> int | None:
    """`value` as a whole number (7 or "7") that an id can be; None for anything else (7.5, True,
    "seven", a number past the database's 64 bits)."""
    if isinstance(value, str) and _digits(value.strip()):
        value = int(value)
    if isinstance(value, int) and not isinstance(value, bool) and value <= MAX_BIGINT:
        return value
    return None


def _digits(text: str) -> bool:
    # ASCII digits only, no more than an id has: str.isdigit() takes "²" and other scripts' digits,
    # which int() refuses or reads, and int() refuses thousands of digits with an error of its own.
    return text.isascii() and text.isdigit() and len(text) <= len(str(MAX_BIGINT))


def _record(params: dict, name: str, records: QuerySet, required: bool = False) -> int | None:
    """The id of the record `name` names, refused unless `records` holds it (a report over a record
    that is not there would run and find nothing, or fail on the worker)."""
    number = _id(params, name, required)
    if number is not None and not records.filter(pk=number).exists():
        raise ReportError(MISSING[name].format(number), name)
    return number


def _range(params: dict) -> dict:
    first, last = _date(params, "date_from"), _date(params, "date_to")
    if first > last:
        raise ReportError(f"The first day ({first}) comes after the last ({last}).", "date_to")
    if (date.fromisoformat(last) - date.fromisoformat(first)).days > MAX_DAYS:
        raise ReportError(f"A report covers at most {MAX_DAYS} days.", "date_to")
    return {"date_from": first, "date_to": last}


def _tables(params: dict, casino: int | None, seen: Seen) -> list[int] | None:
    tables = params.get("tables") or []
    if not isinstance(tables, list):
        tables = [tables]
    ids = sorted({_id({"tables": t}, "tables") for t in tables})
    found = seen.tables.filter(pk__in=ids)
    missing = sorted(set(ids) - set(found.values_list("pk", flat=True)))
    if missing:
        raise ReportError(f"There is no table {', '.join(map(str, missing))}.", "tables")
    elsewhere = found.exclude(pit__casino_id=casino).order_by("pk") if casino else found.none()
    if elsewhere:
        raise ReportError(f"Table {elsewhere[0]} is not in casino {casino}.", "tables")
    return ids or None


def _house_edge_params(params: dict, seen: Seen) -> dict:
    group = params.get("group") or "table"
    if group not in GROUPS:
        raise ReportError(f"Group by one of {', '.join(GROUPS)}, not {group!r}.", "group")
    game = params.get("game") or None
    if game is not None and game not in Game.values:
        raise ReportError(f"There is no game {game!r}; choose one of {', '.join(Game.values)}.", "game")
    casino = _record(params, "casino", seen.casinos)
    return {
        **_range(params),
        "group": group,
        "casino": casino,
        "tables": _tables(params, casino, seen),
        "game": game,
        "dealer": _record(params, "dealer", get_user_model().objects),
        "shift": _record(params, "shift", TABLE_SHIFTS.filter(table__in=seen.tables)),
    }


def _statistics_params(params: dict, seen: Seen) -> dict:
    return {"casino": _record(params, "casino", seen.casinos, required=True), "date": _date(params, "date")}


def _reconciliation_params(params: dict, seen: Seen) -> dict:
    given = [name for name in ("session", "shift", "table") if params.get(name) not in (None, "")]
    if len(given) > 1:
        raise ReportError(
            f"Reconcile one table session, one shift or one table over days: give only one of "
            f"{', '.join(given)}.",
            given[1],
        )
    if given == ["session"]:
        return {"session": _record(params, "session", OPENING_COUNTS.filter(table__in=seen.tables))}
    if given == ["shift"]:
        return {"shift": _record(params, "shift", TABLE_SHIFTS.filter(table__in=seen.tables))}
    return {"table": _record(params, "table", seen.tables, required=True), **_range(params)}


# What each kind takes: the function that checks and canonicalises, and the names it knows.
PARAMS: dict[str, tuple[Callable[[dict, Seen], dict], tuple[str, ...]]] = {
    Report.Kind.HOUSE_EDGE: (
        _house_edge_params,
        ("date_from", "date_to", "group", "casino", "tables", "game", "dealer", "shift"),
    ),
    Report.Kind.STATISTICS: (_statistics_params, ("casino", "date")),
    Report.Kind.RECONCILIATION: (
        _reconciliation_params,
        ("session", "shift", "table", "date_from", "date_to"),
    ),
    Report.Kind.MASTER_GAME: (_statistics_params, ("casino", "date")),
}


def report_params(*, kind: str, params: dict, seen: Seen | None = None) -> dict:
    """The parameters in canonical form (empty ones dropped), or a ReportError naming the one that
    is wrong: a name the report does not take, a malformed value, a record that is not there, or
    not among what `seen` holds (everything if None), which is refused in the same words.
    Whoever reads only some casinos names one (or tables, a shift, a session): a report over
    several casinos is not theirs to read."""
    seen = seen or seen_by(None)
    if kind not in PARAMS:
        raise ReportError(f"There is no report {kind!r}; choose one of {', '.join(PARAMS)}.", "kind")
    if not isinstance(params, dict):
        raise ReportError("Give the report's parameters as an object.")
    check, names = PARAMS[kind]
    unknown = sorted(set(params) - set(names))
    if unknown:
        raise ReportError(
            f"A {kind} report takes no {', '.join(map(repr, unknown))}; it takes {', '.join(names)}.",
            unknown[0],
        )
    canonical = {name: value for name, value in check(params, seen).items() if value is not None}
    if not seen.everything and report_scope(canonical)[0] is None:
        raise ReportError("Choose a casino.", "casino")
    return canonical


def report_key(kind: str, params: dict) -> str:
    return hashlib.sha256(
        json.dumps([kind, params], sort_keys=True, separators=(",", ":")).encode()
    ).hexdigest()


def report_title(kind: str, params: dict) -> str:
    """What the report covers, in the words of the floor: the casino, tables, dealer or shift by
    name (the parameters hold their ids)."""
    name = Report.Kind(kind).label
    if "date_from" in params:
        when = (
            params["date_from"]
            if params["date_from"] == params["date_to"]
            else (f"{params['date_from']} to {params['date_to']}")
        )
    else:
        when = params.get("date", "")
    scope = ", ".join(_scope(params))
    title = f"{name}: {when}" if when else name
    return (title + (f" ({scope})" if scope else ""))[: Report._meta.get_field("title").max_length]


def report_scope(params: dict) -> tuple[int | None, list[int]]:
    """The casino and the tables a report's canonical parameters cover: the tables named, or the
    table of the shift or session; the casino named, or the one casino of those tables (None
    when they lie in several, or when nothing bounds the report). No tables: the whole casino.
    Who reads the report follows from these (`reports.selectors.reports_seen`)."""
    tables = params.get("tables") or ([params["table"]] if params.get("table") else [])
    if params.get("shift"):
        tables = [*tables, TABLE_SHIFTS.get(pk=params["shift"]).table_id]
    if params.get("session"):
        tables = [*tables, OPENING_COUNTS.get(pk=params["session"]).table_id]
    casinos = set(Table.objects.filter(pk__in=tables).values_list("pit__casino", flat=True))
    casino = params.get("casino") or (casinos.pop() if len(casinos) == 1 else None)
    return casino, sorted(set(tables))


def _scope(params: dict) -> list[str]:
    """The named records a report's parameters point at (checked to exist by `report_params`)."""
    words = []
    if params.get("casino"):
        words.append(Casino.objects.get(pk=params["casino"]).name)
    if params.get("tables") or params.get("table"):
        tables = Table.objects.filter(pk__in=params.get("tables") or [params["table"]])
        tables = tables.select_related("pit__casino").order_by("name")
        if not params.get("casino"):
            words += sorted({table.pit.casino.name for table in tables})
        words += [table.name for table in tables]
    if params.get("game"):
        words.append(Game(params["game"]).label)
    if params.get("dealer"):
        words.append(f"dealer {get_user_model().objects.get(pk=params['dealer']).get_username()}")
    if params.get("shift"):
        shift = Shift.objects.select_related("table__pit__casino", "user").get(pk=params["shift"])
        words += [shift.table.pit.casino.name, shift.table.name]
        words.append(f"{shift.user.get_username()}'s shift from {shift.started_at:%Y-%m-%d %H:%M}")
    if params.get("session"):
        opener = TableCount.objects.select_related("table__pit__casino").get(pk=params["session"])
        words += [opener.table.pit.casino.name, opener.table.name, f"session from {opener.at:%Y-%m-%d %H:%M}"]
    if params.get("group"):
        words.append(f"by {params['group']}")
    return words


# Requesting and running


def report_request(*, kind: str, params: dict, by=None) -> Report:
    """The report of this kind and these parameters, created and queued if it is new (or failed).

    `by` (None for the schedule) may name only the casinos and tables they read (`seen_by`):
    anything else is refused as a record that does not exist, and nothing is written.

    Asking again while it runs returns the same report and queues nothing; so does asking again
    once it is done, unless its period was still going on when it ran (`_ran_mid_period`): its
    figures were those of the records so far, and it runs again (the end-of-day run at 06:15 for
    a day someone looked at in the afternoon).
    """
    params = report_params(kind=kind, params=params, seen=seen_by(by))
    key = report_key(kind, params)
    casino, tables = report_scope(params)
    with transaction.atomic():
        report, created = Report.objects.get_or_create(
            key=key,
            defaults={
                "kind": kind,
                "params": params,
                "title": report_title(kind, params),
                "requested_by": by,
                "casino_id": casino,
            },
        )
        if created:
            report.tables.set(tables)
        again = report.status == Report.Status.FAILED or (
            report.status == Report.Status.DONE and _ran_mid_period(report)
        )
        if not created and again:
            report = Report.objects.select_for_update().get(pk=report.pk)
            report.status, report.progress, report.stage = Report.Status.PENDING, 0, "Asked for again"
            report.save(update_fields=["status", "progress", "stage"])
            created = True
        if created:
            transaction.on_commit(partial(report_enqueue, report.pk))
    return report


def _ran_mid_period(report: Report) -> bool:
    """Whether `report` finished before its period ended: its gaming days, its shift, or its table
    session (to the closing count after its opener)."""
    params, ran = report.params, report.finished_at
    last_day = params.get("date") or params.get("date_to")
    if last_day:
        return ran < day_start(date.fromisoformat(last_day) + timedelta(days=1))
    if params.get("shift"):
        ended = Shift.objects.filter(pk=params["shift"]).values_list("ended_at", flat=True).first()
        return ended is None or ran < ended
    if params.get("session"):
        closer = closer_after(TableCount.objects.get(pk=params["session"]))
        return closer is None or ran < closer.at
    return False


def report_enqueue(report_id: int) -> None:
    """Send the report to a worker (without a broker: in-process, see `dispatch`)."""
    from reports.tasks import run_report

    send(run_report, report_id)


def report_progress(report_id: int, percent: int, stage: str) -> None:
    """Save how far the report has come; committed at once (outside any transaction) for the page."""
    Report.objects.filter(pk=report_id).update(progress=max(0, min(percent, 100)), stage=stage[:200])


def report_run(*, report_id: int, delivery: str = "") -> Report:
    """Run the report unless it is done already; return it. Takes the report's row lock to start.

    `delivery` names the task message (task id and retry number). Each delivery of it is counted and
    committed before the work starts, so a worker killed mid-run leaves its count behind; a message
    delivered more than REPORTS_MAX_DELIVERIES times fails the report instead of running it again.
    """
    with transaction.atomic():
        report = Report.objects.select_for_update().get(pk=report_id)
        if report.status == Report.Status.DONE:
            return report
        deliveries = report.deliveries + 1 if delivery and delivery == report.delivery else 1
        if deliveries > settings.REPORTS_MAX_DELIVERIES:
            return _give_up(report, deaths=deliveries - 1)
        report.status, report.progress, report.stage, report.error = Report.Status.RUNNING, 0, "Starting", ""
        report.delivery, report.deliveries = delivery, deliveries
        report.attempts += 1
        report.started_at, report.finished_at = timezone.now(), None
        report.save(
            update_fields=[
                "status",
                "progress",
                "stage",
                "error",
                "delivery",
                "deliveries",
                "attempts",
                "started_at",
                "finished_at",
            ]
        )
    try:
        result = _compute(report)
    except (OperationalError, InterfaceError):
        _mark(report.pk, status=Report.Status.PENDING, stage="Database error: retrying")
        raise
    except (DomainError, IllegalAction, ObjectDoesNotExist, ValueError) as error:
        _mark(
            report.pk,
            status=Report.Status.FAILED,
            stage="Failed",
            error=str(error),
            finished_at=timezone.now(),
        )
        return Report.objects.get(pk=report.pk)
    except Exception as error:
        _mark(
            report.pk,
            status=Report.Status.FAILED,
            stage="Failed",
            error=repr(error),
            finished_at=timezone.now(),
        )
        raise
    Report.objects.filter(pk=report.pk).update(
        status=Report.Status.DONE,
        progress=100,
        stage="Done",
        result=result,
        flags=count_flags(report.kind, result),
        finished_at=timezone.now(),
    )
    return Report.objects.get(pk=report.pk)


def _give_up(report: Report, deaths: int) -> Report:
    """Fail a report whose message keeps coming back: every delivery so far killed its worker."""
    log.error("Report %s: its worker died %s times running it; not running it again", report.pk, deaths)
    report.status, report.stage, report.finished_at = Report.Status.FAILED, "Failed", timezone.now()
    report.deliveries = deaths + 1
    report.error = (
        f"The worker died {deaths} times running this report (killed, or out of memory), so it is "
        "not run again. Look in the worker's log for what killed it before asking for it again."
    )
    report.save(update_fields=["status", "stage", "error", "deliveries", "finished_at"])
    return report


def _compute(report: Report) -> dict:
    progress = partial(report_progress, report.pk)
    if report.kind == Report.Kind.HOUSE_EDGE:
        return house_edge_report(params=report.params, progress=progress)
    if report.kind == Report.Kind.STATISTICS:
        return statistics_report(params=report.params, progress=progress, report=report)
    if report.kind == Report.Kind.MASTER_GAME:
        return master_game_report(params=report.params, progress=progress)
    return reconciliation_report(params=report.params, progress=progress)


def _mark(report_id: int, **fields) -> None:
    try:
        Report.objects.filter(pk=report_id).update(**fields)
    except DatabaseError:  # the database is what failed: the retry will set the record right
        log.warning("Could not mark report %s: the database refused", report_id)


def count_flags(kind: str, result: dict) -> int:
    """What the report's list shows as flags: findings, variance flags, or groups out of line."""
    if kind == Report.Kind.RECONCILIATION:
        return len(result["findings"])
    if kind in (Report.Kind.STATISTICS, Report.Kind.MASTER_GAME):
        return len(result["flags"])
    return sum(1 for group in result["groups"] if group["flag"] or not group["balanced"])
