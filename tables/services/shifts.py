"""Shifts: who is on duty where. A dealer deals at one table; a pit manager runs one pit."""

from django.db import transaction
from django.utils import timezone

from casino.errors import DomainError
from tables.models import Pit, Shift, Table


def shift_start(*, user, table: Table | None = None, pit: Pit | None = None, by) -> Shift:
    """Put `user` on duty at `table` or in `pit`, ending the shift they were on."""
    if (table is None) == (pit is None):
        raise DomainError("A shift is at one table (a dealer) or in one pit (a pit manager).")
    with transaction.atomic():
        now = timezone.now()
        Shift.objects.select_for_update(no_key=True).filter(user=user, ended_at=None).update(ended_at=now)
        return Shift.objects.create(user=user, table=table, pit=pit, started_at=now, started_by=by)


def shift_end(*, shift: Shift, by) -> Shift:
    """End a shift (once)."""
    with transaction.atomic():
        shift = Shift.objects.select_for_update(no_key=True).get(pk=shift.pk)
        if shift.ended_at is None:
            shift.ended_at = timezone.now()
            shift.save(update_fields=["ended_at"])
        return shift
