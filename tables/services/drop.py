"""Drop boxes and the soft count (RULINGS, "Drop and count"; docs/count.md).

A table's opening count attaches a numbered drop box (or the pit attaches the next one to an open
table, which removes the box it held: an exchange); every buy-in's cash goes to it, and the keyed
buy-ins posted to the table's drop account while it is attached are its expected drop. Once the
table's closing count is signed the box is removed (or at an exchange), then delivered to the count
room: custody records, each once and in that order. At the soft count two counters count it by
denomination, the second blind; counts that agree (every denomination) are accepted as the counted
drop, the figure of record, and counts that differ call for a recount: a new pair of counts, never
an edit.

The counted drop posts one DROP_COUNT transaction at the table: the keyed drop leaves the table's
drop account, the counted cash enters the cage, and any difference between them goes to the
casino's count-variance account, so the transaction sums to zero and the variance account holds
every shortage (positive) and overage (negative) the counts found. A difference beyond the casino's
thresholds (`reports.CountRules`) opens an investigation naming the box, and the incident the pit
acknowledges (`tables.services.incidents`).

Who: a pit manager on shift in the table's pit, for every step. Every write locks the table's row
first (docs/records.md), then seals its record in the table's chain.
"""

from datetime import datetime
from functools import partial

from django.db.models import Sum
from django.db.models.functions import Coalesce
from django.utils import timezone

from casino.errors import Conflict, DomainError, NotAllowed
from ledger.models import Account, Posting, Transaction
from ledger.seals import seal
from ledger.services import Line, account_get, ledger_post
from reports.models import Investigation
from reports.periods import gaming_day
from reports.services.investigations import investigation_seal
from tables.models import CountedDrop, DropBox, DropCount, DropCustody, Table, TableCount
from tables.selectors import user_can_supervise

from .counts import chip_total, table_is_open
from .idempotency import run_once
from .incidents import count_rules_for, count_variance_incident

Step = DropCustody.Step


def drop_box_attached(table: Table) -> DropBox | None:
    """The box at the table now: its latest, unless that one was removed."""
    box = table.drop_boxes.order_by("-number").first()
    if box is None or box.custody.filter(step=Step.REMOVED).exists():
        return None
    return box


def drop_box_attach_at_opening(*, opener: TableCount, by) -> DropBox | None:
    """The opening count's box: a new one, unless the table still holds one attached in the same
    gaming day (closed and opened again before its box was removed, which then holds both periods'
    cash). A box held from an earlier gaming day is exchanged at the opening's instant: a day's
    counted drop is that of the boxes attached in it, so one box must never carry two days' cash.
    Under the count's table lock."""
    held = drop_box_attached(opener.table)
    if held is not None and gaming_day(held.attached_at) == gaming_day(opener.at):
        return None
    if held is not None:
        _removed_at(held, by, opener.at)
    return _attach(opener.table, by, opener=opener, at=opener.at)


def drop_box_attach(*, table: Table, by, key: str) -> DropBox:
    """The pit attaches a new box to an open table: a box exchange, the box it held removed at the
    same instant (or a table opened before boxes were kept, which holds none)."""
    work = partial(_attach_asked, table.pk, by)
    return DropBox.objects.get(pk=run_once(key=key, request={"op": "drop_attach", "table": table.pk},
                                           by=by, work=work)["box"])


def drop_box_remove(*, box: DropBox, by, device: str = "", key: str) -> DropCustody:
    """The box leaves its table, once the table's closing count is signed."""
    return _custody(box, Step.REMOVED, by, device, key)


def drop_box_deliver(*, box: DropBox, by, device: str = "", key: str) -> DropCustody:
    """The removed box reaches the count room."""
    return _custody(box, Step.DELIVERED, by, device, key)


def drop_box_count(*, box: DropBox, denominations: dict, by, device: str = "", key: str) -> DropCount:
    """One counter's count of a delivered box: the first of a round, or the second, blind (it is
    never shown the first). The second that agrees with the first is accepted and posted; one that
    differs leaves the box to be recounted."""
    request = {"op": "drop_count", "box": box.pk, "denominations": denominations}
    work = partial(_count, box.pk, denominations, by, device)
    return DropCount.objects.get(pk=run_once(key=key, request=request, by=by, work=work)["count"])


def expected_drop(box: DropBox, until: datetime | None = None) -> int:
    """The keyed drop: the table's drop-account postings from the box's attaching to `until` (its
    removal; now if not given), the drop count's own excepted."""
    postings = Posting.objects.filter(
        account__table_id=box.table_id,
        account__kind=Account.Kind.DROP,
        transaction__created_at__gte=box.attached_at,
        transaction__created_at__lt=until or timezone.now(),
    ).exclude(transaction__kind=Transaction.Kind.DROP_COUNT)
    return postings.aggregate(total=Coalesce(Sum("amount"), 0))["total"]


def _attach(table: Table, by, *, opener: TableCount | None = None, at: datetime | None = None) -> DropBox:
    last = table.drop_boxes.order_by("-number").values_list("number", flat=True).first() or 0
    box = DropBox.objects.create(
        table=table, number=last + 1, opener=opener, attached_at=at or timezone.now(), attached_by=by
    )
    seal(box, table=table, event="attached")
    return box


def _attach_asked(table_id: int, by) -> dict:
    table = _lock_table(table_id, by)
    if not table_is_open(table):
        raise DomainError(f"{table} is closed: its opening count attaches its drop box.")
    at = timezone.now()  # one instant: the old box's period ends where the new one's starts
    if (held := drop_box_attached(table)) is not None:
        _removed_at(held, by, at)
    return {"box": _attach(table, by, at=at).pk}


def _removed_at(box: DropBox, by, at: datetime) -> None:
    """An exchange: `box` leaves its table at the instant the next box is attached, so every buy-in
    belongs to exactly one box."""
    removed = DropCustody.objects.create(box=box, step=Step.REMOVED, by=by, at=at)
    seal(removed, table=box.table, event=Step.REMOVED)


def _custody(box: DropBox, step: str, by, device: str, key: str) -> DropCustody:
    request = {"op": f"drop_{step}", "box": box.pk}
    work = partial(_custody_step, box.pk, step, by, device)
    return DropCustody.objects.get(pk=run_once(key=key, request=request, by=by, work=work)["custody"])


def _custody_step(box_id: int, step: str, by, device: str) -> dict:
    box = DropBox.objects.get(pk=box_id)
    table = _lock_table(box.table_id, by)
    done = set(box.custody.values_list("step", flat=True))
    if step in done:
        raise Conflict(f"{box} is already {Step(step).label.lower()}.")
    if step == Step.REMOVED and table_is_open(table) and drop_box_attached(table) == box:
        raise DomainError(
            f"{table} is open: close it with its closing count first, or attach its next box to "
            "exchange this one."
        )
    if step == Step.DELIVERED and Step.REMOVED not in done:
        raise DomainError(f"{box} is still at its table: it is removed before it is delivered.")
    custody = DropCustody.objects.create(box=box, step=step, by=by, device=device)
    seal(custody, table=table, event=step)
    return {"custody": custody.pk}


def _count(box_id: int, denominations: dict, by, device: str) -> dict:
    box = DropBox.objects.get(pk=box_id)
    table = _lock_table(box.table_id, by)
    total = chip_total(denominations)
    if not box.custody.filter(step=Step.DELIVERED).exists():
        raise DomainError(f"{box} has not been delivered to the count room: it is counted there.")
    if CountedDrop.objects.filter(box=box).exists():
        raise Conflict(f"{box} is already counted.")
    last = box.counts.order_by("-round", "-counter").first()
    if last is not None and last.counter == DropCount.Counter.FIRST:
        if last.by_id == by.pk:
            raise DomainError("You counted this box first: the second count is another counter's, blind.")
        where = {"round": last.round, "counter": DropCount.Counter.SECOND}
    else:
        where = {"round": last.round + 1 if last else 1, "counter": DropCount.Counter.FIRST}
    count = DropCount.objects.create(
        box=box, denominations=_notes(denominations), total=total, by=by, device=device, **where
    )
    seal(count, table=table, event="counted")
    if count.counter == DropCount.Counter.SECOND and count.denominations == last.denominations:
        _accept(box, count, by, device)
    return {"count": count.pk}


def _accept(box: DropBox, count: DropCount, by, device: str) -> CountedDrop:
    removed = box.custody.get(step=Step.REMOVED)
    expected = expected_drop(box, until=removed.at)
    counted = CountedDrop.objects.create(
        box=box,
        round=count.round,
        counted=count.total,
        expected=expected,
        transaction=_post_drop(box, count.total, expected, by),
    )
    seal(counted, table=box.table, event="accepted")
    what = f"{box}: counted {counted.counted:,} units against {expected:,} keyed"
    _investigate(box, counted, what)
    count_variance_incident(table=box.table, difference=counted.difference, what=what, by=by, device=device)
    return counted


def _post_drop(box: DropBox, counted: int, expected: int, by) -> Transaction | None:
    """The box's cash to the cage: the keyed drop out of the table's drop account, the counted cash
    into the cage, the difference to the count-variance account (a shortage positive). Nothing for
    an empty box that was expected empty."""
    table = box.table
    casino = table.pit.casino
    variance = account_get(kind=Account.Kind.VARIANCE, casino=casino, at=table)
    lines = [
        Line(account_get(kind=Account.Kind.DROP, table=table), -expected, "keyed drop"),
        Line(account_get(kind=Account.Kind.CAGE, casino=casino, at=table), counted, "counted drop"),
        Line(variance, expected - counted, "count variance"),
    ]
    lines = [line for line in lines if line.amount]
    if not lines:
        return None
    memo = f"{box}: counted drop {counted} units"
    return ledger_post(lines=lines, kind=Transaction.Kind.DROP_COUNT, memo=memo, by=by, table=table)


def _investigate(box: DropBox, counted: CountedDrop, what: str) -> Investigation | None:
    """An investigation when the counted drop is further from the keyed than the casino allows."""
    limit = count_rules_for(box.table.pit.casino_id).investigation_over
    if abs(counted.difference) <= limit:
        return None
    investigation = Investigation.objects.create(
        key=f"drop_count:box:{box.pk}",
        casino_id=box.table.pit.casino_id,
        table=box.table,
        game=box.table.game,
        rule=Investigation.Rule.DROP_COUNT,
        period_start=gaming_day(box.attached_at),
        period_end=gaming_day(counted.at),
        measured=counted.difference,
        limit=limit,
        detail=f"{what}: {counted.difference:+,} units, more than the casino's {limit:,}.",
    )
    investigation_seal(investigation, event="opened")
    return investigation


def _lock_table(table_id: int, by) -> Table:
    table = Table.objects.select_for_update(no_key=True).select_related("pit__casino").get(pk=table_id)
    if not user_can_supervise(by, table):
        raise NotAllowed(f"Only a pit manager on shift in {table}'s pit handles its drop boxes.")
    return table


def _notes(denominations: dict) -> dict[str, int]:
    """The count as kept and compared: value (as text, "20") to how many, the empty ones left out.
    Only after `chip_total` has accepted it."""
    return {str(int(value)): count for value, count in sorted(denominations.items(), key=_value) if count}


def _value(item) -> int:
    return int(item[0])
