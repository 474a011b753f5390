"""Regent: draw, attack, gift, fold or see; two players, or three to six knocked out one by one.

Booklet, "Secret Hands" (Regent and "Regent for 3-6 Players"); RULINGS.md
"Secret-hand games". Each player is dealt two cards face down, then one face up;
the low upcard goes first (ties broken with face-up cards, a pairing one
replaced). On a turn a player may:

- draw: a card from the deck into the hand, face down;
- attack a target: a card from the deck onto the target's stack, face up; if it
  pairs, the attacker pays the target the pair's rank and loses;
- gift a target: a card from the hand onto the target's stack, face up; it may
  not pair the target's upcards;
- fold: pay the lowest face-up card on the table (to the opponent with two
  players, into the centre with more) and lose;
- see a target with face-down cards: they are revealed; a pair among the
  target's up and down cards (the highest, three of a kind once) is paid by the
  target, who loses; with no pair the seer pays the target's highest card and
  loses.

With two players (`len(seats) == 2`) one game is one round: the first loss ends
it. With three to six the loser is knocked out and play goes on until one
player is left, who also takes the centre. Payments between players go straight
from payer to payee; only the centre is a pot, and the house's collection
applies to it (a rake) or to every player (a fee). See docs/rules/regent.md.

The deck: "Shuffle the deck and burn five cards, as in Pairs. You can deal to the
bottom of the deck, to minimize shuffling, and then recycle the discards, exactly
as in Pairs" is the booklet's setting up, done once, not at each round. So a
game (a round, with two players) deals on from the shoe the previous one left,
and the setup says what that shoe held (`HandSetup.remaining`); a deck that runs
dry is refilled with its discards (RULINGS, single-deck recycling): the earlier
games' cards and the burns, never a card of this game. A table may still shuffle
a fresh deck for every game (option `new_deck_each_game`, off), the booklet's
"you can" leaving both playable (RULINGS, "Everything else").
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
    lowest_in_play,
)

MIN_PLAYERS, MAX_PLAYERS = 2, 6
DOWN_CARDS = 2  # dealt face down before the one upcard
AIMED = (Move.ATTACK, Move.GIFT, Move.SEE)


@dataclass(frozen=True)
class RegentOptions(SecretOptions):
    """Regent house rules: `ante` (0: the booklet has none; any ante goes to the centre), `deal`
    (rotation), `new_deck_each_game` (off: games deal on from one deck to its bottom, as the
    booklet offers; on, the table asks for a fresh shoe every game: tables.services.shoes; the
    rules do not see it) and the collection. Two players or three to six follow from the seats
    playing."""

    ante: int = 0
    new_deck_each_game: bool = False

    def validate(self) -> None:
        super().validate()
        if not isinstance(self.new_deck_each_game, bool):
            raise IllegalAction("The house rule new_deck_each_game is on (True) or off (False).")


class Regent(SecretHandGame):
    """Regent for 2 (one round) or 3 to 6 players (until one is left); `stakes` are chips."""

    name = "regent"
    players = (MIN_PLAYERS, MAX_PLAYERS)
    Options = RegentOptions

    def __init__(self, seats, stakes, options=None, carry: int = 0, shoe: Shoe | None = None, **state):
        super().__init__(seats, stakes, options=options, carry=carry, shoe=shoe, **state)
        self.to_deal = [seat for _ in range(DOWN_CARDS) for seat in self.seats]
        self.turn: int | None = None
        self.card_due: tuple[str, int] | None = None  # ("draw", seat) or ("attack", target)
        self._finished: Finished | None = None

    @property
    def two_players(self) -> bool:
        return len(self.seats) == 2

    # -- what the game waits for ---------------------------------------------

    @property
    def next(self) -> CardDue | DecisionDue | Finished:
        if self.to_deal:
            return CardDue(SEAT, "deal", self.to_deal[0], face_down=True)
        if self.low.winner is None:
            return CardDue(SEAT, "tiebreak" if self.low.is_tiebreak else "upcard", self.low.seat)
        if self._finished is not None:
            return self._finished
        if self.card_due is not None:
            why, seat = self.card_due
            return CardDue(SEAT, why, seat, face_down=why == "draw")
        return self._decision()

    def _decision(self) -> DecisionDue:
        seat = self.turn
        others = self.targets(seat)
        moves = [Move.DRAW, Move.ATTACK] if self.can_deal else []
        if self.hands[seat]:
            moves.append(Move.GIFT)
        moves.append(Move.FOLD)
        if any(self.hands[t] for t in others):
            moves.append(Move.SEE)
        return DecisionDue(
            seat,
            tuple(moves),
            fold_price=self.fold_price,
            choices=self._choices(seat, moves),
            targets=tuple(others),
        )

    def _choices(self, seat: int, moves) -> tuple[tuple, ...]:
        others = self.targets(seat)
        if self.hands[seat].unknown or any(self.hands[t].unknown for t in others):
            return ()
        choices: list[tuple] = [("draw",)] * (Move.DRAW in moves) + [("fold",)]
        if Move.ATTACK in moves:
            choices += [("attack", t) for t in others]
        for t in others:
            choices += [("gift", t, r) for r in self.hands[seat].choices() if r not in self.stacks[t]]
            if self.hands[t]:
                choices.append(("see", t, *sorted(self.hands[t].known)))
        return tuple(choices)

    def targets(self, seat: int) -> list[int]:
        return [t for t in self.live if t != seat]

    @property
    def fold_price(self) -> int:
        """The lowest face-up card on the table, among the players still in."""
        return lowest_in_play(self.stacks, self.live) or 0

    def check_legal(self, due: DecisionDue, action: Action) -> None:
        super().check_legal(due, action)
        seat, ranks = due.seat, action.ranks or ()
        if action.move not in AIMED:
            if ranks or action.count or action.card:
                raise IllegalAction(f"Seat {seat}'s {action.move} names nothing more.")
            return
        target = action.target
        if target not in self.targets(seat):
            raise IllegalAction(f"Seat {seat} cannot {action.move} seat {target!r}: not a player still in.")
        if action.move is Move.ATTACK and ranks:
            raise IllegalAction("An attack names only its target: the card comes from the deck.")
        if action.move is Move.GIFT:
            self._check_gift(seat, target, ranks)
        if action.move is Move.SEE:
            self._check_see(target, ranks)

    def _check_gift(self, seat: int, target: int, ranks) -> None:
        if len(ranks) != 1:
            raise IllegalAction(f"Seat {seat}'s gift names the one card given.")
        if ranks[0] in self.stacks[target]:
            raise IllegalAction(f"Seat {seat} cannot give seat {target} a pair of {ranks[0]}s.")
        self.hands[seat].check_reveal(ranks, self.shoe, f"Seat {seat}'s hand")

    def _check_see(self, target: int, ranks) -> None:
        hand = self.hands[target]
        if not hand:
            raise IllegalAction(f"Seat {target} has no face-down cards to see.")
        if len(ranks) != len(hand):
            raise IllegalAction(f"Seeing seat {target} reveals all {len(hand)} of its face-down cards.")
        hand.check_reveal(ranks, self.shoe, f"Seat {target}'s hand")

    # -- cards ------------------------------------------------------------------

    def _deal(self, rank: int | None) -> None:
        if self.to_deal:
            self.hands[self.to_deal.pop(0)].add(rank)
        elif self.low.winner is None:
            self.low.feed(rank)
            self.low.settle_if_stuck(self.cards_to_come(IN_FLIGHT))
            self.turn = self.low.winner
        else:
            why, seat = self.card_due
            self.card_due = None
            if why == "draw":
                self.hands[seat].add(rank)
                self._pass_left(seat)
            else:
                self._attacked(seat, rank)

    def _attacked(self, target: int, rank: int) -> None:
        attacker = self.turn
        if rank in self.stacks[target]:
            # The paired card is discarded; the attacker pays and loses.
            self.purse.transfer(attacker, target, rank, f"attack gave a pair of {rank}s")
            self._lose(attacker, f"attack gave seat {target} a pair of {rank}s", then=target)
        else:
            self.stacks[target].append(rank)
            self._move_to(target)

    # -- decisions ----------------------------------------------------------------

    def _act(self, action: Action) -> None:
        seat, move = self.turn, action.move
        if move is Move.DRAW:
            self.card_due = ("draw", seat)
        elif move is Move.ATTACK:
            self.card_due = ("attack", action.target)
        elif move is Move.GIFT:
            self.hands[seat].reveal(action.ranks[0], self.shoe)
            self.stacks[action.target].append(action.ranks[0])
            self._move_to(action.target)
        elif move is Move.FOLD:
            self._fold(seat)
        else:
            self._see(seat, action.target, action.ranks)

    def _fold(self, seat: int) -> None:
        price = self.fold_price
        if self.two_players:
            self.purse.transfer(seat, self.targets(seat)[0], price, "fold")
        else:
            self.purse.pay(seat, price, "fold into the centre")
        self._lose(seat, "folded", then=seat)

    def _see(self, seat: int, target: int, ranks) -> None:
        self.hands[target].reveal_all(ranks, self.shoe)
        cards = self.stacks[target] + list(ranks)
        pairs = [rank for rank in set(cards) if cards.count(rank) > 1]
        if pairs:
            best = max(pairs)  # the highest pair pays; three of a kind pays its rank once
            self.purse.transfer(target, seat, best, f"seen with a pair of {best}s")
            self._lose(target, f"seen by seat {seat} with a pair of {best}s", then=target)
        else:
            self.stacks[target] = cards  # the seen hand stays face up
            high = max(cards)
            self.purse.transfer(seat, target, high, f"saw no pair: paid the highest card, {high}")
            self._lose(seat, f"saw seat {target} without a pair", then=target)

    # -- turns and the end ---------------------------------------------------------

    def _lose(self, seat: int, why: str, then: int) -> None:
        """`seat` loses: with two players the game ends; with more it is out and the turn goes to
        `then`, or the next live seat clockwise from it."""
        self.out[seat] = why
        order = clockwise_from(self.seats, then, self.live)
        self.live.remove(seat)
        if self.two_players or len(self.live) == 1:
            winners = self.targets(seat) if self.two_players else self.live
            self._finished = Finished(self.purse.settle(winners, self._result()))
            return
        self.turn = next(s for s in order if s in self.live)

    def _move_to(self, target: int) -> None:
        self.turn = target

    def _pass_left(self, seat: int) -> None:
        order = clockwise_from(self.seats, seat, self.live)
        self.turn = order[1]

    def _result(self) -> dict:
        return {
            "stacks": {seat: tuple(cards) for seat, cards in self.stacks.items()},
            "out": dict(self.out),
        }
