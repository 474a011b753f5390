"""Port (booklet, "The Basics"): Pairs with a lock, scored in game points; the first to 21 wins.

A `Port` object plays ONE round. Every player dealt in gets one card face up; the low card goes
first (ties broken with more cards, which stay in the stack and count; one that pairs is replaced:
RULINGS.md "Points and bidding games"). In turn, clockwise, each player still in hits or locks; a hit
that pairs busts the player. When everyone has locked or busted the round scores: with N players
dealt in (busted ones too), a stack scores N less the number of live stacks with a higher total; a
busted stack scores 0.

`stakes` are the game scores going in, for every player of the game; `seats` are those dealt into
this round (all of them, or the tied players of a playoff). The round's Settlement moves no money;
its result gives the totals, the points, the new scores, and whether the game is over: a single top
score at or above the target ends it; a tie for the top there is played off (option `playoff`: the
tied players alone, or everyone), as often as needed. See docs/rules/port.md.
"""

from __future__ import annotations

from dataclasses import dataclass

from .base import SEAT, Action, CardDue, DecisionDue, Finished, Game, Move, Settlement
from .cards import LowCard, Shoe
from .errors import IllegalAction
from .rounds import PointsOptions, round_settlement

MIN_PLAYERS, MAX_PLAYERS = 2, 7
TARGET = 21
TIED, ALL = "tied", "all"
EIGHT, EIGHT_CARDS = 8, 2  # Pieces of Eight: trade an 8 in the stack for two hits


@dataclass(frozen=True)
class PortOptions(PointsOptions):
    """Port house rules: `target` (21), `playoff` (`tied`: a tie for the top at or above the
    target is played off by the tied players alone; `all`: by everyone), `pieces_of_eight` (off),
    and `new_deck_each_round` (off: rounds deal on from one deck, reshuffling only the discards; on,
    the table asks for a fresh shoe every round: tables.services.hands; the rules do not see it)."""

    target: int = TARGET
    playoff: str = TIED
    pieces_of_eight: bool = False
    new_deck_each_round: bool = False

    def validate(self) -> None:
        super().validate()
        if isinstance(self.target, bool) or not isinstance(self.target, int) or self.target < 1:
            raise IllegalAction(f"The target is a whole number of points, not {self.target!r}.")
        if self.playoff not in (TIED, ALL):
            raise IllegalAction(f"playoff is {TIED} or {ALL}, not {self.playoff!r}.")
        for name in ("pieces_of_eight", "new_deck_each_round"):
            if not isinstance(getattr(self, name), bool):
                raise IllegalAction(f"The house rule {name} is on (True) or off (False).")


class Port(Game):
    """One round of Port for the `seats` dealt in; `stakes` are every player's game score."""

    name = "port"
    Options = PortOptions

    def __init__(self, seats, stakes, options=None, carry: int = 0, shoe: Shoe | None = None, **state):
        super().__init__(seats, stakes, options=options, carry=carry, shoe=shoe)
        if state:
            raise IllegalAction(f"Port takes no game state such as {', '.join(sorted(state))}.")
        if not MIN_PLAYERS <= len(self.seats) <= MAX_PLAYERS:  # a playoff's tied players are two or more
            raise IllegalAction(f"Port needs {MIN_PLAYERS} to {MAX_PLAYERS} players, not {len(self.seats)}.")
        self._check_scores()
        self.stacks: dict[int, list[int]] = {seat: [] for seat in self.seats}
        self.low = LowCard(self.seats, self.stacks)
        self.locked: list[int] = []
        self.busted: dict[int, int] = {}  # seat: the rank that paired
        self.turn: int | None = None
        self.hits_due, self.hit_why = 0, "hit"  # cards due to the player on turn, and what for
        self._settlement: Settlement | None = None

    def _check_scores(self) -> None:
        missing = [seat for seat in self.seats if seat not in self.stakes]
        if missing or not self.seats:
            raise IllegalAction(f"Every seat dealt in needs its game score going in; missing {missing}.")
        for seat, score in self.stakes.items():
            if isinstance(score, bool) or not isinstance(score, int) or score < 0:
                raise IllegalAction(f"Seat {seat}'s score must be a whole number of points, not {score!r}.")
        if game_result(self.stakes, self.options.target, self.options.playoff)["game_over"]:
            raise IllegalAction("The game is already won: no round can be dealt.")

    # -- what the round waits for -------------------------------------------

    @property
    def next(self) -> CardDue | DecisionDue | Finished:
        if self._settlement is not None:
            return Finished(self._settlement)
        if self.low.winner is None:
            return CardDue(SEAT, "tiebreak" if self.low.is_tiebreak else "deal", self.low.seat)
        if self.hits_due:
            return CardDue(SEAT, self.hit_why, self.turn)
        moves = (Move.HIT, Move.LOCK)
        if self.options.pieces_of_eight and EIGHT in self.stacks[self.turn]:
            moves += (Move.EIGHT,)
        return DecisionDue(self.turn, moves, choices=tuple((move.value,) for move in moves))

    def check_legal(self, due: DecisionDue, action: Action) -> None:
        super().check_legal(due, action)
        if action.count is not None or action.card is not None or action.target or action.ranks:
            raise IllegalAction(f"Port has no decision {action.as_record()!r}; expected hit or lock.")

    # -- cards and decisions --------------------------------------------------

    def _deal(self, rank: int) -> None:
        if self.low.winner is None:
            self.low.feed(rank)
            if self.low.winner is not None:
                self.turn = self.low.winner
            return
        self.hits_due -= 1
        if rank in self.stacks[self.turn]:
            self.busted[self.turn] = rank
            self.hits_due = 0  # a pair ends the trade too: the second card is not dealt
            self._pass_turn()
            return
        self.stacks[self.turn].append(rank)
        if not self.hits_due:
            self._pass_turn()

    def _act(self, action: Action) -> None:
        if action.move is Move.HIT:
            self.hits_due, self.hit_why = 1, "hit"
        elif action.move is Move.EIGHT:
            self.stacks[self.turn].remove(EIGHT)
            self.hits_due, self.hit_why = EIGHT_CARDS, "eight"
        else:
            self.locked.append(self.turn)
            self._pass_turn()

    def _pass_turn(self) -> None:
        """The next player clockwise still in; the round scores once nobody is."""
        live = [seat for seat in self.seats if seat not in self.locked and seat not in self.busted]
        if not live:
            self._score()
            return
        after = [seat for seat in live if self.seats.index(seat) > self.seats.index(self.turn)]
        self.turn = (after or live)[0]

    def _score(self) -> None:
        totals = {seat: sum(self.stacks[seat]) for seat in self.seats if seat not in self.busted}
        points = round_points(self.seats, totals)
        scores = {seat: score + points.get(seat, 0) for seat, score in self.stakes.items()}
        result = {
            "totals": totals,
            "busted": dict(self.busted),
            "points": points,
            "scores": scores,
            "target": self.options.target,
            **game_result(scores, self.options.target, self.options.playoff),
        }
        self._settlement = round_settlement(self, result, first=not any(self.stakes.values()))


def round_points(seats, totals: dict[int, int]) -> dict[int, int]:
    """Each seat's game points: N (every player dealt in) less the live stacks with a higher total;
    a busted seat (not in `totals`) scores 0. Tied stacks both take the higher amount."""
    n = len(seats)
    return {
        seat: n - sum(1 for other in totals.values() if other > totals[seat]) if seat in totals else 0
        for seat in seats
    }


def game_result(scores: dict[int, int], target: int, playoff: str) -> dict:
    """Whether the game is over after a round: one top score at or above `target` wins it; a tie
    for the top there is played off (`playoff`: the tied players, or every player of the game)."""
    top = max(scores.values())
    leaders = [seat for seat, score in scores.items() if score == top]
    if top < target:
        return {"game_over": False, "winner": None, "playoff": None}
    if len(leaders) == 1:
        return {"game_over": True, "winner": leaders[0], "playoff": None}
    return {"game_over": False, "winner": None, "playoff": leaders if playoff == TIED else sorted(scores)}
