"""One replay path: a hand's setup is one record stored with the hand; an outside auditor replays
it through the engine's documented entry points; a step's engine serves its answer screen."""

import json

import pytest

from tables.games import CardDue, HandSetup, replay
from tables.games.pairs_endings import settle_game
from tables.models import CardEvent, Decision, Hand, Receiver, Recycle, Shoe
from tables.review import posted_results
from tables.screens import hand_screen
from tables.services import hand_start
from tables.services.engine import engine_for

from .conftest import card, decide, key, open_table, play, seat
from .test_hands import settle

pytestmark = pytest.mark.django_db

REVEALED = [Receiver.SEAT, Receiver.DEALER, Receiver.COMMON, Receiver.CENTRE, Receiver.TIEBREAK]


def stored_setup(hand: Hand) -> HandSetup:
    """The setup as an auditor gets it: the stored record, read from the database as JSON."""
    record = Hand.objects.values_list("setup", flat=True).get(pk=hand.pk)
    return HandSetup.from_record(json.loads(json.dumps(record)))


def revealed_cards(hand: Hand) -> list[int]:
    cards = CardEvent.objects.filter(hand=hand, receiver__in=REVEALED).order_by("seq")
    return list(cards.values_list("rank", flat=True))


def decisions(hand: Hand) -> list[tuple]:
    return [tuple(action) for action in Decision.objects.filter(hand=hand).order_by("seq").values_list(
        "action", flat=True)]  # fmt: skip


def seats_of(deltas) -> dict[str, int]:
    return {str(party): amount for party, amount in deltas.items() if isinstance(party, int)}


def test_a_hand_stores_its_setup_once_as_the_engine_records_it(rocket, dana):
    seat(rocket, 1, 200, dana), seat(rocket, 3, 200, dana)

    hand = hand_start(table=rocket, bets={1: 30, 3: 100}, by=dana, key=key())

    setup = stored_setup(hand)
    assert (setup.game, setup.seats, setup.stakes, setup.carry) == ("rocket", (1, 3), {1: 30, 3: 100}, 0)
    assert setup.options == {"decks": 8, "start": "left", "previous_button": None}
    # a physical shoe's five burned cards left it face down: their ranks are still possible
    assert (setup.decks, setup.remaining[1:], setup.unseen) == (8, tuple(8 * r for r in range(1, 11)), 5)
    assert (hand.seats, hand.stakes, hand.carry_in) == ([1, 3], {"1": 30, "3": 100}, 0)
    assert hand.options == setup.options


def test_an_auditor_replays_a_recorded_hand_from_its_setup_to_the_posted_settlement(rocket, dana):
    # given a settled Rocket hand: seat 1 pairs its 2s, the dealer pairs 8s and pays seat 3
    seat(rocket, 1, 200, dana), seat(rocket, 3, 200, dana)
    hand = hand_start(table=rocket, bets={1: 30, 3: 100}, by=dana, key=key())
    hand = settle(play(hand, [2, 7, 8, 2, 5, 8], [("hit",), ("hit",)], dana), dana)

    # when an auditor replays its records through the documented entry point from its stored setup
    setup = stored_setup(hand)
    again = replay(cards=revealed_cards(hand), decisions=decisions(hand), **setup.arguments())

    # then the replay settles what was posted
    replayed = {str(party): amount for party, amount in again.settlement.deltas.items()}
    assert replayed == hand.settlement["deltas"] == {"1": -6, "3": 80, "house": -74, "carry": 0}
    assert posted_results(hand) == {"1": -6, "3": 80}
    assert again.options == setup.options


def test_an_auditor_settles_a_finished_pairs_game_with_settle_game_as_the_table_did(pit, pete, dana):
    # given a Downspear game to 5 points: seat 1 folds twice, taking a 3 and then a 2
    table = open_table(pit, pete, "pairs", "Pairs 5", 1, 100, options={"ending": "downspear", "target": 5})
    for number in (1, 2, 3):
        seat(table, number, 50, dana)
    first = settle(play(hand_start(table=table, by=dana, key=key()), [3, 7, 9], [("fold",)], dana), dana)
    last = settle(play(hand_start(table=table, by=dana, key=key()), [2, 6, 8], [("fold",)], dana), dana)

    # when an auditor replays the last hand from its setup and settles the game by the rulebook
    setup = stored_setup(last)
    again = replay(cards=revealed_cards(last), decisions=decisions(last), **setup.arguments())
    result = again.settlement.result
    money = settle_game(result["scores"], ending=setup.options["ending"], loser=result["loser"],
                        tacoma_amount=setup.options["tacoma_amount"], carry=setup.carry)  # fmt: skip

    # then both give what the table posted: the loser pays 1 to each other player
    assert first.settlement["result"]["game_over"] is False and setup.stakes == {1: 3, 2: 0, 3: 0}
    assert result["loser"] == 1 and result["scores"] == {1: 5, 2: 0, 3: 0}
    posted = {"1": -2, "2": 1, "3": 1}
    assert seats_of(money.deltas) == seats_of(again.settlement.deltas) == posted
    assert posted_results(last) == posted


def test_a_steps_answer_screen_reads_the_engine_the_step_checked_the_card_with(rocket, dana, monkeypatch):
    seat(rocket, 1, 200, dana)
    hand = hand_start(table=rocket, bets={1: 10}, by=dana, key=key())
    hand = card(hand, 5, dana)
    starts = []
    start = HandSetup.start
    monkeypatch.setattr(HandSetup, "start", lambda setup: starts.append(setup) or start(setup))

    # when the dealer keys the dealer's card and the tablet draws the answer
    answer = card(hand, 9, dana)
    screen = hand_screen(answer)

    # then the hand was replayed once, by the step, and the screen shows the state after the card
    assert len(starts) == 1
    fresh = Hand.objects.select_related("table__pit", "shoe").get(pk=hand.pk)
    assert screen == hand_screen(fresh)
    assert [event.rank for event in answer.engine.transcript] == [5, 9]
    assert len(starts) == 2  # the fresh read replays: it has no step's engine


def test_every_steps_engine_is_what_a_fresh_replay_gives_through_a_recycle(pit, pete, dana):
    # given a one-deck system-shuffled Pairs shoe, played until a hand has recycled its discards
    table = open_table(pit, pete, "pairs", "Pairs dry", 1, 100, kind=Shoe.Kind.SYSTEM)
    seat(table, 1, 100, dana), seat(table, 2, 100, dana)
    hand, steps = hand_start(table=table, by=dana, key=key()), 0
    while not (hand.recycle_list and hand.engine.finished):
        game = hand.engine
        if game.finished:
            hand = hand_start(table=settle(hand, dana).table, by=dana, key=key())
        elif isinstance(game.next, CardDue):
            hand = card(hand, None, dana)  # the shoe gives its next card
        else:
            hand = decide(hand, ("fold",) if len(game.stacks[game.next.seat]) >= 4 else ("hit",), dana)
        # then the engine each step left on the hand is the one its records replay to
        again = engine_for(Hand.objects.get(pk=hand.pk))
        assert (hand.engine.transcript, hand.engine.next) == (again.transcript, again.next)
        assert (hand.engine.shoe.remaining, len(hand.engine.shoe)) == (again.shoe.remaining, len(again.shoe))
        steps += 1
    assert Recycle.objects.filter(hand=hand).exists() and steps > 55
