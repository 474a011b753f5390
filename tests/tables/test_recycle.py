"""A shoe that runs dry mid-hand is recycled from its discards (RULINGS, single-deck recycling):
only cards of earlier hands and the burn pile, never a card on the table nor one kept for score;
burned; play goes on; a system shoe's recycled order is committed and checks out afterwards."""

import random
from collections import Counter

import pytest
from django.core.management import call_command
from django.db import IntegrityError, connection, transaction

from casino.errors import DomainError
from tables.api.serializers import ShoeSerializer
from tables.games import CardDue
from tables.games.cards import composition
from tables.models import CardEvent, Game, Hand, IdempotentRequest, Incident, Receiver, Recycle, Shoe
from tables.review import hand_replay_check
from tables.screens import hand_screen
from tables.services import hand_record_card, hand_start, shoe_retire
from tables.services.engine import engine_for, hand_game
from tables.services.hands import RankRefused
from tables.services.shoes import ShoeError, shoe_commitment, shoe_known_remaining
from tables.simulation import SimShoe

from .conftest import card, decide, key, open_table, seat
from .dealer import Dealer
from .test_hands import settle

pytestmark = pytest.mark.django_db

MOST_HANDS = 80  # one deck gives out well before this many Pairs hands


def counted(ranks: list[int]) -> Counter:
    """A recycle's ranks-by-index list as a Counter of ranks."""
    return Counter({rank: n for rank, n in enumerate(ranks) if n})


def shoe_ranks(shoe: Shoe, **filters) -> Counter:
    return Counter(CardEvent.objects.filter(shoe=shoe, **filters).values_list("rank", flat=True))


# A system shoe


def play_system_pairs(table, by) -> dict[int, list[int]]:
    """Pairs hands on the table's system shoe (hit until four cards, then fold) until the shoe has
    been recycled and a game has ended after that; return the cards kept for score going into
    each hand, as the players see them."""
    kept, kept_at = [], {}
    recycled_in = None
    for _ in range(MOST_HANDS):
        hand = hand_start(table=table, by=by, key=key())
        kept_at[hand.pk] = list(kept)
        hand = _play_out(hand, by)
        result = hand.settlement["result"]
        kept = [] if result["game_over"] else [*kept, result["card"]]
        recycled_in = recycled_in or Recycle.objects.filter(hand=hand).exists()
        if recycled_in and result["game_over"]:
            return kept_at
    raise AssertionError("The shoe never ran dry")


def _play_out(hand, by):
    while True:
        game = engine_for(hand)
        if game.finished:
            return settle(hand, by)
        if isinstance(game.next, CardDue):
            hand = card(hand, None, by)
        else:
            folds = len(game.stacks[game.next.seat]) >= 4
            hand = decide(hand, ("fold",) if folds else ("hit",), by)


@pytest.fixture
def system_pairs(pit, pete, dana):
    table = open_table(
        pit, pete, Game.PAIRS, "Pairs 7", 1, 100, {"ending": "cutchfeld"}, kind=Shoe.Kind.SYSTEM
    )
    seat(table, 1, 100, dana), seat(table, 2, 100, dana)
    return table


def test_a_dry_system_deck_is_refilled_with_the_discards_only_and_the_hand_goes_on(system_pairs, dana):
    kept_at = play_system_pairs(system_pairs, dana)

    shoe = system_pairs.shoes.get()
    first = Recycle.objects.filter(shoe=shoe).order_by("shoe_position").first()
    earlier = CardEvent.objects.filter(shoe=shoe, shoe_position__lt=first.shoe_position)
    on_table = earlier.filter(hand=first.hand).exclude(receiver=Receiver.BURN)
    discards = Counter(earlier.exclude(pk__in=on_table).values_list("rank", flat=True))
    kept = Counter(kept_at[first.hand_id])
    assert first.shoe_position == 56  # the deck ran to its bottom card first
    assert counted(first.ranks) == discards - kept
    assert kept <= discards  # the kept cards came from earlier hands...
    assert counted(first.ranks) + kept + Counter(on_table.values_list("rank", flat=True)) == counted(
        composition(1)
    )  # ...and nothing on the table or kept was recycled
    burns = CardEvent.objects.filter(hand=first.hand, receiver=Receiver.BURN).order_by("shoe_position")
    assert first.burned == 5
    assert [b.shoe_position for b in burns[:5]] == list(range(first.shoe_position, first.shoe_position + 5))
    assert first.hand.status == Hand.Status.SETTLED  # the hand went on to its end


def test_a_recycled_order_is_committed_before_its_first_card_and_shown_once_retired(system_pairs, pete, dana):
    play_system_pairs(system_pairs, dana)
    shoe = system_pairs.shoes.get()
    shown = ShoeSerializer(shoe).data["recycles"]
    assert shown and all(r["commitment"] and r["order"] is None and r["salt"] is None for r in shown)

    shoe = shoe_retire(shoe=shoe, by=pete, key=key())

    for recycle in ShoeSerializer(shoe).data["recycles"]:
        assert shoe_commitment(recycle["order"], recycle["salt"]) == recycle["commitment"]
        assert counted(recycle["ranks"]) == Counter(recycle["order"])
        dealt = CardEvent.objects.filter(
            shoe=shoe,
            shoe_position__gte=recycle["shoe_position"],
            shoe_position__lt=recycle["shoe_position"] + recycle["cards"],
        ).order_by("shoe_position")
        assert list(dealt.values_list("rank", flat=True)) == recycle["order"][: dealt.count()]


def test_hands_that_recycled_replay_to_the_ledger_and_the_chains_verify(system_pairs, dana, tmp_path):
    play_system_pairs(system_pairs, dana)

    for hand in Hand.objects.filter(table=system_pairs):
        assert hand_replay_check(hand)["matches"] is True
    call_command("verify_ledger", stdout=open(tmp_path / "out", "w"))  # exits non-zero on any finding
    assert Recycle.objects.filter(chain__isnull=False).count() == Recycle.objects.count()


def test_the_tablet_says_the_deck_is_empty_and_then_that_it_was_recycled(system_pairs, dana):
    for _ in range(MOST_HANDS):
        hand = hand_start(table=system_pairs, by=dana, key=key())
        while not engine_for(hand).finished:
            screen = hand_screen(hand)
            if screen["shoe"]["cards_left"] == 0 and screen["next"]["kind"] == "card":
                assert "The deck is empty: shuffle the discard pile" in screen["next"]["says"]
                assert screen["next"]["place"] is None  # not known before the recycle
                hand = card(hand, None, dana)
                said = hand_screen(hand)["recycled"]
                recycle = Recycle.objects.get(hand=hand)
                assert said == [
                    {
                        "position": recycle.shoe_position,
                        "cards": recycle.cards,
                        "burned": 5,
                        "says": f"Deck recycled from {recycle.cards} discards, 5 burned.",
                    }
                ]
                return
            game = engine_for(hand)
            hand = card(hand, None, dana) if isinstance(game.next, CardDue) else decide(hand, ("hit",), dana)
        settle(hand, dana)
    raise AssertionError("The shoe never ran dry")


# A physical shoe: a tie for low card that never ends. Seats 1 and 2 tie on 10s, 9s, ... 2s; seat 1
# then gets the only 1, and every card left pairs seat 2's stack, so it is replaced, again and again.

TIES = [rank for rank in range(10, 1, -1) for _ in range(2)] + [1]
# Every card left is a 3 to a 10 (r - 2 of rank r); the burned 5 are one each of 6 to 10.
REPLACED = [rank for rank in range(3, 11) for _ in range(rank - 2 - (rank >= 6))]


@pytest.fixture
def jammed(pit, pete, dana):
    """A physical Pairs deck dealt to its bottom card in one hand (the burned 5 are a 6, 7, 8, 9, 10)."""
    table = open_table(pit, pete, Game.PAIRS, "Pairs 8", 1, 100)
    seat(table, 1, 100, dana), seat(table, 2, 100, dana)
    hand = hand_start(table=table, by=dana, key=key())
    for rank in TIES + REPLACED:
        hand = card(hand, rank, dana)
    assert hand.shoe.cards.count() == 55
    return hand


def test_a_physical_deck_recycles_its_burn_pile_and_refuses_a_rank_the_discards_cannot_hold(jammed, dana):
    hand = jammed
    with pytest.raises(RankRefused, match="cannot hold another 1"):
        card(hand, 1, dana)  # seat 1 holds the only 1: it is on the table, not in the discards
    assert not Recycle.objects.exists() and Incident.objects.filter(hand=hand).count() == 1

    hand = card(hand, 10, dana)

    recycle = Recycle.objects.get()
    assert counted(recycle.ranks) == Counter([6, 7, 8, 9, 10]) and recycle.order is None
    assert recycle.burned == 4  # the card that is due stays in the shoe
    burns = CardEvent.objects.filter(hand=hand, receiver=Receiver.BURN).order_by("seq")
    assert [(b.rank, b.shoe_position) for b in burns] == [(None, p) for p in (56, 57, 58, 59)]
    assert CardEvent.objects.get(shoe_position=60).rank == 10
    assert hand.seq == 50 + 1 + 4 + 1  # the recycle and its burns take their places in the sequence
    assert shoe_known_remaining(hand.shoe) == [0, 0, 0, 0, 0, 0, 1, 1, 1, 1, 0]


def test_retrying_the_card_that_recycled_the_deck_applies_it_once(jammed, dana):
    before = jammed.seq
    retry = {
        "hand": jammed,
        "rank": 10,
        "by": dana,
        "device": "tablet-1",
        "expected_seq": before,
        "key": key(),
    }

    first = hand_record_card(**retry)
    again = hand_record_card(**retry)

    assert first.seq == again.seq == before + 6
    assert Recycle.objects.count() == 1 and jammed.shoe.cards.count() == 55 + 4 + 1


def test_a_deck_with_no_discards_left_refuses_the_card_and_writes_nothing(jammed, dana):
    hand = jammed
    for _ in range(5):  # each recycle burns all but the card that is due, which pairs: on the table
        remaining = shoe_known_remaining(Shoe.objects.get(pk=hand.shoe_id))
        hand = card(hand, max(rank for rank in range(1, 11) if remaining[rank]), dana)
    assert [r.cards for r in Recycle.objects.order_by("shoe_position")] == [5, 4, 3, 2, 1]
    cards, requests, seq = CardEvent.objects.count(), IdempotentRequest.objects.count(), hand.seq

    with pytest.raises(
        ShoeError, match="every card is on the table or kept for score: there are no discards"
    ):
        card(hand, 6, dana)

    assert (CardEvent.objects.count(), IdempotentRequest.objects.count()) == (cards, requests)
    assert Recycle.objects.count() == 5 and Hand.objects.get(pk=hand.pk).seq == seq


def test_a_deck_dealt_dry_with_nothing_burned_has_no_discards(pit, pete, dana):
    table = open_table(pit, pete, Game.PAIRS, "Pairs 0", 1, 100, burn=0)
    seat(table, 1, 100, dana), seat(table, 2, 100, dana)
    hand = hand_start(table=table, by=dana, key=key())
    for rank in TIES + REPLACED + [6, 7, 8, 9, 10]:
        hand = card(hand, rank, dana)

    with pytest.raises(DomainError, match="no discards to shuffle"):
        card(hand, 6, dana)
    assert not Recycle.objects.exists()


# Starboard: one deck dealt game after game from the same shoe


def test_a_starboard_shoe_that_runs_dry_mid_game_recycles_the_earlier_games(pit, pete, dana):
    table = open_table(pit, pete, Game.STARBOARD, "Starboard 7", 1, 100)
    for number in (1, 2, 3):
        seat(table, number, 100, dana)
    physical = SimShoe(1, random.Random(7), burn=5, penetration=None)  # the dealer's deck
    refilled = None
    for _ in range(MOST_HANDS):
        physical.begin_hand()
        hand = hand_start(table=table, by=dana, key=key())
        while not engine_for(hand).finished:
            due = engine_for(hand).next
            if isinstance(due, CardDue):
                refills = physical.refills
                hand = card(hand, physical.draw(), dana)
                if physical.refills > refills:
                    refilled = Counter(physical.order)
            else:
                hand = decide(hand, ("draw",) if "draw" in due.moves else ("lock",), dana)
        settle(hand, dana)
        physical.end_hand()
        if refilled:
            break

    recycle = Recycle.objects.get()
    assert counted(recycle.ranks) == refilled
    assert recycle.hand.status == Hand.Status.SETTLED and hand_replay_check(recycle.hand)["matches"] is True


@pytest.mark.parametrize("sql", ["UPDATE {table} SET device = 'edited'", "DELETE FROM {table}"])
def test_raw_sql_cannot_edit_or_remove_a_recycle(jammed, dana, sql):
    card(jammed, 10, dana)
    with (
        pytest.raises(IntegrityError, match="append-only"),
        transaction.atomic(),
        connection.cursor() as cursor,
    ):
        cursor.execute(sql.format(table=Recycle._meta.db_table))


# Regent dealt to the bottom of its deck (booklet: "You can deal to the bottom of the deck ... and
# then recycle the discards, exactly as in Pairs"). The first game of a freshly shuffled deck has the
# burn pile for its discards: every card dealt stays on the table, even a knocked-out player's; the
# games dealt on after it have the earlier games' cards too.


def draw_while_you_can(due) -> tuple:
    """Players who draw while the deck or its discards can give a card, then fold."""
    return ("draw",) if ("draw",) in due.choices else ("fold",)


def regent_dealt_dry(pit, pete, dana, kind, seed="regent dry"):
    table = open_table(pit, pete, Game.REGENT, "Regent 1", 1, 100, kind=kind, options={"collection": "none"})
    for number in (1, 2):
        seat(table, number, 100, dana)
    hand = hand_start(table=table, by=dana, key=key())
    return settle(Dealer(hand, dana, random.Random(seed), choose=draw_while_you_can).play(), dana)


@pytest.mark.parametrize("kind", [Shoe.Kind.SYSTEM, Shoe.Kind.PHYSICAL])
def test_a_regent_deck_dealt_dry_recycles_its_burn_pile_until_none_is_left_and_replays(pit, pete, dana, kind):
    hand = regent_dealt_dry(pit, pete, dana, kind)

    recycles = list(Recycle.objects.filter(hand=hand).order_by("seq"))
    # 5 burned at the shuffle; each recycle burns all but the card due, which a draw then takes
    assert [(r.cards, r.burned) for r in recycles] == [(5, 4), (4, 3), (3, 2), (2, 1), (1, 0)]
    assert recycles[0].shoe_position == 56
    shuffle_burn = CardEvent.objects.filter(shoe=hand.shoe, hand=None, receiver=Receiver.BURN)
    if kind == Shoe.Kind.SYSTEM:
        assert counted(recycles[0].ranks) == Counter(shuffle_burn.values_list("rank", flat=True))
        assert all(r.hidden == 0 for r in recycles)
    else:  # the hands are face down and unseen: their ranks stay possible, not in the deck
        held = CardEvent.objects.filter(hand=hand, rank=None).exclude(receiver=Receiver.BURN)
        assert recycles[0].hidden == held.filter(seq__lt=recycles[0].seq).count() > 0
    dealt = CardEvent.objects.filter(hand=hand).exclude(receiver=Receiver.BURN)
    assert dealt.count() == 55  # every card of the deck ended on the table, none twice
    assert hand_game(hand).settlement().result["out"]  # nobody could draw any more: a fold ended it
    assert hand_replay_check(Hand.objects.get(pk=hand.pk))["matches"] is True


def test_the_regent_tablet_says_a_draw_from_the_empty_deck_shuffles_its_discards_first(pit, pete, dana):
    table = open_table(pit, pete, Game.REGENT, "Regent 1", 1, 100, kind=Shoe.Kind.SYSTEM)
    for number in (1, 2):
        seat(table, number, 100, dana)
    hand = hand_start(table=table, by=dana, key=key())
    dealer = Dealer(hand, dana, random.Random(1), choose=draw_while_you_can)
    while hand_screen(dealer.hand)["shoe"]["cards_left"] or isinstance(dealer.mirror.next, CardDue):
        due = dealer.mirror.next
        dealer.card(due) if isinstance(due, CardDue) else dealer.decide(due)

    screen = hand_screen(dealer.hand)
    assert screen["next"]["kind"] == "decision"
    assert screen["next"]["says"].endswith(
        "The deck is empty: shuffle the discard pile (5 cards; never a card on the table or kept for score),"
        " burn 4, then deal."
    )
    dealer.decide(dealer.mirror.next)  # a draw
    screen = hand_screen(dealer.hand)
    assert screen["next"]["says"].startswith("Next card: seat")
    assert "The deck is empty" in screen["next"]["says"]
    dealer.card(dealer.mirror.next)

    assert hand_screen(dealer.hand)["recycled"][0]["says"] == "Deck recycled from 5 discards, 4 burned."


def test_the_next_regent_game_refills_the_deck_the_last_one_dealt_dry_with_all_of_its_cards(pit, pete, dana):
    first = regent_dealt_dry(pit, pete, dana, Shoe.Kind.SYSTEM)
    assert first.shoe.cards_out == 55 + 5 + 4 + 3 + 2 + 1  # the deck and every burn: none left in it

    second = hand_start(table=first.table, by=dana, key=key())
    second = settle(Dealer(second, dana, random.Random("regent again")).play(), dana)

    assert second.shoe_id == first.shoe_id
    recycle = Recycle.objects.filter(hand=second).order_by("seq").first()
    # the first game's 55 cards, off the table once it ended, are the whole deck again
    assert (recycle.cards, recycle.burned, recycle.shoe_position) == (55, 5, first.shoe.cards_out + 1)
    assert hand_replay_check(Hand.objects.get(pk=second.pk))["matches"] is True
