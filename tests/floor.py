"""A table put on the test floor with the settings a test asks for, sealed in its own chain as
`table_create` seals one (`ledger.seals`), so that a verification of the floor finds nothing amiss.

Not through `table_create` itself: the tests' tables keep the default payout approval threshold
(1000 units) above what their hands can pay, which the service refuses for a new table, so that
no payout waits for the pit unless a test says so. The table is sealed as an auditor seals a
record older than its seal (docs/ledger.md, "Upgrading a database").
"""

from django.db import transaction

from ledger.seals import seal
from tables.models import Table


def new_table(**fields) -> Table:
    with transaction.atomic():  # the seal locks the table's chain: a transactional test has no other
        table = Table.objects.create(**fields)
        seal(table, table=table, event="created")
    return table
