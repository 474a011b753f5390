"""Players as people: seated by card, cash in summed per gaming day across tables, identification
asked before the reporting threshold, the multiple-transaction log, merges audited."""

import re
from datetime import timedelta

import pytest
from django.utils import timezone
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from casino.errors import DomainError
from casino.models import AuditEvent
from ledger.models import Account
from tables.models import CashIn, Incident, Player, PlayerRules, SeatSession, Table
from tables.players import cash_daily, player_ids, player_visits
from tables.services import seat_buy_in, seat_close, seat_open
from tables.services.players import Identification, IdentificationNeeded, player_create, player_merge
from tables.services.seating import player_account

from .conftest import deal_at, key

pytestmark = pytest.mark.django_db

PASSPORT = Identification(type="passport", number="X123", issuer="FR")


@pytest.fixture
def five_a_unit(rocket, blackstone):
    """Both tables' units worth 5 currency: 2,000 units are 10,000."""
    Table.objects.filter(pk__in=[rocket.pk, blackstone.pk]).update(chip_unit_cents=500)
    rocket.refresh_from_db()
    blackstone.refresh_from_db()


@pytest.fixture
def ann(pit, pete):
    return player_create(casino=pit.casino, name="Ann Smith", card_number="1001", by=pete)


def sit(table, number, units, by, **player):
    return seat_open(table=table, seat=number, buy_in=units, by=by, key=key(), **player)


def test_a_seat_is_opened_for_a_player_by_card_number(ann, rocket, dana, pete):
    deal_at(rocket, dana, pete)

    session = sit(rocket, 1, 100, dana, card_number="1001")

    assert (session.player, session.player_name) == (ann, "Ann Smith")


def test_an_anonymous_player_still_sits_down_with_a_description(rocket, dana, pete):
    deal_at(rocket, dana, pete)

    session = sit(rocket, 1, 100, dana, player_name="man in a red tie")

    assert (session.player, session.player_name) == (None, "man in a red tie")
    assert CashIn.objects.get(session=session).description == "man in a red tie"


def test_an_unknown_card_is_refused_and_nothing_is_written(ann, rocket, dana, pete):
    deal_at(rocket, dana, pete)

    with pytest.raises(DomainError, match="No player holds card 9999"):
        sit(rocket, 1, 100, dana, card_number="9999")

    assert not SeatSession.objects.exists()


def test_a_card_number_is_unique_in_the_casino(ann, pit, pete):
    with pytest.raises(DomainError, match="already issued"):
        player_create(casino=pit.casino, name="Someone Else", card_number="1001", by=pete)


def test_cash_in_is_recorded_in_currency_and_logged_from_the_logging_threshold(
    ann, rocket, dana, pete, five_a_unit
):
    deal_at(rocket, dana, pete)

    session = sit(rocket, 1, 599, dana, card_number="1001")  # 2,995: under 3,000
    seat_buy_in(session=session, amount=600, by=dana, key=key())  # 3,000: logged

    rows = list(CashIn.objects.order_by("pk").values_list("player", "units", "cents", "logged"))
    assert rows == [(ann.pk, 599, 299_500, False), (ann.pk, 600, 300_000, True)]


def test_a_buy_in_crossing_the_reporting_threshold_across_tables_asks_for_identification(
    ann, rocket, blackstone, dana, olga, pete, five_a_unit
):
    # given 9,000 in cash at Rocket today
    deal_at(rocket, dana, pete)
    deal_at(blackstone, olga, pete)
    sit(rocket, 1, 1800, dana, card_number="1001")

    # when 1,005 more at Blackstone would make 10,005 without identification: refused, nothing written
    with pytest.raises(IdentificationNeeded, match="ask for identification"):
        sit(blackstone, 1, 201, olga, card_number="1001")
    assert SeatSession.objects.count() == 1
    assert CashIn.objects.count() == 1

    # then with identification it goes through, the player is identified and the pit is told
    sit(blackstone, 1, 201, olga, card_number="1001", identification=PASSPORT)
    ann.refresh_from_db()
    assert (ann.id_type, ann.id_number, ann.id_issuer) == ("passport", "X123", "FR")
    incident = Incident.objects.get(kind=Incident.Kind.CASH_REPORT)
    assert incident.table == blackstone
    assert "Ann Smith" in incident.detail


def test_an_identified_player_is_not_asked_again_and_the_pit_is_told_once(
    ann, rocket, dana, pete, five_a_unit
):
    deal_at(rocket, dana, pete)
    session = sit(rocket, 1, 2001, dana, card_number="1001", identification=PASSPORT)

    seat_buy_in(session=session, amount=100, by=dana, key=key())

    assert Incident.objects.filter(kind=Incident.Kind.CASH_REPORT).count() == 1


def test_an_anonymous_player_past_the_reporting_threshold_must_be_carded(rocket, dana, pete, five_a_unit):
    deal_at(rocket, dana, pete)
    session = sit(rocket, 1, 1000, dana)

    with pytest.raises(IdentificationNeeded, match="seat the player by card"):
        seat_buy_in(session=session, amount=1001, by=dana, key=key())

    assert CashIn.objects.count() == 1


def test_an_anonymous_players_cash_counts_within_its_gaming_day_only(
    rocket, dana, pete, five_a_unit, monkeypatch
):
    deal_at(rocket, dana, pete)
    session = sit(rocket, 1, 1000, dana)  # 5,000 of the day's 10,000
    seat_buy_in(session=session, amount=1000, by=dana, key=key())  # exactly 10,000: allowed
    with pytest.raises(IdentificationNeeded):
        seat_buy_in(session=session, amount=1, by=dana, key=key())

    # the next gaming day begins with nothing counted
    tomorrow = timezone.now() + timedelta(days=1)
    monkeypatch.setattr(timezone, "now", lambda: tomorrow)
    seat_buy_in(session=session, amount=1000, by=dana, key=key())

    assert list(CashIn.objects.filter(session=session).values_list("units", flat=True)) == [1000] * 3


def test_the_casino_sets_its_own_thresholds(ann, pit, rocket, dana, pete):
    PlayerRules.objects.create(casino=pit.casino, logging_threshold=50, reporting_threshold=100)
    deal_at(rocket, dana, pete)

    session = sit(rocket, 1, 60, dana, card_number="1001")
    with pytest.raises(IdentificationNeeded):
        seat_buy_in(session=session, amount=41, by=dana, key=key())

    assert CashIn.objects.get().logged


def test_a_merge_points_the_duplicate_at_the_record_kept_and_is_audited(ann, pit, rocket, dana, pete):
    deal_at(rocket, dana, pete)
    twin = player_create(casino=pit.casino, name="A. Smith", card_number="2002", by=pete)
    old = sit(rocket, 1, 100, dana, card_number="2002")

    kept = player_merge(duplicate=twin, into=ann, by=pete)

    twin.refresh_from_db()
    old.refresh_from_db()
    assert (kept, twin.merged_into, old.player) == (ann, ann, twin)  # history is not rewritten
    assert set(player_ids(ann)) == {ann.pk, twin.pk}
    assert list(player_visits(pete, ann)) == [old]
    event = AuditEvent.objects.get(action=AuditEvent.Action.PLAYER_MERGE)
    assert (event.user, event.detail["duplicate"], event.detail["into"]) == (pete, twin.pk, ann.pk)
    # the duplicate's card now seats the record kept
    assert sit(rocket, 2, 100, dana, card_number="2002").player == ann


def test_a_merged_players_cash_counts_as_one_person(ann, pit, rocket, dana, pete, five_a_unit):
    deal_at(rocket, dana, pete)
    twin = player_create(casino=pit.casino, name="A. Smith", card_number="2002", by=pete)
    sit(rocket, 1, 1500, dana, card_number="2002")
    player_merge(duplicate=twin, into=ann, by=pete)

    with pytest.raises(IdentificationNeeded):
        sit(rocket, 2, 501, dana, card_number="1001")
    rows = cash_daily(pete, first=CashIn.objects.get().day, last=CashIn.objects.get().day)
    assert [(row["player"], row["cents"]) for row in rows] == [(ann, 750_000)]


def test_a_merge_that_takes_one_persons_cash_past_the_reporting_threshold_tells_the_pit(
    ann, pit, rocket, blackstone, dana, olga, pete, five_a_unit
):
    # given 7,500 in cash as Ann at Rocket and 5,000 as her duplicate at Blackstone, each under 10,000
    deal_at(rocket, dana, pete)
    deal_at(blackstone, olga, pete)
    twin = player_create(casino=pit.casino, name="A. Smith", card_number="2002", by=pete)
    sit(rocket, 1, 1500, dana, card_number="1001")
    sit(blackstone, 1, 1000, olga, card_number="2002")
    assert not Incident.objects.filter(kind=Incident.Kind.CASH_REPORT).exists()

    # when the two records are merged: one person with 12,500 today
    player_merge(duplicate=twin, into=ann, by=pete)

    # then the pit is told once, at the table of the day's last buy-in
    incident = Incident.objects.get(kind=Incident.Kind.CASH_REPORT)
    assert incident.table == blackstone
    assert "Ann Smith" in incident.detail and "A. Smith" in incident.detail and "12500.00" in incident.detail


def test_a_merge_that_stays_within_the_threshold_or_was_past_it_already_opens_no_new_incident(
    ann, pit, rocket, dana, pete, five_a_unit
):
    deal_at(rocket, dana, pete)
    twin = player_create(casino=pit.casino, name="A. Smith", card_number="2002", by=pete)
    other = player_create(casino=pit.casino, name="Ann S.", card_number="2003", by=pete)
    sit(rocket, 1, 1000, dana, card_number="1001")
    sit(rocket, 2, 999, dana, card_number="2002")
    player_merge(duplicate=twin, into=ann, by=pete)  # 9,995: within
    assert not Incident.objects.filter(kind=Incident.Kind.CASH_REPORT).exists()

    sit(rocket, 3, 2001, dana, card_number="2003", identification=PASSPORT)  # past it alone: told then
    player_merge(duplicate=other, into=ann, by=pete)

    assert Incident.objects.filter(kind=Incident.Kind.CASH_REPORT).count() == 1


def test_only_a_pit_manager_on_shift_merges(ann, pit, dana, pete):
    twin = player_create(casino=pit.casino, name="A. Smith", by=pete)

    with pytest.raises(DomainError, match="Only a pit manager"):
        player_merge(duplicate=twin, into=ann, by=dana)

    assert Player.objects.get(pk=twin.pk).merged_into is None
    assert not AuditEvent.objects.filter(action=AuditEvent.Action.PLAYER_MERGE).exists()


def test_a_player_is_not_merged_into_itself(ann, pit, pete, rocket):
    from tables.services import shift_start

    shift_start(user=pete, pit=pit, by=pete)
    with pytest.raises(DomainError, match="itself"):
        player_merge(duplicate=ann, into=ann, by=pete)


# The pit's player pages


def web(user):
    from django.test import Client

    client = Client()
    client.force_login(user)
    return client


@pytest.fixture
def other_casino_player(pete):
    from tables.models import Casino

    elsewhere = Casino.objects.create(name="Elsewhere")
    return player_create(casino=elsewhere, name="Zed", card_number="1001", by=pete)


def test_the_pit_finds_a_player_by_name_or_card_and_shows_visits_rating_and_cash(
    ann, rocket, dana, pete, other_casino_player
):
    deal_at(rocket, dana, pete)
    sit(rocket, 1, 3000, dana, card_number="1001")
    pit = web(pete)

    found = pit.get("/pit/players/", {"q": "1001"})
    shown = pit.get(f"/pit/players/{ann.pk}/")

    assert found.status_code == 200
    assert list(found.context["found"]) == [ann]  # not Zed, whose card in another casino is also 1001
    assert shown.status_code == 200
    assert [visit.seat.table for visit in shown.context["visits"]] == [rocket]
    assert shown.context["rating"].sessions == 1
    assert [row["currency"] for row in shown.context["cash_days"]] == [3000]


def test_a_player_of_a_casino_the_pit_manager_does_not_run_is_not_found(
    rocket, pete, dana, other_casino_player
):
    deal_at(rocket, dana, pete)

    assert web(pete).get(f"/pit/players/{other_casino_player.pk}/").status_code == 404


def test_dealers_see_no_player_pages(ann, rocket, dana, pete):
    deal_at(rocket, dana, pete)

    assert web(dana).get(f"/pit/players/{ann.pk}/").status_code in (403, 404)
    assert web(dana).get("/pit/cash/").status_code == 403


def test_the_pit_records_a_player_and_refuses_a_card_already_issued(ann, rocket, dana, pete):
    deal_at(rocket, dana, pete)
    pit = web(pete)

    made = pit.post("/pit/players/new/", {"key": key(), "name": "Bob", "card_number": "1002"})
    again = pit.post("/pit/players/new/", {"key": key(), "name": "Bob", "card_number": "1002"})

    bob = Player.objects.get(card_number="1002")
    assert made.status_code == 302 and made["Location"] == f"/pit/players/{bob.pk}/"
    assert again.status_code == 400 and "already issued" in again.content.decode()
    assert Player.objects.filter(name="Bob").count() == 1


def test_the_pit_merges_a_duplicate_by_its_card_from_the_kept_players_page(ann, pit, rocket, dana, pete):
    deal_at(rocket, dana, pete)
    twin = player_create(casino=pit.casino, name="A. Smith", card_number="2002", by=pete)

    merged = web(pete).post(f"/pit/players/{ann.pk}/merge/", {"key": key(), "duplicate_card": "2002"})

    assert merged.status_code == 302
    assert Player.objects.get(pk=twin.pk).merged_into == ann
    found = web(pete).get("/pit/players/", {"q": "2002"}).content.decode()  # the card still finds her
    assert f'href="/pit/players/{ann.pk}/"' in found and "No player matches" not in found


def test_an_auditor_reads_but_does_not_merge(ann, pit, ada, pete):
    twin = player_create(casino=pit.casino, name="A. Smith", card_number="2002", by=pete)
    auditor = web(ada)

    assert auditor.get(f"/pit/players/{ann.pk}/").status_code == 200
    merge = auditor.post(f"/pit/players/{ann.pk}/merge/", {"key": key(), "duplicate_card": "2002"})
    assert merge.status_code == 403
    assert Player.objects.get(pk=twin.pk).merged_into is None


def test_the_cash_log_and_daily_report_export_as_csv(ann, rocket, dana, pete):
    deal_at(rocket, dana, pete)
    session = sit(rocket, 1, 3000, dana, card_number="1001")
    seat_buy_in(session=session, amount=100, by=dana, key=key())
    pit = web(pete)

    log = pit.get("/pit/cash/", {"format": "csv", "report": "log"}).content.decode().splitlines()
    daily = pit.get("/pit/cash/", {"format": "csv", "report": "daily"}).content.decode().splitlines()

    assert len(log) == 2  # the header and the one buy-in of at least 3,000
    assert log[1].split(",")[4:9] == ["Ann Smith", "1001", "", "3000", "3000.00"]
    assert daily[1].split(",")[1:2] + daily[1].split(",")[-1:] == ["Ann Smith", "3100.00"]


def test_the_cash_csv_writes_a_name_typed_as_a_formula_as_text(ann, rocket, dana, pete):
    deal_at(rocket, dana, pete)
    player_create(casino=rocket.pit.casino, name='=HYPERLINK("http://x","y")', card_number="3003", by=pete)
    sit(rocket, 1, 3000, dana, card_number="3003")

    log = web(pete).get("/pit/cash/", {"format": "csv", "report": "log"}).content.decode()

    assert "'=HYPERLINK" in log and ",=HYPERLINK" not in log


@pytest.mark.parametrize(
    ("days", "sentence"),
    [({"first": "2026-11-20", "last": "2026-11-10"}, "The first gaming day is after the last."),
     ({"first": "20/11/2026"}, "First gaming day: Enter a valid date.")],
)
def test_days_the_cash_page_cannot_read_are_refused_with_a_sentence(ann, pete, days, sentence):
    for answer in (web(pete).get("/pit/cash/", days), web(pete).get("/pit/cash/", {**days, "format": "csv"})):
        assert answer.status_code == 400 and sentence in answer.content.decode()


# Comps


def test_a_comp_is_given_against_a_share_of_theoretical_win_and_audited(ann, rocket, dana, pete):
    from tables.models import Comp
    from tables.services import hand_settle, hand_start
    from tables.services.players import comp_budget, comp_issue

    from .conftest import play

    deal_at(rocket, dana, pete)
    sit(rocket, 1, 500, dana, card_number="1001")
    sit(rocket, 2, 500, dana, player_name="red tie")
    hand = hand_start(table=rocket, bets={1: 100, 2: 100}, by=dana, key=key())
    hand = play(hand, [5, 6, 9, 4, 9], [("hit",), ("fold",)], dana)
    hand_settle(hand=hand, by=dana, expected_seq=hand.seq, key=key())

    # Ann bet 100 units of 1.00 at 8 decks: theoretical win 3.38 (the exact 3.377% edge), her
    # budget 30% of it
    assert comp_budget(ann) == 101
    comp_issue(player=ann, cents=100, reason="coffee", by=pete)
    with pytest.raises(DomainError, match="comp budget is 0.01"):
        comp_issue(player=ann, cents=2, reason="dinner", by=pete)

    assert list(Comp.objects.values_list("cents", flat=True)) == [100]
    event = AuditEvent.objects.get(action=AuditEvent.Action.COMP)
    assert (event.user, event.detail["cents"]) == (pete, 100)


def test_the_kept_records_page_lists_the_comps_given_to_a_record_merged_into_it(
    ann, pit, rocket, dana, pete
):
    from tables.services import hand_settle, hand_start
    from tables.services.players import comp_budget, comp_issue

    from .conftest import play

    deal_at(rocket, dana, pete)
    twin = player_create(casino=pit.casino, name="A. Smith", card_number="2002", by=pete)
    sit(rocket, 1, 500, dana, card_number="2002")
    sit(rocket, 2, 500, dana, player_name="red tie")
    hand = hand_start(table=rocket, bets={1: 100, 2: 100}, by=dana, key=key())
    hand = play(hand, [5, 6, 9, 4, 9], [("hit",), ("fold",)], dana)
    hand_settle(hand=hand, by=dana, expected_seq=hand.seq, key=key())
    comp_issue(player=twin, cents=100, reason="coffee", by=pete)

    player_merge(duplicate=twin, into=ann, by=pete)
    shown = web(pete).get(f"/pit/players/{ann.pk}/")

    # the budget left counts the duplicate's comp, and so does the list of comps given
    assert comp_budget(ann) == 1
    assert [(comp.player, comp.cents) for comp in shown.context["comps"]] == [(twin, 100)]
    assert "coffee" in shown.content.decode()


def test_a_dealer_gives_no_comps(ann, rocket, dana, pete):
    from tables.models import Comp
    from tables.services.players import comp_issue

    deal_at(rocket, dana, pete)
    with pytest.raises(DomainError, match="Only a pit manager"):
        comp_issue(player=ann, cents=1, reason="coffee", by=dana)
    assert not Comp.objects.exists()


def test_the_pit_page_refuses_a_comp_beyond_the_budget_with_its_sentence(ann, rocket, dana, pete):
    deal_at(rocket, dana, pete)

    answer = web(pete).post(f"/pit/players/{ann.pk}/comps/", {"key": key(), "amount": "5.00", "reason": "x"})

    assert answer.status_code == 400
    assert "comp budget is 0.00" in answer.content.decode()


def test_an_auditor_is_refused_a_comp_with_a_sentence_that_names_comps(ann, ada):
    from tables.models import Comp

    answer = web(ada).post(f"/pit/players/{ann.pk}/comps/", {"key": key(), "amount": "5.00", "reason": "x"})

    assert answer.status_code == 403 and "gives comps" in answer.content.decode()
    assert not Comp.objects.exists()


# The tablet


def test_the_tablet_seats_by_card_and_asks_for_identification_past_the_threshold(
    ann, rocket, dana, pete, five_a_unit
):
    deal_at(rocket, dana, pete)
    tablet = web(dana)

    page = tablet.get(f"/tablet/{rocket.pk}/")
    sat = {"key": key(), "seat": 1, "buy_in": 2000, "card_number": "1001"}
    tablet.post(f"/tablet/{rocket.pk}/seats/", sat)
    session = SeatSession.objects.get(player=ann)
    buy = f"/tablet/{rocket.pk}/seats/{session.pk}/buy/"
    asked = tablet.post(buy, {"key": key(), "seat": 1, "amount": 1})  # as the form sends it
    given = tablet.post(
        f"/tablet/{rocket.pk}/seats/{session.pk}/buy/",
        {"key": key(), "amount": 1, "id_type": "passport", "id_number": "X123", "id_issuer": "FR"},
    )

    assert 'name="card_number"' in page.content.decode()
    assert asked.status_code == 400 and "ask for identification" in asked.content.decode()
    # found trying the tablet: the refusal closed the form, to be found and typed again; it stays
    # open with the amount, the identification open under it
    buy_more = r'<details class="fold-out" open>\s*<summary class="button">Buy more</summary>.*?</form>'
    form = re.search(buy_more, asked.content.decode(), re.S)
    assert form and 'name="amount"' in form.group(0) and 'value="1"' in form.group(0)
    assert re.search(r'<details class="fold-out" open>\s*<summary>Identification', form.group(0))
    assert given.status_code in (200, 302)
    assert CashIn.objects.filter(session=session).count() == 2
    assert "X123" not in tablet.get(f"/tablet/{rocket.pk}/").content.decode()


# A property


@settings(max_examples=15, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(amounts=st.lists(st.integers(1, 60), min_size=1, max_size=6))
def test_buy_ins_go_through_exactly_while_the_days_cash_stays_within_the_threshold(
    pit, rocket, dana, pete, amounts
):
    from tables.selectors import user_can_deal
    from tables.services import seat_close

    thresholds = {"logging_threshold": 50, "reporting_threshold": 100}
    PlayerRules.objects.get_or_create(casino=pit.casino, defaults=thresholds)
    if not user_can_deal(dana, rocket):  # the examples share the test's floor
        deal_at(rocket, dana, pete)
    player = player_create(casino=pit.casino, name=f"Player {Player.objects.count()}", by=pete)
    session = sit(rocket, 1, amounts[0], dana, player=player)
    total = amounts[0] * 100
    for units in amounts[1:]:
        if total + units * 100 > 100 * 100:
            with pytest.raises(IdentificationNeeded):
                seat_buy_in(session=session, amount=units, by=dana, key=key())
        else:
            seat_buy_in(session=session, amount=units, by=dana, key=key())
            total += units * 100
    seat_close(session=session, by=dana, key=key())

    rows = CashIn.objects.filter(player=player)
    assert sum(row.cents for row in rows) == total <= 100 * 100
    assert all(row.logged == (row.units >= 50) for row in rows)


# Chips carried from one seat or table to another


def test_a_player_moving_tables_sits_down_with_the_chips_they_carry_no_cash_in(
    ann, rocket, blackstone, dana, olga, pete, five_a_unit
):
    # found moving a player on the floor: the only way to seat Ann at Blackstone with the chips she
    # carried from Rocket was a cash buy-in, so Blackstone's expected drop held cash its box never
    # got and Ann's cash in counted her 9,000 twice, past the reporting threshold
    deal_at(rocket, dana, pete)
    deal_at(blackstone, olga, pete)
    at_rocket = sit(rocket, 1, 1800, dana, card_number="1001")  # 9,000 in cash
    seat_close(session=at_rocket, by=dana, key=key())
    tray = balance(blackstone, Account.Kind.TRAY)

    there = seat_open(table=blackstone, seat=1, chips=1800, card_number="1001", by=olga, key=key())

    assert chips_of(there) == 1800
    assert CashIn.objects.filter(player=ann).values_list("units", flat=True).get() == 1800
    assert not Incident.objects.filter(kind=Incident.Kind.CASH_REPORT).exists()
    assert balance(blackstone, Account.Kind.DROP) == 0  # nothing in Blackstone's box
    assert balance(blackstone, Account.Kind.TRAY) == tray  # its tray gave nothing
    assert there.buy_in == 0


def test_a_buy_in_and_chips_brought_together(ann, rocket, dana, pete):
    deal_at(rocket, dana, pete)

    session = seat_open(table=rocket, seat=2, buy_in=100, chips=40, card_number="1001", by=dana, key=key())

    assert chips_of(session) == 140
    assert balance(rocket, Account.Kind.DROP) == 100
    assert CashIn.objects.get(session=session).units == 100


@pytest.mark.parametrize(
    ("amounts", "sentence"),
    [
        ({}, "with a buy-in, or with the chips they bring"),
        ({"buy_in": 0, "chips": 0}, "with a buy-in, or with the chips they bring"),
        ({"chips": -5}, "The chips brought must be a whole number of units from 0"),
        ({"buy_in": -5, "chips": 10}, "A buy-in must be a whole number of units from 0"),
    ],
)
def test_a_sit_down_without_cash_or_chips_is_refused_and_writes_nothing(
    rocket, dana, pete, amounts, sentence
):
    deal_at(rocket, dana, pete)
    with pytest.raises(DomainError, match=sentence):
        seat_open(table=rocket, seat=1, player_name="Tall man", by=dana, key=key(), **amounts)
    assert not SeatSession.objects.exists()


def test_the_tablet_seats_a_player_with_the_chips_they_carry(ann, rocket, dana, pete):
    deal_at(rocket, dana, pete)
    tablet = web(dana)

    seats = f"/tablet/{rocket.pk}/seats/"
    sat = tablet.post(seats, {"key": key(), "seat": 3, "chips": 250, "card_number": "1001"})
    empty = tablet.post(seats, {"key": key(), "seat": 4, "player_name": "Cy"})

    assert sat.status_code in (200, 302)
    assert chips_of(SeatSession.objects.get(player=ann)) == 250
    assert not CashIn.objects.exists()
    assert empty.status_code == 400
    assert "with a buy-in, or with the chips they bring" in empty.content.decode()
    assert 'name="chips"' in tablet.get(f"/tablet/{rocket.pk}/").content.decode()


def chips_of(session) -> int:
    return player_account(session).balance


def balance(table, kind) -> int:
    """The table's account of `kind`; one never posted to does not exist yet: 0."""
    return sum(Account.objects.filter(table=table, kind=kind).values_list("balance", flat=True))
