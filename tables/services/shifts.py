"""Shifts: who is on duty where. A dealer deals at one table; a pit manager runs one pit.

The pit runs them: a pit manager on shift in a pit puts a dealer on a table of that pit
(`shift_start`), moves them to another of its tables (`shift_rotate`: the old shift ends and the new
one starts at the same moment, in one transaction), and sends them on a break or home (`shift_end`).
A pit manager starts and ends their own shift in a pit, or a colleague on shift there does.

Every check runs before anything is written: a person is on one shift at a time (a move is a
rotation, never a second start), a shift never ends before it started nor starts before the
person's previous shift ended, and no time is more than a minute ahead of the server's clock. The
person's row is locked for the whole change, so two pages cannot both start them. Every start and
every end is written to the audit log with who made it.

A rotation may happen while the old table has a hand in play: the hand belongs to the table, and the
next dealer continues it (reports count a hand in the shift on duty when it started).
"""

from datetime import datetime, timedelta
from functools import partial

from django.contrib.auth import get_user_model
from django.db import transaction
from django.utils import timezone

from casino.audit import audit_record
from casino.errors import Conflict, DomainError, NotAllowed
from casino.models import AuditEvent
from ledger.seals import seal
from tables.models import Casino, Pit, Shift, Table
from tables.selectors import open_shifts, supervised_pits

from .idempotency import run_once

CLOCK_SKEW = timedelta(minutes=1)  # a tablet's clock may run this far ahead of the server's
ENDINGS = (Shift.Ended.BREAK, Shift.Ended.END)  # what `shift_end` records; a rotation is `shift_rotate`'s


class ShiftError(DomainError):
    """The shift change is refused."""


def shift_start(
    *, user, table: Table | None = None, pit: Pit | None = None, by, at: datetime | None = None, key=None
) -> Shift:
    """Put `user` on duty at `table` (a dealer) or in `pit` (a pit manager), from `at` (now).

    `key` is the idempotency key of a page's or the API's request; a script's own call (the demo
    seed, a management command, a test's floor) passes none and is simply one transaction.
    """
    request = {"op": "shift_start", "user": user.pk, "table": _pk(table), "pit": _pk(pit), "at": at}
    return _once(key, request, by, partial(_start, user.pk, table, pit, by, at))


def shift_rotate(*, shift: Shift, table: Table, by, at: datetime | None = None, key=None) -> Shift:
    """Move a dealer from their table to `table` of the same pit: `shift` ends ("rotated") and the
    new shift starts at the same moment. Returns the new shift."""
    request = {"op": "shift_rotate", "shift": shift.pk, "table": table.pk, "at": at}
    return _once(key, request, by, partial(_rotate, shift.pk, table, by, at))


def shift_end(
    *, shift: Shift, by, reason: str = Shift.Ended.END, at: datetime | None = None, key=None
) -> Shift:
    """End `shift` at `at` (now): a break, or the end of the shift. Returns the ended shift."""
    if reason not in ENDINGS:
        raise ShiftError("A shift ends for a break or at its end; a move to another table is a rotation.")
    request = {"op": "shift_end", "shift": shift.pk, "reason": reason, "at": at}
    return _once(key, request, by, partial(_end, shift.pk, by, reason, at))


def _once(key, request: dict, by, work) -> Shift:
    if key is None:
        with transaction.atomic():
            answer = work()
    else:
        answer = run_once(key=key, request=request, by=by, work=work)
    return Shift.objects.select_related("user", "table", "pit").get(pk=answer["shift"])


def _pk(obj) -> int | None:
    return None if obj is None else obj.pk


# The writes, each inside the transaction `_once` opened


def _start(user_id: int, table: Table | None, pit: Pit | None, by, at) -> dict:
    user = _lock_person(user_id)
    at = _when(at, "start")
    _check_place(user, table, pit)
    _check_in_charge(by, table.pit if table else pit, own=pit is not None and by.pk == user.pk)
    current = open_shifts(user).select_related("table", "pit").first()
    if current is not None:
        raise ShiftError(f"{user} is already on shift {_busy(by, current)}.")
    return {"shift": _begin(user, table, pit, by, at).pk}


def _rotate(shift_id: int, table: Table, by, at) -> dict:
    shift = _lock_shift(shift_id)
    at = _when(at, "rotation")
    if shift.table is None:
        raise ShiftError("Only a dealer's shift at a table is rotated; a pit manager's shift is ended.")
    if table.pk == shift.table_id:
        raise ShiftError(f"{shift.user} already deals at {table}: choose another table.")
    _check_place(shift.user, table, None)
    _check_in_charge(by, shift.table.pit)
    _check_in_charge(by, table.pit)
    _finish(shift, by, Shift.Ended.ROTATED, at)
    return {"shift": _begin(shift.user, table, None, by, at).pk}


def _end(shift_id: int, by, reason: str, at) -> dict:
    shift = _lock_shift(shift_id)
    at = _when(at, "end")
    own = shift.pit_id is not None and by.pk == shift.user_id
    _check_in_charge(by, shift.table.pit if shift.table else shift.pit, own=own)
    _finish(shift, by, reason, at)
    return {"shift": shift.pk}


def _lock_person(user_id: int):
    # One lock per person: whoever changes their shifts waits for the other change to commit.
    # no_key: rows that merely point at the person (their cards, hands) are not held up.
    return get_user_model().objects.select_for_update(no_key=True).get(pk=user_id)


def _lock_shift(shift_id: int) -> Shift:
    user_id = Shift.objects.values_list("user", flat=True).get(pk=shift_id)
    _lock_person(user_id)
    return Shift.objects.select_related("user", "table__pit", "pit").get(pk=shift_id)


def _begin(user, table: Table | None, pit: Pit | None, by, at: datetime) -> Shift:
    last = user.shifts.exclude(ended_at=None).order_by("-ended_at").first()
    if last is not None and last.ended_at > at:
        raise ShiftError(
            f"{user}'s last shift ended at {_clock(last.ended_at)}: a new one cannot start before that."
        )
    shift = Shift.objects.create(user=user, table=table, pit=pit, started_at=at, started_by=by)
    _seal(shift, "started")
    shift_started_event(shift, by)
    return shift


def _finish(shift: Shift, by, reason: str, at: datetime) -> None:
    if shift.ended_at is not None:
        raise Conflict(f"{shift.user}'s shift at {_place(shift)} already ended at {_clock(shift.ended_at)}.")
    if at < shift.started_at:
        raise ShiftError(
            f"A shift cannot end before it started: {shift.user}'s began at {_clock(shift.started_at)}."
        )
    shift.ended_at, shift.ended_by, shift.ended_reason = at, by, reason
    shift.save(update_fields=["ended_at", "ended_by", "ended_reason"])
    _seal(shift, "ended")
    shift_ended_event(shift, by)


def _seal(shift: Shift, event: str) -> None:
    """A dealer's shift in its table's chain, a pit manager's in its casino's (pit shifts are rare:
    the casino's chain lock costs the cage nothing). The person's row is locked first, then the
    chain: nothing that holds a chain locks a person."""
    if shift.table_id is not None:
        seal(shift, table=shift.table, event=event)
    else:
        seal(shift, casino=Casino(pk=shift.pit.casino_id), event=event)


# Checks


def _when(at: datetime | None, what: str) -> datetime:
    now = timezone.now()
    if at is None:
        return now
    if timezone.is_naive(at):
        raise ShiftError(f"Give the {what}'s time with its time zone.")
    if at > now + CLOCK_SKEW:
        raise ShiftError(f"A shift's {what} cannot be in the future: {_clock(at)} is over a minute ahead.")
    return at


def _check_place(user, table: Table | None, pit: Pit | None) -> None:
    if (table is None) == (pit is None):
        raise ShiftError("A shift is at one table (a dealer) or in one pit (a pit manager).")
    if table is not None and not is_dealer(user):
        raise ShiftError(f"{user} is not a dealer: only dealers go on shift at a table.")
    if pit is not None and not is_pit_manager(user):
        raise ShiftError(f"{user} is not a pit manager: only pit managers go on shift in a pit.")


def _check_in_charge(by, pit: Pit, *, own: bool = False) -> None:
    """A pit manager on shift in `pit` changes its shifts; a pit manager starts and ends their
    `own` shift in a pit (how a pit's first manager comes on duty)."""
    if not own and pit.pk not in supervised_pits(by):
        raise NotAllowed("Only a pit manager on shift in that pit may change its shifts.")


def is_dealer(user) -> bool:
    """A dealer (or a device in the Dealer group), not a pit manager: pit managers run pits."""
    return user.has_perm("tables.deal_table") and not user.has_perm("tables.supervise_table")


def is_pit_manager(user) -> bool:
    return user.has_perm("tables.supervise_table")


# Words


def _place(shift: Shift) -> str:
    return str(shift.table or shift.pit)


def _busy(by, shift: Shift) -> str:
    """Where `shift` is and what to do about it, the place named only to someone who runs its pit:
    a refusal never names a table of a pit the user does not run."""
    pit_id = shift.table.pit_id if shift.table else shift.pit_id
    if pit_id not in supervised_pits(by):
        return "in another pit: that pit ends the shift first"
    move = "rotate them to another table, or end that shift first" if shift.table else "end it first"
    return f"at {_place(shift)}: {move}"


def _clock(at: datetime) -> str:
    """The time, and the day too unless it is today's: "00:00" alone misleads for a year ahead."""
    local = timezone.localtime(at)
    return f"{local:%H:%M}" if local.date() == timezone.localdate() else f"{local:%Y-%m-%d %H:%M}"


# The audit log: one writer per event


def shift_started_event(shift: Shift, by) -> AuditEvent:
    return audit_record(
        action=AuditEvent.Action.SHIFT_START,
        user=by,
        shift=shift.pk,
        person=shift.user.get_username(),
        table=shift.table_id,
        pit=shift.pit_id,
        at=shift.started_at.isoformat(),
    )


def shift_ended_event(shift: Shift, by) -> AuditEvent:
    return audit_record(
        action=AuditEvent.Action.SHIFT_END,
        user=by,
        shift=shift.pk,
        person=shift.user.get_username(),
        table=shift.table_id,
        pit=shift.pit_id,
        reason=shift.ended_reason,
        at=shift.ended_at.isoformat(),
    )
