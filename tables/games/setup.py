"""A hand's setup: everything its game is started with, as one record.

The setup names the game, the seats playing (clockwise from the dealer's left), each seat's stake
(Rocket: its bet; Blackstone and Starboard: the chips in front of it; Pairs: its score going in),
the house rules in force (with the facts of this one hand that the rules read as options: Rocket's
`previous_button`, Starboard's `button`), the pot carried in, the game state carried from the
previous hand (Continuous Pairs: `in_play` and `to_act`) and what the shoe held: its decks, the
cards of each rank it could still give, and how many of those had left it face down.

`to_record()` is its JSON form, which a table stores once with each hand; `from_record()` reads it
back, and `start()` is the game before its first card. A hand replays from its setup and its
records: `game.deal(rank)` for each revealed card, `game.act(action)` for each decision,
`game.burn(rank)` for each card burned and `game.recycle(ranks)` for each recycle, in the order
they happened. A hand with no burn or recycle during it replays with the documented
`replay(cards=..., decisions=..., **setup.arguments())`.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from .base import Game
from .cards import Shoe
from .collection import NONE, CollectionOptions
from .replay import games, new_game

IN_PLAY = "in_play"  # Continuous Pairs' stacks carried in: seat -> ranks, seat keys written as text


@dataclass(frozen=True)
class HandSetup:
    """What a hand's game starts from (see the module docstring). Seats are ints here and text
    in the record, as JSON keeps them."""

    game: str
    seats: tuple[int, ...]
    stakes: Mapping[int, int]
    options: Mapping[str, Any] = field(default_factory=dict)
    carry: int = 0
    state: Mapping[str, Any] = field(default_factory=dict)
    decks: int = 1
    remaining: tuple[int, ...] | None = None  # cards of each rank (index 0 unused); None: a full shoe
    unseen: int = 0

    def shoe(self) -> Shoe:
        """A new engine shoe holding what the shoe held when the hand began."""
        return Shoe(self.decks, self.remaining, self.unseen)

    def arguments(self) -> dict[str, Any]:
        """The keyword arguments of `new_game` (and, with `cards` and `decisions`, of `replay`)."""
        return {
            "game": self.game,
            "seats": tuple(self.seats),
            "stakes": dict(self.stakes),
            "options": dict(self.options),
            "carry": self.carry,
            "shoe": self.shoe(),
            **self.state,
        }

    def start(self) -> Game:
        """The game before its first card; IllegalAction if the rules refuse this setup."""
        return new_game(**self.arguments())

    def to_record(self) -> dict[str, Any]:
        """The setup as JSON-able values, exactly as a JSON column gives them back."""
        return {
            "game": self.game,
            "seats": list(self.seats),
            "stakes": {str(seat): stake for seat, stake in self.stakes.items()},
            "options": dict(self.options),
            "carry": self.carry,
            "state": _state_record(self.state),
            "shoe": {"decks": self.decks, "remaining": list(self.shoe().remaining), "unseen": self.unseen},
        }

    @classmethod
    def from_record(cls, record: Mapping[str, Any]) -> HandSetup:
        """Read a setup written by `to_record`. A pot game's hand recorded before the house's
        collection was an option has none in its options: it collected nothing, and replays so."""
        shoe = record["shoe"]
        return cls(
            game=record["game"],
            seats=tuple(record["seats"]),
            stakes={int(seat): stake for seat, stake in record["stakes"].items()},
            options=_options_from_record(record["game"], record["options"]),
            carry=record["carry"],
            state=_state_from_record(record["state"]),
            decks=shoe["decks"],
            remaining=tuple(shoe["remaining"]),
            unseen=shoe["unseen"],
        )


def _options_from_record(game: str, options: Mapping[str, Any]) -> dict[str, Any]:
    rules = games().get(game)
    if rules is not None and issubclass(rules.Options, CollectionOptions) and "collection" not in options:
        return {**options, "collection": NONE}
    return dict(options)


def _state_record(state: Mapping[str, Any]) -> dict[str, Any]:
    record = dict(state)
    if IN_PLAY in record:
        record[IN_PLAY] = {str(seat): list(ranks) for seat, ranks in record[IN_PLAY].items()}
    return record


def _state_from_record(record: Mapping[str, Any]) -> dict[str, Any]:
    state = dict(record)
    if IN_PLAY in state:
        state[IN_PLAY] = {int(seat): list(ranks) for seat, ranks in state[IN_PLAY].items()}
    return state
