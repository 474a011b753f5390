"""Hawthorn: Pairs with a hand of five cards, deck rounds and hand rounds, for a pot.

Booklet, "Secret Hands"; RULINGS.md "Secret-hand games". Every player antes into
the pot and is dealt five cards face down. Each chooses a first card in secret;
they are revealed together and start the face-up stacks. The low card goes first
(ties broken with face-up cards from the deck, a pairing one replaced) and holds
the button. Rounds alternate, a deck round first, each starting with the first
live seat clockwise from the button: in a deck round a player hits (a card from
the deck) or folds; in a hand round a player plays a card from the hand or
folds. A card that pairs the stack costs the pair's rank, into the pot, and the
player is out; a fold costs the lowest face-up card in play. The last player in
takes the pot. See docs/rules/hawthorn.md.

Each game is dealt from a freshly shuffled deck: the booklet's "To Begin" (ante,
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
    lowest_in_play,
)

MIN_PLAYERS, MAX_PLAYERS = 2, 6
HAND_SIZE = 5
DECK, HAND = "deck", "hand"  # the two kinds of round, a deck round first
FOLD, HIT = "fold", "hit"  # what a player with an empty hand may do in a hand round
EMPTY_HAND = (FOLD, HIT)


@dataclass(frozen=True)
class HawthornOptions(SecretOptions):
    """Hawthorn house rules: `ante` (1), `deal` (rotation), the collection, and `empty_hand`
    (`fold`: a player with no cards left must fold in a hand round; `hit`: takes a card from
    the deck instead)."""

    empty_hand: str = FOLD

    def validate(self) -> None:
        super().validate()
        if self.empty_hand not in EMPTY_HAND:
            raise IllegalAction(f"empty_hand is one of {', '.join(EMPTY_HAND)}, not {self.empty_hand!r}.")


class Hawthorn(SecretHandGame):
    """Hawthorn for 2 to 6 players; `stakes` are the chips in front of each seat."""

    name = "hawthorn"
    players = (MIN_PLAYERS, MAX_PLAYERS)
    Options = HawthornOptions

    def __init__(self, seats, stakes, options=None, carry: int = 0, shoe: Shoe | None = None, **state):
        super().__init__(seats, stakes, options=options, carry=carry, shoe=shoe, **state)
        self.to_deal = deal_order(self.seats, HAND_SIZE, self.options.deal)
        self.chosen: dict[int, int] = {}
        self.button: int | None = None
        self.round = DECK
        self.turn: int | None = None
        self.hit_due = False
        self._finished: Finished | None = None

    # -- what the game waits for ---------------------------------------------

    @property
    def next(self) -> CardDue | DecisionDue | Finished:
        if self.to_deal:
            return CardDue(SEAT, "deal", self.to_deal[0], face_down=True)
        if len(self.chosen) < len(self.seats):
            seat = self.seats[len(self.chosen)]
            return DecisionDue(seat, (Move.CHOOSE,), choices=_named(Move.CHOOSE, self.hands[seat].choices()))
        if self.low.winner is None:
            return CardDue(SEAT, "tiebreak", self.low.seat)
        if self._finished is not None:
            return self._finished
        if self.hit_due:
            return CardDue(SEAT, "hit", self.turn)
        return self._decision()

    def _decision(self) -> DecisionDue:
        seat, price = self.turn, self.fold_price
        if self.round == DECK or (not self.hands[seat] and self.options.empty_hand == HIT):
            if not self.can_deal:
                # Dry with no discards to recycle (RULINGS): the only way on is to fold.
                return DecisionDue(seat, (Move.FOLD,), fold_price=price, choices=(("fold",),))
            return DecisionDue(seat, (Move.HIT, Move.FOLD), fold_price=price, choices=(("hit",), ("fold",)))
        if not self.hands[seat]:
            return DecisionDue(seat, (Move.FOLD,), fold_price=price, choices=(("fold",),))
        plays = _named(Move.PLAY, self.hands[seat].choices())
        choices = plays + (("fold",),) if plays else ()
        return DecisionDue(seat, (Move.PLAY, Move.FOLD), fold_price=price, choices=choices)

    @property
    def fold_price(self) -> int:
        """The lowest face-up card of the players still in."""
        return lowest_in_play(self.stacks, self.live) or 0

    def check_legal(self, due: DecisionDue, action: Action) -> None:
        super().check_legal(due, action)
        named = action.move in (Move.CHOOSE, Move.PLAY)
        if len(action.ranks or ()) != (1 if named else 0) or action.count or action.card:
            what = "one card from the hand" if named else "nothing more"
            raise IllegalAction(f"Seat {due.seat}'s {action.move} names {what}.")
        if named:
            self.hands[due.seat].check_reveal(action.ranks, self.shoe, f"Seat {due.seat}'s hand")

    # -- cards ------------------------------------------------------------------

    def _deal(self, rank: int | None) -> None:
        if self.to_deal:
            self.hands[self.to_deal.pop(0)].add(rank)
        elif self.low.winner is None:
            self.low.feed(rank)
            self._start_if_decided(IN_FLIGHT)
        else:
            self.hit_due = False
            self._receive(self.turn, rank)

    def _receive(self, seat: int, rank: int) -> None:
        """A face-up card for `seat`: a pair costs its rank and puts the seat out."""
        if rank in self.stacks[seat]:
            self.purse.pay(seat, rank, f"pair of {rank}s")
            self._drop(seat, f"pair of {rank}s")
        else:
            self.stacks[seat].append(rank)
            self._pass_turn()

    # -- decisions ----------------------------------------------------------------

    def _act(self, action: Action) -> None:
        seat = self.next.seat
        if action.move is Move.CHOOSE:
            self.hands[seat].reveal(action.ranks[0], self.shoe)
            self.chosen[seat] = action.ranks[0]
            if len(self.chosen) == len(self.seats):
                self._reveal_first_cards()
        elif action.move is Move.HIT:
            self.hit_due = True
        elif action.move is Move.PLAY:
            self.hands[seat].reveal(action.ranks[0], self.shoe)
            self._receive(seat, action.ranks[0])
        else:
            self.purse.pay(seat, self.fold_price, "fold")
            self._drop(seat, "folded")

    def _reveal_first_cards(self) -> None:
        # Chosen in secret, turned over together: only now do they enter the stacks.
        for seat in self.seats:
            self.low.feed(self.chosen[seat])
        self._start_if_decided()

    def _start_if_decided(self, in_flight: int = 0) -> None:
        self.low.settle_if_stuck(self.cards_to_come(in_flight))
        if self.low.winner is not None:
            self.button = self.turn = self.low.winner

    def _drop(self, seat: int, why: str) -> None:
        self.out[seat] = why
        self._pass_turn()
        self.live.remove(seat)
        if len(self.live) == 1:
            self._finished = Finished(self.purse.settle(self.live, self._result()))

    def _pass_turn(self) -> None:
        """The next live seat clockwise; passing the button starts a round of the other kind."""
        order = clockwise_from(self.seats, self.button, self.live)
        after = order[order.index(self.turn) + 1 :]
        after = [seat for seat in after if seat not in self.out]
        if after:
            self.turn = after[0]
            return
        self.round = HAND if self.round == DECK else DECK
        self.turn = next((seat for seat in order if seat not in self.out), None)

    def _result(self) -> dict:
        return {
            "button": self.button,
            "first_cards": dict(self.chosen),
            "stacks": {seat: tuple(cards) for seat, cards in self.stacks.items()},
            "out": dict(self.out),
        }


def _named(move: Move, ranks) -> tuple[tuple, ...]:
    return tuple((move.value, rank) for rank in ranks)
