"""The house's time charge on pot games (the `time` collection; RULINGS.md "House revenue on pot
games"): each seated player pays `time_fee` units at the start of each `time_minutes` of seat time.

The engine collects nothing under `time`: these services charge it on the table's own actions,
never on a clock of their own. A period is charged at the first of these after it starts: the
sit-down (period 0, with the buy-in), each hand start (every seated player, before anyone is dealt
in) and the cash-out (the periods begun before the player leaves). Between hands nothing is in
play, so a charge never takes chips a hand has staked. A Celery beat is not used: it would need a
user of its own to book the charges, and a charge it took a minute late is no more exact than one
taken at the next deal, which the tablet announces (`time_charge_due`).

A player who cannot pay a period that has begun is not charged part of it: they cannot be dealt
in until they buy more chips (the hand start refuses, naming the seat, as it refuses a player
without the ante), and a charge still unpaid when they cash out is dropped, since a dealer cannot
take chips that are not there. Each charge is a `TimeCharge` row, one per (session, period) by a
unique constraint, with its own ledger transaction from the player to the table's rake account.
"""

from datetime import datetime, timedelta

from django.db.models import Max

from ledger.models import Account, Transaction
from ledger.seals import seal
from ledger.services import Line, accounts_get, ledger_post
from tables.games import IllegalAction
from tables.games.collection import TIME, CollectionOptions
from tables.games.rounds import PointsOptions
from tables.models import SeatSession, Table, TimeCharge

TIME_CHARGE = "time charge"


def table_collection(table: Table) -> CollectionOptions | None:
    """The table's collection as its game's engine reads it; None for a house-banked game, for a
    points game played for nothing (the house collects only when it is played for stakes), or for
    options the engine refuses (the hand start then says why, in the engine's words)."""
    try:
        rules = table.house_rules()
    except IllegalAction:
        return None
    if isinstance(rules, PointsOptions) and not rules.point_value:
        return None
    return rules if isinstance(rules, CollectionOptions) else None


def _time_rules(table: Table) -> CollectionOptions | None:
    rules = table_collection(table)
    return rules if rules is not None and rules.collection == TIME and rules.time_fee else None


def time_clock(table: Table) -> int | None:
    """The minutes of a period of seat time while the table collects on time, else None: what
    numbers the periods a seated player has begun, from the sit-down (`_periods_begun`)."""
    rules = _time_rules(table)
    return rules.time_minutes if rules is not None else None


def time_charges_post(*, table: Table, sessions: dict[int, SeatSession], by, now: datetime) -> dict[int, int]:
    """Charge every period of seat time of `sessions` (seat number to open session) that has begun
    by `now` and is not charged yet, oldest first, while the player's chips cover it. Returns the
    seats that owe a period they cannot pay, with what they owe. Nothing unless the table's
    collection is `time`. The caller holds the table's lock (docs/records.md lock order), so two
    workers never charge a period twice; the (session, period) constraint would refuse it anyway.
    """
    rules = _time_rules(table)
    if rules is None or not sessions:
        return {}
    charged = _last_periods(sessions.values())
    keys = {seat: (Account.Kind.PLAYER, session.pk) for seat, session in sessions.items()}
    accounts = accounts_get(table=table, keys=[*keys.values(), (Account.Kind.RAKE, None)])
    rake = accounts[Account.Kind.RAKE, None]
    owed = {}
    for seat, session in sorted(sessions.items()):
        begun = _periods_begun(session, rules.time_minutes, now)
        chips = accounts[keys[seat]].balance
        for period in range(charged.get(session.pk, -1) + 1, begun):
            if chips < rules.time_fee:
                owed[seat] = (begun - period) * rules.time_fee
                break
            _charge(table, session, period, rules, accounts[keys[seat]], rake, by, now)
            chips -= rules.time_fee
    return owed


def time_charge_due(*, table: Table, sessions: dict[int, SeatSession]) -> dict[int, datetime]:
    """When each seat's next time charge falls due (it may have already: it is then taken at the
    next deal); empty unless the table's collection is `time`."""
    rules = _time_rules(table)
    if rules is None:
        return {}
    charged = _last_periods(sessions.values())
    return {
        seat: _period_start(session, charged.get(session.pk, -1) + 1, rules.time_minutes)
        for seat, session in sessions.items()
    }


def _last_periods(sessions) -> dict[int, int]:
    rows = TimeCharge.objects.filter(session__in=list(sessions)).values("session")
    rows = rows.annotate(last=Max("period"))
    return {row["session"]: row["last"] for row in rows}


def _periods_begun(session: SeatSession, minutes: int, now: datetime) -> int:
    """Periods of seat time begun by `now`: the first begins at the sit-down."""
    return (now - session.started_at) // timedelta(minutes=minutes) + 1


def _period_start(session: SeatSession, period: int, minutes: int) -> datetime:
    return session.started_at + period * timedelta(minutes=minutes)


def _charge(table, session, period: int, rules, player: Account, rake: Account, by, now) -> None:
    fee = rules.time_fee
    transaction = ledger_post(
        lines=[Line(player, -fee, TIME_CHARGE), Line(rake, fee, TIME_CHARGE)],
        kind=Transaction.Kind.TIME_CHARGE,
        memo=f"{session.seat}: time charge, period {period + 1} ({rules.time_minutes} minutes)",
        by=by,
        table=table,
    )
    charge = TimeCharge.objects.create(
        session=session,
        period=period,
        amount=fee,
        due_at=_period_start(session, period, rules.time_minutes),
        transaction=transaction,
        at=now,
        by=by,
    )
    seal(charge, chain=transaction.chain, event="charged")  # under the chain lock the post took
