"""Pickup (the Pickup rules card, seeds 002): play a card to pick up a lower one from the pool.

A `Pickup` object plays ONE deal: hands dealt face down (7 cards each with 2 players, 6 with 3 or 4,
5 with 5 or 6), then rounds until the hands are played out. Each round a pool of five cards is dealt
face up; every player chooses a card in secret, and the cards are revealed together (recorded as each
player's `choose`, in seat order). They act from the lowest to the highest; tied cards act in turn
from the player closest to the left of the player who acted last (at the start of a round, the last
to act in the round before; in the first round, the dealer, so the player on the dealer's left goes
first). A player whose card acts picks up one pool card of its rank or lower (`pick`, naming the
rank), which knocks out every card of that rank still in the pool and in the other players' score
piles; or, only when no pool card is that low, stacks the played card in their own score pile
(`stack`, no knockout); or declines (`decline`: the played card is discarded). RULINGS.md "Points and
bidding games": the dealer is a player, and stacking and declining count as acting for the tie rule.

Each card in a score pile scores its rank. `stakes` are the game scores going in. The short game is
one deal (option `target` None); the long game plays deals until a single top score reaches the
target (150 with 2 players, 100 with 3 or 4; the card's figure for 5 and 6 is illegible, so those
play the short game). The deal's Settlement moves no money. See docs/rules/pickup.md.
"""

from __future__ import annotations

from dataclasses import dataclass

from .base import CENTRE, SEAT, Action, CardDue, DecisionDue, Finished, Game, Move, Settlement
from .cards import Hand, Shoe
from .errors import IllegalAction
from .rounds import PointsOptions, check_scores, round_settlement
from .secret_hands import deal_order, hands_for

MIN_PLAYERS, MAX_PLAYERS = 2, 6
POOL = 5
HAND_SIZES = {2: 7, 3: 6, 4: 6, 5: 5, 6: 5}
LONG_TARGETS = {2: 150, 3: 100, 4: 100}  # "Score: 150 100 ..." (5 and 6: illegible on the card)
SHORT, LONG = "short", "long"


@dataclass(frozen=True)
class PickupOptions(PointsOptions):
    """Pickup house rules: `game` (`short`: one deal; `long`: deals until a single top score
    reaches the card's target, which 5 and 6 players do not have)."""

    game: str = SHORT

    def validate(self) -> None:
        super().validate()
        if self.game not in (SHORT, LONG):
            raise IllegalAction(f"game is {SHORT} or {LONG}, not {self.game!r}.")


class Pickup(Game):
    """One deal of Pickup for 2 to 6 players; `stakes` are the game scores going in."""

    name = "pickup"
    Options = PickupOptions

    def __init__(self, seats, stakes, options=None, carry: int = 0, shoe: Shoe | None = None, **state):
        super().__init__(seats, stakes, options=options, carry=carry, shoe=shoe)
        if state:
            raise IllegalAction(f"Pickup takes no game state such as {', '.join(sorted(state))}.")
        if not MIN_PLAYERS <= len(self.seats) <= MAX_PLAYERS:
            players = len(self.seats)
            raise IllegalAction(f"Pickup needs {MIN_PLAYERS} to {MAX_PLAYERS} players, not {players}.")
        if self.options.game == LONG and len(self.seats) not in LONG_TARGETS:
            raise IllegalAction("The long game has no target for 5 or 6 players: play the short game.")
        check_scores(self.seats, self.stakes)
        self.target = LONG_TARGETS[len(self.seats)] if self.options.game == LONG else None
        self.hands: dict[int, Hand] = hands_for(self.seats)
        self.to_deal = deal_order(self.seats, HAND_SIZES[len(self.seats)], "rotation")
        self.piles: dict[int, list[int]] = {seat: [] for seat in self.seats}
        self.pool: list[int] = []
        self.played: dict[int, int] = {}  # this round's cards, as chosen
        self.acted: set[int] = set()  # the seats whose played card has acted this round
        self.last = self.seats[-1]  # the dealer: the player on their left goes first
        self._settlement: Settlement | None = None

    # -- what the deal waits for -------------------------------------------

    @property
    def next(self) -> CardDue | DecisionDue | Finished:
        if self._settlement is not None:
            return Finished(self._settlement)
        if self.to_deal:
            return CardDue(SEAT, "deal", self.to_deal[0], face_down=True)
        if len(self.pool) < POOL and not self.played:
            return CardDue(CENTRE, "pool")
        if len(self.played) < len(self.seats):
            seat = self.seats[len(self.played)]
            choices = tuple(("choose", rank) for rank in self.hands[seat].choices())
            return DecisionDue(seat, (Move.CHOOSE,), choices=choices)
        return self._acting()

    def _acting(self) -> DecisionDue:
        seat = self._next_actor()
        played = self.played[seat]
        low = sorted({rank for rank in self.pool if rank <= played})
        if low:
            choices = (*(("pick", rank) for rank in low), ("decline",))
            return DecisionDue(seat, (Move.PICK, Move.DECLINE), choices=choices)
        return DecisionDue(seat, (Move.STACK, Move.DECLINE), choices=(("stack",), ("decline",)))

    def check_legal(self, due: DecisionDue, action: Action) -> None:
        super().check_legal(due, action)
        ranks = action.ranks or ()
        if action.count is not None or action.card is not None or action.target is not None:
            raise IllegalAction(f"Pickup has no decision {action.as_record()!r}.")
        if action.move is Move.CHOOSE:
            if len(ranks) != 1:
                raise IllegalAction(f"Seat {due.seat} plays one card from the hand.")
            self.hands[due.seat].check_reveal(ranks, self.shoe, f"Seat {due.seat}'s hand")
        elif action.move is Move.PICK:
            played = self.played[due.seat]
            if len(ranks) != 1 or ranks[0] not in self.pool or ranks[0] > played:
                raise IllegalAction(
                    f"Seat {due.seat}'s {played} picks up one pool card of rank {played} or lower; "
                    f"the pool holds {sorted(self.pool)}."
                )
        elif ranks:
            raise IllegalAction(f"A {action.move} names no card.")

    # -- cards and decisions ---------------------------------------------------

    def _deal(self, rank: int | None) -> None:
        if self.to_deal:
            self.hands[self.to_deal.pop(0)].add(rank)
        else:
            self.pool.append(rank)

    def _act(self, action: Action) -> None:
        if action.move is Move.CHOOSE:
            seat = self.seats[len(self.played)]
            self.hands[seat].reveal(action.ranks[0], self.shoe)
            self.played[seat] = action.ranks[0]
            return
        seat = self._next_actor()
        if action.move is Move.PICK:
            self._pick(seat, action.ranks[0])
        elif action.move is Move.STACK:
            self.piles[seat].append(self.played[seat])
        self.acted.add(seat)
        self.last = seat  # a decline acts too (RULINGS)
        if len(self.acted) == len(self.seats):
            self._end_round()

    def _pick(self, seat: int, rank: int) -> None:
        self.pool.remove(rank)
        self.piles[seat].append(rank)
        # The knockout: every other card of that rank in the pool and in the other score piles.
        self.pool = [card for card in self.pool if card != rank]
        for other in self.seats:
            if other != seat:
                self.piles[other] = [card for card in self.piles[other] if card != rank]

    def _next_actor(self) -> int:
        """The lowest played card still to act; a tie goes to the player closest to the left of the
        last to act."""
        start = self.seats.index(self.last)

        def order(seat: int) -> tuple[int, int]:
            return self.played[seat], (self.seats.index(seat) - start - 1) % len(self.seats)

        return min((seat for seat in self.played if seat not in self.acted), key=order)

    def _end_round(self) -> None:
        self.pool, self.played, self.acted = [], {}, set()
        if not any(self.hands.values()):
            self._score()

    def _score(self) -> None:
        points = {seat: sum(self.piles[seat]) for seat in self.seats}
        scores = {seat: self.stakes[seat] + points[seat] for seat in self.seats}
        result = {
            "piles": {seat: sorted(pile) for seat, pile in self.piles.items()},
            "points": points,
            "scores": scores,
            "target": self.target,
            **deal_result(scores, self.target),
        }
        self._settlement = round_settlement(self, result, first=not any(self.stakes.values()))


def deal_result(scores: dict[int, int], target: int | None) -> dict:
    """The short game ends after the deal (the highest score wins; tied players share the win); the
    long game when a single top score reaches the target (a tie there deals again)."""
    top = max(scores.values())
    leaders = [seat for seat, score in scores.items() if score == top]
    if target is None:
        return {"game_over": True, "winners": leaders}
    over = top >= target and len(leaders) == 1
    return {"game_over": over, "winners": leaders if over else []}
