"""Rating slips the floor runs: a slip per carded player per visit, started at the player's seat
session, paused and resumed, moved to the player's seat session at another table or at a new seat
of the same one, and closed, by the table's
dealer on shift or the pit manager (`user_can_deal`; a move needs both tables).

The slip is never edited: every step is a `RatingSlipEvent` (who, when, device), and the slip's
state is its last event. A slip runs from its start, a resume or a move until the next pause, move
or close (or the end of its seat session, or now); paused time counts for nothing. Its figures are
never typed: `slip_figures` reads the hands its seat sessions played while it ran, with the same
functions as the player's rating (`tables.ratings`).

Locks, in the documented order: the table, the seat session, then the player (one slip running per
player at a time).
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timedelta
from decimal import Decimal
from functools import partial

from django.db.models import QuerySet
from django.utils import timezone

from casino.errors import Conflict, DomainError, NotAllowed
from ledger.seals import seal
from tables.models import Hand, Player, RatingSlip, RatingSlipEvent, SeatSession, Table
from tables.ratings import (
    bets_by_game,
    game_forfeits,
    hands_played,
    hands_result,
    hours_and_minutes,
    net,
    ratio,
    theoretical_win,
)
from tables.selectors import tables_visible_to, user_can_deal
from tables.services.idempotency import run_once

Kind = RatingSlipEvent.Kind
RUNNING = (Kind.STARTED, Kind.RESUMED, Kind.MOVED)


class RatingSlipError(DomainError):
    """The step asked of a rating slip is refused."""


@dataclass(frozen=True)
class Segment:
    """A stretch of time the slip ran at one seat session."""

    session_id: int
    start: datetime
    end: datetime


@dataclass(frozen=True)
class SlipFigures:
    time_played: timedelta
    hands: int
    total_bet: int
    average_bet: Decimal
    result: int  # the player's net win in units
    theoretical_win: Decimal

    @property
    def time_played_shown(self) -> str:
        return hours_and_minutes(self.time_played)


def slips_open(player_ids) -> QuerySet[RatingSlip]:
    """The slips of these players not closed yet (one per player at most: `rating_slip_start`)."""
    return RatingSlip.objects.filter(player_id__in=player_ids).exclude(events__kind=Kind.CLOSED)


def slip_state(slip: RatingSlip) -> RatingSlipEvent:
    """The slip's last event: its state (running, paused or closed) and the seat session it is at."""
    return slip.events.select_related("session__seat__table").last()


def rating_slip_start(*, session: SeatSession, by, device: str = "", key: str) -> RatingSlip:
    """Start a slip for the carded player seated in `session` (an open seat session); refused
    while the player already has a slip that is not closed."""
    request = {"op": "rating_slip_start", "session": session.pk}
    return _once(key, request, by, partial(_start, session.pk, by, device))


def rating_slip_pause(*, slip: RatingSlip, by, device: str = "", key: str) -> RatingSlip:
    """Stop the clock (the player steps away); the hands played meanwhile do not count."""
    refusal = "Only a running slip can be paused."
    return _once(
        key,
        {"op": "rating_slip_pause", "slip": slip.pk},
        by,
        partial(_step, slip, Kind.PAUSED, by, device, allowed_from=RUNNING, refusal=refusal),
    )


def rating_slip_resume(*, slip: RatingSlip, by, device: str = "", key: str) -> RatingSlip:
    """Run a paused slip again at the same seat session (still open)."""
    refusal = "Only a paused slip can be resumed."
    return _once(
        key,
        {"op": "rating_slip_resume", "slip": slip.pk},
        by,
        partial(_step, slip, Kind.RESUMED, by, device, allowed_from=(Kind.PAUSED,), refusal=refusal),
    )


def rating_slip_close(*, slip: RatingSlip, by, device: str = "", key: str) -> RatingSlip:
    """Close the slip for good (running or paused); its figures stay as the hands give them."""
    refusal = "The slip is already closed."
    return _once(
        key,
        {"op": "rating_slip_close", "slip": slip.pk},
        by,
        partial(_step, slip, Kind.CLOSED, by, device, allowed_from=(*RUNNING, Kind.PAUSED), refusal=refusal),
    )


def rating_slip_move(*, slip: RatingSlip, to: SeatSession, by, device: str = "", key: str) -> RatingSlip:
    """The player moved to another table, or changed seats at this one (left the old seat): the
    slip's segment at the old seat ends and the slip runs on at `to`, the player's open seat
    session at the new seat."""
    request = {"op": "rating_slip_move", "slip": slip.pk, "to": to.pk}
    return _once(key, request, by, partial(_move, slip, to.pk, by, device))


def _once(key: str, request: dict, by, work) -> RatingSlip:
    """One step per idempotency key: a retry answers with the slip the first one left."""
    return RatingSlip.objects.get(pk=run_once(key=key, request=request, by=by, work=work)["slip"])


def _start(session_id: int, by, device: str) -> dict:
    session = _lock_session(session_id, by)
    if session.player_id is None:
        raise RatingSlipError("Only a carded player is rated: seat them with their player card.")
    from tables.players import player_ids  # it imports this module

    # The record kept, if the seat's was merged since: one slip per person, whichever record.
    player = Player.objects.select_for_update(no_key=True).get(pk=session.player.resolved().pk)
    running = slips_open(player_ids(player)).first()
    if running is not None:
        # Not naming the slip: it may run at a table the user does not see (docs/api.md, "Who may do what").
        raise RatingSlipError(f"{player} already has an open rating slip; close or move it first.")
    slip = RatingSlip.objects.create(player=player)
    # Whose slip it is says whose rating its time earns: sealed in the table's chain, as its steps.
    seal(slip, table=Table(pk=session.seat.table_id), event=Kind.STARTED)
    _record(slip, Kind.STARTED, session, by, device)
    return {"slip": slip.pk}


def _move(slip: RatingSlip, to_id: int, by, device: str) -> dict:
    # Both tables first, in primary-key order: two moves crossing between the same two tables
    # then queue on the first table instead of each holding the table the other needs.
    tables = {SeatSession.objects.values_list("seat__table", flat=True).get(pk=to_id), _table_of(slip)}
    list(Table.objects.select_for_update(no_key=True).filter(pk__in=tables).order_by("pk"))
    to = _lock_session(to_id, by)
    state = _locked_state(slip, by)
    if state.kind == Kind.CLOSED:
        raise RatingSlipError("The slip is closed; start a new one.")
    if to.player is None or to.player.resolved().pk != slip.player.resolved().pk:
        raise RatingSlipError(f"That seat is not {slip.player}'s: seat them at the new table first.")
    if to.seat.table_id == state.session.seat.table_id and state.session.ended_at is None:
        # A seat change (cash out, sit down again) ends the old seat session, and the slip with it:
        # only then does it move at the same table.
        raise RatingSlipError(
            f"The player still sits at {state.session.seat}: the slip runs on there. It moves to "
            "a new seat once the player has left the old one."
        )
    _record(slip, Kind.MOVED, to, by, device)
    return {"slip": slip.pk}


def _table_of(slip: RatingSlip) -> int:
    return slip_state(slip).session.seat.table_id


def _step(slip, kind, by, device, *, allowed_from, refusal) -> dict:
    state = _locked_state(slip, by)
    if state.kind not in allowed_from:  # paused, resumed or closed already: the slip moved on
        raise Conflict(refusal)
    if kind == Kind.RESUMED and state.session.ended_at is not None:
        raise RatingSlipError("The player has left that seat: move the slip to their new seat or close it.")
    _record(slip, kind, state.session, by, device)
    return {"slip": slip.pk}


def _locked_state(slip: RatingSlip, by) -> RatingSlipEvent:
    """Lock the slip's table, seat session and player (in that order) and return its last event."""
    state = slip_state(slip)
    _lock_session(state.session_id, by, open_only=False)
    Player.objects.select_for_update(no_key=True).get(pk=slip.player_id)
    return slip_state(slip)


def check_rate(user, table: Table) -> None:
    """The refusal of someone who may not run slips at `table` (the services', the tablet's and the
    pit's). A slip is read where it ever ran, so the table it is at now may be one the user does not
    see: that one is not named ("that table"), and the refusal is the one a table they see gets but
    for its name, so it tells nothing of where the player went."""
    if not user_can_deal(user, table):
        named = table if tables_visible_to(user).filter(pk=table.pk).exists() else "that table"
        raise NotAllowed(
            f"You may not rate players at {named}: only its dealer on shift or the pit manager may."
        )


def _lock_session(session_id: int, by, *, open_only: bool = True) -> SeatSession:
    session = SeatSession.objects.select_related("seat__table", "player").get(pk=session_id)
    check_rate(by, Table.objects.select_for_update(no_key=True).get(pk=session.seat.table_id))
    session = (
        SeatSession.objects.select_for_update(no_key=True, of=("self",))
        .select_related("seat__table", "player")
        .get(pk=session_id)
    )
    if open_only and session.ended_at is not None:
        raise RatingSlipError("That player has left the seat.")
    return session


def _record(slip, kind, session, by, device) -> None:
    """The slip's step, sealed in its table's chain (locked after the table, seat and player)."""
    event = RatingSlipEvent.objects.create(
        slip=slip, kind=kind, session=session, by=by, device=device.strip(), at=timezone.now()
    )
    seal(event, table=Table(pk=session.seat.table_id), event=kind)


def slip_segments(slip: RatingSlip, *, now=None) -> list[Segment]:
    """The stretches the slip ran, each at one seat session: from a start, resume or move to the
    next pause, move or close; a stretch still running ends now, or when its seat session ended."""
    now = now or timezone.now()
    segments, running = [], None
    for event in slip.events.select_related("session"):
        if running is not None:
            segments.append(Segment(running.session_id, running.at, event.at))
            running = None
        if event.kind in RUNNING:
            running = event
    if running is not None:
        segments.append(Segment(running.session_id, running.at, now))
    sessions = SeatSession.objects.in_bulk({segment.session_id for segment in segments})
    ended = []
    for segment in segments:
        end = min(segment.end, sessions[segment.session_id].ended_at or segment.end)
        ended.append(Segment(segment.session_id, segment.start, max(end, segment.start)))
    return ended


def slip_figures(slip: RatingSlip, *, now=None) -> SlipFigures:
    """Time (paused time excluded), hands, bets, result and theoretical win of the slip, from the
    settled hands its seat sessions played that started while it ran (and, in the result, a Pairs
    game the player lost by leaving while it ran)."""
    segments = slip_segments(slip, now=now)
    hand_ids, forfeited = set(), 0
    for segment in segments:
        session = SeatSession.objects.filter(pk=segment.session_id)
        played = hands_played(session)
        during = played.filter(started_at__gte=segment.start, started_at__lt=segment.end)
        hand_ids.update(during.values_list("pk", flat=True))
        # A Pairs game lost by leaving while the slip ran: settled at the cash-out, in no hand.
        left = game_forfeits(session).filter(transaction__created_at__range=(segment.start, segment.end))
        forfeited += net(left)
    hands = Hand.objects.filter(pk__in=hand_ids)
    sessions = SeatSession.objects.filter(pk__in={segment.session_id for segment in segments})
    bets = bets_by_game(sessions, hands)
    total_bet = sum(bets.values())
    return SlipFigures(
        time_played=sum((segment.end - segment.start for segment in segments), timedelta(0)),
        hands=len(hand_ids),
        total_bet=total_bet,
        average_bet=ratio(total_bet, len(hand_ids)),
        result=hands_result(sessions, hands) + forfeited,
        theoretical_win=theoretical_win(sessions, hands),
    )
