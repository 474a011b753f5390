"""Every write of the reports app, as plain functions: asking for and running reports,
theoretical edges, par sheets, investigations, closing a gaming day and its later adjustments."""

from .day_close import gaming_day_adjust, gaming_day_close
from .investigations import investigation_close
from .par_sheet import par_sheet_compute, par_sheet_request, par_sheet_run
from .runs import ReportError, report_enqueue, report_params, report_request, report_run
from .theory import RocketConfig, theoretical_edge

__all__ = [
    "ReportError",
    "gaming_day_adjust",
    "gaming_day_close",
    "RocketConfig",
    "investigation_close",
    "par_sheet_compute",
    "par_sheet_request",
    "par_sheet_run",
    "report_enqueue",
    "report_params",
    "report_request",
    "report_run",
    "theoretical_edge",
]
