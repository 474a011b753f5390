"""What the secret-hand pot games share: antes, hands dealt face down, payments, the pot.

Hawthorn, Goblin Poker, Monster, Regent and Troll Guts (booklet, "Secret Hands")
deal hands face down, one card at a time clockwise from the dealer's left or a
whole packet each (RULINGS.md, option `deal`), and pay antes, fold prices and
pair penalties into a pot that the survivors take or split, after the house's
collection (`tables.games.collection`). Nobody pays more than the chips in front
of them (table stakes): the rest is a shortfall recorded on the hand.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from .base import Entry, Game, Settlement
from .cards import Hand, LowCard, Shoe
from .collection import CollectionOptions, fee_entries, rake_entries
from .errors import IllegalAction

ROTATION, PACKETS = "rotation", "packets"
# While a game's `_deal` runs, the card it is given is still counted in the shoe (Game.deal takes
# it afterwards): the cards left behind it are one fewer.
IN_FLIGHT = 1
DEALS = (ROTATION, PACKETS)
# A card a player gives up face down from a hand a system shoe dealt: the engine knows the hand but
# not which card the player chose, so the dealer keys it (docs/tablet.md, "The secret-hand games").
CHOSEN_IN_SECRET = "the shoe knows the hand, not which card the player chose; key the rank of each."


def is_units(value: object) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


@dataclass(frozen=True)
class SecretOptions(CollectionOptions):
    """House rules every secret-hand game has: `ante` (units each player puts in the pot as the
    game starts) and `deal` (`rotation`: one card at a time clockwise; `packets`: a whole hand
    each), with the house's collection."""

    ante: int = 1
    deal: str = ROTATION

    def validate(self) -> None:
        super().validate()
        if not is_units(self.ante) or self.ante < 0:
            raise IllegalAction(f"The ante must be a whole number of units, not {self.ante!r}.")
        check_deal(self.deal)


def check_deal(deal: object) -> None:
    if deal not in DEALS:
        raise IllegalAction(f"Unknown deal {deal!r}; expected one of {', '.join(DEALS)}.")


def deal_order(seats, size: int, deal: str) -> list[int]:
    """The seat that receives each face-down card of the hands, in order."""
    if deal == PACKETS:
        return [seat for seat in seats for _ in range(size)]
    return [seat for _ in range(size) for seat in seats]


def check_table(game, low: int, high: int, ante: int) -> None:
    """Refuse a table the game cannot start: player count, stakes, ante and fee, carry."""
    title = game.name.replace("_", " ").title()
    if not low <= len(game.seats) <= high:
        raise IllegalAction(f"{title} needs {low} to {high} players, not {len(game.seats)}.")
    if set(game.stakes) != set(game.seats):
        raise IllegalAction(f"Stakes must be given for exactly the seats playing, {list(game.seats)}.")
    fee = game.options.game_fee
    for seat in game.seats:
        chips = game.stakes[seat]
        if not is_units(chips) or chips < ante + fee:
            needs = f"the ante is {ante}" + (f" and the house's fee {fee}" if fee else "")
            raise IllegalAction(f"Seat {seat} cannot sit in: {needs} and it has {chips!r}.")
    if not is_units(game.carry_in) or game.carry_in < 0:
        raise IllegalAction(f"The pot carried in must be a whole number of units, not {game.carry_in!r}.")


class SecretHandGame(Game):
    """How Hawthorn, Goblin Poker, Regent and Troll Guts start: no game state carried in, the
    table checked (`players`: the fewest and the most), every player's ante in the pot, an empty
    hand and face-up stack each, the low card still to find, every player live and none out. Each
    game then sets its own deal and the rest of its state."""

    players: ClassVar[tuple[int, int]]

    def __init__(self, seats, stakes, options=None, carry: int = 0, shoe: Shoe | None = None, **state):
        super().__init__(seats, stakes, options=options, carry=carry, shoe=shoe)
        if state:
            title = self.name.replace("_", " ").title()
            raise IllegalAction(f"{title} takes no game state such as {', '.join(sorted(state))}.")
        check_table(self, *self.players, self.options.ante)
        self.purse = Purse(self)
        for seat in self.seats:
            self.purse.pay(seat, self.options.ante, "ante")
        self.hands = hands_for(self.seats)
        self.stacks: dict[int, list[int]] = {seat: [] for seat in self.seats}
        self.low = LowCard(self.seats, self.stacks)
        self.live = list(self.seats)
        self.out: dict[int, str] = {}

    @property
    def discards(self) -> int:
        """Cards out of the shoe and off the table: the burn pile and, where the game was dealt on
        from a shoe that dealt earlier games (Regent), their cards. Every card this game deals
        stays on the table until it ends, an out player's included (RULINGS, single-deck
        recycling), so the rest of the deck is the shoe and the table."""
        return sum(self.shoe.full) - len(self.shoe) - self.dealt

    def cards_to_come(self, in_flight: int = 0) -> int:
        """Cards the deck can still give this game: those in the shoe (less the `in_flight` card
        being dealt, `IN_FLIGHT`) and, once it runs dry, its discards, shuffled to refill it
        (RULINGS: any shoe that runs dry mid-hand recycles; the services record the recycle,
        `Game.recycle`, before the card due). A recycle burns all but one of them at most."""
        return len(self.shoe) - in_flight + self.discards

    @property
    def can_deal(self) -> bool:
        """Whether a card can still leave the shoe, from it or from its discards recycled."""
        return self.cards_to_come() > 0


class Purse:
    """The money of one game: what each seat paid into the pot (capped at its chips), the
    shortfalls, and the settlement when the pot is won, split or carried."""

    def __init__(self, game) -> None:
        self.game = game
        self.entries: list[Entry] = fee_entries(game.options, game.seats)
        self.left = {seat: game.stakes[seat] - game.options.game_fee for seat in game.seats}
        self.shortfalls: dict[int, int] = {}
        self.pot = game.carry_in
        if game.carry_in:
            self.entries += _move("carry", -game.carry_in, "carried in")

    def pay(self, seat: int, owed: int, reason: str) -> int:
        """`seat` pays `owed` into the pot, at most its chips; return what it paid."""
        paid = min(owed, self.left[seat])
        if paid < owed:
            self.shortfalls[seat] = self.shortfalls.get(seat, 0) + owed - paid
        if paid:
            self.left[seat] -= paid
            self.pot += paid
            self.entries += _move(seat, -paid, reason)
        return paid

    def transfer(self, payer: int, payee: int, owed: int, reason: str) -> int:
        """`payer` pays `payee` directly (Regent), at most its chips; return what it paid."""
        paid = min(owed, self.left[payer])
        if paid < owed:
            self.shortfalls[payer] = self.shortfalls.get(payer, 0) + owed - paid
        self.left[payer] -= paid
        self.left[payee] += paid
        if paid:
            self.entries += [Entry(payer, -paid, reason), Entry(payee, paid, reason)]
        return paid

    def settle(self, winners, result: dict) -> Settlement:
        """Pay the pot out to `winners` in equal shares after the rake; odd units (or the whole
        pot, with no winner) carry to the table's next pot, unraked."""
        winners = tuple(winners)
        rake, paid_out = rake_entries(self.game.options, self.pot) if winners else ([], self.pot)
        share, odd = divmod(paid_out, len(winners)) if winners else (0, paid_out)
        entries = self.entries + rake
        for seat in winners:
            entries += _move(seat, share, "pot share")
        if odd:
            entries += _move("carry", odd, "odd units carried" if winners else "pot carried")
        facts = {"pot": self.pot, "winners": winners, "share": share, "odd": odd, **result}
        return Settlement.from_entries(
            self.game.seats, entries, carry_in=self.game.carry_in, shortfalls=self.shortfalls, result=facts
        )


def _move(party: int | str, amount: int, reason: str) -> list[Entry]:
    """`party` gains `amount` from the pot (pays into it when negative)."""
    return [Entry(party, amount, reason), Entry("pot", -amount, reason)]


def lowest_in_play(stacks: dict[int, list[int]], live) -> int | None:
    """The lowest face-up card of the players still in, or None if they show none."""
    cards = [rank for seat in live for rank in stacks[seat]]
    return min(cards) if cards else None


def hands_for(seats) -> dict[int, Hand]:
    return {seat: Hand() for seat in seats}


def clockwise_from(seats, start: int, live) -> list[int]:
    """The live seats in turn order, starting at `start` (or the first live seat after it)."""
    i = seats.index(start)
    ordered = seats[i:] + seats[:i]
    return [seat for seat in ordered if seat in live]
