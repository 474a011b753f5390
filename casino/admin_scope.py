"""The admin site as an auditor limited to one casino sees it: that casino's rows and no other's.

Every ModelAdmin of the floor, the ledger and the reports has `CasinoScoped` and names the paths
from its rows to their casino (`casino_paths`); `get_queryset` keeps a limited auditor
(`tables.selectors.casino_limit`) to the rows of their casino, so the lists, their filters
(`RelatedOnlyFieldListFilter` offers only what the list holds), a record's page (any other id is
"not found", as one that does not exist) and the CSV export (`casino.admin_csv`, built on the same
list) all keep to it. Rows that belong to no casino are hidden from a limited auditor unless their
admin says they carry nothing of one (`casino_paths = None`: the theoretical edges): the audit
log, seals, hash chains and idempotency records name tables and figures of every casino. Everyone
else (administrators, auditors of every casino) sees every row.
"""

from django.db.models import Q, QuerySet

from tables.selectors import casino_limit


def within_limit(rows: QuerySet, user, casino_paths: tuple[str, ...] | None) -> QuerySet:
    """`rows` kept to the casino `user` is limited to: those reaching it by one of `casino_paths`
    (none if there is no path; all if the paths are None, rows that belong to no casino)."""
    limit = casino_limit(user)
    if limit is None or casino_paths is None:
        return rows
    where = Q()
    for path in casino_paths:
        where |= Q(**{path: limit})
    return rows.filter(where) if casino_paths else rows.none()


class CasinoScoped:
    """A ModelAdmin whose rows a limited auditor sees only for their casino. `casino_paths`: the
    ORM paths from a row to its casino's id (a shift reaches it by its table or by its pit)."""

    casino_paths: tuple[str, ...] | None = ()

    def get_queryset(self, request):
        return within_limit(super().get_queryset(request), request.user, self.casino_paths)
