"""An anonymous player identified after sitting down: an append-only, sealed record written by a
pit manager of the table's pit on shift, and from then on the session's play, cash and time are the
player's in every read (the player's page, the cash reports, the rating, the threshold at a
later buy-in)."""

from datetime import timedelta

import pytest
from django.db import IntegrityError, connection, transaction
from django.test.utils import CaptureQueriesContext
from django.utils import timezone

from casino.errors import Conflict, DomainError, NotAllowed
from casino.models import AuditEvent
from casino.roles import PIT_MANAGER
from ledger.models import AppendOnlyError
from tables.models import CashIn, Casino, Incident, Pit, Player, SeatSession, SeatSessionIdentified, Table
from tables.pit.players import left_today
from tables.players import cash_daily, cash_log, player_cash_days, player_visits
from tables.ratings import player_rating
from tables.services import seat_buy_in, seat_close, seat_open, shift_start
from tables.services.players import (
    Identification,
    IdentificationNeeded,
    identify_session,
    player_create,
)

from .conftest import deal_at, key, person, signed_in

pytestmark = pytest.mark.django_db

PASSPORT = Identification(type="passport", number="X123", issuer="FR")


@pytest.fixture
def five_a_unit(rocket, blackstone):
    """Both tables' units worth 5 currency: 2,000 units are 10,000 (the default threshold)."""
    Table.objects.filter(pk__in=[rocket.pk, blackstone.pk]).update(chip_unit_cents=500)
    rocket.refresh_from_db()
    blackstone.refresh_from_db()


@pytest.fixture
def ann(pit, pete):
    return player_create(casino=pit.casino, name="Ann Smith", card_number="1001", by=pete)


@pytest.fixture
def stranger(rocket, dana, pete):
    """A man in a red tie, anonymous at Rocket's seat 3 with 100 units."""
    deal_at(rocket, dana, pete)
    return sit(rocket, 3, 100, dana, player_name="man in a red tie")


def sit(table, number, units, by, **player):
    return seat_open(table=table, seat=number, buy_in=units, by=by, key=key(), **player)


def identify(session, player, by, reason="Showed his licence", key_sent=None):
    return identify_session(session=session, player=player, reason=reason, by=by, key=key_sent or key())


# The record


def test_the_identification_is_refused_an_update_or_a_delete_by_the_database(ann, stranger, pete):
    identified = identify(stranger, ann, pete)

    with pytest.raises(AppendOnlyError):
        SeatSessionIdentified.objects.filter(pk=identified.pk).update(reason="Nothing")
    for sql in (
        "UPDATE tables_seatsessionidentified SET reason = 'Nothing'",
        "DELETE FROM tables_seatsessionidentified",
    ):
        with pytest.raises(IntegrityError), transaction.atomic(), connection.cursor() as cursor:
            cursor.execute(sql)

    assert SeatSessionIdentified.objects.get().reason == "Showed his licence"


def test_the_seat_session_sealed_at_the_sit_down_is_not_changed(ann, stranger, pete):
    identify(stranger, ann, pete)

    stranger.refresh_from_db()
    assert (stranger.player, stranger.player_name) == (None, "man in a red tie")


def test_the_identification_is_in_the_staff_audit_log_once(ann, stranger, pete, rocket):
    same = key()

    identify(stranger, ann, pete, key_sent=same)
    identify(stranger, ann, pete, key_sent=same)  # a retry of the same form
    identify(stranger, ann, pete)  # the same player named again: the first record answers

    event = AuditEvent.objects.get(action=AuditEvent.Action.SESSION_IDENTIFY)
    assert event.user == pete
    assert event.detail == {
        "session": stranger.pk,
        "table": rocket.name,
        "seat": 3,
        "described": "man in a red tie",
        "player": ann.pk,
        "player_name": "Ann Smith",
        "card": "1001",
        "reason": "Showed his licence",
    }


def test_a_refused_identification_is_not_in_the_audit_log(ann, stranger, pete, pit):
    identify(stranger, ann, pete)
    bea = player_create(casino=pit.casino, name="Bea", by=pete)

    with pytest.raises(Conflict):
        identify(stranger, bea, pete)
    with pytest.raises(DomainError):
        identify(stranger, ann, pete, reason=" ")

    events = AuditEvent.objects.filter(action=AuditEvent.Action.SESSION_IDENTIFY)
    assert [event.detail["player"] for event in events] == [ann.pk]


# The service's refusals


def test_a_session_seated_by_card_is_refused(ann, rocket, dana, pete, pit):
    deal_at(rocket, dana, pete)
    carded = sit(rocket, 1, 100, dana, card_number="1001")
    other = player_create(casino=pit.casino, name="Bea", by=pete)

    with pytest.raises(DomainError, match="sat down by card"):
        identify(carded, other, pete)

    assert not SeatSessionIdentified.objects.exists()


def test_a_player_of_another_casino_is_refused_as_one_that_does_not_exist(stranger, pete):
    zed = player_create(casino=Casino.objects.create(name="Elsewhere"), name="Zed", by=pete)

    with pytest.raises(DomainError, match=f"There is no player {zed.pk} at this casino"):
        identify(stranger, zed, pete)

    assert not SeatSessionIdentified.objects.exists()


def test_a_reason_is_required(ann, stranger, pete):
    with pytest.raises(DomainError, match="Say how you know"):
        identify(stranger, ann, pete, reason="  ")

    assert not SeatSessionIdentified.objects.exists()


def test_a_second_identification_as_another_player_is_refused_and_the_same_player_answers_the_first(
    ann, stranger, pete, pit
):
    first = identify(stranger, ann, pete)
    bea = player_create(casino=pit.casino, name="Bea", by=pete)

    with pytest.raises(Conflict, match="identified as Ann Smith .* already"):
        identify(stranger, bea, pete)
    again = identify(stranger, ann, pete)

    assert again == first
    assert SeatSessionIdentified.objects.count() == 1


def test_a_retry_with_the_same_key_is_applied_once(ann, stranger, pete):
    same = key()

    first = identify(stranger, ann, pete, key_sent=same)
    second = identify(stranger, ann, pete, key_sent=same)

    assert first == second
    assert SeatSessionIdentified.objects.count() == 1


def test_a_merged_record_identifies_the_player_kept(ann, stranger, pete, pit):
    from tables.services.players import player_merge

    twin = player_create(casino=pit.casino, name="A. Smith", card_number="2002", by=pete)
    player_merge(duplicate=twin, into=ann, by=pete)

    assert identify(stranger, twin, pete).player == ann


def test_a_dealer_may_not_identify(ann, stranger, dana):
    with pytest.raises(NotAllowed):
        identify(stranger, ann, dana)

    assert not SeatSessionIdentified.objects.exists()


def test_a_pit_manager_of_another_pit_may_not_identify(ann, stranger, pit):
    pam = person("pam", PIT_MANAGER)
    shift_start(user=pam, pit=Pit.objects.create(casino=pit.casino, name="Pit 2"), by=pam)

    with pytest.raises(NotAllowed):
        identify(stranger, ann, pam)


# Whose session it is, in every read


def test_the_players_page_shows_the_identified_session_its_cash_and_its_rating(ann, stranger, pete, rocket):
    identify(stranger, ann, pete)

    page = signed_in(pete).get(f"/pit/players/{ann.pk}/")

    assert page.status_code == 200
    assert [visit.pk for visit in page.context["visits"]] == [stranger.pk]
    assert page.context["rating"].sessions == 1
    assert [row["cents"] for row in page.context["cash_days"]] == [100 * rocket.chip_unit_cents]
    assert [visit.pk for visit in player_visits(pete, ann)] == [stranger.pk]
    assert player_rating("Ann Smith").sessions == 1


def test_the_cash_reports_count_the_identified_session_as_the_players(ann, rocket, dana, pete, stranger):
    sit(rocket, 1, 200, dana, card_number="1001")
    identify(stranger, ann, pete)
    day = CashIn.objects.first().day

    daily = cash_daily(pete, first=day, last=day)
    log = cash_log(pete, first=day, last=day, logged_only=False)

    assert [(row["player"], row["cents"]) for row in daily] == [(ann, 300 * rocket.chip_unit_cents)]
    assert [row.who for row in log] == [ann, ann]
    assert sum(row["cents"] for row in player_cash_days(pete, ann)) == 300 * rocket.chip_unit_cents


def test_the_identified_sessions_play_counts_toward_the_comp_budget(ann, stranger, pete, rocket, dana):
    from tables.services import hand_settle, hand_start
    from tables.services.players import comp_budget

    from .conftest import play

    sit(rocket, 4, 500, dana, player_name="red tie")
    hand = hand_start(table=rocket, bets={3: 100, 4: 100}, by=dana, key=key())
    hand = play(hand, [5, 6, 9, 4, 9], [("hit",), ("fold",)], dana)
    hand_settle(hand=hand, by=dana, expected_seq=hand.seq, key=key())
    assert comp_budget(ann) == 0

    identify(stranger, ann, pete)

    # 100 units of 1.00 at 8 decks: theoretical win 3.38, the budget 30% of it
    assert comp_budget(ann) == 101


def test_an_identification_that_takes_the_days_cash_past_the_threshold_tells_the_pit(
    ann, rocket, blackstone, dana, olga, pete, five_a_unit
):
    # given Ann carded at Rocket with 6,000 today, and a stranger at Blackstone with 4,500: each within
    deal_at(rocket, dana, pete)
    deal_at(blackstone, olga, pete)
    sit(rocket, 1, 1200, dana, card_number="1001")
    stranger = sit(blackstone, 2, 900, olga, player_name="woman in green")
    assert not Incident.objects.filter(kind=Incident.Kind.CASH_REPORT).exists()

    # when the stranger is identified as Ann: 10,500 for one person
    identify(stranger, ann, pete)

    # then the pit is told, at the stranger's table, and the daily report names Ann with it all
    incident = Incident.objects.get(kind=Incident.Kind.CASH_REPORT)
    assert incident.table == blackstone
    assert "Ann Smith" in incident.detail and "10500.00" in incident.detail
    day = CashIn.objects.first().day
    daily = cash_daily(pete, first=day, last=day)
    assert [(row["player"], row["cents"]) for row in daily] == [(ann, 1_050_000)]


def test_a_later_buy_in_of_the_identified_session_counts_the_players_cash_of_the_day(
    ann, rocket, blackstone, dana, olga, pete, five_a_unit
):
    # given Ann carded at Rocket with 6,000 today, and her anonymous session at Blackstone identified
    deal_at(rocket, dana, pete)
    deal_at(blackstone, olga, pete)
    sit(rocket, 1, 1200, dana, card_number="1001")
    stranger = sit(blackstone, 2, 100, olga, player_name="woman in green")
    identify(stranger, ann, pete)

    # when 4,500 more there would make 11,000: identification is asked of Ann (not refused as a stranger's)
    with pytest.raises(IdentificationNeeded, match="Ann Smith's cash in"):
        seat_buy_in(session=stranger, amount=900, by=olga, key=key())
    seat_buy_in(session=stranger, amount=900, identification=PASSPORT, by=olga, key=key())

    # then the buy-in is Ann's, and the pit is told
    assert CashIn.objects.filter(session=stranger).latest("pk").player == ann
    assert Incident.objects.get(kind=Incident.Kind.CASH_REPORT).table == blackstone
    assert Player.objects.get(pk=ann.pk).identified


def test_a_carded_buy_in_counts_the_cash_of_the_players_identified_session(
    ann, rocket, blackstone, dana, olga, pete, five_a_unit
):
    deal_at(rocket, dana, pete)
    deal_at(blackstone, olga, pete)
    stranger = sit(blackstone, 2, 1500, olga, player_name="woman in green")  # 7,500
    identify(stranger, ann, pete)

    with pytest.raises(IdentificationNeeded, match="ask for identification"):
        sit(rocket, 1, 600, dana, card_number="1001")  # 3,000 more: 10,500

    assert SeatSession.objects.count() == 1


# The pit's form


def identify_form(client, session, player, reason="Showed his licence", form_key=None):
    url = f"/pit/tables/{session.seat.table_id}/seats/{session.pk}/identify/"
    return client.post(url, {"player": player, "reason": reason, "key": form_key or key()})


def test_the_pit_identifies_a_seated_stranger_from_the_tables_page(ann, stranger, pete, rocket):
    pit = signed_in(pete)
    page = pit.get(f"/pit/tables/{rocket.pk}/")
    assert f'name="identify" value="{stranger.pk}"' in page.content.decode()
    found = pit.get("/pit/players/", {"identify": stranger.pk, "q": "ann"})
    assert found.context["identifying"] == stranger
    assert f"/pit/tables/{rocket.pk}/seats/{stranger.pk}/identify/" in found.content.decode()
    assert f"Identify as {ann.name}" in found.content.decode()

    same = key()
    answer = identify_form(pit, stranger, ann.pk, form_key=same)
    again = identify_form(pit, stranger, ann.pk, form_key=same)

    assert answer.status_code == again.status_code == 302
    assert answer["Location"] == f"/pit/players/{ann.pk}/"
    assert SeatSessionIdentified.objects.get().session == stranger
    shown = pit.get(f"/pit/tables/{rocket.pk}/")
    assert [seat["identified"] for seat in shown.context["seats"]] == [ann]


def leave(session, by):
    return seat_close(session=session, by=by, key=key())


def test_the_pit_identifies_a_player_who_left_from_the_tables_page(ann, stranger, pete, dana, rocket):
    # given the man in the red tie cashed out
    leave(stranger, dana)
    pit = signed_in(pete)

    # when pete finds him among those who left, and identifies him from the search
    page = pit.get(f"/pit/tables/{rocket.pk}/")
    assert [(row["session"], row["identified"]) for row in page.context["left"]] == [(stranger.pk, None)]
    assert f'name="identify" value="{stranger.pk}"' in page.content.decode()
    found = pit.get("/pit/players/", {"identify": stranger.pk, "q": "ann"})
    assert found.context["identifying"] == stranger
    assert f"/pit/tables/{rocket.pk}/seats/{stranger.pk}/identify/" in found.content.decode()
    answer = identify_form(pit, stranger, ann.pk)

    # then the session is Ann's, and the table page says so instead of offering Find again
    assert answer.status_code == 302
    assert SeatSessionIdentified.objects.get().session == stranger
    shown = pit.get(f"/pit/tables/{rocket.pk}/")
    assert [row["identified"] for row in shown.context["left"]] == [ann]
    assert 'name="identify"' not in shown.content.decode()


def test_the_tables_page_lists_only_this_gaming_days_anonymous_players_who_left_it(
    ann, stranger, rocket, blackstone, dana, olga, pete, ada, monkeypatch
):
    deal_at(blackstone, olga, pete)
    leave(stranger, dana)
    leave(sit(rocket, 1, 100, dana, card_number="1001"), dana)  # carded: the player's already
    sit(rocket, 2, 100, dana, player_name="still here")  # seated: found from its seat
    leave(sit(blackstone, 2, 100, olga, player_name="woman in green"), olga)  # another table

    left = signed_in(pete).get(f"/pit/tables/{rocket.pk}/").context["left"]
    assert [(row["session"], row["player"]) for row in left] == [(stranger.pk, "man in a red tie")]

    # an auditor reads the list and is offered no Find
    page = signed_in(ada).get(f"/pit/tables/{rocket.pk}/")
    assert [row["session"] for row in page.context["left"]] == [stranger.pk]
    assert 'name="identify"' not in page.content.decode()

    # the next gaming day begins with nobody who left
    tomorrow = timezone.now() + timedelta(days=1)
    monkeypatch.setattr(timezone, "now", lambda: tomorrow)
    assert left_today(rocket) == []


def test_the_players_who_left_add_no_query_per_row(ann, stranger, rocket, dana, pete):
    pit = signed_in(pete)
    identify(stranger, ann, pete)
    leave(stranger, dana)
    with CaptureQueriesContext(connection) as one:
        pit.get(f"/pit/tables/{rocket.pk}/")

    for number in (1, 2, 4):
        leave(sit(rocket, number, 100, dana, player_name=f"guest {number}"), dana)
    identify(SeatSession.objects.get(player_name="guest 1"), ann, pete)
    with CaptureQueriesContext(connection) as four:
        page = pit.get(f"/pit/tables/{rocket.pk}/")

    assert len(page.context["left"]) == 4
    assert len(four) == len(one)


BAD = [
    ("", "ID", "Player"),
    ("abc", "ID", "Player"),
    ("999999", "ID", "no player 999999"),
    (None, "", "How you know"),
]


@pytest.mark.parametrize(("player", "reason", "sentence"), BAD)
def test_bad_input_is_refused_and_writes_nothing(ann, stranger, pete, player, reason, sentence):
    answer = identify_form(signed_in(pete), stranger, ann.pk if player is None else player, reason=reason)

    assert answer.status_code == 400
    assert sentence in answer.content.decode()
    assert not SeatSessionIdentified.objects.exists()


def test_another_pits_session_is_not_found_and_a_dealer_is_refused(ann, stranger, pit, dana):
    pam = person("pam", PIT_MANAGER)
    shift_start(user=pam, pit=Pit.objects.create(casino=pit.casino, name="Pit 2"), by=pam)

    assert identify_form(signed_in(pam), stranger, ann.pk).status_code == 404
    assert identify_form(signed_in(dana), stranger, ann.pk).status_code == 403
    assert not SeatSessionIdentified.objects.exists()


def test_a_search_names_no_session_the_user_may_not_identify(ann, stranger, pit, pete, dana):
    pam = person("pam", PIT_MANAGER)
    shift_start(user=pam, pit=Pit.objects.create(casino=pit.casino, name="Pit 2"), by=pam)
    identify(stranger, ann, pete)

    for user, session in ((pam, stranger.pk), (pete, stranger.pk), (pete, "x"), (pete, 999999)):
        found = signed_in(user).get("/pit/players/", {"identify": session, "q": "ann"})
        assert found.status_code == 200
        assert found.context["identifying"] is None
        assert "/identify/" not in found.content.decode()


def test_a_session_of_another_table_under_this_tables_address_is_not_found(ann, stranger, pete, blackstone):
    url = f"/pit/tables/{blackstone.pk}/seats/{stranger.pk}/identify/"

    assert signed_in(pete).post(url, {"player": ann.pk, "reason": "ID", "key": key()}).status_code == 404
