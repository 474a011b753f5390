"""The reports' reads: aggregate queries that leave the heavy work to the database.

Hands: each settled hand's money as its records hold it (`Hand.committed`: the bet or ante each
seat put up; `Hand.settlement["deltas"]`: each party's result, "house" for the house, "carry" for
odd units carried; `settlement["entries"]`: every line, pot lines included). A little SQL per
database reads those JSON fields inside the aggregate, so a million hands are summed by the
database in one pass, never loaded into Python.

Ledger: drop (cash into the drop box) and win (the system win: the tray's side of every transaction
a hand caused, and everything the rake account took) per table and gaming day, from the postings.
"""

from __future__ import annotations

from datetime import datetime

from django.db import connection
from django.db.models import (
    BigIntegerField,
    CharField,
    Count,
    F,
    Max,
    Min,
    OuterRef,
    Q,
    QuerySet,
    Subquery,
    Sum,
    Value,
)
from django.db.models.expressions import RawSQL
from django.db.models.fields.json import KT
from django.db.models.functions import Coalesce

from ledger.models import Account, Posting, Transaction
from reports.periods import gaming_day_of
from tables.models import Hand, Shift, Table
from tables.selectors import casinos_visible_to, in_casinos_seen, sees_everything, tables_visible_to

GROUPS = ("game", "table", "day", "dealer", "shift")

_HAND = '"tables_hand"'
# Per-hand figures as SQL, per database. Seat keys of the deltas are seat numbers (digits).
_SQL = {
    "sqlite": {
        "handle": f"(SELECT COALESCE(SUM(value), 0) FROM json_each({_HAND}.committed))",
        "bets": f"(SELECT COUNT(*) FROM json_each({_HAND}.committed))",
        "bets_sq": f"(SELECT COALESCE(SUM(value * value), 0) FROM json_each({_HAND}.committed))",
        "handle_sq": f"(SELECT COALESCE(SUM(value), 0) * COALESCE(SUM(value), 0) "
        f"FROM json_each({_HAND}.committed))",
        "win": f"COALESCE(json_extract({_HAND}.settlement, '$.deltas.house'), 0)",
        "carry": f"COALESCE(json_extract({_HAND}.settlement, '$.deltas.carry'), 0)",
        "players": f"(SELECT COALESCE(SUM(value), 0) FROM json_each({_HAND}.settlement, '$.deltas') "
        "WHERE key GLOB '[0-9]*')",
        "pot": f"(SELECT COALESCE(SUM(json_extract(value, '$[1]')), 0) "
        f"FROM json_each({_HAND}.settlement, '$.entries') "
        "WHERE json_extract(value, '$[0]') = 'pot' AND json_extract(value, '$[1]') > 0)",
    },
    "postgresql": {
        "handle": f"(SELECT COALESCE(SUM(value::bigint), 0) FROM jsonb_each_text({_HAND}.committed))",
        "bets": f"(SELECT COUNT(*) FROM jsonb_each_text({_HAND}.committed))",
        "bets_sq": f"(SELECT COALESCE(SUM(value::bigint * value::bigint), 0) "
        f"FROM jsonb_each_text({_HAND}.committed))",
        "handle_sq": f"(SELECT COALESCE(SUM(value::bigint), 0) * COALESCE(SUM(value::bigint), 0) "
        f"FROM jsonb_each_text({_HAND}.committed))",
        "win": f"COALESCE(({_HAND}.settlement -> 'deltas' ->> 'house')::bigint, 0)",
        "carry": f"COALESCE(({_HAND}.settlement -> 'deltas' ->> 'carry')::bigint, 0)",
        "players": f"(SELECT COALESCE(SUM(value::bigint), 0) "
        f"FROM jsonb_each_text({_HAND}.settlement -> 'deltas') WHERE key ~ '^[0-9]+$')",
        "pot": f"(SELECT COALESCE(SUM((e ->> 1)::bigint), 0) "
        f"FROM jsonb_array_elements({_HAND}.settlement -> 'entries') e "
        "WHERE e ->> 0 = 'pot' AND (e ->> 1)::bigint > 0)",
    },
}
FIGURES = tuple(_SQL["sqlite"])


def hand_sql(figure: str) -> RawSQL:
    """One per-hand figure (handle, bets, bets_sq, handle_sq, win, carry, players, pot) as SQL."""
    return RawSQL(_SQL[connection.vendor][figure], (), output_field=BigIntegerField())


def settled_hands(
    *,
    start: datetime,
    end: datetime,
    casino_id: int | None = None,
    table_ids: list[int] | None = None,
    game: str | None = None,
) -> QuerySet[Hand]:
    """Hands settled in [start, end) whose settlement stands, optionally of one casino, some
    tables, one game.

    A settled hand voided afterwards (docs/pit.md "Voiding a settled hand") is voided, not settled:
    left out by its status. A settlement a correction reversed before a hand's settlement could no
    longer be corrected alone is netted out by the ledger: that hand moved nothing, as a voided
    hand, so it is left out here too and every figure from the hands (win, handle, hands) agrees
    with the ledger's. A card corrected before
    the hand settled needs nothing: the hand settled as replayed with the corrected rank, so its
    settlement record is already the corrected one."""
    hands = Hand.objects.filter(status=Hand.Status.SETTLED, settled_at__gte=start, settled_at__lt=end)
    hands = hands.exclude(pk__in=_reversed_settlements())
    if casino_id:
        hands = hands.filter(table__pit__casino_id=casino_id)
    if table_ids:
        hands = hands.filter(table_id__in=table_ids)
    if game:
        hands = hands.filter(game=game)
    return hands


def _reversed_settlements() -> QuerySet:
    """The hands whose settlement a correction reversed (a few rows: the reversal's index finds them).
    Not a game's settlement when a player left it, which has no hand: a NULL would make NOT IN empty."""
    reversals = Transaction.objects.filter(reverses__kind=Transaction.Kind.SETTLEMENT, hand_id__isnull=False)
    return reversals.values("hand_id")


def _shift_of_hand(field: str) -> Subquery:
    """The shift (its `field`) on duty at the hand's table when the hand started."""
    shifts = (
        Shift.objects.filter(table=OuterRef("table"), started_at__lte=OuterRef("started_at"))
        .filter(Q(ended_at__isnull=True) | Q(ended_at__gt=OuterRef("started_at")))
        .order_by("-started_at")
        .values(field)[:1]
    )
    return Subquery(shifts)


def with_shift(hands: QuerySet[Hand]) -> QuerySet[Hand]:
    """Annotate each hand with the dealer's shift at its table (`shift_id`) and the dealer."""
    return hands.annotate(
        shift_id=_shift_of_hand("pk"),
        dealer_id=Coalesce(_shift_of_hand("user"), F("started_by"), output_field=BigIntegerField()),
    )


def _group_key(group: str):
    return {
        "game": F("game"),
        "table": F("table"),
        "day": gaming_day_of("settled_at"),
        "dealer": F("dealer_id"),
        "shift": F("shift_id"),
    }[group]


def hand_totals(hands: QuerySet[Hand], *, group: str) -> list[dict]:
    """Sums per group, gaming day and Rocket rules configuration, in one aggregate query.

    Each row: group_key, game, gaming_day, decks, start, burn, penetration, hands, handle, bets,
    bets_sq (sum of each bet squared), handle_sq (sum of each hand's handle squared), win, carry,
    players (the seats' results), pot, first and last settlement.
    """
    if group not in GROUPS:
        raise ValueError(f"Group by one of {', '.join(GROUPS)}, not {group!r}.")
    if group in ("dealer", "shift"):
        hands = with_shift(hands)
    keys = {
        "group_key": _group_key(group),
        "gaming_day": gaming_day_of("settled_at"),
        "decks": F("shoe__decks"),
        "start": Coalesce(KT("setup__options__start"), Value("left"), output_field=CharField()),
        "burn": F("shoe__burn"),
        "penetration": F("shoe__penetration"),
    }
    if connection.vendor == "postgresql":
        return [_ints(row) for row in _totals_postgresql(hands, keys)]
    rows = (
        hands.order_by()
        .values("game", **keys)
        .annotate(
            hands=Count("id"),
            **{figure: Sum(hand_sql(figure)) for figure in FIGURES},
            first=Min("settled_at"),
            last=Max("settled_at"),
        )
    )
    return [_ints(row) for row in rows]


# PostgreSQL reads each hand's JSON once: the selected hands (the ORM's query, with every filter and
# key) are wrapped in an aggregate whose LATERAL subquery walks `committed` a single time, where
# the portable form above needs one subquery per figure. The planner flattens the wrapping.
_POSTGRESQL_TOTALS = """
SELECT h.k_group_key AS group_key, h.k_game AS game, h.k_gaming_day AS gaming_day, h.k_decks AS decks,
       h.k_start AS start, h.k_burn AS burn, h.k_penetration AS penetration,
       COUNT(*) AS hands, SUM(c.handle) AS handle, SUM(c.bets) AS bets, SUM(c.bets_sq) AS bets_sq,
       SUM(c.handle * c.handle) AS handle_sq,
       SUM(COALESCE((h.k_settlement -> 'deltas' ->> 'house')::bigint, 0)) AS win,
       SUM(COALESCE((h.k_settlement -> 'deltas' ->> 'carry')::bigint, 0)) AS carry,
       SUM((SELECT COALESCE(SUM(value::bigint), 0) FROM jsonb_each_text(h.k_settlement -> 'deltas')
            WHERE key ~ '^[0-9]+$')) AS players,
       SUM((SELECT COALESCE(SUM((e ->> 1)::bigint), 0)
            FROM jsonb_array_elements(h.k_settlement -> 'entries') e
            WHERE e ->> 0 = 'pot' AND (e ->> 1)::bigint > 0)) AS pot,
       MIN(h.k_settled) AS first, MAX(h.k_settled) AS last
FROM ({hands}) h
CROSS JOIN LATERAL (SELECT COALESCE(SUM(v), 0) AS handle, COUNT(*) AS bets, COALESCE(SUM(v * v), 0) AS bets_sq
                    FROM (SELECT value::bigint AS v FROM jsonb_each_text(h.k_committed)) x) c
GROUP BY 1, 2, 3, 4, 5, 6, 7
"""


def _totals_postgresql(hands: QuerySet[Hand], keys: dict) -> list[dict]:
    selected = hands.order_by().values(
        k_game=F("game"),
        k_settled=F("settled_at"),
        k_committed=F("committed"),
        k_settlement=F("settlement"),
        **{f"k_{name}": expression for name, expression in keys.items()},
    )
    sql, params = selected.query.sql_with_params()
    with connection.cursor() as cursor:
        cursor.execute(_POSTGRESQL_TOTALS.format(hands=sql), params)
        columns = [column.name for column in cursor.description]
        return [dict(zip(columns, row, strict=True)) for row in cursor.fetchall()]


def _ints(row: dict) -> dict:
    # PostgreSQL sums bigints as numeric: whole units come back as Decimal.
    for figure in FIGURES:
        row[figure] = int(row[figure] or 0)
    return row


def ledger_daily(*, casino_id: int, start: datetime, end: datetime) -> list[dict]:
    """Drop, win and rake per table and gaming day from the ledger's postings, in one query.

    Drop: the net of the drop box's postings, less what went to the count room. Win: the system
    win, as the master game report's (`reports.services.win`): the tray's side of every transaction
    a hand caused and everything posted to the rake (a pot game's collection, time charges
    included: they belong to no hand), corrections included.
    """
    postings = Posting.objects.filter(
        account__casino_id=casino_id,
        account__kind__in=[Account.Kind.DROP, Account.Kind.TRAY, Account.Kind.RAKE],
        transaction__created_at__gte=start,
        transaction__created_at__lt=end,
    )
    house = Q(transaction__hand_id__isnull=False, account__kind=Account.Kind.TRAY) | Q(
        account__kind=Account.Kind.RAKE
    )
    rows = (
        postings.order_by()
        .values(table=F("account__table"), gaming_day=gaming_day_of("transaction__created_at"))
        .annotate(
            drop=Sum(
                "amount",
                filter=Q(account__kind=Account.Kind.DROP) & ~Q(transaction__kind=Transaction.Kind.DROP_COUNT),
            ),
            win=Sum("amount", filter=house),
            rake=Sum("amount", filter=Q(account__kind=Account.Kind.RAKE)),
        )
    )
    return [{**row, **{k: int(row[k] or 0) for k in ("drop", "win", "rake")}} for row in rows]


def reports_seen(reports: QuerySet, user) -> QuerySet:
    """Reports as `user` sees them, for the pages, the API and the admin alike: none without
    `reports.view_report` (dealers); every one for whoever reads every casino; otherwise those
    of a casino they read (`casinos_visible_to`: a pit manager's is the casino of the pit they are
    on shift in) whose tables, if it names any, are all tables they see. So a pit manager reads
    their casino's casino-wide reports and the reports of their own pit's tables; a report over
    a table of another pit, or over several casinos, is not theirs. An id they do not see answers
    404, as an id that does not exist."""
    if not user.has_perm("reports.view_report"):
        return reports.none()
    if sees_everything(user):
        return reports
    outside = Table.objects.exclude(pk__in=tables_visible_to(user).values("pk"))
    return reports.filter(casino__in=casinos_visible_to(user)).exclude(tables__in=outside)


def casino_records_seen(records: QuerySet, user, casino: str = "casino") -> QuerySet:
    """Casino-wide records read as reports are (casinos themselves with `casino="pk"`, their closed
    gaming days): none without `reports.view_report`; those of the casinos `user` reads."""
    if not user.has_perm("reports.view_report"):
        return records.none()
    return in_casinos_seen(records, user, casino)


def investigations_seen(investigations: QuerySet, user) -> QuerySet:
    """Investigations as `user` sees them: none without `reports.view_report`; every one for
    whoever reads every casino; otherwise those of the tables they see, and those of a game
    (no table: casino-wide) in a casino they read."""
    if not user.has_perm("reports.view_report"):
        return investigations.none()
    if sees_everything(user):
        return investigations
    return investigations.filter(
        Q(table__in=tables_visible_to(user)) | Q(table=None, casino__in=casinos_visible_to(user))
    )
