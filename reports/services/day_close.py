"""Closing a casino's gaming day, and adjustments found after the close.

`gaming_day_close` freezes the day: a pit manager on shift in one of the casino's pits signs it
afresh with their password or PIN (as a slip is signed: lockout and failed signatures included),
once per casino and day, and only when every table that opened that day is closed and its drop
counted (the soft count comes before the close). The day's master game figures are stored in a
`GamingDayClose`, sealed in the casino's chain, and never change. Every check (the tables, the
day, a close already made) comes before the signature is verified, and the signature before
anything is written. The day in progress may be
closed once every table is closed (a casino that closes for the night); a day not yet begun may
not.

Anything found later for a closed day (a late fill slip, a count or a drop corrected...) is not an
edit: `gaming_day_adjust` recomputes the closed day from the records, compares it with the frozen
figures and the adjustments already made, and posts each table's difference as a `DayAdjustment`
dated into the next gaming day not closed, referencing the closed day. Closing a day first adjusts
the casino's closed days of the ADJUST_LOOKBACK_DAYS before it, so nothing found before a close
escapes the figures it freezes.

Lock order: the casino's chain (as the cage's records), then the rows written.
"""

from __future__ import annotations

from datetime import date, timedelta
from functools import partial

from casino.audit import audit_record
from casino.errors import Conflict, DomainError, NotAllowed
from casino.models import AuditEvent
from ledger.chain import chain_lock
from ledger.seals import seal
from reports.models import DayAdjustment, GamingDayClose
from reports.periods import gaming_day, today
from reports.services.master_game import adjustments_summary, master_game_figures
from reports.services.win import COUNTED, FIGURES, NOT_COUNTED, NOT_OPENED, OPEN
from tables.models import Casino, TableCount
from tables.selectors import supervised_pits
from tables.services.idempotency import run_once
from tables.services.slips import SignatureGiven, SignatureRefused, signature_failure_record, signature_verify

ADJUST_LOOKBACK_DAYS = 31  # closed days a close looks back over for late records
FINAL = (COUNTED, NOT_OPENED)  # a table's figures that will not change by themselves


def gaming_day_close(
    *, casino: Casino, day: date, by, signature: SignatureGiven, device: str = "", key: str
) -> GamingDayClose:
    """Close and sign `casino`'s gaming day `day`, freezing its master game figures (see above)."""
    request = {"op": "day_close", "casino": casino.pk, "day": day.isoformat(), "signer": signature.username}
    work = partial(_close, casino, day, by, signature, device)
    try:
        answer = run_once(key=key, request=request, by=by, work=work)
    except SignatureRefused as refusal:
        signature_failure_record(refusal, device)
        raise
    return GamingDayClose.objects.get(pk=answer["close"])


def _close(casino: Casino, day: date, by, signature: SignatureGiven, device: str) -> dict:
    check_may_close(by, casino)
    if day > today():
        raise DomainError(f"Gaming day {day} has not begun: only a day begun or past is closed.")
    _check_after_opening(casino, day)
    chain_lock(casino=casino)
    done = GamingDayClose.objects.filter(casino=casino, day=day).select_related("signed_by").first()
    if done is not None:
        raise Conflict(
            f"Gaming day {day} of {casino} was closed already, by {done.signed_by} "
            f"at {done.at:%Y-%m-%d %H:%M}."
        )
    figures = master_game_figures(casino.pk, day)
    _check_final(figures["tables"])
    signer, method = signature_verify(given=signature, device=device)
    if signer != by:
        raise SignatureRefused(
            "Sign the close yourself: it is signed by whoever closes the day.", signature.username
        )
    earlier = GamingDayClose.objects.filter(
        casino=casino, day__lt=day, day__gte=day - timedelta(ADJUST_LOOKBACK_DAYS)
    )
    for closed in earlier.order_by("day"):
        _adjust(closed, by)
    figures.update(adjustments_summary(casino.pk, day))  # what was just posted into this day
    close = GamingDayClose.objects.create(
        casino=casino, day=day, figures=figures, signed_by=signer, method=method, device=device
    )
    seal(close, casino=casino, event="closed")
    audit_record(
        action=AuditEvent.Action.DAY_CLOSE, user=by, device=device, casino=casino.pk, day=day.isoformat()
    )
    return {"close": close.pk}


def _check_after_opening(casino: Casino, day: date) -> None:
    """A close is sealed for ever: a day before the casino's first table opened has nothing to
    freeze, and its close (a mistyped year) could never be taken back."""
    counts = TableCount.objects.filter(table__pit__casino=casino)
    opened = counts.order_by("at").values_list("at", flat=True).first()
    if opened is None:
        raise DomainError(f"No table of {casino} has opened yet: there is no gaming day to close.")
    if day < gaming_day(opened):
        raise DomainError(
            f"Gaming day {day} of {casino} is before its first table opened (gaming day "
            f"{gaming_day(opened)}): there is nothing to close."
        )


def check_may_close(user, casino: Casino) -> None:
    """A pit manager on shift in one of the casino's pits (the pit page and the API ask first)."""
    if not casino.pits.filter(pk__in=supervised_pits(user)).exists():
        raise NotAllowed(f"Only a pit manager on shift in a pit of {casino} closes its gaming day.")


def _check_final(rows: list[dict]) -> None:
    still_open = [row["name"] for row in rows if row["status"] == OPEN]
    if still_open:
        raise DomainError(
            f"{', '.join(still_open)} still open: close each with its closing count before the day is closed."
        )
    uncounted = [row["name"] for row in rows if row["status"] == NOT_COUNTED]
    if uncounted:
        raise DomainError(
            f"The drop of {', '.join(uncounted)} is not counted yet: the soft count comes before the close."
        )


def gaming_day_adjust(*, casino: Casino, day: date, by, key: str) -> list[DayAdjustment]:
    """Post what changed in closed day `day` since its close (and its earlier adjustments) into the
    next open day, one adjustment per table; none when nothing changed, so running it again posts
    nothing more. Once per `key`, in one transaction: a refusal writes nothing (not even the
    casino's chain, made on its first use), and a retry gets the adjustments the first call made."""
    request = {"op": "day_adjust", "casino": casino.pk, "day": day.isoformat()}
    answer = run_once(key=key, request=request, by=by, work=partial(_adjust_day, casino, day, by))
    return list(DayAdjustment.objects.filter(pk__in=answer["adjustments"]).order_by("pk"))


def _adjust_day(casino: Casino, day: date, by) -> dict:
    check_may_close(by, casino)
    chain_lock(casino=casino)  # before the close is read: two adjusts of one day run one after the other
    close = GamingDayClose.objects.filter(casino=casino, day=day).first()
    if close is None:
        raise DomainError(f"Gaming day {day} of {casino} is not closed: its figures are still live.")
    return {"adjustments": [adjustment.pk for adjustment in _adjust(close, by)]}


def _adjust(close: GamingDayClose, by) -> list[DayAdjustment]:
    now = master_game_figures(close.casino_id, close.day)["tables"]
    frozen = {row["table"]: row for row in close.figures["tables"]}
    made = _adjusted(close)
    into = next_open_day(close.casino_id, close.day)
    adjustments = []
    for row in now:
        if row["status"] not in FINAL:  # not closed or counted yet: adjusted once it is
            continue
        before = frozen.get(row["table"], {})
        changes = {
            name: (row[name] or 0) - (before.get(name) or 0) - made.get(row["table"], {}).get(name, 0)
            for name in FIGURES
        }
        changes = {name: delta for name, delta in changes.items() if delta}
        if changes:
            adjustments.append(_post(close, row, changes, into, by))
    return adjustments


def _adjusted(close: GamingDayClose) -> dict[int, dict[str, int]]:
    """What the adjustments already made for the closed day add up to, per table and figure."""
    totals: dict[int, dict[str, int]] = {}
    for adjustment in close.adjustments.all():
        table = totals.setdefault(adjustment.table_id, {})
        for name, delta in adjustment.changes.items():
            table[name] = table.get(name, 0) + delta
    return totals


def _post(close: GamingDayClose, row: dict, changes: dict, into: date, by) -> DayAdjustment:
    words = ", ".join(f"{name} {delta:+,}" for name, delta in changes.items())
    adjustment = DayAdjustment.objects.create(
        casino_id=close.casino_id,
        closed=close,
        day=into,
        table_id=row["table"],
        changes=changes,
        memo=f"Found after the close of {close.day}: {words}"[:200],
        created_by=by,
    )
    seal(adjustment, casino=close.casino, event="adjusted")
    return adjustment


def next_open_day(casino_id: int, day: date) -> date:
    """The first gaming day after `day` that is not closed."""
    closed = set(
        GamingDayClose.objects.filter(casino_id=casino_id, day__gt=day).values_list("day", flat=True)
    )
    following = day + timedelta(days=1)
    while following in closed:
        following += timedelta(days=1)
    return following
