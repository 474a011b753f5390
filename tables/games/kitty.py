"""Kitty (booklet, "Bidding Games" and "Variations on Kitty"): bid for the kitty's cards, then the
most cards of each rank score it.

A `Kitty` object plays ONE game (a deal). The kitty, 7 cards, is dealt face down to the centre (with
five players, 3 more cards are then removed unseen: RULINGS.md "Points and bidding games"), then the
rest of the deck to the players, face down, one at a time. Each round the top of the kitty (the last
card dealt onto it) is turned up as the target; in the soft game (option `soft`; the default for 5
and 6 players) every target after the first is two cards, so 4 rounds are played instead of 7. Each
player passes a card to the left (`pass`, in secret: its rank named, or `?` unseen), then bids a card
in secret; the bids are revealed together (`choose`, recorded in seat order). A target goes to the
lowest rank bid exactly once (ranks bid twice or more are ignored); in the soft game that player
`pick`s one of the two target cards and the second-lowest single bid takes the other. A target nobody
takes is discarded. A target taken with the 1 is given to another player (`give`, aimed at a seat; in
Partners, a player of the other team). The bids are discarded.

After the last round every player shows their hand (`show`, naming every card). For each rank, the
player (in Partners, the team) holding the most cards of it scores the rank; tied holders all score it.
`stakes` are the game scores going in. The long form (option `target`, e.g. 100) plays games until a
single top score reaches it. With the gambling rule (option `point_value` > 0) each loser pays the
winner the difference in scores times the point value; tied winners split it and odd coins carry.
See docs/rules/kitty.md.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass

from .base import CENTRE, SEAT, Action, CardDue, DecisionDue, Finished, Game, Move, Settlement
from .cards import Hand, Shoe
from .errors import IllegalAction
from .rounds import PointsOptions, ShowHands, check_scores, round_settlement
from .secret_hands import deal_order, hands_for

MIN_PLAYERS, MAX_PLAYERS = 3, 6
KITTY = 7
REMOVED = {5: 3}  # cards removed unseen so that the hands come out even
THE_ONE = 1
KITTY_CARD, REMOVED_CARD = "kitty", "removed"  # what a card dealt to the centre is for
PARTNER_TABLES = (4, 6)


@dataclass(frozen=True)
class KittyOptions(PointsOptions):
    """Kitty house rules: `soft` (None: hard with 3 or 4 players, soft with 5 or 6), `partners`
    (teams of the players sitting opposite, 4 or 6 players), `target` (None: one game; else the long
    form's score), `point_value` (0: no gambling; else coins per point of difference)."""

    soft: bool | None = None
    partners: bool = False
    target: int | None = None
    def validate(self) -> None:
        super().validate()
        if self.soft not in (None, True, False):
            raise IllegalAction(f"soft is on, off or unset (by the players), not {self.soft!r}.")
        if not isinstance(self.partners, bool):
            raise IllegalAction("The house rule partners is on (True) or off (False).")
        target = self.target
        if target is not None and (isinstance(target, bool) or not isinstance(target, int) or target < 1):
            raise IllegalAction(f"The target is a whole number of points, not {target!r}.")


class Kitty(ShowHands, Game):
    """One game of Kitty for 3 to 6 players; `stakes` are the game scores going in."""

    name = "kitty"
    Options = KittyOptions

    def __init__(self, seats, stakes, options=None, carry: int = 0, shoe: Shoe | None = None, **state):
        super().__init__(seats, stakes, options=options, carry=carry, shoe=shoe)
        if state:
            raise IllegalAction(f"Kitty takes no game state such as {', '.join(sorted(state))}.")
        players = len(self.seats)
        if not MIN_PLAYERS <= players <= MAX_PLAYERS:
            raise IllegalAction(f"Kitty needs {MIN_PLAYERS} to {MAX_PLAYERS} players, not {players}.")
        if self.options.partners and players not in PARTNER_TABLES:
            raise IllegalAction(f"Partners is played by 4 or 6 players, not {players}.")
        check_scores(self.seats, self.stakes)
        self.soft = self.options.soft if self.options.soft is not None else players >= 5
        removed = REMOVED.get(players, 0)
        size = (len(self.shoe) - KITTY - removed) // players
        hands = deal_order(self.seats, size, "rotation")
        self.to_deal: list = [KITTY_CARD] * KITTY + [REMOVED_CARD] * removed + hands
        self.kitty: list[int | None] = []  # in the order dealt: the top is the last
        self.hands: dict[int, Hand] = hands_for(self.seats)
        self.targets: list[int] = []  # this round's, turned up
        self.passes: dict[int, int | None] = {}
        self.bids: dict[int, int] = {}
        self.takers: list[int] = []  # this round's: the lowest single bid, then the second (soft)
        self.giving: int | None = None  # the card the 1 took, to be given
        self.shown: dict[int, tuple[int, ...]] = {}
        self.rounds: list[dict] = []
        self._settlement: Settlement | None = None

    def team(self, seat: int) -> tuple[int, ...]:
        """The seat's team: with Partners, the seat and the one opposite; else the seat alone."""
        if not self.options.partners:
            return (seat,)
        half = len(self.seats) // 2
        i = self.seats.index(seat)
        return tuple(sorted((seat, self.seats[(i + half) % len(self.seats)])))

    # -- what the game waits for -----------------------------------------------

    @property
    def next(self) -> CardDue | DecisionDue | Finished:
        if self._settlement is not None:
            return Finished(self._settlement)
        if self.to_deal:
            receiver = self.to_deal[0]
            if receiver in (KITTY_CARD, REMOVED_CARD):
                return CardDue(CENTRE, receiver, face_down=True)
            return CardDue(SEAT, "deal", receiver, face_down=True)
        if self.kitty and len(self.targets) < self._round_size() and not self.bids and not self.passes:
            top = self.kitty[-1]
            return CardDue(CENTRE, "target", pile=True, ranks=() if top is None else (top,))
        if self.kitty or self.targets:
            return self._round_decision()
        return self._show_due()

    def _round_size(self) -> int:
        first = not self.rounds
        return 1 if first or not self.soft else min(2, len(self.kitty) + len(self.targets))

    def _round_decision(self) -> DecisionDue:
        if len(self.passes) < len(self.seats):
            seat = self.seats[len(self.passes)]
            hand = self.hands[seat]
            return DecisionDue(seat, (Move.PASS,), choices=tuple(("pass", r) for r in hand.choices()))
        if len(self.bids) < len(self.seats):
            seat = self.seats[len(self.bids)]
            choices = tuple(("choose", r) for r in self.hands[seat].choices())
            return DecisionDue(seat, (Move.CHOOSE,), choices=choices)
        if self.giving is not None:
            seat = self.takers[0]
            others = [s for s in self.seats if s not in self.team(seat)]
            return DecisionDue(seat, (Move.GIVE,), choices=tuple(("give", s) for s in others))
        seat = self.takers[0]
        return DecisionDue(seat, (Move.PICK,), choices=tuple(("pick", r) for r in sorted(set(self.targets))))

    def check_legal(self, due: DecisionDue, action: Action) -> None:
        super().check_legal(due, action)
        ranks = action.ranks or ()
        if action.count is not None or action.card is not None:
            raise IllegalAction(f"Kitty has no decision {action.as_record()!r}.")
        hand = self.hands.get(due.seat)
        if action.move is Move.GIVE:
            if (action.move.value, action.target) not in due.choices or ranks:
                others = ", ".join(str(choice[1]) for choice in due.choices)
                raise IllegalAction(f"The 1's target goes to another player (seat {others}).")
        elif action.target is not None:
            raise IllegalAction(f"A {action.move} aims at no seat.")
        elif action.move is Move.PICK:
            if len(ranks) != 1 or ranks[0] not in self.targets:
                raise IllegalAction(f"Seat {due.seat} picks one target card: {sorted(self.targets)}.")
        elif action.move is Move.SHOW:
            self._check_show(due.seat, ranks)
        elif len(ranks) != 1 or (action.move is Move.CHOOSE and ranks[0] is None):
            what = "one card, or ? unseen" if action.move is Move.PASS else "one card, named"
            raise IllegalAction(f"Seat {due.seat}'s {action.move} is {what}.")
        elif ranks[0] is not None:
            hand.check_reveal(ranks, self.shoe, f"Seat {due.seat}'s hand")
        elif not hand.unknown:
            raise IllegalAction(f"Seat {due.seat}'s hand is known: name the card passed.")

    def _check_pile(self, rank: int) -> None:
        top = self.kitty[-1]
        if top is not None and rank != top:
            raise IllegalAction(f"The kitty's top card is a {top}, not a {rank}.")
        if top is None:
            self.shoe.check(rank)

    # -- cards and decisions -------------------------------------------------------

    def _deal(self, rank: int | None) -> None:
        if self.to_deal:
            receiver = self.to_deal.pop(0)
            if receiver == KITTY_CARD:
                self.kitty.append(rank)
            elif receiver != REMOVED_CARD:  # removed cards stay out, unseen
                self.hands[receiver].add(rank)
            return
        if self.kitty.pop() is None:  # the top card turned up, now seen
            self.shoe.unseen -= 1
            self.shoe.remaining[rank] -= 1
        self.targets.append(rank)

    def _act(self, action: Action) -> None:
        move = action.move
        if move is Move.PASS:
            self.passes[self.seats[len(self.passes)]] = action.ranks[0]
            if len(self.passes) == len(self.seats):
                self._pass_left()
        elif move is Move.CHOOSE:
            seat = self.seats[len(self.bids)]
            self.hands[seat].reveal(action.ranks[0], self.shoe)
            self.bids[seat] = action.ranks[0]
            if len(self.bids) == len(self.seats):
                self._capture()
        elif move is Move.PICK:
            self._take(action.ranks[0])
        elif move is Move.GIVE:
            self.rounds[-1].setdefault("given", {})[self.takers[0]] = action.target
            self.hands[action.target].add(self.giving)
            self.giving = None
            self.takers.pop(0)
            self._next_taker()
        else:
            self._show(action.ranks)

    def _pass_left(self) -> None:
        for seat, rank in self.passes.items():
            left = self.hands[self.seats[(self.seats.index(seat) + 1) % len(self.seats)]]
            hand = self.hands[seat]
            if rank is None:
                hand.unknown -= 1
            else:
                hand.reveal(rank, self.shoe)
            left.add(rank)

    def _capture(self) -> None:
        """Takers: the lowest rank bid exactly once, then (soft, two targets) the second lowest."""
        counts = Counter(self.bids.values())
        singles = sorted(rank for rank, n in counts.items() if n == 1)
        by_rank = {rank: seat for seat, rank in self.bids.items()}
        self.takers = [by_rank[rank] for rank in singles[: len(self.targets)]]
        self.rounds.append({"targets": list(self.targets), "bids": dict(self.bids), "taken": {}})
        self._next_taker()

    def _next_taker(self) -> None:
        """The next taker takes: the lowest picks when two cards are left (soft); the last card goes
        to whoever is left to take it. With no taker left, the rest of the targets are discarded."""
        while self.takers and self.giving is None and len(self.targets) == 1:
            self._take(self.targets[0])
        if not self.takers and self.giving is None:
            self.rounds[-1]["discarded"] = list(self.targets)
            self.targets, self.passes, self.bids = [], {}, {}

    def _take(self, rank: int) -> None:
        seat = self.takers[0]
        self.targets.remove(rank)
        self.rounds[-1]["taken"][seat] = rank
        if self.bids[seat] == THE_ONE:
            self.giving = rank  # the 1 takes, then gives (RULINGS)
            return
        self.hands[seat].add(rank)
        self.takers.pop(0)
        self._next_taker()

    def _score(self) -> None:
        points = kitty_points({seat: list(self.shown[seat]) for seat in self.seats}, self.team)
        scores = {seat: self.stakes[seat] + points[seat] for seat in self.seats}
        top = max(scores.values())
        leaders = [seat for seat, score in scores.items() if score == top]
        target = self.options.target
        over = target is None or (top >= target and len({self.team(s) for s in leaders}) == 1)
        result = {
            "hands": dict(self.shown),
            "rounds": self.rounds,
            "points": points,
            "scores": scores,
            "target": target,
            "game_over": over,
            "winners": leaders if over else [],
        }
        self._settlement = round_settlement(self, result, first=not any(self.stakes.values()))


def kitty_points(hands: dict[int, list[int]], team=lambda seat: (seat,)) -> dict[int, int]:
    """For each rank, the holders (teams) of the most cards of it score the rank, ties all of them;
    a team's points are each of its players' points."""
    teams = {team(seat) for seat in hands}
    held = {t: Counter(rank for seat in t for rank in hands[seat]) for t in teams}
    scored = dict.fromkeys(teams, 0)
    for rank in {rank for cards in hands.values() for rank in cards}:
        most = max(counts[rank] for counts in held.values())
        for t, counts in held.items():
            if counts[rank] == most:
                scored[t] += rank
    return {seat: scored[team(seat)] for seat in hands}
