"""Win by the formula (RULINGS, "Drop and count"), per table and gaming day, per shift, per casino.

    win = counted drop + closer - opener + credits - fills + collection

- **A table's gaming day** covers the table sessions (an opening count to the closing count
  after it) *opened* in that gaming day, whole, even one that closes after 06:00: its **opener**
  is the first of them's opening count, its **closer** the last one's closing count. Between two
  sessions of one day the chips stay in the tray (a count posts nothing), so a re-opened table's
  opener should equal the closer before it; a difference is a reconciliation finding, not win.
  Fills, credits (each net of its reversals), the keyed drop and the system win are those posted
  from the first opener to the last closer; the counted drop is that of the boxes opened in the
  gaming day (`counted_drop`).
- **A shift** (a dealer's `Shift` at a table) has no count at its edges (tables are counted when
  they open or close), so its opener and closer are the tray the ledger holds when it starts and
  ends; its drop is that of the boxes opened during it.
- **Collection**: what a pot game's house collected (rake, fee, time charges: RULINGS "House
  revenue on pot games"), net of corrections. It is kept in the table's rake account, never in
  the tray nor the drop box, so neither count sees it: without it a pot table's win by the
  formula was always 0 and its difference minus the whole rake. Rocket's house is the tray: 0.
- **Hold** (win-to-drop, "hold %" in table games) = win / counted drop.
- **System win**: the win from settlements and collection as the ledger has it: the tray's side of
  every transaction a hand caused (collected less paid) and everything posted to the rake. A
  shift's is that of its hands (started while it was on duty, whenever settled or corrected) and
  the collection of no hand posted during it (`_system_win`).
- **Difference** = win - system win, flagged when it exceeds the casino's `win_tolerance`.

While a table is still open, or its drop is not counted yet, its win is None (shown as "not
closed" or "not counted yet"), never the keyed drop's win: the keyed drop is shown as expected.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date, datetime

from django.db.models import Q, QuerySet, Sum
from django.utils import timezone

from ledger.models import Account, Posting, Transaction
from reports.models import VarianceRules
from reports.periods import days_bounds
from reports.selectors import with_shift
from reports.services.links import slip_url, table_url, transaction_url
from tables.models import Hand, Shift, Slip, Table, TableCount
from tables.pit.selectors import shift_hands
from tables.selectors import counted_drop

NOT_OPENED, OPEN, NOT_COUNTED, COUNTED = "not opened", "open", "not counted yet", "counted"
SHARED = "box shared with another shift"  # a shift's drop, when its table session outlasts the shift
FIGURES = ("opener", "closer", "fills", "credits", "collection", "expected_drop", "drop", "win", "system_win")


@dataclass(frozen=True)
class Window:
    """What one row covers: the tray's edges (a count, or the ledger's tray) and the drop's period."""

    table: Table
    start: datetime
    end: datetime | None  # None: still open
    opener: int
    closer: int | None
    opener_records: list[dict]
    closer_records: list[dict]
    drop_start: datetime
    drop_end: datetime
    drop_shared: bool = False  # the drop boxes were in play beyond the window: no drop of its own
    hands: QuerySet[Hand] | None = None  # a shift's hands (its system win is theirs); None: by time


def slip_number(slip: Slip) -> str:
    return f"slip {slip.number}"


def _clock(at: datetime) -> str:
    """Hour and minute in local time (`TIME_ZONE`), the time the gaming day is reckoned in."""
    return f"{timezone.localtime(at):%H:%M}"


def _count_record(count: TableCount) -> dict:
    return {
        "label": f"{count.get_kind_display()} {_clock(count.at)}, {slip_number(count.slip)}",
        "link": slip_url(count.slip_id),
    }


def day_window(table: Table, day: date) -> Window | None:
    """The table's sessions opened in gaming day `day`; None when it did not open that day."""
    start, end = days_bounds(day, day)
    counts = list(
        TableCount.objects.filter(table=table, at__gte=start).select_related("slip").order_by("at", "pk")
    )
    openers = [i for i, c in enumerate(counts) if c.kind == TableCount.Kind.OPENER and c.at < end]
    if not openers:
        return None
    first, last = counts[openers[0]], openers[-1]
    closer = counts[last + 1] if last + 1 < len(counts) else None
    return Window(
        table=table,
        start=first.at,
        end=closer.at if closer else None,
        opener=first.counted,
        closer=closer.counted if closer else None,
        opener_records=[_count_record(first)],
        closer_records=[_count_record(closer)] if closer else [],
        drop_start=start,
        drop_end=end,
    )


def shift_window(shift: Shift) -> Window:
    """A dealer's shift at a table: the ledger's tray at its start and end."""
    end = shift.ended_at
    return Window(
        table=shift.table,
        start=shift.started_at,
        end=end,
        opener=tray_at(shift.table, shift.started_at),
        closer=tray_at(shift.table, end) if end else None,
        opener_records=[],
        closer_records=[],
        drop_start=shift.started_at,
        drop_end=end or timezone.now(),
        drop_shared=end is not None
        and (not _sessions_within(shift.table, shift.started_at, end) or _dealt_beside(shift)),
        hands=shift_hands(shift),
    )


def _sessions_within(table: Table, start: datetime, end: datetime) -> bool:
    """Whether every table session (an opening count to the closing count after it) that overlaps
    [start, end] lies inside it. A drop box is in play for a whole session, one box for every dealer
    who deals in it: a shift that saw only part of a session has no counted drop of its own."""
    counts = list(TableCount.objects.filter(table=table).order_by("at", "pk").values_list("kind", "at"))
    for index, (kind, opened) in enumerate(counts):
        if kind != TableCount.Kind.OPENER:
            continue
        closed = counts[index + 1][1] if index + 1 < len(counts) else None
        overlaps = opened < end and (closed is None or closed > start)
        if overlaps and (opened < start or closed is None or closed > end):
            return False
    return True


def _dealt_beside(shift: Shift) -> bool:
    """Whether a hand started at the shift's table while it was on duty is another shift's: one on
    duty there too and started later (a relief dealer, a card-reading shoe's account). The tray at
    its edges then moved for that hand as well, which its system win leaves to the other shift: no
    win by the formula of its own."""
    during = Hand.objects.filter(
        table=shift.table_id, started_at__gte=shift.started_at, started_at__lt=shift.ended_at
    )
    return with_shift(during).exclude(shift_id=shift.pk).exists()


def tray_at(table: Table, moment: datetime) -> int:
    """The tray the ledger holds at `moment` (every posting up to it)."""
    postings = Posting.objects.filter(
        account__table=table, account__kind=Account.Kind.TRAY, transaction__created_at__lte=moment
    )
    return int(postings.aggregate(total=Sum("amount"))["total"] or 0)


def _between(window: Window, field: str = "transaction__created_at") -> Q:
    where = Q(**{f"{field}__gt": window.start})
    return where & Q(**{f"{field}__lte": window.end}) if window.end else where


def _moved(window: Window, kind: str) -> tuple[int, list[dict]]:
    """The tray's net movement by fills (or credits) and the slips behind it. A reversal counts
    at the time of the fill it reverses: a fill corrected after its day was closed changes that
    day (an adjustment, see `day_close`), not the day the correction was made."""
    moves = Q(_between(window), transaction__kind=kind) | Q(
        _between(window, "transaction__reverses__created_at"), transaction__reverses__kind=kind
    )
    postings = Posting.objects.filter(moves, account__table=window.table, account__kind=Account.Kind.TRAY)
    total = int(postings.aggregate(total=Sum("amount"))["total"] or 0)
    transactions = postings.values("transaction")
    slips = Slip.objects.filter(transaction__in=transactions).order_by("year", "table", "serial")
    records = [
        {"label": f"{slip_number(slip)}: {slip.amount:,}", "link": slip_url(slip.pk)}
        for slip in slips
    ]
    unslipped = (
        Transaction.objects.filter(pk__in=transactions).exclude(slips__isnull=False).order_by("created_at")
    )
    records += [
        {
            "label": f"{move.get_kind_display().lower()} {_clock(move.created_at)} (no slip)",
            "link": transaction_url(move.pk),
        }
        for move in unslipped
    ]
    return (total if kind == Transaction.Kind.FILL else -total), records


def _ledger(window: Window) -> dict[str, int]:
    """The keyed drop (buy-ins into the drop box), the house's collection (the rake account) and
    the system win, in the window."""
    postings = Posting.objects.filter(_between(window), account__table=window.table)
    sums = postings.aggregate(
        expected_drop=Sum(
            "amount",
            filter=Q(account__kind=Account.Kind.DROP) & ~Q(transaction__kind=Transaction.Kind.DROP_COUNT),
        ),
        rake=Sum("amount", filter=Q(account__kind=Account.Kind.RAKE)),
    )
    return {
        "expected_drop": int(sums["expected_drop"] or 0),
        "collection": int(sums["rake"] or 0),
        "system_win": _system_win(window),
    }


def _system_win(window: Window) -> int:
    """The tray's and the rake's side of every transaction a hand caused, and the collection of no
    hand (time charges). A table's day takes those posted in it. A shift takes its hands' (those
    started while it was on duty, docs/reports.md "Shifts and dealers"), whenever posted: a hand
    started before a rotation and settled after it is the first shift's in every report."""
    house = Posting.objects.filter(
        account__table=window.table, account__kind__in=[Account.Kind.TRAY, Account.Kind.RAKE]
    )
    no_hand = Q(_between(window), account__kind=Account.Kind.RAKE, transaction__hand_id__isnull=True)
    if window.hands is None:
        moved = house.filter(Q(_between(window), transaction__hand_id__isnull=False) | no_hand)
    else:
        moved = house.filter(Q(transaction__hand_id__in=window.hands.values("pk")) | no_hand)
    return int(moved.aggregate(total=Sum("amount"))["total"] or 0)


def window_figures(window: Window, rules: VarianceRules) -> dict:
    """Every figure of the formula for one window, with the records behind each and its status."""
    fills, fill_records = _moved(window, Transaction.Kind.FILL)
    credits, credit_records = _moved(window, Transaction.Kind.CREDIT)
    counts = window.end and not window.drop_shared
    drop = counted_drop(window.table.pk, window.drop_start, window.drop_end) if counts else None
    figures = {
        "opener": window.opener,
        "closer": window.closer,
        "fills": fills,
        "credits": credits,
        "drop": drop,
        **_ledger(window),
        "records": {
            "opener": window.opener_records,
            "closer": window.closer_records,
            "fills": fill_records,
            "credits": credit_records,
        },
    }
    if window.end is None:
        figures["status"] = OPEN
    else:
        figures["status"] = SHARED if window.drop_shared else NOT_COUNTED if drop is None else COUNTED
    return with_win(figures, rules)


def with_win(figures: dict, rules: VarianceRules) -> dict:
    """`figures` with win, hold, difference and flag worked out from the others."""
    counted = figures["status"] == COUNTED
    win = (
        figures["drop"]
        + figures["closer"]
        - figures["opener"]
        + figures["credits"]
        - figures["fills"]
        + figures["collection"]
        if counted
        else None
    )
    difference = None if win is None else win - figures["system_win"]
    return {
        **figures,
        "win": win,
        "hold": win / figures["drop"] if win is not None and figures["drop"] else None,
        "difference": difference,
        "flag": difference is not None and abs(difference) > rules.win_tolerance,
    }


def table_day(table: Table, day: date, rules: VarianceRules) -> dict:
    """One table's gaming day: its figures, or status NOT_OPENED and no figures."""
    base = {"table": table.pk, "name": table.name, "game": table.game, "link": table_url(table.pk)}
    window = day_window(table, day)
    if window is None:
        empty = {name: None for name in FIGURES}
        return {
            **base,
            **empty,
            "hold": None,
            "difference": None,
            "flag": False,
            "status": NOT_OPENED,
            "records": {},
        }
    return {**base, **window_figures(window, rules)}


def shift_figures(shift: Shift, rules: VarianceRules) -> dict:
    """A dealer's shift at a table, by the formula (tray edges from the ledger: see the docstring)."""
    base = {
        "shift": shift.pk,
        "table": shift.table_id,
        "name": shift.table.name,
        "dealer": shift.user.get_username(),
        "start": timezone.localtime(shift.started_at).isoformat(),  # the page shows its hour and minute
        "end": timezone.localtime(shift.ended_at).isoformat() if shift.ended_at else None,
    }
    return {**base, **window_figures(shift_window(shift), rules)}


def casino_day(rows: list[dict], rules: VarianceRules) -> dict:
    """The casino's total over its tables' rows: the win only once every opened table is counted."""
    opened = [row for row in rows if row["status"] != NOT_OPENED]
    summed = ("opener", "closer", "fills", "credits", "collection", "expected_drop", "drop", "system_win")
    total = {name: sum(row[name] or 0 for row in opened) for name in summed}
    waiting = [row for row in opened if row["status"] != COUNTED]
    if waiting:
        status = OPEN if any(row["status"] == OPEN for row in waiting) else NOT_COUNTED
    else:
        status = COUNTED if opened else NOT_OPENED
    if status != COUNTED:
        total["drop"] = None
    return {"name": "Casino", **with_win({**total, "status": status}, rules), "waiting": len(waiting)}


def casino_tables(casino_id: int):
    return Table.objects.filter(pit__casino_id=casino_id).select_related("pit").order_by("pit__name", "name")
