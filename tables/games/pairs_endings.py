"""How a finished Pairs game is paid: the forfeit and gambling endings.

A Pairs game has one loser, the first player to reach the losing score. What
money changes hands then depends on the table's ending (RULINGS.md 'Pairs'):

- forfeit: no money.
- downspear (the booklet also calls it seattle): the loser pays 1 to every other player.
- norland: the loser pays 1 to each lowest scorer.
- tacoma: the loser pays a fixed amount (6 by default), split among the lowest scorers.
- cutchfeld: the loser pays their score, split among the lowest scorers.
- olympia: the loser pays the difference between their score and the lowest score,
  split among the lowest scorers.
- portland: the loser pays every other player the difference between their scores.

The loser always pays the full amount. Odd units of a split stay in the table's
pot for the next game ("carry"). A carried-in pot joins the next prize that goes
to the game's winners as one sum (Tacoma, Cutchfeld, Olympia, and a Five Card
Catch) and is paid out with it; under forfeit, Downspear, Norland and Portland
nobody wins a prize as such, so the pot stays carried.

Five Card Catch (played with Cutchfeld) has a winner and no loser: every other
player pays the winner their own score.

The house's rake (`tables.games.collection`) is taken from the prize the loser
pays, with any carried pot it collects, before the split; under the endings
where the loser pays each player their own amount (Downspear, Norland,
Portland) the prize is the sum the loser pays, and the rake comes out of the
largest payments, one unit at a time (the first such seat in seat order on a
tie), so the rake evens the payments out rather than
wiping out the smallest. A Five Card Catch's prize is everything the winner
collects. The loser, or each payer, always pays the full amount.
"""

from __future__ import annotations

from collections.abc import Mapping

from .base import Entry, Settlement
from .collection import HOUSE, RAKE_REASON, CollectionOptions
from .errors import IllegalAction

FORFEIT, DOWNSPEAR, SEATTLE, NORLAND = "forfeit", "downspear", "seattle", "norland"
TACOMA, CUTCHFELD, OLYMPIA, PORTLAND = "tacoma", "cutchfeld", "olympia", "portland"
ENDINGS = (FORFEIT, DOWNSPEAR, SEATTLE, NORLAND, TACOMA, CUTCHFELD, OLYMPIA, PORTLAND)
# The booklet's Seattle rules and the deck's Downspear rules are the same ending.
ALIASES = {SEATTLE: DOWNSPEAR}
# Endings whose prize goes to the lowest scorers as one sum: only these split,
# leave odd units, and collect a carried-in pot.
SPLIT_ENDINGS = (TACOMA, CUTCHFELD, OLYMPIA)
# The booklet suggests 6 for Tacoma because it divides by 2 and 3, the usual ties.
DEFAULT_TACOMA_AMOUNT = 6
MIN_PLAYERS = 2


def canonical_ending(ending: str) -> str:
    """The ending's own name (seattle reads as downspear); IllegalAction if unknown."""
    if ending not in ENDINGS:
        raise IllegalAction(f"Unknown Pairs ending {ending!r}; expected one of {', '.join(ENDINGS)}.")
    return ALIASES.get(ending, ending)


def is_gambling(ending: str) -> bool:
    """True when the ending moves money (every ending but forfeit)."""
    return canonical_ending(ending) != FORFEIT


def settle_game(
    scores: Mapping[int, int],
    *,
    ending: str,
    loser: int | None,
    tacoma_amount: int = DEFAULT_TACOMA_AMOUNT,
    carry: int = 0,
    five_card_winner: int | None = None,
    collection: CollectionOptions | None = None,
) -> Settlement:
    """Pay a finished Pairs game under `ending`.

    `scores` maps every seat to its final score; `loser` is the seat that
    reached the losing score (None when the game ended in a Five Card Catch,
    whose winner is `five_card_winner`); `carry` is the pot carried in from the
    table's last game; `collection` the house's (None: it collects nothing), whose
    rake comes out of the prize. Returns a Settlement whose `result` names the
    ending, the loser, the winners paid and the five-card winner.
    """
    name = canonical_ending(ending)
    scores = _checked_scores(scores)
    house = collection if collection is not None else CollectionOptions(collection="none")
    _check_amount("carried pot", carry, minimum=0)
    if five_card_winner is not None:
        entries, winners = _five_card_entries(scores, name, loser, five_card_winner, carry, house)
    else:
        _check_loser(scores, loser)
        _check_amount("Tacoma amount", tacoma_amount, minimum=1)
        entries, winners = _ENDING_ENTRIES[name](scores, loser, tacoma_amount, carry, house)
    result = {"ending": name, "loser": loser, "winners": winners, "five_card_winner": five_card_winner}
    return Settlement.from_entries(tuple(scores), entries, carry_in=carry, result=result)


def _checked_scores(scores: Mapping[int, int]) -> dict[int, int]:
    if len(scores) < MIN_PLAYERS:
        raise IllegalAction(f"A Pairs game has at least {MIN_PLAYERS} players, not {len(scores)}.")
    for seat, score in scores.items():
        _check_amount(f"score of seat {seat}", score, minimum=0)
    return dict(scores)


def _check_amount(what: str, value: object, *, minimum: int) -> None:
    if isinstance(value, bool) or not isinstance(value, int) or value < minimum:
        raise IllegalAction(f"The {what} must be a whole number of at least {minimum}, not {value!r}.")


def _check_loser(scores: dict[int, int], loser: int | None) -> None:
    if loser not in scores:
        raise IllegalAction(f"The loser must be one of the seats {tuple(scores)}, not {loser!r}.")
    # Only one player can reach the losing score, on the hand that ends the game.
    if any(score >= scores[loser] for seat, score in scores.items() if seat != loser):
        raise IllegalAction(f"Seat {loser} cannot be the loser: another player's score is as high.")


def _lowest(scores: dict[int, int], loser: int) -> list[int]:
    low = min(score for seat, score in scores.items() if seat != loser)
    return [seat for seat, score in scores.items() if seat != loser and score == low]


def _pay_each(loser: int, amounts: dict[int, int], reason: str, house: CollectionOptions) -> list[Entry]:
    """The loser pays each listed player an amount of their own (no split, no carry), less the
    house's rake on the sum, taken from the largest payments first."""
    paid = {seat: amount for seat, amount in amounts.items() if amount}
    if not paid:
        return []
    prize = sum(paid.values())
    entries = [Entry(loser, -prize, f"{reason}: the loser pays")]
    rake = house.rake(prize)
    for _ in range(rake):
        largest = max(paid, key=paid.__getitem__)  # max() keeps the first in seat order on a tie
        paid[largest] -= 1
    if rake:
        entries.append(Entry(HOUSE, rake, RAKE_REASON))
    entries += [Entry(seat, amount, f"{reason}: paid by the loser") for seat, amount in paid.items()
                 if amount]
    return entries


def _split(
    loser: int, prize: int, winners: list[int], carry: int, reason: str, house: CollectionOptions
) -> list[Entry]:
    """The loser pays `prize`; with the carried pot, less the house's rake, it is shared by
    `winners`, odd units carry."""
    entries = [Entry(loser, -prize, f"{reason}: the loser pays {prize}"), Entry("pot", prize, reason)]
    if carry:
        entries += [Entry("carry", -carry, "the carried pot joins the prize"), Entry("pot", carry, reason)]
    rake = house.rake(prize + carry)
    if rake:
        entries += [Entry("pot", -rake, RAKE_REASON), Entry(HOUSE, rake, RAKE_REASON)]
    share, odd = divmod(prize + carry - rake, len(winners))
    for seat in winners:
        if share:
            entries += [Entry(seat, share, f"{reason}: share of the prize"), Entry("pot", -share, reason)]
    if odd:
        entries += [Entry("pot", -odd, reason), Entry("carry", odd, "odd units stay for the next game")]
    return entries


def _forfeit(scores, loser, tacoma_amount, carry, house):
    return [], []


def _downspear(scores, loser, tacoma_amount, carry, house):
    others = [seat for seat in scores if seat != loser]
    return _pay_each(loser, dict.fromkeys(others, 1), "Downspear", house), others


def _norland(scores, loser, tacoma_amount, carry, house):
    winners = _lowest(scores, loser)
    return _pay_each(loser, dict.fromkeys(winners, 1), "Norland", house), winners


def _tacoma(scores, loser, tacoma_amount, carry, house):
    winners = _lowest(scores, loser)
    return _split(loser, tacoma_amount, winners, carry, "Tacoma", house), winners


def _cutchfeld(scores, loser, tacoma_amount, carry, house):
    winners = _lowest(scores, loser)
    return _split(loser, scores[loser], winners, carry, "Cutchfeld", house), winners


def _olympia(scores, loser, tacoma_amount, carry, house):
    winners = _lowest(scores, loser)
    difference = scores[loser] - scores[winners[0]]
    return _split(loser, difference, winners, carry, "Olympia", house), winners


def _portland(scores, loser, tacoma_amount, carry, house):
    differences = {seat: scores[loser] - score for seat, score in scores.items() if seat != loser}
    return _pay_each(loser, differences, "Portland", house), list(differences)


_ENDING_ENTRIES = {
    FORFEIT: _forfeit,
    DOWNSPEAR: _downspear,
    NORLAND: _norland,
    TACOMA: _tacoma,
    CUTCHFELD: _cutchfeld,
    OLYMPIA: _olympia,
    PORTLAND: _portland,
}


def _five_card_entries(scores, name, loser, winner, carry, house):
    """Five Card Catch: every other player pays the winner their own score; the
    winner is the game's only prize-taker, so a carried pot goes to them too. The
    house's rake comes out of all the winner collects."""
    if name != CUTCHFELD:
        raise IllegalAction(f"Five Card Catch is played only with Cutchfeld, not {name}.")
    if loser is not None:
        raise IllegalAction("A game won by a Five Card Catch has no loser.")
    if winner not in scores:
        raise IllegalAction(f"The five-card winner must be one of the seats {tuple(scores)}, not {winner!r}.")
    entries = []
    for seat, score in scores.items():
        if seat != winner and score:
            entries += [Entry(seat, -score, "Five Card Catch: pays own score"),
                        Entry(winner, score, f"Five Card Catch: paid by seat {seat}")]
    if carry:
        entries += [
            Entry("carry", -carry, "the carried pot goes to the winner"),
            Entry(winner, carry, "Five Card Catch: the carried pot"),
        ]
    rake = house.rake(sum(entry.amount for entry in entries if entry.party == winner))
    if rake:
        entries += [Entry(winner, -rake, RAKE_REASON), Entry(HOUSE, rake, RAKE_REASON)]
    return entries, [winner]
