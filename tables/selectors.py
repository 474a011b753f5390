"""Reads across the floor: who may see and act at which table."""

from datetime import datetime

from django.contrib.auth.models import Permission
from django.db.models import Exists, OuterRef, Q, QuerySet, Subquery

from casino.compiled import Compiled
from casino.errors import NotAllowed
from tables.models import Casino, DropBox, Pit, RatingSlip, Shift, StaffCasino, Table


def open_shifts(user) -> QuerySet[Shift]:
    return Shift.objects.filter(user=user, ended_at=None)


def tables_visible_to(user) -> QuerySet[Table]:
    """Dealers see the tables they are on shift at; pit managers the tables of
    the pit they are on shift in; auditors and administrators every table (an auditor
    limited to one casino, that casino's tables). Off shift, floor staff see none."""
    tables = Table.objects.select_related("pit__casino").order_by("pit__name", "name")
    if sees_every_table(user):
        limit = casino_limit(user)
        return tables if limit is None else tables.filter(pit__casino_id=limit)
    shifts = open_shifts(user)
    return tables.filter(
        Q(pk__in=shifts.exclude(table=None).values("table"))
        | Q(pit__in=shifts.exclude(pit=None).values("pit"))
    )


def at_tables_seen(records: QuerySet, user, table: str = "table") -> QuerySet:
    """`records` (hands, shoes, seat sessions, counts, requests: `table` is the path to their
    table) kept to those at the tables `user` sees. Pages and the API look ids up here, so a
    record at a table the user does not see answers as one that does not exist (404)."""
    return records.filter(**{f"{table}__in": tables_visible_to(user)})


def rating_slips_seen(user) -> QuerySet:
    """The rating slips that ran at a table `user` sees (at any of their stretches)."""
    tables = tables_visible_to(user)
    return RatingSlip.objects.filter(events__session__seat__table__in=tables).distinct()


def sees_every_table(user) -> bool:
    """Auditors (who read everything) and superusers; floor staff see their shift's tables.
    An auditor may be limited to one casino (`casino_limit`): every table there."""
    if user.is_superuser:
        return True
    held = _table_roles_held(user)
    return "view_table" in held and "deal_table" not in held


# The permissions that say whether a user sees every table (`sees_every_table`).
TABLE_ROLES = ("view_table", "deal_table")


def _table_roles_held(user) -> set[str]:
    """Which of TABLE_ROLES (`tables.<codename>`) `user.has_perm` grants, in one query, or none
    when the user was read with `table_roles_annotated` (a device's token: `casino.tokens`).

    What the model backend answers (an active user's own permissions and their groups'), without
    loading every permission of the user in two queries first, as `has_perm` does on every request
    (a device's token brings a new user object each time). Read afresh on every request: a role
    taken away bites at once.
    """
    if not user.is_active:
        return set()
    if "table_roles" in user.__dict__:
        return user.table_roles
    held = Permission.objects.filter(_holding(user), content_type__app_label="tables")
    return set(held.filter(codename__in=TABLE_ROLES).values_list("codename", flat=True))


def _holding(user) -> Q:
    """Permissions `user` (a user, or an OuterRef to one) holds itself or through a group."""
    return Q(user=user) | Q(group__user=user)


def table_roles_annotated(rows: QuerySet, user_path: str) -> QuerySet:
    """`rows` with whether the user at `user_path` holds each of TABLE_ROLES (`holds_<codename>`)
    and the table or pit of their open shift (`shift_table`, `shift_pit`), in the same query:
    `table_roles_read` hands them to the user object."""
    shift = Shift.objects.filter(user=OuterRef(user_path), ended_at=None)  # one at most
    return rows.annotate(
        **{
            f"holds_{codename}": Exists(Permission.objects.filter(
                _holding(OuterRef(user_path)), content_type__app_label="tables", codename=codename
            ))
            for codename in TABLE_ROLES
        },
        shift_table=Subquery(shift.values("table_id")[:1]),
        shift_pit=Subquery(shift.values("pit_id")[:1]),
    )


def table_roles_read(row, user) -> None:
    """Keep on `user` the roles and the shift `table_roles_annotated` read with `row` (for
    `sees_every_table` and `user_can_deal`), as they were when this request began."""
    user.table_roles = {codename for codename in TABLE_ROLES if getattr(row, f"holds_{codename}")}
    user.shift_at = (row.shift_table, row.shift_pit)


def casino_limit(user) -> int | None:
    """The casino an auditor is held to (`StaffCasino`), or None: every casino. Superusers are
    never held (they could lift it themselves)."""
    if user.is_superuser or not user.is_authenticated:
        return None
    return StaffCasino.objects.filter(user=user).values_list("casino_id", flat=True).first()


def sees_everything(user) -> bool:
    """Whoever reads every casino: records that belong to no one casino (a report over several)
    are theirs alone."""
    return sees_every_table(user) and casino_limit(user) is None


def casinos_visible_to(user) -> QuerySet[Casino]:
    """The casinos whose casino-wide records (statistics, house edge of a whole casino, an
    investigation of a game, the cage's accounts) `user` reads: every casino for an auditor (the
    one they are limited to, if they are), the casino of each pit a pit manager is on shift in,
    none for a dealer or anyone off shift."""
    casinos = Casino.objects.order_by("name")
    if sees_every_table(user):
        limit = casino_limit(user)
        return casinos if limit is None else casinos.filter(pk=limit)
    return casinos.filter(pk__in=Pit.objects.filter(pk__in=supervised_pits(user)).values("casino"))


def in_casinos_seen(records: QuerySet, user, casino: str = "casino") -> QuerySet:
    """`records` (`casino` is the path to their casino) kept to those of the casinos `user` reads."""
    if sees_everything(user):
        return records
    return records.filter(**{f"{casino}__in": casinos_visible_to(user)})


def user_can_deal(user, table: Table) -> bool:
    """A dealer on shift at the table, or a pit manager on shift in its pit.

    For a user read with their roles and shift (`table_roles_read`: a device's token, on every
    change a tablet sends) that is answered from them, without a query."""
    if not user.is_active:
        return False
    if "shift_at" in user.__dict__:
        holds = user.is_superuser or "deal_table" in user.table_roles
        return holds and user.shift_at in ((table.pk, None), (None, table.pit_id))
    return DEALING[user.is_superuser].first(user.pk, table.pk, table.pit_id) is not None


def _dealing(superuser: bool) -> Compiled:
    """`user_can_deal`'s query, asked on every change a tablet sends: compiled once for
    superusers and once for everyone else (their permission is joined to the shift)."""
    return Compiled(
        lambda user, table, pit: _open_shifts_holding(user, "deal_table", superuser).filter(
            Q(table=table) | Q(pit_id=pit)
        )[:1]
    )


DEALING = {False: _dealing(False), True: _dealing(True)}


def check_deal(user, table: Table) -> None:
    """The refusal, for the tablet's and the pit's pages alike, of someone who may not deal here."""
    if not user_can_deal(user, table):
        raise NotAllowed(f"You may not deal at {table}: only its dealer on shift or the pit manager may.")


def user_can_supervise(user, table: Table) -> bool:
    """A pit manager on shift in the table's pit."""
    return table.pit_id in supervised_pits(user)


def supervised_pits(user) -> set[int]:
    """The pits `user` decides in: the pit of each open shift they hold as a pit manager."""
    shifts = _shifts_holding(user, "supervise_table", Q(pit__isnull=False))
    return set(shifts.values_list("pit_id", flat=True))


def _shifts_holding(user, codename: str, where: Q) -> QuerySet[Shift]:
    """`user`'s open shifts matching `where`, if they hold the permission `tables.<codename>`."""
    if not user.is_active:
        return Shift.objects.none()
    return _open_shifts_holding(user.pk, codename, user.is_superuser).filter(where)


def _open_shifts_holding(user_id: int, codename: str, superuser: bool) -> QuerySet[Shift]:
    """The active user `user_id`'s open shifts, if they hold the permission `tables.<codename>`.

    One query, asked on every change a tablet sends: the permission is what `user.has_perm` answers
    with the model backend (an active user's own permissions and their groups', every permission
    for a superuser), joined to the shift instead of loading all of the user's permissions first.
    """
    shifts = Shift.objects.filter(user_id=user_id, ended_at=None)
    if superuser:
        return shifts
    holding = Q()
    for path in ("user__user_permissions", "user__groups__permissions"):
        holding |= Q(**{f"{path}__codename": codename, f"{path}__content_type__app_label": "tables"})
    return shifts.filter(holding)


def counted_drop(table_id: int, start: datetime, end: datetime) -> int | None:
    """The counted drop (the figure of record, RULINGS "Drop and count") of the table's drop boxes
    attached in [start, end): their accepted counts summed, 0 when there is no box; None while any
    of them is not yet counted, so a win report never uses a drop still in the count room."""
    boxes = DropBox.objects.filter(table_id=table_id, attached_at__gte=start, attached_at__lt=end)
    counts = list(boxes.values_list("counted__counted", flat=True))
    return None if None in counts else sum(counts)
