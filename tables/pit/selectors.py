"""The pit screens' reads of the floor, the ledger and the rules engine.

Each list costs a fixed number of queries however many tables the pit holds: the open hands are
replayed together from one query each of hands, cards, decisions and recycles, and the win/loss is
one aggregate over the ledger's postings. The words the pages show are `presenters`'.
"""

from collections import defaultdict
from datetime import datetime

from django.contrib.auth import get_user_model
from django.core.paginator import Page, Paginator
from django.db.models import Count, F, OuterRef, Q, QuerySet, Subquery, Sum

from ledger.models import Account, Posting, Transaction
from ledger.services import with_balances
from reports.periods import day_start, today
from reports.selectors import with_shift
from tables.games import IllegalAction
from tables.models import (
    ApprovalRequest,
    CardEvent,
    Decision,
    DropBox,
    Hand,
    Pit,
    Recycle,
    Shift,
    Slip,
    Table,
    TableCount,
)
from tables.review import game_forfeits
from tables.selectors import open_shifts, supervised_pits, tables_visible_to
from tables.services.engine import UNREVEALED, replay

HANDS_PER_PAGE = 25
# counts, fills and credits, incidents, anonymous players who left: the latest this many on a table's history
HISTORY_ROWS = 50
RECENT_DECISIONS = 20  # decided requests listed under the queue, so a manager sees what just happened
MONEY_ON_A_SLIP = (ApprovalRequest.Kind.FILL, ApprovalRequest.Kind.CREDIT)


def shift_began(user) -> datetime:
    """The start of the manager's pit shift; for an auditor, the start of the gaming day in progress
    (06:00, not midnight: at 01:00 the day's evening is still today's)."""
    shift = open_shifts(user).exclude(pit=None).order_by("-started_at").first()
    if shift is not None:
        return shift.started_at
    return day_start(today())


def pits_supervised_by(user) -> QuerySet[Pit]:
    """The pits `user` runs now (a pit manager's open shifts): the ones they may add a table to."""
    return Pit.objects.filter(pk__in=supervised_pits(user)).select_related("casino").order_by("name", "pk")


def pit_floor(user) -> dict:
    """Every table `user` watches, as plain values but each open hand's next step (the engine's
    `next`, or the IllegalAction its records raise): one query per column, whatever the table count."""
    since = shift_began(user)
    last_count = TableCount.objects.filter(table=OuterRef("pk")).order_by("-at", "-pk").values("kind")[:1]
    tables = list(tables_visible_to(user).annotate(last_count=Subquery(last_count)))
    ids = [table.pk for table in tables]
    dealers, hands = dealers_on_shift(ids), hands_in_progress(ids)
    started = per_table(Hand.objects.filter(table_id__in=ids, started_at__gte=since), "table", Count("pk"))
    trays = Account.objects.filter(table_id__in=ids, kind=Account.Kind.TRAY)
    trays = dict(trays.values_list("table", "balance"))
    results = house_results(ids, since)
    waiting = ApprovalRequest.objects.filter(table_id__in=ids, status=ApprovalRequest.Status.PENDING)
    pending = per_table(waiting, "table", Count("pk"))
    rows = [
        {
            "id": table.pk,
            "name": table.name,
            "pit": str(table.pit),
            "game": table.get_game_display(),
            # the same rule as table_is_open: open when the latest count is an opener
            "open": table.last_count == TableCount.Kind.OPENER,
            "dealers": dealers.get(table.pk, []),
            "hand": hands.get(table.pk),
            "hands": started.get(table.pk, 0),
            "tray": trays.get(table.pk, 0),
            "result": results.get(table.pk, 0),
            "pending": pending.get(table.pk, 0),
        }
        for table in tables
    ]
    return {"since": since, "tables": rows, "pending": sum(pending.values())}


def per_table(queryset, field: str, aggregate) -> dict[int, int]:
    return dict(queryset.values(field).annotate(total=aggregate).values_list(field, "total").order_by())


def house_results(table_ids: list[int], since: datetime) -> dict[int, int]:
    """Each table's win (positive) or loss for the house since `since`: the net of what hands'
    settlements (and corrections of them) moved into the tray and the rake. One query."""
    from_hands = Q(transaction__kind=Transaction.Kind.SETTLEMENT) | Q(
        transaction__kind=Transaction.Kind.CORRECTION, transaction__reverses__kind=Transaction.Kind.SETTLEMENT
    )
    postings = Posting.objects.filter(
        from_hands,
        account__table_id__in=table_ids,
        account__kind__in=[Account.Kind.TRAY, Account.Kind.RAKE],
        transaction__created_at__gte=since,
    )
    return per_table(postings, "account__table", Sum("amount"))


def dealers_on_shift(table_ids: list[int]) -> dict[int, list[str]]:
    shifts = Shift.objects.filter(table_id__in=table_ids, ended_at=None).order_by("started_at")
    dealers = defaultdict(list)
    for table_id, username in shifts.values_list("table", "user__username"):
        dealers[table_id].append(username)
    return dict(dealers)


def hands_in_progress(table_ids: list[int]) -> dict[int, dict]:
    """The open hand of each table with its next step, replayed from its records (four queries for
    every hand together, not four per hand), and the kind of request it waits for, if any."""
    hands = list(Hand.objects.filter(table_id__in=table_ids, status__in=Hand.OPEN).select_related("shoe"))
    events = defaultdict(list)
    cards = CardEvent.objects.as_dealt().filter(hand__in=hands).exclude(receiver=UNREVEALED)
    for event in [*cards, *Decision.objects.filter(hand__in=hands), *Recycle.objects.filter(hand__in=hands)]:
        events[event.hand_id].append(event)
    pending = dict(
        ApprovalRequest.objects.filter(hand__in=hands, status=ApprovalRequest.Status.PENDING)
        .values_list("hand", "kind")
        .order_by()
    )
    return {
        hand.table_id: {
            "id": hand.pk,
            "number": hand.number,
            "status": hand.status,
            "status_label": hand.get_status_display(),
            "due": next_step(hand, events[hand.pk]),
            "waiting_for": pending.get(hand.pk),
        }
        for hand in hands
    }


def next_step(hand: Hand, events: list):
    """What the hand waits for (the engine's `next`), or the IllegalAction its records raise."""
    try:
        return replay(hand, events).next
    except IllegalAction as error:
        return error


def table_history(table: Table, page_number) -> dict:
    """A table's hands (a page, newest first, each with its back-entry if it was dealt on paper,
    and the forfeit settlement of the game it ended if a player left it: `forfeit`), counts, fills
    and credits with their slips, incidents."""
    hands: Page = Paginator(
        table.hands.select_related("back_entry").order_by("-number"), HANDS_PER_PAGE
    ).get_page(page_number)
    forfeits = game_forfeits(table, hands)
    for hand in hands:
        hand.forfeit = forfeits.get(hand.number)
    moves = (
        table.approval_requests.filter(kind__in=MONEY_ON_A_SLIP)
        .select_related("requested_by", "decided_by")
        .prefetch_related("slips")
        .order_by("-requested_at", "-pk")[:HISTORY_ROWS]
    )
    return {
        "hands": hands,
        "counts": table.counts.select_related("slip").order_by("-at", "-pk")[:HISTORY_ROWS],
        "moves": list(moves),
        "incidents": table.incidents.select_related("by").order_by("-at", "-pk")[:HISTORY_ROWS],
    }


def approval_queue(user) -> dict:
    """Pending requests of the tables `user` watches, oldest first, each marked whether `user` may
    decide it, and the latest decided."""
    decides_in = supervised_pits(user)
    requests = (
        ApprovalRequest.objects.filter(table__in=tables_visible_to(user).values("pk"))
        .select_related("table", "hand", "requested_by", "decided_by", "transaction")
        .prefetch_related("slips")
    )
    pending = list(requests.filter(status=ApprovalRequest.Status.PENDING).order_by("requested_at", "pk"))
    for request in pending:
        request.mine = request.requested_by_id == user.pk
        request.may_decide = request.table.pit_id in decides_in and not request.mine
    decided = requests.exclude(status=ApprovalRequest.Status.PENDING).order_by("-decided_at", "-pk")
    return {"pending": pending, "decided": decided[:RECENT_DECISIONS]}


def slip_signatures(slip: Slip) -> QuerySet:
    return slip.signatures.select_related("user").order_by("at", "pk")


def dealers_seen_by(user) -> QuerySet:
    """Every dealer who dealt at a table `user` sees, by name."""
    tables = tables_visible_to(user)
    return get_user_model().objects.filter(shifts__table__in=tables).distinct().order_by("username")


# Shifts: the pit's rota


def shifts_visible_to(user) -> QuerySet[Shift]:
    """Shifts at the tables `user` sees and in the pits of those tables (every shift for an auditor)."""
    tables = tables_visible_to(user)
    pits = set(tables.values_list("pit", flat=True)) | supervised_pits(user)
    return Shift.objects.filter(Q(table__in=tables.values("pk")) | Q(pit__in=pits)).select_related(
        "user", "table__pit", "pit"
    )


def pit_rota(pit) -> dict:
    """A pit's tables, each with its dealers on shift; its managers on shift; and its dealers off a
    table (on a break, off since their last shift here, or never yet on shift). A fixed number of
    queries, whatever the pit holds."""
    tables = list(pit.tables.order_by("name"))
    on_shift = Shift.objects.filter(ended_at=None).select_related("user").order_by("started_at", "pk")
    dealing = defaultdict(list)
    for shift in on_shift.filter(table__pit=pit):
        dealing[shift.table_id].append(shift)
    return {
        "pit": pit,
        "tables": [{"table": table, "shifts": dealing.get(table.pk, [])} for table in tables],
        "managers": list(on_shift.filter(pit=pit)),
        "off": list(dealers_off_table(pit)),
    }


def dealers_off_table(pit) -> QuerySet:
    """Active dealers on no shift whose last shift was at a table of `pit`, or who never had one
    (a dealer belongs to no pit: a new one may be put on any), each with `last_reason` and
    `last_ended` of that last shift."""
    users = get_user_model().objects.filter(is_active=True, is_superuser=False)
    latest = Shift.objects.filter(user=OuterRef("pk")).order_by("-started_at", "-pk")
    return (
        users.filter(pk__in=users.filter(_holding("deal_table")).values("pk"))
        .exclude(pk__in=users.filter(_holding("supervise_table")).values("pk"))
        .exclude(pk__in=Shift.objects.filter(ended_at=None).values("user"))
        .annotate(
            last_pit=Subquery(latest.values("table__pit")[:1]),
            last_reason=Subquery(latest.values("ended_reason")[:1]),
            last_ended=Subquery(latest.values("ended_at")[:1]),
        )
        .filter(Q(last_pit=pit.pk) | Q(last_pit__isnull=True))
        .order_by("username")
    )


def _holding(codename: str) -> Q:
    """Users holding the permission `tables.<codename>`, their own or through a group."""
    return Q(user_permissions__codename=codename, user_permissions__content_type__app_label="tables") | Q(
        groups__permissions__codename=codename, groups__permissions__content_type__app_label="tables"
    )


# The records the reports link to (tables.pit.records)


def shift_hands(shift: Shift) -> QuerySet[Hand]:
    """The hands the reports count in a dealer's shift: those started at its table while it was
    the shift on duty there (`reports.selectors.with_shift`, the house-edge report's own rule, so
    a rotation or a relief dealer splits them as the report does). None for a pit manager's."""
    if shift.table_id is None:
        return Hand.objects.none()
    during = Hand.objects.filter(table_id=shift.table_id, started_at__gte=shift.started_at)
    if shift.ended_at is not None:
        during = during.filter(started_at__lt=shift.ended_at)
    return with_shift(during).filter(shift_id=shift.pk).order_by("number")


def shoe_record(shoe) -> dict:
    """A shoe's hands (those it dealt cards to, by number), its recycles and its incidents."""
    dealt_to = CardEvent.objects.filter(shoe=shoe).values("hand")
    return {
        "hands": Hand.objects.filter(pk__in=dealt_to).order_by("number"),
        "recycles": shoe.recycles.select_related("hand", "by").order_by("shoe_position"),
        "incidents": shoe.incidents.select_related("by").order_by("at", "pk"),
    }


def transaction_record(move: Transaction) -> dict:
    """A ledger transaction's postings with their accounts, its slips, and the correction that
    reversed it, if one did."""
    return {
        "postings": move.postings.select_related("account").order_by("pk"),
        "slips": move.slips.order_by("year", "serial"),
        "reversed_by": Transaction.objects.filter(reverses=move).first(),
    }


# The cage and the count variance (tables.pit.cage)

CAGE_OUT = (Transaction.Kind.OPENING, Transaction.Kind.FILL)  # the cage's chips to a tray
CAGE_BACK = (Transaction.Kind.CREDIT, Transaction.Kind.CLOSING)  # a tray's chips back to it


def cage_by_table(tables: QuerySet[Table], start: datetime, end: datetime) -> list[dict]:
    """Per table, what passed between it and the cage in [start, end): chips out (openers, fills),
    chips back (credits, closers), the counted drop, corrections of those, the net (the cage's side:
    what it gained); and the count variance of the drop boxes attached in the period (counted less
    keyed, negative when cash is missing, as on the drop page), `None` while a box is uncounted.

    Only the cage's and the variance's postings whose transaction names one of `tables`: the
    casino's cage balance, moved by every pit and by the cashier, is not a figure of these tables.
    Two aggregate queries, however many tables."""
    tables = list(tables)
    moves = defaultdict(dict)
    postings = Posting.objects.filter(
        account__kind=Account.Kind.CAGE,
        transaction__table__in=[table.pk for table in tables],
        transaction__created_at__gte=start,
        transaction__created_at__lt=end,
    )
    by_kind = postings.values_list("transaction__table", "transaction__kind").annotate(total=Sum("amount"))
    for table_id, kind, total in by_kind.order_by():
        moves[table_id][kind] = int(total)
    variances = _variances([table.pk for table in tables], start, end)
    return [_cage_row(table, moves[table.pk], variances.get(table.pk, (0, 0, 0))) for table in tables]


def _variances(table_ids: list[int], start: datetime, end: datetime) -> dict[int, tuple[int, int, int]]:
    """Per table: (boxes, boxes uncounted, counted less keyed) of the boxes attached in [start, end),
    the boxes whose drop is the period's (`tables.selectors.counted_drop`)."""
    boxes = DropBox.objects.filter(table_id__in=table_ids, attached_at__gte=start, attached_at__lt=end)
    rows = boxes.values("table").annotate(
        boxes=Count("pk"),
        uncounted=Count("pk", filter=Q(counted__isnull=True)),
        difference=Sum(F("counted__counted") - F("counted__expected")),
    )
    return {row["table"]: (row["boxes"], row["uncounted"], int(row["difference"] or 0)) for row in rows}


def _cage_row(table: Table, moves: dict[str, int], variance: tuple[int, int, int]) -> dict:
    boxes, uncounted, difference = variance
    out = -sum(moves.get(kind, 0) for kind in CAGE_OUT)
    back = sum(moves.get(kind, 0) for kind in CAGE_BACK)
    drop = moves.get(Transaction.Kind.DROP_COUNT, 0)
    return {
        "table": table,
        "out": out,
        "back": back,
        "drop": drop,
        "corrections": sum(moves.values()) - back + out - drop,
        "net": sum(moves.values()),
        "boxes": boxes,
        "uncounted": uncounted,
        "variance": None if uncounted else difference,
    }


def casino_balances(casinos: QuerySet) -> list[dict]:
    """Each casino's cage balance and count variance, all time (the auditor's: see tables.pit.cage).
    The variance account holds keyed less counted (docs/count.md); shown, as every box's difference,
    counted less keyed: negative when cash is missing."""
    kinds = (Account.Kind.CAGE, Account.Kind.VARIANCE)
    accounts = with_balances(Account.objects.filter(table=None, casino__in=casinos, kind__in=kinds))
    held = {(a.casino_id, a.kind): a.held for a in accounts}
    return [
        {
            "casino": casino,
            "cage": held.get((casino.pk, Account.Kind.CAGE), 0),
            "variance": -held.get((casino.pk, Account.Kind.VARIANCE), 0),
        }
        for casino in casinos
    ]
