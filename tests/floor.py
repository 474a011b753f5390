"""A table put on the test floor with the settings a test asks for, sealed in its own chain with
its accounts as `table_create` seals one (`ledger.seals`), so that a verification of the floor
finds nothing amiss.

Not through `table_create` itself: the tests' tables keep the default payout approval threshold
(1000 units) above what their hands can pay, which the service refuses for a new table, so that
no payout waits for the pit unless a test says so. The table is sealed as an auditor seals a
record older than its seal (docs/ledger.md, "Upgrading a database").
"""

from django.db import transaction

from ledger.models import Account
from ledger.seals import seal
from ledger.services import account_get
from tables.models import Table
from tables.services.settings import table_sealed_with_accounts


def new_table(**fields) -> Table:
    with transaction.atomic():  # the seal locks the table's chain: a transactional test has no other
        table = Table.objects.create(**fields)
        table_sealed_with_accounts(table)
    return table


def player_chips(table: Table, ref: int, label: str = "") -> Account:
    """The chips account of seat session `ref` at `table`, sealed in its chain as a sit-down seals
    the one it makes (`seat_open`), for tests that post to a player without seating one."""
    return _sealed(table, "player", ref, label)


def hand_wagers(table: Table, ref: int) -> Account:
    """The wagers account of hand `ref` at `table`, sealed in its chain as a hand's start seals the
    one it makes (`hand_start`), for tests that post to a hand's wagers without dealing one."""
    return _sealed(table, "wager", ref)


def _sealed(table: Table, kind: str, ref: int, label: str = "") -> Account:
    with transaction.atomic():
        account = account_get(kind=kind, table=table, ref=ref, label=label)
        seal(account, table=table, event="created")
    return account
