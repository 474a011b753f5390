"""What the house collects on a pot game: the `collection` house rule.

Blackstone, Starboard and Pairs played for money earn the house nothing unless
it collects (RULINGS.md "House revenue on pot games"). Each pot game's options
carry one of four modes, with their amounts:

- rake (the default): when a pot is paid out, the house takes `rake_percent` of
  it, rounded down to whole units and at most `rake_cap`, before the split. A
  pot that carries whole is not raked; carried units are raked once, when paid.
- fee: every player dealt into a game pays `fee` units to the house as the game
  starts, from the chips in front of them; a player who cannot pay cannot sit in.
- time: every seated player pays `time_fee` units at the start of each
  `time_minutes` of seat time. The table services charge it on the clock
  (tables/services/collection.py); the engine collects nothing.
- none: no collection.

A hand recorded before this rule existed has no `collection` in its options and
replays as none (`HandSetup.from_record`). The house's take is an Entry for the
party "house", which the table services book to the table's rake account.
"""

from __future__ import annotations

from dataclasses import dataclass

from .base import Entry, Options
from .errors import IllegalAction

RAKE, FEE, TIME, NONE = "rake", "fee", "time", "none"
MODES = (RAKE, FEE, TIME, NONE)
HOUSE = "house"
DEFAULT_RAKE_PERCENT = 5
DEFAULT_RAKE_CAP = 10
DEFAULT_FEE = 1
DEFAULT_TIME_FEE = 5
DEFAULT_TIME_MINUTES = 30
PERCENT = 100  # rake_percent is a whole percentage
MAX_RAKE_PERCENT = 100  # the house cannot take more than the pot
RAKE_REASON = "rake"
FEE_REASON = "collection fee"


def _is_units(value: object) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


@dataclass(frozen=True)
class CollectionOptions(Options):
    """The house rules of collection, shared by every pot game's options (see the module
    docstring). Only the amounts of the mode in force are used; the others stay recorded at their
    defaults."""

    collection: str = RAKE
    rake_percent: int = DEFAULT_RAKE_PERCENT
    rake_cap: int = DEFAULT_RAKE_CAP
    fee: int = DEFAULT_FEE
    time_fee: int = DEFAULT_TIME_FEE
    time_minutes: int = DEFAULT_TIME_MINUTES

    def validate(self) -> None:
        if self.collection not in MODES:
            raise IllegalAction(
                f"Unknown collection {self.collection!r}; expected one of {', '.join(MODES)}."
            )
        if not _is_units(self.rake_percent) or not 0 <= self.rake_percent <= MAX_RAKE_PERCENT:
            raise IllegalAction(f"The rake is a whole percentage from 0 to 100, not {self.rake_percent!r}.")
        for name in ("rake_cap", "fee", "time_fee"):
            value = getattr(self, name)
            if not _is_units(value) or value < 0:
                raise IllegalAction(f"The {name.replace('_', ' ')} must be whole units, not {value!r}.")
        if not _is_units(self.time_minutes) or self.time_minutes < 1:
            raise IllegalAction(f"The time period is a whole number of minutes, not {self.time_minutes!r}.")

    def rake(self, pot: int) -> int:
        """What the house takes from a pot of `pot` units paid out: rake_percent of it, rounded
        down, at most rake_cap; nothing unless the table rakes."""
        if self.collection != RAKE:
            return 0
        return min(pot * self.rake_percent // PERCENT, self.rake_cap)

    @property
    def game_fee(self) -> int:
        """What each player dealt into a game pays the house as it starts (fee mode only)."""
        return self.fee if self.collection == FEE else 0


def fee_entries(options: CollectionOptions, seats) -> list[Entry]:
    """Each seat pays the game's fee to the house (nothing unless the table charges a fee)."""
    fee = options.game_fee
    if not fee:
        return []
    pairs = ((Entry(seat, -fee, FEE_REASON), Entry(HOUSE, fee, FEE_REASON)) for seat in seats)
    return [entry for pair in pairs for entry in pair]


def rake_entries(options: CollectionOptions, pot: int) -> tuple[list[Entry], int]:
    """The house's rake out of a pot of `pot` paid out, as pot-to-house entries, and the pot left
    to split."""
    rake = options.rake(pot)
    if not rake:
        return [], pot
    return [Entry("pot", -rake, RAKE_REASON), Entry(HOUSE, rake, RAKE_REASON)], pot - rake
