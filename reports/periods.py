"""Gaming days: the casino's business day, which closes in the early morning, not at midnight.

A gaming day D runs from D at the closing hour (setting REPORTS_GAMING_DAY_HOUR, 06:00 by default,
the hour the ledger anchors are written) in the casino's time zone (TIME_ZONE) to the same hour
the next day, so a hand settled at 02:00 counts for the day before.
"""

from __future__ import annotations

from datetime import date, datetime, time, timedelta

from django.conf import settings
from django.db.models import DateTimeField, ExpressionWrapper, F, Value
from django.db.models.functions import TruncDate
from django.utils import timezone

GAMING_DAY_HOUR = 6  # the gaming day closes at 06:00 local time


def closing_hour() -> int:
    return getattr(settings, "REPORTS_GAMING_DAY_HOUR", GAMING_DAY_HOUR)


def day_start(day: date) -> datetime:
    """When gaming day `day` begins, as an aware datetime."""
    return timezone.make_aware(datetime.combine(day, time(hour=closing_hour())))


def days_bounds(first: date, last: date) -> tuple[datetime, datetime]:
    """[start, end) of the gaming days `first` to `last`, both included."""
    return day_start(first), day_start(last + timedelta(days=1))


def gaming_day(moment: datetime) -> date:
    """The gaming day an instant belongs to."""
    return (timezone.localtime(moment) - timedelta(hours=closing_hour())).date()


def gaming_day_of(field: str) -> TruncDate:
    """SQL: the gaming day of the datetime column `field` (shift back by the hour, then the date)."""
    shifted = ExpressionWrapper(
        F(field) - Value(timedelta(hours=closing_hour())), output_field=DateTimeField()
    )
    return TruncDate(shifted, tzinfo=timezone.get_current_timezone())


def today() -> date:
    """The gaming day in progress."""
    return gaming_day(timezone.now())
