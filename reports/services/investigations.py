"""Investigations: opened sealed, closed by a manager who writes what was found."""

from functools import partial

from django.utils import timezone

from casino.audit import audit_record
from casino.errors import Conflict, DomainError, NotAllowed
from casino.models import AuditEvent
from ledger.seals import seal
from reports.models import Investigation
from tables.services.idempotency import run_once


def investigation_seal(investigation: Investigation, *, event: str) -> None:
    """Seal the investigation's figures as they now are, in its table's chain (its casino's without
    a table), in the caller's transaction: as it is opened, and as it is closed."""
    if investigation.table_id is None:
        seal(investigation, casino=investigation.casino, event=event)
    else:
        seal(investigation, table=investigation.table, event=event)


def investigation_close(*, investigation: Investigation, findings: str, by, key: str) -> Investigation:
    """Close an open investigation with written findings, once per `key` (a form sent twice gets
    the first answer). Locks the investigation's row.

    Only a supervisor (a pit manager or an administrator) closes one; auditors read them.
    """
    findings = (findings or "").strip()
    request = {"op": "investigation_close", "investigation": investigation.pk, "findings": findings}
    work = partial(_close, investigation.pk, findings, by)
    return Investigation.objects.get(pk=run_once(key=key, request=request, by=by, work=work)["investigation"])


def _close(investigation_id: int, findings: str, by) -> dict:
    if not by.has_perm("tables.supervise_table"):
        raise NotAllowed("Only a pit manager closes an investigation.")
    if not findings:
        raise DomainError("Write what the investigation found before closing it.")
    investigation = Investigation.objects.select_for_update().get(pk=investigation_id)
    if investigation.status == Investigation.Status.CLOSED:
        raise Conflict("This investigation is already closed.")
    investigation.status = Investigation.Status.CLOSED
    investigation.findings = findings
    investigation.closed_by = by
    investigation.closed_at = timezone.now()
    investigation.save(update_fields=["status", "findings", "closed_by", "closed_at"])
    investigation_seal(investigation, event="closed")
    audit_record(
        action=AuditEvent.Action.INVESTIGATION_CLOSE,
        user=by,
        investigation=investigation.pk,
        table=investigation.table_id,
        findings=findings,
    )
    return {"investigation": investigation.pk}
