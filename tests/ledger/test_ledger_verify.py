"""Tamper evidence: the chain walk, anchors, and what verify_ledger catches."""

import io
import json
import time
from pathlib import Path

import pytest
from django.conf import settings
from django.core.management import CommandError, call_command
from django.db import connection, transaction
from django.test.utils import CaptureQueriesContext

from ledger.audit import anchor_digest, anchor_latest, ledger_verify
from ledger.chain import (
    ChainError,
    chain_append,
    chain_extend,
    chain_lock,
    chain_record_at,
    chained_models,
    record_hash,
)
from ledger.models import ZERO_HASH, Account, Chain, Seal, Transaction
from ledger.seals import seal, sealed_models
from ledger.services import Line, account_balance, account_get, ledger_post
from ledger.tasks import anchor_chains
from tables.models import Game, Table
from tables.services import (
    SignatureGiven,
    hand_settle,
    hand_start,
    seat_open,
    shift_start,
    shoe_start,
    table_count,
    tray_fill,
)
from tables.services.players import player_create
from tests.floor import hand_wagers, new_table
from tests.tables.conftest import play
from tests.tables.test_collection import SECOND_TEN

pytestmark = pytest.mark.django_db


@pytest.fixture
def played(open_table, seat3, dana, pete, cage, patrons, buy_in):
    """Table chain, after the table's seal: the opening, a buy-in, a bet, a pair loss, a fill (`at`
    finds the nth of them). Casino chain: the cage's and the patrons' seals (each made on first
    use, outside any table's step), a redemption."""
    tray = account_get(kind="tray", table=open_table)
    wager = hand_wagers(open_table, 1)
    buy_in(table=open_table, player=seat3, amount=100, by=dana)
    ledger_post(lines=[Line(seat3, -30, "bet"), Line(wager, 30, "bet")], kind="bet", memo="", by=dana,
                table=open_table, hand_id=1)
    ledger_post(lines=[Line(wager, -30, "pair loss"), Line(tray, 30, "pair loss")], kind="settlement",
                memo="", by=dana, table=open_table, hand_id=1)
    ledger_post(lines=[Line(cage, -500, "fill"), Line(tray, 500, "fill")], kind="fill", memo="", by=pete,
                table=open_table, approved_by=pete)
    ledger_post(lines=[Line(patrons, -70, "redeemed"), Line(cage, 70, "redeemed")], kind="cash_out",
                memo="", by=pete, casino=open_table.pit.casino)
    return Chain.objects.get(name=f"table:{open_table.pk}")


def verify(*args):
    """Run verify_ledger; return (succeeded, output)."""
    out = io.StringIO()
    try:
        call_command("verify_ledger", *args, stdout=out)
    except CommandError as error:
        return False, out.getvalue() + str(error)
    return True, out.getvalue()


def at(chain, n):
    """The chain's nth ledger transaction (from 1), wherever the records before it (the table's
    seal) put it: a test reads its position from the record, never counts it."""
    return Transaction.objects.filter(chain=chain).order_by("position")[n - 1]


def edit_posting(posting, amount, protection_lifted):
    with protection_lifted("ledger_posting"), connection.cursor() as cursor:
        cursor.execute("UPDATE ledger_posting SET amount = %s WHERE id = %s", [amount, posting.pk])


def rehash_from(chain, position, protection_lifted):
    """The forger's finishing touch: recompute every hash from `position` on, and the chain's head,
    and put every cached balance right, so the walk alone finds nothing."""
    prev = ZERO_HASH if position == 1 else chain_record_at(chain, position - 1).hash
    with protection_lifted("ledger_transaction"), connection.cursor() as cursor:
        records = Transaction.chain_queryset().filter(chain=chain, position__gte=position)
        for record in records.order_by("position"):
            digest = record_hash(prev, record.chain_content())
            pk = Transaction._meta.pk.get_db_prep_value(record.pk, connection)
            cursor.execute(
                "UPDATE ledger_transaction SET prev_hash = %s, hash = %s WHERE id = %s", [prev, digest, pk]
            )
            prev = digest
    Chain.objects.filter(pk=chain.pk).update(head=prev)
    for account in Account.objects.all():
        Account.objects.filter(pk=account.pk).update(balance=account_balance(account))


# --- A ledger left alone ----------------------------------------------------------------------


def test_an_untouched_ledger_verifies_with_one_summary_line(played):
    ok, output = verify()
    assert ok
    # the 6 transactions and the seals of the table, its tray, drop box, carry and rake, seat 3's chips,
    # the hand's wagers, the cage and the patrons; those 8 accounts
    assert output.strip().splitlines() == [
        "Ledger verified: 2 chains, 15 records, 6 transactions, 8 accounts; no anchor file to compare with."
    ]


def test_an_untouched_ledger_matches_its_anchor_and_later_posts_do_not_disturb_it(played, open_table, seat3,
                                                                                    dana, buy_in):
    call_command("ledger_anchor", stdout=io.StringIO())
    buy_in(table=open_table, player=seat3, amount=10, by=dana)

    ok, output = verify()

    assert ok and f"matches anchor {anchor_latest(settings.LEDGER_ANCHOR_DIR).name}" in output


def test_verifying_takes_a_bounded_number_of_queries(open_table, tray, seat3, dana, pete, cage,
                                                     django_assert_max_num_queries):
    for _ in range(40):
        ledger_post(lines=[Line(cage, -5, "fill"), Line(tray, 5, "fill")], kind="fill", memo="", by=pete,
                    table=open_table)
    # Constant in the number of records: one query per chained model per chain (and the postings),
    # one for the seals and one per sealed model, and a few for the protection, balances, sums and
    # the accounts' identities (their codes, and the accounts and tables their postings point at),
    # and the three rules of where a transaction's postings may go (`_postings_misplaced`). Two
    # chains: the table's, and the casino's, where the cage was sealed as it was first made.
    with django_assert_max_num_queries(22 + len(sealed_models()) + len(chained_models())):
        result = ledger_verify()
    # the opening, the 40 fills, and the seals of the table, its 4 accounts, seat 3's chips and the cage
    assert result.clean and result.records == 48


def test_verifying_sealed_records_takes_no_query_per_record(casino, pete, django_assert_max_num_queries):
    # Each record clean against its seal: nothing to name, so no chain's name is read for it.
    for number in range(30):
        player_create(casino=casino, name=f"Player {number}", by=pete)
    with django_assert_max_num_queries(22 + len(sealed_models())):
        result = ledger_verify()
    assert result.clean and result.sealed == 30


# --- Tampering --------------------------------------------------------------------------------


def test_an_edited_posting_is_caught_at_its_table_and_position(played, open_table, protection_lifted):
    bet = at(played, 3)
    posting = bet.postings.get(amount=-30)

    edit_posting(posting, -20, protection_lifted)
    ok, output = verify()

    assert not ok
    lines = output.splitlines()
    assert (
        f"table Rocket 1 (chain table:{open_table.pk}), position {bet.position}, "
        f"ledger.Transaction {bet.pk}: first broken link: its hash does not match its content: "
        "the record was changed after it was written"
    ) in lines
    assert f"account {posting.account.code}: cached balance 70 but its postings sum to 80" in lines
    assert any("its 2 postings sum to 10, not 0" in line for line in lines)
    assert "The ledger does not verify" in output


def edit_account(account, protection_lifted, **columns):
    """UPDATE an account's columns with its protection lifted, as only the tables' owner can."""
    sets = ", ".join(f"{name} = %s" for name in columns)
    with protection_lifted("ledger_account"), connection.cursor() as cursor:
        cursor.execute(f"UPDATE ledger_account SET {sets} WHERE id = %s", [*columns.values(), account.pk])


def test_a_drop_box_account_turned_into_a_players_is_caught(played, open_table, protection_lifted):
    """The reports find a table's drop by its account's kind: edited, the expected drop would be 0,
    and no hash breaks (a posting's hash holds its account's id)."""
    drop = Account.objects.get(kind="drop", table=open_table)

    edit_account(drop, protection_lifted, kind="player")
    ok, output = verify()

    assert not ok
    assert (
        f"account {drop.code}: its kind (player), table and ref do not fit together (a player's chips "
        "account needs ref): the account was edited"
    ) in output.splitlines()


def test_an_account_given_another_kind_and_code_is_caught(played, open_table, protection_lifted):
    drop = Account.objects.get(kind="drop", table=open_table)

    edit_account(drop, protection_lifted, kind="rake", code=f"t{open_table.pk}:tray-2")
    ok, output = verify()

    assert not ok
    assert (
        f"account t{open_table.pk}:tray-2: its kind (rake), table and ref make the code "
        f"t{open_table.pk}:rake: the account was edited"
    ) in output.splitlines()


def test_an_account_moved_to_another_table_is_caught_at_each_transaction_posting_to_it(
    played, open_table, other_table, protection_lifted
):
    player = Account.objects.get(kind="player", table=open_table)
    buy_in = at(played, 2)

    edit_account(player, protection_lifted, table_id=other_table.pk, code=f"t{other_table.pk}:player:345")
    ok, output = verify()

    assert not ok
    assert (
        f"table Rocket 1 (chain table:{open_table.pk}), position {buy_in.position}, ledger.Transaction "
        f"{buy_in.pk}: it posts 100 to account t{other_table.pk}:player:345, which belongs to another table: "
        "the account was moved"
    ) in output.splitlines()


def test_a_deleted_account_is_caught_at_each_transaction_posting_to_it(played, open_table, protection_lifted):
    drop = Account.objects.get(kind="drop", table=open_table)
    buy_in = at(played, 2)

    with protection_lifted("ledger_account"), connection.cursor() as cursor:
        cursor.execute("DELETE FROM ledger_account WHERE id = %s", [drop.pk])
    ok, output = verify()
    Account.objects.bulk_create([drop])  # back, for the database's own check of the foreign keys

    assert not ok
    assert (
        f"table Rocket 1 (chain table:{open_table.pk}), position {buy_in.position}, ledger.Transaction "
        f"{buy_in.pk}: it posts 100 to account {drop.pk}, which is gone: the account was deleted"
    ) in output.splitlines()


def test_a_deleted_record_leaves_a_gap_that_is_caught(played, open_table, protection_lifted):
    settlement, fill = at(played, 4), at(played, 5)
    pk = Transaction._meta.pk.get_db_prep_value(settlement.pk, connection)
    with protection_lifted("ledger_posting", "ledger_transaction"), connection.cursor() as cursor:
        cursor.execute("DELETE FROM ledger_posting WHERE transaction_id = %s", [pk])
        cursor.execute("DELETE FROM ledger_transaction WHERE id = %s", [pk])

    ok, output = verify()

    assert not ok
    assert (
        f"table Rocket 1 (chain table:{open_table.pk}), position {fill.position}, "
        f"ledger.Transaction {fill.pk}: first broken link: position {settlement.position} is missing: "
        "the record there was removed"
    ) in output.splitlines()


# A seal row as the app's role may insert it (INSERT is granted on append-only tables).
SEAL_INSERT = (
    "INSERT INTO ledger_seal (chain_id, position, prev_hash, hash, model, record, event, figures, at) "
    "VALUES (%s, %s, %s, %s, 'tables.Slip', 1, 'issued', '{}', %s)"
)


def test_three_breaks_in_one_chain_are_all_reported(played, open_table, protection_lifted):
    # given a record changed (by the owner), one inserted (as the app's role may) and one removed
    buy, bet, settlement, fill = at(played, 2), at(played, 3), at(played, 4), at(played, 5)
    edit_posting(buy.postings.get(amount=100, account__kind="player"), 90, protection_lifted)
    with connection.cursor() as cursor:
        cursor.execute(SEAL_INSERT, [played.pk, bet.position, buy.hash, "f" * 64, settlement.created_at])
    forged = Seal.objects.get(chain=played, position=bet.position)
    pk = Transaction._meta.pk.get_db_prep_value(settlement.pk, connection)
    with protection_lifted("ledger_posting", "ledger_transaction"), connection.cursor() as cursor:
        cursor.execute("DELETE FROM ledger_posting WHERE transaction_id = %s", [pk])
        cursor.execute("DELETE FROM ledger_transaction WHERE id = %s", [pk])

    ok, output = verify()

    # then each break of the walk is named, in chain order
    place = f"table Rocket 1 (chain table:{open_table.pk})"
    assert not ok
    assert [line for line in output.splitlines() if "broken link" in line] == [
        f"{place}, position {buy.position}, ledger.Transaction {buy.pk}: first broken link: its hash does "
        "not match its content: the record was changed after it was written",
        f"{place}, position {bet.position}, ledger.Seal {forged.pk}: broken link: position {bet.position} is "
        f"already held by ledger.Transaction {bet.pk}, and this record does not fit the chain there: it was "
        "inserted",
        f"{place}, position {fill.position}, ledger.Transaction {fill.pk}: broken link: position "
        f"{settlement.position} is missing: the record there was removed",
    ]


def test_a_record_appended_without_moving_the_chains_head_is_caught(played, open_table):
    fill = at(played, 5)  # the chain's last record
    after = fill.position + 1
    with connection.cursor() as cursor:
        cursor.execute(SEAL_INSERT, [played.pk, after, fill.hash, "f" * 64, fill.created_at])

    ok, output = verify()

    assert not ok
    forged = Seal.objects.get(chain=played, position=after)
    lines = output.splitlines()
    assert (
        f"table Rocket 1 (chain table:{open_table.pk}), position {after}, ledger.Seal {forged.pk}: "
        "first broken link: its hash does not match its content: the record was changed after it was written"
    ) in lines
    assert any(f"the chain's cached length {fill.position}" in line
               and f"disagree with its records ({after}, ffffffffffff)" in line for line in lines)


def test_a_record_inserted_before_a_chains_first_is_caught(played, open_table):
    with connection.cursor() as cursor:
        cursor.execute(SEAL_INSERT, [played.pk, 0, ZERO_HASH, "f" * 64, at(played, 1).created_at])

    ok, output = verify()

    forged = Seal.objects.get(chain=played, position=0)
    assert not ok
    assert (
        f"table Rocket 1 (chain table:{open_table.pk}), position 0, ledger.Seal {forged.pk}: "
        "first broken link: position 0 comes before the chain's first: it was inserted"
    ) in output.splitlines()


def test_a_rehashed_chain_passes_the_walk_but_not_the_anchor(played, open_table, protection_lifted):
    # given an anchor taken at the end of the day
    out = io.StringIO()
    call_command("ledger_anchor", stdout=out)
    anchor = json.loads(Path(out.getvalue().strip()).read_text())
    # when the buy-in is edited (10 fewer chips, still balanced) and everything after it re-hashed
    buy = at(played, 2)
    edit_posting(buy.postings.get(amount=-100, account__kind="tray"), -90, protection_lifted)
    edit_posting(buy.postings.get(amount=100, account__kind="player"), 90, protection_lifted)
    rehash_from(played, buy.position, protection_lifted)

    # then the walk, the sums and the caches find nothing
    assert ledger_verify().clean
    # but the anchored head is no longer there
    ok, output = verify()
    assert not ok
    fill = at(played, 5)
    assert (
        f"table Rocket 1 (chain table:{open_table.pk}), position {fill.position}, "
        f"ledger.Transaction {fill.pk}: hash {fill.hash[:12]} is not the anchored "
        f"{anchor['chains'][1]['head'][:12]}: "
        "the chain was rewritten at or before this position"
    ) in output.splitlines()


def test_an_edited_anchor_file_is_caught(played, anchor_dir):
    path = anchor_dir / "anchor-forged.json"
    call_command("ledger_anchor", "--dir", str(anchor_dir), stdout=io.StringIO())
    anchor = json.loads(anchor_latest(anchor_dir).read_text())
    anchor["chains"][0]["length"] = 0
    path.write_text(json.dumps(anchor))

    ok, output = verify("--anchor", str(path))

    assert not ok and "its digest does not match its chains: the file was edited" in output


def test_missing_protection_is_a_finding(played, protection_lifted):
    with protection_lifted("ledger_posting"):
        ok, output = verify()
    assert not ok and "database: ledger_posting lacks its trigger" in output


def test_an_unreadable_anchor_is_refused(played, tmp_path):
    path = tmp_path / "anchor-broken.json"
    path.write_text("{not json")
    ok, output = verify("--anchor", str(path))
    assert not ok and "is not a readable anchor file" in output


def test_an_empty_anchor_directory_is_refused(played, tmp_path):
    ok, output = verify("--anchor-dir", str(tmp_path))
    assert not ok and f"No anchor file in {tmp_path}" in output


# --- Anchors ----------------------------------------------------------------------------------


def test_an_anchor_holds_every_chain_head_and_one_digest_over_them(played, open_table, casino, tmp_path):
    out = io.StringIO()
    call_command("ledger_anchor", "--dir", str(tmp_path), stdout=out)

    path = tmp_path / out.getvalue().strip().rpartition("/")[2]
    anchor = json.loads(path.read_text())

    assert path.name.startswith("anchor-") and path.name.endswith("Z.json")
    cage_chain = Chain.objects.get(name=f"casino:{casino.pk}")
    assert anchor["chains"] == [
        {"name": cage_chain.name, "length": 3, "head": cage_chain.head},
        {"name": f"table:{open_table.pk}", "length": at(played, 5).position, "head": at(played, 5).hash},
    ]
    assert anchor["digest"] == anchor_digest(anchor["chains"])


def test_the_daily_task_writes_an_anchor_where_the_settings_say(played, anchor_dir):
    path = anchor_chains.apply().get()  # in-process: no worker runs in this test
    assert str(anchor_dir) in path and anchor_latest(anchor_dir) is not None


def test_celery_beat_runs_the_anchor_daily():
    entry = settings.CELERY_BEAT_SCHEDULE["ledger-anchor-daily"]
    assert entry["task"] == "ledger.anchor_chains"
    assert entry["schedule"].hour == {6} and entry["schedule"].minute == {0}


# --- chain_append -----------------------------------------------------------------------------


def test_a_saved_record_cannot_be_chained_again(played):
    with pytest.raises(ChainError, match="already saved"):
        chain_append(at(played, 1), at(played, 1).chain)


def test_records_appended_together_chain_as_if_appended_one_by_one_in_one_insert(played, open_table):
    seals = [Seal(model="tables.Hand", record=n, event="settled", figures={"n": n}) for n in (1, 2, 3)]
    chain = chain_lock(table=open_table)
    head, length = chain.head, chain.length

    with CaptureQueriesContext(connection) as captured:
        chain_extend(seals, chain)

    inserts = [q["sql"] for q in captured if q["sql"].startswith('INSERT INTO "ledger_seal"')]
    assert len(inserts) == 1
    stored = list(Seal.objects.filter(chain=chain).order_by("position"))[-3:]
    assert [s.pk for s in stored] == [s.pk for s in seals]  # each record has its row's id
    assert [s.position for s in stored] == [length + 1, length + 2, length + 3]
    assert stored[0].prev_hash == head
    for before, record in zip([head, *[s.hash for s in stored]], stored, strict=False):
        assert record.hash == record_hash(before, record.chain_content())
    assert Chain.objects.get(pk=chain.pk).head == stored[-1].hash


def test_content_that_changes_when_read_back_is_refused(open_table, tray, cage, pete, monkeypatch):
    monkeypatch.setattr(Transaction, "chain_content", lambda self: {"now": time.perf_counter_ns()})
    chain_lock(table=open_table)
    before = Transaction.objects.count()

    with pytest.raises(ChainError, match="changes when the row is read back"):
        ledger_post(lines=[Line(cage, -5, "fill"), Line(tray, 5, "fill")], kind="fill", memo="", by=pete,
                    table=open_table)
    assert Transaction.objects.count() == before


def swap_accounts(first, second, protection_lifted, **columns):
    """Give `first` the kind, code and ref of `second` and the other way round, so each still agrees
    with itself and its table (as only the tables' owner can, the protection lifted)."""
    names = ", ".join(f"{name} = %s" for name in ("kind", "code", "ref"))
    with protection_lifted("ledger_account"), connection.cursor() as cursor:
        cursor.execute("UPDATE ledger_account SET code = 'swapping' WHERE id = %s", [first.pk])
        cursor.execute(f"UPDATE ledger_account SET {names} WHERE id = %s",
                       [first.kind, first.code, first.ref, second.pk])
        cursor.execute(f"UPDATE ledger_account SET {names} WHERE id = %s",
                       [second.kind, second.code, second.ref, first.pk])


def test_a_tables_tray_and_drop_swapped_together_are_caught_where_they_were_moved(
    played, open_table, protection_lifted
):
    """The tray's kind and code given to the drop box and back: each account agrees with itself and
    its table, and no hash breaks; the reports would read the tray's chips as the table's drop."""
    tray, drop = (Account.objects.get(kind=kind, table=open_table) for kind in ("tray", "drop"))

    swap_accounts(tray, drop, protection_lifted)
    ok, output = verify()

    lines = output.splitlines()
    assert not ok
    assert (
        f"table Rocket 1 (chain table:{open_table.pk}), position {at(played, 5).position}, "
        f"ledger.Transaction {at(played, 5).pk}: "
        f"it posts 500 (fill) to account t{open_table.pk}:drop, which its kind of transaction never moves: "
        "the account's kind, code or ref were swapped with another's"
    ) in lines, lines
    assert any(f"ledger.Transaction {at(played, 1).pk}: it posts" in line for line in lines)  # the opening


def test_a_hands_wagers_given_another_hands_number_are_caught(played, open_table, protection_lifted):
    wager = Account.objects.get(kind="wager", table=open_table)

    edit_account(wager, protection_lifted, ref=2, code=f"t{open_table.pk}:wager:2")
    ok, output = verify()

    assert not ok
    assert (
        f"ledger.Transaction {at(played, 3).pk}: it posts 30 (bet) to account t{open_table.pk}:wager:2, "
        "the wagers or pot of another hand: the account's kind, code or ref were swapped with another's"
    ) in output, output


def test_a_tables_carry_and_rake_swapped_together_are_named_by_their_seals(
    played, open_table, seat3, dana, protection_lifted
):
    """A pot game's settlement moves both the carry and the rake, and a table without a time charge
    writes no other record of the rake: swapped (kind and code), each agrees with itself, the
    settlement may move either, and no hash breaks. The table's creation sealed what each one is."""
    carry, rake = (account_get(kind=kind, table=open_table) for kind in ("carry", "rake"))
    pot = account_get(kind="pot", table=open_table, ref=2)
    ledger_post(lines=[Line(seat3, -31, "ante"), Line(pot, 31, "ante")], kind="ante", memo="", by=dana,
                table=open_table, hand_id=2)
    ledger_post(lines=[Line(pot, -31, "pot split"), Line(seat3, 28, "pot split"),
                       Line(carry, 1, "odd units carried"), Line(rake, 2, "rake")],
                kind="settlement", memo="", by=dana, table=open_table, hand_id=2)

    swap_accounts(carry, rake, protection_lifted)
    ok, output = verify()

    lines = output.splitlines()
    assert not ok
    made, t = Seal.objects.get(model="ledger.Account", record=carry.pk), f"t{open_table.pk}"
    assert (
        f"table Rocket 1 (chain table:{open_table.pk}), position {made.position}, ledger.Account {carry.pk} "
        f"({t}:rake): its figures differ from its seal (created): code is \"{t}:rake\", "
        f"sealed \"{t}:carry\"; kind is \"rake\", sealed \"carry\""
    ) in lines, lines
    assert any(f"ledger.Account {rake.pk} ({t}:carry): its figures differ" in line for line in lines)


_keys = iter(range(1, 10_000))


def key() -> str:
    return f"verify-test-{next(_keys)}"


def blackstone_played(table, dana, pete):
    """A Blackstone hand at `table` (ante 100) through the services, settled: the table opened with
    a signed count and a fill, three seats sat down with chips brought (no cash), the low 2 takes a
    second 10 and pays its ante and 5 into the pot, which is raked and split. Its antes went to the
    hand's wagers and back, the pot took the rest."""
    shift_start(user=pete, pit=table.pit, by=pete)
    shift_start(user=dana, table=table, by=pete)
    table_count(
        table=table, kind="opener", denominations={"25": 40}, by=pete, device="pit-pc", key=key(),
        counter=SignatureGiven("dana", "dana-pass"), witness=SignatureGiven("pete", "pete-pass"),
    )
    tray_fill(table=table, amount=1000, by=pete, key=key())
    shoe_start(table=table, decks=1, by=pete, key=key())
    for number in (1, 2, 3):
        seat_open(table=table, seat=number, chips=300, player_name=f"Player {number}", by=dana, key=key())
    hand = play(hand_start(table=table, by=dana, key=key()), *SECOND_TEN, dana)
    return hand_settle(hand=hand, by=dana, expected_seq=hand.seq, key=key())


def test_a_hands_wagers_and_pot_swapped_together_are_named_by_the_seal_its_start_wrote(
    pit, dana, pete, protection_lifted
):
    """A pot game's hand moves both its wagers (the antes) and its pot (the ante of the loser, the
    split, the rake), by the same kinds of transaction, each naming the hand: swapped (kind and
    code; the ref is the hand's), each agrees with itself, every transaction still posts to its own
    hand's wagers or pot, and no hash breaks. The hand's start sealed which account is its wagers."""
    table = new_table(pit=pit, name="Blackstone 1", game=Game.BLACKSTONE, min_bet=5, max_bet=500,
                      options={"ante": 100})
    hand = blackstone_played(table, dana, pete)
    wager, pot = (Account.objects.get(kind=kind, ref=hand.pk) for kind in ("wager", "pot"))
    assert wager.postings.exists() and pot.postings.exists() and verify()[0]

    swap_accounts(wager, pot, protection_lifted)
    ok, output = verify()

    lines = output.splitlines()
    assert not ok
    made = Seal.objects.get(model="ledger.Account", record=wager.pk)
    assert (
        f"table Blackstone 1 (chain table:{table.pk}), position {made.position}, ledger.Account {wager.pk} "
        f"({pot.code}): its figures differ from its seal (created): code is \"{pot.code}\", "
        f"sealed \"{wager.code}\"; kind is \"pot\", sealed \"wager\""
    ) in lines, lines


def test_the_cage_and_the_patrons_swapped_where_only_a_redemption_moved_them_are_named_by_their_seals(
    casino, cage, patrons, pete, protection_lifted
):
    """Chips redeemed at the cage are a cash-out, which moves the patrons and the cage alike (a
    seat's cash-out moves the patrons): swapped (kind and code), each agrees with itself and the
    casino, and no hash breaks. Each was sealed as it was first made, here in the casino's chain."""
    ledger_post(lines=[Line(patrons, -70, "redeemed"), Line(cage, 70, "redeemed")], kind="cash_out",
                memo="", by=pete, casino=casino)

    swap_accounts(cage, patrons, protection_lifted)
    ok, output = verify()

    lines = output.splitlines()
    assert not ok
    made, c = Seal.objects.get(model="ledger.Account", record=cage.pk), f"c{casino.pk}"
    assert (
        f"casino Riverside (chain casino:{casino.pk}), position {made.position}, ledger.Account {cage.pk} "
        f"({c}:patrons): its figures differ from its seal (created): code is \"{c}:patrons\", "
        f"sealed \"{c}:cage\"; kind is \"patrons\", sealed \"cage\""
    ) in lines, lines
    assert any(f"ledger.Account {patrons.pk} ({c}:cage): its figures differ" in line for line in lines)


def test_a_table_made_without_its_accounts_gets_each_sealed_in_its_chain_as_first_used(pit, dana, pete):
    """A table from before tables were made with their accounts (sealed at the upgrade, as an
    auditor seals it) has none: its opening count makes its tray, the fill the casino's cage, the
    sit-downs the patrons, the hand its carry and the settlement its rake. Each is sealed as it is
    made, in the table's chain, so verify_ledger names none of them."""
    with transaction.atomic():
        table = Table.objects.create(pit=pit, name="Blackstone 2", game=Game.BLACKSTONE, min_bet=5,
                                     max_bet=500, options={"ante": 100})
        seal(table, table=table, event="sealed at upgrade")

    blackstone_played(table, dana, pete)

    ok, output = verify()
    assert ok, output
    made = {kind: Account.objects.get(kind=kind, ref=None, code__endswith=f":{kind}")
            for kind in ("tray", "carry", "rake", "cage", "patrons")}
    assert made["rake"].balance == 5
    sealed = {kind: list(Seal.objects.filter(model="ledger.Account", record=account.pk)
                         .values_list("event", "chain__name")) for kind, account in made.items()}
    assert sealed == dict.fromkeys(made, [("created", f"table:{table.pk}")])
