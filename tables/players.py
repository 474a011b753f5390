"""Reads about players: a record with every duplicate merged into it, who may see which players,
and a player's visits and cash.

A pit manager sees the players of the casinos of the pits they are on shift in, and of a player
only the visits (seat sessions) and cash at the tables they see; auditors see every player.
Dealers see no player pages: identification is never shown at the tablet.

Whose a seat session is: the player seated by card, or the one a pit manager identified the
anonymous player as after they sat down (`SeatSessionIdentified`). `whose` is the one answer every
read takes, for the sessions and for the records of one (cash-ins).
"""

from django.db.models import Q, QuerySet, Sum
from django.db.models.functions import Coalesce

from tables.models import CashIn, Player, RatingSlip, RatingSlipEvent, SeatSession, currency
from tables.selectors import at_tables_seen, in_casinos_seen, rating_slips_seen, supervised_pits
from tables.services.rating_slips import slip_figures


def player_ids(*players: Player) -> list[int]:
    """`players` and every record merged into them, directly or through another merge."""
    ids = [player.pk for player in players]
    frontier = list(ids)
    while frontier:
        frontier = list(Player.objects.filter(merged_into__in=frontier).values_list("pk", flat=True))
        ids += frontier
    return ids


def whose(rows: QuerySet, session: str = "") -> QuerySet:
    """`rows`, seat sessions (or records of one: `session` is the path to it, "session__"), each
    with `whose`: the id of the player whose session it is, seated by card or identified later (the
    record as written: compare it with `player_ids`, or resolve it), None for an anonymous one."""
    return rows.annotate(whose=Coalesce(f"{session}player", f"{session}identified__player"))


def played_by(rows: QuerySet, *players: Player, session: str = "") -> QuerySet:
    """`rows` (as `whose` takes them) of `players`' sessions, merged records' included."""
    return whose(rows, session).filter(whose__in=player_ids(*players))


def with_players(rows) -> list:
    """`rows` read with `whose`, as a list, each with `who`: the record kept of the player whose
    session it is (None for an anonymous one)."""
    rows = list(rows)
    players = Player.objects.select_related("merged_into").in_bulk({row.whose for row in rows} - {None})
    for row in rows:
        row.who = players[row.whose].resolved() if row.whose else None
    return rows


def supervised_casinos(user) -> set[int]:
    from tables.models import Pit

    return set(Pit.objects.filter(pk__in=supervised_pits(user)).values_list("casino_id", flat=True))


def user_can_supervise_casino(user, casino) -> bool:
    """A pit manager on shift in one of the casino's pits."""
    return casino.pk in supervised_casinos(user)


def players_visible_to(user) -> QuerySet[Player]:
    """The players of the casinos `user` reads: an auditor's (the one they are held to, if they are),
    a pit manager's on shift, none for a dealer."""
    players = Player.objects.select_related("casino", "merged_into").order_by("name", "pk")
    return in_casinos_seen(players, user)


def player_search(user, query: str) -> QuerySet[Player]:
    """Players `user` sees whose name contains `query` or who hold card `query`: a merged
    duplicate's card finds the record kept, as seating by that card does (`player_by_card`)."""
    query = query.strip()
    players = players_visible_to(user).filter(merged_into=None)
    if not query:
        return players.none()
    carded = {player.resolved().pk for player in players_visible_to(user).filter(card_number=query)}
    return players.filter(Q(name__icontains=query) | Q(pk__in=carded))[:50]


def player_visits(user, player: Player) -> QuerySet[SeatSession]:
    """`player`'s seat sessions (merged records' included) at the tables `user` sees."""
    return (
        at_tables_seen(played_by(SeatSession.objects, player), user, table="seat__table")
        .select_related("seat__table__pit")
        .order_by("-started_at")
    )


def player_slips(user, player: Player) -> list[dict]:
    """`player`'s rating slips (merged records' included) that ran at a table `user` sees, newest
    first: each with the table it is (or was last) at, its first and closing events (when, by whom)
    and its figures."""
    slips = (
        rating_slips_seen(user)
        .filter(player__in=player_ids(player))
        .prefetch_related("events__session__seat__table", "events__by")
        .order_by("-created_at", "-pk")
    )
    return [_slip_row(slip) for slip in slips]


def _slip_row(slip: RatingSlip) -> dict:
    events = list(slip.events.all())
    last = events[-1]
    return {
        "slip": slip,
        "table": last.session.seat.table,
        "started": events[0],
        "closed": last if last.kind == RatingSlipEvent.Kind.CLOSED else None,
        "state": last.get_kind_display(),
        "figures": slip_figures(slip),
    }


def player_cash_days(user, player: Player) -> list[dict]:
    """Cash in per gaming day (day, cents, currency) at the tables `user` sees, newest first."""
    cash = played_by(CashIn.objects, player, session="session__")
    rows = (
        at_tables_seen(cash, user, table="session__seat__table")
        .values("day")
        .annotate(cents=Sum("cents"))
        .order_by("-day")
    )
    return [{**row, "currency": currency(row["cents"])} for row in rows]


def cash_log(user, *, first, last, logged_only: bool) -> list[CashIn]:
    """Cash buy-ins of gaming days `first` to `last` at the tables `user` sees, each with `who`
    (`with_players`): the multiple-transaction log when `logged_only`."""
    rows = CashIn.objects.filter(day__range=(first, last))
    if logged_only:
        rows = rows.filter(logged=True)
    rows = at_tables_seen(whose(rows, "session__"), user, table="session__seat__table")
    return with_players(rows.select_related("session__seat__table", "by").order_by("day", "at", "pk"))


def cash_daily(user, *, first, last) -> list[dict]:
    """Cash in per player and gaming day across tables (a merged record counts as the one kept, an
    identified session as its player's; an unidentified player per seat session): day, player (or
    None), description, cents."""
    rows = whose(CashIn.objects.filter(day__range=(first, last)), "session__")
    rows = at_tables_seen(rows, user, table="session__seat__table")
    totals: dict[tuple, int] = {}
    players = {}
    for row in with_players(rows.order_by("day", "pk")):
        player = row.who
        if player is not None:
            players[player.pk] = player
        who = ("player", player.pk) if player else ("session", row.session_id, row.description)
        totals[(row.day, who)] = totals.get((row.day, who), 0) + row.cents
    return [
        {
            "day": day,
            "player": players[who[1]] if who[0] == "player" else None,
            "description": "" if who[0] == "player" else who[2],
            "cents": cents,
            "currency": currency(cents),
        }
        for (day, who), cents in totals.items()
    ]
