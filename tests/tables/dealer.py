"""A dealer keying whole games through the hand services, as the players play them.

The players' game is a "mirror" engine that knows every card (the players see their own cards; the
mirror sees them all): it says which moves are legal, and `rng` picks among them. At a physical table
the dealer keys face-down cards blind and each revealed rank as shown; a system shoe gives its cards,
which the mirror is then told. A recycle the shoe made (a dry shoe, a Monster round) and its burns are
told to the mirror too."""

import random

from tables.games import CardDue, HandSetup
from tables.models import Hand, Receiver, Shoe
from tables.services import hand_decide, hand_record_card

from .conftest import key


class Dealer:
    """`choose(due)` picks each decision among `due.choices` (default: at random with `rng`)."""

    def __init__(self, hand: Hand, by, rng: random.Random, choose=None):
        self.hand, self.by, self.rng = hand, by, rng
        self.choose = choose or (lambda due: self.rng.choice(due.choices))
        self.mirror = HandSetup.from_record(hand.setup).start()
        self.deck: list[int] = []  # a physical shoe's order, which only the cards themselves know
        self.synced = 0  # the hand's records the mirror has been told of

    def play(self) -> Hand:
        while not self.mirror.finished:
            due = self.mirror.next
            if isinstance(due, CardDue):
                self.card(due)
            else:
                self.decide(due)
        return self.hand

    def card(self, due: CardDue) -> None:
        physical = self.hand.shoe.kind == Shoe.Kind.PHYSICAL
        if due.pile:
            rank = keyed = self.rng.choice(due.ranks)
        elif physical:
            rank = self.next_physical()
            keyed = None if due.face_down else rank
        else:
            rank = keyed = None
        seq = self.hand.seq
        self.hand = hand_record_card(hand=self.hand, rank=keyed, by=self.by, expected_seq=seq, key=key())
        self.sync_shoe_steps()
        if rank is None:
            rank = self.hand.card_list[-1].rank  # the system shoe's card, kept off the screen
        self.mirror.deal(rank)
        self.synced = self.hand.seq

    def next_physical(self) -> int:
        """The next card of the physical deck, one the mirror's shoe can still give."""
        if not self.deck or self.mirror.shoe.remaining[self.deck[0]] == 0:
            self.deck = [rank for rank, n in enumerate(self.mirror.shoe.remaining) for _ in range(n)]
            self.rng.shuffle(self.deck)
        return self.deck.pop(0)

    def sync_shoe_steps(self) -> None:
        """Tell the mirror of the recycles and burns this step recorded before its card."""
        steps = [*self.hand.recycle_list, *(c for c in self.hand.card_list if c.receiver == Receiver.BURN)]
        for step in sorted((s for s in steps if s.seq > self.synced), key=lambda s: s.seq):
            if step in self.hand.recycle_list:
                # A physical recycle leaving hands face down holds their ranks as possible: the
                # mirror, which knows every card, refills with exactly what is off the table.
                self.mirror.recycle(list(self.mirror.shoe.remaining) if step.hidden else step.ranks)
                self.deck = []
            else:
                self.mirror.burn(step.rank)

    def decide(self, due) -> None:
        action = self.choose(due)
        seq = self.hand.seq
        self.hand = hand_decide(hand=self.hand, action=action, by=self.by, expected_seq=seq, key=key())
        self.mirror.act(action)
        self.synced = self.hand.seq
