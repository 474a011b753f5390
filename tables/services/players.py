"""Players as people: a record per person, found by card number, identified for cash reporting,
and two records of one person merged.

A merge rewrites nothing: seat sessions and cash records are history and keep the player they
were written with. The duplicate points at the record kept (`Player.merged_into`), reads resolve
through it (`tables.players`), and a merged record seats no one and takes no new figures.

Cash reporting: every cash buy-in is recorded (`CashIn`) with its value in currency (units x the
table's `chip_unit_cents`). `cash_in_check` runs inside the buy-in, after the table and seat locks
and before the ledger's: it locks the player (so two tables cannot both pass the threshold) and
refuses a buy-in that would take the player's cash in for the gaming day past the reporting
threshold unless the player is identified. An unidentified player's cash is summed per seat
session (nothing ties their visits together).

A seat session whose anonymous player a pit manager identifies after the sit-down
(`identify_session`) is the player's from then on, in every read (`tables.players.whose`) and at
its later buy-ins (`session_player`); the session itself, sealed at the sit-down, is not changed.
"""

from __future__ import annotations

from dataclasses import dataclass
from decimal import ROUND_FLOOR, Decimal
from functools import partial

from django.db import IntegrityError, transaction
from django.db.models import Sum

from casino.audit import audit_record
from casino.compiled import Compiled, insert_returning
from casino.errors import Conflict, DomainError, NotAllowed
from casino.models import AuditEvent
from ledger.chain import chain_lock
from ledger.seals import seal
from reports.periods import gaming_day
from tables.models import (
    CashIn,
    Casino,
    Comp,
    Incident,
    Player,
    PlayerRules,
    SeatSession,
    SeatSessionIdentified,
    Table,
)
from tables.services.idempotency import run_once
from tables.services.incidents import incident_open


class PlayerError(DomainError):
    """The player record or the identification is refused."""


class IdentificationNeeded(PlayerError):
    """A buy-in would take the player past the reporting threshold without identification."""


@dataclass(frozen=True)
class Identification:
    """What cash reporting records of a player: a document's type, number and issuer."""

    type: str = ""
    number: str = ""
    issuer: str = ""

    def __bool__(self) -> bool:
        return any((self.type, self.number, self.issuer))

    def check(self) -> None:
        if not (self.type.strip() and self.number.strip() and self.issuer.strip()):
            raise PlayerError("Identification needs the document's type, number and issuer.")


# Read on every buy-in: compiled once (and sent ahead, `seat_buy_in`).
PLAYER_RULES = Compiled(lambda casino: PlayerRules.objects.filter(casino=casino).order_by("pk")[:1])
SESSION_CASH_INS = Compiled(
    lambda session: CashIn.objects.filter(session=session).values_list("day", "cents")
)


def player_rules(casino: Casino) -> PlayerRules:
    """The casino's thresholds; the defaults where none are set (nothing is written)."""
    return PLAYER_RULES.first(casino.pk) or PlayerRules(casino=casino)


def player_create(*, casino: Casino, name: str, card_number: str = "", by) -> Player:
    """Record a player (audited). The card number, if any, is unique in the casino."""
    name, card_number = name.strip(), card_number.strip()
    if not name:
        raise PlayerError("A player needs a name.")
    try:
        with transaction.atomic():
            player = Player.objects.create(casino=casino, name=name, card_number=card_number)
            _seal(player, "created")
    except IntegrityError:
        raise PlayerError(f"Player card {card_number} is already issued.") from None
    audit_record(action=AuditEvent.Action.PLAYER_CREATE, user=by, player=player.pk, card=card_number)
    return player


def _seal(player: Player, event: str, chain=None) -> None:
    """In the casino's chain (its id names it: no read), locked after the player, as a comp is."""
    seal(player, casino=Casino(pk=player.casino_id), event=event, chain=chain)


def player_by_card(*, casino: Casino, card_number: str) -> Player:
    """The player holding `card_number` in the casino (a merged card resolves to the record kept)."""
    player = Player.objects.filter(casino=casino, card_number=card_number.strip()).first()
    if player is None:
        raise PlayerError(f"No player holds card {card_number.strip()}.")
    return player.resolved()


def player_identify(*, player: Player, identification: Identification, by) -> Player:
    """Record the player's identification for cash reporting (audited; the number is not logged)."""
    identification.check()
    player = Player.objects.select_for_update(no_key=True).get(pk=player.resolved().pk)
    player.id_type = identification.type.strip()
    player.id_number = identification.number.strip()
    player.id_issuer = identification.issuer.strip()
    player.save(update_fields=["id_type", "id_number", "id_issuer"])
    _seal(player, "identified")
    audit_record(action=AuditEvent.Action.PLAYER_IDENTIFY, user=by, player=player.pk, type=player.id_type)
    return player


@transaction.atomic
def player_merge(*, duplicate: Player, into: Player, by) -> Player:
    """Merge `duplicate` into `into` (a pit manager's act, audited): the duplicate points at the
    record kept and every read resolves through it. Identification the kept record lacks is taken
    from the duplicate. Nothing else is rewritten; a gaming day whose cash in the merge takes past
    the reporting threshold opens the pit's incident, as a buy-in crossing it would."""
    from tables.players import user_can_supervise_casino

    if not user_can_supervise_casino(by, into.casino):
        raise PlayerError("Only a pit manager merges player records.")
    pks = {duplicate.pk, into.resolved().pk}
    locked = Player.objects.select_for_update(no_key=True).filter(pk__in=pks).order_by("pk").in_bulk()
    duplicate, into = locked[duplicate.pk], locked[into.resolved().pk]
    if duplicate.casino_id != into.casino_id:
        raise PlayerError("Players of two casinos cannot be merged.")
    if duplicate.merged_into_id is not None:
        raise Conflict(f"{duplicate} is already merged into {duplicate.resolved()}.")
    if duplicate.pk == into.pk:
        raise PlayerError("A player cannot be merged into itself.")
    _check_one_slip(duplicate, into)
    # The casino's chain before the cash report's incident takes a table's: the order a buy-in
    # that identifies its player takes them (the player, the casino's chain, the table's).
    chain = chain_lock(casino=Casino(pk=into.casino_id))
    if not into.identified and duplicate.identified:
        fields = ["id_type", "id_number", "id_issuer"]
        for field in fields:
            setattr(into, field, getattr(duplicate, field))
        into.save(update_fields=fields)
        _seal(into, "identified", chain)
    _cash_report_merged(duplicate, into, by)
    duplicate.merged_into = into
    duplicate.save(update_fields=["merged_into"])
    _seal(duplicate, "merged", chain)
    audit_record(
        action=AuditEvent.Action.PLAYER_MERGE,
        user=by,
        duplicate=duplicate.pk,
        duplicate_name=duplicate.name,
        duplicate_card=duplicate.card_number,
        into=into.pk,
    )
    return into


def _check_one_slip(duplicate: Player, into: Player) -> None:
    """One person runs one rating slip: two records each with a slip open would be two."""
    from tables.services.rating_slips import slips_open

    if slips_open(_records_of(duplicate)).exists() and slips_open(_records_of(into)).exists():
        raise PlayerError(
            f"{duplicate} and {into} each have a rating slip open: close one of them before merging."
        )


def _cash_report_merged(duplicate: Player, into: Player, by) -> None:
    """Tell the pit of each gaming day the merge takes past the reporting threshold: neither record
    passed it alone, so no buy-in opened its incident (`cash_in_record`), but one person did. On
    the table of that day's last buy-in, as a buy-in's incident is."""
    rules = player_rules(into.casino)
    kept_ids, merged_ids = _records_of(into), _records_of(duplicate)
    for day, cents in _days_crossed(_cash_by_day(kept_ids), _cash_by_day(merged_ids), rules):
        last = _cash_of([*kept_ids, *merged_ids]).filter(day=day)
        table = last.select_related("session__seat__table").latest("at", "pk").session.seat.table
        incident_open(
            kind=Incident.Kind.CASH_REPORT,
            table=table,
            detail=f"{into} and {duplicate}, merged, are one player past {rules.reporting_threshold} "
            f"in cash on {day} ({cents / 100:.2f}); a currency transaction report is due.",
            by=by,
        )


def _days_crossed(kept: dict, joined: dict, rules: PlayerRules) -> list[tuple]:
    """The gaming days (and their new totals) on which the cash in `joined` (cents by day), now
    counted with `kept`'s, takes the player past the reporting threshold that neither passed alone
    (no buy-in opened that day's incident)."""
    limit = rules.reporting_threshold * 100
    crossed = []
    for day, cents in sorted(joined.items()):
        before = kept.get(day, 0)
        if before <= limit and cents <= limit < before + cents:
            crossed.append((day, before + cents))
    return crossed


def _cash_by_day(players: list[int]) -> dict:
    rows = _cash_of(players).values("day").annotate(cents=Sum("cents"))
    return {row["day"]: row["cents"] for row in rows.order_by()}


def _cash_of(players: list[int]):
    """The cash-ins of these players' seat sessions: seated by card or identified later."""
    from tables.players import whose

    return whose(CashIn.objects, "session__").filter(whose__in=players)


def identify_session(
    *, session: SeatSession, player: Player, reason: str, by, key: str
) -> SeatSessionIdentified:
    """A pit manager on shift in the table's pit identifies the anonymous player of `session` (open
    or ended) as `player`, a record of the table's casino (the one kept, if it was merged), saying
    how they know (`reason`): an append-only `SeatSessionIdentified`, sealed in the table's chain,
    with its entry in the staff audit log (`session_identify`, in the same transaction), and from
    then on the session's play, cash and time are the player's (`tables.players.whose`).

    Refused for a session seated by card, and for a session identified already as another player:
    an identification is never superseded (docs/pit.md "Identifying a seated player"). The same
    player again answers with the first record. A gaming day that the session's cash takes the
    player past the reporting threshold opens the table's cash-report incident, as a merge does.
    Locks the table, the seat session, then the player (the order of every floor write)."""
    reason = reason.strip()
    request = {"op": "identify_session", "session": session.pk, "player": player.pk, "reason": reason}
    work = partial(_identify, session.pk, player.pk, reason, by)
    answer = run_once(key=key, request=request, by=by, work=work)
    return SeatSessionIdentified.objects.get(pk=answer["identified"])


def _identify(session_id: int, player_id: int, reason: str, by) -> dict:
    from tables.selectors import user_can_supervise

    table_id = SeatSession.objects.values_list("seat__table_id", flat=True).get(pk=session_id)
    table = Table.objects.select_for_update(no_key=True).select_related("pit").get(pk=table_id)
    if not user_can_supervise(by, table):
        raise NotAllowed(f"Only a pit manager on shift in {table}'s pit identifies its players.")
    if not reason:
        raise PlayerError("Say how you know who the player is (the ID shown, a rating asked for).")
    sessions = SeatSession.objects.select_for_update(no_key=True, of=("self",))
    session = sessions.select_related("seat", "player").get(pk=session_id)
    if session.player_id is not None:
        raise PlayerError(f"{session.seat}: {session.player} sat down by card, the session is theirs.")
    named = Player.objects.filter(pk=player_id, casino_id=table.pit.casino_id)
    named = named.select_related("merged_into").first()
    if named is None:  # another casino's player is no more named than one that does not exist
        raise PlayerError(f"There is no player {player_id} at this casino.")
    player = Player.objects.select_for_update(no_key=True).get(pk=named.resolved().pk)
    earlier = SeatSessionIdentified.objects.filter(session=session).select_related("player__merged_into")
    earlier = earlier.first()
    if earlier is not None:
        if earlier.player.resolved().pk == player.pk:
            return {"identified": earlier.pk}
        raise Conflict(
            f"{session.seat}'s player is identified as {earlier.player} already; an identification is "
            "never changed: report the mistake to the auditors."
        )
    kept = _cash_by_day(_records_of(player))
    identified = SeatSessionIdentified.objects.create(session=session, player=player, reason=reason, by=by)
    chain = chain_lock(table=table)
    seal(identified, chain=chain, event="identified")
    _cash_report_identified(identified, kept, table, chain, by)
    _audit_identified(identified, table, by)
    return {"identified": identified.pk}


def _audit_identified(identified: SeatSessionIdentified, table: Table, by) -> None:
    """The staff audit log's entry: which session (its table, seat and description), as whom, how
    they knew. Written once, with the identification: neither a retry with its key nor the same
    player named again writes a second."""
    session = identified.session
    audit_record(
        action=AuditEvent.Action.SESSION_IDENTIFY,
        user=by,
        session=session.pk,
        table=table.name,
        seat=session.seat.number,
        described=session.player_name,
        player=identified.player.pk,
        player_name=identified.player.name,
        card=identified.player.card_number,
        reason=identified.reason,
    )


def _cash_report_identified(identified: SeatSessionIdentified, kept: dict, table: Table, chain, by) -> None:
    """Tell the pit of each gaming day the identified session's cash takes the player past the
    reporting threshold: at the session's table, whose chain the identification holds (another
    table's, after it, could deadlock two identifications crossing)."""
    rules = player_rules(table.pit.casino)
    rows = CashIn.objects.filter(session=identified.session).values("day").annotate(cents=Sum("cents"))
    joined = {row["day"]: row["cents"] for row in rows.order_by()}
    for day, cents in _days_crossed(kept, joined, rules):
        incident_open(
            kind=Incident.Kind.CASH_REPORT,
            table=table,
            detail=f"{identified.session.seat}: identified as {identified.player}, who is past "
            f"{rules.reporting_threshold} in cash on {day} ({cents / 100:.2f}); a currency transaction "
            "report is due.",
            by=by,
            chain=chain,
        )


def player_theoretical_cents(player: Player) -> Decimal:
    """The house's theoretical win from all of `player`'s play (merged records' included), in cents:
    each table's rating in units times its chip value."""
    from tables.players import played_by
    from tables.ratings import sessions_rating

    sessions = played_by(SeatSession.objects, player)
    values = sessions.values_list("seat__table__chip_unit_cents", flat=True).distinct()
    total = Decimal(0)
    for value in values:
        rating = sessions_rating(player.name, sessions.filter(seat__table__chip_unit_cents=value))
        total += rating.theoretical_win * value
    return total


def comp_budget(player: Player) -> int:
    """What `player` may still be given in comps, in cents: the casino's share of their theoretical
    win, less the comps already given (never below zero)."""
    from tables.players import player_ids

    player = player.resolved()
    share = player_rules(player.casino).comp_share
    earned = (player_theoretical_cents(player) * share).to_integral_value(rounding=ROUND_FLOOR)
    given = Comp.objects.filter(player__in=player_ids(player)).aggregate(total=Sum("cents"))["total"] or 0
    return max(int(earned) - given, 0)


@transaction.atomic
def comp_issue(*, player: Player, cents: int, reason: str, by) -> Comp:
    """A pit manager gives `player` a comp of `cents` against their budget (audited). Locks the
    player, so two comps cannot both spend the same budget."""
    from tables.players import user_can_supervise_casino

    if not user_can_supervise_casino(by, player.casino):
        raise PlayerError("Only a pit manager on shift in this casino gives comps.")
    if not isinstance(cents, int) or cents <= 0:
        raise PlayerError("A comp is a positive amount.")
    if not reason.strip():
        raise PlayerError("Say what the comp is for.")
    player = Player.objects.select_for_update(no_key=True).get(pk=player.resolved().pk)
    budget = comp_budget(player)
    if cents > budget:
        raise PlayerError(f"{player.name}'s comp budget is {Decimal(budget) / 100:.2f}; this comp is more.")
    comp = Comp.objects.create(player=player, cents=cents, reason=reason.strip(), by=by)
    # In the casino's chain (its id names it: no read), locked after the player, as a buy-in does.
    seal(comp, casino=Casino(pk=player.casino_id), event="given")
    audit_record(action=AuditEvent.Action.COMP, user=by, player=player.pk, cents=cents, reason=comp.reason)
    return comp


def cents_of(units: int, table: Table) -> int:
    return units * table.chip_unit_cents


def cash_in_check(
    *, session: SeatSession, units: int, identification: Identification, rules: PlayerRules, at, by
) -> bool:
    """Refuse (IdentificationNeeded) a buy-in of `units` that would take the player's cash in for
    the gaming day of `at` past the casino's reporting threshold (`rules`, `player_rules`) while
    they are not identified; record the identification given. Locks the player. True when this
    buy-in crosses the threshold."""
    table = session.seat.table
    limit = rules.reporting_threshold * 100
    day = gaming_day(at)
    player = session_player(session)
    if player is not None:
        # Waits for a buy-in of the player's at another table: the player's lock comes before any
        # table's chain in every write (docs/records.md "Lock order"), so the wait always ends.
        player = Player.objects.select_for_update(no_key=True).get(pk=player.pk)
        earlier = _cash_of(_records_of(player)).filter(day=day)
        before = earlier.aggregate(total=Sum("cents"))["total"] or 0
    else:  # the session's own cash-ins: a handful, read compiled (and sent ahead, `seat_buy_in`)
        before = sum(cents for when, cents in SESSION_CASH_INS.all(session.pk) if when == day)
    after = before + cents_of(units, table)
    if after <= limit:
        return False
    if player is None:
        raise IdentificationNeeded(
            f"This buy-in takes the cash in past {rules.reporting_threshold} for the day: "
            "seat the player by card or record them as a player with identification first."
        )
    if not player.identified:
        if not identification:
            raise IdentificationNeeded(
                f"This buy-in takes {player.name}'s cash in past {rules.reporting_threshold} for the "
                "day: ask for identification (type, number and issuer) first."
            )
        player_identify(player=player, identification=identification, by=by)
    return before <= limit


def session_player(session: SeatSession) -> Player | None:
    """The record kept of the player whose `session` is, seated by card or identified since, as the
    seat session's lock read it (`tables.services.seating.SESSION_LOCKED` reads `whose`); a session
    just opened is its seated player's."""
    player_id = getattr(session, "whose", session.player_id)
    return Player.objects.select_related("merged_into").get(pk=player_id).resolved() if player_id else None


def cash_in_record(
    *, session: SeatSession, units: int, ledger_transaction, crossed: bool, rules: PlayerRules, at, by
) -> CashIn:
    """Record a cash buy-in, sealed in the table's chain (and, when it crossed the casino's
    reporting threshold, tell the pit). `ledger_transaction` is the buy-in's, just posted: its
    chain is the table's, as the post left it."""
    table = session.seat.table
    cents = cents_of(units, table)
    player = session_player(session)
    cash_in = CashIn(
        session=session,
        player=player,
        description="" if player else session.player_name,
        transaction=ledger_transaction,
        units=units,
        cents=cents,
        day=gaming_day(at),
        logged=cents >= rules.logging_threshold * 100,
        by=by,
        at=at,
    )
    # Its id at once (in a `pipeline`, the step's writes so far travel with it: a round trip more),
    # as the seal's hash covers it; sealed next to its ledger transaction, under the chain's lock
    # the post took.
    insert_returning(cash_in)
    seal(cash_in, chain=ledger_transaction.chain, event="recorded")
    if crossed:
        incident_open(
            kind=Incident.Kind.CASH_REPORT,
            table=table,
            detail=f"{session.seat}: {player} is past {rules.reporting_threshold} in cash today "
            f"(this buy-in {cents / 100:.2f}); a currency transaction report is due.",
            by=by,
            at=at,
            chain=ledger_transaction.chain,
        )
    return cash_in


def _records_of(player: Player) -> list[int]:
    from tables.players import player_ids

    return player_ids(player)
