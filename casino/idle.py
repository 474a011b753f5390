"""Idle tablets are signed out: a session's age (SESSION_COOKIE_AGE) counts from the last request
a person made.

Django's SESSION_SAVE_EVERY_REQUEST would renew the session on every request, but the tablet and
pit screens refresh themselves every few seconds (htmx `hx-trigger="every ..."`), so a tablet left
alone on a table page would never be idle. This middleware renews the session on every request
except those background refreshes, which by convention are URLs named "poll" or "..._poll"
(`tablet:table_poll`, `tablet:hand_poll`, `pit:poll`).
"""

POLL_NAME = "poll"


def is_background_poll(request) -> bool:
    match = getattr(request, "resolver_match", None)
    name = match.url_name if match is not None else None
    return bool(name) and (name == POLL_NAME or name.endswith(f"_{POLL_NAME}"))


class IdleSessionMiddleware:
    """Marks the session changed after each request a person made, so it is saved with a new expiry.

    Sits below SessionMiddleware, which saves a changed session on the way out.
    """

    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request):
        response = self.get_response(request)
        session = getattr(request, "session", None)
        if session is not None and not is_background_poll(request) and holds_data(session):
            session.modified = True
        return response


def holds_data(session) -> bool:
    """Whether there is a session to keep alive. Not `is_empty()`: that is False for any session
    cookie sent, even one naming no session, and saving it would store a new, empty session on every
    such request, refused ones included."""
    return bool(session.keys())
