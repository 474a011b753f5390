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
from datetime import date
from functools import partial

from django.core.exceptions import ObjectDoesNotExist
from django.db import DatabaseError, InterfaceError, OperationalError, transaction
from django.utils import timezone

from casino.errors import DomainError
from reports.models import Report
from reports.selectors import GROUPS
from tables.games import IllegalAction
from tables.models import Game

from .house_edge import house_edge_report
from .reconciliation import reconciliation_report
from .statistics import statistics_report

log = logging.getLogger(__name__)
MAX_DAYS = 3660  # a report covers at most ten years of gaming days


class ReportError(DomainError):
    """The report cannot be asked for with these parameters."""


# Parameters


def _date(params: dict, name: str) -> str:
    value = params.get(name)
    try:
        return date.fromisoformat(str(value)).isoformat()
    except ValueError as error:
        raise ReportError(f"Give {name.replace('_', ' ')} as a date (YYYY-MM-DD), not {value!r}.") from error


def _id(params: dict, name: str, required: bool = False) -> int | None:
    value = params.get(name)
    if value in (None, ""):
        if required:
            raise ReportError(f"Choose a {name}.")
        return None
    try:
        number = int(value)
    except (TypeError, ValueError) as error:
        raise ReportError(f"{name.capitalize()} must be a record number, not {value!r}.") from error
    if number <= 0:
        raise ReportError(f"{name.capitalize()} must be a record number, not {value!r}.")
    return number


def _range(params: dict) -> dict:
    first, last = _date(params, "date_from"), _date(params, "date_to")
    if first > last:
        raise ReportError("The first day comes after the last.")
    if (date.fromisoformat(last) - date.fromisoformat(first)).days > MAX_DAYS:
        raise ReportError(f"A report covers at most {MAX_DAYS} days.")
    return {"date_from": first, "date_to": last}


def _house_edge_params(params: dict) -> dict:
    group = params.get("group") or "table"
    if group not in GROUPS:
        raise ReportError(f"Group by one of {', '.join(GROUPS)}, not {group!r}.")
    game = params.get("game") or None
    if game is not None and game not in Game.values:
        raise ReportError(f"There is no game {game!r}.")
    tables = params.get("tables") or []
    if not isinstance(tables, list):
        tables = [tables]
    return {
        **_range(params),
        "group": group,
        "casino": _id(params, "casino"),
        "tables": sorted({_id({"table": t}, "table") for t in tables}) or None,
        "game": game,
        "dealer": _id(params, "dealer"),
        "shift": _id(params, "shift"),
    }


def _statistics_params(params: dict) -> dict:
    return {"casino": _id(params, "casino", required=True), "date": _date(params, "date")}


def _reconciliation_params(params: dict) -> dict:
    if _id(params, "session"):
        return {"session": _id(params, "session")}
    if _id(params, "shift"):
        return {"shift": _id(params, "shift")}
    return {"table": _id(params, "table", required=True), **_range(params)}


PARAMS: dict[str, Callable[[dict], dict]] = {
    Report.Kind.HOUSE_EDGE: _house_edge_params,
    Report.Kind.STATISTICS: _statistics_params,
    Report.Kind.RECONCILIATION: _reconciliation_params,
}


def report_params(*, kind: str, params: dict) -> dict:
    """The parameters in canonical form (empty ones dropped), or a ReportError saying what is wrong."""
    if kind not in PARAMS:
        raise ReportError(f"There is no report {kind!r}; choose one of {', '.join(PARAMS)}.")
    if not isinstance(params, dict):
        raise ReportError("Give the report's parameters as an object.")
    return {name: value for name, value in PARAMS[kind](params).items() if value is not None}


def report_key(kind: str, params: dict) -> str:
    return hashlib.sha256(
        json.dumps([kind, params], sort_keys=True, separators=(",", ":")).encode()
    ).hexdigest()


def report_title(kind: str, params: dict) -> str:
    name = Report.Kind(kind).label
    if "date_from" in params:
        when = (
            params["date_from"]
            if params["date_from"] == params["date_to"]
            else (f"{params['date_from']} to {params['date_to']}")
        )
    else:
        when = params.get("date", "")
    scope = ", ".join(f"{k} {v}" for k, v in params.items() if k not in ("date_from", "date_to", "date"))
    return f"{name}: {when}" + (f" ({scope})" if scope else "")


# Requesting and running


def report_request(*, kind: str, params: dict, by=None) -> Report:
    """The report of this kind and these parameters, created and queued if it is new (or failed).

    Asking again while it runs, or once it is done, returns the same report and queues nothing.
    """
    params = report_params(kind=kind, params=params)
    key = report_key(kind, params)
    with transaction.atomic():
        report, created = Report.objects.get_or_create(
            key=key,
            defaults={
                "kind": kind,
                "params": params,
                "title": report_title(kind, params),
                "requested_by": by,
            },
        )
        if not created and report.status == Report.Status.FAILED:
            report = Report.objects.select_for_update().get(pk=report.pk)
            report.status, report.progress, report.stage = Report.Status.PENDING, 0, "Asked for again"
            report.save(update_fields=["status", "progress", "stage"])
            created = True
        if created:
            transaction.on_commit(partial(report_enqueue, report.pk))
    return report


def report_enqueue(report_id: int) -> None:
    """Send the report to a worker (in-process at once when no broker is configured)."""
    from reports.tasks import run_report

    run_report.delay(report_id)


def report_progress(report_id: int, percent: int, stage: str) -> None:
    """Save how far the report has come; committed at once (outside any transaction) for the page."""
    Report.objects.filter(pk=report_id).update(progress=max(0, min(percent, 100)), stage=stage[:200])


def report_run(*, report_id: int) -> Report:
    """Run the report unless it is done already; return it. Takes the report's row lock to start."""
    with transaction.atomic():
        report = Report.objects.select_for_update().get(pk=report_id)
        if report.status == Report.Status.DONE:
            return report
        report.status, report.progress, report.stage, report.error = Report.Status.RUNNING, 0, "Starting", ""
        report.attempts += 1
        report.started_at, report.finished_at = timezone.now(), None
        report.save(
            update_fields=["status", "progress", "stage", "error", "attempts", "started_at", "finished_at"]
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


def _compute(report: Report) -> dict:
    progress = partial(report_progress, report.pk)
    if report.kind == Report.Kind.HOUSE_EDGE:
        return house_edge_report(params=report.params, progress=progress)
    if report.kind == Report.Kind.STATISTICS:
        return statistics_report(params=report.params, progress=progress, report=report)
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
    if kind == Report.Kind.STATISTICS:
        return len(result["flags"])
    return sum(1 for group in result["groups"] if group["flag"] or not group["balanced"])
