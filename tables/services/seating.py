"""Seats: a player sits down with a buy-in, buys more, and cashes out.

Chips come from the table's tray against cash that goes to the drop box; a
cash-out sends the player's chips away with them. Each is one ledger
transaction, posted under the table's chain. A cash-out is corrected to the
chips the player really took, never reversed alone: that would put chips back
on a seat whose player has gone.
"""

from functools import partial

from django.utils import timezone

from casino.errors import DomainError
from casino.limits import amount_check
from ledger.models import Account, Transaction
from ledger.services import Line, account_get, ledger_post, ledger_reverse
from tables.models import Hand, Seat, SeatSession, Table

from .collection import time_charges_post
from .counts import table_check_open
from .idempotency import run_once

SEATS_PER_GAME = {"rocket": 6, "blackstone": 8, "starboard": 7, "pairs": 8}


class SeatError(DomainError):
    """The seat or the amount is refused."""


def player_account(session: SeatSession) -> Account:
    return account_get(kind=Account.Kind.PLAYER, table=session.seat.table, ref=session.pk)


def open_sessions(table: Table) -> dict[int, SeatSession]:
    sessions = SeatSession.objects.filter(seat__table=table, ended_at=None).select_related("seat__table")
    return {session.seat.number: session for session in sessions}


def seat_open(*, table: Table, seat: int, buy_in: int, player_name: str = "", by, key: str) -> SeatSession:
    """Seat a player at `seat` with `buy_in` units of chips from the tray (1 to MAX_AMOUNT)."""
    amount_check(buy_in, what="A buy-in")
    request = {"op": "seat_open", "table": table.pk, "seat": seat, "buy_in": buy_in, "player": player_name}
    answer = run_once(
        key=key, request=request, by=by, work=partial(_open, table.pk, seat, buy_in, player_name, by)
    )
    return SeatSession.objects.get(pk=answer["session"])


def seat_buy_in(*, session: SeatSession, amount: int, by, key: str) -> SeatSession:
    """A seated player buys more chips (1 to MAX_AMOUNT units)."""
    amount_check(amount, what="A buy-in")
    request = {"op": "seat_buy_in", "session": session.pk, "amount": amount}
    answer = run_once(key=key, request=request, by=by, work=partial(_buy_in, session.pk, amount, by))
    return SeatSession.objects.get(pk=answer["session"])


def seat_close(*, session: SeatSession, by, key: str) -> SeatSession:
    """The player leaves with every chip in front of them. A player of a Pairs game in progress
    loses it first: the game settles under its ending in the same transaction (RULINGS.md
    "Tables, seats and games"). Refused while the player is in the hand being played."""
    request = {"op": "seat_close", "session": session.pk}
    answer = run_once(key=key, request=request, by=by, work=partial(_close, session.pk, by))
    return SeatSession.objects.get(pk=answer["session"])


def _open(table_id: int, number: int, buy_in: int, player_name: str, by) -> dict:
    table = Table.objects.select_for_update(no_key=True).get(pk=table_id)
    table_check_open(table)
    seats = SEATS_PER_GAME[table.game]
    if not isinstance(number, int) or not 1 <= number <= seats:
        raise SeatError(f"{table.get_game_display()} has seats 1 to {seats}; there is no seat {number}.")
    seat, _ = Seat.objects.get_or_create(table=table, number=number)
    if seat.sessions.filter(ended_at=None).exists():
        raise SeatError(f"Seat {number} is taken; the player there must cash out first.")
    session = SeatSession.objects.create(
        seat=seat,
        player_name=player_name.strip(),
        buy_in=buy_in,
        started_at=timezone.now(),
        started_by=by,
    )
    _post_buy_in(session, buy_in, by)
    time_charges_post(table=table, sessions={number: session}, by=by, now=session.started_at)
    return {"session": session.pk}


def _buy_in(session_id: int, amount: int, by) -> dict:
    session = _lock_open_session(session_id)
    # No table lock: a closing count needs every seat closed, and this seat is open.
    table_check_open(session.seat.table)
    _post_buy_in(session, amount, by)
    return {"session": session.pk}


def _close(session_id: int, by) -> dict:
    # The table's lock first (the lock order, docs/records.md), as hand_start takes it: no round
    # deals this player while they leave.
    table_id = SeatSession.objects.filter(pk=session_id).values_list("seat__table_id", flat=True).get()
    table = Table.objects.select_for_update(no_key=True).get(pk=table_id)
    session = _lock_open_session(session_id)
    if Hand.objects.filter(table=table, status__in=Hand.OPEN, sessions__has_key=str(session.seat.number)):
        raise SeatError(
            f"Seat {session.seat.number} is in the hand being played; cash out after it is settled."
        )
    # A player of a Pairs game in progress loses it by leaving: it settles before the cash-out.
    from .hands import pairs_game_forfeit  # hands imports this module

    pairs_game_forfeit(session=session, by=by)
    # The periods begun before the player leaves; one they cannot pay is dropped.
    time_charges_post(table=table, sessions={session.seat.number: session}, by=by, now=timezone.now())
    chips = player_account(session).balance
    if chips:
        patrons = account_get(kind=Account.Kind.PATRONS, casino=table.pit.casino)
        ledger_post(
            lines=[Line(player_account(session), -chips, "cash-out"), Line(patrons, chips, "cash-out")],
            kind="cash_out",
            memo=f"{session.seat}: cash-out",
            by=by,
            table=table,
        )
    session.ended_at = timezone.now()
    session.save(update_fields=["ended_at"])
    return {"session": session.pk}


def _lock_open_session(session_id: int) -> SeatSession:
    session = (
        SeatSession.objects.select_for_update(of=("self",), no_key=True)
        .select_related("seat__table__pit__casino")
        .get(pk=session_id)
    )
    if session.ended_at is not None:
        raise SeatError(f"{session.seat}: that player has already cashed out.")
    return session


def _post_buy_in(session: SeatSession, amount: int, by) -> None:
    """Cash from the patron into the drop box; the same value in chips from the tray."""
    table = session.seat.table
    patrons = account_get(kind=Account.Kind.PATRONS, casino=table.pit.casino)
    lines = [
        Line(patrons, -amount, "buy-in cash"),
        Line(account_get(kind=Account.Kind.DROP, table=table), amount, "buy-in cash"),
        Line(account_get(kind=Account.Kind.TRAY, table=table), -amount, "buy-in chips"),
        Line(player_account(session), amount, "buy-in chips"),
    ]
    ledger_post(lines=lines, kind="buy_in", memo=f"{session.seat}: buy-in", by=by, table=table)


def cash_out_check_taken(*, cash_out: Transaction, taken) -> None:
    """Refuse (SeatError) a correction of `cash_out` to `taken` units before anyone approves it."""
    if taken is None:
        raise SeatError(
            "A cash-out is corrected to the chips the player really left with: give that amount. "
            "Reversing it alone would put its chips back on a seat whose player has gone."
        )
    amount_check(taken, what="The chips the player left with", least=0)
    _, chips = _cashed_out(cash_out)
    if taken == chips:
        raise SeatError(f"The cash-out already books {chips} units: there is nothing to correct.")


def cash_out_correct(*, cash_out: Transaction, taken: int, reason: str, by, approved_by) -> Transaction:
    """Correct a cash-out to the `taken` units the player really left with: one correction reverses
    it and books the right one. The seat gave up every chip either way, so its closed session stays
    at zero; the difference stayed in the tray (fewer taken) or was paid from it (more taken), which
    the tray's floor limits. The original is left as it was: corrections are new entries."""
    player, chips = _cashed_out(cash_out)
    table = cash_out.table
    right = [
        Line(player, -chips, "cash-out"),
        Line(account_get(kind=Account.Kind.PATRONS, casino=table.pit.casino), taken, "cash-out"),
        Line(account_get(kind=Account.Kind.TRAY, table=table), chips - taken, "cash-out corrected"),
    ]
    return ledger_reverse(
        transaction=cash_out,
        reason=reason,
        by=by,
        approved_by=approved_by,
        instead=[line for line in right if line.amount],
    )


def _cashed_out(cash_out: Transaction) -> tuple[Account, int]:
    """The seat's account the cash-out emptied, and how many units it took away."""
    posting = cash_out.postings.select_related("account").get(account__kind=Account.Kind.PLAYER)
    return posting.account, -posting.amount
