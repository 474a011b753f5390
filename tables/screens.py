"""What a dealer's tablet shows: a hand (or a table) as plain JSON-able values.

Read-only. `hand_screen` rebuilds the hand's rules engine from its records, the
same replay `engine_for` runs, but reads each kind of record once (its cards,
its decisions, its recycles, its approval requests, its seat sessions, the
players' accounts, and the shoe's latest recycle once its own shuffle is dealt
out), so a screen costs a fixed handful of queries whatever the hand's length;
the answer to a hand's step reads only the players' names and chips again (one query), the
step having read and written the rest (`hand_records`).
Nothing here writes: ledger accounts that do not exist yet read as zero instead
of being created. The REST API's hand detail returns the same dict.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from django.utils import timezone

from ledger.models import Account
from ledger.services import account_code
from tables.games import CardDue, DecisionDue, Finished, Move
from tables.games.base import NAMING, TARGETED, DecisionEvent
from tables.games.cards import composition
from tables.games.collection import FEE, NONE, RAKE, TIME, CollectionOptions
from tables.games.pairs import losing_score
from tables.games.rounds import next_round_seats
from tables.models import (
    POINTS_GAMES,
    SECRET_HANDS,
    ApprovalRequest,
    CardEvent,
    Game,
    Hand,
    Receiver,
    Recycle,
    SeatSession,
    Shoe,
    Table,
)
from tables.players import player_ids
from tables.services.approvals import MONEY_ON_A_SLIP
from tables.services.card_corrections import hand_correctable_card
from tables.services.collection import table_collection, time_charge_due
from tables.services.counts import table_is_open
from tables.services.engine import hand_game, hand_records, plain, seat_keyed
from tables.services.hands import (
    forfeit_settlement,
    hand_discards,
    pairs_forfeit_settlement,
    pairs_game_round,
    pairs_round_undealt,
    points_game_round,
    reshuffle_due,
)
from tables.services.rating_slips import Kind, slip_state, slips_open
from tables.services.seating import SEATS_PER_GAME, hand_players_sent
from tables.services.shoes import (
    recycle_burn,
    shoe_cards_left,
    shoe_deck,
    shoe_deck_of,
    shoe_next_system_card,
    shoe_spent,
)

SEAT_RECEIVERS = (Receiver.SEAT, Receiver.TIEBREAK)
PARTY_NAMES = {"house": "The house (tray)", "carry": "The carry (next pot)", "pot": "The pot"}
POT_GAME_HOUSE = "The house (rake)"  # a pot game's house party is booked to the rake account
FORFEIT_ENDING = "forfeit"


def hand_screen(hand: Hand) -> dict[str, Any]:
    """Everything the tablet shows for `hand` (read with its table and shoe), as the database
    holds it now, or as the service's step that returned it left it."""
    hand_records(hand)
    cards, approvals, recycled = hand.card_list, hand.approval_list, hand.recycle_list
    deck = shoe_deck_of(hand)
    game = hand_game(hand)
    names, chips = _names_and_chips(hand)
    voided = hand.status == Hand.Status.VOIDED
    due = None if voided else game.next  # a voided hand waits for nothing: no seat is due or in
    extras = GAME_EXTRAS[hand.game](game, hand)
    if voided:
        extras["status"] = dict.fromkeys(hand.seats, "hand voided")
    pending = [request for request in approvals if request.status == ApprovalRequest.Status.PENDING]
    playable = hand.status == Hand.Status.IN_PROGRESS and not pending
    return {
        "hand": hand.pk,
        "number": hand.number,
        "table": _table(hand.table),
        "status": hand.status,
        "status_label": hand.get_status_display(),
        "seq": hand.seq,
        "seats": [_seat(hand, seat, cards, names, chips, game, due, extras) for seat in hand.seats],
        "dealer": extras.get("dealer"),
        "common": extras.get("common"),
        "centre": extras.get("centre"),
        "pot": extras.get("pot"),
        "scores": extras.get("scores"),
        "secret": extras.get("secret"),
        "points": extras.get("points"),
        "turn": due.seat if isinstance(due, (CardDue, DecisionDue)) else None,
        "next": _next(due, hand, deck, playable, game),
        "shoe": _shoe(hand.shoe, deck, put_back=sum(getattr(game, "returned_tens", {}).values())),
        "recycled": [_recycled(recycle, hand.game) for recycle in recycled],
        "actions": _actions(due, hand) if playable else None,
        "correctable": _correctable(hand) if playable else None,
        "settlement": _settlement(due, names, game.options) if isinstance(due, Finished) else None,
        "approvals": [_approval(request) for request in approvals],
        "waiting_for": pending[0].kind if pending else None,
        # Nothing to key offline once the hand is over: the settlement needs the server. A secret
        # hand's steps name face-down cards and seats, which the offline keypad cannot: they wait too.
        "offline": _offline_keypad(hand)
        if playable and not isinstance(due, Finished) and hand.game not in (*SECRET_HANDS, *POINTS_GAMES)
        else None,
    }


def table_screen(table: Table) -> dict[str, Any]:
    """The table between hands: seats and stacks, the shoe in play, the open hand, and (Rocket)
    each seat's bet of the last hand that may be taken again ("Same bets"); (Pairs) the game in
    progress, its players' scores and who waits for the next game, or how the last game ended."""
    sessions = SeatSession.objects.filter(seat__table=table, ended_at=None).select_related("seat", "player")
    by_seat = {session.seat.number: session for session in sessions}
    chips = _chips(table, {number: session.pk for number, session in by_seat.items()})
    shoe = table.shoes.filter(state=Shoe.State.IN_PLAY).first()
    hand = table.hands.filter(status__in=Hand.OPEN).first()
    last = table.hands.exclude(status__in=Hand.OPEN).order_by("-number").first()
    bets = _bets_again(table, last, by_seat, chips) if last and table.game == Game.ROCKET else {}
    pairs = _pairs_game(table, by_seat) if table.game == Game.PAIRS else None
    points = _points_game(table, by_seat) if table.game in POINTS_GAMES else None
    seats = [_table_seat(n, by_seat.get(n), chips, bets.get(n, 0)) for n in _seat_numbers(table)]
    seats = _with_time_due(seats, time_charge_due(table=table, sessions=by_seat))
    seats = _with_rating(seats, by_seat)
    if pairs:
        seats = [_pairs_seat(seat, pairs) for seat in seats]
    elif points:
        seats = [_points_seat(seat, points) for seat in seats]
    return {
        "table": _table(table),
        "seats": seats,
        "pairs": pairs,
        "points_game": points,
        "points_last_game": _last_game(table) if table.game in POINTS_GAMES and points is None else None,
        "shoe": _shoe(shoe, shoe_deck(shoe)) if shoe else None,
        "open_hand": _hand_link(hand) if hand else None,
        # A player may leave between hands, or before the round a Pairs game's last settlement
        # opened is dealt (pairs_round_withdraw).
        "seats_leave": hand is None or pairs_round_undealt(hand),
        "last_hand": _hand_link(last) if last else None,
        "takes_bets": table.game == Game.ROCKET,
        "same_bets": [{"seat": seat, "bet": bet} for seat, bet in sorted(bets.items())],
        "ante": None if table.game in NO_ANTE else table.ante(len(by_seat)),
        "collection": _collection_note(table),
        "shoe_note": _shoe_note(shoe),
        "is_open": table_is_open(table),
        "tray_requests": _tray_requests(table),
    }


def with_typed(screen: dict[str, Any], typed: Mapping[str, str]) -> dict[str, Any]:
    """The table screen with what a refused form was sent with: a start's bets (`bet_<seat>`
    fields), so a dealer corrects the refused seat without typing the others again; a seat's
    opening or buy-in (`seat`), its form and its identification left open, the amounts as typed,
    so a buy-in refused until the player shows identification is sent again with it."""
    seats = [{**seat, "bet": typed.get(f"bet_{seat['number']}", seat["bet"])} for seat in screen["seats"]]
    fields = ("card_number", "player_name", "buy_in", "chips", "amount")  # never an identification: not shown
    refused = {name: typed.get(name, "") for name in fields}
    seat_refused = typed.get("seat")
    seats = [{**seat, "typed": refused} if str(seat["number"]) == seat_refused else seat for seat in seats]
    return {**screen, "seats": seats}


def _bets_again(table: Table, last: Hand, by_seat: dict[int, SeatSession], chips: dict) -> dict[int, int]:
    """The last hand's Rocket bets of the players still in their seats, where the table's limits and
    the chips in front still allow them."""
    bets = {}
    for seat, bet in seat_keyed(last.committed).items():
        session = by_seat.get(seat)
        if session and session.pk == last.sessions.get(str(seat)):
            if table.min_bet <= bet <= min(table.max_bet, chips[seat]):
                bets[seat] = bet
    return bets


def _hand_link(hand: Hand) -> dict[str, Any]:
    return {
        "hand": hand.pk,
        "number": hand.number,
        "status": hand.status,
        "status_label": hand.get_status_display(),
    }


def _shoe_note(shoe: Shoe | None) -> str:
    """Why the next hand needs a freshly shuffled shoe first, if it does."""
    if shoe is None:
        return "No shoe in play: shuffle one before the first hand."
    return shoe_spent(shoe)


# Pairs between rounds: the game in progress, or how the last one ended


def _pairs_game(table: Table, by_seat: dict[int, SeatSession]) -> dict[str, Any]:
    """The game in progress (its last round, losing score, players and their standing, lowest
    score first) or, between games, the losing score the seated players would play to and how
    the last game ended."""
    game = pairs_game_round(table)
    if game is None:
        players = len(by_seat)
        target = table.options.get("target") or (losing_score(players) if players >= 2 else None)
        return {"in_game": False, "target": target, "players": [], "standing": [], "forfeits": {},
                "last_game": _last_game(table)}
    result = game.settlement["result"]
    scores = seat_keyed(result["scores"])
    names = {seat: session.player_name for seat, session in by_seat.items()}
    standing = sorted(scores.items(), key=lambda item: (item[1], item[0]))
    return {
        "in_game": True,
        "round": _hand_link(game),
        "target": result["target"],
        "pot": game.settlement["carry_out"] or None,
        "ending": _ending_name(result["ending"]),
        "players": game.seats,
        "standing": [
            {"seat": seat, "player": names.get(seat, ""), "score": score, "to_lose": result["target"] - score}
            for seat, score in standing
        ],
        # What leaving would cost each player: the cash-out settles the game first.
        "forfeits": {seat: -pairs_forfeit_settlement(game, seat).deltas[seat] for seat in game.seats},
        "scores": scores,
        "last_game": None,
    }


def _points_game(table: Table, by_seat: dict[int, SeatSession]) -> dict[str, Any] | None:
    """A points game in progress between rounds: its last round, its players' scores (highest
    first), the seats the next round deals and, played for stakes, what leaving would cost each
    player (the cash-out settles the game first); None between games."""
    game = points_game_round(table)
    if game is None:
        return None
    result = game.settlement["result"]
    scores = seat_keyed(result["scores"])
    names = {seat: session.player_name for seat, session in by_seat.items()}
    staked = bool(game.options.get("point_value"))
    return {
        "round": _hand_link(game),
        "target": result.get("target"),
        "standing": [
            {"seat": seat, "player": names.get(seat, ""), "score": score}
            for seat, score in sorted(scores.items(), key=lambda item: (-item[1], item[0]))
        ],
        "next_seats": next_round_seats(result, list(scores)),
        "players": list(scores),
        "staked": staked,
        "forfeits": {seat: -forfeit_settlement(game, seat).deltas[seat] for seat in scores} if staked else {},
    }


def _points_seat(seat: dict[str, Any], points: dict[str, Any]) -> dict[str, Any]:
    """A seat at a points game in progress: whether leaving loses the game (played for stakes),
    and what it would pay."""
    loses = bool(seat["session"]) and points["staked"] and seat["number"] in points["players"]
    return {**seat, "loses_game": loses, "forfeit": points["forfeits"].get(seat["number"])}


def _pairs_seat(seat: dict[str, Any], pairs: dict[str, Any]) -> dict[str, Any]:
    """A Pairs seat: its score in the game in progress, or that its player waits for the next."""
    number = seat["number"]
    playing = number in pairs["players"]
    return {
        **seat,
        "score": pairs["scores"][number] if playing else None,
        "waits": bool(seat["session"]) and pairs["in_game"] and not playing,
        "forfeit": pairs["forfeits"].get(number),
    }


def _last_game(table: Table) -> dict[str, Any] | None:
    """How the table's last game (Pairs, or a points game) ended, while no new game has been
    dealt: the round that ended it (a loser, a winner, a Five Card Catch), or a player who left
    (its settlement replayed; a points game played for nothing ends unscored)."""
    last = table.hands.filter(status=Hand.Status.SETTLED).order_by("-number").first()
    if last is None or last.game not in (Game.PAIRS, *POINTS_GAMES):
        return None
    sessions = seat_keyed(last.sessions)
    rows = SeatSession.objects.filter(pk__in=sessions.values()).values_list("pk", "player_name", "ended_at")
    names = {pk: name for pk, name, _ in rows}
    names = {seat: names.get(pk, "") for seat, pk in sessions.items()}
    result = last.settlement["result"]
    if result["game_over"]:
        entries = [tuple(entry) for entry in last.settlement["entries"]]
    else:
        # The first of its players to leave ended the game; any who left after were between games.
        first = min((ended, pk) for pk, _, ended in rows if ended is not None)[1]
        leaver = next(seat for seat, pk in sessions.items() if pk == first)
        money = forfeit_settlement(last, leaver)
        result, entries = plain(money.result), [(e.party, e.amount, e.reason) for e in money.entries]
        if last.game != Game.PAIRS and not last.options.get("point_value"):
            result = {"event": "left", "loser": leaver, "unscored": True}
    return {
        "round": _hand_link(last),
        "says": _game_end(result, names),
        **_money_lines(entries, names, house=POT_GAME_HOUSE),
    }


def _game_end(result: dict, names: dict[int, str]) -> str:
    return pairs_game_end(result, names) if "ending" in result else points_game_end(result, names)


def points_game_end(result: dict, names: dict[int, str]) -> str:
    """How a points game ended: who won it, with which score (tied winners share it); or that a
    player left it, losing it (played for stakes) or ending it unscored (played for nothing)."""
    left = f"{_party_name(int(result['loser']), names)} left during the game" if "loser" in result else ""
    if result.get("unscored"):
        return f"{left}: it ends unscored (played for nothing)."
    winners = result.get("winners") or [result["winner"]]
    who = " and ".join(_party_name(int(seat), names) for seat in winners)
    score = result["scores"][str(winners[0])]
    won = f"{who} {'win' if len(winners) > 1 else 'wins'} the game with {score} points."
    return f"{left} and loses it. {won}" if left else won


def pairs_game_end(result: dict, names: dict[int, str]) -> str:
    """How a Pairs game ended, in a sentence: who lost (or won a Five Card Catch), and the ending
    that paid it."""
    if result.get("five_card_winner") is not None:
        who = _party_name(int(result["five_card_winner"]), names)
        how = f"{who} holds five cards: a Five Card Catch wins the game"
    elif result.get("event") == "left":
        how = f"{_party_name(int(result['loser']), names)} left during the game and loses it"
    else:
        who = _party_name(int(result["loser"]), names)
        how = f"{who} reached {result['target']} points and loses the game"
    ending = _ending_name(result["ending"])
    if result["ending"] == FORFEIT_ENDING:
        return f"{how}. Ending: {ending} (no chips move; the loser pays a forfeit away from the table)."
    return f"{how}. Ending: {ending}."


def _ending_name(ending: str) -> str:
    return ending.capitalize()


# Records in


def _names_and_chips(hand: Hand) -> tuple[dict[int, str], dict[int, int]]:
    """Seat number to the player's name, and to the chips in front (`hand_players_sent`): as the
    step that returned `hand` sent the read with its writes (`players_sent`), or read now."""
    found = (hand.__dict__.pop("players_sent", None) or hand_players_sent(hand))()
    seats = [int(seat) for seat in hand.sessions]
    return (
        {seat: found[seat][0] if seat in found else "" for seat in seats},
        {seat: found[seat][1] if seat in found else 0 for seat in seats},
    )


def _chips(table: Table, sessions: dict[int, int]) -> dict[int, int]:
    """Seat number to the chips in front: the balance of the seat session's player account."""
    codes = {
        account_code(kind=Account.Kind.PLAYER, table=table, ref=ref): seat for seat, ref in sessions.items()
    }
    balances = dict(Account.objects.filter(code__in=codes).values_list("code", "balance"))
    return {seat: balances.get(code, 0) for code, seat in codes.items()}


def _table(table: Table) -> dict[str, Any]:
    return {
        "id": table.pk,
        "name": table.name,
        "game": table.game,
        "game_name": table.get_game_display(),
        "min_bet": table.min_bet,
        "max_bet": table.max_bet,
    }


def _seat_numbers(table: Table) -> range:
    return range(1, SEATS_PER_GAME[table.game] + 1)


def _collection_note(table: Table) -> str:
    """What the house collects at a pot-game table, as the dealer tells the players."""
    rules = table_collection(table)
    mode = rules.collection if rules is not None else NONE
    if mode == RAKE:
        return f"The house rakes {rules.rake_percent}% of each pot paid out, at most {rules.rake_cap}."
    if mode == FEE:
        return f"The house takes a fee of {rules.fee} from each player dealt into a game."
    if mode == TIME:
        return f"The house charges each seated player {rules.time_fee} every {rules.time_minutes} minutes."
    return ""


def _with_time_due(seats: list[dict[str, Any]], due: dict[int, Any]) -> list[dict[str, Any]]:
    """Each taken seat with when its next time charge falls due (`time_due`; `time_due_now` once it
    has, until the next deal takes it)."""
    now = timezone.now()
    return [
        {**seat, "time_due": due[seat["number"]], "time_due_now": due[seat["number"]] <= now}
        if seat["number"] in due else seat
        for seat in seats
    ]


def _with_rating(seats: list[dict[str, Any]], by_seat: dict[int, SeatSession]) -> list[dict[str, Any]]:
    """Each carded player's seat with its rating control: `rating` is "none" (no slip: one can
    start), "running" or "paused" (the slip `slip` is at this seat), or "elsewhere" (the player's
    slip is at another seat session: it can be moved here). An unrated seat has no `rating`."""
    carded = {number: session for number, session in by_seat.items() if session.player_id}
    # One person whichever of their merged records seats them, or holds their slip.
    people = {number: session.player.resolved() for number, session in carded.items()}
    slips = slips_open(player_ids(*people.values())).select_related("player")
    states = {slip.player.resolved().pk: (slip.pk, slip_state(slip)) for slip in slips}
    return [_rating(seat, carded.get(seat["number"]), people, states) for seat in seats]


def _rating(seat: dict[str, Any], session: SeatSession | None, people: dict, states: dict) -> dict[str, Any]:
    if session is None:
        return seat
    person = people[seat["number"]].pk
    if person not in states:
        return {**seat, "rating": "none", "slip": None}
    slip, state = states[person]
    if state.session_id != session.pk:
        return {**seat, "rating": "elsewhere", "slip": None}
    running = state.kind != Kind.PAUSED
    return {**seat, "rating": "running" if running else "paused", "slip": slip}


def _table_seat(number: int, session: SeatSession | None, chips: dict, bet: int) -> dict[str, Any]:
    """A seat between hands; `bet` is what its bet stepper starts at (Rocket: the last hand's bet)."""
    if session is None:
        return {"number": number, "session": None, "player": "", "chips": 0, "bet": 0}
    return {
        "number": number,
        "session": session.pk,
        "player": session.player_name,
        "chips": chips[number],
        "bet": bet,
    }


# The seats


def _seat(hand: Hand, seat: int, cards, names: dict, chips: dict, game, due, extras: dict) -> dict[str, Any]:
    return {
        "number": seat,
        "player": names.get(seat, ""),
        "chips": chips.get(seat, 0),
        "committed": hand.committed.get(str(seat), 0),
        "cards": _black_stones(seat, game)
        if hand.game == Game.BLACKSTONE
        else _secret_cards(seat, game)
        if hand.game in (*SECRET_HANDS, *POINTS_GAMES)
        else _seat_cards(hand, seat, cards),
        "status": extras["status"].get(seat, ""),
        "to_act": isinstance(due, DecisionDue) and due.seat == seat,
        "card_due": isinstance(due, CardDue) and due.seat == seat,
    }


def _black_stones(seat: int, game) -> list[dict[str, Any]]:
    """Blackstone: players keep only their black stones (10s); white stones go to the centre.
    The loser holds the second 10 that ended the game beside the first."""
    if seat not in game.black:
        return []
    first = {"rank": 10, "why": "black stone", "discarded": False}
    return [first, {**first, "why": "second black stone"}] if seat == game.loser else [first]


def _seat_cards(hand: Hand, seat: int, cards: list[CardEvent]) -> list[dict[str, Any]]:
    """The seat's cards in the order dealt; a card replaced as a pair on the deal is marked discarded."""
    carried = hand.state.get("in_play", {}).get(str(seat), [])  # Continuous Pairs: cards from earlier hands
    shown = [{"rank": rank, "why": "in play", "discarded": False} for rank in carried]
    for card in cards:
        if card.receiver not in SEAT_RECEIVERS or card.seat != seat:
            continue
        if card.why == "replace" and shown:
            shown[-1]["discarded"] = True
        shown.append({"rank": card.rank, "why": card.why, "discarded": False})
    return shown


# A game's face-up cards in front of a seat, and in the centre, by the name the engine keeps them under.
FACE_UP = ("stacks", "piles", "captured", "shown")  # `shown`: a hand turned over at a showdown
CENTRE_CARDS = ("pool", "centre", "targets")
NO_ANTE = (Game.ROCKET, Game.PAIRS, *POINTS_GAMES)


def _secret_cards(seat: int, game) -> list[dict[str, Any]]:
    """A seat's face-up cards (a secret-hand game's stack, a points game's stack, score pile or
    captures), then its face-down cards, never their ranks (a system shoe knows them; the dealer's
    screen must not show them)."""
    face_up = next((getattr(game, name).get(seat, ()) for name in FACE_UP if hasattr(game, name)), ())
    stack = [{"rank": rank, "why": "face up", "discarded": False} for rank in face_up]
    hidden = getattr(game, "hands", {}).get(seat)
    return stack + [{"rank": None, "why": "face down", "discarded": False}] * len(hidden or ())


# Game by game: what sits in the middle, each seat's standing, the pot


def _rocket(game, hand: Hand) -> dict[str, Any]:
    status = {seat: str(outcome) for seat, outcome in game.outcome.items()}
    return {"dealer": list(game.dealer), "status": {seat: status.get(seat, "in") for seat in game.seats}}


def _blackstone(game, hand: Hand) -> dict[str, Any]:
    folded = dict(game.folds)
    status = {}
    for seat in game.seats:
        if seat in folded:
            status[seat] = f"folded (paid {min(folded[seat], game.stakes[seat])})"
        elif seat == game.loser:
            status[seat] = "second black stone"
        else:
            status[seat] = "black stone" if seat in game.black else "in"
    pot = game.carry_in + sum(min(cost, game.stakes[seat]) for seat, cost in game.folds)
    if game.finished:
        pot = game.settlement().result["pot"]
    # RULINGS.md (Blackstone): extra 10s after the tie-break go back into the undealt cards, which are
    # reshuffled: said until the first player's decision, when the dealer has done it.
    returned = {} if any(isinstance(e, DecisionEvent) for e in game.transcript) else dict(game.returned_tens)
    centre = {"white": game.white, "black": sorted(game.black), "returned": returned}
    return {"centre": centre, "status": status, "pot": pot}


def _starboard(game, hand: Hand) -> dict[str, Any]:
    status = {seat: str(game.status[seat]).replace("active", "in") for seat in game.seats}
    for seat, count in game.lock_counts.items():
        status[seat] += f" at {count}" if status[seat] == "locked" else f" (locked at {count})"
    common = {"cards": list(game.common), "discards": list(game.discards), "button": game.order[0]}
    return {"common": common, "status": status, "pot": game.pot}


def _pairs(game, hand: Hand) -> dict[str, Any]:
    scores = {seat: game.stakes[seat] for seat in game.seats}
    if game.finished:
        scores = {int(seat): score for seat, score in game.settlement().result["scores"].items()}
    status = {seat: f"{scores[seat]} of {game.target} points" for seat in game.seats}
    return {
        "status": status,
        "scores": {"going_in": {str(s): game.stakes[s] for s in game.seats}, "target": game.target},
        "pot": game.carry_in or None,
    }


def _secret(game, hand: Hand) -> dict[str, Any]:
    """A secret-hand game: who is in or out (and why), the pot, the face-down piles in the middle."""
    status = {seat: game.out.get(seat, "in") for seat in game.seats}
    pot = game.settlement().result["pot"] if game.finished else game.purse.pot
    piles = {name: len(getattr(game, name)) for name in ("pile", "monster") if hasattr(game, name)}
    secret = {
        "carry_in": game.carry_in,
        "piles": piles,
        "round": getattr(game, "round", None),
        "monster": list(getattr(game, "monster_cards", ())),  # the Monster's cards turned up so far
    }
    return {"status": status, "pot": pot, "secret": secret}


def _points(game, hand: Hand) -> dict[str, Any]:
    """A points game's round: each seat's score going in (and the round's points once it is over),
    the target, and the cards face up in the centre."""
    result = game.settlement().result if game.finished else {}
    status = {
        seat: points_text(game.stakes[seat]) + (f", +{result['points'][seat]} this round" if result else "")
        for seat in game.seats
    }
    centre = next((list(getattr(game, name)) for name in CENTRE_CARDS if hasattr(game, name)), [])
    target = getattr(game.options, "target", None) or getattr(game, "target", None)
    played = getattr(game, "played", None) or getattr(game, "bids", None) or {}
    played = dict(played) if not isinstance(played, dict) else played  # Sweep keeps (seat, rank) pairs
    shown = [{"seat": seat, "rank": rank} for seat, rank in played.items()]
    points = {
        "target": target,
        "centre": centre,
        "played": shown,
        "over": result.get("game_over"),
        "columns": _columns(game),
        "last_round": LAST_ROUND[hand.game](game) if hand.game in LAST_ROUND else "",
    }
    return {"status": status, "points": points}


def _sweep_round(game) -> str:
    """Sweep's round just played: who takes which cards into their hand, what is left to discard,
    and who starts the next round ("" while a round is being dealt its centre or played)."""
    if game.players or not game.rounds:
        return ""
    record = game.rounds[-1]
    took = [f"seat {seat} takes {_ranks(cards)}" for seat, cards in record["captures"]]
    left = record.get("discarded")
    says = "Last round: " + "; ".join(took or ["nobody captures"])
    says += f"; discard the {_ranks(left)} left in the centre." if left else "."
    return says if game.finished else f"{says} Seat {game.starter} starts the next round."


def _kitty_round(game) -> str:
    """Kitty's round just played: who takes the target (and whom the 1 gives it to), what nobody
    takes ("" while a round is being bid or its target given)."""
    if not game.rounds or game.passes or game.bids or game.giving is not None:
        return ""
    record = game.rounds[-1]
    given = record.get("given", {})
    took = []
    for seat, rank in record["taken"].items():
        gives = f" with the 1 and gives it to seat {given[seat]}" if seat in given else ""
        took.append(f"seat {seat} takes the {rank}{gives}")
    took += [f"nobody takes the {rank}: discard it" for rank in record.get("discarded", [])]
    return "Last round: " + "; ".join(took) + "; discard the bids."


def _ranks(ranks) -> str:
    return ", ".join(str(rank) for rank in ranks)


# The games whose captured cards go into hidden hands: the screen says what the last round did.
LAST_ROUND = {Game.SWEEP: _sweep_round, Game.KITTY: _kitty_round}


def points_text(points: int) -> str:
    return f"{points} point" + ("" if abs(points) == 1 else "s")


def _columns(game) -> list[dict[str, Any]]:
    """Five Cards: each target with the cards each player has played beside it and their total,
    in the seats' order (the other points games have no columns: an empty list)."""
    columns = getattr(game, "columns", {})
    return [
        {
            "target": target,
            "sides": [
                {"seat": seat, "cards": list(ranks), "total": sum(ranks)} for seat, ranks in sides.items()
            ],
        }
        for target, sides in sorted(columns.items())
    ]


GAME_EXTRAS = {
    Game.ROCKET: _rocket,
    Game.BLACKSTONE: _blackstone,
    Game.STARBOARD: _starboard,
    Game.PAIRS: _pairs,
    **dict.fromkeys(SECRET_HANDS, _secret),
    **dict.fromkeys(POINTS_GAMES, _points),
}


# What comes next


# What the dealer does when the rules shuffle the deck again before the next card (`reshuffle_due`).
RESHUFFLE = {
    Game.MONSTER: " A new round: shuffle the whole deck, burn {burn}, then deal.",
    Game.FIVE_CARDS: " The targets are out: put the cards set aside back into the deck, shuffle, then deal.",
}


# Moves that deal a card from the deck: with the deck empty, its discards are shuffled first.
DECK_MOVES = frozenset({Move.HIT, Move.DRAW, Move.ATTACK, Move.EIGHT})


def _recycle_sentence(hand: Hand) -> str:
    """What the dealer does for the next card from a dry deck (RULINGS, single-deck recycling):
    shuffle the discards, burn, deal; or, with no discards, void the hand."""
    discards = hand_discards(hand)
    if discards <= 0:
        return "every card is on the table or kept for score: no discards to shuffle. Void the hand."
    burn = recycle_burn(hand.shoe, discards)
    cards = f"{discards} card" + ("" if discards == 1 else "s")
    return (
        f"shuffle the discard pile ({cards}; never a card on the table or kept for score),"
        f" burn {burn}, then deal."
    )


def _decision_sentence(due: DecisionDue, game) -> str:
    """Whose decision it is; Five Cards names the card drawn, which no seat shows and which a system
    shoe's reshuffle dealt in the same tap as the shuffle (the dealer never saw it to place)."""
    drawn = getattr(game, "drawn", None)  # only Five Cards draws a card before its decision
    if drawn is None:
        return f"Seat {due.seat} to act."
    return f"Seat {due.seat} to act: place the {drawn} on a column it matches nothing in."


def _next(due, hand: Hand, deck: Recycle | None, playable: bool, game) -> dict[str, Any]:
    shoe = hand.shoe
    if due is None:
        return {"kind": "voided", "says": f"Hand {hand.number} was voided."}
    if isinstance(due, Finished):
        return {"kind": "finished", "says": "The hand is over: confirm the settlement."}
    if isinstance(due, DecisionDue):
        says = _decision_sentence(due, game)
        if DECK_MOVES.intersection(due.moves) and not shoe_cards_left(shoe, deck):
            says += f" The deck is empty: {_recycle_sentence(hand)}"
        return {"kind": "decision", "seat": due.seat, "says": says}
    says = _card_sentence(due)
    # A shuffle due before this card: a system shoe's next card is the new order's, not yet drawn.
    reshuffle = not due.pile and reshuffle_due(hand, game, due) is not None
    if reshuffle:
        says += RESHUFFLE[hand.game].format(burn=shoe.burn)
    elif not due.pile and not shoe_cards_left(shoe, deck):  # a pile's card is not the deck's
        says += f" The deck is empty: {_recycle_sentence(hand)}"
    # A system shoe shows the dealer the card to place; a physical shoe's order is unknown. A card
    # dealt face down is never shown, and one from the game's own pile is keyed as it is turned up.
    shown = playable and not reshuffle and shoe.kind == Shoe.Kind.SYSTEM and not (due.face_down or due.pile)
    place = shoe_next_system_card(shoe, deck) if shown else None
    return {
        "kind": "card",
        "to": due.to,
        "seat": due.seat,
        "why": due.why,
        "says": says,
        "place": place,
        "face_down": due.face_down,
        "pile": due.pile,
        "reshuffle": reshuffle,
    }


# The decisions the offline keypad offers (docs/tablet.md "When the network fails"). A Continuous
# Pairs fold names the card it takes, which only the rules engine knows: it waits for the server.
OFFLINE_MOVES = {
    Game.ROCKET: ["hit", "fold"],
    Game.BLACKSTONE: ["take", "fold"],
    Game.STARBOARD: ["draw", "lock"],
    Game.PAIRS: ["hit", "fold"],
}


def _offline_keypad(hand: Hand) -> dict[str, Any]:
    """What the tablet's offline keypad offers for this hand: who may receive a card or decide
    (the seats in order, then the dealer at Rocket: the order the keypad preselects them in), the
    decisions of the game, and where every card goes when the game has one place (Starboard)."""
    options = hand.options
    moves = [m for m in OFFLINE_MOVES[hand.game] if not (m == "fold" and options.get("continuous"))]
    if options.get("pieces_of_eight"):
        moves.append("eight")
    receivers = [{"to": Receiver.SEAT, "seat": seat, "label": f"Seat {seat}"} for seat in hand.seats]
    if hand.game == Game.ROCKET:
        receivers.append({"to": Receiver.DEALER, "seat": None, "label": "Dealer"})
    cards_to = Receiver.COMMON if hand.game == Game.STARBOARD else ""
    return {"receivers": receivers, "moves": moves, "cards_to": cards_to}


def _correctable(hand: Hand) -> dict[str, Any] | None:
    """The card the dealer may still correct (the last record, from a physical shoe), if any."""
    card = hand_correctable_card(hand)
    if card is None:
        return None
    to = f"Seat {card.seat}" if card.seat else card.get_receiver_display()  # a tie-break card is a seat's too
    return {"seq": card.seq, "rank": card.rank, "to": to}


# A card from the game's own pile, which the dealer turns up rather than deals from the deck (the
# deck is often dealt out by then: Kitty and Venture deal it whole before the first round).
PILE_CARDS = {
    "pitched": "Next card: seat {seat}, from the pitched cards (shuffled once, dealt face up).",
    "target": "Next card: turn up the top card of the kitty, the target.",
    "slug": "Next card: turn up the next card of the slug into the centre.",
    "monster": "Next card: turn up the next card of the Monster's hand.",
}


def _card_sentence(due: CardDue) -> str:
    if due.pile:
        return PILE_CARDS[due.why].format(seat=due.seat)
    who = (
        f"seat {due.seat}"
        if due.to == "seat"
        else {"dealer": "the dealer", "common": "the common hand"}.get(due.to, f"the {due.to}")
    )
    return f"Next card: {who} ({due.why})."


def _shoe(shoe: Shoe, deck: Recycle | None, put_back: int = 0) -> dict[str, Any]:
    """`put_back`: cards dealt and returned to a physical shoe since (Blackstone's extra 10s)."""
    return {
        "id": shoe.pk,
        "kind": shoe.kind,
        "physical": shoe.kind == Shoe.Kind.PHYSICAL,
        "decks": shoe.decks,
        "burn": shoe.burn,
        "cards_out": shoe.cards_out,
        "cards_left": shoe_cards_left(shoe, deck) + (put_back if shoe.kind == Shoe.Kind.PHYSICAL else 0),
        "cut_position": shoe.cut_position,
        "cut_card_out": shoe.cut_card_out,
        "in_play": shoe.state == Shoe.State.IN_PLAY,
    }


def _recycled(recycle: Recycle, game: str) -> dict[str, Any]:
    return {
        "position": recycle.shoe_position,
        "cards": recycle.cards,
        "burned": recycle.burned,
        "says": recycle_says(recycle, game),
    }


def recycle_says(recycle: Recycle, game: str) -> str:
    """A recycle in words: a shuffle the rules call for (`reshuffle_due`) shuffles the deck again,
    undealt cards included; any other refills a dry deck with its discards. Told apart from the
    records: Five Cards' deck never runs dry (at most 50 cards lie on its table, so a card no column
    takes ends the round first), and Monster's new round shuffles the whole deck, which no dry
    deck's discards are while cards are on the table."""
    whole = recycle.cards == sum(composition(1))  # both are dealt from a single deck
    if game == Game.FIVE_CARDS or (game == Game.MONSTER and whole):
        burned = f", {recycle.burned} burned" if recycle.burned else ""
        return f"Deck shuffled again: {recycle.cards} cards{burned}."
    return f"Deck recycled from {recycle.cards} discards, {recycle.burned} burned."


def _actions(due, hand: Hand) -> dict[str, Any] | None:
    """The legal decisions of the seat to act, with what they cost."""
    if not isinstance(due, DecisionDue):
        return None
    draw_fee = None
    if hand.game == Game.STARBOARD:
        draw_fee = hand.options.get("draw_fee") or hand.options.get("ante")
    return {
        "seat": due.seat,
        "moves": [str(move) for move in due.moves],
        # Secret-hand moves the dealer composes: the seat aimed at, then the cards revealed.
        "targeted": [str(move) for move in due.moves if move in TARGETED],
        "naming": [str(move) for move in due.moves if move in NAMING],
        "targets": list(due.targets) if due.targets is not None else [s for s in hand.seats if s != due.seat],
        "fold_price": due.fold_price,
        "min_take": due.min_take,
        "max_take": due.max_take,
        "fold_cards": [list(card) for card in due.fold_cards],
        "draw_fee": draw_fee,
        "fold_picks_card": bool(hand.options.get("continuous")),
        # Five Cards: the columns the drawn card may go on, one button each ("On the 5").
        "columns": [choice[1] for choice in due.choices if choice[0] == Move.PLACE],
    }


# The end of the hand


def _settlement(due: Finished, names: dict[int, str], options) -> dict[str, Any]:
    """Who pays and who is paid (`_money_lines`); what the house takes (`_house_take`); for a
    Pairs round that ended the game, how it ended and under which ending."""
    settlement = due.settlement
    result = plain(settlement.result)
    house = POT_GAME_HOUSE if isinstance(options, CollectionOptions) else PARTY_NAMES["house"]
    entries = [(entry.party, entry.amount, entry.reason) for entry in settlement.entries]
    return {
        "house_take": _house_take(settlement, options),
        **_money_lines(entries, names, house=house),
        "net": {str(party): amount for party, amount in settlement.deltas.items()},
        "carry_out": settlement.carry_out,
        "shortfalls": {str(seat): amount for seat, amount in settlement.shortfalls.items()},
        "result": result,
        "game_end": _game_end(result, names) if result.get("game_over") else None,
    }


def _house_take(settlement, options) -> dict[str, Any] | None:
    """A pot game's collection on this hand, in a sentence the dealer reads before confirming:
    the rake or the fees the house takes (the time charge is taken between hands). Nothing for a
    hand that moves no chips (a Pairs round that does not end the game)."""
    mode = getattr(options, "collection", NONE)
    if mode not in (RAKE, FEE) or not any(settlement.deltas.values()):
        return None
    amount = settlement.deltas.get("house", 0)
    if mode == RAKE:
        rule = f"rake {options.rake_percent}% of the pot paid out, rounded down, at most {options.rake_cap}"
    else:
        rule = f"a fee of {options.fee} from each player dealt in"
    return {"amount": amount, "says": f"The house takes {amount} ({rule})."}


def _money_lines(entries, names: dict[int, str], *, house: str) -> dict[str, list]:
    """The (party, amount, reason) entries as who pays and who is paid, pot movements left out
    (they net to zero); `house` names the house party (Rocket's tray, a pot game's rake)."""
    totals: dict[tuple, int] = {}
    for party, amount, reason in entries:
        if party != "pot":
            totals[(party, reason)] = totals.get((party, reason), 0) + amount
    money: dict[str, list] = {"pays": [], "paid": []}
    for (party, reason), amount in totals.items():
        if amount:
            who = house if party == "house" else _party_name(party, names)
            line = {"party": str(party), "who": who, "amount": abs(amount), "reason": reason}
            money["paid" if amount > 0 else "pays"].append(line)
    return money


def _party_name(party, names: dict[int, str]) -> str:
    if isinstance(party, int):
        return f"Seat {party}" + (f" ({names[party]})" if names.get(party) else "")
    return PARTY_NAMES.get(party, str(party))


def _tray_requests(table: Table) -> list[dict[str, Any]]:
    """The table's fills and credits waiting for the pit: shown at the table, so the dealer who asked
    one by mistake can take it back (`approval_withdraw`) instead of waiting for the pit to refuse it."""
    waiting = table.approval_requests.filter(
        kind__in=MONEY_ON_A_SLIP, status=ApprovalRequest.Status.PENDING
    ).order_by("requested_at", "pk")
    return [_approval(request) for request in waiting]


def _approval(request: ApprovalRequest) -> dict[str, Any]:
    return {
        "id": request.pk,
        "kind": request.kind,
        "kind_label": request.get_kind_display(),
        "status": request.status,
        "amount": request.amount,
        "reason": request.reason,
        "requested_by": request.requested_by_id,
        "decision_reason": request.decision_reason,
    }
