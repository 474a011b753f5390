"""The secret-hand games at a table (issue 20.3): whole games through the hand services, on a
physical shoe (face-down cards keyed blind, each rank named when a move reveals it) and a system shoe
(the shoe knows every card and keeps it), their money through the ledger.

The dealer (tests/tables/dealer.py) keys what the players of a "mirror" engine show."""

import random
import re

import pytest
from django.db.models import Sum

from ledger.audit import ledger_verify
from ledger.models import Account, Posting, Transaction
from tables.api.serializers import ShoeSerializer
from tables.games import CardDue
from tables.models import CardEvent, Game, Hand, Shoe
from tables.review import hand_replay_check
from tables.screens import hand_screen, table_screen
from tables.services import (
    hand_decide,
    hand_record_card,
    hand_settle,
    hand_start,
    shift_start,
    shoe_retire,
    shoe_start,
    shoes,
)
from tables.services.engine import hand_game
from tables.services.hands import HandError, RankRefused

from .conftest import card, decide, key, open_table, seat
from .dealer import Dealer

pytestmark = pytest.mark.django_db

PLAYERS = {"hawthorn": 2, "goblin_poker": 3, "monster": 4, "regent": 3, "troll_guts": 3}
CHIPS = 60


def table_for(pit, pete, game, kind):
    return open_table(pit, pete, game, f"{game} 1", 1, 100, kind=kind, options={"collection": "rake"})


def table_chips(table) -> int:
    """Every chip the table's accounts hold: the players', the pots', the carry and the house's."""
    return Posting.objects.filter(account__table=table).aggregate(total=Sum("amount"))["total"] or 0


@pytest.mark.parametrize("kind", [Shoe.Kind.PHYSICAL, Shoe.Kind.SYSTEM])
@pytest.mark.parametrize("game", list(PLAYERS))
def test_a_whole_game_plays_through_the_services_and_its_money_reconciles(pit, pete, dana, game, kind):
    table = table_for(pit, pete, game, kind)
    for number in range(1, PLAYERS[game] + 1):
        seat(table, number, CHIPS, dana)
    before = table_chips(table)

    hand = hand_start(table=table, by=dana, key=key())
    hand = Dealer(hand, dana, random.Random(f"{game}-{kind}")).play()
    hand = hand_settle(hand=hand, by=dana, expected_seq=hand.seq, key=key())

    assert hand.status == Hand.Status.SETTLED
    for transaction in Transaction.objects.filter(table=table):
        assert sum(transaction.postings.values_list("amount", flat=True)) == 0
    # the table's chips came from its buy-ins and tray; none appeared or vanished in the game
    assert table_chips(table) == before
    settled = hand_game(Hand.objects.get(pk=hand.pk)).settlement()
    pot_accounts = Account.objects.filter(table=table, kind__in=[Account.Kind.POT, Account.Kind.WAGER])
    assert all(account.balance == 0 for account in pot_accounts)  # the pot paid out, split or carried
    carry = Account.objects.get(table=table, kind=Account.Kind.CARRY).balance
    assert carry == settled.carry_out
    assert hand_replay_check(Hand.objects.get(pk=hand.pk))["matches"] is True
    verification = ledger_verify()
    assert verification.clean, verification.findings


def test_face_down_cards_are_recorded_blind_and_each_rank_when_revealed(pit, pete, dana):
    table = table_for(pit, pete, Game.HAWTHORN, Shoe.Kind.PHYSICAL)
    for number in (1, 2):
        seat(table, number, CHIPS, dana)
    hand = hand_start(table=table, by=dana, key=key())
    for _ in range(10):  # five face down each
        hand = hand_record_card(hand=hand, rank=None, by=dana, expected_seq=hand.seq, key=key())

    hand = hand_decide(hand=hand, action=("choose", 7), by=dana, expected_seq=hand.seq, key=key())

    assert [card.rank for card in hand.card_list] == [None] * 10
    assert hand.decision_list[-1].action == ["choose", 7]
    assert hand_game(hand).hands[1].unknown == 4


def test_a_reveal_the_shoe_cannot_hold_is_refused_and_writes_nothing(pit, pete, dana):
    table = table_for(pit, pete, Game.HAWTHORN, Shoe.Kind.PHYSICAL)
    for number in (1, 2):
        seat(table, number, CHIPS, dana)
    hand = hand_start(table=table, by=dana, key=key())
    for _ in range(10):
        hand = hand_record_card(hand=hand, rank=None, by=dana, expected_seq=hand.seq, key=key())
    # seat 1 shows the deck's one 1
    hand = hand_decide(hand=hand, action=("choose", 1), by=dana, expected_seq=hand.seq, key=key())
    seq = hand.seq

    with pytest.raises(HandError, match="cannot hold another 1"):
        hand_decide(hand=hand, action=("choose", 1), by=dana, expected_seq=seq, key=key())

    assert Hand.objects.get(pk=hand.pk).seq == seq
    assert hand.decisions.count() == 1


def test_a_face_down_card_seen_by_mistake_may_be_keyed_and_counts_in_the_shoe(pit, pete, dana):
    table = table_for(pit, pete, Game.REGENT, Shoe.Kind.PHYSICAL)
    for number in (1, 2):
        seat(table, number, CHIPS, dana)
    hand = hand_start(table=table, by=dana, key=key())
    hand = hand_record_card(hand=hand, rank=1, by=dana, expected_seq=hand.seq, key=key())  # seen by mistake
    with pytest.raises(RankRefused):
        hand_record_card(hand=hand, rank=1, by=dana, expected_seq=hand.seq, key=key())
    assert hand_game(hand).hands[1].known == [1]


def test_the_pit_review_shows_each_card_dealt_face_down_and_each_reveal(client, pit, pete, dana):
    table = table_for(pit, pete, Game.HAWTHORN, Shoe.Kind.PHYSICAL)
    for number in (1, 2):
        seat(table, number, CHIPS, dana)
    hand = hand_start(table=table, by=dana, key=key())
    for _ in range(10):
        hand = hand_record_card(hand=hand, rank=None, by=dana, expected_seq=hand.seq, key=key())
    for rank in (7, 3):  # the first cards, chosen in secret, shown together
        hand = hand_decide(hand=hand, action=("choose", rank), by=dana, expected_seq=hand.seq, key=key())
    shift_start(user=pete, pit=pit, by=pete)
    client.force_login(pete)

    page = client.get(f"/pit/hands/{hand.pk}/").content.decode()

    section = page[page.index('class="hidden-cards"') :].split("</section>")[0]
    dealt = section[section.index('class="list dealt-face-down"') :].split("</table>")[0]
    reveals = section[section.index('class="list reveals"') :].split("</table>")[0]
    assert dealt.count("<tr>") == 11 and dealt.count(">unseen<") == 10  # a header and ten blind cards
    assert '>11</td><td>Seat 1</td><td>choose</td><td class="num">7<' in reveals
    assert '>12</td><td>Seat 2</td><td>choose</td><td class="num">3<' in reveals


def test_a_refused_reveal_at_a_system_shoe_never_tells_the_dealer_what_the_hand_holds(pit, pete, dana):
    table = table_for(pit, pete, Game.HAWTHORN, Shoe.Kind.SYSTEM)
    for number in (1, 2):
        seat(table, number, CHIPS, dana)
    hand = hand_start(table=table, by=dana, key=key())
    for _ in range(10):
        hand = hand_record_card(hand=hand, rank=None, by=dana, expected_seq=hand.seq, key=key())
    held = hand_game(hand).hands[1].known
    missing = next(rank for rank in range(1, 11) if rank not in held)

    with pytest.raises(HandError) as refused:
        hand_decide(hand=hand, action=("choose", missing), by=dana, expected_seq=hand.seq, key=key())

    assert str(refused.value) == f"Seat 1's hand holds no {missing}."


def test_a_monster_round_at_a_system_shoe_is_dealt_from_its_reshuffled_deck(pit, pete, dana, monkeypatch):
    # A later Monster round reshuffles the whole deck (a recycle) before the shoe's own shuffle is
    # dealt out: its burns and cards come from the recycle's committed order, not the old one's rest.
    monkeypatch.setattr(shoes, "_system_random", random.Random(3))
    table = table_for(pit, pete, Game.MONSTER, Shoe.Kind.SYSTEM)
    for number in range(1, 5):
        seat(table, number, CHIPS, dana)
    for game in range(20):
        hand = Dealer(hand_start(table=table, by=dana, key=key()), dana, random.Random(game)).play()
        hand = hand_settle(hand=hand, by=dana, expected_seq=hand.seq, key=key())
        if hand.recycles.exists():
            break
        shoe_start(table=table, decks=1, kind=Shoe.Kind.SYSTEM, burn=5, by=dana, reason="next", key=key())
    shoe = shoe_retire(shoe=hand.shoe, by=pete, key=key())

    recycles = list(shoe.recycles.order_by("shoe_position"))
    assert recycles
    ends = [recycle.shoe_position for recycle in recycles[1:]] + [shoe.cards_out + 1]
    for recycle, end in zip(recycles, ends, strict=True):
        dealt = CardEvent.objects.filter(
            shoe=shoe, shoe_position__gte=recycle.shoe_position, shoe_position__lt=end
        ).order_by("shoe_position")
        assert list(dealt.values_list("rank", flat=True)) == recycle.order[: dealt.count()]
    shown = ShoeSerializer(Shoe.objects.select_related("table").get(pk=shoe.pk)).data  # the auditor's
    assert [r["order"] for r in shown["recycles"]] == [r.order for r in recycles]
    assert hand_replay_check(Hand.objects.get(pk=hand.pk))["matches"] is True


def dealt_face_down(page: str) -> list[str]:
    """What the pit's review shows for each card of the hidden-cards table, in order."""
    section = page[page.index('class="list dealt-face-down"') :].split("</table>")[0]
    return re.findall(r'<tr><td class="num">\d+</td><td>Seat \d</td><td class="num">([^<]*)</td>', section)


def steps_shown(page: str) -> list[str]:
    """What the review's cards-and-decisions table shows for each card, in order."""
    return re.findall(r'card <b class="rank">([^<]*)</b>', page)


def test_a_live_hands_face_down_ranks_reach_neither_pit_nor_auditor_until_it_is_settled(
    client, pit, pete, dana, ada
):
    # given a Hawthorn hand at a system shoe, its ten cards dealt face down (the shoe knows them)
    table = table_for(pit, pete, Game.HAWTHORN, Shoe.Kind.SYSTEM)
    for number in (1, 2):
        seat(table, number, CHIPS, dana)
    dealer = Dealer(hand_start(table=table, by=dana, key=key()), dana, random.Random("sealed"))
    for _ in range(10):
        dealer.card(dealer.mirror.next)
    hand = dealer.hand
    ranks = [str(card.rank) for card in CardEvent.objects.filter(hand=hand, receiver="seat").order_by("seq")]
    shift_start(user=pete, pit=pit, by=pete)
    ada.is_staff = True  # auditors read the records in the admin too
    ada.save()

    # then the pit manager and the auditor see them face down, in the review, the API and the admin
    for user in (pete, ada):
        client.force_login(user)
        page = client.get(f"/pit/hands/{hand.pk}/").content.decode()
        assert steps_shown(page) == ["face down"] * 10
        assert dealt_face_down(page) == ["face down"] * 10
        seats = client.get(f"/api/hands/{hand.pk}/").json()["seats"]
        assert [card["rank"] for seat in seats for card in seat["cards"]] == [None] * 10
    sealed = client.get(f"/admin/tables/cardevent/?hand__id__exact={hand.pk}").content.decode()
    assert sealed.count("sealed until the hand is over") == 10

    # when the game is played out and settled
    hand = dealer.play()
    hand = hand_settle(hand=hand, by=dana, expected_seq=hand.seq, key=key())

    # then the review and the admin show every card as the shoe dealt it
    client.force_login(ada)
    page = client.get(f"/pit/hands/{hand.pk}/").content.decode()
    assert steps_shown(page)[:10] == ranks[:10] and dealt_face_down(page) == ranks[:10]
    assert (
        "sealed until"
        not in client.get(f"/admin/tables/cardevent/?hand__id__exact={hand.pk}").content.decode()
    )


def test_a_live_hands_face_up_cards_and_reveals_stay_in_the_review(client, pit, pete, dana):
    table = table_for(pit, pete, Game.HAWTHORN, Shoe.Kind.SYSTEM)
    for number in (1, 2):
        seat(table, number, CHIPS, dana)
    first = type("First", (), {"choice": staticmethod(lambda options: options[0])})()  # hits, never folds
    dealer = Dealer(hand_start(table=table, by=dana, key=key()), dana, first)
    while not isinstance(dealer.mirror.next, CardDue) or dealer.mirror.next.face_down:
        (dealer.card if isinstance(dealer.mirror.next, CardDue) else dealer.decide)(dealer.mirror.next)
    dealer.card(dealer.mirror.next)  # a face-up card: a tie-break or a deck round's hit
    shift_start(user=pete, pit=pit, by=pete)
    client.force_login(pete)

    page = client.get(f"/pit/hands/{dealer.hand.pk}/").content.decode()

    assert steps_shown(page)[-1] == str(dealer.hand.card_list[-1].rank)
    chosen = [d.action[1] for d in dealer.hand.decision_list if d.action[0] == "choose"]
    assert all(f'<td>choose</td><td class="num">{rank}<' in page for rank in chosen)


def test_a_pitch_keyed_blind_at_a_system_shoe_is_named_where_the_hand_leaves_no_choice(
    pit, pete, dana, monkeypatch
):
    # given Goblin Poker at a system shoe, played until a pitch the hand leaves no choice for
    monkeypatch.setattr(shoes, "_system_random", random.Random(4))  # a shuffle that gets there
    table = table_for(pit, pete, Game.GOBLIN_POKER, Shoe.Kind.SYSTEM)
    for number in (1, 2, 3):
        seat(table, number, CHIPS, dana)
    first = type("First", (), {"choice": staticmethod(lambda options: options[0])})()
    dealer = Dealer(hand_start(table=table, by=dana, key=key()), dana, first)
    refused = []

    def seq() -> int:
        return dealer.hand.seq

    def pitches() -> set:
        due = dealer.mirror.next
        return {choice for choice in getattr(due, "choices", ()) if choice[0] == "pitch"}

    while len(pitches()) != 1:
        if len(pitches()) > 1 and not refused:
            # a pitch with a choice left: the shoe cannot tell which card went, the dealer keys it
            with pytest.raises(HandError) as error:
                hand_decide(
                    hand=dealer.hand, action=("pitch",), by=dana, expected_seq=dealer.hand.seq, key=key()
                )
            refused.append(str(error.value))
        due = dealer.mirror.next
        (dealer.card if isinstance(due, CardDue) else dealer.decide)(due)
    (forced,) = pitches()

    # when the dealer taps Pitch with no rank, as docs/tablet.md says
    hand = hand_decide(hand=dealer.hand, action=("pitch",), by=dana, expected_seq=seq(), key=key())

    # then the pitch is recorded as the one card it can be, and the hand replays
    assert hand.decision_list[-1].action == list(forced)
    assert refused and refused[0].endswith("not which card the player chose; key the rank of each.")
    dealer.mirror.act(forced)
    dealer.hand, dealer.synced = hand, hand.seq
    hand = hand_settle(hand=dealer.play(), by=dana, expected_seq=dealer.hand.seq, key=key())
    assert hand_replay_check(Hand.objects.get(pk=hand.pk))["matches"] is True


@pytest.mark.parametrize(("players", "ante"), [(4, 2), (6, 1)])
def test_the_monster_table_names_the_booklet_s_ante_for_the_players_seated(pit, pete, dana, players, ante):
    # The booklet's Monster ante depends on how many play, so the table's option is unset: the table
    # read "Every seated player plays." while the start took 2 from each of four players.
    table = table_for(pit, pete, Game.MONSTER, Shoe.Kind.PHYSICAL)
    for number in range(1, players + 1):
        seat(table, number, CHIPS, dana)

    assert table_screen(table)["ante"] == ante
    hand = hand_start(table=table, by=dana, key=key())
    assert hand_game(hand).purse.pot == ante * players  # what the start took, as the table said


def test_the_monster_s_showdown_shows_each_hand_shown_and_the_monster_s_cards(pit, pete, dana):
    # The hands shown left the players' face-down cards and the Monster's were turned up, yet the
    # screen showed every seat with "no cards" and no Monster: the dealer could not check who won.
    table = table_for(pit, pete, Game.MONSTER, Shoe.Kind.PHYSICAL)
    for number in (1, 2, 3, 4):
        seat(table, number, CHIPS, dana)
    hand = hand_start(table=table, by=dana, key=key())
    for _ in range(24):
        hand = card(hand, None, dana)  # six each, face down
    for action in (("discard", None, None), ("discard", None), ("discard",), ("fold",)):
        hand = decide(hand, action, dana)
    for shown in ((10, 9, 8, 7), (10, 9, 8, 7, 5), (6, 6, 5, 4, 3, 2)):
        hand = decide(hand, ("show", *shown), dana)
    hand = card(hand, 10, dana)  # the Monster's first card, turned up

    screen = hand_screen(hand)

    cards = {seat["number"]: [card["rank"] for card in seat["cards"]] for seat in screen["seats"]}
    assert cards[1] == [10, 9, 8, 7] and cards[2] == [10, 9, 8, 7, 5] and cards[3] == [6, 6, 5, 4, 3, 2]
    assert screen["secret"]["monster"] == [10]
    assert screen["next"]["says"] == "Next card: turn up the next card of the Monster's hand."


# Regent deals on from one deck (booklet: "Shuffle the deck and burn five cards, as in Pairs. You can
# deal to the bottom of the deck, to minimize shuffling, and then recycle the discards, exactly as in
# Pairs"), unless the table shuffles a fresh deck every game (option `new_deck_each_game`).


def regent_game(table, dana, seed, choose=None) -> Hand:
    hand = hand_start(table=table, by=dana, key=key())
    hand = Dealer(hand, dana, random.Random(seed), choose=choose).play()
    return hand_settle(hand=hand, by=dana, expected_seq=hand.seq, key=key())


@pytest.mark.parametrize("kind", [Shoe.Kind.SYSTEM, Shoe.Kind.PHYSICAL])
def test_a_regent_table_deals_the_next_game_on_from_the_deck_the_last_one_left(pit, pete, dana, kind):
    table = table_for(pit, pete, Game.REGENT, kind)
    for number in (1, 2):
        seat(table, number, CHIPS, dana)
    first = regent_game(table, dana, "regent on")

    second = hand_start(table=table, by=dana, key=key())

    assert second.shoe_id == first.shoe_id and not table_screen(table)["shoe_note"]
    left = hand_game(Hand.objects.get(pk=first.pk)).shoe  # what the first game left in the shoe
    held = second.setup["shoe"]
    assert (held["remaining"], held["unseen"]) == (left.remaining, left.unseen)
    assert sum(left.remaining) - left.unseen == 55 - second.shoe.cards_out  # the cards still in it
    second = Dealer(second, dana, random.Random("regent on, again")).play()
    second = hand_settle(hand=second, by=dana, expected_seq=second.seq, key=key())
    assert hand_replay_check(Hand.objects.get(pk=second.pk))["matches"] is True


def test_a_regent_table_told_so_shuffles_a_fresh_deck_for_every_game(pit, pete, dana):
    table = open_table(pit, pete, Game.REGENT, "Regent 1", 1, 100, options={"new_deck_each_game": True})
    for number in (1, 2):
        seat(table, number, CHIPS, dana)
    regent_game(table, dana, "regent fresh")

    said = "Regent deals every game from a fresh deck: shuffle before the next game."
    assert table_screen(table)["shoe_note"] == said
    with pytest.raises(HandError, match=said):
        hand_start(table=table, by=dana, key=key())


def see_or_gift_first(due) -> tuple:
    """Players who reveal a face-down card as soon as they can: see, else gift, else draw."""
    for move in ("see", "gift", "draw"):
        for choice in due.choices:
            if choice[0] == move:
                return choice
    return due.choices[0]


def test_a_card_revealed_in_a_physical_regent_game_stays_out_of_the_shoe_in_the_next(pit, pete, dana):
    table = table_for(pit, pete, Game.REGENT, Shoe.Kind.PHYSICAL)
    for number in (1, 2):
        seat(table, number, CHIPS, dana)
    first = regent_game(table, dana, "regent reveal", choose=see_or_gift_first)
    revealed = [rank for d in first.decision_list if d.action[0] in ("see", "gift") for rank in d.action[2:]]
    assert revealed  # the first game turned face-down cards over

    second = hand_start(table=table, by=dana, key=key())

    # The cards' records say those cards left the shoe unseen; the game that revealed them knows better.
    counted_ranks, unseen = shoes.shoe_known_remaining(second.shoe), shoes.shoe_unseen(second.shoe)
    assert second.setup["shoe"]["unseen"] == unseen - len(revealed)
    for rank in set(revealed):
        assert second.setup["shoe"]["remaining"][rank] == counted_ranks[rank] - revealed.count(rank)
    assert hand_game(second).shoe.remaining == second.setup["shoe"]["remaining"]  # the engine checks by it
