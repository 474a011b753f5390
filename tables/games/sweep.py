"""Sweep (booklet, "Bidding Games"): played cards capture cards from the centre; the most cards of a
rank score it.

A `Sweep` object plays ONE game: every player is dealt five cards face down, then rounds are played
until the deck is exhausted. Each round five cards are dealt face up to the centre, and each player in
turn plays a card face up (`play`, naming it). Then the played cards capture, in ascending order: the
lowest takes every centre card of the highest rank; each later one takes every centre card lower than
itself; a card falls into the centre once it has captured, where a higher card can take it. Tied
played cards take single cards in turn from the targets fixed when the group fires, starting with the
one played first, the player choosing the rank (`pick`); the group then falls into the centre
(RULINGS.md "Points and bidding games"). Captured cards go into the capturer's hand. The centre left
over is discarded. The next round starts with the player who made the last capture (the same starter
if nobody captured); a player with no card sits the round's play out.

When the deck is exhausted, every player shows their hand (`show`, naming every card): for each rank,
the player holding the most cards of it scores the rank; tied players all score it. `stakes` are the
game scores going in; state `first` is the first round's starter (drawn at random at the table). The
long game (option `target`, 150 in the text) plays games until a single top score reaches it. No
money moves. See docs/rules/sweep.md.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass

from .base import CENTRE, SEAT, Action, CardDue, DecisionDue, Finished, Game, Move, Settlement
from .cards import Hand, Shoe
from .errors import IllegalAction
from .kitty import kitty_points
from .rounds import PointsOptions, ShowHands, check_scores, round_settlement
from .secret_hands import deal_order, hands_for

MIN_PLAYERS, MAX_PLAYERS = 3, 6
HAND, CENTRE_CARDS = 5, 5


@dataclass(frozen=True)
class SweepOptions(PointsOptions):
    """Sweep house rules: `target` (None: one game; else the long game's score, 150 in the text)."""

    target: int | None = None

    def validate(self) -> None:
        super().validate()
        if self.target is not None and (
            isinstance(self.target, bool) or not isinstance(self.target, int) or self.target < 1
        ):
            raise IllegalAction(f"The target is a whole number of points, not {self.target!r}.")


class Sweep(ShowHands, Game):
    """One game of Sweep for 3 to 6 players; `stakes` are the game scores going in."""

    name = "sweep"
    Options = SweepOptions

    def __init__(
        self, seats, stakes, options=None, carry: int = 0, shoe: Shoe | None = None, first=None, **state
    ):
        super().__init__(seats, stakes, options=options, carry=carry, shoe=shoe)
        if state:
            raise IllegalAction(f"Sweep takes no game state such as {', '.join(sorted(state))}.")
        if not MIN_PLAYERS <= len(self.seats) <= MAX_PLAYERS:
            players = len(self.seats)
            raise IllegalAction(f"Sweep needs {MIN_PLAYERS} to {MAX_PLAYERS} players, not {players}.")
        check_scores(self.seats, self.stakes)
        first = self.seats[0] if first is None else first
        if first not in self.seats:
            raise IllegalAction(f"The first player is one of seats {self.seats}, not {first!r}.")
        self.starter = self.last_capture = first
        self.hands: dict[int, Hand] = hands_for(self.seats)
        self.to_deal = deal_order(self.seats, HAND, "rotation")
        self.centre: list[int] = []
        self.played: list[tuple[int, int]] = []  # (seat, rank) in play order
        self.players: list[int] = []  # this round's players in turn, from the starter
        self.picks: list[int] = []  # a tied group's players still to pick, in turn
        self.targets: list[int] = []  # a tied group's targets left
        self.groups: list[int] = []  # the played ranks still to fire, ascending
        self.rounds: list[dict] = []
        self.shown: dict[int, tuple[int, ...]] = {}
        self._settlement: Settlement | None = None

    # -- what the game waits for ---------------------------------------------------

    @property
    def next(self) -> CardDue | DecisionDue | Finished:
        if self._settlement is not None:
            return Finished(self._settlement)
        if self.to_deal:
            return CardDue(SEAT, "deal", self.to_deal[0], face_down=True)
        if self.picks:
            choices = tuple(("pick", rank) for rank in sorted(set(self.targets)))
            return DecisionDue(self.picks[0], (Move.PICK,), choices=choices)
        if len(self.played) < len(self.players):
            seat = self.players[len(self.played)]
            choices = tuple(("play", rank) for rank in self.hands[seat].choices())
            return DecisionDue(seat, (Move.PLAY,), choices=choices)
        if len(self.centre) < CENTRE_CARDS and len(self.shoe) and not self.players:
            return CardDue(CENTRE, "centre")
        return self._show_due()

    def check_legal(self, due: DecisionDue, action: Action) -> None:
        super().check_legal(due, action)
        ranks = action.ranks or ()
        if action.count is not None or action.card is not None or action.target is not None:
            raise IllegalAction(f"Sweep has no decision {action.as_record()!r}.")
        hand = self.hands[due.seat]
        if action.move is Move.PICK:
            if len(ranks) != 1 or ranks[0] not in self.targets:
                raise IllegalAction(f"Seat {due.seat} takes one card of {sorted(self.targets)}.")
        elif action.move is Move.PLAY:
            if len(ranks) != 1 or ranks[0] is None:
                raise IllegalAction(f"Seat {due.seat} plays one card, face up: name it.")
            hand.check_reveal(ranks, self.shoe, f"Seat {due.seat}'s hand")
        else:
            self._check_show(due.seat, ranks)

    # -- cards and decisions ---------------------------------------------------

    def _deal(self, rank: int | None) -> None:
        if self.to_deal:
            self.hands[self.to_deal.pop(0)].add(rank)
            return
        self.centre.append(rank)
        if len(self.centre) == CENTRE_CARDS:
            self._start_round()

    def _start_round(self) -> None:
        i = self.seats.index(self.starter)
        turn = self.seats[i:] + self.seats[:i]
        self.players = [seat for seat in turn if self.hands[seat]]  # an empty hand sits it out
        self.rounds.append({"starter": self.starter, "centre": list(self.centre), "captures": []})
        if not self.players:
            self._end_round()

    def _act(self, action: Action) -> None:
        if action.move is Move.PLAY:
            seat = self.players[len(self.played)]
            self.hands[seat].reveal(action.ranks[0], self.shoe)
            self.played.append((seat, action.ranks[0]))
            if len(self.played) == len(self.players):
                self.groups = sorted({rank for _, rank in self.played})
                self._fire()
        elif action.move is Move.PICK:
            self._take(self.picks.pop(0), [action.ranks[0]])
            self._pick_on()
            self._fire()
        else:
            self._show(action.ranks)

    def _fire(self) -> None:
        """Fire the played ranks in ascending order until a tied group waits for its picks."""
        while self.groups and not self.picks:
            rank = self.groups[0]
            lowest = rank == min(r for _, r in self.played)
            group = [seat for seat, played in self.played if played == rank]
            if lowest:
                top = max(self.centre, default=None)
                targets = [card for card in self.centre if card == top]
            else:
                targets = [card for card in self.centre if card < rank]
            if len(group) == 1:
                self._take(group[0], targets)
                self._fall(rank)
                continue
            self.targets, self.picks = targets, [*group] * len(targets)
            self._pick_on()
        if not self.groups:
            self._end_round()

    def _pick_on(self) -> None:
        """A tied group takes single cards in turn; a pick with one rank left is made for the player.
        When the targets are gone, the group falls into the centre; the caller fires on (firing
        from here too ended the round twice, the second time with the centre already cleared)."""
        while self.picks and len(set(self.targets)) == 1:
            self._take(self.picks.pop(0), [self.targets[0]])
        if not self.targets:
            self.picks = []
            self._fall(self.groups[0])

    def _take(self, seat: int, cards: list[int]) -> None:
        for card in cards:
            self.centre.remove(card)
            if card in self.targets:
                self.targets.remove(card)
            self.hands[seat].add(card)
        if cards:
            self.last_capture = seat
            self.rounds[-1]["captures"].append((seat, sorted(cards)))

    def _fall(self, rank: int) -> None:
        self.groups.pop(0)
        self.centre += [played for _, played in self.played if played == rank]

    def _end_round(self) -> None:
        self.rounds[-1]["discarded"] = sorted(self.centre)  # what the dealer clears from the centre
        self.starter = self.last_capture  # the same starter if nobody captured
        self.centre, self.played, self.players = [], [], []

    def _score(self) -> None:
        points = kitty_points({seat: list(self.shown[seat]) for seat in self.seats})
        scores = {seat: self.stakes[seat] + points[seat] for seat in self.seats}
        top = max(scores.values())
        leaders = [seat for seat, score in scores.items() if score == top]
        target = self.options.target
        over = target is None or (top >= target and len(leaders) == 1)
        result = {
            "hands": dict(self.shown),
            "counts": {seat: dict(Counter(self.shown[seat])) for seat in self.seats},
            "rounds": self.rounds,
            "points": points,
            "scores": scores,
            "target": target,
            "game_over": over,
            "winners": leaders if over else [],
        }
        self._settlement = round_settlement(self, result, first=not any(self.stakes.values()))
