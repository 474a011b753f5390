"""What the pit's templates show: the selectors' rows in words and signed numbers. No queries."""

import json

from django.utils import timezone

from tables.games import CardDue, DecisionDue, IllegalAction
from tables.models import ApprovalRequest, Game, Hand, Shoe, Table
from tables.review import forfeit_parties
from tables.rocket_counting import configuration_warnings
from tables.screens import PARTY_NAMES, POT_GAME_HOUSE, recycle_says

from .forms import CHIP_VALUES
from .selectors import MONEY_ON_A_SLIP


def signed(amount: int) -> str:
    return f"+{amount}" if amount > 0 else str(amount)


def results_text(results: dict[str, int] | None) -> str:
    """{"1": 18, "2": -30, "house": 12, "carry": 0} as "seat 1 +18, seat 2 -30, house +12"."""
    seats = sorted((int(party), amount) for party, amount in (results or {}).items() if party.isdigit())
    others = sorted(
        (party, amount) for party, amount in (results or {}).items() if not party.isdigit() and amount
    )
    words = [f"seat {seat} {signed(amount)}" for seat, amount in seats]
    return ", ".join(words + [f"{party} {signed(amount)}" for party, amount in others]) or "nothing"


# The pit


def floor_shown(floor: dict) -> dict:
    """The pit as the page and its poll show it (plain values: the poll's version digests them)."""
    tables = [{**row, "hand": hand_shown(row["hand"]) if row["hand"] else None} for row in floor["tables"]]
    return {
        "since": timezone.localtime(floor["since"]).strftime("%d %b %H:%M"),
        "pits": sorted({row["pit"] for row in tables}),
        "tables": tables,
        "pending": floor["pending"],
    }


def hand_shown(hand: dict) -> dict:
    shown = {name: value for name, value in hand.items() if name not in ("due", "waiting_for")}
    return {**shown, "turn": whose_turn(hand["due"], hand["waiting_for"])}


def whose_turn(due, waiting_for: str | None) -> str:
    if waiting_for:
        return f"Waiting for the pit: {ApprovalRequest.Kind(waiting_for).label.lower()}"
    if isinstance(due, IllegalAction):
        return "Its records do not replay: review the hand."
    if isinstance(due, CardDue):
        return f"Card due: {due.describe().removeprefix('a card ')}"
    if isinstance(due, DecisionDue):
        return f"Seat {due.seat} to act ({' or '.join(due.moves)})"
    return "Over: the dealer confirms the settlement"


# A table's history and the queue


def history_shown(history: dict) -> dict:
    for hand in history["hands"]:
        hand.result = hand_result(hand)
    for move in history["moves"]:
        slip_shown(move)
    return history


def queue_shown(queue: dict) -> dict:
    for request in queue["pending"]:
        slip_shown(request)
        request.needs_secret = request.kind in MONEY_ON_A_SLIP
    return queue


def slip_shown(request: ApprovalRequest) -> None:
    """The request's slip (prefetched) and its chips in words."""
    slip = next(iter(request.slips.all()), None)
    request.slip, request.chips = slip, chips_text(slip.denominations) if slip else ""


def hand_result(hand: Hand) -> str:
    if hand.status == Hand.Status.VOIDED:
        return "voided: every chip returned"
    if hand.status != Hand.Status.SETTLED:
        return ""
    result = results_text((hand.settlement or {}).get("deltas"))
    if hand.forfeit is not None:  # the game this round ended when a player left: what that moved
        result += f"; then {forfeit_text(hand, hand.forfeit)}"
    return result


def forfeit_text(hand: Hand, forfeit) -> str:
    """The forfeit settlement of the game `hand` was the last round of, in words: "seat 3 left the
    Port game and loses it (difference): seat 1 +4, seat 3 -4"."""
    why = forfeit.memo.removeprefix(f"Hand {hand.number}: ")
    return f"{why}: {results_text(forfeit_parties(hand, forfeit))}"


# Counts and slips


def shoe_warnings(table: Table) -> list[str]:
    """What the house should know of the shoe in play at `table`: beatable by a card counter, or
    running dry mid-hand too often (tables.rocket_counting; measured once per configuration)."""
    shoe = table.shoes.filter(state=Shoe.State.IN_PLAY).order_by("-pk").first()
    if shoe is None:
        return []
    return configuration_warnings(table.game, table.options, shoe.decks, shoe.penetration)


def options_text(options: dict) -> str:
    """House rules as the settings form shows them: JSON, blank for none."""
    return json.dumps(options, sort_keys=True) if options else ""


def chip_fields(form) -> list[dict]:
    """The chip inputs as the template draws them, keeping what was typed on a re-render."""
    typed = form.data if form is not None and form.is_bound else {}
    return [
        {"value": value, "name": f"chip_{value}", "count": typed.get(f"chip_{value}", "0")}
        for value in CHIP_VALUES
    ]


def chip_rows(denominations: dict) -> list[dict]:
    """A count's or slip's chips, {"25": 4}, as one row per chip value."""
    return [{"value": value, "count": denominations.get(str(value), 0)} for value in CHIP_VALUES]


def chips_text(denominations: dict) -> str:
    """{"25": 4, "5": 0} as "4 x 25"."""
    pairs = sorted(((int(value), n) for value, n in denominations.items() if n), reverse=True)
    return ", ".join(f"{n} x {value}" for value, n in pairs) or "no chips"


def serial_ranges(serials: list[int]) -> str:
    """[1, 2, 3, 7] as "1-3, 7"."""
    runs: list[list[int]] = []
    for serial in serials:
        if runs and serial == runs[-1][1] + 1:
            runs[-1][1] = serial
        else:
            runs.append([serial, serial])
    return ", ".join(str(a) if a == b else f"{a}-{b}" for a, b in runs) or "none"


# The hand review


def ledger_name(hand: Hand) -> str:
    """The hand as the ledger names it: its transactions carry `hand_id` (the hand's id, which
    the API's `?hand=` filter and the admin take) and its wager and pot accounts read "The wagers
    of hand <id>"; their memos say "Hand <number>" (see tables.services.hands)."""
    return f"hand {hand.pk}"


def replay_verdict(replay: dict, status: str) -> dict:
    """What the replay check says of a hand in `status`: nothing is compared until it is settled."""
    if replay["matches"] is None and status == Hand.Status.VOIDED:
        return {"state": "pending", "says": "Voided: every chip went back, so no replay is compared."}
    if replay["matches"] is None:
        return {"state": "pending", "says": "Not settled yet: there is no settlement to compare."}
    if replay["matches"]:
        return {"state": "match", "says": "Replay matches what was posted."}
    if replay["error"]:
        says = f"Replay does not match: the records do not replay ({replay['error']})."
        return {"state": "mismatch", "says": says}
    replayed, posted = results_text(replay["replayed"]), results_text(replay["posted"])
    return {"state": "mismatch", "says": f"Replay does not match: replayed {replayed}, posted {posted}."}


def hand_steps(review: dict, game: str) -> list[dict]:
    """Cards, decisions and the deck's recycles or reshuffles (`hand_review`) in the one order they
    happened (their shared sequence in the hand); a card of a step in `sealed` (face down in a hand
    still in play) shows no rank."""
    cards, decisions, sealed = review["cards"], review["decisions"], review["sealed"]
    steps = [
        {
            "seq": card.seq,
            "card": True,
            "what": "face down" if card.rank is None or card.seq in sealed else str(card.rank),
            "who": card.get_receiver_display() + (f" {card.seat}" if card.seat else ""),
            "why": card.why,
            "shoe_position": card.shoe_position,
            "by": card.keyed_by,
            "device": card.device,
            "at": card.at,
        }
        for card in cards
    ]
    steps += [
        {
            "seq": decision.seq,
            "card": False,
            "what": " ".join(str(part) for part in decision.action),
            "who": f"Seat {decision.seat}",
            "why": "",
            "shoe_position": None,
            "by": decision.by,
            "device": decision.device,
            "at": decision.at,
        }
        for decision in decisions
    ]
    steps += [
        {
            "seq": recycle.seq,
            "card": False,
            "recycle": True,
            "what": recycle_says(recycle, game),
            "who": "",
            "why": "",
            "shoe_position": recycle.shoe_position,
            "by": recycle.by,
            "device": recycle.device,
            "at": recycle.at,
        }
        for recycle in review["recycles"]
    ]
    return sorted(steps, key=lambda step: (step["seq"] or 0, step["shoe_position"] or 0))


def settlement_rows(hand: Hand) -> list[dict]:
    entries = (hand.settlement or {}).get("entries", [])
    return [
        {"who": party_name(party, hand.game), "amount": signed(amount), "reason": reason}
        for party, amount, reason in entries
    ]


def party_name(party, game: str) -> str:
    """A pot game's house is its rake account; Rocket's house is the tray (tables.services.hands)."""
    if isinstance(party, int):
        return f"Seat {party}"
    if party == "house" and game != Game.ROCKET:
        return POT_GAME_HOUSE
    return PARTY_NAMES.get(party, str(party))
