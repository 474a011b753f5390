"""Player rating and dealer pace, from the recorded hands and the ledger rather than estimates.

Pure reads: each figure is an aggregate query, summed by the database.

A player is rated by name (`SeatSession.player_name`, matched without regard to case; an unrated
player has none), with the visits of every record merged into a player record of that name: a
merge keeps the duplicate's sessions as they were written, under its own name. Counted:

- time played: the time their seat sessions cover (a session still open runs to `now`; sessions at
  the same time, a Rocket player's second seat, count once), shown in hours and minutes
  (`hours_and_minutes`);
- hands: settled hands their sessions played (a voided hand was never played: its bets went back);
- total and average bet: what their seats wagered in those hands (the Rocket bet, the pot games'
  ante, Starboard's draw fees), read from the `bet` postings of their seat accounts; Pairs commits
  nothing;
- result: the net of every posting on their seat accounts that belongs to a hand, corrections
  included, so buy-ins and cash-outs are left out and a voided hand nets to nothing, and of the
  settlements of the Pairs games they lost by leaving (posted with the cash-out, in no hand).
  Positive: the player won;
- theoretical win: what the house expects to win from those bets, with one edge per hand's
  configuration (`hand_edges`): Rocket's exact edge for a hand dealt from a fresh shoe of the
  hand's decks under the `best` strategy (`rocket_edge`, the figure the house-edge report shows as
  exact); a pot game's the house's actual take in that hand (its rake postings) per unit bet, each
  player's share in proportion to their bet. The house banks no pot-game bet, so its take is all it
  expects; taking the recorded take rather than an expectation keeps it honest under every
  collection option. Time charges belong to no hand and are left out.

Both are kept to the tables the reader sees (the pit's page passes them): play elsewhere is
neither counted nor hinted at.

A dealer's pace covers their shifts at tables: hands finished (settled or voided) at the table
that started while their shift was the one on duty there (the shift started last), per hour on
shift, and voids per hundred of those hands.
"""

from dataclasses import dataclass
from datetime import datetime, timedelta
from decimal import Decimal

from django.db.models import (
    BigIntegerField,
    CharField,
    Count,
    DurationField,
    Exists,
    ExpressionWrapper,
    F,
    Func,
    OuterRef,
    Q,
    QuerySet,
    Sum,
    Value,
)
from django.db.models.functions import Cast, Coalesce
from django.utils import timezone

from casino.errors import DomainError
from ledger.models import Account, Posting, Transaction
from reports.selectors import with_shift
from tables.models import ApprovalRequest, Game, Hand, Player, SeatSession, Shift, Table
from tables.services.seating import SEATS_PER_GAME

CENTS = Decimal("0.01")  # averages and rates are shown to two places
SECONDS_PER_HOUR = 3600
SECONDS_PER_MINUTE = MINUTES_PER_HOUR = 60


@dataclass(frozen=True)
class PlayerRating:
    name: str
    sessions: int
    time_played: timedelta
    hands: int
    total_bet: int
    average_bet: Decimal
    result: int  # the player's net win in units: negative when the house won
    theoretical_win: Decimal  # what the house expects to win from these bets, in units

    @property
    def time_played_shown(self) -> str:
        return hours_and_minutes(self.time_played)


@dataclass(frozen=True)
class DealerPace:
    dealer: str
    time_on_shift: timedelta
    hands: int
    voids: int
    hands_per_hour: Decimal
    voids_per_hundred: Decimal

    @property
    def time_on_shift_shown(self) -> str:
        return hours_and_minutes(self.time_on_shift)


def hours_and_minutes(duration: timedelta) -> str:
    """A length of time as the floor reads a clock: "2 h 05 min", "45 min" (seconds dropped)."""
    hours, minutes = divmod(int(duration.total_seconds()) // SECONDS_PER_MINUTE, MINUTES_PER_HOUR)
    return f"{hours} h {minutes:02d} min" if hours else f"{minutes} min"


# Rocket's exact edge off a fresh shoe of 1 to 8 decks under the `best` strategy (DEFAULT_STRATEGY),
# as `rocket_exact.fresh_shoe` solves it: a solve takes 5 to 30 seconds, which the first rating page
# of every server process waited for. Checked against the solver in tests/tables/test_ratings.py.
ROCKET_EDGE = {
    1: Decimal("0.020959607200247754"),
    2: Decimal("0.02854702573563208"),
    3: Decimal("0.030913800450574506"),
    4: Decimal("0.032070329688061165"),
    5: Decimal("0.03275604998794181"),
    6: Decimal("0.03320986822022709"),
    7: Decimal("0.033532420244263325"),
    8: Decimal("0.03377346708737387"),
}


def rocket_edge(decks: int) -> Decimal:
    """Rocket's house edge per unit bet for a hand from a fresh shoe of `decks` decks under the
    `best` strategy: exact, the report's `TheoreticalEdge.fresh_edge` for the same configuration."""
    return ROCKET_EDGE[decks]


def player_rating(name: str, *, tables: QuerySet[Table] | None = None, now=None) -> PlayerRating:
    """The rating of the player called `name` over all their recorded play at `tables` (every
    table if None): a pit manager rates what was played in their pit, and a player nobody there
    has seen gets the same empty rating as a name never seated anywhere."""
    from tables.players import player_ids, whose  # it imports this module, through the rating slips

    name = name.strip()
    if not name:
        raise DomainError("An unrated player has no name to rate.")
    kept = Player.objects.filter(name__iexact=name, merged_into=None)
    sessions = whose(SeatSession.objects).filter(Q(player_name__iexact=name) | Q(whose__in=player_ids(*kept)))
    if tables is not None:
        sessions = sessions.filter(seat__table__in=tables)
    return sessions_rating(name, sessions, now=now)


def sessions_rating(name: str, sessions: QuerySet[SeatSession], *, now=None) -> PlayerRating:
    """The rating over `sessions` (a player record's visits: `tables.players.player_visits`)."""
    now = now or timezone.now()
    stays = list(sessions.values_list("started_at", "ended_at"))
    hands = hands_played(sessions)
    bets = bets_by_game(sessions, hands)
    total_bet = sum(bets.values())
    hand_count = hands.count()
    return PlayerRating(
        name=name,
        sessions=len(stays),
        time_played=time_covered(stays, now),
        hands=hand_count,
        total_bet=total_bet,
        average_bet=ratio(total_bet, hand_count),
        # as the hands and bets: settled hands only, and the Pairs games lost by leaving
        result=hands_result(sessions, hands) + net(game_forfeits(sessions)),
        theoretical_win=theoretical_win(sessions, hands),
    )


def time_covered(stays: list[tuple[datetime, datetime | None]], now) -> timedelta:
    """The time the (start, end) stays cover, each still open running to `now`; stays that overlap
    count once: a player holding two seats for an hour played an hour."""
    covered, reach = timedelta(0), None
    for start, end in sorted((start, end or now) for start, end in stays):
        start = start if reach is None else max(start, reach)
        covered += max(end - start, timedelta(0))
        reach = end if reach is None else max(reach, end)
    return covered


def theoretical_win(sessions: QuerySet[SeatSession], hands: QuerySet[Hand]) -> Decimal:
    """What the house expects to win from the bets `sessions` made in `hands`: each bet times its
    hand's edge (`hand_edges`)."""
    rows = (
        _seat_postings(sessions)
        .filter(transaction__kind=Transaction.Kind.BET, transaction__hand_id__in=hands.values("pk"))
        .values("transaction__hand_id")
        .annotate(bet=Sum("amount"))
    )
    bets = {row["transaction__hand_id"]: -row["bet"] for row in rows}
    edges = hand_edges(Hand.objects.filter(pk__in=bets))
    return sum((bet * edges[hand] for hand, bet in bets.items()), Decimal(0)).quantize(CENTS)


def hand_edges(hands: QuerySet[Hand]) -> dict[int, Decimal]:
    """The house edge per unit bet of each of `hands`, by its configuration: Rocket's exact
    fresh-shoe edge for its shoe's decks, a pot game's actual take over everything bet in it."""
    hands = hands.values("pk", "game", "shoe__decks")
    pots = [hand["pk"] for hand in hands if hand["game"] != Game.ROCKET]
    in_pots = Posting.objects.filter(transaction__hand_id__in=pots).values("transaction__hand_id")
    takes = dict(
        in_pots.filter(account__kind=Account.Kind.RAKE)
        .annotate(t=Sum("amount"))
        .values_list("transaction__hand_id", "t")
    )
    bet = in_pots.filter(account__kind=Account.Kind.PLAYER, transaction__kind=Transaction.Kind.BET)
    staked = dict(bet.annotate(b=Sum("amount")).values_list("transaction__hand_id", "b"))
    return {
        hand["pk"]: rocket_edge(hand["shoe__decks"])
        if hand["game"] == Game.ROCKET
        else Decimal(takes.get(hand["pk"], 0)) / -staked[hand["pk"]]
        for hand in hands
    }


def hands_played(sessions: QuerySet[SeatSession]) -> QuerySet[Hand]:
    """Settled hands in which one of `sessions` held a seat.

    A hand keeps {seat number: session id}; seat numbers are few (eight at most), so one
    condition per seat number keeps this a single query whatever the number of sessions.
    """
    ids = sessions.values("pk")
    seats = range(1, max(SEATS_PER_GAME.values()) + 1)
    aliases = {f"session_at_{n}": Cast(ObjectKey("sessions", str(n)), BigIntegerField()) for n in seats}
    played = Q()
    for alias in aliases:
        played |= Q(**{f"{alias}__in": ids})
    return Hand.objects.alias(**aliases).filter(played, status=Hand.Status.SETTLED)


class ObjectKey(Func):
    """The value at a key of a JSON object, as text.

    Django's key lookups read a key that looks like a number ("3") as a list index, and a hand's
    sessions are keyed by seat number, so the key is passed to the database as a string here.
    """

    output_field = CharField()

    def __init__(self, field: str, key: str):
        self.key = key
        super().__init__(F(field))

    def as_sql(self, compiler, connection, **extra_context):
        sql, params = compiler.compile(self.source_expressions[0])
        return f"({sql} ->> %s::text)", [*params, self.key]

    def as_sqlite(self, compiler, connection, **extra_context):
        sql, params = compiler.compile(self.source_expressions[0])
        return f"json_extract({sql}, %s)", [*params, f'$."{self.key}"']


def _seat_postings(sessions: QuerySet[SeatSession]) -> QuerySet[Posting]:
    return Posting.objects.filter(account__kind=Account.Kind.PLAYER, account__ref__in=sessions.values("pk"))


def bets_by_game(sessions: QuerySet[SeatSession], hands: QuerySet[Hand]) -> dict[str, int]:
    rows = (
        _seat_postings(sessions)
        .filter(transaction__kind=Transaction.Kind.BET, transaction__hand_id__in=hands.values("pk"))
        .values("transaction__table__game")
        .annotate(bet=Sum("amount"))
    )
    # A bet leaves the seat's account: its posting is negative.
    return {row["transaction__table__game"]: -row["bet"] for row in rows}


def hands_result(sessions: QuerySet[SeatSession], hands: QuerySet[Hand]) -> int:
    """The players' net over `hands` (`hands_played`: a bet on a hand still in play is no result)."""
    postings = _seat_postings(sessions).filter(transaction__hand_id__in=hands.values("pk"))
    net = postings.exclude(
        transaction__kind__in=[Transaction.Kind.BUY_IN, Transaction.Kind.CASH_OUT]
    ).aggregate(net=Sum("amount"))["net"]
    return net or 0


def game_forfeits(sessions: QuerySet[SeatSession]) -> QuerySet[Posting]:
    """The postings on `sessions`' seats of the games settled when a player left them (Pairs, a
    points game played for stakes): a settlement in no hand (`tables.services.hands.game_forfeit`),
    posted with the cash-out."""
    settlements = _seat_postings(sessions).filter(transaction__kind=Transaction.Kind.SETTLEMENT)
    return settlements.filter(transaction__hand_id=None)


def net(postings: QuerySet[Posting]) -> int:
    return postings.aggregate(net=Sum("amount"))["net"] or 0


def dealer_pace(dealer, *, tables: QuerySet[Table] | None = None, now=None) -> DealerPace:
    """Hands per hour and voids per hundred hands over `dealer`'s shifts at `tables` (at every
    table if None)."""
    now = now or timezone.now()
    shifts = Shift.objects.filter(user=dealer, table__isnull=False)
    if tables is not None:
        shifts = shifts.filter(table__in=tables)
    time = shifts.aggregate(time=Sum(_length("started_at", "ended_at", now)))["time"] or timedelta(0)
    # A hand is the dealer's whose shift was on duty at its table when it started: the reports' rule
    # (`with_shift`; with two on shift there, a relief dealer or a card-reading shoe's account, the
    # one started last, docs/pit.md "Shifts"), so a pace counts the hands the reports by dealer do.
    finished = Hand.objects.filter(status__in=[Hand.Status.SETTLED, Hand.Status.VOIDED])
    dealt = with_shift(finished).filter(shift_id__in=shifts.values("pk"))
    # A Pairs round closed undealt as a player left (`pairs_round_withdraw`) was neither dealt nor
    # voided at anyone's request: no dealer's void.
    asked = ApprovalRequest.objects.filter(hand=OuterRef("pk"), kind=ApprovalRequest.Kind.VOID)
    dealt = dealt.exclude(Q(status=Hand.Status.VOIDED) & ~Exists(asked))
    counts = dealt.aggregate(hands=Count("pk"), voids=Count("pk", filter=Q(status=Hand.Status.VOIDED)))
    return DealerPace(
        dealer=dealer.get_username(),
        time_on_shift=time,
        hands=counts["hands"],
        voids=counts["voids"],
        hands_per_hour=ratio(counts["hands"] * SECONDS_PER_HOUR, time.total_seconds()),
        voids_per_hundred=ratio(counts["voids"] * 100, counts["hands"]),
    )


def _length(start: str, end: str, now) -> ExpressionWrapper:
    """end - start, with a missing end (still going) taken as `now`."""
    return ExpressionWrapper(Coalesce(F(end), Value(now)) - F(start), output_field=DurationField())


def ratio(numerator, denominator) -> Decimal:
    if not denominator:
        return Decimal(0).quantize(CENTS)
    return (Decimal(numerator) / Decimal(str(denominator))).quantize(CENTS)
