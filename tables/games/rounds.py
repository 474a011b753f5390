"""Games played in rounds to a score (Pairs aside): what a round's result tells the next round.

The points and bidding games (Port, Sweep, Kitty, Venture, Five Cards, Pickup) each play one round
(a hand) per engine object, the scores going in as its stakes; the round's result says whether the
game is over and, where the next round needs it, who starts it or which deal it is.
"""

POINTS_GAMES = ("port", "sweep", "kitty", "venture", "five_cards", "pickup")
# Dealt whole from a fresh shuffle every round, with no burn (RULINGS.md "Points and bidding games"):
# every points game but Port, which deals round after round from one deck.
WHOLE_DECK = ("sweep", "kitty", "venture", "five_cards", "pickup")


def next_round_state(result: dict) -> dict:
    """The game state the next round of a points game starts from: its starter (Five Cards), the
    number of its deal (Venture); nothing for the others."""
    state = {"first": result["next_first"]} if "next_first" in result else {}
    return {**state, "deal": result["deal"] + 1} if "deal" in result else state


def next_round_seats(result: dict, players: list[int]) -> list[int]:
    """The seats the next round deals: a Port playoff's tied players, else every player."""
    return sorted(result.get("playoff") or players)
