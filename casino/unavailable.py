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


def database_down_answer(request, response, exc: BaseException):
    """Keep the 503 given for `request` (a Django request), for the middleware to stand by it."""
    # The log keeps what the answer does not show: which query failed and why.
    log.warning("database unavailable at %s", request.path, exc_info=exc)
    request.database_down = response
    response["Retry-After"] = str(RETRY_AFTER_SECONDS)
    return response


class DatabaseUnavailableMiddleware:
    """Pages: a view's database outage becomes a plain 503. Pages and the API alike: the 503
    stands on the way out.

    It sits just below SessionMiddleware because a signed-in request's session cannot be saved on
    a dead connection, and Django reads the session (on a dead connection: a new exception, a
    500) before it decides not to save it for a 5xx answer. So the session is left unsaved, and if
    a middleware below failed on the database after the 503 was given, the 503 is answered anyway.
    """

    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request):
        response = self.get_response(request)
        answer = getattr(request, "database_down", None)
        if answer is None:
            return response
        session = getattr(request, "session", None)
        if session is not None:
            session.modified = False
        return answer

    def process_exception(self, request, exception):
        if not is_database_down(exception):
            return None
        page = HttpResponse(DATABASE_DOWN, status=503, content_type="text/plain; charset=utf-8")
        return database_down_answer(request, page, exception)
