"""The rules engine: Rocket, Blackstone, Starboard, Pairs and the secret-hand games as state machines.

Pure Python: nothing here imports Django, reads a clock, draws a random number
or does I/O. A live table and a simulation drive the same games; a hand is
replayed from its record with `replay`, or from its `HandSetup` step by step.
"""

from .base import Action, CardDue, DecisionDue, Entry, Finished, Move, Settlement
from .cards import Shoe
from .errors import IllegalAction
from .replay import Replay, new_game, replay
from .setup import HandSetup

__all__ = [
    "Action",
    "CardDue",
    "DecisionDue",
    "Entry",
    "Finished",
    "HandSetup",
    "IllegalAction",
    "Move",
    "Replay",
    "Settlement",
    "Shoe",
    "new_game",
    "replay",
]
