"""A table's settings change through one audited service: pete runs the pit, dana deals at Rocket 1,
paul is a pit manager off shift in this pit. Every refusal writes nothing; every change writes one
audit row with the old and new values; each hand keeps the limits it started with."""

import pytest
from hypothesis import given
from hypothesis import strategies as st

from casino.errors import DomainError, NotAllowed
from casino.models import AuditEvent
from ledger.models import Seal
from tables.games.blackstone import BlackstoneOptions
from tables.games.pairs import PairsOptions
from tables.games.rocket import RocketOptions
from tables.games.starboard import StarboardOptions
from tables.models import Casino, Game, Hand, Pit, Table
from tables.services import (
    SettingsError,
    hand_start,
    pit_create,
    seat_close,
    shift_start,
    shoe_retire,
    table_create,
    table_settings_change,
)
from tables.services.settings import _check, largest_payout

from .conftest import key, person, play, seat
from .test_hands import settle

pytestmark = pytest.mark.django_db

ROCKET_SETTINGS = ("Rocket 1", "rocket", 10, 500, 1000, 100, {})


@pytest.fixture
def on_shift(rocket, dana, pete):
    shift_start(user=pete, pit=rocket.pit, by=pete)
    shift_start(user=dana, table=rocket, by=pete)
    return rocket


@pytest.fixture
def boss(django_user_model):
    return django_user_model.objects.create_superuser(username="boss", password="boss-pass")


def settings_of(table: Table) -> tuple:
    table = Table.objects.get(pk=table.pk)
    return (
        table.name,
        table.game,
        table.min_bet,
        table.max_bet,
        table.payout_approval_threshold,
        table.chip_unit_cents,
        table.options,
    )


def audit_rows() -> list[AuditEvent]:
    actions = (AuditEvent.Action.TABLE_SETTINGS, AuditEvent.Action.TABLE_CREATE, AuditEvent.Action.PIT_CREATE)
    return list(AuditEvent.objects.filter(action__in=actions))


def refused(error, match: str, table: Table, **changes):
    """The change is refused with a sentence and nothing is written: no audit row, table unchanged."""
    before = settings_of(table)
    with pytest.raises(error, match=match):
        table_settings_change(table=table, **changes)
    assert settings_of(table) == before
    assert audit_rows() == []


def check_settings(table: Table) -> None:
    """The service's checks alone, on a table kept in memory."""
    _check(table, game_changed=False)


# A change and its audit row


def test_a_change_writes_one_audit_row_with_old_and_new_values_who_and_why(on_shift, pete):
    table = table_settings_change(
        table=on_shift, by=pete, max_bet=1000, payout_approval_threshold=600, min_bet=10, reason="VIP night"
    )

    assert (table.max_bet, table.payout_approval_threshold) == (1000, 600)
    [event] = audit_rows()
    assert event.action == AuditEvent.Action.TABLE_SETTINGS and event.user == pete
    assert event.detail == {
        "table": on_shift.pk,
        "changes": {"max_bet": [500, 1000], "payout_approval_threshold": [1000, 600]},  # min_bet unchanged
        "reason": "VIP night",
    }


def test_a_change_that_changes_nothing_writes_nothing(on_shift, pete):
    table_settings_change(table=on_shift, by=pete, min_bet=10, max_bet=500, options={})

    assert audit_rows() == []


def test_options_change_as_the_engine_reads_them(on_shift, pete):
    table_settings_change(table=on_shift, by=pete, options={"start": "button"}, payout_approval_threshold=400)

    assert on_shift.__class__.objects.get(pk=on_shift.pk).house_rules().start == "button"
    assert audit_rows()[0].detail["changes"]["options"] == [{}, {"start": "button"}]


# Who may


def test_a_dealer_and_a_pit_manager_off_shift_in_the_pit_may_not(on_shift, dana):
    paul = person("paul", "Pit manager")
    for user in (dana, paul):
        refused(NotAllowed, "pit manager on shift", on_shift, by=user, max_bet=1000)


def test_an_administrator_may_without_a_shift(on_shift, boss):
    table_settings_change(table=on_shift, by=boss, min_bet=20, payout_approval_threshold=400)

    assert settings_of(on_shift)[2] == 20
    assert audit_rows()[0].user == boss


# The game


def test_the_game_cannot_change_while_a_shoe_is_in_play(on_shift, pete):
    refused(SettingsError, "while a shoe is in play", on_shift, by=pete, game=Game.BLACKSTONE)


def test_the_game_cannot_change_while_a_player_is_seated(on_shift, pete, dana):
    seat(on_shift, 1, 100, dana)
    shoe_retire(shoe=on_shift.shoes.get(), by=pete, key=key())

    refused(SettingsError, "while a player is seated", on_shift, by=pete, game=Game.BLACKSTONE)


def test_the_game_changes_once_the_table_is_empty_and_its_shoe_retired(on_shift, pete, dana):
    session = seat(on_shift, 1, 100, dana)
    seat_close(session=session, by=dana, key=key())
    shoe_retire(shoe=on_shift.shoes.get(), by=pete, key=key())

    table = table_settings_change(
        table=on_shift, by=pete, game=Game.BLACKSTONE, min_bet=5, payout_approval_threshold=100
    )

    assert table.game == Game.BLACKSTONE
    assert audit_rows()[0].detail["changes"]["game"] == ["rocket", "blackstone"]


# Limits, options and the threshold


@pytest.mark.parametrize(
    "changes, match",
    [
        ({"min_bet": 600}, r"minimum bet \(600\) cannot be above the maximum \(500\)"),
        ({"min_bet": 0}, "The minimum must be a whole number of units from 1"),
        ({"max_bet": 505}, "multiples of 10"),
        ({"chip_unit_cents": 0}, "A unit must be"),
        ({"max_bet": 2**31}, "from 1 to 2,147,483,647"),
        ({"options": {"start": "middle"}}, "Rocket refuses these house rules: Rocket starts from"),
        ({"options": {"ante": 5}}, "Unknown house rule ante"),
        ({"options": ["start"]}, "House rules are named settings"),
        ({"payout_approval_threshold": 500}, "largest one hand can pay one seat here is 500"),
        ({"max_bet": 200}, "approval threshold of 1000 units"),
    ],
)
def test_settings_that_make_no_sense_are_refused(on_shift, pete, changes, match):
    refused(SettingsError, match, on_shift, by=pete, **changes)


def test_the_threshold_just_below_the_largest_payout_stands(on_shift, pete):
    table_settings_change(table=on_shift, by=pete, payout_approval_threshold=499)

    assert settings_of(on_shift)[4] == 499


def test_the_largest_payout_each_game_can_pay_one_seat():
    assert largest_payout(game=Game.ROCKET, max_bet=500, rules=RocketOptions()) == 500  # pair of 10s
    # seven others each paying the ante and all 45 white stones
    assert largest_payout(game=Game.BLACKSTONE, max_bet=500, rules=BlackstoneOptions()) == 7 * (5 + 45)
    # six antes, eight cards the common hand can take and six busts at 1 unit each
    assert largest_payout(game=Game.STARBOARD, max_bet=100, rules=StarboardOptions()) == 6 + 8 + 6
    assert largest_payout(game=Game.PAIRS, max_bet=100, rules=PairsOptions()) == 0  # forfeit
    assert largest_payout(game=Game.PAIRS, max_bet=100, rules=PairsOptions(ending="seattle")) == 1
    assert largest_payout(game=Game.PAIRS, max_bet=100, rules=PairsOptions(ending="tacoma")) == 6
    assert largest_payout(game=Game.PAIRS, max_bet=100, rules=PairsOptions(ending="cutchfeld")) == 30 + 10
    catch = PairsOptions(ending="cutchfeld", target=11, five_card_catch=True)
    assert largest_payout(game=Game.PAIRS, max_bet=100, rules=catch) == 7 * 10


def test_a_table_that_never_pays_takes_any_threshold(pairs, pete, boss):
    table_settings_change(table=pairs, by=boss, options={}, payout_approval_threshold=5000)

    assert settings_of(pairs)[4:] == (5000, 100, {})


@given(max_bet=st.integers(1, 1000).map(lambda tens: tens * 10), threshold=st.integers(0, 20_000))
def test_a_rocket_threshold_stands_exactly_when_a_payout_can_pass_it(max_bet, threshold):
    table = Table(game=Game.ROCKET, min_bet=10, max_bet=max_bet, payout_approval_threshold=threshold)

    if threshold < max_bet:
        check_settings(table)
    else:
        with pytest.raises(SettingsError, match="No payout could reach"):
            check_settings(table)


# Hands keep the limits they started with


def test_hands_before_and_after_a_change_record_each_their_own_limits(on_shift, pete, dana):
    seat(on_shift, 1, 500, dana)
    before = hand_start(table=on_shift, bets={1: 20}, by=dana, key=key())
    settle(play(before, [5, 3], [], dana), dana)  # the dealer's 3 ends it

    table_settings_change(table=on_shift, by=pete, min_bet=20, max_bet=400, payout_approval_threshold=300)
    after = hand_start(table=on_shift, bets={1: 20}, by=dana, key=key())

    limits = {"min_bet": 10, "max_bet": 500, "payout_approval_threshold": 1000, "chip_unit_cents": 100}
    assert Hand.objects.get(pk=before.pk).limits == limits
    changed = {"min_bet": 20, "max_bet": 400, "payout_approval_threshold": 300}
    assert Hand.objects.get(pk=after.pk).limits == {**limits, **changed}
    # sealed when the hand started: auditors can rely on them (a shift sealed "started" may share its id)
    sealed = Seal.objects.get(model="tables.Hand", record=after.pk, event="started")
    assert sealed.figures["limits"]["max_bet"] == 400


def test_a_payout_is_judged_by_the_threshold_in_force_when_its_hand_started(on_shift, pete, dana):
    table_settings_change(table=on_shift, by=pete, payout_approval_threshold=100)
    seat(on_shift, 1, 500, dana)
    hand = hand_start(table=on_shift, bets={1: 500}, by=dana, key=key())

    table_settings_change(table=on_shift, by=pete, payout_approval_threshold=499)  # mid-hand
    hand = settle(play(hand, [5, 9, 4, 9], [("hit",)], dana), dana)  # the dealer pairs 9s: pays 450

    assert hand.status == Hand.Status.AWAITING_APPROVAL  # 450 > 100, the hand's threshold


def test_a_hand_from_before_limits_were_recorded_is_judged_by_the_tables_threshold(on_shift, dana):
    seat(on_shift, 1, 500, dana)
    hand = hand_start(table=on_shift, bets={1: 20}, by=dana, key=key())
    Hand.objects.filter(pk=hand.pk).update(limits=None)  # as the migration leaves old hands

    old = Hand.objects.select_related("table").get(pk=hand.pk)
    assert old.payout_approval_threshold == 1000
    assert "limits" not in old.seal_content()  # its seals never held them


# Creating tables and pits


def test_a_table_is_created_with_checked_settings_and_one_audit_row(pit, boss):
    settings = {"game": Game.ROCKET, "min_bet": 10, "max_bet": 300, "payout_approval_threshold": 20}
    table = table_create(pit=pit, name="Rocket 7", **settings, by=boss)

    [event] = audit_rows()
    assert (event.action, event.user, event.detail["table"]) == ("table_create", boss, table.pk)
    assert event.detail["settings"]["max_bet"] == 300


def test_a_table_whose_threshold_no_payout_reaches_is_not_created(rocket, pit, boss):
    with pytest.raises(SettingsError, match="largest one hand can pay one seat here is 300"):
        table_create(pit=pit, name="Rocket 7", game=Game.ROCKET, min_bet=10, max_bet=300, by=boss)
    with pytest.raises(SettingsError, match="already has a table named Rocket 1"):
        table_create(pit=pit, name="Rocket 1", game=Game.ROCKET, min_bet=10, max_bet=3000, by=boss)

    assert not Table.objects.filter(name="Rocket 7").exists()
    assert Table.objects.filter(name="Rocket 1").count() == 1
    assert audit_rows() == []


def test_a_pit_manager_adds_tables_only_to_the_pit_he_runs(pit, pete):
    with pytest.raises(NotAllowed, match="pit manager on shift"):
        table_create(pit=pit, name="Rocket 7", game=Game.ROCKET, min_bet=10, max_bet=3000, by=pete)
    shift_start(user=pete, pit=pit, by=pete)

    assert table_create(pit=pit, name="Rocket 7", game=Game.ROCKET, min_bet=10, max_bet=3000, by=pete).pk


def test_only_an_administrator_creates_a_pit_and_it_is_audited(pete, boss):
    casino = Casino.objects.create(name="Riverside")
    with pytest.raises(NotAllowed, match="administrator"):
        pit_create(casino=casino, name="Pit 2", by=pete)
    with pytest.raises(DomainError, match="needs a name"):
        pit_create(casino=casino, name=" ", by=boss)

    pit = pit_create(casino=casino, name="Pit 2", by=boss)

    assert Pit.objects.filter(casino=casino).get() == pit
    assert [e.detail for e in audit_rows()] == [{"pit": pit.pk, "casino": casino.pk, "name": "Pit 2"}]
