"""Domain errors: anything a member of staff did that the rules or the records refuse.

Each carries a sentence staff understand. Views and the API turn them into a
4xx response with that sentence; a service raises one before it writes anything.
"""


class DomainError(Exception):
    """Refused by the rules of the house; `message` says what was wrong."""

    status = 400

    def __init__(self, message: str):
        super().__init__(message)
        self.message = message


class Conflict(DomainError):
    """Someone else changed the record first (a stale screen or a racing tablet)."""

    status = 409


class NotAllowed(DomainError):
    """The user may not do this here."""

    status = 403
