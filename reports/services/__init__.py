"""Every write of the reports app, as plain functions: asking for and running reports,
theoretical edges, investigations."""

from .investigations import investigation_close
from .runs import ReportError, report_enqueue, report_params, report_request, report_run
from .theory import RocketConfig, theoretical_edge

__all__ = [
    "ReportError",
    "RocketConfig",
    "investigation_close",
    "report_enqueue",
    "report_params",
    "report_request",
    "report_run",
    "theoretical_edge",
]
