"""Goblin Poker: pitch a card from your hand or fold; the pitched cards are shuffled and dealt back.

Booklet, "Secret Hands"; RULINGS.md "Secret-hand games". Every player antes into
the pot and is dealt six cards face down. Each chooses a first card in secret;
they are revealed together and start the face-up stacks (a tie for low is broken
with cards from the deck, as in Pairs). Each round, starting with the lowest
stack and going clockwise, every player still in pitches a card face down or
folds (paying the lowest face-up card in play). The pitched cards are shuffled
and dealt face up, one to each player still in, from the lowest stack (judged
after the folds) clockwise; a card that pairs costs its rank and the player is
out, and the deal stops when one player is left. The last player left takes the
pot; players still in when the hands run out (five rounds) split it.
See docs/rules/goblin_poker.md.

The lowest stack: the one with the single lowest card, ties broken by the second
lowest and so on; an extra card is lower than none (2-3-6 is lower than 2-3). A
perfect tie for the lowest is broken with cards from the deck, which join the
stacks (a pairing one is discarded and replaced).

Each game is dealt from a freshly shuffled deck: the booklet's "Setup" (ante,
shuffle, deal) starts every game, with none of Regent's dealing to the bottom
across games (the table asks for a new shoe once a game is dealt: services.shoes).
"""

from __future__ import annotations

from dataclasses import dataclass

from .base import SEAT, Action, CardDue, DecisionDue, Finished, Move
from .cards import RANKS, Hand, Shoe
from .errors import IllegalAction
from .secret_hands import (
    CHOSEN_IN_SECRET,
    IN_FLIGHT,
    SecretHandGame,
    SecretOptions,
    clockwise_from,
    deal_order,
    lowest_in_play,
)

MIN_PLAYERS, MAX_PLAYERS = 3, 8
HAND_SIZE = 6
NO_CARD = max(RANKS) + 1  # sorts above every rank: an extra card is lower than no card at all
CONTINUE, SPLIT = "continue", "split"
TWO_SURVIVORS = (CONTINUE, SPLIT)


@dataclass(frozen=True)
class GoblinPokerOptions(SecretOptions):
    """Goblin Poker house rules: `ante` (1), `deal` (rotation), the collection, and
    `two_survivors` (`continue`: rounds go on while more than one player is alive; `split`: two
    players alive after a round split the pot, as the text reads literally)."""

    two_survivors: str = CONTINUE

    def validate(self) -> None:
        super().validate()
        if self.two_survivors not in TWO_SURVIVORS:
            raise IllegalAction(
                f"two_survivors is one of {', '.join(TWO_SURVIVORS)}, not {self.two_survivors!r}."
            )


def stack_key(stack) -> tuple[int, ...]:
    """Orders stacks from lowest: by the lowest card, then the next; more cards are lower."""
    return (*sorted(stack), NO_CARD)


class GoblinPoker(SecretHandGame):
    """Goblin Poker for 3 to 8 players; `stakes` are the chips in front of each seat."""

    name = "goblin_poker"
    players = (MIN_PLAYERS, MAX_PLAYERS)
    Options = GoblinPokerOptions

    def __init__(self, seats, stakes, options=None, carry: int = 0, shoe: Shoe | None = None, **state):
        super().__init__(seats, stakes, options=options, carry=carry, shoe=shoe, **state)
        self.to_deal = deal_order(self.seats, HAND_SIZE, self.options.deal)
        self.chosen: dict[int, int] = {}
        self.rounds = 0
        self.to_act: list[int] = []  # this round's players yet to pitch or fold, in turn
        self.pile = Hand()  # the pitched cards, face down
        self.to_receive: list[int] = []  # the pitched cards' receivers, in turn
        self.tied: list[int] = []  # a perfect tie for lowest stack being broken
        self.tie_fed: list[int] = []
        self.tie_then = ""  # what the broken tie decides: "round" or "pile"
        self._finished: Finished | None = None

    # -- what the game waits for ---------------------------------------------

    @property
    def next(self) -> CardDue | DecisionDue | Finished:
        if self.to_deal:
            return CardDue(SEAT, "deal", self.to_deal[0], face_down=True)
        if len(self.chosen) < len(self.seats):
            seat = self.seats[len(self.chosen)]
            choices = tuple(("choose", rank) for rank in self.hands[seat].choices())
            return DecisionDue(seat, (Move.CHOOSE,), choices=choices)
        if self.low.winner is None:
            return CardDue(SEAT, "tiebreak", self.low.seat)
        if self._finished is not None:
            return self._finished
        if self.tied:
            return CardDue(SEAT, "tiebreak", self.tied[len(self.tie_fed)])
        if self.to_receive:
            ranks = () if self.pile.unknown else tuple(sorted(self.pile.known))
            return CardDue(SEAT, "pitched", self.to_receive[0], pile=True, ranks=ranks)
        return self._decision()

    def _decision(self) -> DecisionDue:
        seat = self.to_act[0]
        hand = self.hands[seat]
        pitches = tuple(("pitch", rank) for rank in hand.choices())
        choices = (*pitches, ("fold",)) if pitches else ()
        return DecisionDue(seat, (Move.PITCH, Move.FOLD), fold_price=self.fold_price, choices=choices)

    @property
    def fold_price(self) -> int:
        return lowest_in_play(self.stacks, self.live) or 0

    def check_legal(self, due: DecisionDue, action: Action) -> None:
        super().check_legal(due, action)
        seat, ranks = due.seat, action.ranks or ()
        if action.move is Move.FOLD:
            if ranks:
                raise IllegalAction(f"Seat {seat}'s fold names nothing more.")
            return
        hand = self.hands[seat]
        if action.move is Move.PITCH and not ranks and hand.unknown:
            return  # a physical table: the card goes face down, unseen
        if action.move is Move.PITCH and not ranks:
            raise IllegalAction(f"Seat {seat}'s pitch names its card: {CHOSEN_IN_SECRET}")
        if len(ranks) != 1:
            raise IllegalAction(f"Seat {seat}'s {action.move} names one card from the hand.")
        hand.check_reveal(ranks, self.shoe, f"Seat {seat}'s hand")

    def _check_pile(self, rank: int) -> None:
        self.pile.check_reveal([rank], self.shoe, "The pitched pile")

    # -- cards ------------------------------------------------------------------

    def _deal(self, rank: int | None) -> None:
        if self.to_deal:
            self.hands[self.to_deal.pop(0)].add(rank)
        elif self.low.winner is None:
            self.low.feed(rank)
            self.low.settle_if_stuck(self.cards_to_come(IN_FLIGHT))
            if self.low.winner is not None:
                self._start_round(self.low.winner)
        elif self.tied:
            self._tiebreak(rank)
        else:
            self._receive(rank)

    def _tiebreak(self, rank: int) -> None:
        seat = self.tied[len(self.tie_fed)]
        if rank in self.stacks[seat]:
            if not self.cards_to_come(IN_FLIGHT):
                # The last card paired: nothing is left to break the tie with.
                tied, self.tied, self.tie_fed = self.tied, [], []
                self._after_lowest(tied, in_flight=IN_FLIGHT)
            return  # a pairing tie-breaker is discarded and replaced
        self.stacks[seat].append(rank)
        self.tie_fed.append(seat)
        if len(self.tie_fed) == len(self.tied) or not self.cards_to_come(IN_FLIGHT):
            tied, self.tied, self.tie_fed = self.tied, [], []
            self._after_lowest(tied, in_flight=IN_FLIGHT)

    def _receive(self, rank: int) -> None:
        seat = self.to_receive.pop(0)
        self.pile.reveal(rank, self.shoe)
        if rank in self.stacks[seat]:
            self.purse.pay(seat, rank, f"pair of {rank}s")
            self.out[seat] = f"pair of {rank}s"
            self.live.remove(seat)
        else:
            self.stacks[seat].append(rank)
        if len(self.live) == 1:
            self._end()  # the deal stops: the last player alive wins
        elif not self.to_receive:
            self._round_over()

    # -- decisions ----------------------------------------------------------------

    def _act(self, action: Action) -> None:
        seat = self.next.seat
        if action.move is Move.CHOOSE:
            self.hands[seat].reveal(action.ranks[0], self.shoe)
            self.chosen[seat] = action.ranks[0]
            if len(self.chosen) == len(self.seats):
                self._reveal_first_cards()
            return
        self.to_act.pop(0)
        if action.move is Move.FOLD:
            self.purse.pay(seat, self.fold_price, "fold")
            self.out[seat] = "folded"
            self.live.remove(seat)
        else:
            self._pitch(seat, action.ranks)
        if len(self.live) == 1:
            self._end()
        elif not self.to_act:
            self._lowest_then("pile")

    def _pitch(self, seat: int, ranks) -> None:
        hand = self.hands[seat]
        if ranks:
            # The tablet knows the card chosen; the table still sees it only when it is dealt.
            hand.reveal(ranks[0], self.shoe)
            self.pile.known.append(ranks[0])
        else:
            hand.unknown -= 1
            self.pile.unknown += 1

    def _reveal_first_cards(self) -> None:
        # Chosen in secret, turned over together: only now do they enter the stacks.
        for seat in self.seats:
            self.low.feed(self.chosen[seat])
        self.low.settle_if_stuck(self.cards_to_come())
        if self.low.winner is not None:
            self._start_round(self.low.winner)

    # -- rounds -------------------------------------------------------------------

    def _lowest_then(self, then: str) -> None:
        """Judge the lowest stack of the players still in, breaking a perfect tie for it with cards
        from the deck, then start the round or the deal of the pitched cards from it."""
        self.tie_then = then
        self._after_lowest(self.live)

    def _after_lowest(self, among, in_flight: int = 0) -> None:
        low = min(stack_key(self.stacks[s]) for s in among)
        tied = [s for s in self.seats if s in among and stack_key(self.stacks[s]) == low]
        if len(tied) > 1 and self.cards_to_come(in_flight) > 0:
            self.tied = tied
            return
        # A tie no card can break: the tied seat first from the dealer's left (RULINGS).
        lowest = tied[0]
        if self.tie_then == "pile":
            self.to_receive = clockwise_from(self.seats, lowest, self.live)
        else:
            self._start_round(lowest)

    def _start_round(self, lowest: int) -> None:
        self.rounds += 1
        self.to_act = clockwise_from(self.seats, lowest, self.live)

    def _round_over(self) -> None:
        split = self.options.two_survivors == SPLIT and len(self.live) == 2
        if split or not all(self.hands[s] for s in self.live):
            self._end()
        else:
            self._lowest_then("round")

    def _end(self) -> None:
        self.to_act, self.to_receive = [], []
        result = {
            "first_cards": dict(self.chosen),
            "stacks": {seat: tuple(cards) for seat, cards in self.stacks.items()},
            "out": dict(self.out),
            "rounds": self.rounds,
        }
        self._finished = Finished(self.purse.settle(self.live, result))
