"""Seals: every figure an audit reads outside the chains is vouched for by a seal in the table's chain.

Each tampering below is what the app's database role can do today with raw SQL (UPDATE, DELETE and
INSERT on hands, slips and approval requests; INSERT on signatures and counts), or what only the
tables' owner can (an UPDATE of an append-only count or signature, with the protection lifted); in
every case `verify_ledger` names the record.
"""

import io
import json

import pytest
from django.core.management import CommandError, call_command
from django.db import IntegrityError, connection, transaction

from ledger.audit import ledger_verify
from ledger.models import Account, Seal
from ledger.seals import seal, sealed_models
from tables.models import ApprovalRequest, CashIn, Comp, Hand, Signature, Slip, TableCount
from tables.services import (
    SignatureGiven,
    approval_decide,
    correction_request,
    credit_request,
    fill_request,
    hand_settle,
    hand_start,
    hand_void_request,
    seat_open,
    shift_start,
    shoe_start,
    slip_void,
    table_count,
    table_settings_change,
)
from tables.services.players import comp_issue, player_create
from tables.services.slips import slip_issue
from tests.tables.conftest import play, seat

pytestmark = pytest.mark.django_db

_keys = iter(range(1, 10_000))


def key() -> str:
    return f"seal-test-{next(_keys)}"


class Floor:
    """What a day at one table leaves behind: an opening count, a fill approved, a credit rejected,
    a spoiled slip, a correction asked for and still pending, and three hands: one settled, one
    whose large payout the pit rejected and which it then voided, and one just started."""

    def __init__(self, table, dana, pete):
        shift_start(user=pete, pit=table.pit, by=pete)
        shift_start(user=dana, table=table, by=pete)
        self.count = table_count(
            table=table, kind="opener", denominations={"25": 40}, by=pete, device="pit-pc", key=key(),
            counter=SignatureGiven("dana", "dana-pass"), witness=SignatureGiven("pete", "pete-pass"),
        )
        self.fill = fill_request(table=table, denominations={"100": 10}, by=dana, secret="dana-pass",
                                 device="tablet-1", key=key())
        approval_decide(request=self.fill, by=pete, approve=True, secret="pete-pass", device="pit-pc",
                        key=key())
        self.credit = credit_request(table=table, denominations={"5": 20}, by=dana, secret="dana-pass",
                                     key=key())
        approval_decide(request=self.credit, by=pete, approve=False, reason="Not needed", key=key())
        self.spoiled = slip_issue(kind=Slip.Kind.OPENER, table=table, by=pete)
        slip_void(slip=self.spoiled, by=pete, reason="Torn")
        posted = self.slip(self.fill).transaction
        self.correction = correction_request(transaction=posted, by=dana, reason="Keyed twice", key=key())
        self.play_hands(table, dana, pete)

    def play_hands(self, table, dana, pete):
        table_settings_change(table=table, by=pete, payout_approval_threshold=100, reason="Big wins")
        table.refresh_from_db()
        shoe_start(table=table, decks=8, by=pete, key=key())
        self.ann = player_create(casino=table.pit.casino, name="Ann Smith", card_number="1001", by=pete)
        seat_open(table=table, seat=1, buy_in=600, card_number="1001", by=dana, key=key())
        seat(table, 2, 200, dana)
        # Seat 1 hits a 4, seat 2 folds (30), the dealer pairs 9s (pays seat 1 18): 18 is no large payout.
        self.settled = self.hand({1: 20, 2: 50}, [5, 6, 9, 4, 9], [("hit",), ("fold",)], dana)
        # The dealer pairs 9s again: 450 to seat 1 waits for the pit, which says no, then voids the hand.
        self.voided = self.hand({1: 500}, [5, 9, 4, 9], [("hit",)], dana)
        payout = ApprovalRequest.objects.get(hand=self.voided, kind="payout")
        approval_decide(request=payout, by=pete, approve=False, reason="Check the cards on camera", key=key())
        void = hand_void_request(hand=self.voided, by=dana, reason="Two cards came out together",
                                 expected_seq=self.voided.seq + 1, key=key())
        approval_decide(request=void, by=pete, approve=True, key=key())
        self.started = hand_start(table=table, bets={2: 10}, by=dana, key=key())
        self.comp = comp_issue(player=self.ann, cents=10, reason="coffee", by=pete)
        self.cash_in = CashIn.objects.get(player=self.ann)

    def hand(self, bets, cards, decisions, dana) -> Hand:
        hand = play(hand_start(table=self.count.table, bets=bets, by=dana, key=key()), cards, decisions, dana)
        return hand_settle(hand=hand, by=dana, expected_seq=hand.seq, key=key())

    def slip(self, request):
        return Slip.objects.get(request=request)


@pytest.fixture
def floor(open_table, dana, pete):
    return Floor(open_table, dana, pete)


def verify():
    """Run verify_ledger; return (succeeded, its output lines)."""
    out = io.StringIO()
    try:
        call_command("verify_ledger", stdout=out)
    except CommandError as error:
        return False, (out.getvalue() + str(error)).splitlines()
    return True, out.getvalue().splitlines()


def execute(sql, params=()):
    with connection.cursor() as cursor:
        cursor.execute(sql, params)


def latest_seal(record) -> Seal:
    return Seal.objects.filter(model=record._meta.label, record=record.pk).latest("position")


def named(lines, record, problem) -> bool:
    """Whether a finding names `record` at its latest seal's chain position with `problem`."""
    seal = latest_seal(record)
    where = f"position {seal.position}, {record._meta.label} {record.pk} ("
    return any(where in line and problem in line for line in lines)


def inserted(lines, model, pk) -> bool:
    """Whether a finding names the record `pk` of `model` as written outside the app."""
    problem = "it has no seal in any chain: it was written outside the app (inserted)"
    return any(line.startswith(f"{model._meta.label} {pk} (") and line.endswith(problem) for line in lines)


def copy_row(model, pk, **overrides) -> int:
    """INSERT a copy of a row with raw SQL, some columns replaced, as the app's role may; its new id."""
    q = connection.ops.quote_name
    columns = [field.column for field in model._meta.concrete_fields if not field.primary_key]
    select = ", ".join("%s" if column in overrides else q(column) for column in columns)
    table, names = q(model._meta.db_table), ", ".join(q(column) for column in columns)
    execute(
        f"INSERT INTO {table} ({names}) SELECT {select} FROM {table} WHERE id = %s",
        [overrides[column] for column in columns if column in overrides] + [pk],
    )
    return model.objects.order_by("-pk").values_list("pk", flat=True).first()


# --- Left alone -------------------------------------------------------------------------------


def test_every_sealed_record_verifies_against_its_latest_seal(floor):
    result = ledger_verify()

    assert result.clean, [str(finding) for finding in result.findings]
    records = sum(model.objects.count() for model in sealed_models())
    # requests, slips, count, signatures, hands, the drop box the opening count attached, the two
    # seats' cash-ins, the comp, the two shifts (pete's in the pit, dana's at the table), Ann and
    # the two seat sessions, the table and its shoe, the two seats and the table's run of slip serials,
    # and the accounts (a pot, unsealed, would be counted too: each is looked at)
    assert result.sealed == records == 6 + 5 + 1 + 4 + 3 + 1 + 2 + 1 + 2 + 1 + 2 + 1 + 1 + 2 + 1 + (
        Account.objects.count()
    )
    # the table's own, the players', the three hands' wagers, the cage and the patrons
    assert Seal.objects.filter(model="ledger.Account").count() == 4 + 2 + 3 + 2
    assert "ledger.Account" in {model._meta.label for model in sealed_models()}
    assert {model._meta.label for model in sealed_models()} >= {
        "tables.ApprovalRequest", "tables.Slip", "tables.TableCount", "tables.Signature", "tables.Hand",
        "tables.CashIn", "tables.Comp", "tables.Player", "tables.SeatSession",
    }


def test_a_cash_in_is_sealed_in_its_tables_chain_and_a_comp_in_its_casinos(floor, open_table):
    assert (latest_seal(floor.cash_in).event, latest_seal(floor.cash_in).chain.name) == (
        "recorded", f"table:{open_table.pk}"
    )
    assert latest_seal(floor.cash_in).figures["player"] == floor.ann.pk
    assert (latest_seal(floor.comp).event, latest_seal(floor.comp).chain.name) == (
        "given", f"casino:{open_table.pit.casino_id}"
    )


def test_each_write_of_a_slips_figures_is_sealed_in_the_tables_chain(floor, open_table):
    events = list(Seal.objects.filter(model="tables.Slip", record=floor.slip(floor.fill).pk)
                  .order_by("position").values_list("event", "chain__name"))
    assert events == [("issued", f"table:{open_table.pk}"), ("posted", f"table:{open_table.pk}")]
    assert latest_seal(floor.slip(floor.credit)).event == "voided"
    assert latest_seal(floor.credit).event == "decided"
    assert latest_seal(floor.correction).event == "requested"


def test_a_hand_is_sealed_when_it_starts_and_as_its_status_changes_not_at_each_step(floor, open_table):
    def events(hand):
        return list(Seal.objects.filter(model="tables.Hand", record=hand.pk).order_by("position")
                    .values_list("event", "chain__name"))

    chain = f"table:{open_table.pk}"
    assert floor.settled.seq == 8  # five cards, two decisions, the settlement
    assert events(floor.settled) == [("started", chain), ("settled", chain)]
    assert events(floor.voided) == [
        ("started", chain), ("awaiting_approval", chain), ("in_progress", chain), ("voided", chain)
    ]
    assert events(floor.started) == [("started", chain)]


# --- Hands ------------------------------------------------------------------------------------


def edit_hand(hand: Hand, column: str, edit) -> None:
    """UPDATE a JSON column of the hand's row with raw SQL, as the app's role may: `edit` changes
    the value read from the row in place."""
    value = json.loads(json.dumps(getattr(Hand.objects.get(pk=hand.pk), column)))
    edit(value)
    placeholder = "CAST(%s AS jsonb)" if connection.vendor == "postgresql" else "%s"
    execute(f"UPDATE tables_hand SET {column} = {placeholder} WHERE id = %s", [json.dumps(value), hand.pk])


@pytest.mark.parametrize(("column", "edit", "problem"), [
    ("setup", lambda setup: setup["stakes"].update({"1": 200}), "setup.stakes.1 is 200, sealed 20"),
    ("setup", lambda setup: setup["options"].update({"decks": 6}), "setup.options.decks is 6, sealed 8"),
    ("committed", lambda committed: committed.update({"2": 5}), "committed.2 is 5, sealed 50"),
    ("sessions", lambda sessions: sessions.update({"2": sessions["1"]}), "sessions.2 is "),
    ("settlement", lambda settlement: settlement["deltas"].update({"1": 180}),
     "settlement.deltas.1 is 180, sealed 18"),
    ("limits", lambda limits: limits.update({"payout_approval_threshold": 5000}),
     "limits.payout_approval_threshold is 5000, sealed 100"),
])
def test_a_hands_setup_bets_or_settlement_edited_is_named(floor, column, edit, problem):
    edit_hand(floor.settled, column, edit)

    ok, lines = verify()

    assert not ok
    assert named(lines, floor.settled, f"its figures differ from its seal (settled): {column}.")
    assert named(lines, floor.settled, problem)


def test_an_edited_entry_of_a_hands_settlement_is_named_alone(floor):
    """The finding names the one number edited, not the settlement twice over with it somewhere inside."""
    edit_hand(floor.settled, "settlement", lambda settlement: settlement["deltas"].update({"house": 0}))
    edit_hand(floor.settled, "setup", lambda setup: setup["options"].pop("decks"))

    ok, lines = verify()

    problem = ("its figures differ from its seal (settled): settlement.deltas.house is 0, sealed 12; "
               "setup.options.decks is absent, sealed 8")
    assert not ok
    seal, hand = latest_seal(floor.settled), floor.settled
    assert [line for line in lines if "tables.Hand" in line] == [
        f"table Rocket 1 (chain table:{hand.table_id}), position {seal.position}, tables.Hand {hand.pk} "
        f"({hand}): {problem}"
    ]


@pytest.mark.parametrize(("hand", "status", "problem"), [
    ("settled", "voided", 'status is "voided", sealed "settled"'),
    ("voided", "settled", 'status is "settled", sealed "voided"'),
    ("started", "voided", 'status is "voided", sealed "in_progress"'),
])
def test_a_hands_status_edited_is_named(floor, hand, status, problem):
    hand = getattr(floor, hand)
    execute("UPDATE tables_hand SET status = %s WHERE id = %s", [status, hand.pk])

    ok, lines = verify()

    assert not ok and named(lines, hand, problem)


def test_a_deleted_hand_is_named_by_its_seal(floor, open_table):
    seal = latest_seal(floor.started)
    execute("DELETE FROM tables_hand WHERE id = %s", [floor.started.pk])

    ok, lines = verify()

    assert not ok
    assert (
        f"table Rocket 1 (chain table:{open_table.pk}), position {seal.position}, "
        f"tables.Hand {floor.started.pk}: sealed here (started), but the record is gone: it was deleted"
    ) in lines


def test_an_inserted_hand_is_named(floor):
    forged = copy_row(Hand, floor.settled.pk, number=99)

    ok, lines = verify()

    assert not ok
    assert inserted(lines, Hand, forged)
    assert any(line.startswith(f"tables.Hand {forged} (Rocket 1 hand 99)") for line in lines)


# --- Slips ------------------------------------------------------------------------------------


@pytest.mark.parametrize(("sql", "problem"), [
    ("UPDATE tables_slip SET amount = 1100 WHERE id = %s", "amount is 1100, sealed 1000"),
    ("UPDATE tables_slip SET serial = 99 WHERE id = %s", "serial is 99, sealed 2"),
    ("UPDATE tables_slip SET kind = 'credit' WHERE id = %s", 'kind is "credit", sealed "fill"'),
    ("UPDATE tables_slip SET denominations = '{\"100\": 11}' WHERE id = %s",
     "denominations.100 is 11, sealed 10"),
    ("UPDATE tables_slip SET status = 'voided', void_reason = 'Spoiled' WHERE id = %s",
     'status is "voided", sealed "issued"; void_reason is "Spoiled", sealed ""'),
])
def test_a_slips_figure_edited_is_named(floor, sql, problem):
    slip = floor.slip(floor.fill)
    execute(sql, [slip.pk])

    ok, lines = verify()

    assert not ok
    assert named(lines, slip, f"its figures differ from its seal (posted): {problem}")


def test_a_voided_slip_set_back_to_issued_is_named(floor):
    slip = floor.slip(floor.credit)
    execute("UPDATE tables_slip SET status = 'issued', void_reason = '' WHERE id = %s", [slip.pk])

    ok, lines = verify()

    assert not ok and named(lines, slip, 'status is "issued", sealed "voided"')


def test_a_deleted_slip_is_named_by_its_seal(floor, open_table):
    seal = latest_seal(floor.spoiled)
    execute("DELETE FROM tables_slip WHERE id = %s", [floor.spoiled.pk])

    ok, lines = verify()

    assert not ok
    assert (
        f"table Rocket 1 (chain table:{open_table.pk}), position {seal.position}, "
        f"tables.Slip {floor.spoiled.pk}: sealed here (voided), but the record is gone: it was deleted"
    ) in lines


def test_an_inserted_slip_is_named(floor):
    copied = floor.slip(floor.fill)
    forged = copy_row(Slip, copied.pk, serial=50, amount=5000)

    ok, lines = verify()

    assert not ok
    assert (
        f"tables.Slip {forged} (Fill slip T{copied.table_id}-{copied.year}-000050): "
        "it has no seal in any chain: it was written outside the app (inserted)"
    ) in lines


# --- Approval requests ------------------------------------------------------------------------


@pytest.mark.parametrize(("sql", "problem"), [
    ("UPDATE tables_approvalrequest SET status = 'approved' WHERE id = %s",
     'status is "approved", sealed "rejected"'),
    ("UPDATE tables_approvalrequest SET decision_reason = 'Approved by phone' WHERE id = %s",
     'decision_reason is "Approved by phone", sealed "Not needed"'),
    ("UPDATE tables_approvalrequest SET amount = 10 WHERE id = %s", "amount is 10, sealed 100"),
    ("UPDATE tables_approvalrequest SET decided_at = requested_at WHERE id = %s", "decided_at is "),
    ("UPDATE tables_approvalrequest SET decided_by_id = NULL WHERE id = %s", "decided_by is null, sealed "),
])
def test_an_approval_decision_edited_is_named(floor, sql, problem):
    execute(sql, [floor.credit.pk])

    ok, lines = verify()

    assert not ok and named(lines, floor.credit, f"its figures differ from its seal (decided): {problem}")


def test_a_pending_request_decided_outside_the_app_is_named(floor, pete):
    execute("UPDATE tables_approvalrequest SET status = 'approved', decided_by_id = %s WHERE id = %s",
            [pete.pk, floor.correction.pk])

    ok, lines = verify()

    assert not ok and named(lines, floor.correction, 'status is "approved", sealed "pending"')


def test_a_deleted_request_is_named_by_its_seal(floor):
    seal = latest_seal(floor.correction)
    execute("DELETE FROM tables_approvalrequest WHERE id = %s", [floor.correction.pk])

    ok, lines = verify()

    assert not ok and any(
        f"position {seal.position}, tables.ApprovalRequest {floor.correction.pk}: sealed here (requested), "
        "but the record is gone: it was deleted" in line for line in lines
    )


def test_an_inserted_decision_is_named(floor):
    forged = copy_row(ApprovalRequest, floor.fill.pk, amount=9000)

    ok, lines = verify()

    assert not ok
    assert inserted(lines, ApprovalRequest, forged)


# --- Table counts and signatures: append-only, and sealed -------------------------------------


@pytest.mark.parametrize("db_table", ["tables_tablecount", "tables_signature", "ledger_seal"])
def test_the_apps_role_cannot_edit_or_remove_a_count_a_signature_or_a_seal(floor, db_table):
    for sql in (f"UPDATE {db_table} SET id = id", f"DELETE FROM {db_table}"):
        with pytest.raises(IntegrityError, match="append-only"), transaction.atomic():
            execute(sql)


@pytest.mark.parametrize(("sql", "problem"), [
    ("UPDATE tables_tablecount SET counted = 900 WHERE id = %s", "counted is 900, sealed 1000"),
    ("UPDATE tables_tablecount SET expected = 900 WHERE id = %s", "expected is 900, sealed 1000"),
    ("UPDATE tables_tablecount SET denominations = '{\"25\": 36}' WHERE id = %s",
     "denominations.25 is 36, sealed 40"),
])
def test_a_count_edited_by_the_owner_is_named(floor, protection_lifted, sql, problem):
    with protection_lifted("tables_tablecount"):
        execute(sql, [floor.count.pk])

    ok, lines = verify()

    assert not ok and named(lines, floor.count, f"its figures differ from its seal (counted): {problem}")


def test_an_inserted_count_is_named(floor):
    forged = copy_row(TableCount, floor.count.pk, slip_id=floor.spoiled.pk, counted=1200)

    ok, lines = verify()

    assert not ok
    assert inserted(lines, TableCount, forged)


# --- A record edited and sealed again: each figure fixed when first sealed stays so -----------


def test_a_slip_edited_and_sealed_again_after_the_anchor_is_named(floor, settings, tmp_path):
    # given the day's anchor, then a slip's amount changed with the app's own role and sealed again
    # through the app's own `seal`, so that the slip agrees with its latest seal
    settings.LEDGER_ANCHOR_DIR = str(tmp_path)
    call_command("ledger_anchor", stdout=io.StringIO())
    slip = floor.slip(floor.fill)
    execute("UPDATE tables_slip SET amount = 100 WHERE id = %s", [slip.pk])
    slip.refresh_from_db()
    with transaction.atomic():
        seal(slip, table=slip.table, event="posted")

    ok, lines = verify()

    assert not ok
    assert named(lines, slip, "sealed again (posted) with a figure fixed when first sealed (issued): "
                              "amount is 100, first sealed 1000")


def test_a_count_edited_by_the_owner_and_sealed_again_is_named(floor, protection_lifted):
    with protection_lifted("tables_tablecount"):
        execute("UPDATE tables_tablecount SET counted = 1100 WHERE id = %s", [floor.count.pk])
    count = TableCount.objects.get(pk=floor.count.pk)
    with transaction.atomic():
        seal(count, table=count.table, event="counted")

    ok, lines = verify()

    assert not ok and named(lines, count, "counted is 1100, first sealed 1000")


def test_a_decision_sealed_as_it_is_made_is_no_figure_changed(floor):
    # a request is sealed pending, then decided: the decision's figures may change, nothing else
    assert Seal.objects.filter(model="tables.ApprovalRequest", record=floor.fill.pk).count() == 2

    ok, lines = verify()

    assert ok, lines


# --- Cash-ins and comps: append-only, and sealed ---------------------------------------------


@pytest.mark.parametrize(("sql", "problem"), [
    ("UPDATE tables_cashin SET player_id = NULL, description = 'red tie' WHERE id = %s",
     'description is "red tie", sealed ""'),
    ("UPDATE tables_cashin SET cents = 50000, units = 500 WHERE id = %s", "cents is 50000, sealed 60000"),
    ("UPDATE tables_cashin SET logged = %s WHERE id = %s", "logged is true, sealed false"),
])
def test_a_cash_in_edited_by_the_owner_is_named(floor, protection_lifted, sql, problem):
    assert not floor.cash_in.logged  # under the logging threshold
    params = [True, floor.cash_in.pk] if "logged" in sql else [floor.cash_in.pk]
    with protection_lifted("tables_cashin"):
        execute(sql, params)

    ok, lines = verify()

    assert not ok and named(lines, floor.cash_in, f"its figures differ from its seal (recorded): {problem}")


def test_a_comp_edited_by_the_owner_is_named(floor, protection_lifted):
    with protection_lifted("tables_comp"):
        execute("UPDATE tables_comp SET cents = 1 WHERE id = %s", [floor.comp.pk])

    ok, lines = verify()

    problem = "its figures differ from its seal (given): cents is 1, sealed 10"
    assert not ok and named(lines, floor.comp, problem)


@pytest.mark.parametrize(("model", "record", "overrides"), [
    (CashIn, "cash_in", {"cents": 1}),
    (Comp, "comp", {"cents": 5, "reason": "dinner"}),
])
def test_an_inserted_cash_in_or_comp_is_named(floor, model, record, overrides):
    if model is CashIn:  # one cash-in a ledger transaction: another's, as the database keeps its id
        field, other = CashIn._meta.get_field("transaction"), floor.slip(floor.fill).transaction_id
        overrides["transaction_id"] = field.get_db_prep_value(other, connection)
    forged = copy_row(model, getattr(floor, record).pk, **overrides)

    ok, lines = verify()

    assert not ok
    assert inserted(lines, model, forged)


@pytest.mark.parametrize(("sql", "problem"), [
    ("UPDATE tables_signature SET role = 'witness' WHERE id = %s", 'role is "witness", sealed "dealer"'),
    ("UPDATE tables_signature SET method = 'pin' WHERE id = %s", 'method is "pin", sealed "password"'),
    ("UPDATE tables_signature SET device = 'pit-pc' WHERE id = %s", 'device is "pit-pc", sealed "tablet-1"'),
    ("UPDATE tables_signature SET user_id = {ada} WHERE id = %s", "user is {ada}, sealed {dana}"),
])
def test_a_signature_edited_by_the_owner_is_named(floor, protection_lifted, ada, dana, sql, problem):
    signature = floor.slip(floor.fill).signatures.get(role="dealer")
    with protection_lifted("tables_signature"):
        execute(sql.format(ada=ada.pk), [signature.pk])

    ok, lines = verify()

    problem = problem.format(ada=ada.pk, dana=dana.pk)
    assert not ok and named(lines, signature, f"its figures differ from its seal (signed): {problem}")


def test_an_inserted_signature_is_named(floor, ada):
    signature = floor.slip(floor.credit).signatures.get()
    forged = copy_row(Signature, signature.pk, user_id=ada.pk, role="pit manager")

    ok, lines = verify()

    assert not ok
    assert inserted(lines, Signature, forged)


def test_two_players_chips_swapped_at_one_table_are_caught_at_their_buy_ins(floor, protection_lifted):
    """Seat 1's and seat 2's chips accounts given each other's ref and code: each agrees with itself
    and the table, and no hash breaks; the sealed cash-in of each buy-in names whose chips they were."""
    ann, bob = (CashIn.objects.get(session__seat__number=n) for n in (1, 2))
    first, second = (Account.objects.get(kind="player", ref=cash.session_id) for cash in (ann, bob))
    with protection_lifted("ledger_account"), connection.cursor() as cursor:
        cursor.execute("UPDATE ledger_account SET code = 'swapping' WHERE id = %s", [first.pk])
        for account, other in ((second, first), (first, second)):
            cursor.execute("UPDATE ledger_account SET code = %s, ref = %s WHERE id = %s",
                           [other.code, other.ref, account.pk])

    ok, lines = verify()

    assert not ok
    for cash, now in ((ann, second.code), (bob, first.code)):
        assert any(f"ledger.Transaction {cash.transaction_id}: it posts" in line and f"to account {now}, "
                   "another seat session's chips than its cash-in's" in line for line in lines), lines


def test_two_players_chips_swapped_in_one_hand_are_named_though_neither_bought_in_by_cash(
    open_table, dana, pete, protection_lifted
):
    """Seats 1 and 2 sit down with chips brought from another table (no cash: no `CashIn` names
    whose chips their accounts are) and play a hand; their chips accounts are then given each
    other's code and ref. Each agrees with itself and the table, the hand's transactions post to
    the players of its own sealed sessions, and no hash breaks: the seal each sit-down wrote of the
    account it made still says whose chips they are."""
    shift_start(user=pete, pit=open_table.pit, by=pete)
    shift_start(user=dana, table=open_table, by=pete)
    table_count(
        table=open_table, kind="opener", denominations={"25": 40}, by=pete, device="pit-pc", key=key(),
        counter=SignatureGiven("dana", "dana-pass"), witness=SignatureGiven("pete", "pete-pass"),
    )
    shoe_start(table=open_table, decks=8, by=pete, key=key())
    ann, bob = (seat_open(table=open_table, seat=number, chips=300, player_name=name, by=dana, key=key())
                for number, name in ((1, "Ann"), (2, "Bob")))
    hand = play(hand_start(table=open_table, bets={1: 20, 2: 50}, by=dana, key=key()),
                [5, 6, 9, 4, 9], [("hit",), ("fold",)], dana)
    hand_settle(hand=hand, by=dana, expected_seq=hand.seq, key=key())
    assert not CashIn.objects.exists() and verify()[0]
    first, second = (Account.objects.get(kind="player", ref=session.pk) for session in (ann, bob))

    with protection_lifted("ledger_account"), connection.cursor() as cursor:
        cursor.execute("UPDATE ledger_account SET code = 'swapping' WHERE id = %s", [first.pk])
        for account, other in ((second, first), (first, second)):
            cursor.execute("UPDATE ledger_account SET code = %s, ref = %s WHERE id = %s",
                           [other.code, other.ref, account.pk])
    ok, lines = verify()

    assert not ok
    for account, now in ((first, second), (second, first)):
        problem = (f"its figures differ from its seal (created): code is \"{now.code}\", sealed "
                   f"\"{account.code}\"; ref is {now.ref}, sealed {account.ref}")
        assert named(lines, account, problem), lines
