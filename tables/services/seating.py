"""Seats: a player sits down with a buy-in, buys more, and cashes out.

Chips come from the table's tray against cash that goes to the drop box; a
cash-out sends the player's chips away with them. Each is one ledger
transaction, posted under the table's chain. A cash-out is corrected to the
chips the player really took, never reversed alone: that would put chips back
on a seat whose player has gone.
"""

from collections.abc import Callable
from functools import partial

from django.db.models import Exists, OuterRef, QuerySet, Subquery
from django.utils import timezone

from casino.compiled import Compiled
from casino.errors import Conflict, DomainError
from casino.limits import amount_check
from ledger.chain import CHAIN_LOCKED, CHAINS_LOCKED, table_chain_name
from ledger.models import Account, Transaction
from ledger.seals import seal, seals
from ledger.services import (
    ACCOUNTS_BY_CODE,
    AccountKey,
    Line,
    account_code,
    account_get,
    accounts_ahead,
    accounts_get,
    ledger_post,
    ledger_reverse,
)
from tables.models import Casino, Hand, Player, Seat, SeatSession, SeatSessionIdentified, Table

from .collection import time_charges_post
from .counts import LAST_COUNT, table_check_open
from .idempotency import run_once
from .players import (
    PLAYER_RULES,
    SESSION_CASH_INS,
    Identification,
    PlayerError,
    cash_in_check,
    cash_in_record,
    player_by_card,
    player_rules,
)

SEATS_PER_GAME = {
    "rocket": 6,
    "blackstone": 8,
    "starboard": 7,
    "pairs": 8,
    "hawthorn": 6,
    "goblin_poker": 8,
    "monster": 8,
    "regent": 6,
    "troll_guts": 6,
    "port": 7,
    "sweep": 6,
    "kitty": 6,
    "venture": 8,
    "five_cards": 2,
    "pickup": 6,
}


class SeatError(DomainError):
    """The seat or the amount is refused."""


def player_account(session: SeatSession) -> Account:
    return account_get(kind=Account.Kind.PLAYER, table=session.seat.table, ref=session.pk)


def open_sessions(table: Table) -> dict[int, SeatSession]:
    return {session.seat.number: session for session in OPEN_SESSIONS.all(table.pk)}


def hand_players_sent(hand: Hand) -> Callable[[], dict[int, tuple[str, int]]]:
    """Send the read of the name and chips in front of each player of `hand`, in one query: the
    player accounts, each with its seat session's name (the session is the account's `ref`). The
    function returned gives them by seat; a seat whose account does not exist yet has no chips,
    and its name is read on its own then. Sent in a step's `pipeline` after its writes, it comes
    back with them."""
    sessions = {int(seat): session for seat, session in hand.sessions.items()}
    codes = {
        account_code(kind=Account.Kind.PLAYER, table=hand.table, ref=ref): seat
        for seat, ref in sessions.items()
    }
    sent = PLAYER_ACCOUNTS.send(*codes)

    def players() -> dict[int, tuple[str, int]]:
        found = {codes[code]: (name, balance) for code, balance, name in sent()}
        missing = {sessions[seat]: seat for seat in sessions if seat not in found}
        if missing:
            for pk, player in SeatSession.objects.filter(pk__in=missing).values_list("pk", "player_name"):
                found[missing[pk]] = (player, 0)
        return found

    return players


# The player accounts of these codes, each with its player's name: read for every answer a tablet
# gets, so compiled once (for each number of seats), as tuples (no model instance is needed).
PLAYER_ACCOUNTS = Compiled(
    lambda *codes: Account.objects.filter(code__in=codes)
    .annotate(player_name=Subquery(SeatSession.objects.filter(pk=OuterRef("ref")).values("player_name")[:1]))
    .values_list("code", "balance", "player_name"),  # in the order of the SELECT (`Compiled`)
    str,
)

# Read on every hand's start: compiled once.
OPEN_SESSIONS = Compiled(
    lambda table: SeatSession.objects.filter(seat__table=table, ended_at=None).select_related("seat__table")
)


def seat_open(
    *,
    table: Table,
    seat: int,
    buy_in: int = 0,
    chips: int = 0,
    player: Player | int | None = None,
    card_number: str = "",
    player_name: str = "",
    identification: Identification | None = None,
    by,
    key: str,
) -> SeatSession:
    """Seat a player at `seat` with `buy_in` units of chips from the tray for cash, and `chips`
    units they bring to the seat (from another table, or from the seat they just left at this
    one): at least one of them, each 0 to MAX_AMOUNT.

    The player is a record (`player`, or by `card_number`; a merged record seats the one kept) or,
    anonymous, described by `player_name`. The buy-in is cash: recorded for cash reporting, and
    refused without `identification` if it takes the player past the reporting threshold
    (`tables.services.players.cash_in_check`). Chips brought are not cash: they come from the
    patrons, not the tray, put nothing in the drop box and are no cash in."""
    amount_check(buy_in, what="A buy-in", least=0)
    amount_check(chips, what="The chips brought", least=0)
    if not buy_in and not chips:
        raise SeatError("A player sits down with a buy-in, or with the chips they bring: give one of them.")
    identification = identification or Identification()
    player_id = player.pk if isinstance(player, Player) else player
    request = {
        "op": "seat_open", "table": table.pk, "seat": seat, "buy_in": buy_in, "player": player_name,
        "player_id": player_id, "card": card_number, "id": [identification.type, identification.number],
    }
    if chips:  # only then: a key applied before chips were taken (a tablet's queue) still matches
        request["chips"] = chips
    stake = (buy_in, chips)
    work = partial(_open, table.pk, seat, stake, player_id, card_number, player_name, identification, by)
    answer = run_once(key=key, request=request, by=by, work=work)
    return SeatSession.objects.get(pk=answer["session"])


def seat_buy_in(
    *, session: SeatSession, amount: int, identification: Identification | None = None, by, key: str
) -> SeatSession:
    """A seated player buys more chips (1 to MAX_AMOUNT units) with cash, recorded and checked
    against the reporting threshold as at `seat_open`."""
    amount_check(amount, what="A buy-in")
    identification = identification or Identification()
    request = {
        "op": "seat_buy_in", "session": session.pk, "amount": amount,
        "id": [identification.type, identification.number],
    }
    at, bought = timezone.now(), []

    def work() -> dict:
        bought.append(_buy_in(session.pk, amount, identification, at, by))
        return {"session": bought[0].pk}

    # Its reads go with the key's claim unless an identification is given: recording that on the
    # player saves the player (`Model.save`), which a pipeline cannot hold (`run_once`).
    ahead = None if identification else partial(_buy_in_ahead, session)
    answer = run_once(key=key, request=request, by=by, work=work, ahead=ahead)
    return bought[0] if bought else SeatSession.objects.select_related("seat").get(pk=answer["session"])


def seat_close(*, session: SeatSession, by, key: str) -> SeatSession:
    """The player leaves with every chip in front of them. A player of a Pairs game in progress
    loses it first: the game settles under its ending in the same transaction (RULINGS.md
    "Tables, seats and games"). Refused while the player is in the hand being played."""
    request = {"op": "seat_close", "session": session.pk}
    answer = run_once(key=key, request=request, by=by, work=partial(_close, session.pk, by))
    return SeatSession.objects.get(pk=answer["session"])


def _open(table_id, number, stake, player_id, card_number, player_name, identification, by) -> dict:
    buy_in, chips = stake
    table = Table.objects.select_for_update(no_key=True).get(pk=table_id)
    table_check_open(table)
    seats = SEATS_PER_GAME[table.game]
    if not isinstance(number, int) or not 1 <= number <= seats:
        raise SeatError(f"{table.get_game_display()} has seats 1 to {seats}; there is no seat {number}.")
    player = _player(table, player_id, card_number)
    seat, made = Seat.objects.get_or_create(table=table, number=number)
    if seat.sessions.filter(ended_at=None).exists():
        raise SeatError(f"Seat {number} is taken; the player there must cash out first.")
    now = timezone.now()
    session = SeatSession.objects.create(
        seat=seat,
        player=player,
        player_name=player.name if player else player_name.strip(),
        buy_in=buy_in,
        started_at=now,
        started_by=by,
    )
    posted = [_post_buy_in(session, buy_in, identification, now, by)] if buy_in else []
    if chips:
        posted.append(_post_chips_brought(session, chips, by))
    (_, account), *_ = posted
    # Under the chain lock the posts took: the sit-down's own figures (a later buy-in changes
    # none of them, and is not sealed), the player's chips account its post made (whose chips every
    # later posting to it moves), and the seat if this sit-down made it (the place every session
    # there is held at). Through the last post's chain: each post locks the chain through an object
    # of its own, and the first's no longer knows the chips brought appended after it.
    sealed = [(session, "opened"), (account, "created")] + ([(seat, "created")] if made else [])
    seals(sealed, chain=posted[-1][0].chain)
    time_charges_post(table=table, sessions={number: session}, by=by, now=session.started_at)
    return {"session": session.pk}


def _player(table: Table, player_id: int | None, card_number: str) -> Player | None:
    """The record the seat is opened for (the one kept, if it was merged), or None: anonymous."""
    if card_number.strip():
        return player_by_card(casino=table.pit.casino, card_number=card_number)
    if player_id is None:
        return None
    player = Player.objects.filter(pk=player_id, casino_id=table.pit.casino_id).first()
    if player is None:
        raise PlayerError(f"There is no player {player_id} at this casino.")
    return player.resolved()


def _buy_in(session_id: int, amount: int, identification: Identification, at, by) -> SeatSession:
    session = _lock_open_session(session_id)
    # No table lock: a closing count needs every seat closed, and this seat is open.
    table_check_open(session.seat.table)
    _post_buy_in(session, amount, identification, at, by)
    return session


def _buy_in_ahead(session: SeatSession) -> None:
    """Send a buy-in's first reads ahead (`Compiled.ahead`, with the key's claim): the seat
    session's lock, and for an anonymous player the table's chain's lock (unless they were
    identified since) and the session's cash-ins (the whole of their cash today), then what no lock
    guards (the table's last count, the casino's rules, the accounts). A known player's chain lock
    waits: the player's lock comes before it (docs/records.md), and the check of their cash in
    takes it. A session's seated player never changes; one identified since is known only once
    the session is locked, so the chain's lock sent ahead is taken only for a session that was not
    (`UNIDENTIFIED_CHAIN_LOCKED`)."""
    table = session.seat.table
    SESSION_LOCKED.ahead(session.pk)
    chain = table_chain_name(table.pk)
    if session.player_id is None:
        UNIDENTIFIED_CHAIN_LOCKED.ahead(chain, session.pk)
        SESSION_CASH_INS.ahead(session.pk)
    LAST_COUNT.ahead(table.pk)
    PLAYER_RULES.ahead(table.pit.casino_id)
    accounts_ahead(table=table, keys=_buy_in_accounts(session.pk))
    ACCOUNTS_BY_CODE.ahead(account_code(kind=Account.Kind.PATRONS, casino=Casino(pk=table.pit.casino_id)))
    if session.player_id is None:  # the answers come back with the key's claim: no round trip more
        locked = SESSION_LOCKED.kept(session.pk)
        if locked and locked[0].whose is None:
            UNIDENTIFIED_CHAIN_LOCKED.moved((chain, session.pk), CHAIN_LOCKED, (chain,))


def _close(session_id: int, by) -> dict:
    # The table's lock first (the lock order, docs/records.md), as hand_start takes it: no round
    # deals this player while they leave.
    table_id = SeatSession.objects.filter(pk=session_id).values_list("seat__table_id", flat=True).get()
    table = Table.objects.select_for_update(no_key=True).get(pk=table_id)
    session = _lock_open_session(session_id)
    # hands imports this module
    from .hands import game_forfeit, pairs_round_withdraw

    seat = session.seat.number
    playing = Hand.objects.select_for_update(no_key=True).filter(
        table=table, status__in=Hand.OPEN, sessions__has_key=str(seat)
    )
    hand = playing.first()  # a table has one open hand
    if hand is not None:
        pairs_round_withdraw(hand=hand, seat=seat, by=by)
    # A player of a Pairs game, or of a points game played for stakes, in progress loses it by
    # leaving: it settles before the cash-out.
    game_forfeit(session=session, by=by)
    # The periods begun before the player leaves; one they cannot pay is dropped.
    time_charges_post(table=table, sessions={session.seat.number: session}, by=by, now=timezone.now())
    chips = player_account(session).balance
    if chips:
        patrons = account_get(kind=Account.Kind.PATRONS, casino=table.pit.casino, at=table)
        ledger_post(
            lines=[Line(player_account(session), -chips, "cash-out"), Line(patrons, chips, "cash-out")],
            kind="cash_out",
            memo=f"{session.seat}: cash-out",
            by=by,
            table=table,
        )
    session.ended_at = timezone.now()
    session.save(update_fields=["ended_at"])
    seal(session, table=table, event="closed")
    return {"session": session.pk}


# The seat session locked, with its seat, table, pit and casino, and `whose` it is (an anonymous
# player may have been identified since): read on every buy-in, compiled once.
def _session_locked(session) -> QuerySet[SeatSession]:
    from tables.players import whose  # it imports this module, through the ratings

    sessions = whose(SeatSession.objects.select_for_update(of=("self",), no_key=True))
    return sessions.select_related("seat__table__pit__casino").filter(pk=session)


SESSION_LOCKED = Compiled(_session_locked)

# The table's chain locked, unless the anonymous player of seat session `session` was identified
# since the sit-down (then nothing is locked): sent ahead of a buy-in, after the session's lock, which
# an identification takes too, so none is written between the two. An identified player's lock comes
# before the chain (docs/records.md "Lock order"), and their cash check takes it first.
UNIDENTIFIED_CHAIN_LOCKED = Compiled(
    lambda name, session: CHAINS_LOCKED.filter(name=name).filter(
        ~Exists(SeatSessionIdentified.objects.filter(session=session))
    ),
    str,
    int,
)


def _lock_open_session(session_id: int) -> SeatSession:
    session = SESSION_LOCKED.first(session_id)
    if session is None:
        raise SeatSession.DoesNotExist(f"There is no seat session {session_id}.")
    if session.ended_at is not None:
        raise Conflict(f"{session.seat}: that player has already cashed out.")
    return session


def _post_buy_in(
    session: SeatSession, amount: int, identification: Identification, at, by
) -> tuple[Transaction, Account]:
    """Cash from the patron into the drop box; the same value in chips from the tray. The cash is
    checked against the reporting threshold first (locking the player) and recorded. Returns the
    ledger transaction (its `chain` the table's, locked) and the player's chips account."""
    table = session.seat.table
    rules = player_rules(table.pit.casino)
    crossed = cash_in_check(
        session=session, units=amount, identification=identification, rules=rules, at=at, by=by
    )
    drop, tray, player = _buy_in_accounts(session.pk)
    accounts = accounts_get(table=table, keys=[drop, tray, player])
    patrons = account_get(kind=Account.Kind.PATRONS, casino=table.pit.casino, at=table)
    lines = [
        Line(patrons, -amount, "buy-in cash"),
        Line(accounts[drop], amount, "buy-in cash"),
        Line(accounts[tray], -amount, "buy-in chips"),
        Line(accounts[player], amount, "buy-in chips"),
    ]
    posted = ledger_post(lines=lines, kind="buy_in", memo=f"{session.seat}: buy-in", by=by, table=table)
    cash_in_record(
        session=session, units=amount, ledger_transaction=posted, crossed=crossed, rules=rules, at=at, by=by
    )
    return posted, accounts[player]


def _post_chips_brought(session: SeatSession, chips: int, by) -> tuple[Transaction, Account]:
    """Chips the player carried to the seat: from the patrons (whose pockets they left the last
    table in, `cash_out`) to the seat. The tray gives nothing and no cash changes hands, so the
    drop and the cash reporting see nothing. Returns the transaction and the player's account."""
    table = session.seat.table
    patrons = account_get(kind=Account.Kind.PATRONS, casino=table.pit.casino, at=table)
    player = player_account(session)
    lines = [Line(patrons, -chips, "chips brought"), Line(player, chips, "chips brought")]
    memo = f"{session.seat}: chips brought"
    posted = ledger_post(lines=lines, kind="chips_in", memo=memo, by=by, table=table)
    return posted, player


def _buy_in_accounts(session_id: int) -> list[AccountKey]:
    """The table's accounts a buy-in moves, as `accounts_get` takes them: drop, tray, player."""
    return [(Account.Kind.DROP, None), (Account.Kind.TRAY, None), (Account.Kind.PLAYER, session_id)]


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
        Line(account_get(kind=Account.Kind.PATRONS, casino=table.pit.casino, at=table), taken, "cash-out"),
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
