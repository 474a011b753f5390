"""Cards, shoes and the low-card contest shared by every Pairs game.

Only ranks matter: a Pairs deck holds rank r exactly r times (55 cards), and a
shoe of D decks holds D*r cards of rank r. Nothing here draws a card: cards are
fed in from outside (keyed by a dealer or drawn from a simulation's own shoe).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable

from .errors import IllegalAction

RANKS = tuple(range(1, 11))
DECK_SIZE = sum(RANKS)  # 55
MIN_DECKS, MAX_DECKS = 1, 8


def check_rank(rank: object) -> int:
    """Return `rank` if it is a card rank (1 to 10), else raise IllegalAction."""
    if isinstance(rank, bool) or not isinstance(rank, int) or rank not in RANKS:
        raise IllegalAction(f"A card must be a rank from 1 to 10, not {rank!r}.")
    return rank


def composition(decks: int) -> tuple[int, ...]:
    """Cards of each rank in a fresh shoe, indexed by rank (index 0 unused)."""
    if isinstance(decks, bool) or not isinstance(decks, int) or not MIN_DECKS <= decks <= MAX_DECKS:
        raise IllegalAction(f"A shoe holds {MIN_DECKS} to {MAX_DECKS} decks, not {decks!r}.")
    return (0,) + tuple(decks * r for r in RANKS)


class Shoe:
    """What ranks a shoe can still give: its composition less the cards seen.

    `remaining` may be passed to start from a shoe that has already dealt
    (a live table passes what its shoe still holds); `unseen` counts cards
    that left it face down, so `len()` is the number of cards physically left.
    """

    def __init__(self, decks: int = 1, remaining: Iterable[int] | None = None, unseen: int = 0):
        self.decks = decks
        self.full = composition(decks)
        self.remaining = list(self.full if remaining is None else remaining)
        if len(self.remaining) != 11 or any(not 0 <= self.remaining[r] <= self.full[r] for r in RANKS):
            raise IllegalAction(f"A {decks}-deck shoe cannot hold {self.remaining[1:]!r}.")
        # Cards gone face down (a physical shoe's burns): their ranks still
        # count as possible, but they are no longer in the shoe to be dealt.
        self.unseen = unseen

    def __len__(self) -> int:
        return max(sum(self.remaining) - self.unseen, 0)

    def check(self, rank: object) -> int:
        """Raise IllegalAction unless the shoe can still give `rank`."""
        check_rank(rank)
        if self.remaining[rank] == 0:
            raise IllegalAction(
                f"The shoe cannot hold another {rank}: all {self.full[rank]} of them are already out."
            )
        return rank

    def take(self, rank: int) -> None:
        self.check(rank)
        self.remaining[rank] -= 1

    def hide(self) -> None:
        """A card left face down with its rank unseen (a physical table's hidden deal)."""
        if not len(self):
            raise IllegalAction("The shoe is empty: there is no card left to deal face down.")
        self.unseen += 1

    def put_back(self, rank: int) -> None:
        if self.remaining[rank] >= self.full[rank]:
            raise IllegalAction(f"Every {rank} is already in the shoe; none can be put back.")
        self.remaining[rank] += 1


class Hand:
    """A player's face-down cards, as the engine knows them.

    A system shoe deals each card with its rank (`known`); a physical table
    deals it as None (`unknown` counts them), so its rank stays possible in the
    shoe until it is revealed. A reveal names a rank: a known card must be
    there (the shoe's committed order), an unknown one must be a rank the shoe
    could still have given, and the shoe then counts it as seen.
    """

    def __init__(self) -> None:
        self.known: list[int] = []
        self.unknown = 0

    def __len__(self) -> int:
        return len(self.known) + self.unknown

    def __repr__(self) -> str:
        return f"Hand(known={sorted(self.known)!r}, unknown={self.unknown})"

    def add(self, rank: int | None) -> None:
        if rank is None:
            self.unknown += 1
        else:
            self.known.append(rank)

    def check_reveal(self, ranks, shoe: Shoe, owner: str = "The hand") -> None:
        """Raise IllegalAction unless this hand could hold every one of `ranks` together."""
        known = list(self.known)
        unknown, seen = self.unknown, [0] * len(shoe.remaining)
        for rank in ranks:
            check_rank(rank)
            if rank in known:
                known.remove(rank)
            elif unknown and shoe.remaining[rank] > seen[rank]:
                unknown, seen[rank] = unknown - 1, seen[rank] + 1
            elif not self.unknown:
                # Never list what the hand holds: the refusal is shown on the dealer's screen.
                raise IllegalAction(f"{owner} holds no {rank}.")
            else:
                raise IllegalAction(f"{owner} cannot hold another {rank}: every {rank} is accounted for.")

    def reveal(self, rank: int, shoe: Shoe) -> None:
        """Take `rank` out of the hand (checked with `check_reveal` first)."""
        if rank in self.known:
            self.known.remove(rank)
        else:
            self.unknown -= 1
            shoe.unseen -= 1
            shoe.remaining[rank] -= 1

    def reveal_all(self, ranks, shoe: Shoe) -> None:
        for rank in ranks:
            self.reveal(rank, shoe)

    def choices(self) -> tuple[int, ...]:
        """The distinct ranks a fully known hand could reveal; empty while any card is unknown."""
        return () if self.unknown else tuple(sorted(set(self.known)))


def natural(rank: int) -> int:
    """The usual order for low card: 1 is lowest."""
    return rank


class LowCard:
    """Who goes first: the single lowest card, ties broken with more cards.

    Every seat gets one card in seat order; while several seats share the lowest
    card of the latest round, each of them gets one more card, in seat order,
    and only the new cards are compared. With `replace_pairs` (Pairs, Starboard)
    a card that pairs its receiver's stack is discarded and the seat is dealt
    again; without it (Blackstone) the card simply stays.

    `stacks` is the game's own mapping of seat to cards held; the contest adds
    the cards it keeps to it.
    """

    def __init__(
        self,
        seats: Iterable[int],
        stacks: dict[int, list[int]],
        *,
        replace_pairs: bool = True,
        key: Callable[[int], int] = natural,
    ):
        self.stacks = stacks
        self.replace_pairs = replace_pairs
        self.key = key
        self._round: list[int] = list(seats)
        self._cards: dict[int, int] = {}
        self.rounds = 0  # completed rounds: after the first, cards are tie-breakers
        self.winner: int | None = None

    @property
    def seat(self) -> int | None:
        """The seat that receives the next card, or None once decided."""
        if self.winner is not None:
            return None
        return self._round[len(self._cards)]

    @property
    def is_tiebreak(self) -> bool:
        return self.rounds > 0

    def would_discard(self, rank: int) -> bool:
        return self.replace_pairs and rank in self.stacks[self.seat]

    def feed(self, rank: int) -> bool:
        """Give `rank` to the seat due; return False if it was discarded as a pair."""
        seat = self.seat
        if self.would_discard(rank):
            return False
        self.stacks[seat].append(rank)
        self._cards[seat] = rank
        if len(self._cards) == len(self._round):
            self._close_round()
        return True

    def settle_if_stuck(self, cards_left: int) -> None:
        """A tie no card can break, no card being left to deal (`cards_left`: the shoe's, and
        its discards a recycle would refill it with): the tied seat met first clockwise from the
        dealer's left starts (RULINGS.md, "Tables, seats and games": "after recycling"). The
        secret-hand games call it. They judge by the cards physically left, not by the ranks
        the shoe could hold: with hands dealt face down a physical table cannot know those, and
        a hand must replay the same from what was revealed. Pairing cards are dealt and
        replaced until then."""
        if self.winner is None and self.is_tiebreak and cards_left <= 0:
            self.winner = self._round[0]

    def _close_round(self) -> None:
        low = min(self.key(r) for r in self._cards.values())
        tied = [s for s in self._round if self.key(self._cards[s]) == low]
        self.rounds += 1
        if len(tied) == 1:
            self.winner = tied[0]
        else:
            self._round, self._cards = tied, {}
