"""A database that cannot be reached answers 503, not a 500 with a stack page.

While PostgreSQL is down or restarting, every query raises `OperationalError` (or
`InterfaceError` on a connection already dropped). Nothing the request did is kept: its
transaction rolled back with the connection. The API's exception handler
(`tables.api.errors`) answers `{"detail": DATABASE_DOWN}`; `DatabaseUnavailableMiddleware`
answers pages the same way in plain text. Both say when to try again, and a tablet retrying a
change sends the same idempotency key, so a change whose commit did land before the connection
dropped is not done twice.
"""

import logging

from django.db import InterfaceError, OperationalError
from django.http import HttpResponse

log = logging.getLogger(__name__)

DATABASE_DOWN = "The database is unavailable; nothing was done. Try again."
RETRY_AFTER_SECONDS = 5  # a restart of PostgreSQL takes seconds


def is_database_down(exc: BaseException) -> bool:
    return isinstance(exc, OperationalError | InterfaceError)


def database_down_page() -> HttpResponse:
    response = HttpResponse(DATABASE_DOWN, status=503, content_type="text/plain; charset=utf-8")
    response["Retry-After"] = str(RETRY_AFTER_SECONDS)
    return response


class DatabaseUnavailableMiddleware:
    """Turns a view's database outage into a plain 503 page (the API has its own handler)."""

    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request):
        return self.get_response(request)

    def process_exception(self, request, exception):
        if not is_database_down(exception):
            return None
        # The log keeps what the page does not show: which query failed and why.
        log.warning("database unavailable at %s", request.path, exc_info=exception)
        return database_down_page()
