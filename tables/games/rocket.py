"""Rocket: up to six players, each betting head to head against the dealer.

Every player gets one card face up, then the dealer. A round is every player
still in acting once in turn (fold, or hit and hope not to pair), then the
dealer, who must hit. A dealer pair, or a 3 on any dealer card, pays every
player still in and ends the hand; it also ends when no player is still in.
All payments are counted in tenths of the player's own bet, so bets are
multiples of 10 units and every amount is whole. See docs/rules/rocket.md.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from enum import StrEnum

from .base import DEALER, SEAT, Action, CardDue, DecisionDue, Entry, Finished, Game, Move, Options, Settlement
from .cards import MAX_DECKS, MIN_DECKS, RANKS, Shoe
from .errors import IllegalAction

TENTH = 10  # every payout is a whole number of tenths of the bet (booklet: "The Bet")
DEATH_CARD = 3  # a 3 is sudden death for the dealer and pays 3 tenths, as a pair of 3s would
MIN_PLAYERS, MAX_PLAYERS = 1, 6  # the booklet: 2 to 7 players including one dealer
DEFAULT_DECKS = 8  # the booklet allows a single deck "or up to 8"; casinos deal from the full shoe
PLAYER_MOVES = (Move.HIT, Move.FOLD)
HOUSE = "house"


class Start(StrEnum):
    """Who acts first: the dealer's left, or the single lowest card (the button)."""

    LEFT = "left"
    BUTTON = "button"


class Outcome(StrEnum):
    """How a seat's hand ended."""

    FOLDED = "folded"
    PAIRED = "paired"
    PAID_BY_DEALER = "paid by dealer"


class Reason(StrEnum):
    """Why money moved between a seat and the house."""

    FOLD = "fold price"
    PAIR = "pair"
    DEALER_PAIR = "dealer pair"
    DEALER_THREE = "dealer three"


class End(StrEnum):
    """What ended the hand."""

    DEALER_PAIR = "dealer pair"
    DEALER_THREE = "dealer three"
    NO_PLAYER_LEFT = "no player left"


@dataclass(frozen=True)
class RocketOptions(Options):
    """Rocket's house rules.

    `decks` is how many Pairs decks the shoe holds (1 to 8). `start` is "left"
    (the player on the dealer's left starts) or "button" (the single lowest
    card starts). `previous_button` is the seat that held the button last hand
    (None for the table's first button hand); it belongs to this one hand, not
    to the table, but is recorded with the options so a replay needs nothing
    else. It is ignored when `start` is "left".
    """

    decks: int = DEFAULT_DECKS
    start: str = Start.LEFT.value
    previous_button: int | None = None

    def validate(self) -> None:
        if isinstance(self.decks, bool) or not isinstance(self.decks, int):
            raise IllegalAction(f"The shoe holds {MIN_DECKS} to {MAX_DECKS} decks, not {self.decks!r}.")
        if not MIN_DECKS <= self.decks <= MAX_DECKS:
            raise IllegalAction(f"The shoe holds {MIN_DECKS} to {MAX_DECKS} decks, not {self.decks!r}.")
        if self.start not in tuple(Start):
            raise IllegalAction(f"Rocket starts from the 'left' or the 'button', not {self.start!r}.")
        if self.previous_button is not None and not _is_seat_number(self.previous_button):
            raise IllegalAction(
                f"The previous button must be a seat number or None, not {self.previous_button!r}."
            )


def _is_seat_number(seat: object) -> bool:
    return isinstance(seat, int) and not isinstance(seat, bool)


def check_table(seats: tuple, stakes: dict) -> None:
    """Raise IllegalAction unless 1 to 6 seats, listed clockwise, each bet a positive multiple of 10."""
    if not MIN_PLAYERS <= len(seats) <= MAX_PLAYERS:
        raise IllegalAction(f"Rocket seats {MIN_PLAYERS} to {MAX_PLAYERS} players, not {len(seats)}.")
    if not all(_is_seat_number(s) for s in seats):
        raise IllegalAction(f"Seats are numbers, not {seats!r}.")
    if list(seats) != sorted(seats):
        # Seat numbers run clockwise from the dealer's left; the button tie-break counts on it.
        raise IllegalAction(f"List the seats clockwise from the dealer's left (ascending), not {seats!r}.")
    if set(stakes) != set(seats):
        raise IllegalAction(f"Every seat needs one bet: seats {seats!r}, bets for {list(stakes)!r}.")
    for seat, bet in stakes.items():
        if isinstance(bet, bool) or not isinstance(bet, int) or bet <= 0 or bet % TENTH:
            raise IllegalAction(
                f"Seat {seat} bets {bet!r}; a bet must be a positive multiple of {TENTH} units."
            )


def button_starter(first: dict[int, int], previous_button: int | None) -> int:
    """The seat with the single lowest first card; a tie goes to the tied seat met
    first going clockwise from the seat after `previous_button` (whose own seat
    comes last). With no previous button, count from the dealer: lowest seat wins."""
    low = min(first.values())
    tied = [seat for seat, rank in first.items() if rank == low]
    if previous_button is None:
        return min(tied)
    # Seats after the previous button come first; seats up to it (itself last) after the wrap.
    return min(tied, key=lambda seat: (seat <= previous_button, seat))


class Rocket(Game):
    """A hand of Rocket as a state machine (see the module docstring).

    `next` is a cached attribute, recomputed only when a card or decision is
    accepted, because simulations call it for every step of millions of hands.
    A shoe that runs dry mid-hand is refilled from the discards (everything not
    on the table this hand), as RULINGS.md orders for any shoe.
    """

    name = "rocket"
    Options = RocketOptions

    def __init__(self, seats, stakes, options=None, carry: int = 0, shoe: Shoe | None = None):
        super().__init__(seats, stakes, options, carry, shoe)
        check_table(self.seats, self.stakes)
        if self.shoe.decks != self.options.decks:
            raise IllegalAction(
                f"The shoe holds {self.shoe.decks} deck(s) but the table plays {self.options.decks}."
            )
        self.tenth = {seat: bet // TENTH for seat, bet in self.stakes.items()}
        self.stacks: dict[int, list[int]] = {seat: [] for seat in self.seats}
        self.low: dict[int, int] = {}  # lowest card in each seat's stack, for the fold price
        self.dealer: list[int] = []
        self.outcome: dict[int, Outcome] = {}
        self.entries: list[Entry] = []
        self.starter: int | None = None
        self.live: list[int] = []  # seats still in, in turn order from the starter
        self.pos = 0  # index in `live` of the player due this round
        self.reshuffles = 0
        self.low_dealer = 0  # lowest dealer card, set with the dealer's first card
        self._end: End | None = None
        if not any(self.shoe.remaining):
            self._recycle()
        self._set_card(SEAT, "deal", self.seats[0], self._deal_first)

    @property
    def next(self) -> CardDue | DecisionDue | Finished:
        return self._due

    def deal(self, rank: int) -> None:
        """Feed the card that left the shoe; refill a shoe that ran dry while cards are still due."""
        super().deal(rank)
        if self._end is None and not any(self.shoe.remaining):
            self._recycle()

    def check_legal(self, due: DecisionDue, action: Action) -> None:
        super().check_legal(due, action)
        if action.count is not None or action.card is not None:
            raise IllegalAction(
                f"In Rocket seat {due.seat} just hits or folds: a {action.move.value} names no count or card."
            )

    # -- cards -------------------------------------------------------------

    def _deal(self, rank: int) -> None:
        self._on_card(rank)

    def _deal_first(self, rank: int) -> None:
        seat = self._due.seat
        self.stacks[seat].append(rank)
        self.low[seat] = rank
        index = self.seats.index(seat) + 1
        if index < len(self.seats):
            self._set_card(SEAT, "deal", self.seats[index], self._deal_first)
            return
        self._choose_starter()
        self._set_card(DEALER, "deal", None, self._dealer_card)

    def _choose_starter(self) -> None:
        # The button moves with the first cards even if a dealer 3 then stops the hand.
        if self.options.start == Start.BUTTON:
            first = {seat: self.stacks[seat][0] for seat in self.seats}
            self.starter = button_starter(first, self.options.previous_button)
        else:
            self.starter = self.seats[0]
        at = self.seats.index(self.starter)
        self.live = list(self.seats[at:] + self.seats[:at])

    def _player_card(self, rank: int) -> None:
        seat = self.live[self.pos]
        stack = self.stacks[seat]
        paired = rank in stack
        stack.append(rank)
        if paired:
            self._pay(seat, -self.tenth[seat] * rank, Reason.PAIR)
            self.outcome[seat] = Outcome.PAIRED
            del self.live[self.pos]
        else:
            if rank < self.low[seat]:
                self.low[seat] = rank
            self.pos += 1
        self._next_player()

    def _dealer_card(self, rank: int) -> None:
        paired = rank in self.dealer
        self.dealer.append(rank)
        if rank == DEATH_CARD:
            self._dealer_pays(DEATH_CARD, Reason.DEALER_THREE, End.DEALER_THREE)
        elif paired:
            self._dealer_pays(rank, Reason.DEALER_PAIR, End.DEALER_PAIR)
        else:
            if not self.low_dealer or rank < self.low_dealer:
                self.low_dealer = rank
            self.pos = 0
            self._next_player()

    def _recycle(self) -> None:
        # RULINGS: a dry shoe is refilled with the discards only, never a card on the table this hand.
        on_table = [0] * (len(RANKS) + 1)
        for stack in (*self.stacks.values(), self.dealer):
            for rank in stack:
                on_table[rank] += 1
        self.shoe.remaining = [full - held for full, held in zip(self.shoe.full, on_table, strict=True)]
        self.reshuffles += 1

    # -- decisions ---------------------------------------------------------

    def _act(self, action: Action) -> None:
        seat = self.live[self.pos]
        if action.move is Move.HIT:
            self._set_card(SEAT, "hit", seat, self._player_card)
            return
        self._pay(seat, -self._fold_price(seat), Reason.FOLD)
        self.outcome[seat] = Outcome.FOLDED
        del self.live[self.pos]
        self._next_player()

    def _fold_price(self, seat: int) -> int:
        return self.tenth[seat] * min(self.low[seat], self.low_dealer)

    # -- flow --------------------------------------------------------------

    def _next_player(self) -> None:
        """Who is due after a turn or a dealer card: the next player this round, the dealer, or nobody."""
        if self.pos < len(self.live):
            seat = self.live[self.pos]
            self._on_card = None
            self._due = DecisionDue(seat, PLAYER_MOVES, fold_price=self._fold_price(seat))
        elif self.live:
            self._set_card(DEALER, "hit", None, self._dealer_card)
        else:
            self._finish(End.NO_PLAYER_LEFT)

    def _set_card(self, to: str, why: str, seat: int | None, on_card: Callable[[int], None]) -> None:
        self._on_card = on_card
        self._due = CardDue(to, why, seat)

    def _pay(self, seat: int, amount: int, reason: Reason) -> None:
        """`seat` gains `amount` units (negative: pays) from the house."""
        self.entries.append(Entry(seat, amount, reason.value))
        self.entries.append(Entry(HOUSE, -amount, reason.value))

    def _dealer_pays(self, rank: int, reason: Reason, end: End) -> None:
        for seat in self.live:
            self._pay(seat, self.tenth[seat] * rank, reason)
            self.outcome[seat] = Outcome.PAID_BY_DEALER
        self.live = []
        self._finish(end)

    def _finish(self, end: End) -> None:
        self._end = end
        self._on_card = None
        result = {
            "starter": self.starter,
            "button": self.starter if self.options.start == Start.BUTTON else None,
            "end": end.value,
            "outcome": {seat: self.outcome[seat].value for seat in self.seats},
            "stacks": {seat: tuple(stack) for seat, stack in self.stacks.items()},
            "dealer": tuple(self.dealer),
            "reshuffles": self.reshuffles,
        }
        settlement = Settlement.from_entries(self.seats, self.entries, carry_in=self.carry_in, result=result)
        self._due = Finished(settlement)
