"""Back-entry: a hand dealt on paper while the system was down, entered by the pit afterwards
(tables/services/back_entry.py). The engine checks it as it replays; a refusal writes nothing."""

import re

import pytest
from django.db import connection

from casino.errors import NotAllowed
from casino.models import AuditEvent
from casino.roles import PIT_MANAGER
from ledger.audit import ledger_verify
from ledger.models import Account, Posting, Seal, Transaction
from ledger.services import account_get
from reports.exports import BACK_ENTERED, report_rows
from reports.models import Report
from reports.periods import today
from reports.services.house_edge import house_edge_report
from tables.models import BackEntry, CardEvent, Decision, Hand, IdempotentRequest, Incident, SeatSession
from tables.review import hand_replay_check
from tables.services import HandError, SignatureGiven, SignatureRefused, hand_start, shift_start
from tables.services.back_entry import hand_back_enter

from .conftest import deal_at, key, person, seat

pytestmark = pytest.mark.django_db

# The paper sheet of a Rocket hand: Ann (seat 1) bets 10, Bob (seat 2) 20. 4 to Ann, 6 to Bob,
# 8 to the dealer; Ann hits a 9, Bob folds (2 tenths x his 6, the lowest card), the dealer pairs
# his 8s and pays Ann, still in, a tenth x 8.
BETS = {1: 10, 2: 20}
SHEET = [
    {"kind": "card", "rank": 4, "to": "seat", "seat": 1},
    {"kind": "card", "rank": 6, "to": "seat", "seat": 2},
    {"kind": "card", "rank": 8, "to": "dealer"},
    {"kind": "decision", "seat": 1, "action": ["hit"]},
    {"kind": "card", "rank": 9, "to": "seat", "seat": 1},
    {"kind": "decision", "seat": 2, "action": ["fold"]},
    {"kind": "card", "rank": 8, "to": "dealer"},
]
REASON = "Wireless down 21:10 to 21:40; dealt on paper, sheet 7"


@pytest.fixture
def paul(db):
    return person("paul", PIT_MANAGER)


@pytest.fixture
def down(rocket, dana, pete, paul):
    """Rocket 1 with Ann and Bob seated; Pete and Paul on shift in the pit, Dana at the table."""
    deal_at(rocket, dana, pete)
    shift_start(user=paul, pit=rocket.pit, by=paul)
    seat(rocket, 1, 200, dana, "Ann"), seat(rocket, 2, 200, dana, "Bob")
    return rocket


def chips(table, number):
    session = SeatSession.objects.get(seat__table=table, seat__number=number, ended_at=None)
    return account_get(kind=Account.Kind.PLAYER, table=table, ref=session.pk).balance


def enter(table, by, steps=SHEET, signer=("paul", "paul-password"), signed_as="pit manager", **more):
    return hand_back_enter(
        table=table,
        bets=more.pop("bets", BETS),
        steps=steps,
        reason=more.pop("reason", REASON),
        signer=SignatureGiven(*signer),
        signed_as=signed_as,
        by=by,
        device="pit-desk",
        key=more.pop("key", None) or key(),
    )


def written():
    models = (Hand, CardEvent, Decision, Transaction, Posting, BackEntry, Incident, IdempotentRequest)
    return tuple(model.objects.count() for model in models) + (
        AuditEvent.objects.filter(action=AuditEvent.Action.BACK_ENTRY).count(),
    )


def test_a_paper_hand_is_replayed_settled_through_the_ledger_and_marked_back_entered(down, pete, paul):
    hand = enter(down, pete)

    assert hand.status == Hand.Status.SETTLED
    assert [(c.rank, c.receiver, c.seat) for c in CardEvent.objects.filter(hand=hand).order_by("seq")] == [
        (4, "seat", 1), (6, "seat", 2), (8, "dealer", None), (9, "seat", 1), (8, "dealer", None)
    ]
    assert [(d.seat, d.action) for d in Decision.objects.filter(hand=hand).order_by("seq")] == [
        (1, ["hit"]), (2, ["fold"])
    ]
    assert (chips(down, 1), chips(down, 2)) == (208, 188)  # Ann +8, Bob -12
    assert hand_replay_check(hand)["matches"] is True
    entry = hand.back_entry
    assert (entry.reason, entry.by, entry.signed_by, entry.signed_as) == (REASON, pete, paul, "pit manager")
    event = AuditEvent.objects.get(action=AuditEvent.Action.BACK_ENTRY)
    assert (event.user, event.detail["hands"], event.detail["signed_by"]) == (pete, [hand.pk], "paul")


def test_a_back_entry_is_sealed_and_one_written_outside_the_app_is_named(down, pete, dana):
    hand = enter(down, pete)
    seal = Seal.objects.get(model="tables.BackEntry", record=hand.back_entry.pk)
    assert (seal.event, seal.chain.name, seal.figures["hand"]) == ("entered", f"table:{down.pk}", hand.pk)
    assert ledger_verify().clean
    live = hand_start(table=down, bets=BETS, by=dana, key=key())

    # the app's role may INSERT: a hand dealt live, marked back-entered (the report would count it)
    with connection.cursor() as cursor:
        columns = 'reason, by_id, signed_by_id, signed_as, method, device, "at"'
        cursor.execute(
            f"INSERT INTO tables_backentry (hand_id, {columns}) SELECT %s, {columns} FROM tables_backentry",
            [live.pk],
        )
    forged = BackEntry.objects.get(hand=live)

    findings = [str(finding) for finding in ledger_verify().findings]
    assert any(f.startswith(f"tables.BackEntry {forged.pk} (") and f.endswith("(inserted)") for f in findings)


def test_the_money_of_a_back_entered_hand_reconciles(down, pete):
    tray_before = account_get(kind=Account.Kind.TRAY, table=down).balance

    hand = enter(down, pete)

    for transaction in Transaction.objects.filter(hand_id=hand.pk):
        assert sum(transaction.postings.values_list("amount", flat=True)) == 0
    tray_after = account_get(kind=Account.Kind.TRAY, table=down).balance
    assert tray_after - tray_before == 4  # Bob's 12 less Ann's 8


def test_the_dealer_may_sign_a_back_entry(down, pete, dana):
    hand = enter(down, pete, signer=("dana", "dana-password"), signed_as="dealer")

    assert (hand.back_entry.signed_by, hand.back_entry.signed_as) == (dana, "dealer")


def test_a_retried_back_entry_answers_the_first_hand_and_writes_nothing(down, pete):
    entry_key = key()
    first = enter(down, pete, key=entry_key)
    before = written()

    again = enter(down, pete, key=entry_key)

    assert again.pk == first.pk and written() == before


@pytest.mark.parametrize(
    ("sheet", "refusal"),
    [
        (  # Bob's card keyed for the dealer
            [SHEET[0], {**SHEET[1], "to": "dealer", "seat": None}, *SHEET[2:]],
            "Line 2 of the sheet: Refused the 6 keyed for the dealer: the rules give the next card to seat 2"
            " (deal).",
        ),
        (  # Bob acting before Ann
            [*SHEET[:3], {"kind": "decision", "seat": 2, "action": ["hit"]}, *SHEET[4:]],
            "Line 4 of the sheet: Refused hit keyed for seat 2: seat 1 is the one to act.",
        ),
        (SHEET[:-1], "is not over"),  # the dealer's last card is missing
        (SHEET + [SHEET[-1]], "No card is due"),  # one card too many
        ([SHEET[0], {"kind": "card", "rank": 11, "to": "seat", "seat": 2}], "A rank is 1 to 10"),
    ],
)
def test_a_paper_hand_the_rules_refuse_writes_nothing(down, pete, sheet, refusal):
    before = written()

    with pytest.raises(HandError, match=re.escape(refusal)):
        enter(down, pete, steps=sheet)

    assert written() == before


def test_a_rank_the_shoe_cannot_hold_refuses_the_entry_and_writes_nothing(down, pete):
    down.shoes.update(decks=1)  # the shoe in play holds one deck from now on: a single 1
    before = written()
    ones = [{"kind": "card", "rank": 1, "to": "seat", "seat": seat} for seat in (1, 2)]

    with pytest.raises(HandError, match="1"):
        enter(down, pete, steps=ones + SHEET[2:])

    assert written() == before


def test_a_back_entry_needs_a_second_persons_signature(down, pete):
    before = written()
    with pytest.raises(NotAllowed, match="A second person"):
        enter(down, pete, signer=("pete", "pete-password"))
    with pytest.raises(SignatureRefused):
        enter(down, pete, signer=("paul", "wrong"))
    assert written() == before


def test_a_back_entry_needs_a_reason(down, pete):
    with pytest.raises(HandError, match="Say why"):
        enter(down, pete, reason="  ")


def test_a_dealer_cannot_back_enter_a_hand(down, dana):
    with pytest.raises(NotAllowed, match="Only a pit manager"):
        enter(down, dana)


# The pit's page


SHEET_TYPED = """4 to seat 1
6 to seat 2
8 to dealer
seat 1 hit
9 to seat 1
seat 2 fold
8 to dealer
"""


def typed(**more):
    return {
        "key": key(),
        "bets": "1:10 2:20",
        "sheet": SHEET_TYPED,
        "reason": REASON,
        "signer": "paul",
        "signed_as": "pit manager",
        "signer_secret": "paul-password",
        **more,
    }


def test_the_pit_enters_a_paper_hand_and_its_review_and_history_mark_it_back_entered(client, down, pete):
    client.force_login(pete)
    assert "Enter a hand from paper" in client.get(f"/pit/tables/{down.pk}/").content.decode()

    response = client.post(f"/pit/tables/{down.pk}/back-entry/", typed())

    hand = Hand.objects.get(table=down)
    assert response.status_code == 302 and response["Location"] == f"/pit/hands/{hand.pk}/"
    assert hand.status == Hand.Status.SETTLED and hand.back_entry.signed_by.username == "paul"
    review = client.get(f"/pit/hands/{hand.pk}/").content.decode()
    assert "Back-entered: dealt on paper" in review and REASON in review
    assert "back-entered" in client.get(f"/pit/tables/{down.pk}/").content.decode()


def test_a_refused_sheet_comes_back_as_typed_with_the_sentence_and_nothing_is_written(client, down, pete):
    client.force_login(pete)
    before = written()

    out_of_turn = SHEET_TYPED.replace("seat 1 hit", "seat 2 hit")
    response = client.post(f"/pit/tables/{down.pk}/back-entry/", typed(sheet=out_of_turn))

    html = response.content.decode()
    assert response.status_code == 400
    assert "Line 4 of the sheet: Refused hit keyed for seat 2: seat 1 is the one to act." in html
    assert "seat 2 hit" in html and "paul-password" not in html
    assert written() == before


def test_a_line_that_is_neither_a_card_nor_a_decision_is_named(client, down, pete):
    client.force_login(pete)

    response = client.post(f"/pit/tables/{down.pk}/back-entry/", typed(sheet="4 to seat 1\nAnn folds"))

    assert response.status_code == 400
    assert "Line 2 (&quot;Ann folds&quot;) is neither a card" in response.content.decode()


def test_a_seat_whose_bet_is_typed_twice_is_refused_not_half_kept(client, down, pete):
    client.force_login(pete)
    before = written()

    response = client.post(f"/pit/tables/{down.pk}/back-entry/", typed(bets="1:10 2:20 1:30"))

    assert response.status_code == 400
    assert "a seat&#x27;s bet is typed twice" in response.content.decode()
    assert written() == before


def test_a_dealer_cannot_open_the_back_entry_page(client, down, dana):
    client.force_login(dana)

    assert client.get(f"/pit/tables/{down.pk}/back-entry/").status_code == 403
    assert client.post(f"/pit/tables/{down.pk}/back-entry/", typed()).status_code == 403
    assert not Hand.objects.exists()


# A Pairs game, round after round

PAIRS_SHEET = [  # round 1: seat 1 (low 3) hits a 3 and pairs; round 2: seat 1 (low 2) folds, taking the 2
    {"kind": "card", "rank": 3, "to": "seat", "seat": 1},
    {"kind": "card", "rank": 5, "to": "seat", "seat": 2},
    {"kind": "decision", "seat": 1, "action": ["hit"]},
    {"kind": "card", "rank": 3, "to": "seat", "seat": 1},
    {"kind": "round"},
    {"kind": "card", "rank": 2, "to": "seat", "seat": 1},
    {"kind": "card", "rank": 7, "to": "seat", "seat": 2},
    {"kind": "decision", "seat": 1, "action": ["fold"]},
]


@pytest.fixture
def pairs_down(pairs, dana, pete, paul):
    deal_at(pairs, dana, pete)
    shift_start(user=paul, pit=pairs.pit, by=paul)
    seat(pairs, 1, 100, dana, "Ann"), seat(pairs, 2, 100, dana, "Bob")
    return pairs


def test_a_pairs_game_is_entered_round_after_round_and_each_round_is_marked(pairs_down, pete):
    last = enter(pairs_down, pete, steps=PAIRS_SHEET, bets=None)

    rounds = list(Hand.objects.filter(table=pairs_down).order_by("number"))
    assert [hand.status for hand in rounds] == [Hand.Status.SETTLED] * 2 and last.pk == rounds[1].pk
    assert all(BackEntry.objects.filter(hand=hand, reason=REASON).exists() for hand in rounds)
    assert rounds[1].stakes == {"1": 3, "2": 0}  # the first round's score carried in
    assert last.settlement["result"]["scores"] == {"1": 5, "2": 0}


def test_a_pairs_game_refused_in_its_second_round_writes_nothing_of_the_first(pairs_down, pete):
    before = written()
    wrong = [*PAIRS_SHEET[:-1], {"kind": "decision", "seat": 2, "action": ["fold"]}]

    refusal = "Line 8 of the sheet: Refused fold keyed for seat 2: seat 1 is the one to act."
    with pytest.raises(HandError, match=re.escape(refusal)):
        enter(pairs_down, pete, steps=wrong, bets=None)

    assert written() == before


def test_only_pairs_is_entered_round_after_round(down, pete):
    with pytest.raises(HandError, match="Only a Pairs game"):
        enter(down, pete, steps=[*SHEET, {"kind": "round"}, *SHEET])


def test_the_house_edge_report_counts_the_back_entered_hands(pairs_down, pete):
    enter(pairs_down, pete, steps=PAIRS_SHEET, bets=None)
    day = today().isoformat()
    params = {"date_from": day, "date_to": day, "group": "table", "game": "pairs"}

    result = house_edge_report(params=params, progress=lambda *_: None)

    assert result["back_entered"] == 2 and result["totals"]["hands"] == 2
    rows = report_rows(Report(kind=Report.Kind.HOUSE_EDGE, params=params, result=result))
    assert rows[-1] == ["back_entered", "2", BACK_ENTERED]
