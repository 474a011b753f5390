"""Pairs (2 to 8 players): one hand of the pub game, with its variants.

A `Pairs` object plays ONE hand: one card each, low card starts (ties broken
with more cards; a tie-break card that pairs is discarded and replaced), then
each player in turn hits or folds until someone pairs or folds. That player
scores (points are bad) and the hand is over. `stakes` are the scores going
in; the hand's Settlement.result reports the scorer, the points, the card, the
new scores and whether the game is over. The hand that ends the game carries
the game's money under the table's ending (see `pairs_endings`); every other
hand moves no money.

Continuous Pairs is one long round: only the out player's stack is
discarded. There a `Pairs` object plays from one scoring event to the next;
the stacks still in play and the seat to act are passed to the next object
as `in_play` and `to_act` (Settlement.result gives both).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, replace

from .base import SEAT, Action, CardDue, DecisionDue, Finished, Game, Move, Settlement
from .cards import RANKS, LowCard, Shoe, check_rank, composition, natural
from .collection import CollectionOptions, fee_entries
from .errors import IllegalAction
from .pairs_endings import (
    CUTCHFELD,
    DEFAULT_TACOMA_AMOUNT,
    ENDINGS,
    FORFEIT,
    canonical_ending,
    settle_game,
)

MIN_PLAYERS, MAX_PLAYERS = 2, 8
# The losing-score chart (60 / players + 1, rounded as the book prints it).
LOSING_SCORES = {2: 31, 3: 21, 4: 16, 5: 13}
LOSING_SCORE_SIX_OR_MORE = 11
FIVE_CARDS = 5  # Five Card Catch: this many cards in a stack wins the game
EIGHT = 8  # Pieces of Eight: the card traded for two hits
EIGHT_CARDS = 2
CALAMITY = 7  # Calamities: lowest for who goes first, and keeps the turn on its receiver

PAIR, FOLD, FIVE_CARD_CATCH = "pair", "fold", "five_card_catch"


def losing_score(players: int) -> int:
    """The chart's losing score for a table of `players` (2 to 8)."""
    return LOSING_SCORES.get(players, LOSING_SCORE_SIX_OR_MORE)


def calamities_low(rank: int) -> int:
    """Low-card order under Calamities: a 7 is lower than a 1."""
    return 0 if rank == CALAMITY else rank


def _check_flag(name: str, value: object) -> None:
    if not isinstance(value, bool):
        raise IllegalAction(f"The house rule {name} is on (True) or off (False), not {value!r}.")


@dataclass(frozen=True)
class PairsOptions(CollectionOptions):
    """Pairs house rules: the losing score (None: the chart), the ending that pays
    the game, Tacoma's amount, Five Card Catch (Cutchfeld only), the Continuous,
    Pieces of Eight and Calamities variants, and the decks in the shoe. The
    house's collection (`tables.games.collection`): a rake on the prize of the
    game's ending, or a fee each player pays once per game, on its first round."""

    target: int | None = None
    ending: str = FORFEIT
    tacoma_amount: int = DEFAULT_TACOMA_AMOUNT
    five_card_catch: bool = False
    continuous: bool = False
    pieces_of_eight: bool = False
    calamities: bool = False
    decks: int = 1

    def validate(self) -> None:
        super().validate()
        target = self.target
        if target is not None and (isinstance(target, bool) or not isinstance(target, int) or target < 1):
            raise IllegalAction(f"The losing score must be a whole number of points above 0, not {target!r}.")
        if self.ending not in ENDINGS:
            raise IllegalAction(f"Unknown ending {self.ending!r}; expected one of {', '.join(ENDINGS)}.")
        amount = self.tacoma_amount
        if isinstance(amount, bool) or not isinstance(amount, int) or amount < 1:
            raise IllegalAction(f"The Tacoma amount must be a whole number of units above 0, not {amount!r}.")
        for name in ("five_card_catch", "continuous", "pieces_of_eight", "calamities"):
            _check_flag(name, getattr(self, name))
        if self.five_card_catch and canonical_ending(self.ending) != CUTCHFELD:
            raise IllegalAction(
                f"Five Card Catch is played only with the cutchfeld ending, not {self.ending}."
            )
        composition(self.decks)


class Pairs(Game):
    """One hand of Pairs (or, in Continuous, play up to the next scoring event).

    `stakes` maps each seat to its score going in. Keyword-only `in_play`
    (seat -> ranks held) and `to_act` (the seat whose turn it is) resume a
    Continuous game between scoring events; without them the hand starts with
    the deal for low card.
    """

    name = "pairs"
    Options = PairsOptions

    def __init__(self, seats, stakes, options=None, carry: int = 0, shoe: Shoe | None = None, *,
                 in_play: Mapping[int, list[int]] | None = None, to_act: int | None = None):
        super().__init__(seats, stakes, options, carry, shoe)
        self._check_table()
        self.stacks: dict[int, list[int]] = {seat: [] for seat in self.seats}
        self.discards: list[int] = []  # cards this hand sent to the discard pile, for recycling
        self.contest: LowCard | None = None
        self.starter: int | None = None
        self.turn: int | None = None
        self._settlement: Settlement | None = None
        self._card: tuple[int, str] | None = None  # (seat, why) of a card due outside the deal
        self._contest_why = "deal"
        self._eight_left = 0
        self._got_seven = False  # Calamities: a 7 came to the player on this turn
        if in_play is None and to_act is None:
            key = calamities_low if self.options.calamities else natural
            self.contest = LowCard(self.seats, self.stacks, replace_pairs=True, key=key)
        else:
            self._resume(in_play, to_act, fresh_shoe=shoe is None)
        self._refresh()

    # -- setting up -------------------------------------------------------

    def _check_table(self) -> None:
        players = len(self.seats)
        if not MIN_PLAYERS <= players <= MAX_PLAYERS:
            raise IllegalAction(f"Pairs is played by {MIN_PLAYERS} to {MAX_PLAYERS} players, not {players}.")
        if isinstance(self.carry_in, bool) or not isinstance(self.carry_in, int) or self.carry_in < 0:
            raise IllegalAction(f"The carried pot must be a whole number of units, not {self.carry_in!r}.")
        self.target = self.options.target or losing_score(players)
        if set(self.stakes) != set(self.seats):
            raise IllegalAction(f"Every seat needs its score going in: seats {self.seats}, "
                                f"scores given for {tuple(self.stakes)}.")
        for seat in self.seats:
            score = self.stakes[seat]
            if isinstance(score, bool) or not isinstance(score, int) or score < 0:
                raise IllegalAction(f"Seat {seat}'s score must be a whole number of points, not {score!r}.")
            if score >= self.target:
                raise IllegalAction(f"Seat {seat} already has {score} points: the game was lost at "
                                    f"{self.target}, so no hand can be dealt.")

    def _resume(self, in_play, to_act, *, fresh_shoe: bool) -> None:
        """Continuous Pairs: start from the stacks still in play, `to_act` to play."""
        if not self.options.continuous:
            raise IllegalAction("Only Continuous Pairs keeps cards in play between hands; "
                                "a basic Pairs hand starts with the deal.")
        if to_act not in self.seats or in_play is None:
            raise IllegalAction(f"Resuming Continuous Pairs needs the cards in play and the seat to act "
                                f"(one of {self.seats}), not {to_act!r}.")
        for seat, ranks in in_play.items():
            self._check_stack(seat, ranks)
            self.stacks[seat] = list(ranks)
        self._check_shoe_holds_in_play(fresh_shoe)
        self.starter = to_act
        self._begin_turn(to_act)

    def _check_stack(self, seat, ranks) -> None:
        if seat not in self.seats:
            raise IllegalAction(f"Cards are in play for seat {seat!r}, who is not at this table.")
        for rank in ranks:
            check_rank(rank)
        if len(set(ranks)) != len(ranks):
            raise IllegalAction(f"Seat {seat}'s stack {list(ranks)} holds a pair, which cannot stay in play.")
        if self.options.five_card_catch and len(ranks) >= FIVE_CARDS:
            raise IllegalAction(
                f"Seat {seat} holds {len(ranks)} cards: the Five Card Catch already ended the game."
            )

    def _check_shoe_holds_in_play(self, fresh_shoe: bool) -> None:
        """Cards in play are out of the shoe: a default shoe gives them up; a given
        shoe must not still hold them all."""
        for rank in (r for stack in self.stacks.values() for r in stack):
            if fresh_shoe:
                self.shoe.take(rank)
        full, left = self.shoe.full, self.shoe.remaining
        for rank in RANKS:
            held = sum(stack.count(rank) for stack in self.stacks.values())
            if held + left[rank] > full[rank]:
                raise IllegalAction(f"{held} card(s) of rank {rank} are in play but the shoe still holds "
                                    f"{left[rank]} of its {full[rank]}.")

    # -- what the hand waits for -------------------------------------------

    @property
    def next(self) -> CardDue | DecisionDue | Finished:
        return self._due

    def _refresh(self) -> None:
        """Work out what the hand waits for; called once after every change, so
        `next` is a plain attribute read."""
        if self._settlement is not None:
            self._due = Finished(self._settlement)
        elif self.contest is not None and self.contest.winner is None:
            self._due = CardDue(SEAT, self._contest_why, self.contest.seat)
        elif self._card is not None:
            self._due = CardDue(SEAT, self._card[1], self._card[0])
        else:
            self._due = DecisionDue(self.turn, self._moves(), fold_cards=self._fold_cards())

    def _moves(self) -> tuple[Move, ...]:
        if self.options.pieces_of_eight and EIGHT in self.stacks[self.turn]:
            return (Move.HIT, Move.FOLD, Move.EIGHT)
        return (Move.HIT, Move.FOLD)

    def _fold_cards(self) -> tuple[tuple[int, int], ...]:
        """The (seat, rank) cards a fold may take: any card in Continuous, else the lowest."""
        cards = [(seat, rank) for seat in self.seats for rank in sorted(self.stacks[seat])]
        if self.options.continuous:
            return tuple(cards)
        low = min(rank for _, rank in cards)
        return tuple(card for card in cards if card[1] == low)

    def _left(self, seat: int) -> int:
        return self.seats[(self.seats.index(seat) + 1) % len(self.seats)]

    def _begin_turn(self, seat: int) -> None:
        self.turn = seat
        self._got_seven = False
        # Continuous: a player with no cards must hit, so the card is simply due.
        self._card = None if self.stacks[seat] else (seat, "hit")

    # -- checks ------------------------------------------------------------

    def check_legal(self, due: DecisionDue, action: Action) -> None:
        if action.move is Move.EIGHT and Move.EIGHT not in due.moves:
            why = ("Pieces of Eight is not played at this table" if not self.options.pieces_of_eight
                   else f"seat {due.seat} holds no 8")
            raise IllegalAction(f"Seat {due.seat} cannot trade an 8: {why}; expected hit or fold.")
        super().check_legal(due, action)
        if action.count is not None or (action.card is not None and action.move is not Move.FOLD):
            raise IllegalAction(f"Pairs has no decision {action.as_record()!r}; expected "
                                f"('hit',) or ('fold',) or ('fold', seat, rank).")
        if action.move is Move.FOLD:
            self._check_fold(due, action.card)

    def _check_fold(self, due: DecisionDue, card) -> None:
        choices = ", ".join(f"{rank} from seat {seat}" for seat, rank in due.fold_cards)
        if card is None and self.options.continuous:
            raise IllegalAction(f"In Continuous Pairs seat {due.seat} must say which card the fold takes, "
                                f"as ('fold', seat, rank): {choices}.")
        if card is not None and card not in due.fold_cards:
            rule = "any card in play" if self.options.continuous else "the lowest card in play"
            raise IllegalAction(f"A fold takes {rule}; {card!r} is not one of: {choices}.")

    # -- cards -------------------------------------------------------------

    def _deal(self, rank: int) -> None:
        if self.contest is not None and self.contest.winner is None:
            self._deal_for_low(rank)
        else:
            self._deal_to_turn(rank)
        self._refresh()

    def _deal_for_low(self, rank: int) -> None:
        seat = self.contest.seat
        if not self.contest.feed(rank):
            # Nobody is out on the deal: the pairing card goes to the discards and is replaced.
            self.discards.append(rank)
            self._contest_why = "replace"
            return
        self._contest_why = "tiebreak" if self.contest.rounds else "deal"
        if self._five_cards(seat):
            return
        if self.contest.winner is not None:
            self.starter = self.contest.winner
            self._begin_turn(self.starter)

    def _deal_to_turn(self, rank: int) -> None:
        seat, why = self._card
        if self.options.calamities and rank == CALAMITY:
            self._got_seven = True
        stack = self.stacks[seat]
        if rank in stack:
            self._score(seat, rank, PAIR, taken_from=seat)
            return
        stack.append(rank)
        if self._five_cards(seat):
            return
        if why == "eight":
            self._eight_left -= 1
            if self._eight_left:
                return
        self._begin_turn(seat if self._got_seven else self._left(seat))

    def _five_cards(self, seat: int) -> bool:
        """Five Card Catch: five cards in a stack win the game at once."""
        if not (self.options.five_card_catch and len(self.stacks[seat]) >= FIVE_CARDS):
            return False
        scores = self._scores_going_in()
        if not self.options.continuous:
            self._discard(self.seats)
        money = settle_game(scores, ending=self.options.ending, loser=None, carry=self.carry_in,
                            five_card_winner=seat, collection=self.options)
        self._finish(self._result(FIVE_CARD_CATCH, scores, five_card_winner=seat), money)
        return True

    # -- decisions ---------------------------------------------------------

    def _act(self, action: Action) -> None:
        if action.move is Move.HIT:
            self._card = (self.turn, "hit")
        elif action.move is Move.EIGHT:
            self.stacks[self.turn].remove(EIGHT)
            self.discards.append(EIGHT)
            self._eight_left = EIGHT_CARDS
            self._card = (self.turn, "eight")
        else:
            seat, rank = action.card if action.card is not None else self._lowest_card()
            self.stacks[seat].remove(rank)
            self._score(self.turn, rank, FOLD, taken_from=seat)
        self._refresh()

    def _lowest_card(self) -> tuple[int, int]:
        """A basic fold that names no card takes the lowest, from the folder's own
        stack when it holds one (which stack gives it changes nothing)."""
        cards = self._due.fold_cards
        own = [card for card in cards if card[0] == self.turn]
        return (own or cards)[0]

    # -- the end of the hand -----------------------------------------------

    def _score(self, seat: int, rank: int, event: str, *, taken_from: int) -> None:
        scores = self._scores_going_in()
        scores[seat] += rank
        loser = seat if scores[seat] >= self.target else None
        self._discard([seat] if self.options.continuous else self.seats)
        # Calamities in Continuous: a 7 keeps the turn even when it paired, so the out
        # player is dealt again at once.
        after = None if loser is not None else (seat if self._got_seven else self._left(seat))
        result = self._result(event, scores, scorer=seat, rank=rank, taken_from=taken_from, loser=loser,
                              next_to_act=after)
        money = None
        if loser is not None:
            money = settle_game(scores, ending=self.options.ending, loser=loser,
                                tacoma_amount=self.options.tacoma_amount, carry=self.carry_in,
                                collection=self.options)
        self._finish(result, money)

    def _discard(self, seats) -> None:
        """Send these seats' stacks to the discards (the out player's alone in Continuous)."""
        for seat in seats:
            self.discards.extend(self.stacks[seat])
            self.stacks[seat] = []

    def _finish(self, result: dict, money: Settlement | None) -> None:
        """End the hand; `money` is the game's settlement when this hand ended the game. The
        game's first round also carries the house's fee, if it charges one."""
        self._card = None
        fees = fee_entries(self.options, self.seats) if self._first_round else []
        if money is None:
            self._settlement = Settlement.from_entries(
                self.seats, fees, carry_in=self.carry_in, result=result
            )
        else:
            entries = [*fees, *money.entries]
            money = Settlement.from_entries(self.seats, entries, carry_in=self.carry_in, result=money.result)
            self._settlement = replace(money, result={**result, **money.result})

    @property
    def _first_round(self) -> bool:
        # Every round scores points, so nothing scored going in means the game starts here.
        return not any(self.stakes.values())

    def _scores_going_in(self) -> dict[int, int]:
        return {seat: self.stakes[seat] for seat in self.seats}

    def _result(self, event: str, scores: dict[int, int], *, scorer=None, rank=None, taken_from=None,
                loser=None, five_card_winner=None, next_to_act=None) -> dict:
        """The hand's facts for Settlement.result (see docs/rules/pairs.md)."""
        result = {
            "event": event,
            "scorer": scorer,
            "points": rank or 0,
            "card": rank,
            "taken_from": taken_from,
            "scores": scores,
            "target": self.target,
            "game_over": loser is not None or five_card_winner is not None,
            "loser": loser,
            "five_card_winner": five_card_winner,
            "winners": [],
            "starter": self.starter,
            "ending": canonical_ending(self.options.ending),
        }
        if self.options.continuous:
            # What the next object needs: Pairs(..., in_play=result["in_play"], to_act=result["next_to_act"]).
            result["in_play"] = {seat: list(stack) for seat, stack in self.stacks.items()}
            result["next_to_act"] = next_to_act
        return result
