"""Closing an investigation: a manager writes what was found."""

from functools import partial

from django.utils import timezone

from casino.errors import DomainError, NotAllowed
from reports.models import Investigation
from tables.services.idempotency import run_once


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
        raise DomainError("This investigation is already closed.")
    investigation.status = Investigation.Status.CLOSED
    investigation.findings = findings
    investigation.closed_by = by
    investigation.closed_at = timezone.now()
    investigation.save(update_fields=["status", "findings", "closed_by", "closed_at"])
    return {"investigation": investigation.pk}
