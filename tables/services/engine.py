"""The bridge between a recorded hand and the rules engine.

A hand's engine is rebuilt by `replay`: its setup record (`Hand.setup`, a
`tables.games.HandSetup`) started, then its card events, decisions and recycles
fed in sequence order. It is the one replay: the services check every step with
it, and the tablet's screen, the pit and the audit read the same game. Cards are read as dealt
(`CardEvent.objects.as_dealt()`): a corrected card plays its corrected rank.
"""

from collections.abc import Callable, Iterable

from django.db.models import Exists, OuterRef, QuerySet

from casino.compiled import Compiled, pipeline
from tables.games import Action, HandSetup, Move
from tables.games.base import CardEvent as EngineCard
from tables.games.base import DecisionEvent, Game
from tables.models import ApprovalRequest, CardEvent, Decision, Hand, Receiver, Recycle

# Cards counted off but never revealed (Blackstone) stay out of the replay: they
# leave the shoe only once the hand is over.
UNREVEALED = Receiver.DISCARD


def seat_keyed(mapping: dict) -> dict:
    """JSON turns seat numbers into strings; the engine wants ints back."""
    return {int(seat): value for seat, value in mapping.items()}


def plain(value):
    """JSON-able as the database gives it back: tuples become lists, mapping keys strings."""
    if isinstance(value, dict):
        return {str(key): plain(item) for key, item in value.items()}
    if isinstance(value, (list, tuple)):
        return [plain(item) for item in value]
    return value


# A hand's records, each kind in order, read on every step of every hand: compiled once.
HAND_RECORDS = {
    "card_list": Compiled(lambda hand: CardEvent.objects.as_dealt().filter(hand=hand).order_by("seq")),
    "decision_list": Compiled(lambda hand: Decision.objects.filter(hand=hand).order_by("seq")),
    "recycle_list": Compiled(lambda hand: Recycle.objects.filter(hand=hand).order_by("seq")),
    "approval_list": Compiled(
        lambda hand: ApprovalRequest.objects.filter(hand=hand).order_by("requested_at", "pk")
    ),
}
RECORD_LISTS = list(HAND_RECORDS)
# The kinds of record few hands have (a recycle of the shoe mid-hand, a request to the pit): a hand
# locked for a step says whether it has any (`records_flagged`), and only then are they read.
RARE_RECORDS = {"recycle_list": Recycle, "approval_list": ApprovalRequest}
COMMON_RECORDS = [name for name in RECORD_LISTS if name not in RARE_RECORDS]


def hand_records(hand: Hand) -> Hand:
    """`hand` with its cards, decisions, recycles and approval requests in order (`card_list`,
    `decision_list`, `recycle_list`, `approval_list`), each kind read once, all in one round trip.

    A hand that already holds them keeps them: a service's step sets them to what it read and
    wrote under the hand's lock, so its answer screen reads none of them again. Like any model
    instance, such a hand shows the hand as it was then; read it again to see later changes.
    """
    missing = [name for name in RECORD_LISTS if name not in hand.__dict__]
    if not missing:
        return hand
    with pipeline():
        sent = records_sent(hand.pk, missing)
    return records_kept(hand, sent)


def records_flagged(hands: QuerySet[Hand]) -> QuerySet[Hand]:
    """`hands`, each with `has_recycle_list` and `has_approval_list`: whether it has any record of
    those rare kinds (`RARE_RECORDS`), read in the same statement."""
    flags = {name: Exists(model.objects.filter(hand=OuterRef("pk"))) for name, model in RARE_RECORDS.items()}
    return hands.annotate(**{f"has_{name}": flag for name, flag in flags.items()})


def records_sent(hand_id: int, names=COMMON_RECORDS) -> dict[str, Callable]:
    """Send the reads of the hand's records `names` (in a `pipeline`, with whatever else is sent);
    by default the kinds every hand has (`records_kept` then reads the rare ones it has)."""
    return {name: HAND_RECORDS[name].send(hand_id) for name in names}


def records_ahead(hand_id: int) -> None:
    """Send the reads of the kinds of record every hand has ahead (`Compiled.ahead`), for
    `records_sent`."""
    for name in COMMON_RECORDS:
        HAND_RECORDS[name].ahead(hand_id)


def records_kept(hand: Hand, sent: dict[str, Callable]) -> Hand:
    """`hand` with the records `records_sent` read, and none of a rare kind not read that the hand
    was locked without (`records_flagged`: a flag as old as that read); `hand_records` reads the
    rest."""
    for name, fetch in sent.items():
        found = fetch()
        for record in found:
            record.hand = hand  # as a prefetch sets it: the records' screens read their hand
        setattr(hand, name, found)
    for name in RARE_RECORDS:
        if name not in sent and getattr(hand, f"has_{name}", True) is False:
            setattr(hand, name, [])
    return hand


def hand_records_again(hand: Hand) -> Hand:
    """Read the hand's records again, after a step wrote some it did not keep (a recycle)."""
    for name in [*RECORD_LISTS, "engine"]:
        hand.__dict__.pop(name, None)
    return hand_records(hand)


def hand_records_none(hand: Hand) -> Hand:
    """A hand just created: it has no records yet."""
    for name in RECORD_LISTS:
        setattr(hand, name, [])
    return hand


def replay(hand: Hand, events: Iterable | None = None) -> Game:
    """The hand's game: its setup started and `events` (its card events, decisions and recycles;
    default: those `hand_records` holds) fed in sequence order. Raises IllegalAction if they do
    not replay. Cards never revealed are left out; a burn and a recycle are the engine's shoe
    steps (`Game.burn`, `Game.recycle`)."""
    if events is None:
        hand_records(hand)
        events = [*hand.card_list, *hand.decision_list, *hand.recycle_list]
    game = HandSetup.from_record(hand.setup).start()
    for event in sorted(events, key=lambda event: event.seq):
        _step(game, event)
    return game


def _step(game: Game, event) -> None:
    if isinstance(event, Recycle):
        game.recycle(event.ranks, event.hidden)
    elif isinstance(event, Decision):
        game.act(Action.parse(event.action))
    elif event.receiver == Receiver.BURN:
        game.burn(event.rank)
    elif event.receiver != UNREVEALED:
        game.deal(event.rank)


def hand_game(hand: Hand) -> Game:
    """The hand's game as its records leave it: the engine the service's step that returned
    `hand` left on it (`hand.engine`, checked and moved on by that step), else `replay`."""
    if "engine" not in hand.__dict__:
        hand.engine = replay(hand)
    return hand.engine


def engine_for(hand: Hand) -> Game:
    """The hand's game as the database holds its records now, whatever `hand` already holds."""
    return replay(hand_records_again(hand))


def unrevealed_after_last_take(transcript: list) -> int:
    """Blackstone: cards counted for the last take that were never revealed."""
    for index in range(len(transcript) - 1, -1, -1):
        event = transcript[index]
        if isinstance(event, DecisionEvent) and event.action.move is Move.TAKE:
            revealed = sum(isinstance(later, EngineCard) for later in transcript[index + 1 :])
            return event.action.count - revealed
    return 0


def receiver_for(to: str, why: str) -> str:
    return Receiver.TIEBREAK if why == "tiebreak" else Receiver(to)
