"""The shape every game shares: actions, what the game waits for, the record.

A game is a state machine. `game.next` says what it waits for: a card
(`CardDue`: who receives it and why), a decision (`DecisionDue`: whose, and
which moves are legal), or nothing (`Finished`, with the settlement). Cards are
fed with `game.deal(rank)`, decisions with `game.act(action)`; anything else
raises `IllegalAction` and leaves the state as it was. Every accepted card and
decision is appended to `game.transcript`, so a hand can be replayed from it.
The shoe's own steps, a card burned (`game.burn(rank)`) and the discards
recycled into a shoe that ran dry (`game.recycle(ranks)`), change only what the
shoe holds: the rules never see them and the transcript leaves them out.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any, ClassVar

from .cards import Shoe
from .errors import IllegalAction


class Move(StrEnum):
    HIT = "hit"
    FOLD = "fold"
    TAKE = "take"  # Blackstone: take k cards
    DRAW = "draw"  # Starboard: pay the fee, one card to the common hand
    LOCK = "lock"  # Starboard
    EIGHT = "eight"  # Pieces of Eight: discard an 8, take two cards
    # Secret-hand games: moves that name ranks leaving a hand (a reveal) or a target seat.
    CHOOSE = "choose"  # Hawthorn, Goblin Poker: the first card, chosen in secret, revealed together
    PLAY = "play"  # Hawthorn: a card from the hand to the stack
    PITCH = "pitch"  # Goblin Poker: a card from the hand, face down, to the pitched pile
    DISCARD = "discard"  # Monster: zero to three cards, face down, to the Monster
    SHOW = "show"  # Monster: the kept hand at the showdown
    STEAL = "steal"  # Troll Guts: the top downcard of another player's stack
    BUY = "buy"  # Troll Guts: pay a coin, the top downcard of your own stack
    ATTACK = "attack"  # Regent: a card from the deck onto a target's stack
    GIFT = "gift"  # Regent: a card from the hand onto a target's stack
    SEE = "see"  # Regent: the target's face-down cards revealed
    # Points and bidding games.
    PICK = "pick"  # Pickup: the pool card the played card picks up (its rank)
    STACK = "stack"  # Pickup: the played card into the player's own score pile
    DECLINE = "decline"  # Pickup: the played card discarded, nothing picked up
    PLACE = "place"  # Five Cards: the drawn card onto a column (named by its target's rank)
    KEEP = "keep"  # Venture's draft: the three cards kept from the packet (none named when blind)
    PASS = "pass"  # Kitty: a card passed to the left (its rank, or ? unseen)
    GIVE = "give"  # Kitty: the target the 1 took, given to another player (a seat)


# Moves whose record names a target seat first (then any ranks), and moves whose record is ranks.
TARGETED = frozenset({Move.STEAL, Move.ATTACK, Move.GIFT, Move.SEE, Move.GIVE})
NAMING = frozenset(
    {
        *(Move.CHOOSE, Move.PLAY, Move.PITCH, Move.DISCARD, Move.SHOW, Move.BUY),  # the secret-hand games
        *(Move.PICK, Move.PLACE, Move.KEEP, Move.PASS),  # the points and bidding games
    }
)


@dataclass(frozen=True)
class Action:
    """One decision. `count` is Blackstone's k; `card` is the (seat, rank) a
    Continuous Pairs fold takes; `target` is the seat a secret-hand move aims at;
    `ranks` are the ranks it reveals (None where it reveals nothing)."""

    move: Move
    count: int | None = None
    card: tuple[int, int] | None = None
    target: int | None = None
    ranks: tuple[int | None, ...] | None = None

    @classmethod
    def parse(cls, record: Action | tuple | list) -> Action:
        """Read a recorded decision such as ("hit",), ("take", 3), ("fold", 4, 7)."""
        if isinstance(record, Action):
            return record
        if not record:
            raise IllegalAction("A decision cannot be empty.")
        try:
            move = Move(record[0])
        except ValueError:
            raise IllegalAction(
                f"Unknown decision {record[0]!r}; expected one of {', '.join(Move)}."
            ) from None
        rest = tuple(record[1:])
        if move in TARGETED:
            if not rest:
                raise IllegalAction(f"A {move} names the seat it aims at.")
            return cls(move, target=rest[0], ranks=rest[1:] or None)
        if move in NAMING:
            return cls(move, ranks=rest)
        if move is Move.TAKE and len(rest) == 1:
            return cls(move, count=rest[0])
        if move is Move.FOLD and len(rest) == 2:
            return cls(move, card=(rest[0], rest[1]))
        if rest:
            raise IllegalAction(f"The decision {tuple(record)!r} has extra parts.")
        return cls(move)

    def as_record(self) -> tuple:
        if self.move in TARGETED:
            return (self.move.value, self.target, *(self.ranks or ()))
        if self.move in NAMING:
            return (self.move.value, *(self.ranks or ()))
        if self.count is not None:
            return (self.move.value, self.count)
        if self.card is not None:
            return (self.move.value, *self.card)
        return (self.move.value,)


# Who receives a card.
SEAT, DEALER, COMMON, CENTRE, DISCARD = "seat", "dealer", "common", "centre", "discard"


@dataclass(frozen=True)
class CardDue:
    """The game waits for a card. `to` is SEAT (with `seat`), DEALER, COMMON or
    CENTRE; `why` says what the card is for: "deal", "tiebreak", "hit", "take",
    "draw", "replace", "eight". A `face_down` card goes into a hidden hand: a
    physical table deals it as None (rank unknown until revealed), a system shoe
    names it."""

    to: str
    why: str
    seat: int | None = None
    face_down: bool = False
    pile: bool = False  # from the game's own pile (Goblin Poker's pitched cards), not the shoe
    ranks: tuple[int, ...] = ()  # the pile's cards (each one listed), where the game knows them

    def describe(self) -> str:
        who = f"seat {self.seat}" if self.to == SEAT else f"the {self.to}"
        return f"a card for {who} ({self.why})"


@dataclass(frozen=True)
class DecisionDue:
    """The game waits for `seat` to choose one of `moves`.

    `min_take`/`max_take` bound Blackstone's k; `fold_price` is what a fold
    costs now (units, where the game has one); `fold_cards` lists the (seat,
    rank) cards a Continuous Pairs fold may take. `choices` lists every legal
    decision as a record where a secret-hand game can tell them all (it knows the
    hand); empty where it cannot (a hand dealt face down at a physical table).
    `targets`: the seats a steal, attack, gift or see may aim at, where the game
    narrows them (None: any other seat).
    """

    seat: int
    moves: tuple[Move, ...]
    min_take: int | None = None
    max_take: int | None = None
    fold_price: int | None = None
    fold_cards: tuple[tuple[int, int], ...] = ()
    choices: tuple[tuple, ...] = ()
    targets: tuple[int, ...] | None = None

    def describe(self) -> str:
        return f"a decision from seat {self.seat} ({' or '.join(self.moves)})"


@dataclass(frozen=True)
class Entry:
    """One line of a settlement: `party` (a seat, "house", "pot" or "carry")
    gains `amount` units (negative: pays) for `reason`."""

    party: int | str
    amount: int
    reason: str


@dataclass(frozen=True)
class Settlement:
    """The money result of a finished hand, in whole units.

    `deltas` maps each seat, "house" and "carry" to its net change; they sum to
    zero. "carry" is the change in the pot carried to the next game (carry out
    minus carry in), so `carry_out` is what the next pot starts with.
    `entries` itemise every movement (they also sum to zero); `shortfalls` map a
    seat to what it owed beyond the chips in front of it (table stakes).
    `result` holds game-specific facts (Pairs: the scorer and points).
    """

    deltas: Mapping[int | str, int]
    entries: tuple[Entry, ...]
    carry_out: int = 0
    shortfalls: Mapping[int, int] = field(default_factory=dict)
    result: Mapping[str, Any] = field(default_factory=dict)

    @classmethod
    def from_entries(
        cls, seats, entries, *, carry_in: int = 0, shortfalls=None, result=None
    ) -> Settlement:
        """Build deltas from entries; "pot" entries must net to zero."""
        deltas: dict[int | str, int] = {s: 0 for s in seats}
        deltas["house"] = 0
        deltas["carry"] = 0
        pot = 0
        for e in entries:
            if e.party == "pot":
                pot += e.amount
            else:
                deltas[e.party] = deltas.get(e.party, 0) + e.amount
        if pot != 0 or sum(deltas.values()) != 0:
            raise AssertionError(f"settlement does not balance: pot {pot}, deltas {deltas}")
        return cls(
            deltas=deltas,
            entries=tuple(entries),
            carry_out=carry_in + deltas["carry"],
            shortfalls=dict(shortfalls or {}),
            result=dict(result or {}),
        )


@dataclass(frozen=True)
class Finished:
    settlement: Settlement

    def describe(self) -> str:
        return "nothing: the hand is over"


@dataclass(frozen=True)
class CardEvent:
    """A card dealt; `rank` is None for a face-down card whose rank nobody saw."""

    rank: int | None
    to: str
    why: str
    seat: int | None = None
    face_down: bool = False
    pile: bool = False


@dataclass(frozen=True)
class DecisionEvent:
    seat: int
    action: Action


@dataclass(frozen=True)
class Options:
    """Base for each game's frozen house-rule options."""

    @classmethod
    def build(cls, given: Mapping[str, Any] | None):
        names = {f.name for f in dataclasses.fields(cls)}
        unknown = sorted(set(given or {}) - names)
        if unknown:
            raise IllegalAction(
                f"Unknown house rule {', '.join(unknown)}; this game has {', '.join(sorted(names))}."
            )
        options = cls(**(given or {}))
        options.validate()
        return options

    def validate(self) -> None:
        """Raise IllegalAction for an impossible setting."""

    def as_record(self) -> dict[str, Any]:
        return dataclasses.asdict(self)


class Game:
    """Base state machine: checks every card and decision before any change.

    Subclasses set `name` and `Options`, and implement `next` (from their own
    state), `_deal(rank)` and `_act(action)`; those two may assume the card or
    action was checked legal and must not raise.
    """

    name: ClassVar[str]
    Options: ClassVar[type[Options]]

    def __init__(self, seats, stakes, options=None, carry: int = 0, shoe: Shoe | None = None):
        self.seats = tuple(seats)
        if len(set(self.seats)) != len(self.seats):
            raise IllegalAction(f"A seat is listed twice in {self.seats!r}.")
        self.stakes = dict(stakes)
        self.options = self.Options.build(options)
        self.carry_in = carry
        self.shoe = shoe if shoe is not None else Shoe(getattr(self.options, "decks", 1))
        self.transcript: list[CardEvent | DecisionEvent] = []
        self.dealt = 0  # cards this hand took from the shoe (not from a pile of its own)

    @property
    def next(self) -> CardDue | DecisionDue | Finished:
        raise NotImplementedError

    @property
    def finished(self) -> bool:
        return isinstance(self.next, Finished)

    def deal(self, rank: int | None) -> None:
        """Feed the card that left the shoe; raise IllegalAction if none is due.

        A face-down card (`due.face_down`) may be None: its rank stays possible
        in the shoe (`Shoe.hide`) until a reveal names it (`Hand.reveal`)."""
        due = self.next
        if not isinstance(due, CardDue):
            raise IllegalAction(f"No card is due: the game expects {due.describe()}.")
        if due.pile:
            self._check_pile(rank)  # it left the shoe long ago: only the game knows its pile
        elif rank is None and due.face_down:
            self.shoe.hide()
        else:
            self.shoe.check(rank)
        self._deal(rank)
        if rank is not None and not due.pile:
            self.shoe.take(rank)
        self.dealt += not due.pile
        self.transcript.append(CardEvent(rank, due.to, due.why, due.seat, due.face_down, due.pile))

    def act(self, action: Action | tuple) -> None:
        """Apply a decision for the seat due; raise IllegalAction if not legal now."""
        action = Action.parse(action)
        due = self.next
        if not isinstance(due, DecisionDue):
            raise IllegalAction(f"No decision is due: the game expects {due.describe()}.")
        self.check_legal(due, action)
        self._act(action)
        self.transcript.append(DecisionEvent(due.seat, action))

    def burn(self, rank: int | None) -> None:
        """A card burned from the shoe: out of the shoe, unseen by the rules and kept out of the
        transcript. `rank` is None for a card burned face down (a physical shoe), whose rank the
        shoe still counts as possible; raise IllegalAction if the shoe cannot give it."""
        if rank is not None:
            self.shoe.take(rank)
        elif len(self.shoe):
            self.shoe.unseen += 1
        else:
            raise IllegalAction("The shoe is empty: there is no card left to burn.")

    def recycle(self, ranks, hidden: int = 0) -> None:
        """The shoe ran dry mid-hand and now holds the discards shuffled again: `ranks` counts
        them by rank (index 0 unused). `hidden` of those are not in it: cards still face down on
        the table whose ranks nobody saw (a physical table's hidden hands), so their ranks stay
        possible (`Shoe.unseen`) until a reveal names them. The rules do not see it; raise
        IllegalAction if the shoe could not hold them."""
        refilled = Shoe(self.shoe.decks, ranks, hidden)
        if isinstance(hidden, bool) or not isinstance(hidden, int) or not 0 <= hidden <= sum(ranks[1:]):
            raise IllegalAction(f"A recycle of {sum(ranks[1:])} cards cannot leave {hidden!r} face down.")
        self.shoe.remaining, self.shoe.unseen = refilled.remaining, hidden

    def check_legal(self, due: DecisionDue, action: Action) -> None:
        if action.move not in due.moves:
            raise IllegalAction(
                f"Seat {due.seat} cannot {action.move} now; expected {' or '.join(due.moves)}."
            )

    def settlement(self) -> Settlement:
        due = self.next
        if not isinstance(due, Finished):
            raise IllegalAction(f"The hand is not over: it expects {due.describe()}.")
        return due.settlement

    def _deal(self, rank: int) -> None:
        raise NotImplementedError

    def _check_pile(self, rank: int) -> None:
        raise IllegalAction("This game deals no card from a pile of its own.")

    def _act(self, action: Action) -> None:
        raise NotImplementedError
