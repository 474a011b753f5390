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
    """The request is well formed, but the record it acts on has moved on: a stale screen or a
    racing tablet (the hand is past `expected_seq`), or the record already went through the step
    asked for, or past it (a request already decided, a player already cashed out, a box already
    counted, a hand already settled, a day already closed). The same request would have been taken
    a moment earlier; the client refreshes and decides again. A request the rules refuse whatever
    the moment (an illegal move, a bet off the limits, a seat someone else sits in) stays a
    `DomainError` (400). docs/api.md, "Errors"."""

    status = 409


class StaleScreen(Conflict):
    """The hand moved on past the step the sender's screen shows (`expected_seq`): the tablet
    answers it with its own "refresh" banner rather than the sentence."""


class NotAllowed(DomainError):
    """The user may not do this here."""

    status = 403
