"""Who may read and who may change what at a table, through the API.

Reading: the tables `tables_visible_to` the user (their shift's tables; every
table for auditors). The viewsets look ids up only there (`get_queryset`, see
`tables.api.views.TableAPI`), so a record at a table the user does not see is
404, the same answer as an id that does not exist, before these checks run. (A
change first tries the record by id with these checks: whoever passes one sees
the table, so only a refused user is looked up among the tables seen.)
Changing: dealing there (`user_can_deal`), or, for the pit's approval queue,
supervising it (`user_can_supervise`); a user who sees the table but may not
change it is 403 with a sentence. The check runs before any service writes, so
a refused request writes nothing: before the service is called, or, for a
tablet's step of a hand and a hand's start (`TableAPI.stepped`), on the record
as the service's first round trip locks it, and the step rolls back.
"""

from rest_framework.permissions import SAFE_METHODS, BasePermission

from tables.models import SeatSession, Table
from tables.selectors import user_can_deal, user_can_supervise


def table_of(obj) -> Table:
    """The table a shoe, hand, seat session or approval request belongs to."""
    if isinstance(obj, Table):
        return obj
    if isinstance(obj, SeatSession):
        return obj.seat.table
    return obj.table


class DealsAtTheTable(BasePermission):
    """Read at a visible table (the only ones `get_queryset` finds); change only as its dealer (or
    its pit's manager) on shift."""

    def has_object_permission(self, request, view, obj) -> bool:
        table, user = table_of(obj), request.user
        if request.method in SAFE_METHODS or self.may_change(user, table):
            return True
        self.message = self.refusal(user, table)
        return False

    def may_change(self, user, table: Table) -> bool:
        return user_can_deal(user, table)

    def refusal(self, user, table: Table) -> str:
        if not user.has_perm("tables.deal_table"):
            return "Your role reads the tables; it cannot change anything at them."
        return f"You are not on shift at {table}: the pit puts you on a table before you deal there."


class SupervisesTheTable(DealsAtTheTable):
    """Read at a visible table; decide its requests only as a pit manager on shift in its pit."""

    def may_change(self, user, table: Table) -> bool:
        return user_can_supervise(user, table)

    def refusal(self, user, table: Table) -> str:
        return f"Only a pit manager on shift in {table.pit.name} may decide requests at {table}."


class ChangesTheSettings(DealsAtTheTable):
    """Read at a visible table; change its settings only as an administrator or a pit manager on
    shift in its pit (`tables.services.settings`)."""

    def may_change(self, user, table: Table) -> bool:
        return user.is_superuser or user_can_supervise(user, table)

    def refusal(self, user, table: Table) -> str:
        return f"Only a pit manager on shift in {table.pit.name} may change {table}'s settings."


class ReadsTheLedger(BasePermission):
    """Pit managers, auditors and administrators read the ledger; dealers do not."""

    message = "Only pit managers, auditors and administrators read the ledger."

    def has_permission(self, request, view) -> bool:
        return request.user.has_perm("ledger.view_transaction")
