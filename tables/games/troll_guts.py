"""Troll Guts: no folding; draw, steal or buy a face-up card until one player is left.

Booklet, "Secret Hands"; RULINGS.md "Secret-hand games". Every player antes
into the pot and is dealt five cards face down, then one face up. The low card
goes first (ties broken with face-up cards, a pairing one replaced), and each
player arranges the downcards in secret, in the order they will be revealed. In
turn to the left a player draws (a card from the deck), steals (the top
downcard of another live player) or buys (pays a coin into the pot for the top
of their own downcards); the card goes face up onto the player's stack. A card
that pairs it costs the pair's rank into the pot and the player is out. The
survivor takes the pot. See docs/rules/troll_guts.md.

The ordering is never keyed on its own: each downcard is recorded when it is
revealed, by the steal or buy that names its rank.

Each game is dealt from a freshly shuffled deck: the booklet's "Setup" (ante,
shuffle, deal) starts every game, with none of Regent's dealing to the bottom
across games (the table asks for a new shoe once a game is dealt: services.shoes).
"""

from __future__ import annotations

from dataclasses import dataclass

from .base import SEAT, Action, CardDue, DecisionDue, Finished, Move
from .cards import Shoe
from .errors import IllegalAction
from .secret_hands import (
    IN_FLIGHT,
    SecretHandGame,
    SecretOptions,
    clockwise_from,
    deal_order,
    is_units,
)

MIN_PLAYERS, MAX_PLAYERS = 3, 6
HAND_SIZE = 5


@dataclass(frozen=True)
class TrollGutsOptions(SecretOptions):
    """Troll Guts house rules: `ante` (1), `deal` (rotation), the collection, `buy_price` (1 unit:
    "pay a coin") and `steal_own` (False: a steal takes from another player's downcards only;
    True: from your own too, for free)."""

    buy_price: int = 1
    steal_own: bool = False

    def validate(self) -> None:
        super().validate()
        if not is_units(self.buy_price) or self.buy_price < 0:
            raise IllegalAction(f"The buy price must be whole units, not {self.buy_price!r}.")
        if not isinstance(self.steal_own, bool):
            raise IllegalAction("steal_own must be true or false.")


class TrollGuts(SecretHandGame):
    """Troll Guts for 3 to 6 players; `stakes` are the chips in front of each seat."""

    name = "troll_guts"
    players = (MIN_PLAYERS, MAX_PLAYERS)
    Options = TrollGutsOptions

    def __init__(self, seats, stakes, options=None, carry: int = 0, shoe: Shoe | None = None, **state):
        super().__init__(seats, stakes, options=options, carry=carry, shoe=shoe, **state)
        self.to_deal = deal_order(self.seats, HAND_SIZE, self.options.deal)
        self.turn: int | None = None
        self.draw_due = False
        self._finished: Finished | None = None

    @property
    def next(self) -> CardDue | DecisionDue | Finished:
        if self.to_deal:
            return CardDue(SEAT, "deal", self.to_deal[0], face_down=True)
        if self.low.winner is None:
            return CardDue(SEAT, "tiebreak" if self.low.is_tiebreak else "upcard", self.low.seat)
        if self._finished is not None:
            return self._finished
        if self.draw_due:
            return CardDue(SEAT, "draw", self.turn)
        return self._decision()

    def _decision(self) -> DecisionDue:
        seat = self.turn
        targets = self.steal_targets(seat)
        # A dry shoe recycles its discards (RULINGS); with none, nobody draws.
        moves = [Move.DRAW] * self.can_deal + [Move.STEAL] * bool(targets)
        if self.hands[seat] and self.purse.left[seat] >= self.options.buy_price:
            moves.append(Move.BUY)
        choices = self._choices(seat, targets, moves)
        return DecisionDue(seat, tuple(moves), choices=choices, targets=tuple(targets))

    def _choices(self, seat: int, targets, moves) -> tuple[tuple, ...]:
        hands = [self.hands[t] for t in targets] + [self.hands[seat]] * (Move.BUY in moves)
        if any(hand.unknown for hand in hands):
            return ()
        steals = [("steal", t, rank) for t in targets for rank in self.hands[t].choices()]
        buys = [("buy", rank) for rank in self.hands[seat].choices()] if Move.BUY in moves else []
        return (*[("draw",)] * (Move.DRAW in moves), *steals, *buys)

    def steal_targets(self, seat: int) -> list[int]:
        """Live players with downcards left that `seat` may steal from."""
        return [t for t in self.live if self.hands[t] and (t != seat or self.options.steal_own)]

    def check_legal(self, due: DecisionDue, action: Action) -> None:
        super().check_legal(due, action)
        seat, ranks = due.seat, action.ranks or ()
        if action.move is Move.DRAW:
            if action.count or action.card:
                raise IllegalAction(f"Seat {seat}'s draw names nothing more.")
            return
        if len(ranks) != 1:
            raise IllegalAction(f"Seat {seat}'s {action.move} names the rank of the card turned up.")
        owner = seat if action.move is Move.BUY else action.target
        if action.move is Move.STEAL and owner not in self.steal_targets(seat):
            raise IllegalAction(f"Seat {seat} cannot steal from seat {owner}: it has no downcards to take.")
        self.hands[owner].check_reveal(ranks, self.shoe, f"Seat {owner}'s downcards")

    def _deal(self, rank: int | None) -> None:
        if self.to_deal:
            self.hands[self.to_deal.pop(0)].add(rank)
        elif self.low.winner is None:
            self.low.feed(rank)
            self.low.settle_if_stuck(self.cards_to_come(IN_FLIGHT))
            self.turn = self.low.winner
        else:
            self.draw_due = False
            self._receive(self.turn, rank)

    def _act(self, action: Action) -> None:
        seat = self.turn
        if action.move is Move.DRAW:
            self.draw_due = True
            return
        owner = seat
        if action.move is Move.STEAL:
            owner = action.target
        else:
            self.purse.pay(seat, self.options.buy_price, "buy")
        self.hands[owner].reveal(action.ranks[0], self.shoe)
        self._receive(seat, action.ranks[0])

    def _receive(self, seat: int, rank: int) -> None:
        if rank in self.stacks[seat]:
            self.purse.pay(seat, rank, f"pair of {rank}s")
            self.out[seat] = f"pair of {rank}s"
        else:
            self.stacks[seat].append(rank)
        order = clockwise_from(self.seats, seat, self.live)
        self.turn = next((s for s in order[1:] if s not in self.out), seat)
        self.live = [s for s in self.live if s not in self.out]
        if len(self.live) == 1 or not self._decision().moves:
            # The last one standing wins; a player who can neither draw (the shoe is spent: a game
            # is never reshuffled) nor steal nor buy ends the game, the players still in splitting.
            self._finished = Finished(self.purse.settle(self.live, self._result()))

    def _result(self) -> dict:
        return {
            "stacks": {seat: tuple(cards) for seat, cards in self.stacks.items()},
            "out": dict(self.out),
        }
