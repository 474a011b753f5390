"""Monster: keep a hand without a pair, beat the other hands, then beat the Monster.

Booklet, "Secret Hands"; RULINGS.md "Secret-hand games". Every player antes
(2 with four or five players, 1 with six or more; first round only). Each round
the deck is shuffled and six cards are dealt face down to every player still in.
From the dealer's left, each player discards zero to three cards face down (they
make the Monster's hand) or folds (out of the game, cards out of play). A player
may not keep a hand with a pair. At the showdown the kept hands are shown: the
best (highest card, then the next; a card is better than none) faces the
Monster, which ignores its own pairs. A hand that beats it takes the pot (tied
hands split it); one that does not pays 5 into the pot and is out, except that
when every player still in ties and loses, all pay and play again. The game ends
when someone beats the Monster or one player is left. See docs/rules/monster.md.

One player left: the booklet ends the game "when only one player is left", and
RULINGS has the last one take the pot without facing the Monster when every other
player folds. A hand shown with a pair (a physical table's only way to keep one)
is out like a fold, with the penalty: if that leaves one player at the showdown,
that player takes the pot without facing the Monster and pays no penalty. The
"all pay and play again" of RULINGS is for players who tie: a lone player cannot.
The penalty is paid into the pot; every loss that pays it puts the loser out,
except that tie of everyone still in. With nobody left (every hand shown paired)
the pot carries to the table's next one.
"""

from __future__ import annotations

from dataclasses import dataclass
from itertools import combinations

from .base import SEAT, Action, CardDue, DecisionDue, Finished, Game, Move
from .cards import Hand, Shoe
from .collection import CollectionOptions
from .errors import IllegalAction
from .secret_hands import (
    CHOSEN_IN_SECRET,
    Purse,
    SecretOptions,
    check_deal,
    check_table,
    deal_order,
    hands_for,
    is_units,
)

MIN_PLAYERS, MAX_PLAYERS = 4, 8
HAND_SIZE = 6
MAX_DISCARD = 3
PENALTY = 5  # "pays 5 coins": losing to the Monster
SMALL_TABLE, SMALL_ANTE, LARGE_ANTE = 5, 2, 1  # ante 2 with 4 or 5 players, 1 with 6 or more
MONSTER = "monster"


@dataclass(frozen=True)
class MonsterOptions(SecretOptions):
    """Monster house rules: `ante` (None: the booklet's, 2 with four or five players and 1 with six
    or more), `penalty` (5, paid into the pot on losing to the Monster), `deal` and the
    collection."""

    ante: int | None = None
    penalty: int = PENALTY

    def validate(self) -> None:
        CollectionOptions.validate(self)
        check_deal(self.deal)
        if self.ante is not None and (not is_units(self.ante) or self.ante < 0):
            raise IllegalAction(
                f"The ante must be whole units, or unset for the booklet's, not {self.ante!r}."
            )
        if not is_units(self.penalty) or self.penalty < 0:
            raise IllegalAction(f"The Monster's penalty must be whole units, not {self.penalty!r}.")

    def ante_for(self, players: int) -> int:
        if self.ante is not None:
            return self.ante
        return SMALL_ANTE if players <= SMALL_TABLE else LARGE_ANTE


def hand_key(cards) -> tuple[int, ...]:
    """Orders hands from best: the highest card, then the next; a card is better than none."""
    return (*sorted(cards, reverse=True), 0)


def has_pair(cards) -> bool:
    return len(set(cards)) < len(cards)


class Monster(Game):
    """Monster for 4 to 8 players, all its rounds in one game; `stakes` are chips."""

    name = "monster"
    Options = MonsterOptions

    def __init__(self, seats, stakes, options=None, carry: int = 0, shoe: Shoe | None = None, **state):
        super().__init__(seats, stakes, options=options, carry=carry, shoe=shoe)
        if state:
            raise IllegalAction(f"Monster takes no game state such as {', '.join(sorted(state))}.")
        ante = self.options.ante_for(len(self.seats))
        check_table(self, MIN_PLAYERS, MAX_PLAYERS, ante)
        self.purse = Purse(self)
        for seat in self.seats:
            self.purse.pay(seat, ante, "ante")
        self.live = list(self.seats)
        self.out: dict[int, str] = {}
        self.rounds = 0
        self.shown: dict[int, tuple[int, ...]] = {}
        self._finished: Finished | None = None
        self._new_round()

    def _new_round(self) -> None:
        if self.rounds:
            # Each round is dealt from the whole deck, shuffled again.
            self.shoe.remaining, self.shoe.unseen = list(self.shoe.full), 0
        self.rounds += 1
        self.hands = hands_for(self.live)
        self.monster = Hand()
        self.to_deal = deal_order(self.live, HAND_SIZE, self.options.deal)
        self.to_act = list(self.live)
        self.folded: list[int] = []
        self.to_show: list[int] = []
        self.shown = {}
        self.monster_cards: list[int] = []
        self.monster_due = 0

    # -- what the game waits for ---------------------------------------------

    @property
    def next(self) -> CardDue | DecisionDue | Finished:
        if self._finished is not None:
            return self._finished
        if self.to_deal:
            return CardDue(SEAT, "deal", self.to_deal[0], face_down=True)
        if self.to_act:
            return self._decision(self.to_act[0])
        if self.to_show:
            seat = self.to_show[0]
            hand = self.hands[seat]
            return DecisionDue(
                seat, (Move.SHOW,), choices=() if hand.unknown else (("show", *sorted(hand.known)),)
            )
        ranks = () if self.monster.unknown else tuple(sorted(self.monster.known))
        return CardDue(MONSTER, MONSTER, pile=True, ranks=ranks)

    def _decision(self, seat: int) -> DecisionDue:
        hand = self.hands[seat]
        if hand.unknown:
            return DecisionDue(seat, (Move.DISCARD, Move.FOLD))
        return DecisionDue(seat, (Move.DISCARD, Move.FOLD), choices=(*discards(hand.known), ("fold",)))

    def check_legal(self, due: DecisionDue, action: Action) -> None:
        super().check_legal(due, action)
        seat, ranks = due.seat, action.ranks or ()
        hand = self.hands[seat]
        if action.move is Move.FOLD:
            if ranks:
                raise IllegalAction(f"Seat {seat}'s fold names nothing more.")
        elif action.move is Move.DISCARD:
            self._check_discard(seat, hand, ranks)
        else:
            if len(ranks) != len(hand) or None in ranks:
                raise IllegalAction(f"Seat {seat} shows all {len(hand)} cards it kept.")
            hand.check_reveal(ranks, self.shoe, f"Seat {seat}'s hand")

    def _check_discard(self, seat: int, hand: Hand, ranks) -> None:
        if len(ranks) > MAX_DISCARD:
            raise IllegalAction(f"Seat {seat} may discard zero to {MAX_DISCARD} cards, not {len(ranks)}.")
        named = [r for r in ranks if r is not None]
        if len(named) < len(ranks) and len(ranks) - len(named) > hand.unknown:
            raise IllegalAction(f"Seat {seat}'s discards name their cards: {CHOSEN_IN_SECRET}")
        hand.check_reveal(named, self.shoe, f"Seat {seat}'s hand")
        if not hand.unknown:
            kept = list(hand.known)
            for rank in named:
                kept.remove(rank)
            if has_pair(kept):
                raise IllegalAction(f"Seat {seat} may not keep a hand with a pair: {sorted(kept)}.")

    def _check_pile(self, rank: int) -> None:
        self.monster.check_reveal([rank], self.shoe, "The Monster")

    # -- cards ------------------------------------------------------------------

    def _deal(self, rank: int | None) -> None:
        if self.to_deal:
            self.hands[self.to_deal.pop(0)].add(rank)
            return
        self.monster.reveal(rank, self.shoe)
        self.monster_cards.append(rank)
        if not self.monster:
            self._face_the_monster()

    # -- decisions ----------------------------------------------------------------

    def _act(self, action: Action) -> None:
        if action.move is Move.SHOW:
            seat = self.to_show.pop(0)
            self.hands[seat].reveal_all(action.ranks, self.shoe)
            self.shown[seat] = tuple(action.ranks)
            if not self.to_show and not self.monster:
                self._face_the_monster()
            return
        seat = self.to_act.pop(0)
        if action.move is Move.FOLD:
            self.folded.append(seat)
            self._leave(seat, "folded")
        else:
            self._discard(seat, action.ranks or ())
        standing = [s for s in self.live if s not in self.folded]
        if len(self.live) == 1:
            self._finish(self.live)  # everyone else folded: no Monster to face
        elif not self.to_act:
            self.to_show = standing

    def _discard(self, seat: int, ranks) -> None:
        hand = self.hands[seat]
        for rank in ranks:
            if rank is None:
                hand.unknown -= 1
                self.monster.unknown += 1
            else:
                hand.reveal(rank, self.shoe)  # the tablet knows it; the table sees it at the showdown
                self.monster.known.append(rank)

    # -- the showdown ---------------------------------------------------------------

    def _face_the_monster(self) -> None:
        fair = {s: cards for s, cards in self.shown.items() if not has_pair(cards)}
        for seat in self.shown:
            if seat not in fair:
                self._pay_and_leave(seat, "kept a pair")
        if len(fair) <= 1:
            # The others are out: the one left takes the pot without facing the Monster (none left:
            # it carries), as when every other player folds; alone, nobody ties to pay and play again.
            return self._round_over()
        best = max(hand_key(cards) for cards in fair.values())
        top = [s for s in self.seats if s in fair and hand_key(fair[s]) == best]
        # An empty Monster loses to any hand; the Monster wins a perfect tie.
        monster = hand_key(set(self.monster_cards)) if self.monster_cards else None
        if monster is None or best > monster:
            return self._finish(top)
        if set(top) == set(self.live):
            for seat in top:  # every player still in tied and lost: all pay and play again
                self.purse.pay(seat, self.options.penalty, "lost to the Monster")
        else:
            for seat in top:
                self._pay_and_leave(seat, "lost to the Monster")
        self._round_over()

    def _pay_and_leave(self, seat: int, why: str) -> None:
        self.purse.pay(seat, self.options.penalty, why)
        self._leave(seat, why)

    def _leave(self, seat: int, why: str) -> None:
        self.out[seat] = why
        self.live.remove(seat)

    def _round_over(self) -> None:
        if len(self.live) <= 1:
            self._finish(self.live)
        else:
            self._new_round()

    def _finish(self, winners) -> None:
        result = {
            "rounds": self.rounds,
            "shown": dict(self.shown),
            "monster": tuple(self.monster_cards),
            "out": dict(self.out),
        }
        self.to_deal, self.to_act, self.to_show = [], [], []
        self._finished = Finished(self.purse.settle(winners, result))


def discards(hand) -> tuple[tuple, ...]:
    """Every legal discard from a known hand: zero to three cards leaving no pair."""
    found: set[tuple[int, ...]] = set()
    for k in range(MAX_DISCARD + 1):
        for picked in combinations(sorted(hand), k):
            kept = list(hand)
            for rank in picked:
                kept.remove(rank)
            if not has_pair(kept):
                found.add(picked)
    return tuple(("discard", *picked) for picked in sorted(found, key=lambda p: (len(p), p)))
