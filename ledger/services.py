"""The one way to move money: `ledger_post`, and `ledger_reverse` to correct a posting.

Every write checks first and writes after: a refused post raises `LedgerError` (a `DomainError`
with a sentence staff understand) and leaves the database as it was.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable
from dataclasses import dataclass
from typing import TYPE_CHECKING

from django.db import transaction as db_transaction
from django.db.models import OuterRef, QuerySet, Subquery, Sum
from django.db.models.functions import Coalesce

from casino.compiled import Compiled, insert_returning, inserts_sent, pipeline, save_field_each
from casino.errors import Conflict, DomainError
from casino.limits import MAX_BALANCE
from ledger.chain import chain_append, chain_lock, chain_name
from ledger.models import SEALED_KINDS, Account, Chain, Posting, Sealed, Transaction
from ledger.seals import seals
from tables.models import Casino, Table

if TYPE_CHECKING:
    from casino.models import User

Kind = Account.Kind

# Chips that are not there cannot be paid: a table's tray and carry, a player's chips, a hand's
# wagers and pot, and the rake never go below zero. The cage, the drop box and the patrons are
# counted against the outside world (cash, the opening bank), so they have no floor.
DEFAULT_FLOORS = {Kind.TRAY: 0, Kind.PLAYER: 0, Kind.WAGER: 0, Kind.POT: 0, Kind.CARRY: 0, Kind.RAKE: 0}
TABLE_KINDS = {Kind.TRAY, Kind.DROP, Kind.CARRY, Kind.RAKE, Kind.PLAYER, Kind.WAGER, Kind.POT}
REF_KINDS = {Kind.PLAYER, Kind.WAGER, Kind.POT}  # one account per seat session or per hand


@dataclass(frozen=True)
class Line:
    """One line of a transaction to post: `amount` units into (positive) or out of `account`."""

    account: Account
    amount: int
    reason: str


class LedgerError(DomainError):
    """The ledger refuses a post; nothing was written."""


class AlreadyReversed(LedgerError, Conflict):
    """The transaction was reversed already (409: a second approver was a moment late)."""


class OverdrawError(LedgerError):
    """A line would take an account below its floor (the tray short of chips, a bet too big)."""

    def __init__(self, message: str, *, account: Account, balance: int, wanted: int):
        super().__init__(message)
        self.account, self.balance, self.wanted = account, balance, wanted


def account_code(*, kind: str, casino: Casino | None = None, table: Table | None = None, ref=None) -> str:
    """The account's unique code: "t12:tray", "t12:player:345", "c1:cage"."""
    kind = Kind(kind)
    if kind in TABLE_KINDS:
        if table is None:
            raise ValueError(f"A {kind.label.lower()} account belongs to a table.")
        if (ref is None) == (kind in REF_KINDS):
            raise ValueError(f"A {kind.label.lower()} account {'needs' if ref is None else 'takes no'} ref.")
        return f"t{table.pk}:{kind}" + (f":{ref}" if ref is not None else "")
    if table is not None or ref is not None or casino is None:
        raise ValueError(f"The {kind.label.lower()} belongs to a casino, not to a table.")
    return f"c{casino.pk}:{kind}"


def account_get(*, kind: str, casino: Casino | None = None, table: Table | None = None, ref=None,
                label: str = "", at: Table | None = None) -> Account:
    """The account for `kind` at the table (or casino), created on first use with its floor.

    The casino is the table's when a table is given. Race-safe: the code is unique, and two first
    uses at once get one row (`_account_made`).
    `label` ("Seat 3") names a new account in error messages; an existing account keeps its own.
    `at`: the table whose step needs a casino's account (the patrons at a buy-in): made there on
    first use, it is sealed in that table's chain (`accounts_sealed`).
    """
    code = account_code(kind=kind, casino=casino, table=table, ref=ref)
    found = ACCOUNTS_BY_CODE.first(code)  # compiled: an account exists but the first time
    return found or _account_made(code, kind, casino=casino, table=table, ref=ref, label=label, at=at)


def _account_made(
    code: str, kind: str, *, casino: Casino | None = None, table: Table | None = None, ref=None,
    label: str = "", at: Table | None = None,
) -> Account:
    """The account `code`, created now unless a racing first use just did: the insert gives way
    to a row of the same code (`ON CONFLICT DO NOTHING`, waiting for a racing insert to commit or
    roll back), and the account is read as it then stands. Two statements, and no savepoint:
    nothing fails, so it may go in a `pipeline` too.

    A table's or the casino's account is sealed as made (`accounts_sealed`), two statements more,
    once an account: a table made before its accounts were made with it, a new casino. An account
    of a record (a seat session's chips) is sealed with the record by the service that makes it.
    Two racing first uses seal the same figures twice, which `verify_ledger` takes as one."""
    fields = _new_account(kind, casino=casino, table=table, ref=ref, label=label)
    Account.objects.bulk_create([Account(code=code, **fields)], ignore_conflicts=True)
    account = ACCOUNTS_BY_CODE.first(code)
    if kind in SEALED_KINDS - REF_KINDS:
        accounts_sealed([account], at=at)
    return account


ACCOUNT_MADE = "created"  # the event of an account's seal as it is made


def accounts_sealed(accounts: list[Account], *, at: Table | None = None,
                    records: Iterable[tuple[Sealed, str]] = ()) -> None:
    """Seal new accounts of one table, or of the casino, as they are made (`ledger.models.Account`),
    after `records` written with them (a new table), in one insert into one chain: the table's, or
    for the casino's accounts the chain of the table `at` whose step made them (the step holds or
    takes that chain anyway; a step taking both locks the casino's chain first, never after its
    table's), else the casino's. Takes the chain's lock through an object of its own: a caller
    that locked the chain before appends nothing more through its older object (`chain_append`),
    so a step reads the accounts it may make before it locks its chain (a settlement does)."""
    table_id = accounts[0].table_id or (at.pk if at is not None else None)
    where = {"table": Table(pk=table_id)} if table_id else {"casino": Casino(pk=accounts[0].casino_id)}
    with db_transaction.atomic(savepoint=False):  # a first use outside a transaction (a test, a shell)
        seals([*records, *((account, ACCOUNT_MADE) for account in accounts)], **where)


def account_opened(*, kind: str, table: Table, ref: int) -> Account:
    """The new account of a record this database transaction has just created (a hand's wagers):
    no one else knows the record yet, so no one else can make its account, and it is inserted
    without `account_get`'s read and savepoint."""
    code = account_code(kind=kind, table=table, ref=ref)
    account = Account(code=code, **_new_account(kind, table=table, ref=ref))
    insert_returning(account)  # the ORM's insert, less compiling it for every hand
    return account


def _new_account(kind: str, *, casino: Casino | None = None, table: Table | None = None, ref=None,
                 label: str = "") -> dict:
    """A new account's fields but its code: its casino, its floor (`DEFAULT_FLOORS`) and a cached
    balance of 0 unless it keeps none (`Account.cached`)."""
    floor = DEFAULT_FLOORS.get(Kind(kind))
    return {"kind": kind, "casino_id": _casino_id(table=table, casino=casino), "table": table, "ref": ref,
            "floor": floor, "label": label, "balance": 0 if table or floor is not None else None}


def table_accounts_made(table: Table) -> list[Account]:
    """The new table's own accounts (its tray, drop box, carry and rake), made with it so that its
    creation seals them (`accounts_sealed`); `account_get` finds them from then on. Nobody
    else knows the table yet: one insert and one read, as the database stored them."""
    codes = _codes(table, [(kind, None) for kind in sorted(TABLE_KINDS - REF_KINDS)])
    Account.objects.bulk_create([Account(code=code, **_new_account(kind, table=table))
                                 for code, (kind, _) in codes.items()])
    return sorted(ACCOUNTS_BY_CODE.all(*codes), key=lambda account: account.code)


AccountKey = tuple[str, int | None]  # (kind, ref) of a table's account


def accounts_get(*, table: Table, keys: Iterable[AccountKey]) -> dict[AccountKey, Account]:
    """The table's accounts for these (kind, ref) pairs, read in one query; one not there yet is
    created as `account_get` creates it."""
    codes = _codes(table, keys)
    found = {account.code: account for account in ACCOUNTS_BY_CODE.all(*codes)}
    return {
        (kind, ref): found.get(code) or _account_made(code, kind, table=table, ref=ref)
        for code, (kind, ref) in codes.items()
    }


def accounts_ahead(*, table: Table, keys: Iterable[AccountKey]) -> None:
    """Send `accounts_get`'s read of the same accounts ahead (`Compiled.ahead`): a step's first
    reads go with its first statement."""
    ACCOUNTS_BY_CODE.ahead(*_codes(table, keys))


def _codes(table: Table, keys: Iterable[AccountKey]) -> dict[str, AccountKey]:
    return {account_code(kind=kind, table=table, ref=ref): (kind, ref) for kind, ref in keys}


# Read on every hand's start and settlement, every buy-in and every `account_get`: compiled once per
# number of accounts.
ACCOUNTS_BY_CODE = Compiled(lambda *codes: Account.objects.filter(code__in=codes), str)
ACCOUNTS_LOCKED = Compiled(
    lambda *ids: Account.objects.select_for_update(no_key=True).filter(pk__in=ids).order_by("pk")
)


def with_balances(accounts: QuerySet[Account]) -> QuerySet[Account]:
    """The accounts with `held`: the cached balance, or for an account that keeps none (the cage,
    the patrons, the count variance) the sum of its postings, in the same query."""
    summed = Posting.objects.filter(account=OuterRef("pk")).values("account").annotate(total=Sum("amount"))
    return accounts.annotate(held=Coalesce("balance", Subquery(summed.values("total")), 0))


def account_balance(account: Account) -> int:
    """The account's balance derived from its postings (not the cached `balance`): the only figure
    of an account that keeps none (`Account.cached`)."""
    return Posting.objects.filter(account=account).aggregate(total=Coalesce(Sum("amount"), 0))["total"]


def ledger_post(*, lines: Iterable[Line], kind: str, memo: str, by: User, table: Table | None = None,
                casino: Casino | None = None, hand_id: int | None = None,
                reverses: Transaction | None = None, reason: str = "",
                approved_by: User | None = None, savepoint: bool = True,
                chain: Chain | None = None) -> Transaction:
    """Post one balanced transaction and return it.

    Checks the lines before touching the database (whole units, none zero, at least two, summing to
    zero, all of one casino), then, in one database transaction, takes these row locks with
    SELECT ... FOR UPDATE, held until the outermost transaction commits: first the chain's (the
    table's, or the casino's when there is no table), then the accounts' in id order. Every writer
    takes them in that order, so two posts never wait on each other in a cycle. The casino-wide
    accounts without a floor (the cage, the patrons, the count variance) are neither locked nor
    cached: nothing about them is checked, and locking them would make every table in the casino
    wait on one row (issue 17). Under the locks it
    refuses a line that would take an account below its floor (`OverdrawError`), inserts the
    postings, then the transaction (appended to the chain; the database checks the sum as it
    arrives), then updates the cached balances.

    Inside a caller's transaction the post runs in a savepoint, so that a refusal leaves that
    transaction usable. A caller whose transaction ends at any refusal (a step of a hand, under
    its key) passes `savepoint=False` and saves the savepoint's two round trips. A caller that
    holds the chain's lock already (`chain_lock` in this transaction, every record it appended since
    through that object) passes it as `chain`, and the post does not lock it again.
    """
    lines = list(lines)
    _check_lines(lines)
    if kind not in Transaction.Kind.values:
        raise ValueError(f"Unknown transaction kind {kind!r}.")
    casino_id = _casino_id(table=table, casino=casino)
    for line in lines:
        if line.account.casino_id != casino_id:
            raise LedgerError(f"{line.account.code} belongs to another casino; it cannot take part here.")
    with db_transaction.atomic(savepoint=savepoint):
        if chain is None:
            chain = chain_lock(table=table) if table is not None else chain_lock(casino=Casino(pk=casino_id))
        elif chain.name != chain_name(table=table, casino=None if table else Casino(pk=casino_id)):
            raise ValueError(f"Chain {chain.name} is not where this transaction is posted.")
        accounts = _lock_and_check_floors(lines, kind)
        txn = Transaction(
            kind=kind, memo=memo, casino_id=casino_id, table=table, hand_id=hand_id,
            created_by=by, reverses=reverses, reason=reason, approved_by=approved_by,
        )
        # Only writes in the pipeline (a chain created on first use refuses a racing insert inside
        # a savepoint, which a pipeline cannot roll back to): the postings go out together, the
        # cached balances with the chain's head.
        with pipeline():
            _write(txn, lines, chain, accounts)
    return txn


def _write(txn: Transaction, lines: list[Line], chain: Chain, accounts: list[Account]) -> None:
    """Postings first, the transaction row last: SQLite checks the sum when the transaction row
    arrives (it has no deferred triggers); PostgreSQL checks again at commit. The postings go in
    one statement and come back as stored (INSERT ... RETURNING), and the transaction's hash
    covers them as stored."""
    sent = inserts_sent([
        Posting(transaction_id=txn.pk, account_id=line.account.pk, amount=line.amount, reason=line.reason)
        for line in lines
    ])
    postings = txn.postings.all()  # not run: filtered as the related manager filters
    postings._result_cache, postings._prefetch_done = sent(), True
    txn._prefetched_objects_cache = {"postings": postings}  # as a prefetch would keep them
    chain_append(txn, chain)
    if accounts:  # one compiled UPDATE for them all (bulk_update's would be built afresh each time)
        save_field_each(accounts, "balance")


def ledger_reverse(
    *,
    transaction: Transaction,
    reason: str,
    by: User,
    approved_by: User | None,
    instead: Iterable[Line] = (),
) -> Transaction:
    """Correct `transaction` with a new CORRECTION that negates each of its postings and books the
    lines `instead` (what should have been posted; nothing by default) in the same transaction.

    The correction references the original, carries the reason and the approver, and goes to the
    original's chain. Refuses an empty reason, a missing approver, an approver who is the person
    asking, and a second reversal of the same transaction (checked under the chain lock, and by a
    unique constraint should two arrive at once). Floors hold: chips that have moved on since (a bet
    already settled) cannot be taken back this way; reverse the later transaction first.
    """
    reason = (reason or "").strip()
    if not reason:
        raise LedgerError("A correction needs a reason.")
    if approved_by is None:
        raise LedgerError("A correction needs the approval of a pit manager.")
    if approved_by.pk == by.pk:
        raise LedgerError("A correction must be approved by someone other than the person asking for it.")
    with db_transaction.atomic():
        Chain.objects.select_for_update(no_key=True).filter(pk=transaction.chain_id).get()
        if Transaction.objects.filter(reverses=transaction).exists():
            raise AlreadyReversed(f"Transaction {transaction.pk} has already been reversed.")
        postings = transaction.postings.select_related("account").order_by("id")
        return ledger_post(
            lines=[Line(account=p.account, amount=-p.amount, reason=p.reason) for p in postings] + [*instead],
            kind=Transaction.Kind.CORRECTION,
            memo=f"Reverses the {transaction.get_kind_display().lower()} {transaction.pk}"
            + (" and books it corrected" if instead else ""),
            by=by, table=transaction.table, casino=transaction.casino, hand_id=transaction.hand_id,
            reverses=transaction, reason=reason, approved_by=approved_by,
        )


def _check_lines(lines: list[Line]) -> None:
    for line in lines:
        if type(line.amount) is not int:  # bool is an int too, and a float is never money
            code = line.account.code
            raise LedgerError(f"Ledger amounts are whole units: {line.amount!r} on {code} is not.")
        if line.amount == 0:
            raise LedgerError(f"A line of 0 units on {line.account.code} moves nothing; leave it out.")
        if line.account.pk is None:
            raise ValueError("Ledger lines take saved accounts (see account_get).")
    if len(lines) < 2:
        raise LedgerError(
            "A ledger transaction needs at least two lines: chips come from somewhere and go somewhere."
        )
    total = sum(line.amount for line in lines)
    if total:
        raise LedgerError(f"A ledger transaction must balance: these lines sum to {total} units, not 0.")


def _casino_id(*, table: Table | None, casino: Casino | None) -> int:
    if table is None:
        if casino is None:
            raise ValueError("A transaction happens at a table or at a casino's cage: give one.")
        return casino.pk
    table_casino_id = table.pit.casino_id  # the pit is read once per table object, then cached on it
    if casino is not None and casino.pk != table_casino_id:
        raise ValueError(f"Table {table} is not in casino {casino}.")
    return table_casino_id


def _lock_and_check_floors(lines: list[Line], kind: str) -> list[Account]:
    """Lock the lines' cached accounts (`Account.cached`) in id order, check floors and the ceiling
    (MAX_BALANCE either way), and return them with new balances set.

    An uncached account has no floor, and no ceiling either: each line is bounded by MAX_AMOUNT,
    so its sum of postings fits 64 bits for millions of the largest amounts (casino/limits.py)."""
    deltas: dict[int, int] = defaultdict(int)
    for line in lines:
        if line.account.cached:
            deltas[line.account.pk] += line.amount
    accounts = ACCOUNTS_LOCKED.all(*deltas)
    by_id = {account.pk: account for account in accounts}
    # The first refusal in line order.
    for account_id in dict.fromkeys(line.account.pk for line in lines if line.account.pk in deltas):
        account, delta = by_id[account_id], deltas[account_id]
        if account.floor is not None and account.balance + delta < account.floor:
            message = _overdraw_message(account, kind, -delta)
            raise OverdrawError(message, account=account, balance=account.balance, wanted=-delta)
        if abs(account.balance + delta) > MAX_BALANCE:  # casino/limits.py: every sum still fits 64 bits
            raise LedgerError(
                f"{account.staff_name} holds {_units(account.balance)}; moving {_units(abs(delta))} would "
                f"take it past {MAX_BALANCE:,} units, more than any account may hold or owe."
            )
    for account in accounts:
        account.balance += deltas[account.pk]
    return accounts


def _units(n: int) -> str:
    return f"{n} unit" if n == 1 else f"{n} units"


def _overdraw_message(account: Account, kind: str, wanted: int) -> str:
    held = _units(account.balance)
    keeps = f" and must keep {_units(account.floor)}" if account.floor else ""
    if account.kind == Kind.TRAY:
        return f"The tray holds {held}{keeps}; it cannot pay {wanted}. Ask the pit for a fill."
    if account.kind == Kind.PLAYER:
        what = {Transaction.Kind.BET: "a bet of", Transaction.Kind.ANTE: "an ante of"}.get(kind, "paying")
        return f"{account.staff_name} has {held} in front{keeps}; {what} {wanted} is more than that."
    return f"{account.staff_name} holds {held}{keeps}; it cannot give {wanted}."
