"""Five Cards (booklet, "Bidding Games"): two players build columns on five target cards.

A `FiveCards` object plays ONE round. Five unmatched cards are dealt to the middle as the targets
(a card matching one already there is set aside; RULINGS.md "Points and bidding games": the set-aside
cards go back into the deck, which is reshuffled). In turn, the player draws a card and plays it face
up on their side of a column (`place`, naming the column by its target's rank); a card cannot go
where it matches any card of the column, the target and both sides included, and a playable card
must be played. The round ends when a player draws a card no column can take. Each column's target
scores its rank for the player with more points on their side; a tie (an empty column is 0 to 0)
gives each half, rounded down.

`stakes` are the game scores going in; state `first` is the seat that starts (the first round: a
seat drawn at random; later rounds: the result's `next_first`, the player who scored fewer points in
the round, or with equal points the one who went second). The first to 100 wins; both there with
equal scores play on. The round moves no money. See docs/rules/five_cards.md.
"""

from __future__ import annotations

from dataclasses import dataclass

from .base import CENTRE, SEAT, Action, CardDue, DecisionDue, Finished, Game, Move, Settlement
from .cards import Shoe
from .errors import IllegalAction
from .rounds import PointsOptions, check_scores, round_settlement

PLAYERS = 2
TARGETS = 5
TARGET_SCORE = 100


@dataclass(frozen=True)
class FiveCardsOptions(PointsOptions):
    """Five Cards house rules: `target` (100 points wins)."""

    target: int = TARGET_SCORE

    def validate(self) -> None:
        super().validate()
        if isinstance(self.target, bool) or not isinstance(self.target, int) or self.target < 1:
            raise IllegalAction(f"The target is a whole number of points, not {self.target!r}.")


class FiveCards(Game):
    """One round of Five Cards for two seats; `stakes` are the game scores going in."""

    name = "five_cards"
    Options = FiveCardsOptions

    def __init__(
        self, seats, stakes, options=None, carry: int = 0, shoe: Shoe | None = None, first=None, **state
    ):
        super().__init__(seats, stakes, options=options, carry=carry, shoe=shoe)
        if state:
            raise IllegalAction(f"Five Cards takes no game state such as {', '.join(sorted(state))}.")
        if len(self.seats) != PLAYERS:
            raise IllegalAction(f"Five Cards is for {PLAYERS} players, not {len(self.seats)}.")
        check_scores(self.seats, self.stakes)
        if first is None:
            first = self.seats[0]
        if first not in self.seats:
            raise IllegalAction(f"The first player is one of seats {self.seats}, not {first!r}.")
        self.first = self.turn = first
        self.targets: list[int] = []
        self.set_aside: list[int] = []
        self.columns: dict[int, dict[int, list[int]]] = {}  # target rank: seat: ranks played there
        self.drawn: int | None = None
        self._settlement: Settlement | None = None

    # -- what the round waits for ------------------------------------------

    @property
    def next(self) -> CardDue | DecisionDue | Finished:
        if self._settlement is not None:
            return Finished(self._settlement)
        if len(self.targets) < TARGETS:
            return CardDue(CENTRE, "target")
        if self.drawn is None:
            return CardDue(SEAT, "draw", self.turn)
        choices = tuple(("place", target) for target in self.open_columns(self.drawn))
        return DecisionDue(self.turn, (Move.PLACE,), choices=choices)

    def open_columns(self, rank: int) -> list[int]:
        """The columns `rank` may go in: none of their cards matches it."""
        return [target for target in self.targets if rank not in self.column_cards(target)]

    def column_cards(self, target: int) -> list[int]:
        return [target, *(rank for side in self.columns[target].values() for rank in side)]

    def check_legal(self, due: DecisionDue, action: Action) -> None:
        super().check_legal(due, action)
        if action.count is not None or action.card is not None or action.target is not None:
            raise IllegalAction(f"Five Cards has no decision {action.as_record()!r}.")
        if len(action.ranks or ()) != 1 or (action.move, *action.ranks) not in due.choices:
            columns = ", ".join(str(rank) for _, rank in due.choices)
            raise IllegalAction(f"The {self.drawn} goes on one column it matches nothing in: the {columns}.")

    # -- cards and decisions -------------------------------------------------

    def _deal(self, rank: int) -> None:
        if len(self.targets) < TARGETS:
            self._target(rank)
        elif not self.open_columns(rank):
            self.drawn = rank
            self._score()
        else:
            self.drawn = rank

    def _target(self, rank: int) -> None:
        if rank in self.targets:
            self.set_aside.append(rank)
            return
        self.targets = sorted([*self.targets, rank])
        self.columns[rank] = {seat: [] for seat in self.seats}
        if len(self.targets) == TARGETS and self.set_aside:
            # The set-aside cards go back into the deck, which is shuffled again (RULINGS).
            for card in self.set_aside:
                self.shoe.remaining[card] += 1

    def _act(self, action: Action) -> None:
        self.columns[action.ranks[0]][self.turn].append(self.drawn)
        self.drawn = None
        self.turn = self.seats[1 - self.seats.index(self.turn)]

    def _score(self) -> None:
        points = dict.fromkeys(self.seats, 0)
        for target, sides in self.columns.items():
            totals = {seat: sum(ranks) for seat, ranks in sides.items()}
            for seat, share in column_points(target, totals).items():
                points[seat] += share
        scores = {seat: self.stakes[seat] + points[seat] for seat in self.seats}
        result = {
            "targets": list(self.targets),
            "columns": {target: dict(sides) for target, sides in self.columns.items()},
            "unplayable": self.drawn,
            "points": points,
            "scores": scores,
            "target": self.options.target,
            "next_first": starts_next(points, self.first),
            **game_result(scores, self.options.target),
        }
        self._settlement = round_settlement(self, result, first=not any(self.stakes.values()))


def column_points(target: int, sides: dict[int, int]) -> dict[int, int]:
    """The target's rank to the side with more points; a tie (0 to 0 too) half each, rounded down."""
    top = max(sides.values())
    leaders = [seat for seat, total in sides.items() if total == top]
    if len(leaders) == 1:
        return {seat: target if seat == leaders[0] else 0 for seat in sides}
    return dict.fromkeys(sides, target // 2)


def starts_next(points: dict[int, int], first: int) -> int:
    """Who starts the next round: the player who scored fewer points in this one; with equal
    points, the player who went second (RULINGS)."""
    second = next(seat for seat in points if seat != first)
    return min(points, key=lambda seat: (points[seat], seat != second))


def game_result(scores: dict[int, int], target: int) -> dict:
    top = max(scores.values())
    leaders = [seat for seat, score in scores.items() if score == top]
    over = top >= target and len(leaders) == 1
    return {"game_over": over, "winner": leaders[0] if over else None}
