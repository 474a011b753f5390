"""Starboard: a pot game where everyone bets on one common hand.

Every player antes into the pot; two cards start a common hand (a pair on those
two is discarded and replaced). In turn from the button each player still in
either draws (pays the fee, one card to the common hand; a card that pairs the
hand busts the drawer and is discarded) or locks at the hand's current size.
A lock knocks out every locked player with a smaller count. When nobody is
left to act, the players locked with the highest count split the pot; odd units
and a pot nobody won carry to the table's next pot. See docs/rules/starboard.md.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum

from .base import (
    COMMON,
    Action,
    CardDue,
    DecisionDue,
    Entry,
    Finished,
    Game,
    Move,
    Settlement,
)
from .cards import Shoe
from .collection import CollectionOptions, fee_entries, rake_entries
from .errors import IllegalAction

MIN_PLAYERS, MAX_PLAYERS = 2, 7
# Ante and fee are whole units; a table charges at least one, since the ante is
# the marker that shows a player is in (booklet's dealing hints).
MIN_CHARGE = 1
# The common hand starts with this many cards, none of them a pair.
OPENING_CARDS = 2

DEAL, REPLACE, DRAW = "deal", "replace", "draw"
DRAW_OR_LOCK = (Move.DRAW, Move.LOCK)
LOCK_ONLY = (Move.LOCK,)


class Status(StrEnum):
    ACTIVE = "active"
    BUSTED = "busted"
    LOCKED = "locked"
    KNOCKED_OUT = "knocked out"


def _is_units(value: object) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


@dataclass(frozen=True)
class StarboardOptions(CollectionOptions):
    """Starboard house rules.

    `ante` (default 1) goes into the pot from every player; `draw_fee` (default
    None: equal to the ante) is paid into the pot for each draw;
    `knockout_on_draw` (default False): a draw that does not pair also knocks
    out every locked player with fewer cards than the hand now holds; `button`
    (default None: the first seat) is the seat that acts first this game. The
    button moves from game to game, but lives here so that a hand's record
    alone replays it. The house's collection (`tables.games.collection`): a rake
    on a pot the locked players share (a pot that carries whole is not raked), or
    a fee each player pays as the game starts, on top of the ante; its `fee` is
    the house's, the draw's is `draw_price`.
    """

    ante: int = 1
    draw_fee: int | None = None
    knockout_on_draw: bool = False
    button: int | None = None

    @property
    def draw_price(self) -> int:
        """What a draw costs: the draw fee, or the ante when none is set."""
        return self.ante if self.draw_fee is None else self.draw_fee

    def validate(self) -> None:
        super().validate()
        if not _is_units(self.ante) or self.ante < MIN_CHARGE:
            raise IllegalAction(f"The ante must be a whole number of units, at least {MIN_CHARGE}.")
        if self.draw_fee is not None and (not _is_units(self.draw_fee) or self.draw_fee < MIN_CHARGE):
            raise IllegalAction(
                f"The draw fee must be a whole number of units, at least {MIN_CHARGE}, "
                "or left unset to equal the ante."
            )
        if not isinstance(self.knockout_on_draw, bool):
            raise IllegalAction("knockout_on_draw must be true or false.")


def split_pot(pot: int, lock_counts: dict[int, int]) -> tuple[tuple[int, ...], int, int]:
    """Return (winners, share, odd units) for `pot` and the standing locks.

    `lock_counts` maps each locked seat that was not knocked out to its count;
    the winners are those with the highest count, each gets `share`, and the
    odd units carry to the next pot. With no lock standing the whole pot is
    odd units: nobody wins it and it carries.
    """
    if not lock_counts:
        return (), 0, pot
    best = max(lock_counts.values())
    winners = tuple(s for s, n in lock_counts.items() if n == best)
    share, odd = divmod(pot, len(winners))
    return winners, share, odd


class Starboard(Game):
    """Starboard for 2 to 7 players; `stakes` are the chips in front of each.

    The state is plain attributes: the common hand, each seat's status and
    lock count, what it has paid, whose turn it is, and whether a card is due
    (opening deal, replacement of an opening pair, or a draw). A player who
    cannot pay the draw fee may only lock; the last player still in, with no
    lock standing, locks automatically (recorded as `auto_lock` in the result,
    with no decision in the transcript).
    """

    name = "starboard"
    Options = StarboardOptions

    def __init__(self, seats, stakes, options=None, carry: int = 0, shoe: Shoe | None = None, **state):
        super().__init__(seats, stakes, options=options, carry=carry, shoe=shoe)
        if state:
            # Each game stands alone: nothing but the house rules carries in.
            raise IllegalAction(f"Starboard takes no game state such as {', '.join(sorted(state))}.")
        self._check_table()
        button = self.options.button if self.options.button is not None else self.seats[0]
        start = self.seats.index(button)
        # Clockwise from the button, wrapping: the order of every round.
        self.order: tuple[int, ...] = self.seats[start:] + self.seats[:start]
        self.common: list[int] = []
        self.status: dict[int, Status] = {s: Status.ACTIVE for s in self.order}
        self.lock_counts: dict[int, int] = {}
        self.paid: dict[int, int] = {s: self.options.ante for s in self.order}
        self.draws: list[int] = []  # the seat that paid for each draw, in order
        self.discards: list[int] = []
        self.turn = 0  # index in `order` of the seat to act
        self.card_due: str | None = DEAL
        self.auto_lock: int | None = None
        self._finished: Finished | None = None

    def _check_table(self) -> None:
        if not MIN_PLAYERS <= len(self.seats) <= MAX_PLAYERS:
            raise IllegalAction(
                f"Starboard needs {MIN_PLAYERS} to {MAX_PLAYERS} players, not {len(self.seats)}."
            )
        if set(self.stakes) != set(self.seats):
            raise IllegalAction(f"Stakes must be given for exactly the seats playing, {list(self.seats)}.")
        ante, fee = self.options.ante, self.options.game_fee
        for seat in self.seats:
            chips = self.stakes[seat]
            if not _is_units(chips) or chips < ante + fee:
                needs = f"the ante is {ante}" + (f" and the house's fee {fee}" if fee else "")
                raise IllegalAction(f"Seat {seat} cannot sit in: {needs} and it has {chips!r}.")
        if not _is_units(self.carry_in) or self.carry_in < 0:
            raise IllegalAction(f"The pot carried in must be a whole number of units, not {self.carry_in!r}.")
        if self.options.button is not None and self.options.button not in self.seats:
            raise IllegalAction(f"The button is on seat {self.options.button}, who is not playing.")

    # -- what the game waits for -------------------------------------------

    @property
    def next(self) -> CardDue | DecisionDue | Finished:
        if self.card_due is not None:
            return CardDue(COMMON, self.card_due)
        if self._finished is not None:
            return self._finished
        seat = self.order[self.turn]
        return DecisionDue(seat, DRAW_OR_LOCK if self.can_pay_fee(seat) else LOCK_ONLY)

    def can_pay_fee(self, seat: int) -> bool:
        """True if `seat` still has the draw fee in front of it (table stakes)."""
        left = self.stakes[seat] - self.options.game_fee - self.paid[seat]
        return left >= self.options.draw_price

    @property
    def pot(self) -> int:
        """Everything in the pot now: the carry, every ante and every draw fee."""
        return self.carry_in + sum(self.paid.values())

    def check_legal(self, due: DecisionDue, action: Action) -> None:
        super().check_legal(due, action)
        if action.count is not None or action.card is not None:
            raise IllegalAction(f"Seat {due.seat} may only draw or lock, with nothing more.")

    # -- cards ---------------------------------------------------------------

    def _deal(self, rank: int) -> None:
        if self.card_due == DRAW:
            self._draw_card(rank)
        elif rank in self.common:
            # An opening pair: one of the two is discarded and replaced.
            self.discards.append(rank)
            self.card_due = REPLACE
        else:
            self.common.append(rank)
            self.card_due = DEAL if len(self.common) < OPENING_CARDS else None

    def _draw_card(self, rank: int) -> None:
        seat = self.order[self.turn]
        self.card_due = None
        if rank in self.common:
            # The paired card is discarded, so the hand keeps its size.
            self.discards.append(rank)
            self.status[seat] = Status.BUSTED
        else:
            self.common.append(rank)
            if self.options.knockout_on_draw:
                self._knock_out_below(len(self.common))
        self._pass_turn()

    # -- decisions -------------------------------------------------------------

    def _act(self, action: Action) -> None:
        seat = self.order[self.turn]
        if action.move is Move.DRAW:
            self.paid[seat] += self.options.draw_price
            self.draws.append(seat)
            self.card_due = DRAW
        else:
            self._lock(seat)
            self._pass_turn()

    def _lock(self, seat: int) -> None:
        count = len(self.common)
        self._knock_out_below(count)
        self.status[seat] = Status.LOCKED
        self.lock_counts[seat] = count

    def _knock_out_below(self, count: int) -> None:
        for seat, locked_at in self.lock_counts.items():
            if locked_at < count and self.status[seat] is Status.LOCKED:
                self.status[seat] = Status.KNOCKED_OUT

    def _pass_turn(self) -> None:
        """Hand the turn to the next active seat clockwise, or end the game."""
        active = [s for s in self.order if self.status[s] is Status.ACTIVE]
        if len(active) == 1 and Status.LOCKED not in self.status.values():
            # The only player left, with no lock standing, locks (booklet).
            self.auto_lock = active[0]
            self._lock(active[0])
            active = []
        if not active:
            self._finished = Finished(self._settle())
            return
        n = len(self.order)
        for step in range(1, n + 1):
            index = (self.turn + step) % n
            if self.status[self.order[index]] is Status.ACTIVE:
                self.turn = index
                return

    # -- settlement -------------------------------------------------------------

    def _settle(self) -> Settlement:
        standing = {s: self.lock_counts[s] for s in self.order if self.status[s] is Status.LOCKED}
        pot = self.pot
        # A pot nobody wins carries whole, unraked: it is raked once, when someone wins it.
        rake, paid_out = rake_entries(self.options, pot) if standing else ([], pot)
        winners, share, odd = split_pot(paid_out, standing)
        entries = fee_entries(self.options, self.order) + self._payments() + rake
        entries += [e for s in winners for e in _move(s, share, "pot share")]
        if odd:
            reason = "odd units carried" if winners else "nobody locked: pot carried"
            entries += _move("carry", odd, reason)
        result = self._result(pot=pot, winners=winners, share=share, odd=odd)
        return Settlement.from_entries(self.seats, entries, carry_in=self.carry_in, result=result)

    def _payments(self) -> list[Entry]:
        entries: list[Entry] = []
        if self.carry_in:
            entries += _move("carry", -self.carry_in, "carried in")
        for seat in self.order:
            entries += _move(seat, -self.options.ante, "ante")
        for seat in self.draws:
            entries += _move(seat, -self.options.draw_price, "draw fee")
        return entries

    def _result(self, **facts) -> dict:
        return {
            "button": self.order[0],
            "common": tuple(self.common),
            "discards": tuple(self.discards),
            "status": {s: str(self.status[s]) for s in self.seats},
            "lock_counts": dict(self.lock_counts),
            "auto_lock": self.auto_lock,
            **facts,
        }


def _move(party: int | str, amount: int, reason: str) -> list[Entry]:
    """`party` gains `amount` from the pot (pays into it when negative)."""
    return [Entry(party, amount, reason), Entry("pot", -amount, reason)]
