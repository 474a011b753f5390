"""Hands: start, feed a card, apply a decision, settle.

Every function here runs in one database transaction under its idempotency
key, locks the hand row (`select_for_update`) before reading it, refuses a
caller whose `expected_seq` is not the hand's current sequence (a stale screen
or a racing tablet), checks the card or decision with the rules engine before
writing, and then records the event and advances the sequence. Money moves
only through the ledger service, in the same transaction.
"""

from collections.abc import Callable
from dataclasses import replace
from functools import partial
from secrets import SystemRandom

from django.db import transaction
from django.db.models import Subquery
from django.utils import timezone

from casino.audit import audit_record
from casino.compiled import Compiled, insert_returning, pipeline, save_fields
from casino.errors import Conflict, DomainError, StaleScreen
from casino.limits import shown
from casino.models import AuditEvent
from ledger.chain import (
    CHAIN_LOCKED,
    CHAINS_LOCKED,
    chain_append,
    chain_extend,
    chain_lock,
    table_chain_name,
    table_chain_named,
)
from ledger.models import Account, Chain, Transaction
from ledger.seals import seal, seals
from ledger.services import (
    ACCOUNT_MADE,
    AccountKey,
    Line,
    OverdrawError,
    account_opened,
    accounts_get,
    ledger_post,
)
from tables.games import Action, CardDue, DecisionDue, HandSetup, IllegalAction, Move, Settlement
from tables.games.base import Game as Engine
from tables.games.cards import RANKS, composition
from tables.games.pairs import PairsOptions
from tables.games.pairs_endings import settle_game
from tables.games.replay import games
from tables.games.rounds import DIFFERENCE, leaver_settlement, next_round_seats, next_round_state
from tables.models import (
    POINTS_GAMES,
    SECRET_HANDS,
    WHOLE_DECK,
    ApprovalRequest,
    CardEvent,
    Decision,
    Game,
    Hand,
    Incident,
    Receiver,
    SeatSession,
    Shoe,
    Table,
)

from .collection import table_collection, time_charges_post
from .counts import LAST_COUNT, table_check_open
from .engine import (
    hand_records,
    hand_records_again,
    hand_records_none,
    plain,
    receiver_for,
    records_ahead,
    records_flagged,
    records_kept,
    records_sent,
    replay,
    seat_keyed,
    unrevealed_after_last_take,
)
from .idempotency import run_once
from .incidents import incident_open
from .seating import OPEN_SESSIONS, hand_players_sent, open_sessions
from .shoes import (
    OPEN_HAND,
    TABLE_LOCKED,
    fresh_deck_due,
    shoe_card_rank,
    shoe_cards_left,
    shoe_deck,
    shoe_deck_of,
    shoe_known_remaining,
    shoe_recycle,
    shoe_take_position,
    shoe_unseen,
    table_admitted,
    table_locked,
)

# What a keyed rank off the cards' ranks is told, here and by the forms and the API's fields.
RANK_RANGE = f"A rank is {min(RANKS)} to {max(RANKS)}"
# Games whose shoe deals one game: a game's cards are counted from one deck (Blackstone never recycles,
# a secret hand's reveals are checked against it). Regent deals on unless its table says otherwise
# (tables.games.rounds.NEW_DECK_OPTIONS); its hands then start where the one before left the shoe
# (`_shoe_held`).
ONE_GAME_A_SHOE = (Game.BLACKSTONE, *SECRET_HANDS, *WHOLE_DECK)
# Starboard's settlement names each draw's fee so; the fee is posted at the draw itself.
DRAW_FEE = "draw fee"


class HandError(DomainError):
    """The rules or the table refuse this step of the hand."""


class RankRefused(HandError):
    """The dealer keyed a rank (1 to 10) the shoe can no longer hold: an integrity incident, of
    `hand` (kept by its ids: the step that raised it rolls back)."""

    def __init__(self, message: str, hand: Hand):
        super().__init__(message)
        self.hand_id, self.table_id, self.shoe_id = hand.pk, hand.table_id, hand.shoe_id


def hand_start(
    *,
    table: Table,
    bets: dict[int, int] | None = None,
    by,
    device: str = "",
    key: str,
    admit: Callable[[Table | None], None] | None = None,
) -> Hand:
    """Start the table's next hand with the seated players.

    Rocket: `bets` maps each playing seat to its bet (multiples of 10 within
    the table's limits, no more than the chips in front of the player). Pot
    games: every seated player plays; their chips in front are the stakes.
    Pairs: the players of the game in progress, with their scores (a player
    seated since waits for the next game); between games, every seated player
    from 0. Locks the table row so two starts cannot race; `admit(table)`, given, sees the table
    as locked before the key's claim is looked at, and may refuse the start (`hand_lock_ahead`).
    """
    request = {"op": "hand_start", "table": table.pk, "bets": {str(k): v for k, v in (bets or {}).items()}}
    step, ahead = partial(_start, table.pk, bets or {}, by), partial(_start_ahead, table.pk, admit)
    return _step_once(key=key, request=request, by=by, step=step, ahead=ahead)


def hand_record_card(
    *,
    hand: Hand,
    rank: int | None,
    by,
    device: str = "",
    expected_seq: int | None,
    key: str,
    admit: Callable[[Hand | None], None] | None = None,
) -> Hand:
    """Record the card that left the shoe for whoever the rules say is due one.

    `expected_seq` is the step the dealer's screen showed; None for a card-reading shoe, which
    shows nothing and reads cards in the order they leave it: its retry is then the same request.

    A physical shoe needs the keyed `rank`; a system-shuffled shoe gives its
    next card (a keyed rank must match it). A shoe whose count says it is empty
    is first recycled from its discards and burned (`shoe_recycle`): the dealer
    has shuffled the discard pile and burned before keying this card.
    """
    request = {"op": "card", "hand": hand.pk, "rank": rank, "expected_seq": expected_seq}
    step = partial(_record_card, hand.pk, rank, by, device, expected_seq)
    ahead = partial(hand_lock_ahead, hand.pk, with_shoe=True, admit=admit)
    return _card_once(by, device, key=key, request=request, step=step, ahead=ahead)


def table_record_card(*, table: Table, rank: int | None, by, device: str = "", expected_seq: int | None,
                      key: str) -> Hand:
    """`hand_record_card` for the hand open at `table`, as a card-reading shoe sends it: it knows
    its table, not the hand.

    The request names the table, and the open hand is looked up after the key's claim: a retry
    then gets the first answer even once that hand has settled or the next one has started,
    where a hand looked up before the claim would be none, or another."""
    request = {"op": "card", "table": table.pk, "rank": rank, "expected_seq": expected_seq}

    def step() -> Hand:
        hand = OPEN_HAND.first(table.pk)
        if hand is None:
            raise HandError(f"No hand is open at {table}: start a hand before dealing cards.")
        return _record_card(hand.pk, rank, by, device, expected_seq)

    ahead = partial(OPEN_HAND.ahead, table.pk)  # with the claim: the step then runs in one pipeline
    return _card_once(by, device, key=key, request=request, step=step, ahead=ahead)


def _card_once(by, device: str, key: str, **step_once) -> Hand:
    """`_step_once` of a card; a rank the shoe cannot hold is then recorded as an incident after
    the step rolled back: the refusal itself must stay on file, once however often it is retried."""
    try:
        return _step_once(by=by, key=key, **step_once)
    except RankRefused as refusal:
        incident_open(
            kind=Incident.Kind.RANK_REFUSED,
            table=Table(pk=refusal.table_id),
            shoe_id=refusal.shoe_id,
            hand_id=refusal.hand_id,
            detail=refusal.message,
            by=by,
            device=device,
            key=key,
        )
        raise


def hand_decide(
    *,
    hand: Hand,
    action: tuple,
    by,
    device: str = "",
    expected_seq: int,
    key: str,
    admit: Callable[[Hand | None], None] | None = None,
) -> Hand:
    """Record the decision of the seat due to act, e.g. ("hit",) or ("take", 3)."""
    request = {"op": "decide", "hand": hand.pk, "action": list(action), "expected_seq": expected_seq}
    step = partial(_decide, hand.pk, tuple(action), by, device, key, expected_seq)
    ahead = partial(hand_lock_ahead, hand.pk, admit=admit)
    return _step_once(key=key, request=request, by=by, step=step, ahead=ahead)


def hand_settle(
    *, hand: Hand, by, expected_seq: int, key: str, admit: Callable[[Hand | None], None] | None = None
) -> Hand:
    """Post a finished hand's settlement to the ledger and close the hand."""
    request = {"op": "settle", "hand": hand.pk, "expected_seq": expected_seq}
    step = partial(_settle, hand.pk, by, expected_seq)
    ahead = partial(hand_lock_ahead, hand.pk, admit=admit)
    return _step_once(key=key, request=request, by=by, step=step, ahead=ahead)


def hand_settle_and_continue(*, hand: Hand, by, expected_seq: int, key: str) -> Hand:
    """Settle the hand (`hand_settle`) and, when it is a Pairs round that moved no chips, start the
    game's next round in the same transaction: the dealer's one tap between rounds.

    Returns the next round when it started one, else the settled hand (or the hand waiting for the
    pit). The next round deals the game's players (a player seated since waits for the next game);
    if `hand_start` would refuse it, the settlement stands alone and the table says why when the
    dealer starts by hand.
    Under one key: a retry answers the hand the first call returned and writes nothing. Locks the
    hand, then the table (as `hand_start` does).
    """
    request = {"op": "settle_and_continue", "hand": hand.pk, "expected_seq": expected_seq}
    step = partial(_settle_and_continue, hand.pk, by, expected_seq)
    return _step_once(key=key, request=request, by=by, step=step, ahead=partial(hand_lock_ahead, hand.pk))


def _step_once(
    *, key: str, request: dict, by, step: Callable[[], Hand], ahead: Callable[[], None] | None = None
) -> Hand:
    """Run a step of a hand once under `key`: the hand as the step left it, with the records it
    read and wrote (`hand_records`), or, on a retry, the hand read afresh. `ahead` sends the
    step's first reads with the key's claim (`run_once`); the read of its players' names and
    chips for the answer (`hand.players_sent`) goes with its writes."""
    stepped: list[Hand] = []

    def work() -> dict:
        hand = step()
        hand.players_sent = hand_players_sent(hand)
        stepped.append(hand)
        return {"hand": hand.pk, "seq": hand.seq, "status": hand.status}

    answer = run_once(key=key, request=request, by=by, work=work, ahead=ahead)
    return stepped[0] if stepped else Hand.objects.select_related("table__pit", "shoe").get(pk=answer["hand"])


def _hand_locked(*locked: str) -> Compiled:
    """The hand with its table, pit and shoe, the rows `locked` locked, and whether it has records
    of the rare kinds (`records_flagged`): compiled once, every step of every hand starts here."""
    hands = Hand.objects.select_for_update(of=locked, no_key=True).select_related("table__pit", "shoe")
    return Compiled(lambda hand: records_flagged(hands).filter(pk=hand))


HAND_LOCKED, HAND_AND_SHOE_LOCKED = _hand_locked("self"), _hand_locked("self", "shoe")


# A hand's table's chain locked, found from the hand's id: sent with the hand's lock, before the
# hand, and so its table, has come back.
CHAIN_OF_HAND_LOCKED = Compiled(
    lambda hand: CHAINS_LOCKED.filter(
        name=table_chain_named(Subquery(Hand.objects.filter(pk=hand).values("table_id")))
    )
)


def hand_lock_ahead(
    hand_id: int, *, with_shoe: bool = False, admit: Callable[[Hand | None], None] | None = None
) -> None:
    """Send `lock_hand`'s reads ahead (`Compiled.ahead`, in the step's pipeline, with the key's
    claim), then the lock of the hand's table's chain: every step of a hand that sends this
    appends to that chain, after the hand's lock and before any other (the ledger's accounts).

    Then look at the locked hand as it came back (None: there is no such hand): the chain's lock
    is kept for the step's `chain_lock` of its table, and `admit(hand)`, given, may refuse the
    step by raising before the key's claim is looked at, so that a retry is refused as the first
    request would be (the API's permission, checked on the hand as locked: no read before)."""
    locked = HAND_AND_SHOE_LOCKED if with_shoe else HAND_LOCKED
    locked.ahead(hand_id)
    records_ahead(hand_id)
    CHAIN_OF_HAND_LOCKED.ahead(hand_id)
    found = locked.kept(hand_id)
    if found:
        CHAIN_OF_HAND_LOCKED.moved((hand_id,), CHAIN_LOCKED, (table_chain_name(found[0].table_id),))
    if admit is not None:
        admit(found[0] if found else None)


def lock_hand(
    hand_id: int, expected_seq: int | None, statuses=(Hand.Status.IN_PROGRESS,), *, with_shoe: bool = False
) -> Hand:
    """Lock the hand row, read its records (`hand_records`) and check the caller saw its latest
    state; a pending void freezes the hand until the pit decides. `with_shoe` locks the hand's
    shoe in the same statement (hand first, then shoe, as before), for a step that deals from it."""
    with pipeline():  # the hand locked and its records read in one round trip
        found = (HAND_AND_SHOE_LOCKED if with_shoe else HAND_LOCKED).send(hand_id)
        records = records_sent(hand_id)
        hands = found()
        if not hands:
            raise Hand.DoesNotExist(f"There is no hand {hand_id}.")
        hand = hand_records(records_kept(hands[0], records))  # the rare kinds too, if it has any
    if with_shoe:
        shoe_deck_of(hand)  # a recycle of this hand's is its shoe's deck, before the deck is dealt out
    if hand.status not in statuses:  # settled, voided or awaiting the pit since: the hand moved on
        raise Conflict(
            f"Hand {hand.number} is {hand.get_status_display().lower()}; nothing more can be recorded."
        )
    if expected_seq is not None and hand.seq != expected_seq:
        raise StaleScreen(
            f"Hand {hand.number} has moved on (your screen shows step {expected_seq}, it is at step "
            f"{hand.seq}). Refresh the screen."
        )
    void, pending = ApprovalRequest.Kind.VOID, ApprovalRequest.Status.PENDING
    if any(r.kind == void and r.status == pending for r in hand_records(hand).approval_list):
        raise HandError(f"Hand {hand.number} waits for the pit to decide a void request.")
    return hand


def _engine(hand: Hand):
    """The locked hand's game, replayed from its records (read once: `hand_records`) and kept on
    the hand (`hand.engine`): the step moves it on, and its answer screen reads it as it is."""
    try:
        hand.engine = replay(hand)
    except IllegalAction as error:  # records that no longer replay: never expected
        raise HandError(f"Hand {hand.number}'s records do not replay: {error}") from error
    return hand.engine


# Starting


# What every hand's start reads: compiled once (the table's lock and its open hand: `.shoes`).
SHOE_IN_PLAY = Compiled(
    lambda table: Shoe.objects.filter(table=table, state=Shoe.State.IN_PLAY).order_by("pk")[:1]
)
LAST_HAND = Compiled(lambda table: Hand.objects.filter(table=table).order_by("-number").only("number")[:1])
LAST_SETTLED = Compiled(
    lambda table: Hand.objects.filter(table=table, status=Hand.Status.SETTLED).order_by("-number")[:1]
)


def _start_ahead(table_id: int, admit: Callable[[Table | None], None] | None = None) -> None:
    """Send a start's first reads ahead (`Compiled.ahead`, with the key's claim): the table's lock,
    then what `_start` reads under it before it writes anything these reads would see. Then
    `admit`, given, sees the locked table as it came back (None: no such table)."""
    for compiled in (TABLE_LOCKED, LAST_COUNT, OPEN_HAND, SHOE_IN_PLAY, OPEN_SESSIONS, LAST_HAND):
        compiled.ahead(table_id)
    table_admitted(table_id, admit)


def _start(table_id: int, bets: dict[int, int], by) -> Hand:
    table = table_locked(table_id)
    table_check_open(table)
    if OPEN_HAND.first(table.pk) is not None:
        raise HandError("The current hand is not settled yet; settle or void it before starting another.")
    shoe = _playable_shoe(table)
    sessions = open_sessions(table)
    _charge_time(table, sessions, by)
    accounts = _seat_accounts(table, sessions)
    chips = {seat: account.balance for seat, account in accounts.items()}
    seats, stakes, commitments = _stakes(table, sessions, chips, bets)
    setup, game = _setup(table, shoe, seats, stakes)
    hand = Hand(
        table=table,
        shoe=shoe,
        number=_next_number(table),
        game=table.game,
        setup=setup.to_record(),
        # A points game's players all stay parties to its rounds (a Port playoff's losers pay too).
        sessions={str(seat): sessions[seat].pk for seat in (stakes if table.game in POINTS_GAMES else seats)},
        committed={str(seat): amount for seat, amount in commitments.items() if amount},
        started_at=timezone.now(),
        started_by=by,
        limits=table.limits(),
    )
    insert_returning(hand)  # the ORM's insert, less compiling it for every start
    wager = account_opened(kind=Account.Kind.WAGER, table=table, ref=hand.pk)
    chain = chain_lock(table=table)
    # The wagers account with the hand, in one insert: its seal says which account is the hand's
    # wagers (not its pot) at no statement of its own.
    seals([(hand, "started"), (wager, ACCOUNT_MADE)], chain=chain)
    _post_commitments(hand, accounts, wager, chain, by)
    hand.engine = game
    return hand_records_none(hand)


def _charge_time(table: Table, sessions: dict[int, SeatSession], by) -> None:
    """The time collection: every period of seat time begun is charged before anyone is dealt in;
    a player who cannot pay it cannot sit in (tables/services/collection.py)."""
    owed = time_charges_post(table=table, sessions=sessions, by=by, now=timezone.now())
    if owed:
        raise HandError(" ".join(
            f"Seat {seat} owes the time charge of {amount} units and cannot pay it: buy in or cash out first."
            for seat, amount in sorted(owed.items())
        ))


def _setup(table: Table, shoe: Shoe, seats: list[int], stakes: dict[int, int]) -> tuple[HandSetup, Engine]:
    """The hand's setup, with the options in force as the engine records them, and its game."""
    options, state = _engine_setup(table, shoe, seats)
    remaining, unseen = _shoe_held(table, shoe)
    setup = HandSetup(
        game=table.game,
        seats=tuple(seats),
        stakes=stakes,
        options=options,
        carry=_carry(table),
        state=state,
        decks=shoe.decks,
        remaining=remaining,
        unseen=unseen,
    )
    try:
        game = setup.start()
    except IllegalAction as error:
        raise HandError(str(error)) from error
    return replace(setup, options=game.options.as_record()), game


def _shoe_held(table: Table, shoe: Shoe) -> tuple[tuple[int, ...], int]:
    """What `shoe` holds for the table's next hand: the cards of each rank it could still give, and
    how many of those left it face down, counted from its cards. A secret-hand game dealt on from a
    physical shoe (Regent) starts instead where the game of the shoe's latest hand left it: a card
    dealt face down unseen and revealed since (a gift, a see) is recorded unseen, so the count alone
    would let the shoe give that rank once more (RULINGS: a rank the shoe can no longer hold is
    refused). Nothing leaves the shoe between two hands, so that game's shoe is the shoe's."""
    if table.game in SECRET_HANDS and shoe.kind == Shoe.Kind.PHYSICAL:
        latest = shoe.hands.order_by("-number").first()
        if latest is not None:
            left = replay(latest).shoe
            return tuple(left.remaining), left.unseen
    return tuple(shoe_known_remaining(shoe)), shoe_unseen(shoe)


def _carry(table: Table) -> int:
    """What the table's pot carries into this hand (a pot game's unwon pots), read compiled."""
    carry = (Account.Kind.CARRY, None)
    return accounts_get(table=table, keys=[carry])[carry].balance


def _playable_shoe(table: Table) -> Shoe:
    shoe = SHOE_IN_PLAY.first(table.pk)
    if shoe is None:
        raise HandError("There is no shoe in play at this table: start a shoe first.")
    if shoe.cut_card_out:
        raise HandError("The cut card came out last hand: retire this shoe and shuffle a new one.")
    if reason := fresh_deck_due(table, shoe, ONE_GAME_A_SHOE):
        raise HandError(reason)
    return shoe


def _seat_accounts(table: Table, sessions: dict[int, SeatSession]) -> dict[int, Account]:
    """Each seat's chips account, read after the time charge took its due."""
    keys = {seat: (Account.Kind.PLAYER, session.pk) for seat, session in sessions.items()}
    accounts = accounts_get(table=table, keys=keys.values())
    return {seat: accounts[key] for seat, key in keys.items()}


def _stakes(table: Table, sessions: dict[int, SeatSession], chips: dict[int, int], bets: dict[int, int]):
    """Seats playing, the engine's stakes, and what each seat commits up front."""
    if table.game == Game.ROCKET:
        return _rocket_bets(table, sessions, chips, bets)
    if bets:
        raise HandError(f"{table.get_game_display()} takes no bets: every seated player plays.")
    if table.game == Game.PAIRS:
        seats, scores = _pairs_players(table, sessions)
        _check_pairs_fee(table, scores, chips)
        return seats, scores, {}
    if table.game in POINTS_GAMES:
        return *_points_players(table, sessions), {}
    seats = sorted(sessions)
    ante = table.ante(len(seats))
    return seats, chips, {seat: min(ante, chips[seat]) for seat in seats}


def _rocket_bets(table: Table, sessions: dict[int, SeatSession], chips: dict[int, int], bets: dict[int, int]):
    if not bets:
        raise HandError("Take at least one bet before starting the hand.")
    # Every refused seat in one sentence: the dealer corrects them all before tapping again.
    refused = [_bet_refused(table, sessions.get(s), chips.get(s), s, bet) for s, bet in sorted(bets.items())]
    if any(refused):
        raise HandError(" ".join(reason for reason in refused if reason))
    seats = sorted(bets)
    return seats, {seat: bets[seat] for seat in seats}, {seat: bets[seat] for seat in seats}


def _bet_refused(table: Table, session: SeatSession | None, in_front: int | None, seat: int, bet) -> str:
    """Why this seat's bet cannot be taken, naming the seat and its player; "" when it can."""
    if session is None:
        return f"Nobody is seated at seat {seat}."
    who = f"Seat {seat}" + (f" ({session.player_name})" if session.player_name else "")
    if not isinstance(bet, int) or bet % 10:
        return f"{who}: a Rocket bet must be a multiple of 10 units, not {bet}."
    if not table.min_bet <= bet <= table.max_bet:
        return f"{who}: the bet must be between {table.min_bet} and {table.max_bet} units."
    if bet > in_front:
        return f"{who} has {in_front} units in front; a bet of {bet} is more than that."
    return ""


def _last_settled(table: Table) -> Hand | None:
    return LAST_SETTLED.first(table.pk)


def _check_pairs_fee(table: Table, scores: dict[int, int], chips: dict[int, int]) -> None:
    """The fee collection: a Pairs game's players pay the fee on its first round (the engine
    books it; its scores are not chips), so a player who cannot pay it cannot sit in."""
    rules = table_collection(table)
    fee = rules.game_fee if rules is not None else 0
    if not fee or any(scores.values()):
        return
    short = [seat for seat in scores if chips[seat] < fee]
    if short:
        raise HandError(" ".join(
            f"Seat {seat} has {chips[seat]} units in front; the house's fee is {fee}." for seat in short
        ))


def _pairs_players(table: Table, sessions: dict[int, SeatSession]) -> tuple[list[int], dict[int, int]]:
    """The seats a Pairs round deals and their scores going in: the game in progress's players
    and scores (a player seated since waits); between games, every seated player from 0."""
    game = pairs_game_round(table)
    if game is None:
        seats = sorted(sessions)
        return seats, dict.fromkeys(seats, 0)
    return game.seats, seat_keyed(game.settlement["result"]["scores"])


def _points_players(table: Table, sessions: dict[int, SeatSession]) -> tuple[list[int], dict[int, int]]:
    """A points game's round: the game in progress's players and scores (the seats dealt: a Port
    playoff's tied players, else all of them; a player seated since waits); between games, every
    seated player from 0."""
    last = points_game_round(table)
    if last is None:
        seats = sorted(sessions)
        return seats, dict.fromkeys(seats, 0)
    scores = seat_keyed(last.settlement["result"]["scores"])
    return next_round_seats(last.settlement["result"], list(scores)), scores


# The games whose first round starts with a player drawn at random, recorded as the state `first`.
DRAWN_STARTER = (Game.SWEEP, Game.FIVE_CARDS)
_draw = SystemRandom()


def _engine_setup(table: Table, shoe: Shoe, seats: list[int]) -> tuple[dict, dict]:
    """Engine options for this hand (house rules plus hand facts) and extra state."""
    options, state = dict(table.options), {}
    last = _last_settled(table)
    result = (last.settlement or {}).get("result", {}) if last else {}
    if table.game in (Game.ROCKET, Game.PAIRS):
        options["decks"] = shoe.decks
    if table.game == Game.ROCKET and options.get("start") == "button":
        options["previous_button"] = result.get("button")
    if table.game == Game.STARBOARD:
        options["button"] = _next_button(seats, result.get("button"))
    if table.game == Game.PAIRS and options.get("continuous"):
        state = _continuous_state(table)
    if table.game in POINTS_GAMES and (last := points_game_round(table)) is not None:
        state = next_round_state(last.settlement["result"])
    elif table.game in DRAWN_STARTER:  # a new game: its first starter is drawn at random (booklet)
        state = {"first": _draw.choice(seats)}
    return options, state


def _continuous_state(table: Table) -> dict:
    """Continuous Pairs: the stacks still in play and the seat to act, carried from the last
    round while its game goes on."""
    game = pairs_game_round(table)
    result = game.settlement["result"] if game else {}
    if "in_play" not in result:  # a new game, or Continuous turned on mid-game: a fresh deal
        return {}
    return {"in_play": seat_keyed(result["in_play"]), "to_act": result.get("next_to_act")}


def _next_button(seats: list[int], previous: int | None) -> int:
    """The button passes one seat left per game; the first game's button is the first seat."""
    if previous is None:
        return seats[0]
    later = [seat for seat in seats if seat > previous]
    return later[0] if later else seats[0]


def _next_number(table: Table) -> int:
    last = LAST_HAND.first(table.pk)
    return (last.number if last else 0) + 1


def _post_commitments(
    hand: Hand, seat_accounts: dict[int, Account], wager: Account, chain: Chain, by
) -> None:
    """Bets (Rocket) or antes (pot games) leave the players' stacks (`seat_accounts`, as the
    start read them: the post locks them and checks their floors afresh) for the hand's new
    `wager` account."""
    reason = "bet" if hand.game == Game.ROCKET else "ante"
    lines = []
    for seat, amount in seat_keyed(hand.committed).items():
        lines += [Line(seat_accounts[seat], -amount, reason), Line(wager, amount, reason)]
    if lines:
        ledger_post(
            lines=lines,
            kind="bet",
            memo=f"Hand {hand.number}: {reason}s",
            by=by,
            table=hand.table,
            hand_id=hand.pk,
            savepoint=False,  # in a step of the hand: a refusal ends its transaction
            chain=chain,
        )


def _accounts(hand: Hand, parties) -> dict:
    """The accounts of these parties to the hand (a seat, "wager", "pot", "carry", "house"), read
    together."""
    keys = {party: _account_key(hand, party) for party in parties}
    accounts = accounts_get(table=hand.table, keys=set(keys.values()))
    return {party: accounts[key] for party, key in keys.items()}


def _account_key(hand: Hand, party) -> AccountKey:
    if isinstance(party, int):
        return Account.Kind.PLAYER, hand.sessions[str(party)]
    if party in ("wager", "pot"):
        return Account.Kind(party), hand.pk
    if party == "carry":
        return Account.Kind.CARRY, None
    return (Account.Kind.TRAY if hand.game == Game.ROCKET else Account.Kind.RAKE), None


# Cards and decisions


def _record_card(hand_id: int, rank: int | None, by, device: str, expected_seq: int) -> Hand:
    if rank is not None and (type(rank) is not int or rank not in RANKS):  # not a bool, not 5.0
        # A slip of the finger, refused like any malformed input: only a real rank that the shoe
        # cannot hold (RankRefused) is an integrity incident.
        raise HandError(f"{RANK_RANGE}, not {shown(rank)}: key the card again.")
    hand = lock_hand(hand_id, expected_seq, with_shoe=True)
    game = _engine(hand)
    due = game.next
    if not isinstance(due, CardDue):
        raise HandError(f"No card is due: the hand waits for {due.describe()}.")
    shoe = hand.shoe
    if due.pile:
        _deal(game, rank)  # a card of the game's own pile: it left the shoe before, as it was pitched
        _append_cards(hand, [_card(hand, None, rank, receiver_for(due.to, due.why), due, by, device)])
        save_fields(hand, ("seq",))
        return hand
    held = reshuffle_due(hand, game, due)
    if held is None and not shoe_cards_left(shoe, shoe_deck(shoe)):
        held = _not_discards(hand)
    if held is not None:
        shoe_recycle(shoe, hand=hand, held=held, by=by, device=device)
        game = _engine(hand_records_again(hand))  # its shoe now holds the reshuffled deck, less the burn
    rank = shoe_card_rank(shoe, rank, face_down=due.face_down)
    if rank is not None:  # a card dealt face down at a physical table is checked when revealed
        try:
            game.shoe.check(rank)
        except IllegalAction as error:
            raise RankRefused(str(error), hand) from error
    _deal(game, rank)
    card = _card(hand, shoe, rank, receiver_for(due.to, due.why), due, by, device)
    _append_cards(hand, [card, *_unrevealed(hand, shoe, game, by, device)])
    save_fields(shoe, ("cards_out", "cut_card_out"))
    save_fields(hand, ("seq",))
    return hand


def reshuffle_due(hand: Hand, game: Engine, due: CardDue) -> list[int] | None:
    """The ranks kept out of the deck by a shuffle the rules call for before the card `due`, or
    None when none is due. Monster deals each round after the first from the whole deck shuffled
    again (one recycle per later round). Five Cards shuffles the deck again once its five targets
    are out if it set a matching card aside: those go back in, the targets stay (RULINGS)."""
    if hand.game == Game.MONSTER and due.why == "deal" and game.rounds > 1 + len(hand.recycle_list):
        return []
    if hand.game == Game.FIVE_CARDS and due.why == "draw" and game.set_aside and not hand.recycle_list:
        return list(game.targets)
    return None


def _deal(game: Engine, rank: int | None) -> None:
    try:
        game.deal(rank)
    except IllegalAction as error:
        raise HandError(str(error)) from error


def _append_cards(hand: Hand, cards: list[CardEvent]) -> None:
    """Record the step's cards (`_card`) in the table's chain, in one insert: the card dealt, and
    after a Blackstone game's last card the ones it sends to the discards unseen (30 or so)."""
    chain_extend(cards, chain_lock(table=hand.table))
    hand.card_list.extend(cards)


def _card(hand: Hand, shoe: Shoe | None, rank, receiver: str, due, by, device: str) -> CardEvent:
    """The hand's next card event, unsaved: the hand's next step, the shoe's next position."""
    hand.seq += 1
    return CardEvent(
        shoe=hand.shoe,
        shoe_position=shoe_take_position(shoe) if shoe else None,
        rank=rank,
        receiver=receiver,
        seat=due.seat if due else None,
        why=due.why if due else "",
        hand=hand,
        seq=hand.seq,
        keyed_by=by,
        device=device,
        at=timezone.now(),
    )


def _not_discards(hand: Hand) -> list[int | None]:
    """Ranks of the shoe's cards a recycle leaves out: every card on the table in this hand
    (a folded player's and a replaced pair's too; None for one dealt face down unseen), and the
    cards kept for score. A card dealt from the game's own pile (Goblin Poker's pitched cards)
    is one of the hand's cards already: it left the shoe once, when first dealt."""
    on_table = [
        card.rank for card in hand.card_list if card.receiver != Receiver.BURN and card.shoe_position
    ]
    return [*on_table, *_kept_for_score(hand)]


def hand_discards(hand: Hand) -> int:
    """How many cards a recycle of `hand`'s dry shoe would refill it with (`shoe_recycle`)."""
    return sum(composition(hand.shoe.decks)) - len(_not_discards(hand))


def _kept_for_score(hand: Hand) -> list[int]:
    """Pairs: the stacks carried into this hand (Continuous) and the card each earlier hand of
    the game scored, as far back as the game was dealt from this hand's shoe."""
    if hand.game != Game.PAIRS:
        return []
    kept = [rank for stack in hand.state.get("in_play", {}).values() for rank in stack]
    going_in = hand.stakes
    earlier = hand.table.hands.filter(status=Hand.Status.SETTLED, number__lt=hand.number).order_by("-number")
    for previous in earlier:
        # Every hand scores points, so scores of nothing going in mean the game began here.
        if not any(going_in.values()) or previous.shoe_id != hand.shoe_id:
            break
        kept.append(previous.settlement["result"]["card"])
        going_in = previous.stakes
    return kept


def _unrevealed(hand: Hand, shoe: Shoe, game, by, device: str) -> list[CardEvent]:
    """Blackstone: cards counted off for a take but not revealed once a second
    10 ends the game go to the discards unseen, and still leave the shoe."""
    if hand.game != Game.BLACKSTONE or not game.finished:
        return []
    return [
        _card(hand, shoe, shoe_card_rank(shoe, None, face_down=True), Receiver.DISCARD, None, by, device)
        for _ in range(unrevealed_after_last_take(game.transcript))
    ]


def _decide(hand_id: int, action: tuple, by, device: str, key: str, expected_seq: int) -> Hand:
    hand = lock_hand(hand_id, expected_seq)
    game = _engine(hand)
    due = game.next
    if not isinstance(due, DecisionDue):
        raise HandError(f"No decision is due: the hand waits for {due.describe()}.")
    try:
        parsed = _blind_cards_named(Action.parse(action), due)
        game.act(parsed)
    except IllegalAction as error:
        raise HandError(str(error)) from error
    hand.seq += 1
    decision = Decision(
        hand=hand,
        seq=hand.seq,
        seat=due.seat,
        action=list(parsed.as_record()),
        by=by,
        device=device,
        at=timezone.now(),
        key=key,
    )
    chain = chain_lock(table=hand.table)
    chain_append(decision, chain)
    hand.decision_list.append(decision)
    _post_draw_fee(hand, parsed, due.seat, game, by, chain)
    save_fields(hand, ("seq",))
    return hand


# Moves that put cards face down in the middle, keyed blind: a Goblin Poker pitch, a Monster discard.
BLIND_MOVES = (Move.PITCH, Move.DISCARD)


def _blind_cards_named(action: Action, due: DecisionDue) -> Action:
    """A pitch or discard keyed blind (no rank, or "?" for each card) whose cards the system knows:
    a hand a system shoe dealt that leaves the player one choice (Goblin Poker's last card, a
    Monster hand that must give up one of its pair) is recorded as that choice, as the engine
    lists it. Any other is played as keyed: a physical table's is unseen, and a system shoe's with
    a choice left is refused, the dealer keying the ranks (docs/tablet.md)."""
    ranks = action.ranks or ()
    if action.move not in BLIND_MOVES or any(rank is not None for rank in ranks):
        return action
    count = max(len(ranks), 1) if action.move is Move.PITCH else len(ranks)
    choices = {choice for choice in due.choices if choice[0] == action.move and len(choice) == 1 + count}
    return Action.parse(choices.pop()) if len(choices) == 1 else action


def _post_draw_fee(hand: Hand, action: Action, seat: int, game, by, chain: Chain) -> None:
    """Starboard: a draw's fee leaves the player's chips for the hand's pot as the draw is
    recorded, so the ledger says where the chips are at every step (the settlement leaves it out)."""
    if hand.game != Game.STARBOARD or action.move is not Move.DRAW:
        return
    fee = game.options.draw_price
    accounts = _accounts(hand, [seat, "pot"])
    ledger_post(
        lines=[Line(accounts[seat], -fee, DRAW_FEE), Line(accounts["pot"], fee, DRAW_FEE)],
        kind="bet",
        memo=f"Hand {hand.number}: seat {seat} draws",
        by=by,
        table=hand.table,
        hand_id=hand.pk,
        savepoint=False,  # in a step of the hand: a refusal ends its transaction
        chain=chain,
    )


# Settlement


def _settle(hand_id: int, by, expected_seq: int) -> Hand:
    hand = lock_hand(hand_id, expected_seq)
    game = _engine(hand)
    if not game.finished:
        raise HandError(f"Hand {hand.number} is not over: it waits for {game.next.describe()}.")
    payout = max(
        [amount for party, amount in game.settlement().deltas.items() if isinstance(party, int)] + [0]
    )
    if payout > hand.payout_approval_threshold:  # as recorded when the hand started
        request = ApprovalRequest.objects.create(
            kind=ApprovalRequest.Kind.PAYOUT,
            table=hand.table,
            hand=hand,
            amount=payout,
            requested_by=by,
            reason=f"Hand {hand.number} pays {payout} units to one seat.",
        )
        seal(request, table=hand.table, event="requested")
        hand.approval_list.append(request)
        hand.seq += 1
        hand.status = Hand.Status.AWAITING_APPROVAL
        save_fields(hand, ("seq", "status"))
        seal(hand, table=hand.table, event=hand.status)
    else:
        post_settlement(hand, by=by, game=game)
    return hand


def _settle_and_continue(hand_id: int, by, expected_seq: int) -> Hand:
    hand = _settle(hand_id, by, expected_seq)
    if not _round_goes_on(hand):
        return hand
    try:
        with transaction.atomic():  # a round that cannot start leaves the settlement standing
            return _start(hand.table_id, {}, by)
    except HandError:
        return hand


def _round_goes_on(hand: Hand) -> bool:
    """A settled Pairs round whose game goes on (it moved no chips): the next round deals the
    game's players, whoever has sat down since."""
    if hand.game != Game.PAIRS or hand.status != Hand.Status.SETTLED:
        return False
    game = pairs_game_round(hand.table)
    return game is not None and game.pk == hand.pk


def post_settlement(hand: Hand, *, by, approved_by=None, game=None) -> None:
    """Post the finished hand's settlement and close it (the caller holds the hand's lock)."""
    settlement = (game or _engine(hand)).settlement()
    memo = f"Hand {hand.number} settlement"
    posted = _post_settlement_lines(
        hand, settlement, by=by, approved_by=approved_by, hand_id=hand.pk, memo=memo
    )
    hand.seq += 1
    hand.status = Hand.Status.SETTLED
    hand.settled_at = timezone.now()
    hand.settlement = plain(_settlement_record(settlement))  # as a read of the hand will give it
    save_fields(hand, ("seq", "status", "settled_at", "settlement"))
    seal(hand, table=hand.table, chain=posted.chain if posted else None, event=hand.status)


def _post_settlement_lines(
    hand: Hand, settlement, *, by, memo: str, hand_id: int | None, approved_by=None
) -> Transaction | None:
    """Post a settlement as one ledger transaction, if it moves money, and return it: a hand's, or
    (`hand_id` None) a Pairs game's that a player lost by leaving, booked on its last round's
    accounts. The post locks the table's chain after the accounts are read: an old table's rake
    made on first use is sealed in that chain (`account_get`), through another object than one
    locked before it would be."""
    lines = _settlement_lines(hand, settlement)
    if not lines:  # a Pairs round that does not end the game moves no money, nor does the forfeit ending
        return None
    try:
        return ledger_post(
            lines=lines,
            kind="settlement",
            by=by,
            table=hand.table,
            hand_id=hand_id,
            approved_by=approved_by,
            memo=memo,
            savepoint=False,  # in a step of the hand: a refusal ends its transaction
        )
    except OverdrawError as refused:
        raise _player_short(hand, refused) from refused


def _player_short(hand: Hand, refused: OverdrawError) -> DomainError:
    """A loser without the chips the settlement takes, named by the seat the dealer knows (the
    ledger knows the seat session only), with what to do. No query: the refusal ended the
    transaction."""
    seat = seat_of_account(hand, refused.account)
    if seat is None:
        return refused
    held = f"{refused.balance} unit" + ("" if refused.balance == 1 else "s")
    return HandError(
        f"Seat {seat} has {held} in front; paying {refused.wanted} is more than that: "
        "the player buys more first."
    )


def seat_of_account(hand: Hand, account: Account) -> int | None:
    """The seat of `hand` whose chips `account` holds (the ledger knows the seat session only), or
    None for any other account. No query."""
    seats = {ref: int(seat) for seat, ref in hand.sessions.items()}
    return seats.get(account.ref) if account.kind == Account.Kind.PLAYER else None


def _settlement_lines(hand: Hand, settlement) -> list[Line]:
    """The engine's entries as postings, after the up-front commitments come back."""
    committed = seat_keyed(hand.committed)
    accounts = _accounts(hand, {"wager", *committed, *(entry.party for entry in settlement.entries)})
    back = "bet returned" if hand.game == Game.ROCKET else "ante returned"
    lines = []
    for seat, amount in committed.items():
        lines += [Line(accounts["wager"], -amount, back), Line(accounts[seat], amount, back)]
    totals: dict[tuple[Account, str], int] = {}
    for entry in settlement.entries:
        if entry.reason == DRAW_FEE:
            continue  # posted as the draw was recorded
        key = (accounts[entry.party], entry.reason)
        totals[key] = totals.get(key, 0) + entry.amount
    return lines + [Line(account, amount, reason) for (account, reason), amount in totals.items() if amount]


def _settlement_record(settlement) -> dict:
    return {
        "deltas": {str(party): amount for party, amount in settlement.deltas.items()},
        "entries": [[entry.party, entry.amount, entry.reason] for entry in settlement.entries],
        "carry_out": settlement.carry_out,
        "shortfalls": {str(seat): amount for seat, amount in settlement.shortfalls.items()},
        "result": settlement.result,
    }


# A Pairs game: fixed players, and a player who leaves loses it


def pairs_game_round(table: Table) -> Hand | None:
    """The last settled round of the Pairs game in progress at `table`, or None between games.

    A game runs from its first deal until a round ends it (a loser or a Five Card Catch) or one
    of its players leaves (the cash-out settles it at once: `game_forfeit`). Its players
    are fixed at its first deal: the seat sessions of this round (RULINGS.md "Tables, seats and
    games").
    """
    return _game_round(table, (Game.PAIRS,))


def points_game_round(table: Table) -> Hand | None:
    """The last settled round of the points game in progress at `table` (tables.games.rounds), or
    None between games. Its players are fixed as a Pairs game's are; a player who leaves ends it:
    played for stakes, they lose it (`game_forfeit`); played for nothing, unscored. Either way the
    next round starts a new game."""
    return _game_round(table, POINTS_GAMES)


def _game_round(table: Table, games) -> Hand | None:
    last = _last_settled(table)
    if last is None or last.game not in games or last.settlement["result"]["game_over"]:
        return None
    left = SeatSession.objects.filter(pk__in=last.sessions.values()).exclude(ended_at=None)
    return None if left.exists() else last


def pairs_forfeit_settlement(last_round: Hand, seat: int) -> Settlement:
    """How a Pairs game settles when `seat` leaves it after `last_round`: under the round's ending
    (as recorded on it) as if the seat had reached the losing score, with the pot the round
    carried out. A replay of the records: the same answer every time it is asked."""
    result = last_round.settlement["result"]
    scores = {**seat_keyed(result["scores"]), seat: result["target"]}
    options = PairsOptions.build(HandSetup.from_record(last_round.setup).options)  # old rounds: none
    money = settle_game(
        scores,
        ending=options.ending,
        loser=seat,
        tacoma_amount=options.tacoma_amount,
        carry=last_round.settlement["carry_out"],
        collection=options,
    )
    facts = {"event": "left", "scores": scores, "target": result["target"], "game_over": True}
    return replace(money, result={**facts, **money.result})


def points_forfeit_settlement(last_round: Hand, seat: int) -> Settlement:
    """How a points game played for stakes settles when `seat` leaves it after `last_round`: the
    scores as they stand, the leaver losing (`tables.games.rounds.leaver_settlement`), under the
    options recorded on the round, with the carry it left. A replay of the records."""
    options = games()[last_round.game].Options.build(HandSetup.from_record(last_round.setup).options)
    scores = seat_keyed(last_round.settlement["result"]["scores"])
    return leaver_settlement(options, scores, seat, carry=last_round.settlement["carry_out"])


def forfeit_settlement(last_round: Hand, seat: int) -> Settlement:
    """How the game of `last_round` (Pairs, or a points game) settles when `seat` leaves it."""
    if last_round.game == Game.PAIRS:
        return pairs_forfeit_settlement(last_round, seat)
    return points_forfeit_settlement(last_round, seat)


def forfeit_game_round(table: Table) -> Hand | None:
    """The last round of a game in progress at `table` that a player loses by leaving: a Pairs
    game, or a points game played for stakes (one played for nothing ends unscored: no money to
    settle, docs/rules/README.md "For stakes")."""
    if table.game == Game.PAIRS:
        return pairs_game_round(table)
    last = points_game_round(table) if table.game in POINTS_GAMES else None
    return last if last is not None and last.options.get("point_value") else None


def pairs_round_undealt(hand: Hand) -> bool:
    """An open Pairs round with nothing recorded in it: every card, decision or request to the
    pit moves the hand's step (`seq`) from 0."""
    return hand.game == Game.PAIRS and hand.status == Hand.Status.IN_PROGRESS and hand.seq == 0


def pairs_round_withdraw(*, hand: Hand, seat: int, by) -> None:
    """The player at `seat` leaves while `hand`, a Pairs round, is open with nothing recorded in
    it: the round opened by the tap that settled the one before, with no card dealt. It closes
    as voided, without the pit: it dealt no card and moved no chip (a Pairs round posts nothing
    when it starts), so a void has nothing to reverse. Sealed and in the audit log; the caller
    holds the table's and the hand's locks and goes on to `pairs_game_forfeit`.

    Raises if anything was recorded in the round: a card, a decision or a request to the pit
    (each moves the hand's step, `seq`): that player is in the hand being played."""
    if not pairs_round_undealt(hand):
        raise HandError(f"Seat {seat} is in the hand being played; cash out after it is settled.")
    hand.seq += 1  # a tablet on the round's screen sees it moved on
    hand.status = Hand.Status.VOIDED
    save_fields(hand, ("seq", "status"))
    seal(hand, table=hand.table, event=hand.status)
    audit_record(
        action=AuditEvent.Action.ROUND_WITHDRAWN, user=by, table=hand.table_id, hand=hand.pk, seat=seat
    )


def forfeit_memo_start(number: int) -> str:
    """How the memo of the forfeit settlement of the game whose last round is hand `number` starts.
    The transaction has no `hand_id` (the round replays to what it posted itself), so the pit finds
    it by its table, its kind, no hand and this memo (`tables.review.game_forfeits`): only
    `game_forfeit` posts a settlement without a hand, and a hand's number is unique at its table."""
    return f"Hand {number}: seat "


def game_forfeit(*, session: SeatSession, by) -> Settlement | None:
    """The player of `session` leaves: if they are a player of the game in progress that leaving
    loses (`forfeit_game_round`: Pairs, a points game played for stakes), they lose it, and it
    settles at once (`forfeit_settlement`) through the hand settlements' posting path, on the
    ledger and in the audit log. Part of the cash-out: the caller holds the session's and the
    table's locks in the cash-out's transaction, so the cash-out takes what is left; a leaver
    short of what they owe is refused as a loser at a round's end is (they buy more first).
    Returns the settlement, or None for a player between games or waiting for the next."""
    table = session.seat.table
    last_round = forfeit_game_round(table)
    seat = session.seat.number
    if last_round is None or last_round.sessions.get(str(seat)) != session.pk:
        return None
    settlement = forfeit_settlement(last_round, seat)
    ending = settlement.result.get("ending", DIFFERENCE)
    game = Game(last_round.game).label
    memo = f"{forfeit_memo_start(last_round.number)}{seat} left the {game} game and loses it ({ending})"
    # Not the round's own transaction (hand_id None): the round replays to what it posted itself.
    _post_settlement_lines(last_round, settlement, by=by, memo=memo, hand_id=None)
    audit_record(
        action=AuditEvent.Action.GAME_FORFEIT,
        user=by,
        table=table.pk,
        hand=last_round.pk,
        seat=seat,
        session=session.pk,
        ending=ending,
        scores=plain(settlement.result["scores"]),
        deltas=plain(settlement.deltas),
    )
    return settlement
