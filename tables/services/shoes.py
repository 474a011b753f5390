"""Shoes: shuffle (or take a physical shoe into play), burn, deal, retire.

A system-shuffled shoe commits to its order before the first card leaves it:
SHA-256 over the order and a random salt, both revealed when it retires, so an
auditor can check every card it dealt. A physical shoe's order is unknown; the
dealer keys each card and the system refuses a rank the shoe cannot hold.

A shoe that runs dry mid-hand is recycled (RULINGS): its discards, every card
not on the table in the hand nor kept for score, become the shoe's next deck,
shuffled (a system shoe commits to that order too) and burned; card positions
run on. What the shoe can still hold is counted from its latest deck.
"""

import hashlib
import json
import secrets
from collections.abc import Callable
from functools import partial

from django.db.models import Count, Value
from django.utils import timezone

from casino.compiled import Compiled, insert_returning, save_fields
from casino.errors import DomainError
from ledger.chain import chain_append, chain_extend, chain_lock, chain_lock_ahead
from ledger.models import Chain
from ledger.seals import seal
from tables.games.cards import DECK_SIZE, MAX_DECKS, MIN_DECKS, composition
from tables.games.rounds import NEW_DECK_OPTIONS, new_deck_each
from tables.models import SECRET_HANDS, WHOLE_DECK, CardEvent, Game, Hand, Receiver, Recycle, Shoe, Table

from .idempotency import run_once

DEFAULT_BURN = 5  # RULINGS: burn 5 after every shuffle (option 0..10)
MAX_BURN = 10
# Their rules shuffle one deck for each game: the tablet says so once a game is dealt. A hand's start
# refuses only at the games whose shoe must deal one game (hands.ONE_GAME_A_SHOE): Starboard may
# deal on, recycling its discards (docs/rules/starboard.md).
FRESH_DECK_EVERY_GAME = (Game.BLACKSTONE, Game.STARBOARD, *SECRET_HANDS, *WHOLE_DECK)
_system_random = secrets.SystemRandom()


def default_burn(game: str) -> int:
    """The burn a new shoe takes unless told (and its form offers): none for the games dealt whole
    from the deck (RULINGS, "Points and bidding games": their hands must come out even),
    DEFAULT_BURN for the rest."""
    return 0 if game in WHOLE_DECK else DEFAULT_BURN


class ShoeError(DomainError):
    """The shoe cannot do what was asked."""


def shoe_commitment(order: list[int], salt: str) -> str:
    """SHA-256 over the card order (as compact JSON) followed by the salt."""
    return hashlib.sha256((json.dumps(order, separators=(",", ":")) + salt).encode()).hexdigest()


def shoe_start(
    *,
    table: Table,
    decks: int,
    kind: str = Shoe.Kind.PHYSICAL,
    burn: int | None = None,
    reason: str = "",
    by,
    device: str = "",
    key: str,
    admit: Callable[[Table | None], None] | None = None,
) -> Shoe:
    """Retire the shoe in play, if any; put a freshly shuffled one in play and burn `burn` cards.

    A shoe in play that could still deal the next hand (`shoe_spent` says nothing) is replaced
    only with a `reason`, kept on the retired shoe: a shoe changed mid-way is what an auditor asks
    about first. Locks the table, then the shoe in play, then the table's chain, in the key's
    round trip (`_start_ahead`); `admit(table)`, given, sees the table as locked before the key's
    claim is looked at, and may refuse the shuffle (as `hand_start`'s). `burn` not given is the
    game's (`default_burn`, read on the table as locked: the API's `table` is its id alone).
    Returns the shoe as the step left it; on a retry, read afresh."""
    request = {"op": "shoe_start", "table": table.pk, "decks": decks, "kind": kind, "burn": burn}
    if reason:  # only then: a key applied before reasons were asked (the demo's shoes) still matches
        request["reason"] = reason
    started: list[Shoe] = []
    work = partial(_start, table.pk, decks, kind, burn, reason.strip(), by, device, started)
    ahead = partial(_start_ahead, table.pk, admit)
    answer = run_once(key=key, request=request, by=by, work=work, ahead=ahead)
    return started[0] if started else Shoe.objects.get(pk=answer["shoe"])


def shoe_retire(*, shoe: Shoe, by, key: str) -> Shoe:
    """Take the shoe out of play; a system shoe's order and salt become visible.

    Refused while a hand dealt from it is open: the hand would go on dealing from a shoe whose
    order anyone may now read.
    """
    request = {"op": "shoe_retire", "shoe": shoe.pk}
    return Shoe.objects.get(
        pk=run_once(key=key, request=request, by=by, work=partial(_retire_idle, shoe.pk))["shoe"]
    )


# What every hand's start and every shuffle read first: compiled once. The table is locked (not
# its pit, read with it).
TABLES_LOCKED = Table.objects.select_for_update(of=("self",), no_key=True).select_related("pit")
TABLE_LOCKED = Compiled(lambda table: TABLES_LOCKED.filter(pk=table))
OPEN_HAND = Compiled(lambda table: Hand.objects.filter(table=table, status__in=Hand.OPEN).only("pk")[:1])
SHOE_IN_PLAY_LOCKED = Compiled(
    lambda table: Shoe.objects.select_for_update(no_key=True)
    .filter(table=table, state=Shoe.State.IN_PLAY)
    .order_by("pk")[:1]
)


def _start_ahead(table_id: int, admit: Callable[[Table | None], None] | None) -> None:
    """Send a shuffle's locks and reads ahead (`Compiled.ahead`, with the key's claim): the table,
    whether a hand is open, the shoe in play, the table's chain (for the burns). Then `admit`,
    given, sees the locked table as it came back (None: no such table)."""
    for compiled in (TABLE_LOCKED, OPEN_HAND, SHOE_IN_PLAY_LOCKED):
        compiled.ahead(table_id)
    chain_lock_ahead(table_id)
    table_admitted(table_id, admit)


def table_admitted(table_id: int, admit: Callable[[Table | None], None] | None) -> None:
    """`admit`, given, sees the table locked by `TABLE_LOCKED` sent ahead, as it came back (None:
    no such table), before the key's claim is looked at: a start's or a shuffle's permission."""
    if admit is not None:
        found = TABLE_LOCKED.kept(table_id)
        admit(found[0] if found else None)


def table_locked(table_id: int) -> Table:
    """The table `TABLE_LOCKED` locked (sent ahead, or now)."""
    table = TABLE_LOCKED.first(table_id)
    if table is None:
        raise Table.DoesNotExist(f"There is no table {table_id}.")
    return table


def _start(
    table_id: int, decks: int, kind: str, burn: int | None, reason: str, by, device: str, started: list[Shoe]
) -> dict:
    table = table_locked(table_id)
    burn = default_burn(table.game) if burn is None else burn
    _check_shoe(table, decks, kind, burn, hand_open=OPEN_HAND.first(table_id) is not None)
    current = SHOE_IN_PLAY_LOCKED.first(table_id)
    chain = chain_lock(table=table)  # sent ahead (`_start_ahead`), after the shoe's: no round trip of its own
    if current:
        current.table = table
        if not reason and not shoe_spent(current):
            left = shoe_cards_left(current, shoe_deck(current))
            raise ShoeError(
                f"The shoe in play still has {left} cards left and can deal the next hand: "
                "say why you are replacing it."
            )
        _retired(current, reason, chain)
    # The cut card's place counts from the top of the freshly shuffled shoe,
    # burn included (RULINGS); penetration defaults to 0.8 (reshuffle at ~20% left).
    shoe = Shoe(table=table, decks=decks, kind=kind, burn=burn)
    if table.game == Game.ROCKET:
        shoe.cut_position = round(float(shoe.penetration) * DECK_SIZE * decks)
    if kind == Shoe.Kind.SYSTEM:
        shoe.order = _shuffled(composition(decks))
        shoe.salt = secrets.token_hex(32)
        shoe.commitment = shoe_commitment(shoe.order, shoe.salt)
    insert_returning(shoe)  # its id, for its seal and the burns (a round trip: the writes before go with it)
    seal(shoe, chain=chain, event="started")
    if burn:
        _burn(shoe, burn, by, device, chain=chain)
        save_fields(shoe, ("cards_out", "cut_card_out"))
    started.append(shoe)
    return {"shoe": shoe.pk}


def _check_shoe(table: Table, decks: int, kind: str, burn: int, *, hand_open: bool) -> None:
    if hand_open:
        raise ShoeError("A hand is in progress: settle or void it before changing the shoe.")
    if not isinstance(decks, int) or not MIN_DECKS <= decks <= MAX_DECKS:
        raise ShoeError(f"A shoe holds {MIN_DECKS} to {MAX_DECKS} decks, not {decks!r}.")
    if table.game != Game.ROCKET and decks != 1:
        raise ShoeError(f"{table.get_game_display()} is dealt from a single deck.")
    if kind not in Shoe.Kind.values:
        raise ShoeError(f"A shoe is physical or system-shuffled, not {kind!r}.")
    if not isinstance(burn, int) or not 0 <= burn <= MAX_BURN:
        raise ShoeError(f"Burn 0 to {MAX_BURN} cards after a shuffle, not {burn!r}.")
    if table.game in WHOLE_DECK and burn:
        raise ShoeError(f"{table.get_game_display()} is dealt whole from the deck: shuffle with no burn.")


def _shuffled(counts) -> list[int]:
    order = [rank for rank in range(1, 11) for _ in range(counts[rank])]
    _system_random.shuffle(order)
    return order


def _burn(shoe: Shoe, count: int, by, device: str, *, chain: Chain, hand: Hand | None = None) -> None:
    """Burn `count` cards of the shoe (at the hand's next steps, in a recycle) into the table's
    `chain`, locked by the caller, in one insert."""
    chain_extend([_burned(shoe, by, device, hand) for _ in range(count)], chain)


def _burned(shoe: Shoe, by, device: str, hand: Hand | None) -> CardEvent:
    rank = shoe_card_rank(shoe, None, face_down=True)
    if hand is not None:
        hand.seq += 1
    return CardEvent(
        shoe=shoe,
        shoe_position=shoe_take_position(shoe),
        rank=rank,
        receiver=Receiver.BURN,
        hand=hand,
        seq=hand.seq if hand else None,
        keyed_by=by,
        device=device,
        at=timezone.now(),
    )


def shoe_recycle(shoe: Shoe, *, hand: Hand, held: list[int | None], by, device: str) -> Recycle:
    """Refill the dry shoe (locked by the caller, who saves it) with its discards: every card
    but the ranks `held` (on the table in `hand` or kept for score; None for a card dealt face
    down whose rank nobody saw, which stays among the recycle's possible ranks as `hidden`).
    Shuffle them, commit to a system shoe's order, then burn as after any shuffle, leaving at
    least the card that is due. The recycle and its burns take the hand's next sequence numbers."""
    ranks = list(composition(shoe.decks))
    for rank in held:
        if rank is not None:
            ranks[rank] -= 1
    hidden = held.count(None)
    if sum(ranks) <= hidden:
        raise ShoeError(
            "The shoe is empty and every card is on the table or kept for score: "
            "there are no discards to shuffle. Void the hand."
        )
    hand.seq += 1
    recycle = Recycle(
        shoe=shoe,
        hand=hand,
        seq=hand.seq,
        shoe_position=shoe.cards_out + 1,
        ranks=ranks,
        hidden=hidden,
        burned=recycle_burn(shoe, sum(ranks) - hidden),
        by=by,
        device=device,
        at=timezone.now(),
    )
    if shoe.kind == Shoe.Kind.SYSTEM:
        recycle.order = _shuffled(ranks)
        recycle.salt = secrets.token_hex(32)
        recycle.commitment = shoe_commitment(recycle.order, recycle.salt)
    chain = chain_lock(table=hand.table)
    chain_append(recycle, chain)
    shoe.latest_recycle = recycle  # the deck it deals from now (`shoe_deck`)
    if recycle.burned:
        _burn(shoe, recycle.burned, by, device, chain=chain, hand=hand)
    return recycle


def recycle_burn(shoe: Shoe, discards: int) -> int:
    """The burn after a recycle of `discards` cards: the shoe's, as after any shuffle, but always
    leaving the card that is due (RULINGS: burn, and go on where play stopped)."""
    return min(shoe.burn, discards - 1)


def _retire_idle(shoe_id: int) -> dict:
    table_id = Shoe.objects.values_list("table_id", flat=True).get(pk=shoe_id)
    # hand_start takes the table row too: no hand starts meanwhile
    Table.objects.select_for_update(no_key=True).get(pk=table_id)
    if Hand.objects.filter(shoe_id=shoe_id, status__in=Hand.OPEN).exists():
        raise ShoeError("A hand is in progress: settle or void it before retiring the shoe.")
    shoe = Shoe.objects.select_for_update(no_key=True).get(pk=shoe_id)
    return _retired(shoe, "", chain_lock(table=Table(pk=table_id)))


def _retired(shoe: Shoe, reason: str, chain: Chain) -> dict:
    """Retire the locked `shoe` (nothing to do if it is retired already), sealed in its table's
    `chain`, locked after the table and the shoe (the lock order)."""
    if shoe.state != Shoe.State.RETIRED:
        shoe.state = Shoe.State.RETIRED
        shoe.retired_at = timezone.now()
        shoe.retire_reason = reason
        save_fields(shoe, ("state", "retired_at", "retire_reason"))
        seal(shoe, chain=chain, event="retired")
    return {"shoe": shoe.pk}


def fresh_deck_due(table: Table, shoe: Shoe, games) -> str:
    """Why `shoe` may not deal `table`'s next game, or "": the table deals every game (or round: the
    points games, and Port told so) from a freshly shuffled deck, its game being one of `games` or
    its house rule in `NEW_DECK_OPTIONS` on (Port's `new_deck_each_round`, Regent's
    `new_deck_each_game`), and the shoe has dealt one already."""
    # A game of NEW_DECK_OPTIONS: its option decides, whatever the lists say.
    if table.game in NEW_DECK_OPTIONS:
        each = NEW_DECK_OPTIONS[table.game][1]
        if not new_deck_each(table.game, table.options):
            return ""
    elif table.game in games:
        each = "round" if table.game in WHOLE_DECK else "game"
    else:
        return ""
    if not shoe.hands.exists():
        return ""
    return f"{table.get_game_display()} deals every {each} from a fresh deck: shuffle before the next {each}."


def shoe_spent(shoe: Shoe) -> str:
    """Why the shoe in play cannot deal the table's next hand, or "" while it can: its cut card
    is out, its deck is dealt out, or its game shuffles a fresh deck for every game (Blackstone,
    Starboard, a secret-hand game but Regent: docs/rules) and one was dealt from it."""
    if shoe.cut_card_out:
        return "The cut card is out: shuffle a new shoe before the next hand."
    if reason := fresh_deck_due(shoe.table, shoe, FRESH_DECK_EVERY_GAME):
        return reason
    if not shoe_cards_left(shoe, shoe_deck(shoe)):
        return "The shoe is dealt out: shuffle a new one."
    return ""


# Read for every card of a recycled shoe (a Pairs table's one deck): compiled once.
LATEST_RECYCLE = Compiled(lambda shoe: Recycle.objects.filter(shoe=shoe).order_by("-shoe_position")[:1])


def shoe_deck(shoe: Shoe) -> Recycle | None:
    """The shoe's latest recycle, the deck it deals from now (None: its own shuffle). Read once
    per shoe object (a card asks up to three times, its answer once more); `shoe_recycle` keeps
    the new one on the shoe it recycles, and `shoe_deck_of` an open hand's own."""
    if "latest_recycle" not in shoe.__dict__:
        if shoe.cards_out < DECK_SIZE * shoe.decks:
            return None  # its own shuffle is not dealt out: it was never recycled (no query per card)
        shoe.latest_recycle = LATEST_RECYCLE.first(shoe.pk)
    return shoe.latest_recycle


def shoe_deck_of(hand: Hand) -> Recycle | None:
    """The deck `hand`'s shoe deals from now (`shoe_deck`). An open hand that recycled holds its
    shoe's latest recycle: a Monster round reshuffles the whole deck before the shoe's own shuffle
    is dealt out, which the shoe's count of cards out cannot tell."""
    shoe = hand.shoe
    if hand.status in Hand.OPEN and hand.recycle_list and "latest_recycle" not in shoe.__dict__:
        shoe.latest_recycle = hand.recycle_list[-1]
    return shoe_deck(shoe)


def shoe_next_system_card(shoe: Shoe, recycle: Recycle | None) -> int | None:
    """A system shoe's next card in the committed order of its deck `recycle` (see
    `shoe_deck`); None once that deck is dry."""
    if recycle is None:
        order, dealt = shoe.order, shoe.cards_out
    else:
        order, dealt = recycle.order, shoe.cards_out - recycle.shoe_position + 1
    return order[dealt] if dealt < len(order) else None


def shoe_cards_left(shoe: Shoe, recycle: Recycle | None) -> int:
    """Cards still in the shoe's deck `recycle` (see `shoe_deck`)."""
    end = recycle.shoe_position - 1 + recycle.cards if recycle else DECK_SIZE * shoe.decks
    return end - shoe.cards_out


def shoe_card_rank(shoe: Shoe, keyed: int | None, *, face_down: bool = False) -> int | None:
    """The rank of the shoe's next card: the system shoe's next in order (a keyed
    rank must match it), or what the dealer keyed (None when face down)."""
    if shoe.kind == Shoe.Kind.SYSTEM:
        rank = shoe_next_system_card(shoe, shoe_deck(shoe))
        if rank is None:
            raise ShoeError("The shoe is empty.")
        if keyed is not None and keyed != rank:
            raise ShoeError(f"The shoe's next card is a {rank}, not a {keyed}: place the card shown.")
        return rank
    if keyed is None and not face_down:
        raise ShoeError("Key in the rank of the card that came out of the shoe.")
    return keyed


def shoe_take_position(shoe: Shoe) -> int:
    """Count one more card out of the shoe (the caller saves it); the cut card
    comes out once the count reaches the cut position."""
    shoe.cards_out += 1
    if shoe.cut_position and shoe.cards_out >= shoe.cut_position:
        shoe.cut_card_out = True
    return shoe.cards_out


def shoe_known_remaining(shoe: Shoe) -> list[int]:
    """Cards of each rank (index 0 unused) the shoe can still hold, given the ranks seen
    since its latest shuffle or recycle (a corrected card counts as its corrected rank)."""
    recycle = shoe_deck(shoe)
    remaining = list(recycle.ranks if recycle else composition(shoe.decks))
    for rank, dealt in DEALT_RANKS.all(shoe.pk, _deck_start(recycle)):
        remaining[rank] -= dealt
    return remaining


def shoe_unseen(shoe: Shoe) -> int:
    """Cards of the current deck that left the shoe face down (a physical shoe's burns and
    unrevealed cards)."""
    recycle = shoe_deck(shoe)
    # A recycle's hidden cards (face down on the table) count among its ranks but not in its deck.
    return len(FACE_DOWN.all(shoe.pk, _deck_start(recycle))) + (recycle.hidden if recycle else 0)


# Both read at every hand's start: compiled once. Cards of a shoe from a position on (a `Value`: a
# position's lookup would drop the compiling stand-in, below the column's range).
DEALT_RANKS = Compiled(
    lambda shoe, start: CardEvent.objects.as_dealt()
    .filter(shoe=shoe, shoe_position__gte=Value(start), dealt_rank__isnull=False)
    .values_list("dealt_rank")
    .annotate(n=Count("id"))
    .order_by()
)
FACE_DOWN = Compiled(  # a few burns and unrevealed cards at most: counted as rows
    lambda shoe, start: CardEvent.objects.filter(
        shoe=shoe, shoe_position__gte=Value(start), rank__isnull=True
    ).values_list("pk")
)


def _deck_start(recycle: Recycle | None) -> int:
    return recycle.shoe_position if recycle else 1
