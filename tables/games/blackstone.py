"""Blackstone: a pot game of chicken, 2 to 8 players, one deck per game.

The 10s are black stones, every other card a white stone. Low card starts;
then, in turn, each player folds or takes at least as many cards as the last
player who took. The player who collects a second black stone loses and pays
the ante plus one unit per white stone dealt; the survivors split the pot. A
fold costs the ante plus half the white stones, rounded up. Antes stay in
front of the players and reach the pot only from those who fold or lose.
See docs/rules/blackstone.md and RULINGS.md "Blackstone".
"""

from __future__ import annotations

from dataclasses import dataclass

from .base import SEAT, Action, CardDue, DecisionDue, Entry, Finished, Game, Move, Settlement
from .cards import LowCard, Shoe
from .collection import CollectionOptions, fee_entries, rake_entries
from .errors import IllegalAction

BLACK_STONE = 10  # the 10s are the black stones; every other rank is a white stone
MIN_PLAYERS, MAX_PLAYERS = 2, 8
DEFAULT_ANTE = 5  # RULINGS.md: "Ante 5 units (option)"
MIN_ANTE = 1  # the ante in front of a player is what shows the dealer who is still in
DECKS = 1  # one deck, shuffled for every game
FIRST_MIN_TAKE = 1  # the first taker of the game must take at least one card


def _is_units(value: object) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


@dataclass(frozen=True)
class BlackstoneOptions(CollectionOptions):
    """Blackstone's house rules: `ante`, the units each player puts up to sit in
    (default 5). It stays in front of the player and goes to the pot only when
    the player folds or loses. The house's collection (`tables.games.collection`):
    a rake on the pot the survivors share, or a fee each player pays as the game
    starts, on top of the ante."""

    ante: int = DEFAULT_ANTE

    def validate(self) -> None:
        super().validate()
        if not _is_units(self.ante) or self.ante < MIN_ANTE:
            raise IllegalAction(
                f"The ante must be a whole number of units, at least {MIN_ANTE}, not {self.ante!r}."
            )


def fold_penalty(white_stones: int) -> int:
    """Half the white stones in the centre, rounded up (15 stones cost 8), on top of the ante."""
    return (white_stones + 1) // 2


class Blackstone(Game):
    """One game of Blackstone as a state machine (see the module docstring).

    `stakes` maps each seat to the chips in front of it, the ante included;
    nobody pays more than that (table stakes: the rest is a shortfall on the
    settlement). `carry` is the pot's odd units carried in from the last game.
    """

    name = "blackstone"
    Options = BlackstoneOptions

    def __init__(self, seats, stakes, options=None, carry: int = 0, shoe: Shoe | None = None, **state):
        if state:
            unused = ", ".join(sorted(state))
            raise IllegalAction(f"Blackstone keeps no state between games; {unused} is not used.")
        super().__init__(seats, stakes, options, carry, shoe)
        self._check_table()
        self.stacks: dict[int, list[int]] = {s: [] for s in self.seats}  # cards dealt to find the starter
        self.contest = LowCard(self.seats, self.stacks, replace_pairs=False)
        self.white = 0  # W: white stones in the centre
        self.black: set[int] = set()  # seats holding a black stone
        self.returned_tens: dict[int, int] = {}
        self.in_play: list[int] = list(self.seats)  # neither folded (the loser stays listed)
        self.folds: list[tuple[int, int]] = []  # (seat, what the fold cost), in order
        self.turn: int | None = None  # None until the starter is known
        self.to_take = 0  # cards still to reveal for the current take
        self.min_take = FIRST_MIN_TAKE
        self.loser: int | None = None
        self._finished: Finished | None = None

    def _check_table(self) -> None:
        players, ante = len(self.seats), self.options.ante
        if not MIN_PLAYERS <= players <= MAX_PLAYERS:
            raise IllegalAction(f"Blackstone needs {MIN_PLAYERS} to {MAX_PLAYERS} players, not {players}.")
        if set(self.stakes) != set(self.seats):
            raise IllegalAction(
                f"Chips are given for seats {sorted(self.stakes)}, which do not match {self.seats}."
            )
        fee = self.options.game_fee
        for seat in self.seats:
            chips = self.stakes[seat]
            if not _is_units(chips) or chips < ante + fee:
                needs = f"the ante is {ante}" + (f" and the house's fee {fee}" if fee else "")
                raise IllegalAction(f"Seat {seat} has {chips!r} units in front; {needs}.")
        if not _is_units(self.carry_in) or self.carry_in < 0:
            raise IllegalAction(f"The pot carried in must be whole units, not {self.carry_in!r}.")
        if self.shoe.decks != DECKS:
            raise IllegalAction(f"Blackstone is dealt from one deck, not a {self.shoe.decks}-deck shoe.")

    # What the game waits for ------------------------------------------------

    @property
    def next(self) -> CardDue | DecisionDue | Finished:
        """A card for the deal, tie-break or a take; a seat's fold-or-take; or the settlement."""
        if self._finished is not None:
            return self._finished
        if self.turn is None:
            return CardDue(SEAT, "tiebreak" if self.contest.is_tiebreak else "deal", self.contest.seat)
        if self.to_take:
            return CardDue(SEAT, "take", self.turn)
        left = len(self.shoe)
        moves = (Move.TAKE, Move.FOLD) if self.min_take <= left else (Move.FOLD,)
        price = self.options.ante + fold_penalty(self.white)
        return DecisionDue(self.turn, moves, min_take=self.min_take, max_take=left, fold_price=price)

    def check_legal(self, due: DecisionDue, action: Action) -> None:
        """Besides the move itself: a take names k within min_take..max_take; a fold names nothing."""
        super().check_legal(due, action)
        if action.card is not None or (action.move is Move.FOLD and action.count is not None):
            raise IllegalAction(f"Seat {due.seat} folds with a plain fold; it names no card or count.")
        if action.move is Move.TAKE:
            k = action.count
            if not _is_units(k) or not due.min_take <= k <= due.max_take:
                raise IllegalAction(
                    f"Seat {due.seat} must take from {due.min_take} to {due.max_take} cards, not {k!r}."
                )

    # Cards -----------------------------------------------------------------

    def _deal(self, rank: int) -> None:
        if rank != BLACK_STONE:
            self.white += 1
        if self.turn is None:
            self._deal_for_start(rank)
        else:
            self._deal_taken(rank)

    def _deal_for_start(self, rank: int) -> None:
        self.contest.feed(rank)  # replace_pairs=False: pairs on the deal are ignored, never refused
        if self.contest.winner is not None:
            self._keep_one_ten_each()
            self.turn = self.contest.winner

    def _keep_one_ten_each(self) -> None:
        # Each extra 10 was taken from this shoe already, so putting it back
        # cannot overfill it (the card being dealt is taken right after).
        for seat, stack in self.stacks.items():
            tens = stack.count(BLACK_STONE)
            if tens:
                self.black.add(seat)
            if tens > 1:
                self.returned_tens[seat] = tens - 1
                for _ in range(tens - 1):
                    self.shoe.put_back(BLACK_STONE)

    def _deal_taken(self, rank: int) -> None:
        self.to_take -= 1
        if rank == BLACK_STONE:
            if self.turn in self.black:
                # The counted cards left unrevealed go to the discards unseen.
                self.loser, self.to_take = self.turn, 0
                self._end()
                return
            self.black.add(self.turn)
        if not self.to_take:
            self._pass_turn()

    # Decisions -------------------------------------------------------------

    def _act(self, action: Action) -> None:
        if action.move is Move.TAKE:
            self.to_take = self.min_take = action.count  # folds leave the minimum alone
            return
        self.folds.append((self.turn, self.options.ante + fold_penalty(self.white)))
        self.in_play.remove(self.turn)
        if len(self.in_play) == 1:
            self._end()
        else:
            self._pass_turn()

    def _pass_turn(self) -> None:
        """Give the turn to the next seat clockwise that is still in play."""
        here = self.seats.index(self.turn)
        count = len(self.seats)
        for step in range(1, count + 1):
            seat = self.seats[(here + step) % count]
            if seat in self.in_play:
                self.turn = seat
                return

    # Settlement ------------------------------------------------------------

    def _end(self) -> None:
        entries: list[Entry] = fee_entries(self.options, self.seats)
        shortfalls: dict[int, int] = {}
        pot = self.carry_in
        _transfer(entries, "carry", "pot", self.carry_in, "the pot carried in joins this pot")
        for seat, owed in self.folds:
            pot += self._charge(entries, shortfalls, seat, owed, "fold: ante plus half the white stones")
        if self.loser is not None:
            owed = self.options.ante + self.white
            pot += self._charge(entries, shortfalls, self.loser, owed, "second black stone: ante plus W")
        survivors = [s for s in self.in_play if s != self.loser]
        # There is always a survivor, so the pot is always paid out, and raked first.
        rake, paid_out = rake_entries(self.options, pot)
        entries += rake
        share, odd = divmod(paid_out, len(survivors))
        reason = "split of the pot" if self.loser is not None else "last player standing takes the pot"
        for seat in survivors:
            _transfer(entries, "pot", seat, share, reason)
        _transfer(entries, "pot", "carry", odd, "odd units carry to the next pot")
        result = self._result(survivors, pot, share)
        settlement = Settlement.from_entries(
            self.seats, entries, carry_in=self.carry_in, shortfalls=shortfalls, result=result
        )
        self._finished = Finished(settlement)

    def _charge(
        self, entries: list[Entry], shortfalls: dict[int, int], seat: int, owed: int, why: str
    ) -> int:
        """Move what `seat` owes into the pot, capped at its chips (table stakes)."""
        paid = min(owed, self.stakes[seat] - self.options.game_fee)
        if owed > paid:
            shortfalls[seat] = owed - paid
        _transfer(entries, seat, "pot", paid, why)
        return paid

    def _result(self, survivors: list[int], pot: int, share: int) -> dict:
        return {
            "ending": "second_black_stone" if self.loser is not None else "last_player_standing",
            "starter": self.contest.winner,
            "white_stones": self.white,
            "loser": self.loser,
            "folded": tuple(seat for seat, _ in self.folds),
            "survivors": tuple(survivors),
            "pot": pot,
            "share": share,
            "returned_tens": dict(self.returned_tens),
        }


def _transfer(entries: list[Entry], payer: int | str, payee: int | str, amount: int, reason: str) -> None:
    if amount:
        entries.append(Entry(payer, -amount, reason))
        entries.append(Entry(payee, amount, reason))
