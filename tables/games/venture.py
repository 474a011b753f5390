"""Venture (booklet, "Bidding Games"; the Professor Elemental rules card, seeds 001): bid cards
capture other cards, and capturing is bad, unless it completes a set.

A `Venture` object plays ONE deal. The slug (4, 3, 5, 7, 6 or 7 cards for 3 to 8 players) is dealt
face down to the centre, then the rest of the deck to the players, face down, one at a time. With the
draft (option `draft`), each player keeps three cards of the packet in hand and passes the rest to the
left, again and again; a packet of three or fewer is kept whole (RULINGS). The slug is then turned up:
the first round's pool. Each round every player bids a card in secret; the bids are revealed together
(recorded as each player's `choose`, in seat order) and fire from low to high. The lowest bid captures
every card of the highest rank on the table (pool and bids, its own card aside); every other bid
captures every card lower than itself. Bids of one rank misfire and capture nothing; a bid captured
before it fires does not fire. Cards not captured, fired bids included, stay as the next pool.

When the hands are empty, each captured card scores -1, except a full set: a rank whose every card
was captured by the player or lies in the centre scores +1 for each of them (the centre's included); a
rank lying wholly in the centre scores for nobody. `stakes` are the game scores going in (they may be
negative); the game is a fixed number of deals (option `deals`; state `deal` is this deal's number).
No money moves. See docs/rules/venture.md.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass
from itertools import combinations

from .base import CENTRE, SEAT, Action, CardDue, DecisionDue, Finished, Game, Move, Settlement
from .cards import Hand, Shoe
from .errors import IllegalAction
from .rounds import PointsOptions, check_scores, round_settlement
from .secret_hands import deal_order, hands_for

MIN_PLAYERS, MAX_PLAYERS = 3, 8
SLUG = {3: 4, 4: 3, 5: 5, 6: 7, 7: 6, 8: 7}
DRAFT_KEEP = 3


@dataclass(frozen=True)
class VentureOptions(PointsOptions):
    """Venture house rules: `draft` (off), and `deals` (1: the game is this many deals, scores
    added up; the text advises a fixed number, since scores run negative)."""

    draft: bool = False
    deals: int = 1

    def validate(self) -> None:
        super().validate()
        if not isinstance(self.draft, bool):
            raise IllegalAction("The house rule draft is on (True) or off (False).")
        if isinstance(self.deals, bool) or not isinstance(self.deals, int) or self.deals < 1:
            raise IllegalAction(f"deals is a whole number of deals, at least 1, not {self.deals!r}.")


class Venture(Game):
    """One deal of Venture for 3 to 8 players; `stakes` are the game scores going in."""

    name = "venture"
    Options = VentureOptions

    def __init__(
        self, seats, stakes, options=None, carry: int = 0, shoe: Shoe | None = None, deal=1, **state
    ):
        super().__init__(seats, stakes, options=options, carry=carry, shoe=shoe)
        if state:
            raise IllegalAction(f"Venture takes no game state such as {', '.join(sorted(state))}.")
        players = len(self.seats)
        if not MIN_PLAYERS <= players <= MAX_PLAYERS:
            raise IllegalAction(f"Venture needs {MIN_PLAYERS} to {MAX_PLAYERS} players, not {players}.")
        check_scores(self.seats, self.stakes, negative=True)
        if isinstance(deal, bool) or not isinstance(deal, int) or not 1 <= deal <= self.options.deals:
            raise IllegalAction(f"This is deal 1 to {self.options.deals} of the game, not {deal!r}.")
        self.deal_number = deal
        self.slug = Hand()
        hand_size = (len(self.shoe) - SLUG[players]) // players
        hands = deal_order(self.seats, hand_size, "rotation")
        self.to_deal: list[int | str] = [CENTRE] * SLUG[players] + hands
        self.hands: dict[int, Hand] = hands_for(self.seats)  # with the draft: the packets in hand
        self.kept: dict[int, Hand] = hands_for(self.seats)  # the draft's kept cards
        self.keeps: dict[int, tuple] = {}  # this pass of the draft: each seat's keep, as recorded
        self.drafting = self.options.draft
        self.pool: list[int] = []
        self.bids: dict[int, int] = {}
        self.captured: dict[int, list[int]] = {seat: [] for seat in self.seats}
        self.rounds: list[dict] = []
        self._settlement: Settlement | None = None

    # -- what the deal waits for --------------------------------------------

    @property
    def next(self) -> CardDue | DecisionDue | Finished:
        if self._settlement is not None:
            return Finished(self._settlement)
        if self.to_deal:
            receiver = self.to_deal[0]
            if receiver == CENTRE:
                return CardDue(CENTRE, "slug", face_down=True)
            return CardDue(SEAT, "deal", receiver, face_down=True)
        if self.drafting:
            seat = self.seats[len(self.keeps)]
            return DecisionDue(seat, (Move.KEEP,), choices=_keeps(self.hands[seat]))
        if self.slug:
            ranks = () if self.slug.unknown else tuple(self.slug.known)
            return CardDue(CENTRE, "slug", pile=True, ranks=ranks)
        seat = self.seats[len(self.bids)]
        choices = tuple(("choose", rank) for rank in self.hands[seat].choices())
        return DecisionDue(seat, (Move.CHOOSE,), choices=choices)

    def check_legal(self, due: DecisionDue, action: Action) -> None:
        super().check_legal(due, action)
        ranks = action.ranks or ()
        if action.count is not None or action.card is not None or action.target is not None:
            raise IllegalAction(f"Venture has no decision {action.as_record()!r}.")
        hand = self.hands[due.seat]
        if action.move is Move.CHOOSE:
            if len(ranks) != 1:
                raise IllegalAction(f"Seat {due.seat} bids one card from the hand.")
            hand.check_reveal(ranks, self.shoe, f"Seat {due.seat}'s hand")
        else:
            _check_keep(hand, ranks, self.shoe, due.seat)

    def _check_pile(self, rank: int) -> None:
        self.slug.check_reveal([rank], self.shoe, "The slug")

    # -- cards and decisions ------------------------------------------------------

    def _deal(self, rank: int | None) -> None:
        if self.to_deal:
            receiver = self.to_deal.pop(0)
            (self.slug if receiver == CENTRE else self.hands[receiver]).add(rank)
        else:
            self.slug.reveal(rank, self.shoe)
            self.pool.append(rank)

    def _act(self, action: Action) -> None:
        if action.move is Move.KEEP:
            self.keeps[self.seats[len(self.keeps)]] = action.ranks or ()
            if len(self.keeps) == len(self.seats):
                self._pass_packets()
            return
        seat = self.seats[len(self.bids)]
        self.hands[seat].reveal(action.ranks[0], self.shoe)
        self.bids[seat] = action.ranks[0]
        if len(self.bids) == len(self.seats):
            self._fire()

    def _pass_packets(self) -> None:
        """Each keeps their three and passes the rest to the left; a packet of three or fewer is
        kept whole, and the draft is over."""
        passed = {}
        for seat in self.seats:
            packet, kept = self.hands[seat], self.kept[seat]
            for rank in self.keeps[seat]:
                if rank is None:  # kept unseen
                    packet.unknown -= 1
                else:
                    packet.reveal(rank, self.shoe)
                kept.add(rank)
            passed[self.seats[(self.seats.index(seat) + 1) % len(self.seats)]] = packet
        self.hands, self.keeps = passed, {}
        if len(next(iter(self.hands.values()))) <= DRAFT_KEEP:
            for seat in self.seats:
                self.kept[seat].known += self.hands[seat].known
                self.kept[seat].unknown += self.hands[seat].unknown
            self.hands, self.drafting = self.kept, False

    def _fire(self) -> None:
        """The bids fire from low to high (see the module docstring)."""
        table = [(rank, None) for rank in self.pool] + [(rank, seat) for seat, rank in self.bids.items()]
        lowest = min(self.bids.values())
        taken: dict[int, list[int]] = {seat: [] for seat in self.seats}
        for rank in sorted(set(self.bids.values())):
            firing = [seat for seat, bid in self.bids.items() if bid == rank and (rank, seat) in table]
            if len(firing) != 1:
                continue  # matched bids misfire; a captured bid does not fire
            seat = firing[0]
            others = [card for card in table if card != (rank, seat)]
            if rank == lowest:
                top = max((card[0] for card in others), default=None)
                targets = [card for card in others if card[0] == top]
            else:
                targets = [card for card in others if card[0] < rank]
            for card in targets:
                table.remove(card)
            taken[seat] += [card[0] for card in targets]
        for seat, cards in taken.items():
            self.captured[seat] += cards
        self.rounds.append({"bids": dict(self.bids), "captured": {s: sorted(c) for s, c in taken.items()}})
        self.pool, self.bids = sorted(card[0] for card in table), {}
        if not any(self.hands.values()):
            self._score()

    def _score(self) -> None:
        points = {seat: deal_points(self.captured[seat], self.pool, self.shoe.full) for seat in self.seats}
        scores = {seat: self.stakes[seat] + points[seat] for seat in self.seats}
        over = self.deal_number >= self.options.deals
        top = max(scores.values())
        result = {
            "captured": {seat: sorted(cards) for seat, cards in self.captured.items()},
            "centre": list(self.pool),
            "rounds": self.rounds,
            "points": points,
            "scores": scores,
            "deal": self.deal_number,
            "deals": self.options.deals,
            "game_over": over,
            "winners": [seat for seat, score in scores.items() if score == top] if over else [],
        }
        self._settlement = round_settlement(self, result, first=self.deal_number == 1)


def deal_points(captured: list[int], centre: list[int], full: list[int]) -> int:
    """-1 a captured card, but a full set (the player's cards of a rank and the centre's make every
    card of it) +1 a card, the centre's included."""
    mine, left = Counter(captured), Counter(centre)
    return sum(n + left[rank] if n + left[rank] == full[rank] else -n for rank, n in mine.items())


def _check_keep(packet: Hand, ranks, shoe: Shoe, seat: int) -> None:
    """A keep lists three cards of the packet: a rank where the tablet or the player names it, None
    for a card kept unseen (a physical table's face-down packet)."""
    if len(ranks) != DRAFT_KEEP:
        raise IllegalAction(f"Seat {seat} keeps {DRAFT_KEEP} cards of its packet (a rank, or ? unseen).")
    named = [rank for rank in ranks if rank is not None]
    packet.check_reveal(named, shoe, f"Seat {seat}'s packet")
    unseen_named = sum((Counter(named) - Counter(packet.known)).values())
    if len(ranks) - len(named) > packet.unknown - unseen_named:
        raise IllegalAction(f"Seat {seat}'s packet has no card left unseen to keep as ?.")


def _keeps(packet: Hand) -> tuple[tuple, ...]:
    """Every keep of three a known packet allows (none listed for a packet dealt face down)."""
    if packet.unknown:
        return ()
    return tuple(("keep", *combo) for combo in sorted(set(combinations(sorted(packet.known), DRAFT_KEEP))))
