"""The largest amounts the house records, so that every amount, and every sum of them a report or an
account makes, fits the database's 64-bit integers (a BigIntegerField holds up to 2**63 - 1, about
9.2 * 10**18).

- `MAX_AMOUNT` bounds one amount that staff type or a device sends: a buy-in, a fill or a credit, a
  table count (chips of each value times the value, summed), a cash-out corrected to the chips the
  player took. A bet is bounded tighter still, by its table's maximum (a 32-bit column).
- `MAX_BALANCE` bounds what one cached ledger account may hold: a fill that would take a tray past
  it is refused (`ledger_post`). The casino-wide accounts (the cage and the patrons, which run
  negative, and the count variance) keep no cached balance and are not locked by a post (issue 17);
  each of their lines is bounded by `MAX_AMOUNT`, so their sums fit for millions of the largest.

Room for sums: 2**63 / MAX_AMOUNT is about 9.2 million amounts of the largest size, and 2**63 /
MAX_BALANCE about 9,200 full accounts, before a sum could overflow. That matters on SQLite, whose
SUM() raises on overflow (PostgreSQL sums bigints as numeric). The services check these bounds, the
one place every path passes (the tablet, the pit, the API, a script); the forms and the API's
fields state them too, so a screen says so before anything is sent. See docs/records.md.
"""

from casino.errors import DomainError

MAX_AMOUNT = 10**12  # a trillion units: beyond any chip count or buy-in, far below 2**63
# The largest integer the database holds (64 bits), so the largest id: a larger one in a filter or a
# report's parameters would overflow the query (a 500), so it is refused (400) like any malformed value.
MAX_BIGINT = 2**63 - 1
MAX_BALANCE = 10**15  # a thousand of the largest amounts


def amount_check(amount: object, *, what: str, least: int = 1) -> int:
    """`amount` if it is a whole number of units from `least` to MAX_AMOUNT; else a DomainError (400)
    whose sentence begins with `what` ("A buy-in", "A fill")."""
    if isinstance(amount, bool) or not isinstance(amount, int) or not least <= amount <= MAX_AMOUNT:
        raise DomainError(
            f"{what} must be a whole number of units from {least:,} to {MAX_AMOUNT:,}, not {shown(amount)}."
        )
    return amount


def shown(value: object) -> str:
    """`value` as a sentence may quote it: a number too long to read is only said to be too large."""
    if isinstance(value, int) and not isinstance(value, bool) and abs(value) > MAX_BALANCE:
        return "a number that large"
    return repr(value)[:40]
