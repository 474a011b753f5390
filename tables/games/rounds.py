"""Games played in rounds to a score (Pairs aside): what a round's result tells the next round.

The points and bidding games (Port, Sweep, Kitty, Venture, Five Cards, Pickup) each play one round
(a hand) per engine object, the scores going in as its stakes; the round's result says whether the
game is over and, where the next round needs it, who starts it or which deal it is. Played for
stakes (`PointsOptions.point_value`), a game's end moves money: `stakes_entries`; a player who
leaves such a game loses it, and it settles at once: `leaver_settlement`.
"""

from collections.abc import Mapping
from dataclasses import dataclass

from .base import DecisionDue, Entry, Move, Settlement
from .collection import CollectionOptions, fee_entries, rake_entries
from .errors import IllegalAction

DIFFERENCE = "difference in scores"
# Who pays when a player leaves a game played for stakes (`PointsOptions.walkout`).
LEAVER, EVERYONE = "leaver", "everyone"

POINTS_GAMES = ("port", "sweep", "kitty", "venture", "five_cards", "pickup")
# Dealt whole from a fresh shuffle every round, with no burn (RULINGS.md "Points and bidding games"):
# every points game but Port, which deals round after round from one deck.
WHOLE_DECK = ("sweep", "kitty", "venture", "five_cards", "pickup")
# Games dealt on from one deck, round after round or game after game (Port's rounds, Regent's games),
# unless the table's house rule asks for a fresh deck every one: the option, and the word for it.
NEW_DECK_OPTIONS = {"port": ("new_deck_each_round", "round"), "regent": ("new_deck_each_game", "game")}


def new_deck_each(game: str, options: Mapping[str, object]) -> bool:
    """Whether a table of `game` with house rules `options` shuffles a fresh deck for every round or
    game where the game would deal on (`NEW_DECK_OPTIONS`): the one reading of the option, for the
    table (`tables.services.shoes.fresh_deck_due`) and the simulation alike."""
    option = NEW_DECK_OPTIONS.get(game)
    return option is not None and bool(options.get(option[0]))


def next_round_state(result: dict) -> dict:
    """The game state the next round of a points game starts from: its starter (Five Cards), the
    number of its deal (Venture); nothing for the others."""
    state = {"first": result["next_first"]} if "next_first" in result else {}
    return {**state, "deal": result["deal"] + 1} if "deal" in result else state


def next_round_seats(result: dict, players: list[int]) -> list[int]:
    """The seats the next round deals: a Port playoff's tied players, else every player."""
    return sorted(result.get("playoff") or players)


@dataclass(frozen=True)
class PointsOptions(CollectionOptions):
    """Playing a points game for stakes (issue 21.3): `point_value` coins a point (0: scored for
    nothing, no money moves) and the house's collection (RULINGS.md "House revenue on pot games"),
    which applies only when the game is played for stakes. `walkout`: who pays when a player leaves
    a game played for stakes (`leaver_settlement`): the `leaver` alone (the default), or `everyone`
    but the winner, as at the game's end."""

    point_value: int = 0
    walkout: str = LEAVER

    def validate(self) -> None:
        super().validate()
        value = self.point_value
        if isinstance(value, bool) or not isinstance(value, int) or value < 0:
            raise IllegalAction(f"point_value is whole coins a point, 0 or more, not {value!r}.")
        if self.walkout not in (LEAVER, EVERYONE):
            raise IllegalAction(f"walkout is {LEAVER} or {EVERYONE}, not {self.walkout!r}.")


def stakes_entries(options: PointsOptions, seats, scores: dict, winners, *, first: bool, over: bool):
    """A points round's money, when the game is played for stakes: the fee from each player on a
    game's first round (fee collection); at the game's end, each loser pays the winner the difference
    in scores times the point value (Kitty's gambling rule, the rate for the others), into a pot the
    house rakes (rake collection); tied winners split it and odd coins carry to the next game."""
    if not options.point_value:
        return []
    entries = fee_entries(options, seats) if first else []
    if not over:
        return entries
    top = scores[winners[0]]
    value = options.point_value
    owed = {seat: (top - score) * value for seat, score in scores.items() if seat not in winners}
    for seat, amount in owed.items():
        if amount:
            entries += [Entry(seat, -amount, DIFFERENCE), Entry("pot", amount, DIFFERENCE)]
    rake, left = rake_entries(options, sum(owed.values()))
    share, odd = divmod(left, len(winners))
    entries += rake + [entry for seat in winners for entry in _from_pot(seat, share, DIFFERENCE)]
    return entries + _from_pot("carry", odd, "odd coins carried")


def leaver_settlement(options: PointsOptions, scores: dict, leaver: int, *, carry: int) -> Settlement:
    """A points game played for stakes that `leaver` leaves: they lose it, and it ends at once
    (RULINGS.md "Tables, seats and games", ruled alike for these games). The scores stand as they
    are; the highest score of the players who stay wins (tied, they split it). The leaver pays as a
    loser, the difference times the point value, and never less than nothing: a leaver who leads
    gives up the game and pays nothing. Under `walkout` `everyone`, every other player but the
    winners pays the difference too, as at the game's end; under `leaver` (the default) nobody else
    pays: they did not end the game. Collection as at the game's end (no fee: it is no first
    round). A replay of the records: the same answer every time it is asked."""
    staying = {seat: score for seat, score in scores.items() if seat != leaver}
    top = max(staying.values())
    winners = sorted(seat for seat, score in staying.items() if score == top)
    payers = staying if options.walkout == EVERYONE else dict.fromkeys(winners, top)
    standing = {**payers, leaver: min(scores[leaver], top)}
    entries = stakes_entries(options, list(scores), standing, winners, first=False, over=True)
    result = {"event": "left", "loser": leaver, "scores": scores, "winners": winners, "game_over": True}
    return Settlement.from_entries(list(scores), entries, carry_in=carry, result=result)


def _from_pot(party, amount: int, reason: str) -> list:
    return [Entry(party, amount, reason), Entry("pot", -amount, reason)] if amount else []


def round_settlement(game, result: dict, *, first: bool) -> Settlement:
    """A points round's Settlement: its result, and at a game played for stakes its money
    (`stakes_entries`): the fee on the game's `first` round, the difference in scores at its end."""
    winners = result.get("winners") or ([result["winner"]] if result.get("winner") is not None else [])
    over = bool(result["game_over"] and winners)
    entries = stakes_entries(game.options, game.seats, result["scores"], winners, first=first, over=over)
    # Every player of the game is a party: a Port playoff's players out of it pay at its end too.
    return Settlement.from_entries(list(result["scores"]), entries, carry_in=game.carry_in, result=result)


def check_scores(seats, stakes, *, negative: bool = False) -> None:
    """Every seat dealt in has its game score going in, a whole number (0 or more, unless scores
    run `negative`, as Venture's do)."""
    if set(stakes) != set(seats):
        raise IllegalAction(f"Every seat needs its game score going in: seats {tuple(seats)}.")
    for seat, score in stakes.items():
        if isinstance(score, bool) or not isinstance(score, int) or (score < 0 and not negative):
            raise IllegalAction(f"Seat {seat}'s score must be a whole number of points, not {score!r}.")


class ShowHands:
    """The end of a game whose hands score (Kitty, Sweep): every player shows the whole hand, named
    card by card and checked against what it could hold, in seat order; then `_score`."""

    def _show_due(self) -> DecisionDue:
        seat = self.seats[len(self.shown)]
        hand = self.hands[seat]
        choices = () if hand.unknown else (("show", *sorted(hand.known)),)
        return DecisionDue(seat, (Move.SHOW,), choices=choices)

    def _check_show(self, seat: int, ranks) -> None:
        hand = self.hands[seat]
        if len(ranks) != len(hand) or None in ranks:
            raise IllegalAction(f"Seat {seat} shows all {len(hand)} cards of the hand.")
        hand.check_reveal(ranks, self.shoe, f"Seat {seat}'s hand")

    def _show(self, ranks) -> None:
        seat = self.seats[len(self.shown)]
        self.hands[seat].reveal_all(ranks, self.shoe)
        self.shown[seat] = tuple(sorted(ranks))
        if len(self.shown) == len(self.seats):
            self._score()
