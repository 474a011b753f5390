"""Closing an investigation: a manager writes what was found."""

from django.db import transaction
from django.utils import timezone

from casino.errors import DomainError, NotAllowed
from reports.models import Investigation


def investigation_close(*, investigation: Investigation, findings: str, by) -> Investigation:
    """Close an open investigation with written findings. Locks the investigation's row.

    Only a supervisor (a pit manager or an administrator) closes one; auditors read them.
    """
    findings = (findings or "").strip()
    if not by.has_perm("tables.supervise_table"):
        raise NotAllowed("Only a pit manager closes an investigation.")
    if not findings:
        raise DomainError("Write what the investigation found before closing it.")
    with transaction.atomic():
        investigation = Investigation.objects.select_for_update().get(pk=investigation.pk)
        if investigation.status == Investigation.Status.CLOSED:
            raise DomainError("This investigation is already closed.")
        investigation.status = Investigation.Status.CLOSED
        investigation.findings = findings
        investigation.closed_by = by
        investigation.closed_at = timezone.now()
        investigation.save(update_fields=["status", "findings", "closed_by", "closed_at"])
    return investigation
