"""Helpers for the secret-hand games' tests: deal hands as the dealer would, then play steps."""

from __future__ import annotations

from tables.games import CardDue, new_game
from tables.games.base import CardEvent, DecisionEvent


def start(game: str, hands: dict[int, list], chips: int = 50, carry: int = 0, shoe=None, **options):
    """A game for the seats of `hands`, each with `chips`, whose face-down hands are `hands`
    (None: a card dealt face down at a physical table). No collection unless `options` name one."""
    options.setdefault("collection", "none")
    seats = list(hands)
    g = new_game(game, seats, {seat: chips for seat in seats}, options, carry, shoe)
    left = {seat: list(cards) for seat, cards in hands.items()}
    while isinstance(g.next, CardDue) and g.next.face_down and g.next.why == "deal":
        g.deal(left[g.next.seat].pop(0))
    return g


def play(g, *steps):
    """Feed cards (ints or None) and decisions (tuples) in order."""
    for step in steps:
        if isinstance(step, tuple):
            g.act(step)
        else:
            g.deal(step)
    return g


def public_record(g) -> tuple[list, list]:
    """The hand as a physical table records it: face-down cards unseen (None), decisions as made."""
    cards = [None if e.face_down else e.rank for e in g.transcript if isinstance(e, CardEvent)]
    decisions = [e.action.as_record() for e in g.transcript if isinstance(e, DecisionEvent)]
    return cards, decisions


def play_at_random(game, rng) -> tuple[list, list]:
    """Play `game` to its end at random: each card from what its shoe still holds (a pile's card
    from the pile), each decision among the legal choices; return the cards and decisions fed."""
    cards, decisions = [], []
    while not game.finished:
        due = game.next
        if isinstance(due, CardDue):
            rank = rng.choice(due.ranks if due.pile else [r for r, n in enumerate(game.shoe.remaining) if n])
            cards.append(rank)
            game.deal(rank)
        else:
            choice = rng.choice(due.choices)
            decisions.append(choice)
            game.act(choice)
    return cards, decisions
