"""Incidents: what an auditor must see at a table, opened and sealed in one place
(`incident_open`), and the count variances the pit must answer for (issue 16, point 6; docs/count.md).

A count that differs from what the records expect by more than the casino's thresholds
(`reports.CountRules`: a written explanation above `explanation_over` units, a report to the regulator
above `regulator_over`) opens an `Incident`: a table's opening or closing count against its tray, and a
drop box's counted drop against its keyed buy-ins. A pit manager on shift in the table's pit
acknowledges it once, with written findings (`IncidentFinding`, sealed); until then the pit's count
page lists it.
"""

from functools import partial

from django.db import transaction
from django.db.models import QuerySet

from casino.errors import Conflict, DomainError, NotAllowed
from ledger.models import Chain
from ledger.seals import seal
from reports.models import CountRules
from tables.models import Incident, IncidentFinding, Table
from tables.selectors import at_tables_seen, user_can_supervise

from .idempotency import run_once

FINDINGS_MAX_LENGTH = 5000  # a page of writing; more is an attachment, not a finding


def incident_open(*, kind: str, table: Table, detail: str, by, device: str = "", chain: Chain | None = None,
                  key: str | None = None, **where) -> Incident:
    """Open an incident at `table` (`where`: its `shoe_id`, `hand_id` or `at`), sealed in the
    table's chain in the same database transaction: `chain` when the caller holds its lock
    already (a buy-in, after its post), else locked here. `key`, a refused request's idempotency
    key: its retry (the same key) finds the incident the first one opened, and opens none."""
    fields = {"kind": kind, "table": table, "detail": detail, "device": device, **where}
    with transaction.atomic(savepoint=False):  # the caller's transaction, or one of its own
        if key is None:
            incident, opened = Incident.objects.create(by=by, **fields), True
        else:
            incident, opened = Incident.objects.get_or_create(by=by, key=key, defaults=fields)
        if opened:
            seal(incident, table=table, chain=chain, event="opened")
    return incident


def count_rules_for(casino_id: int) -> CountRules:
    """The casino's count thresholds; the defaults when it has none saved."""
    return CountRules.objects.filter(casino_id=casino_id).first() or CountRules(casino_id=casino_id)


def count_variance_incident(
    *, table: Table, difference: int, what: str, by, device: str = ""
) -> Incident | None:
    """Open the incident a count `difference` (counted less expected, in units) calls for under the
    casino's thresholds, or None when it is within them. Called inside the count's transaction."""
    rules = count_rules_for(table.pit.casino_id)
    size = abs(difference)
    if size <= rules.explanation_over:
        return None
    if size > rules.regulator_over:
        kind, limit, then = Incident.Kind.COUNT_REGULATOR, rules.regulator_over, "report it to the regulator"
    else:
        kind, limit, then = Incident.Kind.COUNT_EXPLAIN, rules.explanation_over, "explain it in writing"
    detail = (
        f"{what}: {difference:+,} units against what the records expect, more than the casino's "
        f"{limit:,}. A pit manager must {then} and acknowledge it with the findings."
    )
    return incident_open(kind=kind, table=table, detail=detail, by=by, device=device)


def incidents_to_acknowledge(user) -> QuerySet[Incident]:
    """Count incidents at the tables `user` sees that no pit manager has acknowledged yet, oldest first."""
    waiting = Incident.objects.filter(kind__in=Incident.TO_ACKNOWLEDGE, finding__isnull=True)
    return at_tables_seen(waiting.select_related("table__pit", "by"), user).order_by("at", "pk")


def incident_acknowledge(
    *, incident: Incident, findings: str, by, device: str = "", key: str
) -> IncidentFinding:
    """A pit manager on shift in the table's pit acknowledges a count incident with written findings;
    once. Locks the table's row, then seals the findings in its chain."""
    findings = (findings or "").strip()
    request = {"op": "acknowledge", "incident": incident.pk, "findings": findings}
    work = partial(_acknowledge, incident.pk, findings, by, device)
    return IncidentFinding.objects.get(pk=run_once(key=key, request=request, by=by, work=work)["finding"])


def _acknowledge(incident_id: int, findings: str, by, device: str) -> dict:
    incident = Incident.objects.select_related("table__pit").get(pk=incident_id)
    table = Table.objects.select_for_update(no_key=True).get(pk=incident.table_id)
    if not user_can_supervise(by, table):
        raise NotAllowed(f"Only a pit manager on shift in {table}'s pit acknowledges its incidents.")
    if incident.kind not in Incident.TO_ACKNOWLEDGE:
        raise DomainError(f"A {incident.get_kind_display().lower()} is not acknowledged with findings.")
    if not findings:
        raise DomainError("Write what was found before acknowledging the incident.")
    if len(findings) > FINDINGS_MAX_LENGTH:
        raise DomainError(f"Findings have at most {FINDINGS_MAX_LENGTH:,} characters.")
    if IncidentFinding.objects.filter(incident=incident).exists():
        raise Conflict("This incident is already acknowledged.")
    finding = IncidentFinding.objects.create(incident=incident, findings=findings, by=by, device=device)
    seal(finding, table=table, event="acknowledged")
    return {"finding": finding.pk}
